"""What every table of the room shares, cash or tournament (docs/ARCHITECTURE.md rule 13).

- `positions`: the one pure planner of button and blinds (dead button, C-2, C-4).
- `views`: engine events and hands as protocol frames, each to the audience that may see it
  (C-15).
- `driver`: `HandDriver`, which deals a hand, asks each player in turn on the action clock and
  time bank (C-6, C-7), applies checked actions, acts for a player out of time, and tells the
  table's audience. A cash table and a tournament table each own one and add their own rules
  around it.

Seats in every client frame are numbered from 0 (docs/PROTOCOL.md section 6).
"""
