"""Pot-limit Omaha, fixed-limit hold'em and a tournament hand, line by line against text
written by hand; the header's times, money and numbers; refusing a record that does not replay
to what the room paid."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from pokerroom.engine.config import HandConfig
from pokerroom.engine.errors import EngineError
from pokerroom.engine.hand import Hand, Phase
from pokerroom.engine.phh import history_fields
from pokerroom.engine.pokerstars import format_hand
from pokerroom.engine.pokerstars_terms import (
    clock_text,
    eastern_offset_hours,
    money,
    roman,
    stars_number,
)
from pokerroom.engine.replay import apply_action
from pokerroom.engine.variants import VARIANTS
from tests.histories.hands import seeded_record
from tests.histories.stars_parser import assert_same_result, chips


def scripted(config: HandConfig, actions: list[str], **extra: Any) -> dict[str, Any]:
    """The record of a hand played by PHH actions, as a table stores it."""
    hand = Hand(config)
    for action in actions:
        apply_action(hand, action)
    if hand.phase is Phase.SHOWDOWN:
        hand.resolve_showdown()
    assert hand.is_over
    return history_fields(hand, 7, **extra)


def omaha() -> dict[str, Any]:
    return scripted(
        HandConfig(VARIANTS["PO"], (200, 300, 150), (1, 2, 0), min_bet=2, rake_bps=500, rake_cap=6),
        ["d dh p1 AsKsQsJs", "d dh p2 2c3c4d5d", "d dh p3 7h8h9hTh", "p3 cbr 7", "p1 cc", "p2 cc",
         "d db 2h5h9c", "p1 cc", "p2 cbr 10", "p3 cbr 40", "p1 f", "p2 cc", "d db Kd", "p2 cc",
         "p3 cc", "d db 3s", "p2 cc", "p3 cc"],
        players=["ann", "bob", "cat"], seats=[2, 4, 6], seat_count=6, currency="EUR",
        _table_id="omaha-1", _hand_id="omaha-1-7", _button=6, _small_blind=1, _big_blind=2,
        _rake_bps=500, _rake_cap=6, _started_at_ms=1_783_000_000_000,
    )  # fmt: skip


OMAHA_FOR_BOB = (
    (
        "PokerStars Hand #31355087891964133:  Omaha Pot Limit (€0.01/€0.02 EUR)"
        " - 2026/07/02 13:46:40 UTC [2026/07/02 9:46:40 ET]"
        "\n"
    )
    + """\
Table 'omaha-1' 6-max Seat #6 is the button
Seat 2: ann (€2 in chips)
Seat 4: bob (€3 in chips)
Seat 6: cat (€1.50 in chips)
ann: posts small blind €0.01
bob: posts big blind €0.02
*** HOLE CARDS ***
Dealt to bob [2c 3c 4d 5d]
cat: raises €0.05 to €0.07
ann: calls €0.06
bob: calls €0.05
*** FLOP *** [2h 5h 9c]
ann: checks
bob: bets €0.10
cat: raises €0.30 to €0.40
ann: folds
bob: calls €0.30
*** TURN *** [2h 5h 9c] [Kd]
bob: checks
cat: checks
*** RIVER *** [2h 5h 9c Kd] [3s]
bob: checks
cat: checks
*** SHOW DOWN ***
bob: shows [2c 3c 4d 5d] (two pair)
cat: mucks hand
bob collected €0.96 from pot
*** SUMMARY ***
Total pot €1.01 | Rake €0.05
Board [2h 5h 9c Kd 3s]
Seat 2: ann (small blind) folded on the Flop
Seat 4: bob (big blind) showed [2c 3c 4d 5d] and won (€0.96) with two pair
Seat 6: cat (button) mucked
"""
)


def fixed_limit() -> dict[str, Any]:
    return scripted(
        HandConfig(VARIANTS["FT"], (100, 40), (2, 1), min_bet=2, small_bet=2, big_bet=4),
        ["d dh p1 AhAd", "d dh p2 KcQc", "p2 cbr 4", "p1 cbr 6", "p2 cc", "d db Qs7c2c",
         "p1 cbr 2", "p2 cbr 4", "p1 cc", "d db 3d", "p1 cc", "p2 cbr 4", "p1 cbr 8",
         "p2 cbr 12", "p1 cc", "d db Jc", "p1 cbr 4", "p2 cc"],
        players=["dan", "eve"], seats=[1, 2], seat_count=2, currency="USD", _table_id="fl",
        _hand_id="fl-3", _button=2, _small_blind=1, _big_blind=2, _started_at_ms=1_790_000_000_000,
    )  # fmt: skip


FIXED_LIMIT_FOR_DAN = (
    (
        "PokerStars Hand #60290975079195402:  Hold'em Limit ($0.02/$0.04 USD)"
        " - 2026/09/21 14:13:20 UTC [2026/09/21 10:13:20 ET]"
        "\n"
    )
    + """\
Table 'fl' 2-max Seat #2 is the button
Seat 1: dan ($1 in chips)
Seat 2: eve ($0.40 in chips)
eve: posts small blind $0.01
dan: posts big blind $0.02
*** HOLE CARDS ***
Dealt to dan [Ah Ad]
eve: raises $0.02 to $0.04
dan: raises $0.02 to $0.06
eve: calls $0.02
*** FLOP *** [Qs 7c 2c]
dan: bets $0.02
eve: raises $0.02 to $0.04
dan: calls $0.02
*** TURN *** [Qs 7c 2c] [3d]
dan: checks
eve: bets $0.04
dan: raises $0.04 to $0.08
eve: raises $0.04 to $0.12
dan: calls $0.04
*** RIVER *** [Qs 7c 2c 3d] [Jc]
dan: bets $0.04
eve: calls $0.04
*** SHOW DOWN ***
dan: shows [Ah Ad] (a pair)
eve: shows [Kc Qc] (a flush)
eve collected $0.52 from pot
*** SUMMARY ***
Total pot $0.52 | Rake $0
Board [Qs 7c 2c 3d Jc]
Seat 1: dan (big blind) showed [Ah Ad] and lost with a pair
Seat 2: eve (button) (small blind) showed [Kc Qc] and won ($0.52) with a flush
"""
)


def tournament() -> dict[str, Any]:
    return scripted(
        HandConfig(VARIANTS["NT"], (1500, 2200, 900), (50, 100, 0), antes=(10, 10, 10),
                   min_bet=100, ante_trimming=True),
        ["d dh p1 9s9d", "d dh p2 AcJd", "d dh p3 KhKs", "p3 cbr 300", "p1 f", "p2 cc",
         "d db Th6c2s", "p2 cc", "p3 cbr 500", "p2 f"],
        players=["fay", "gus", "hal"], seats=[3, 5, 9], seat_count=9, _table_id="4",
        _hand_id="88:4:12", _button=9, _tournament_id="88", _buy_in=460, _fee=40,
        _buy_in_currency="USD", _level=3, _small_blind=50, _big_blind=100,
        _started_at_ms=1_796_000_000_000,
    )  # fmt: skip


TOURNAMENT_FOR_HAL = (
    (
        "PokerStars Hand #32943400778931405: Tournament #88, $4.60+$0.40 USD Hold'em No Limit"
        " - Level III (50/100) - 2026/11/30 0:53:20 UTC [2026/11/29 19:53:20 ET]"
        "\n"
    )
    + """\
Table '88 4' 9-max Seat #9 is the button
Seat 3: fay (1500 in chips)
Seat 5: gus (2200 in chips)
Seat 9: hal (900 in chips)
fay: posts the ante 10
gus: posts the ante 10
hal: posts the ante 10
fay: posts small blind 50
gus: posts big blind 100
*** HOLE CARDS ***
Dealt to hal [Kh Ks]
hal: raises 200 to 300
fay: folds
gus: calls 200
*** FLOP *** [Th 6c 2s]
gus: checks
hal: bets 500
gus: folds
Uncalled bet (500) returned to hal
hal collected 680 from pot
*** SUMMARY ***
Total pot 680 | Rake 0
Board [Th 6c 2s]
Seat 3: fay (small blind) folded before Flop
Seat 5: gus (big blind) folded on the Flop
Seat 9: hal (button) collected (680)
"""
)


@pytest.mark.parametrize(
    ("record", "viewer", "expected"),
    [
        (omaha, "bob", OMAHA_FOR_BOB),
        (fixed_limit, "dan", FIXED_LIMIT_FOR_DAN),
        (tournament, "hal", TOURNAMENT_FOR_HAL),
    ],
    ids=["pot-limit-omaha", "fixed-limit", "tournament"],
)
def test_hand_text_line_by_line(record: Any, viewer: str, expected: str) -> None:
    """Header, posts, streets, actions, showdown, pots and summary as written by hand."""
    got = format_hand(record(), viewer=viewer).splitlines()
    want = expected.splitlines()
    for number, (line, wanted) in enumerate(zip(got, want, strict=False), 1):
        assert line == wanted, f"line {number}"
    assert len(got) == len(want)


def test_tournament_hand_is_in_chips_and_pokerkit_reads_it() -> None:
    """Chips, not money; the antes and the uncalled bet replay to the same stacks."""
    fields = tournament()
    text = format_hand(fields, viewer="hal")
    assert "$" not in text.split("\n", 1)[1]  # only the buy-in in the header is money
    assert_same_result(
        text, dict(zip(fields["players"], fields["finishing_stacks"], strict=True)), chips
    )


def test_a_freeroll_says_so() -> None:
    fields = {**tournament(), "_buy_in": 0, "_fee": 0}
    assert "Tournament #88, Freeroll Hold'em No Limit - Level III" in format_hand(fields)


def test_staff_see_every_mucked_hand_a_player_only_their_own() -> None:  # C-15
    """C-15: cat mucked at the showdown: her cards are in the audit, not in bob's text."""
    staff = format_hand(omaha(), every_card=True)
    assert "Seat 6: cat (button) mucked [7h 8h 9h Th]" in staff
    assert "Dealt to ann [As Ks Qs Js]" in staff
    for viewer in ("bob", "ann", None):
        text = format_hand(omaha(), viewer=viewer)
        assert "7h 8h" not in text and ("As Ks" in text) == (viewer == "ann")


def test_a_record_that_does_not_replay_to_what_was_paid_is_refused() -> None:
    """A record missing a post (or anything that changes the result) is `bad_history`."""
    fields = omaha()
    fields["finishing_stacks"] = [
        *fields["finishing_stacks"][:-1],
        fields["finishing_stacks"][-1] + 1,
    ]
    with pytest.raises(EngineError) as caught:
        format_hand(fields)
    assert caught.value.code == "bad_history"
    masked = {**omaha(), "actions": [a.replace("7h8h9hTh", "????????") for a in omaha()["actions"]]}
    with pytest.raises(EngineError):
        format_hand(masked)


def test_eastern_time_follows_new_york_across_the_changes() -> None:
    """ET is EST or EDT exactly as the tz database says, at the edges and anywhere."""
    new_york = ZoneInfo("America/New_York")
    edges = [
        datetime(2026, 3, 8, 6, 59, 59, tzinfo=UTC), datetime(2026, 3, 8, 7, 0, 0, tzinfo=UTC),
        datetime(2026, 11, 1, 5, 59, 59, tzinfo=UTC), datetime(2026, 11, 1, 6, 0, 0, tzinfo=UTC),
        datetime(2030, 3, 10, 7, 0, 0, tzinfo=UTC), datetime(2028, 2, 29, 23, 30, tzinfo=UTC),
    ]  # fmt: skip
    rng = random.Random(5)
    samples = edges + [
        datetime.fromtimestamp(rng.randrange(1_600_000_000, 2_200_000_000), UTC)
        for _ in range(2000)
    ]
    for moment in samples:
        ms = int(moment.timestamp()) * 1000
        local = moment.astimezone(new_york)
        assert eastern_offset_hours(ms) * 3600 == local.utcoffset().total_seconds(), moment
        want = f"{local:%Y/%m/%d} {local.hour}:{local:%M:%S}"
        assert clock_text(ms, eastern_offset_hours(ms)) == want, moment
        assert clock_text(ms) == f"{moment:%Y/%m/%d} {moment.hour}:{moment:%M:%S}"


def test_money_numbers_and_levels() -> None:
    assert [money(n, "USD") for n in (0, 5, 100, 125, 123456)] == ["$0", "$0.05", "$1", "$1.25",
                                                                  "$1234.56"]  # fmt: skip
    assert (money(250, "EUR"), money(250, "GBP"), money(250, "CHF"), money(250, None)) == (
        "€2.50", "£2.50", "2.50", "250")  # fmt: skip
    assert stars_number("123") == 123 and stars_number("t1-5") == stars_number("t1-5")
    assert stars_number("t1-5") != stars_number("t1-6") and stars_number("t1-5") < 2**56
    assert [roman(n) for n in (1, 4, 9, 14, 40, 90, 400, 1994)] == [
        "I", "IV", "IX", "XIV", "XL", "XC", "CD", "MCMXCIV"]  # fmt: skip


def test_a_record_stored_before_the_extra_fields_is_written_when_it_can_be() -> None:
    """An older record (no button, stakes or start time) takes the button from the engine's
    order and the time the hand ended; one whose posts were not kept cannot replay to what was
    paid and is refused rather than written wrong."""
    old = {k: v for k, v in omaha().items() if not k.startswith("_") or k == "_hand_id"}
    old.pop("_rake_bps", None)
    old["finishing_stacks"] = omaha()["finishing_stacks"]
    text = format_hand({**old, "_rake_bps": 500, "_rake_cap": 6}, started_at_ms=1_783_000_000_000)
    assert "Seat #6 is the button" in text and "2026/07/02 13:46:40 UTC" in text
    posted = seeded_record(3, players=5, posts=True, dead=True)
    assert posted.get("_dead_posts")
    format_hand(posted)
    with pytest.raises(EngineError):
        format_hand({k: v for k, v in posted.items() if k != "_dead_posts"})
