"""Player accounts: register and log in with argon2 hashes; wallet balance; dev deposits.

Hashing runs in a small thread pool of its own (it is slow on purpose), fed from a bounded
queue in turn per source address (`HashPool`, docs/SECURITY.md); rows are read and
written in the ledger's thread pools (docs/ARCHITECTURE.md rule 7): a login's lookup on the read
queue, so a login flood never waits with settlements. Every method returns a Deferred.
"""

from __future__ import annotations

import uuid
from collections.abc import Container, Generator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy.engine import Engine
from twisted.application.service import Service
from twisted.internet.defer import Deferred, inlineCallbacks
from twisted.internet.interfaces import IReactorFromThreads

from pokerroom.ledger import Account, LedgerService, UnknownAccount, external, wallet
from pokerroom.ledger.db import in_transaction, read
from pokerroom.protocol import errors
from pokerroom.protocol.errors import ProtocolError
from pokerroom.protocol.fields import normalize_name
from pokerroom.server.schema import players
from pokerroom.server.throttle import HashPool, LoginLimits

MIN_PASSWORD, MAX_PASSWORD = 8, 256


@dataclass(frozen=True, slots=True)
class Player:
    """A logged-in player as the session knows them."""

    name: str
    is_moderator: bool


@dataclass(frozen=True, slots=True)
class HashSettings:
    """argon2id cost settings (config `[accounts]`); tests use the cheapest."""

    time_cost: int = 3
    memory_kib: int = 65536
    parallelism: int = 1

    def hasher(self) -> PasswordHasher:
        """A PasswordHasher with these costs."""
        return PasswordHasher(
            time_cost=self.time_cost, memory_cost=self.memory_kib, parallelism=self.parallelism
        )


def _insert_player(engine: Engine, name: str, password_hash: str) -> None:
    def work(conn: sa.Connection) -> None:
        if conn.execute(sa.select(players.c.name).where(players.c.name == name)).first():
            raise ProtocolError(errors.NAME_TAKEN, f"the name {name!r} is taken")
        conn.execute(sa.insert(players).values(name=name, password_hash=password_hash))

    try:
        in_transaction(engine, work)
    except sa.exc.IntegrityError:
        raise ProtocolError(errors.NAME_TAKEN, f"the name {name!r} is taken") from None


def _find_player(engine: Engine, name: str) -> tuple[str, bool] | None:
    query = sa.select(players.c.password_hash, players.c.is_moderator).where(players.c.name == name)
    row = read(engine, lambda conn: conn.execute(query).first())
    return None if row is None else (row.password_hash, bool(row.is_moderator))


def _touch_login(engine: Engine, name: str, new_hash: str | None) -> None:
    values: dict[str, object] = {"last_login_at": datetime.now(UTC)}
    if new_hash is not None:
        values["password_hash"] = new_hash
    in_transaction(
        engine, lambda conn: conn.execute(players.update().where(players.c.name == name), values)
    )


def set_moderator(engine: Engine, name: str, flag: bool = True) -> bool:
    """Grant or revoke moderator rights (C-13); False if no such player."""
    stmt = players.update().where(players.c.name == name).values(is_moderator=flag)
    return in_transaction(engine, lambda conn: conn.execute(stmt).rowcount) == 1


def player_exists(engine: Engine, name: str) -> bool:
    """True if `name` is a registered player."""
    return _find_player(engine, name) is not None


class PlayerAccounts(Service):
    """Registration, login and wallet access for sessions; owns the hashing threads."""

    name = "accounts"

    def __init__(
        self,
        reactor: IReactorFromThreads,
        ledger: LedgerService,
        settings: HashSettings | None = None,
        limits: LoginLimits | None = None,
    ) -> None:
        self._reactor = reactor
        self.ledger = ledger
        self._hasher = (settings or HashSettings()).hasher()
        limits = limits or LoginLimits()
        self.hashing = HashPool(reactor, limits.hash_threads, limits.hash_queue_max)
        self._dummy_hash = self._hasher.hash("not a real password")
        #: Players staff banned (kept by the admin service, docs/ADMIN.md): login refused.
        self.banned: Container[str] = frozenset()

    def startService(self) -> None:
        """Start the hashing threads."""
        self.hashing.start()
        # Named, not super(): Twisted's Service is unannotated, and mypy's untyped_calls_exclude
        # (pyproject) matches a call by the base's name but does not see through super().
        Service.startService(self)

    def stopService(self) -> None:
        """Stop the hashing threads."""
        Service.stopService(self)  # named, not super(): see startService
        self.hashing.stop()

    @inlineCallbacks
    def register(
        self, name: str, password: str, source: str = ""
    ) -> Generator[Deferred[Any], Any, Player]:
        """Create a player under the normalized name; fires with the Player.

        bad_name, weak_password, name_taken (also for a name that normalizes to a taken one);
        `source` (the client's address) is its turn in the hashing queue (server_busy if full).
        """
        normal = normalize_name(name)
        if normal is None:
            raise ProtocolError(
                errors.BAD_NAME, "a name is 3 to 20 of a-z, 0-9 and _ (after folding case)"
            )
        if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
            raise ProtocolError(
                errors.WEAK_PASSWORD, f"a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters"
            )
        hashed = yield self.hashing.submit(source, self._hasher.hash, password)
        yield self.ledger.run(_insert_player, normal, hashed)
        return Player(normal, False)

    @inlineCallbacks
    def login(
        self, name: str, password: str, source: str = ""
    ) -> Generator[Deferred[Any], Any, Player]:
        """Check the password; fires with the Player or fails with bad_credentials.

        The name is normalized as at registration; a name that cannot exist is refused without
        a database read. `source` is the client's turn in the hashing queue (server_busy).
        """
        normal = normalize_name(name)
        if normal is None:
            raise ProtocolError(errors.BAD_CREDENTIALS, "unknown name or wrong password")
        found = yield self.ledger.read(_find_player, normal)  # the read queue, never money's
        stored, is_moderator = found if found else (self._dummy_hash, False)
        ok = yield self.hashing.submit(source, self._verify, stored, password)
        if not found or not ok:
            raise ProtocolError(errors.BAD_CREDENTIALS, "unknown name or wrong password")
        if normal in self.banned:
            raise ProtocolError(errors.BANNED, "this account is banned from the room")
        rehash = None
        if self._hasher.check_needs_rehash(stored):
            rehash = yield self.hashing.submit(source, self._hasher.hash, password)
        yield self.ledger.run(_touch_login, normal, rehash)
        return Player(normal, is_moderator)

    def _verify(self, stored: str, password: str) -> bool:
        try:
            return self._hasher.verify(stored, password)
        except (VerificationError, InvalidHashError):
            return False

    @inlineCallbacks
    def balance(self, player: str, currency: str) -> Generator[Deferred[Any], Any, int]:
        """The wallet balance in cents (0 for a wallet never funded)."""
        try:
            account: Account = yield self.ledger.balance(wallet(player, currency))
        except UnknownAccount:
            return 0
        return account.balance

    @inlineCallbacks
    def deposit(
        self, player: str, amount: int, currency: str, key: str | None = None
    ) -> Generator[Deferred[Any], Any, int]:
        """Dev only: move `amount` from `external` into the wallet; fires with the balance.

        The idempotency key is `deposit:<player>:<key>`: the same key never pays twice (P-2).
        """
        token = key or uuid.uuid4().hex
        yield self.ledger.move(
            key=f"deposit:{player}:{token}",
            kind="deposit",
            currency=currency,
            source=external(currency),
            destination=wallet(player, currency),
            amount=amount,
            memo="dev deposit",
        )
        balance: int = yield self.balance(player, currency)
        return balance
