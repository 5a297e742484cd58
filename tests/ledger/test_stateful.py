"""A Hypothesis state machine drives the ledger beside a plain in-memory model (P-2)."""

from __future__ import annotations

import itertools

import sqlalchemy as sa
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from pokerroom.ledger import errors
from pokerroom.ledger.accounts import get_account
from pokerroom.ledger.kinds import AccountKind, AccountRef, external
from pokerroom.ledger.reports import check_ledger
from pokerroom.ledger.transfers import Transfer, move, reverse, transfer

USD = "USD"
PLAYERS = ("ann", "bob", "cy")
KINDS = (AccountKind.WALLET, AccountKind.SEAT_ESCROW, AccountKind.PRIZE_POOL)
_runs = itertools.count()

amounts = st.integers(min_value=1, max_value=500)
account_names = st.tuples(st.sampled_from(KINDS), st.sampled_from(PLAYERS))


class LedgerMachine(RuleBasedStateMachine):
    """Model: a dict of balances and a dict of keys to (request, result)."""

    engine: sa.Engine

    def __init__(self) -> None:
        super().__init__()
        self.run = next(_runs)  # each example gets its own accounts and keys in the database
        self.balances: dict[AccountRef, int] = {}
        self.sent: dict[str, tuple[dict, Transfer]] = {}
        self.reversed: set[int] = set()
        self.n = 0

    def ref(self, name: tuple[AccountKind, str]) -> AccountRef:
        kind, player = name
        return AccountRef(kind, f"r{self.run}-{player}", USD)

    def ext(self) -> AccountRef:
        return external(USD, f"r{self.run}-world")

    def key(self) -> str:
        self.n += 1
        return f"r{self.run}:{self.n}"

    def _send(self, request: dict) -> None:
        postings = dict(request["postings"])
        short = [
            r
            for r, amt in postings.items()
            if r.kind != AccountKind.EXTERNAL and self.balances.get(r, 0) + amt < 0
        ]
        try:
            result = transfer(self.engine, **request)
        except errors.InsufficientFunds:
            assert short, request
            return
        assert not short, request
        for r, amt in postings.items():
            self.balances[r] = self.balances.get(r, 0) + amt
        self.sent[request["key"]] = (request, result)

    @rule(to=account_names, amount=amounts)
    def deposit(self, to: tuple[AccountKind, str], amount: int) -> None:
        self._send(
            {
                "key": self.key(),
                "kind": "deposit",
                "currency": USD,
                "postings": [(self.ext(), -amount), (self.ref(to), amount)],
            }
        )

    @rule(src=account_names, dst=account_names, amount=amounts)
    def move_money(self, src: tuple, dst: tuple, amount: int) -> None:
        if src == dst:
            return
        self._send(
            {
                "key": self.key(),
                "kind": "transfer",
                "currency": USD,
                "postings": [(self.ref(src), -amount), (self.ref(dst), amount)],
            }
        )

    @rule(
        losers=st.lists(
            st.tuples(st.sampled_from(PLAYERS), amounts),
            min_size=1,
            max_size=3,
            unique_by=lambda t: t[0],
        ),
        winner=st.sampled_from(PLAYERS),
        rake=st.integers(0, 20),
    )
    def settle_hand(self, losers: list, winner: str, rake: int) -> None:
        """Seats lose, one seat wins the pot less rake (C-11)."""
        postings = [
            (self.ref((AccountKind.SEAT_ESCROW, p)), -amt) for p, amt in losers if p != winner
        ]
        pot = -sum(amt for _, amt in postings)
        if not postings or pot <= rake:
            return
        postings.append((self.ref((AccountKind.SEAT_ESCROW, winner)), pot - rake))
        if rake:
            postings.append((AccountRef(AccountKind.HOUSE_RAKE, f"r{self.run}-house", USD), rake))
        self._send(
            {"key": self.key(), "kind": "hand_settlement", "currency": USD, "postings": postings}
        )

    @rule(data=st.data())
    def retry_a_key(self, data: st.DataObject) -> None:
        """P-2: the same key and content again returns the first result and moves nothing."""
        if not self.sent:
            return
        key = data.draw(st.sampled_from(sorted(self.sent)))
        request, first = self.sent[key]
        again = transfer(self.engine, **request)
        assert again.replayed and again.id == first.id and again.postings == first.postings

    @rule(data=st.data(), extra=amounts)
    def reuse_a_key_differently(self, data: st.DataObject, extra: int) -> None:
        """A reused key with other content is refused and moves nothing."""
        if not self.sent:
            return
        key = data.draw(st.sampled_from(sorted(self.sent)))
        try:
            move(
                self.engine,
                key=key,
                kind="deposit",
                currency=USD,
                source=self.ext(),
                destination=self.ref((AccountKind.WALLET, "ann")),
                amount=extra + 10_000,
            )
        except errors.IdempotencyConflict:
            return
        raise AssertionError("key reuse with different content was accepted")

    @rule(data=st.data())
    def reverse_one(self, data: st.DataObject) -> None:
        """A correction undoes a transfer once, if the money is still there."""
        if not self.sent:
            return
        key = data.draw(st.sampled_from(sorted(self.sent)))
        request, first = self.sent[key]
        if first.reverses_id is not None:
            return
        inverse = {k: -v for k, v in dict(request["postings"]).items()}
        short = any(
            r.kind != AccountKind.EXTERNAL and self.balances.get(r, 0) + amt < 0
            for r, amt in inverse.items()
        )
        try:
            result = reverse(self.engine, first.id, key=f"undo:{key}")
        except errors.AlreadyReversed:
            assert first.id in self.reversed
            return
        except errors.InsufficientFunds:
            assert short
            return
        if first.id in self.reversed:
            assert result.replayed
            return
        assert not short
        self.reversed.add(first.id)
        for r, amt in inverse.items():
            self.balances[r] = self.balances.get(r, 0) + amt

    @invariant()
    def balances_match_the_model(self) -> None:
        for ref, expected in self.balances.items():
            assert get_account(self.engine, ref).balance == expected
        assert sum(self.balances.values()) == 0

    def teardown(self) -> None:
        assert check_ledger(self.engine).ok


def test_ledger_matches_an_in_memory_model(engine: sa.Engine) -> None:
    """Random sequences of deposits, moves, hand settlements, retries and reversals."""
    LedgerMachine.engine = engine
    run_state_machine_as_test(
        LedgerMachine,
        settings=settings(
            max_examples=20,
            stateful_step_count=20,
            derandomize=True,
            deadline=None,
            database=None,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )
