"""The pure tournament director: decisions from state and `now`, no I/O, no clock, no global RNG.

Modules: `structure` (levels, breaks, clocks), `payouts` (prize tables, satellites),
`seating` and `balancing` (T-1, T-10), `eliminations` (T-9, places, the bubble),
`registration` (T-2..T-6). The tournament actor drives them; see docs/TOURNAMENTS.md.
"""
