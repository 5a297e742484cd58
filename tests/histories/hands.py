"""Seeded hand records for the history tests: random tables, stacks, posts, antes and rake."""

from __future__ import annotations

import random
from typing import Any

from pokerroom.engine.cards import shuffled_deck
from pokerroom.engine.config import HandConfig
from pokerroom.engine.hand import Hand
from pokerroom.engine.phh import history_fields
from pokerroom.engine.simulate import random_policy
from pokerroom.engine.variants import VARIANTS, Betting

NAMES = ("ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal", "ivy")
STARTED_MS = 1_800_000_000_000


def seeded_record(seed: int, variant: str = "NT", **options: Any) -> dict[str, Any]:
    """One finished hand as the table stores it: PHH fields and the underscore fields.

    `antes`, `posts` (live entry posts, C-2) and `dead` (a missed small blind, C-4) and `rake`
    switch those in; stacks vary so that all-ins make side pots."""
    rng = random.Random(seed)
    n = options.get("players") or rng.randint(2, 6)
    sb, bb = 1, 2
    stacks = tuple(rng.choice((30, 60, 120, 200, 400)) + rng.randint(0, 9) for _ in range(n))
    blinds = [0] * n
    if n == 2:
        blinds[0], blinds[1] = bb, sb
    else:
        blinds[0], blinds[1] = sb, bb
    live, dead = [0] * n, [0] * n
    if options.get("posts") and n > 3:
        k = rng.randint(2, n - 1)
        live[k] = bb
        if options.get("dead"):
            dead[k] = sb
    antes: tuple[int, ...] = ()
    if options.get("antes"):
        antes = (rng.choice((1, 2)),) * n
    fixed = VARIANTS[variant].betting is Betting.FIXED_LIMIT
    rake_bps = 500 if options.get("rake") else 0
    config = HandConfig(
        variant=VARIANTS[variant],
        starting_stacks=stacks,
        blinds_or_straddles=tuple(blinds),
        antes=antes,
        min_bet=bb,
        small_bet=bb if fixed else 0,
        big_bet=2 * bb if fixed else 0,
        live_posts=tuple(live) if any(live) else (),
        dead_posts=tuple(dead) if any(dead) else (),
        rake_bps=rake_bps,
        rake_cap=6,
    )
    hand = Hand(config, deck=shuffled_deck(rng))
    while not hand.is_over:
        random_policy(hand, rng)
    seat_count = 9
    seats = sorted(rng.sample(range(1, seat_count + 1), n))
    # The engine's order starts left of the button: rotate the sorted seats so that it does.
    cut = rng.randrange(n)
    seats = seats[cut:] + seats[:cut]
    players = list(NAMES[:n])
    fields = history_fields(
        hand, seed, players=players, seats=seats, seat_count=seat_count, currency="USD"
    )
    fields.update(
        _table_id="t1",
        _hand_id=f"t1-{seed}",
        _button=seats[1] if n == 2 else seats[-1],
        _small_blind=sb,
        _big_blind=bb,
        _started_at_ms=STARTED_MS + seed * 60_000,
    )
    if any(live):
        fields["_live_posts"] = live
    if any(dead):
        fields["_dead_posts"] = dead
    if rake_bps:
        fields.update(_rake_bps=rake_bps, _rake_cap=6, _rake_without_flop=False)
    return fields
