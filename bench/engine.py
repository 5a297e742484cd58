"""Engine speed against PokerKit: six-handed NLHE, blinds 1/2, stacks 200, everyone calls down.

Run: .venv/bin/python bench/engine.py [--ours 20000] [--pokerkit 300] [--rounds 3]

Both engines deal, bet, show down and award the pot of the same kind of hand, in
alternating rounds of the same process so that machine noise hits both alike. Rates use
the process's CPU time (other processes on the machine do not count); wall time is shown
too. PokerKit runs with every automation on (dealing, showdown, pushing chips), which is
what our engine does inside `Hand`.
"""

from __future__ import annotations

import argparse
import json
import random
import time

from pokerroom.engine.cards import shuffled_deck
from pokerroom.engine.hand import Hand
from pokerroom.engine.simulate import table_config


def run_ours(hands: int, seed: int) -> tuple[float, float]:
    """Play `hands` call-down hands with our engine; return (cpu seconds, wall seconds)."""
    rng = random.Random(seed)
    config = table_config("NT", (200,) * 6, 1, 2)
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(hands):
        hand = Hand(config, shuffled_deck(rng))
        while not hand.is_over:
            hand.check_or_call(hand.actor)
    return time.process_time() - cpu, time.perf_counter() - wall


def run_pokerkit(hands: int) -> tuple[float, float]:
    """Play `hands` call-down hands with PokerKit; return (cpu seconds, wall seconds)."""
    from pokerkit import Automation, NoLimitTexasHoldem

    game = NoLimitTexasHoldem(
        (
            Automation.ANTE_POSTING,
            Automation.BET_COLLECTION,
            Automation.BLIND_OR_STRADDLE_POSTING,
            Automation.CARD_BURNING,
            Automation.HOLE_DEALING,
            Automation.BOARD_DEALING,
            Automation.RUNOUT_COUNT_SELECTION,
            Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
            Automation.HAND_KILLING,
            Automation.CHIPS_PUSHING,
            Automation.CHIPS_PULLING,
        ),
        True,
        0,
        (1, 2),
        2,
    )
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(hands):
        state = game((200,) * 6, 6)
        while state.status:
            state.check_or_call()
    return time.process_time() - cpu, time.perf_counter() - wall


def main() -> None:
    """Run the rounds and print both rates and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ours", type=int, default=20_000, help="hands per round, our engine")
    parser.add_argument("--pokerkit", type=int, default=300, help="hands per round, PokerKit")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    run_ours(2_000, seed=999)  # warm the evaluator's cache as a running server has it
    ours_cpu = ours_wall = pk_cpu = pk_wall = 0.0
    for round_no in range(args.rounds):
        cpu, wall = run_ours(args.ours, seed=round_no)
        ours_cpu, ours_wall = ours_cpu + cpu, ours_wall + wall
        cpu, wall = run_pokerkit(args.pokerkit)
        pk_cpu, pk_wall = pk_cpu + cpu, pk_wall + wall
    ours_hands, pk_hands = args.ours * args.rounds, args.pokerkit * args.rounds
    result = {
        "benchmark": "NLHE 6-max, blinds 1/2, stacks 200, check/call to showdown",
        "ours_hands_per_cpu_second": round(ours_hands / ours_cpu),
        "pokerkit_hands_per_cpu_second": round(pk_hands / pk_cpu, 1),
        "ratio_cpu": round((ours_hands / ours_cpu) / (pk_hands / pk_cpu), 1),
        "ours_hands_per_wall_second": round(ours_hands / ours_wall),
        "pokerkit_hands_per_wall_second": round(pk_hands / pk_wall, 1),
        "ratio_wall": round((ours_hands / ours_wall) / (pk_hands / pk_wall), 1),
        "goal": "ratio >= 50",
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
