"""The client's protocol state without Qt or a server: framing, the table model fed by the
§6 table events, the lobby and tournament models (C-5, C-6, C-7, C-14, C-15, T-13)."""

from __future__ import annotations

from typing import Any

import pytest

from pokerroom.client.framing import FrameError, LineDecoder, encode
from pokerroom.client.lobby_model import LobbyModel, money, stakes
from pokerroom.client.table_model import Clock, TableModel
from pokerroom.client.tournament_model import TournamentModel

T = {"table_id": "t1", "hand_id": "t1-1"}


def snapshot(hand: dict[str, Any] | None = None) -> dict[str, Any]:
    seats = [
        {"seat": 0, "player": "ann", "stack": 200, "sitting_out": False, "waiting": False,
         "in_hand": hand is not None, "disconnected": False},
        {"seat": 3, "player": "bob", "stack": 150, "sitting_out": False, "waiting": False,
         "in_hand": hand is not None, "disconnected": True},
    ]  # fmt: skip
    return {"type": "table_snapshot", "table_id": "t1", "snapshot": {
        "table_id": "t1", "variant": "NT", "max_seats": 6, "blinds": [1, 2], "currency": "USD",
        "buy_in": [40, 200], "button": 3, "seats": seats, "hand": hand}}  # fmt: skip


def started() -> TableModel:
    """ann (seat 0, small blind) and bob (seat 3, button/big blind... heads-up order aside)."""
    model = TableModel(table_id="t1", me="ann")
    for event in (
        snapshot(),
        {"type": "hand_started", **T, "button": 3, "blinds": [1, 2],
         "seats": [{"seat": 3, "player": "bob", "stack": 150},
                   {"seat": 0, "player": "ann", "stack": 200}]},
        {"type": "blind_posted", **T, "seat": 3, "amount": 1, "kind": "small"},
        {"type": "blind_posted", **T, "seat": 0, "amount": 2, "kind": "big"},
        {"type": "hole_cards", **T, "cards": ["As", "Kd"]},
    ):  # fmt: skip
        model.apply(event)
    return model


def test_frames_split_anywhere_or_several_in_one_read_are_decoded() -> None:
    data = encode({"type": "ok", "id": 1, "re": "ping", "result": {}}) + b"\r\n\n"
    data += encode({"type": "keepalive", "server_time_ms": 5, "text": "é"})
    decoder = LineDecoder()
    frames = [f for i in range(len(data)) for f in decoder.feed(data[i : i + 1])]
    assert [f["type"] for f in frames] == ["ok", "keepalive"] and frames[1]["text"] == "é"
    assert LineDecoder().feed(data) == frames


@pytest.mark.parametrize("line", [b"[1,2]\n", b"not json\n", b"x" * 70_000])
def test_a_line_that_is_no_frame_is_an_error(line: bytes) -> None:
    with pytest.raises(FrameError):
        LineDecoder().feed(line)


def test_snapshot_then_hand_events_track_stacks_bets_and_the_pot() -> None:
    model = started()
    assert model.my_seat is not None and model.my_seat.cards == ["As", "Kd"]
    assert model.seats[3].cards is None  # C-15: the other's cards are backs
    assert (model.seats[3].stack, model.seats[3].bet, model.pot) == (149, 1, 3)
    model.apply({"type": "player_acted", **T, "seat": 3, "action": "raise", "amount": 6,
                 "added": 5})  # fmt: skip
    model.apply({"type": "player_acted", **T, "seat": 0, "action": "call", "amount": 4})
    assert (model.seats[3].bet, model.seats[0].bet, model.pot) == (6, 6, 12)
    assert model.seats[0].stack == 194 and model.seats[3].last_action == "raise $0.06"
    model.apply({"type": "board_dealt", **T, "street": 1, "cards": ["2c", "7d", "Jh"]})
    assert (model.collected, model.seats[0].bet, model.pot) == (12, 0, 12)
    model.apply({"type": "player_acted", **T, "seat": 0, "action": "bet", "amount": 10,
                 "added": 10})  # fmt: skip
    model.apply({"type": "player_acted", **T, "seat": 3, "action": "fold", "amount": None})
    model.apply({"type": "pot_returned", **T, "seat": 0, "amount": 10})
    assert model.seats[3].folded and model.seats[0].stack == 194 and model.pot == 12
    model.apply({"type": "pot_awarded", **T, "pot": 0, "seats": [0], "amount": 11, "rake": 1,
                 "shares": [{"seat": 0, "amount": 11}]})  # fmt: skip
    model.apply({"type": "hand_ended", **T, "stacks": {"0": 205, "3": 144}, "rake": 1})
    assert model.hand_over and model.pot == 0 and model.results == ["main pot: ann $0.11"]
    assert (model.seats[0].stack, model.seats[3].stack) == (205, 144)


def test_antes_and_dead_blinds_go_to_the_pot_not_the_bet() -> None:
    model = started()
    model.apply({"type": "blind_posted", **T, "seat": 3, "amount": 5, "kind": "ante"})
    assert model.seats[3].bet == 1 and model.collected == 5 and model.pot == 8


def test_a_shown_hand_is_the_only_way_the_other_s_cards_appear() -> None:
    model = started()
    model.apply({"type": "hand_mucked", **T, "seat": 3})
    assert model.seats[3].cards is None
    model.apply({"type": "hand_shown", **T, "seat": 3, "cards": ["Qh", "Qs"]})
    assert model.seats[3].cards == ["Qh", "Qs"]


def test_our_turn_the_clock_then_the_time_bank_count_down() -> None:
    """C-6 then C-7: 15 s of clock, then the bank; a `timebank_started` resets the deadline."""
    model = started()
    model.apply({"type": "action_request", **T, "seat": 0, "deadline_ms": 20_000,
                 "timebank_ms": 30_000, "actions": {"fold": True, "check": False, "call": 1,
                 "min_raise_to": 4, "max_raise_to": 200}})  # fmt: skip
    assert model.clock(5_000) == Clock(action_ms=15_000, timebank_ms=30_000)
    assert model.clock(26_000) == Clock(action_ms=0, timebank_ms=24_000)  # bank already running
    model.apply({"type": "timebank_started", **T, "seat": 0, "timebank_ms": 30_000,
                 "deadline_ms": 50_000})  # fmt: skip
    assert model.clock(45_000) == Clock(action_ms=0, timebank_ms=5_000)
    assert model.clock(60_000) == Clock(action_ms=0, timebank_ms=0)
    model.apply({"type": "player_acted", **T, "seat": 0, "action": "fold", "amount": None,
                 "auto": "timeout"})  # fmt: skip
    assert model.turn is None and model.clock(60_000) is None and "[timeout]" in model.log[-1]


def test_presets_are_pot_fractions_kept_within_min_and_max_raise_to() -> None:
    model = started()  # pot 3, we (big blind 2) face nothing more: bob limps
    model.apply({"type": "player_acted", **T, "seat": 3, "action": "call", "amount": 1})
    model.apply({"type": "action_request", **T, "seat": 0, "deadline_ms": 1, "timebank_ms": 1,
                 "actions": {"fold": False, "check": True, "call": 0, "min_raise_to": 4,
                             "max_raise_to": 200}})  # fmt: skip
    # pot 4: ⅓ pot is 2 + 1 = 3 below the minimum -> 4; ½ pot 2 + 2; pot 2 + 4; all-in 200
    assert model.presets() == {"⅓ pot": 4, "½ pot": 4, "pot": 6, "all-in": 200}
    model.apply({"type": "action_request", **T, "seat": 0, "deadline_ms": 1, "timebank_ms": 1,
                 "actions": {"fold": True, "check": False, "call": 148, "min_raise_to": 150,
                             "max_raise_to": 150}})  # fmt: skip
    assert set(model.presets().values()) == {150}  # everything within the legal range
    model.apply({"type": "action_request", **T, "seat": 0, "deadline_ms": 1, "timebank_ms": 1,
                 "actions": {"fold": True, "check": False, "call": 1, "min_raise_to": None,
                             "max_raise_to": None}})  # fmt: skip
    assert model.presets() == {}  # no raise allowed: no presets


def test_a_snapshot_after_a_resume_restores_the_running_hand() -> None:
    """C-14: the snapshot's hand view gives stacks, bets, the pot and our cards back."""
    model = started()
    hand = {"hand_id": "t1-1", "board": ["2c", "7d", "Jh"], "pot": 30, "actor": 0,
            "deadline_ms": 99, "seats": [
                {"seat": 0, "stack": 180, "bet": 10, "folded": False, "cards": ["As", "Kd"]},
                {"seat": 3, "stack": 140, "bet": 0, "folded": False}]}  # fmt: skip
    model.apply(snapshot(hand))
    assert model.snapshots == 2 and model.board == ["2c", "7d", "Jh"]
    assert model.pot == 30 and model.collected == 20 and model.seats[0].bet == 10
    assert model.seats[0].cards == ["As", "Kd"] and model.seats[3].cards is None
    assert model.seats[3].disconnected and model.actor == 0 and model.turn is None
    model.apply(snapshot(None))
    assert model.hand_over and model.pot == 0 and model.board == []


def test_seats_come_and_go_and_sit_out() -> None:
    model = started()
    model.apply({"type": "seat_taken", "table_id": "t1", "seat": 5, "player": "cat", "stack": 90})
    model.apply({"type": "player_sat_out", "table_id": "t1", "seat": 5, "player": "cat",
                 "reason": "asked"})  # fmt: skip
    assert model.seats[5].sitting_out
    model.apply({"type": "player_sat_in", "table_id": "t1", "seat": 5, "player": "cat",
                 "owes": 0, "wait_for_bb": True})  # fmt: skip
    assert not model.seats[5].sitting_out and model.seats[5].waiting
    model.apply({"type": "seat_left", "table_id": "t1", "seat": 5, "player": "cat", "amount": 90})
    assert 5 not in model.seats


def test_a_top_up_answer_sets_our_stack() -> None:
    """C-9: no table event tells a top-up; its answer gives the stack (and what is pending)."""
    model = started()
    model.topped_up(200, 0)
    assert model.seats[0].stack == 200 and model.seats[3].stack == 149
    model.topped_up(200, 50)
    assert model.log[-1] == "$0.50 more after this hand"


def test_chat_lines_and_our_refused_lines() -> None:
    model = TableModel(table_id="t1", me="ann")
    model.apply({"type": "chat", "table_id": "t1", "player": "bob", "text": "hi", "at_ms": 1})
    model.chat_refused("buy chips at x.com", "chat_advertising", "no links", 2)
    assert [(c.player, c.error) for c in model.chat] == [
        ("bob", ""), ("ann", "chat_advertising: no links")]  # fmt: skip


def test_money_and_stakes() -> None:
    assert money(150) == "$1.50" and money(200) == "$2" and money(-5) == "-$0.05"
    assert money(123_456_789) == "$1,234,567.89" and money(1500, None) == "1,500"
    summary = {"small_blind": 1, "big_blind": 2, "currency": "USD"}
    assert stakes(summary) == "$0.01/$0.02"


def test_lobby_updates_and_the_game_filter() -> None:
    lobby = LobbyModel()
    row = {"table_id": "b", "variant": "NT", "players": 1, "max_seats": 6}
    lobby.set_tables([row, {"table_id": "a", "variant": "PO", "players": 0, "max_seats": 6}])
    assert lobby.apply({"type": "lobby_update", "table": {**row, "players": 2}})
    assert [t["table_id"] for t in lobby.cash_rows()] == ["a", "b"]
    assert lobby.tables["b"]["players"] == 2
    lobby.variant_filter = "PO"
    assert [t["table_id"] for t in lobby.cash_rows()] == ["a"]
    lobby.variant_filter = ""
    lobby.tables["a"]["max_seats"] = lobby.tables["b"]["max_seats"] = 2
    lobby.hide_full = True  # b has 2 of 2
    assert [t["table_id"] for t in lobby.cash_rows()] == ["a"]
    lobby.hide_full, lobby.hide_empty = False, True  # a has nobody
    assert [t["table_id"] for t in lobby.cash_rows()] == ["b"]
    lobby.hide_empty = False
    base = {"starts_at_ms": None, "name": "x"}
    lobby.set_tournaments([{**base, "tournament_id": "f", "status": "finished"},
                           {**base, "tournament_id": "r", "status": "registering"}])  # fmt: skip
    running = {**base, "tournament_id": "g", "status": "running"}
    assert lobby.apply({"type": "tournament_lobby_update", "tournament": running})
    assert [t["tournament_id"] for t in lobby.tournament_rows()] == ["r", "g", "f"]
    assert not lobby.apply({"type": "chat"})


def test_the_tournament_model_follows_status_seat_deal_and_results() -> None:
    model = TournamentModel(tournament_id="s1", me="ann")
    assert not model.apply({"type": "tournament_status", "tournament_id": "other"})
    model.apply({"type": "tournament_status", "tournament_id": "s1", "status": "running",
                 "payouts": [700, 300], "level": 2})  # fmt: skip
    assert model.payouts() == [(1, 700), (2, 300)]
    model.apply({"type": "tournament_seat", "tournament_id": "s1", "table": "s1.2", "seat": 4,
                 "reason": "balance", "from_table": "s1.1"})  # fmt: skip
    assert (model.table, model.seat) == ("s1.2", 4)
    proposal = {"type": "deal_proposal", "tournament_id": "s1", "deal_id": "d1", "figures": []}
    model.apply(proposal)
    assert model.deal is not None and model.deal["deal_id"] == "d1"
    model.apply({"type": "deal_result", "tournament_id": "s1", "deal_id": "d1",
                 "outcome": "rejected", "rejected_by": "bob", "figures": []})  # fmt: skip
    assert model.deal is None and model.deal_result is not None  # T-13: play resumes
    model.apply({"type": "tournament_finish", "tournament_id": "s1", "place": 2, "prize": 300,
                 "tied": False, "busted_by": "bob"})  # fmt: skip
    model.apply({"type": "tournament_results", "tournament_id": "s1", "prize_pool": 1000,
                 "results": []})  # fmt: skip
    assert model.finish is not None and model.results is not None
    won = {"player": "ann", "busted": "cy", "reason": "knockout", "amount": 250, "added": 0}
    model.apply({"type": "bounty_won", "tournament_id": "s1", **won, "bounty": 0, "hand_id": "h"})
    assert model.log[-1] == "ann wins a bounty of $2.50 for knocking out cy"  # T-14


def test_stake_prices_round_down_to_the_cent() -> None:
    """§9: a share costs buy_in × share_bps × markup_bps / 10,000², rounded down."""
    from pokerroom.client.widgets.staking_panel import percent, stake_price

    assert stake_price(500, 2_500, 10_000) == 125
    assert stake_price(999, 3_333, 11_000) == 366  # 366.2 ... down
    assert percent(2_500) == "25%" and percent(1_250) == "12.5%"
