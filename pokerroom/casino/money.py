"""A casino round's accounts, keys and the legs of its transactions (L-1 … L-5).

Stakes wait in the round's own `casino_in_play` account (owner = round id) from their
confirmation (L-2) until the round's one transaction, keyed by the round id, empties it: a
settlement (L-3) or a void (L-5). Keys: `casino:bet:<player>:<client key>` for a confirmation
(P-2: the client's key), `casino:round:<round id>` for the round's end, so a round can end
only once, settled or void, whoever ends it (the table, its recovery, the pending-bets job).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pokerroom.casino.games import Settled
from pokerroom.ledger.kinds import HOUSE, AccountKind, AccountRef, house, wallet


def in_play(round_id: str, currency: str) -> AccountRef:
    """The round's stakes (L-1, L-2)."""
    return AccountRef(AccountKind.CASINO_IN_PLAY, round_id, currency)


def bankroll(currency: str) -> AccountRef:
    """The house's casino account (L-3); the operator funds it."""
    return house(AccountKind.CASINO_BANKROLL, currency)


def pool(table_id: str, currency: str) -> AccountRef:
    """A progressive table's jackpot pool (PB-5)."""
    return AccountRef(AccountKind.CASINO_JACKPOT, table_id, currency)


def seed(currency: str) -> AccountRef:
    """What tops a pool up to its seed after a win (PB-8); the operator funds it."""
    return AccountRef(AccountKind.CASINO_JACKPOT_SEED, HOUSE, currency)


def held(player: str, currency: str) -> AccountRef:
    """A player's wins awaiting staff review (K-13, PB-11)."""
    return AccountRef(AccountKind.HELD, player, currency)


def bet_key(player: str, client_key: str) -> str:
    """The ledger key of a confirmation (L-2, P-2)."""
    return f"casino:bet:{player}:{client_key}"


def round_key(round_id: str) -> str:
    """The ledger key of the round's one settlement or void (L-3, L-5)."""
    return f"casino:round:{round_id}"


def placement(round_id: str, player: str, currency: str, amount: int) -> dict[AccountRef, int]:
    """A confirmation's legs: wallet −stakes, in_play +stakes (L-2)."""
    return {wallet(player, currency): -amount, in_play(round_id, currency): amount}


def _add(legs: dict[AccountRef, int], ref: AccountRef, amount: int) -> None:
    legs[ref] = legs.get(ref, 0) + amount


def _nonzero(legs: Mapping[AccountRef, int]) -> dict[AccountRef, int]:
    return {ref: amount for ref, amount in legs.items() if amount}


def settlement(
    round_id: str, table_id: str, currency: str, settled: Settled, review_at: int | None
) -> dict[AccountRef, int]:
    """The round's one balanced transaction (L-3, L-4); a win ≥ `review_at` goes to `held`.

    in_play −Σ stakes; each player +paid (wallet, or held for K-13 and for a jackpot prize,
    PB-11); the pool + contributions − prizes + top-up, the seed −top-up; the bankroll the rest.
    """
    legs: dict[AccountRef, int] = {}
    done = settled.settlement
    _add(legs, in_play(round_id, currency), -done.staked)
    for total in done.players:
        review = total.jackpot > 0 or (review_at is not None and total.winnings >= review_at)
        to = held(total.player, currency) if review else wallet(total.player, currency)
        _add(legs, to, total.paid)
    if settled.pool_delta:
        _add(legs, pool(table_id, currency), settled.pool_delta)
    if settled.seed_topup:
        _add(legs, seed(currency), -settled.seed_topup)
    _add(legs, bankroll(currency), -sum(legs.values()))
    return _nonzero(legs)


def void(round_id: str, currency: str, stakes: Iterable[tuple[str, int]]) -> dict[AccountRef, int]:
    """A void round's transaction (K-7, L-5): every stake back to the wallet that paid it."""
    legs: dict[AccountRef, int] = {}
    for player, stake in stakes:
        _add(legs, in_play(round_id, currency), -stake)
        _add(legs, wallet(player, currency), stake)
    return _nonzero(legs)
