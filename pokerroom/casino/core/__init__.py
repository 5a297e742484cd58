"""The pure casino core (docs/CASINO_RULES.md): shoes, draws and settlements of every game.

Like `pokerroom.engine`, it does no I/O, reads no clock and takes its random source as an
argument (RNG-1); pay tables and every [unsourced] number come in as data (`config/casino/`).
Each game offers `draw(shoe_or_rng)` -> outcome and `settle(bets, outcome, rules)` -> Settlement;
blackjack is a state machine with check-then-apply decisions (`blackjack.BlackjackRound`).
"""
