"""Session hardening (P-1, docs/SECURITY.md): the outbound byte cap, paged hand histories,
connection caps, the login deadline, slowloris, login throttling, fair password hashing,
lookalike names, oversized errors, lone surrogates and pipelined logins.

Sessions run on StringTransports against a real SQLite ledger; time is a task.Clock.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from twisted.internet.address import IPv4Address
from twisted.internet.task import Clock
from twisted.internet.testing import StringTransport

from pokerroom.cash import TableActor
from pokerroom.ledger import LedgerService
from pokerroom.protocol import errors
from pokerroom.protocol.connection import SessionSettings
from pokerroom.protocol.events import ok
from pokerroom.protocol.framing import MAX_FRAME, encode_frame
from pokerroom.protocol.session import RoomFactory
from pokerroom.server.lobby import HISTORY_PAGE_BYTES
from pokerroom.server.throttle import LoginLimits, LoginThrottle
from tests.ledger.conftest import QueueReactor
from tests.server.harness import Client, Room

PASSWORD = "correct horse"
WINDOW = 15 * 60  # the default login window, seconds


class PeerClient(Client):
    """A connection from a chosen source address."""

    def __init__(self, room: Room, host: str = "192.168.1.1") -> None:
        self.room = room
        self.transport = StringTransport(peerAddress=IPv4Address("TCP", host, 40_000))
        self.session = room.factory.buildProtocol(None)
        self.session.makeConnection(self.transport)
        self.inbox: list[dict[str, Any]] = []

    def send(self, kind: str, request_id: object, **fields: Any) -> None:
        """Send one request without waiting for its answer."""
        self.raw(encode_frame({"type": kind, "id": request_id, **fields}))


def configure(room: Room, throttle: LoginThrottle | None = None, **settings: Any) -> None:
    """Give the room's listener other session settings (and a throttle)."""
    room.settings = SessionSettings(**settings)
    room.factory = RoomFactory(
        room.hub, room.lobby, room.accounts, room.clock, room.settings, throttle=throttle
    )


@pytest.fixture
def room(reactor: QueueReactor, clock: Clock, ledger: LedgerService) -> Iterator[Room]:
    """A room with one heads-up-ready NLHE table t1 and the default limits."""
    room = Room(reactor, clock, ledger)
    room.add_table("t1", seed=3)
    configure(room)
    yield room
    room.stop()


def registered(room: Room, *names: str) -> None:
    """Register accounts, then log them out (the connections stay open)."""
    for name in names:
        client = PeerClient(room, "10.9.9.9")
        client.login(name)
        client.ok("logout")
        client.session.connectionLost()


def heads_up(room: Room, hands: int) -> tuple[PeerClient, PeerClient, TableActor]:
    """Alice and Bob sit at t1 and play `hands` hands (the player to act folds)."""
    alice, bob = PeerClient(room, "10.0.0.1"), PeerClient(room, "10.0.0.2")
    for client, name in ((alice, "alice"), (bob, "bob")):
        client.login(name)
        client.ok("deposit", amount=100_000, key="start")
        client.ok("sit", table_id="t1", buy_in=200)
    actor = room.lobby.tables["t1"]
    for _ in range(hands):
        room.advance(1)
        assert actor.hand is not None and actor.phase == "playing"
        mover = alice if actor.players[actor.hand.actor] == "alice" else bob
        mover.ok("act", table_id="t1", action="fold")
        room.drain()
    return alice, bob, actor


# -- outbound bytes and paged histories -------------------------------------------------------
def test_a_client_that_does_not_read_is_cut_off_at_the_byte_cap(room: Room) -> None:
    """Large answers to a client that does not read: cut off (slow_reader) as soon as more
    than `outbound_queue_max_bytes` wait, long before `outbound_queue_max` frames do."""
    configure(room, outbound_queue_max=2000, outbound_queue_max_bytes=64 * 1024)
    alice, _, _ = heads_up(room, 12)
    size = len(encode_frame(ok("r000", "hand_histories", alice.ok("hand_histories", limit=100))))
    assert size > 4096
    alice.session.pauseProducing()  # the kernel's buffers are full: the client stopped reading
    sent = 0
    while not alice.closed and sent < 200:
        alice.send("hand_histories", f"r{sent:03d}", limit=100)
        sent += 1
        room.drain()
    assert alice.closed
    assert sent == 64 * 1024 // size + 1  # the first answer over the cap closes it
    alice.session.connectionLost()  # what the transport reports once it closed
    assert room.hub.session_of("alice") is None  # dropped; seats kept (C-14)
    assert "alice" in room.lobby.tables["t1"].by_player


def test_hand_histories_come_in_small_pages_with_a_cursor(room: Room) -> None:
    """hand_histories pages: at most `limit` hands and a small frame each; `next` leads to
    the older hands, every hand exactly once, newest first, until `next` is null."""
    alice, _, _ = heads_up(room, 25)
    seen: list[str] = []
    pages = 0
    cursor = None
    while True:
        fields: dict[str, Any] = {"limit": 10}
        if cursor is not None:
            fields["before"] = cursor
        frame = alice.request("hand_histories", **fields)
        assert frame["type"] == "ok", frame
        assert len(encode_frame(frame)) <= HISTORY_PAGE_BYTES + 1024
        result = frame["result"]
        assert 1 <= len(result["hands"]) <= 10
        for text in result["hands"]:
            seen += [line for line in text.splitlines() if "_hand_id" in line]
        pages += 1
        cursor = result["next"]
        if cursor is None:
            break
    numbers = [int(line.rsplit("-", 1)[1].rstrip("'\"")) for line in seen]
    assert numbers == list(range(25, 0, -1)) and pages >= 3
    assert alice.error("hand_histories", before="not a cursor") == errors.BAD_FIELD
    assert alice.ok("hand_histories", before="1:a")["hands"] == []  # older than anything


# -- connections --------------------------------------------------------------------------------
def test_connection_caps_in_all_and_per_address(room: Room) -> None:
    """Past `max_connections_per_address` from one address, or `max_connections` in all, a
    new connection gets goodbye too_many_connections and is closed; closing frees a place."""
    configure(room, max_connections=4, max_connections_per_address=2)
    first, second = PeerClient(room, "10.0.0.1"), PeerClient(room, "10.0.0.1")
    third = PeerClient(room, "10.0.0.1")
    assert third.closed and third.read()[-1]["code"] == errors.TOO_MANY_CONNECTIONS
    assert not first.closed and not second.closed
    others = [PeerClient(room, "10.0.0.2"), PeerClient(room, "10.0.0.3")]
    assert not any(c.closed for c in others)
    full = PeerClient(room, "10.0.0.4")  # a fresh address, but the room holds 4
    assert full.closed and full.read()[-1]["code"] == errors.TOO_MANY_CONNECTIONS
    for refused in (third, full):
        refused.session.connectionLost()  # a refused connection never held a place
    assert room.factory.gate.open == 4
    first.session.connectionLost()
    again = PeerClient(room, "10.0.0.1")
    assert not again.closed and again.ok("ping")
    assert room.factory.gate.from_address("10.0.0.1") == 2


def test_hello_and_login_within_the_deadline(room: Room, clock: Clock) -> None:
    """A connection not logged in `hello_timeout_seconds` after connecting is closed with
    login_timeout, even if it sent hello and pings; a login in time keeps it."""
    waiting, quick = PeerClient(room), PeerClient(room, "10.0.0.7")
    waiting.ok("hello", version=1, client="desktop")
    quick.login("quick")
    for _ in range(9):
        clock.advance(1)
        waiting.ok("ping")  # complete frames, but no login
    assert not waiting.closed
    clock.advance(1)
    assert waiting.closed and waiting.read()[-1]["code"] == errors.LOGIN_TIMEOUT
    clock.advance(60)
    assert not quick.closed
    quick.ok("logout")  # logged out: the deadline runs again
    clock.advance(10)
    assert quick.closed and quick.read()[-1]["code"] == errors.LOGIN_TIMEOUT


def test_slowloris_bytes_do_not_keep_a_connection(room: Room, clock: Clock) -> None:
    """One byte a second of a frame that never ends: closed at the login deadline; after
    login such bytes do not reset the idle timer either (only complete frames do)."""
    slow = PeerClient(room)
    closed_at = None
    for second in range(120):
        slow.raw(b"{"[:1] if second == 0 else b" ")
        clock.advance(1)
        if slow.closed:
            closed_at = second + 1
            break
    assert closed_at == 10 and slow.read()[-1]["code"] == errors.LOGIN_TIMEOUT
    player = PeerClient(room, "10.0.0.8")
    player.login("drip")
    player.raw(b'{"type":"ping"')  # never finished
    for _ in range(95):
        player.raw(b" ")
        clock.advance(1)
    assert player.closed and player.read()[-1]["code"] == errors.IDLE_TIMEOUT


# -- login throttling --------------------------------------------------------------------------
def test_failed_logins_lock_the_name_right_password_or_not(room: Room, clock: Clock) -> None:
    """After 10 failed logins for one name within 15 minutes, its logins are refused with
    too_many_attempts (until_ms) even with the right password, until the window passes;
    other names log in meanwhile."""
    registered(room, "alice", "bob")
    attacker = PeerClient(room, "10.6.6.6")
    attacker.ok("hello", version=1, client="web")
    start = clock.seconds()
    for n in range(10):
        assert attacker.error("login", name="alice", password=f"guess {n}") == "bad_credentials"
        clock.advance(1)
    owner = PeerClient(room, "10.1.1.1")
    owner.ok("hello", version=1, client="desktop")
    frame = owner.request("login", name="alice", password=PASSWORD)
    assert frame["code"] == errors.TOO_MANY_ATTEMPTS
    assert frame["details"]["until_ms"] == int((start + WINDOW) * 1000)
    assert owner.error("login", name="ALICE", password=PASSWORD) == errors.TOO_MANY_ATTEMPTS
    other = PeerClient(room, "10.1.1.2")
    assert other.login("bob")["player_id"] == "bob"  # another name is not locked
    clock.advance(start + WINDOW - clock.seconds() - 0.5)
    late = PeerClient(room, "10.1.1.3")  # the first connection met its login deadline
    late.ok("hello", version=1, client="desktop")
    assert late.error("login", name="alice", password=PASSWORD) == errors.TOO_MANY_ATTEMPTS
    clock.advance(0.5)  # the first failure left the window
    assert late.ok("login", name="alice", password=PASSWORD)["player_id"] == "alice"


def test_failed_logins_from_one_address_lock_that_address(room: Room, clock: Clock) -> None:
    """30 failed logins from one address (any names) lock that address; others log in."""
    registered(room, "bob")
    sprayer = PeerClient(room, "10.6.6.6")
    sprayer.ok("hello", version=1, client="web")
    for n in range(30):
        assert sprayer.error("login", name=f"user{n}", password="12345678") == "bad_credentials"
    assert sprayer.error("login", name="bob", password=PASSWORD) == errors.TOO_MANY_ATTEMPTS
    elsewhere = PeerClient(room, "10.1.1.1")
    elsewhere.ok("hello", version=1, client="web")
    assert elsewhere.ok("login", name="bob", password=PASSWORD)["player_id"] == "bob"


def test_pipelined_guesses_cannot_pass_the_limit_and_a_genuine_login_is_not_held_up(
    room: Room,
) -> None:
    """30 wrong logins for alice sent at once on 30 connections from one address: at most 10
    are checked (the rest get too_many_attempts at once), and bob's login from another
    address is next in the hashing queue, not behind the attack."""
    import threading

    registered(room, "alice", "bob")
    pool = room.accounts.hashing
    release = threading.Event()
    busy = [pool.submit("other", release.wait, 10) for _ in range(pool.threads)]  # threads busy
    attackers = [PeerClient(room, "10.6.6.6") for _ in range(30)]
    for n, attacker in enumerate(attackers):
        attacker.ok("hello", version=1, client="web")
        attacker.send("login", "x", name="alice", password=f"guess {n}")
    refused = [f["code"] for a in attackers for f in a.read() if f.get("id") == "x"]
    assert refused == [errors.TOO_MANY_ATTEMPTS] * 20  # at once: no database, no hashing
    bob = PeerClient(room, "10.1.1.1")
    bob.ok("hello", version=1, client="desktop")
    bob.send("login", "b", name="bob", password=PASSWORD)
    # The name lookups run (on the read queue, in any order), then the hashing queue fills.
    while pool.ahead(bob.session.address) is None or pool.waiting < 11:
        f, args, kwargs = room.reactor.calls.get(timeout=5)
        f(*args, **kwargs)
    assert pool.waiting == 11  # all of alice's guesses wait too ...
    assert pool.ahead(bob.session.address) <= 1  # ... but at most one of them goes before bob
    release.set()
    for d in busy:
        room.reactor.wait(d)
    bob.answer("b")
    assert bob.inbox[-1]["type"] == "ok"

    def answered() -> list[str]:
        for attacker in attackers:
            attacker.read()
        return [f["code"] for a in attackers for f in a.inbox if f.get("id") == "x"]

    while len(answered()) < 30:  # the hashing threads answer through the reactor
        f, args, kwargs = room.reactor.calls.get(timeout=5)
        f(*args, **kwargs)
    codes = answered()
    assert codes.count("bad_credentials") == 10  # today: all 30 were hashed, bob after them
    assert codes.count(errors.TOO_MANY_ATTEMPTS) == 20


def test_a_login_running_counts_against_the_limit_until_it_ends() -> None:
    """The throttle itself: running logins count; success does not count; expiry is exact."""
    throttle = LoginThrottle(LoginLimits(login_failures=3, address_failures=0))
    running = [throttle.begin("alice", "a", 100.0) for _ in range(3)]
    with pytest.raises(Exception) as caught:
        throttle.begin("alice", "b", 100.0)
    assert getattr(caught.value, "code", None) == errors.TOO_MANY_ATTEMPTS
    throttle.end(running[0], 101.0, failed=False)  # the right password: not a failure
    second = throttle.begin("alice", "b", 102.0)
    for attempt in (*running[1:], second):
        throttle.end(attempt, 103.0, failed=True)
    assert throttle.locked_until("alice", 103.0) == 103.0 + WINDOW
    assert throttle.locked_until("alice", 103.0 + WINDOW) is None
    assert throttle.locked_until("bob", 103.0) is None
    throttle.begin("carol", "c", 104.0 + 2 * WINDOW)  # a sweep forgets what expired
    assert throttle.tracked() == 1


def test_default_limits_and_settings() -> None:
    """The defaults of docs/SECURITY.md; the settings are read from [session] and [accounts]."""
    from pokerroom.server.settings import SettingsError, load_settings, parse_settings

    limits = LoginLimits()
    assert (limits.login_failures, limits.login_window_minutes) == (10, 15)
    session = SessionSettings()
    assert session.outbound_queue_max_bytes == 1024 * 1024 and session.hello_timeout_seconds == 10
    loaded = load_settings()
    assert loaded.session.outbound_queue_max_bytes == 1024 * 1024
    assert loaded.login_limits == limits
    parsed = parse_settings(
        {"accounts": {"login_failures": 5, "time_cost": 1}, "session": {"max_connections": 9}}
    )
    assert parsed.login_limits.login_failures == 5 and parsed.hashing.time_cost == 1
    assert parsed.session.max_connections == 9
    with pytest.raises(SettingsError):
        parse_settings({"accounts": {"login_window_minutes": 0}})


# -- names -------------------------------------------------------------------------------------
def test_names_are_matched_whole_and_normalized_before_the_uniqueness_check(room: Room) -> None:
    """No trailing newline; case and Unicode width fold to one name; other scripts' lookalikes
    and invisible characters are refused; the length is checked before the database."""
    client = PeerClient(room)
    client.ok("hello", version=1, client="web")
    for bad in ("alice\n", "a" * 20 + "\n", "аlice", "alice\u200b", "al", "a" * 21, "a l"):
        assert client.error("register", name=bad, password=PASSWORD) == errors.BAD_NAME, bad
    assert client.ok("register", name="Alice", password=PASSWORD)["player_id"] == "alice"
    client.ok("logout")
    for same in ("ALICE", "\uff21\uff4c\uff49\uff43\uff45", "alice"):
        assert client.error("register", name=same, password=PASSWORD) == errors.NAME_TAKEN
    assert client.ok("login", name="\uff21lice", password=PASSWORD)["player_id"] == "alice"
    with room.ledger.engine.connect() as conn:
        names = [row[0] for row in conn.exec_driver_sql("select name from players")]
    assert names == ["alice"]


def test_moderator_targets_are_normalized_and_matched_whole(room: Room) -> None:
    """mute names its target by the same rule: "Alice" is alice, "alice\\n" is refused."""
    from pokerroom.server.accounts import set_moderator

    mod = PeerClient(room)
    mod.login("mod_1")
    set_moderator(room.ledger.engine, "mod_1")
    mod.ok("logout")
    mod.ok("login", name="mod_1", password=PASSWORD)
    assert mod.error("mute", target="alice\n", minutes=5) == errors.BAD_FIELD
    mod.ok("mute", target="Alice", minutes=5)
    assert room.chat.mute_of("alice", None) is not None


# -- P-1: oversized values, surrogates, pipelined logins ---------------------------------------
@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ({"type": "hello", "version": [0] * 30_000, "client": "desktop"}, errors.BAD_FIELD),
        ({"type": "hello", "version": 1, "client": ["x"] * 15_000}, errors.BAD_FIELD),
        ({"type": "x" * 60_000}, errors.UNKNOWN_MESSAGE),
        ({"type": "ping", "k" * 60_000: 1}, errors.UNKNOWN_FIELD),
        ({"type": "hello", "version": 10**4000, "client": "web"}, errors.BAD_FIELD),
    ],
)
def test_an_error_about_a_huge_value_is_answered_with_an_excerpt(
    room: Room, frame: dict[str, Any], code: str
) -> None:
    """P-1: a huge bad value is answered (the message quotes a short excerpt), in one frame."""
    client = PeerClient(room)
    data = json.dumps({**frame, "id": 7}, separators=(",", ":")).encode()
    assert len(data) <= MAX_FRAME
    client.raw(data + b"\n")
    answer = client.answer(7)
    assert answer["code"] == code and len(answer["message"]) <= 200
    assert client.ok("ping")


def test_a_huge_amount_in_a_logged_in_request_is_answered(room: Room) -> None:
    """P-1: invalid_amount quotes an excerpt too."""
    client = PeerClient(room)
    client.login("alice")
    client.send("deposit", 9, amount=[1] * 30_000)
    answer = client.answer(9)
    assert answer["code"] == errors.INVALID_AMOUNT and len(answer["message"]) <= 200


@pytest.mark.parametrize(
    "raw",
    [
        b'{"type":"ping","id":"\\ud800"}',
        b'{"type":"hello","id":1,"version":1,"client":"web","agent":"x\\udfff"}',
        b'{"type":"login","id":1,"name":"alice","password":"pass\\ud800word"}',
        b'{"type":"chat","id":1,"table_id":"t1","text":"hi \\ud83d"}',
        b'{"type":"ping","id":1,"\\udc00":1}',
    ],
)
def test_a_lone_surrogate_anywhere_is_bad_frame(room: Room, raw: bytes) -> None:
    """P-1: a lone surrogate (legal JSON escape, not Unicode) is bad_frame; the session goes on."""
    client = PeerClient(room)
    client.login("alice")
    client.read()
    client.raw(raw + b"\n")
    frames = client.read()
    assert [(f["type"], f["code"], f["id"]) for f in frames] == [("error", "bad_frame", None)]
    assert not client.closed and client.ok("ping")
    client.raw(b'{"type":"ping","id":"\\ud83d\\ude00"}\n')  # a proper pair is fine
    assert client.read()[-1]["id"] == "\U0001f600"


def test_pipelined_logins_bind_one_player_only(room: Room) -> None:
    """A second login/register/resume sent right behind a first one is already_logged_in,
    even before the first is answered; after a failed login, another may follow."""
    registered(room, "alice", "bob")
    client = PeerClient(room)
    client.ok("hello", version=1, client="desktop")
    client.raw(
        encode_frame({"type": "login", "id": 1, "name": "alice", "password": PASSWORD})
        + encode_frame({"type": "login", "id": 2, "name": "bob", "password": PASSWORD})
        + encode_frame({"type": "register", "id": 3, "name": "carol", "password": PASSWORD})
    )
    assert client.answer(2)["code"] == errors.ALREADY_LOGGED_IN
    assert client.answer(3)["code"] == errors.ALREADY_LOGGED_IN
    assert client.answer(1)["result"]["player_id"] == "alice"
    assert room.hub.session_of("alice") is client.session
    assert room.hub.session_of("bob") is None and room.hub.session_of("carol") is None
    second = PeerClient(room)
    second.ok("hello", version=1, client="desktop")
    second.raw(
        encode_frame({"type": "login", "id": 1, "name": "bob", "password": "wrong one"})
        + encode_frame({"type": "login", "id": 2, "name": "bob", "password": PASSWORD})
    )
    assert second.answer(2)["code"] == errors.ALREADY_LOGGED_IN
    assert second.answer(1)["code"] == errors.BAD_CREDENTIALS
    assert second.ok("login", name="bob", password=PASSWORD)["player_id"] == "bob"


def test_the_hash_pool_is_bounded_and_serves_addresses_in_turn(reactor: QueueReactor) -> None:
    """Jobs from one address cannot crowd out another's: round robin per key; when the queue
    is full the most crowded key gives way to a newcomer, and when no key holds more than a
    newcomer would, the newcomer gets server_busy; the queue never grows past its bound."""
    import threading

    from pokerroom.protocol.errors import ProtocolError
    from pokerroom.server.throttle import HashPool

    pool = HashPool(reactor, threads=1, queue_max=4)
    pool.start()
    release = threading.Event()
    started: list[str] = []

    def work(tag: str) -> str:
        started.append(tag)
        release.wait(5)
        return tag

    outcome: dict[str, str] = {}

    def submit(key: str, tag: str) -> None:
        d = pool.submit(key, work, tag)
        d.addCallbacks(
            lambda result: outcome.__setitem__(tag, "ran"),
            lambda failure: outcome.__setitem__(tag, failure.value.code),
        )

    try:
        for n in range(5):  # A0 runs, A1..A4 wait: the queue is full
            submit("10.6.6.6", f"A{n}")
        submit("10.1.1.1", "B0")  # A gives up its newest job (A4) to B
        assert outcome == {"A4": errors.SERVER_BUSY} and pool.waiting == 4
        assert pool.ahead("10.1.1.1") == 1  # one A before B, not three
        submit("10.2.2.2", "C0")  # A3 gives way (A holds 2 then, B and C one each)
        submit("10.3.3.3", "D0")  # A2 gives way: now every key holds one job
        with pytest.raises(ProtocolError) as caught:
            pool.submit("10.4.4.4", work, "E0")  # nobody holds more than E would: refused
        assert caught.value.code == errors.SERVER_BUSY and pool.waiting == 4
        release.set()
        while len(outcome) < 8:
            f, args, kwargs = reactor.calls.get(timeout=5)
            f(*args, **kwargs)
        assert started == ["A0", "A1", "B0", "C0", "D0"]
        assert {tag for tag, result in outcome.items() if result == "ran"} == set(started)
        assert outcome["A2"] == outcome["A3"] == errors.SERVER_BUSY
    finally:
        release.set()
        pool.stop()


def test_an_address_whose_last_check_failed_waits_behind_clean_ones(reactor: QueueReactor) -> None:
    """A check that returns False (wrong password) moves its address to the back tier: a
    login from a clean address goes first, and a full queue makes room for it there."""
    import threading

    from pokerroom.server.throttle import HashPool

    pool = HashPool(reactor, threads=1, queue_max=4)
    pool.start()
    release = threading.Event()
    started: list[str] = []

    def check(tag: str, matches: bool) -> bool:
        started.append(tag)
        release.wait(5)
        return matches

    try:
        release.set()
        assert reactor.wait(pool.submit("10.6.6.6", check, "miss", False)) is False
        release.clear()
        hold = pool.submit("10.7.7.7", check, "hold", True)  # the thread is busy from now on
        guesses = [pool.submit("10.6.6.6", check, f"A{n}", False) for n in range(4)]
        assert pool.waiting == 4 and pool.ahead("10.6.6.6") == 0
        genuine = pool.submit("10.1.1.1", check, "B0", True)  # full: a failing job gives way
        assert pool.waiting == 4 and pool.ahead("10.1.1.1") == 0
        assert pool.ahead("10.6.6.6") == 1
        release.set()
        assert reactor.wait(hold) is True and reactor.wait(genuine) is True
        outcomes = []
        for d in guesses:
            d.addErrback(lambda failure: failure.value.code)
            outcomes.append(reactor.wait(d))
        assert outcomes == [False, False, False, errors.SERVER_BUSY]
        assert started == ["miss", "hold", "B0", "A0", "A1", "A2"]
    finally:
        release.set()
        pool.stop()
