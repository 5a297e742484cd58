"""Sessions over StringTransport: handshake, accounts, resume, errors with no state change."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from twisted.internet.task import Clock

from pokerroom.ledger import LedgerService
from pokerroom.protocol import errors
from pokerroom.protocol.events import Error, Goodbye, Keepalive
from pokerroom.protocol.framing import MAX_FRAME, encode_frame
from tests.ledger.conftest import QueueReactor
from tests.server.harness import Room


@pytest.fixture
def room(reactor: QueueReactor, clock: Clock, ledger: LedgerService) -> Iterator[Room]:
    """A room with no tables (table tests live in test_lobby)."""
    room = Room(reactor, clock, ledger)
    yield room
    room.stop()


def test_hello_answers_with_version_limits_and_the_c1_cap(room: Room) -> None:
    """The handshake announces the version, keepalive timing, frame size and table cap."""
    client = room.client()
    result = client.ok("hello", version=1, client="mobile", agent="test 1.0")
    assert result["protocol_version"] == 1 and result["max_frame"] == MAX_FRAME
    assert result["table_cap"] == 4  # C-1: mobile
    assert client.error("hello", version=1, client="web") == errors.ALREADY_GREETED


def test_requests_before_hello_or_login_are_refused(room: Room) -> None:
    """Order of the handshake: hello, then an account, then everything else."""
    client = room.client()
    assert client.error("login", name="alice", password="x" * 8) == errors.HELLO_REQUIRED
    assert client.ok("ping")["server_time_ms"] > 0  # keepalive works at any time
    assert client.error("hello", version=7, client="desktop") == errors.UNSUPPORTED_VERSION
    client.ok("hello", version=1, client="desktop")
    assert client.error("lobby_list") == errors.LOGIN_REQUIRED
    assert client.error("wallet") == errors.LOGIN_REQUIRED


def test_register_login_and_bad_credentials(room: Room) -> None:
    """argon2 hashes: the right password logs in, a wrong one or unknown name does not."""
    first = room.client()
    result = first.login("alice")
    assert result["player_id"] == "alice" and result["tables"] == []
    assert first.error("register", name="bob", password="12345678") == errors.ALREADY_LOGGED_IN
    other = room.client()
    other.ok("hello", version=1, client="web")
    assert other.error("register", name="alice", password="whatever1") == errors.NAME_TAKEN
    assert other.error("register", name="Al ice", password="whatever1") == errors.BAD_NAME
    assert other.error("register", name="carol", password="short") == errors.WEAK_PASSWORD
    assert other.error("login", name="alice", password="wrong pass") == errors.BAD_CREDENTIALS
    assert other.error("login", name="nobody", password="wrong pass") == errors.BAD_CREDENTIALS
    with room.ledger.engine.connect() as conn:
        row = conn.exec_driver_sql("select password_hash from players").one()
    assert row[0].startswith("$argon2id$") and "correct horse" not in row[0]


def test_login_elsewhere_replaces_the_old_session(room: Room) -> None:
    """One session per player: the older connection gets goodbye session_replaced."""
    first, second = room.client(), room.client()
    first.login("alice")
    second.login("alice")
    frames = first.read()
    assert frames[-1] == {
        "type": "goodbye",
        "code": errors.SESSION_REPLACED,
        "message": "you logged in on another connection",
    }
    assert first.closed and room.hub.session_of("alice") is second.session


def test_resume_after_a_drop_with_a_single_use_token(room: Room, clock: Clock) -> None:
    """C-14: a dropped player resumes with the token; a token works once and expires."""
    first = room.client()
    token = first.login("alice")["token"]
    first.session.connectionLost(None)
    assert room.hub.session_of("alice") is None
    second = room.client()
    second.ok("hello", version=1, client="desktop")
    result = second.ok("resume", token=token)
    assert result["player_id"] == "alice" and result["token"] != token
    third = room.client()
    third.ok("hello", version=1, client="desktop")
    assert third.error("resume", token=token) == errors.BAD_TOKEN  # used
    second.session.connectionLost(None)
    clock.advance(room.hub.resume_seconds + 1)
    fourth = room.client()
    fourth.ok("hello", version=1, client="desktop")
    assert fourth.error("resume", token=result["token"]) == errors.BAD_TOKEN  # expired


def test_logout_forgets_the_token(room: Room) -> None:
    """After logout the token no longer resumes and requests need a login again."""
    client = room.client()
    token = client.login("alice")["token"]
    client.ok("logout")
    assert client.error("wallet") == errors.LOGIN_REQUIRED
    assert client.error("resume", token=token) == errors.BAD_TOKEN


def test_bad_frames_are_answered_and_the_session_goes_on(room: Room) -> None:
    """P-1: malformed JSON, a missing id, unknown messages: errors, connection stays."""
    client = room.client()
    client.raw(b"{nope\n")
    client.raw(b'{"type":"ping"}\n')
    first, second = client.read()
    assert (first["code"], first["id"]) == (errors.BAD_FRAME, None)
    assert second["code"] == errors.BAD_REQUEST_ID
    assert client.error("fly") == errors.UNKNOWN_MESSAGE
    assert client.ok("ping")


def test_a_request_split_at_every_byte_gets_its_answer(room: Room) -> None:
    """Frames split anywhere reassemble in the session too."""
    client = room.client()
    data = encode_frame({"type": "hello", "id": "h", "version": 1, "client": "desktop"})
    for i in range(len(data)):
        client.raw(data[i : i + 1])
    assert client.answer("h")["type"] == "ok"


def test_oversized_frame_gets_goodbye_and_the_connection_closes(room: Room) -> None:
    """A frame over 64 KiB: goodbye frame_too_large, then the server closes."""
    client = room.client()
    client.raw(b'{"type":"chat","text":"' + b"x" * (MAX_FRAME + 10))
    assert client.read()[-1]["code"] == errors.FRAME_TOO_LARGE
    assert client.closed


def test_identity_fields_and_bad_amounts_change_nothing(room: Room) -> None:
    """ARCH 8 and P-1: a deposit naming another player or a bad amount moves nothing."""
    alice = room.client()
    alice.login("alice")
    assert alice.error("deposit", amount=500, player_id="bob") == errors.IDENTITY_NOT_ALLOWED
    for amount in (-5, 0, 2.5, "10"):
        assert alice.error("deposit", amount=amount) == errors.INVALID_AMOUNT
    assert alice.ok("wallet") == {"currency": "USD", "balance": 0}
    assert alice.ok("deposit", amount=500, key="k1")["balance"] == 500
    assert alice.ok("deposit", amount=500, key="k1")["balance"] == 500  # P-2: same key
    assert alice.ok("deposit", amount=250)["balance"] == 750


def test_deposits_can_be_switched_off(reactor: QueueReactor, clock: Clock, ledger) -> None:
    """The dev-only deposit is refused when the room does not allow it."""
    room = Room(reactor, clock, ledger, allow_deposit=False)
    try:
        client = room.client()
        client.login("alice")
        assert client.error("deposit", amount=100) == errors.DEPOSITS_DISABLED
    finally:
        room.stop()


def test_unknown_table_is_refused_for_every_table_request(room: Room) -> None:
    """P-1: a table_id that names no table gets unknown_table."""
    client = room.client()
    client.login("alice")
    for kind, extra in [
        ("observe", {}),
        ("sit", {"buy_in": 100}),
        ("act", {"action": "fold"}),
        ("chat", {"text": "hi"}),
        ("leave", {}),
    ]:
        assert client.error(kind, table_id="no-such", **extra) == errors.UNKNOWN_TABLE


def test_moderation_needs_a_moderator(room: Room) -> None:
    """C-13: only moderators mute; a moderator's mute is stored."""
    from pokerroom.server.accounts import set_moderator

    alice, mod = room.client(), room.client()
    alice.login("alice")
    assert alice.error("mute", target="bob") == errors.NOT_MODERATOR
    mod.login("mod_1")
    set_moderator(room.ledger.engine, "mod_1")
    mod.ok("logout")
    assert mod.ok("login", name="mod_1", password="correct horse")["moderator"] is True
    assert mod.ok("mute", target="alice", minutes=5)["until_ms"] > 0
    assert room.chat.mute_of("alice", None) is not None


def test_keepalive_then_idle_timeout(room: Room, clock: Clock) -> None:
    """The server sends keepalive when quiet and drops a client silent for too long."""
    client = room.client()
    client.login("alice")  # logged in: the login deadline no longer applies
    clock.advance(31)
    clock.advance(10)
    assert any(frame["type"] == "keepalive" for frame in client.read())
    client.ok("ping")
    clock.advance(60)
    assert not client.closed
    for _ in range(10):
        clock.advance(10)
    assert client.closed and client.read()[-1]["code"] == errors.IDLE_TIMEOUT


def test_slow_reader_is_cut_off_when_its_queue_overflows(room: Room) -> None:
    """A client that does not read: its queue fills while the transport is paused."""
    client = room.client()
    client.ok("hello", version=1, client="desktop")
    client.session.pauseProducing()
    for _ in range(room.settings.outbound_queue_max):
        room.hub  # noqa: B018
        client.session.send({"type": "keepalive", "server_time_ms": 0})
    assert not client.closed and client.read() == []
    client.session.resumeProducing()
    assert len(client.read()) == room.settings.outbound_queue_max
    client.session.pauseProducing()
    for _ in range(room.settings.outbound_queue_max + 1):
        client.session.send({"type": "keepalive", "server_time_ms": 0})
    assert client.closed


def test_expired_tokens_are_purged(room: Room, clock: Clock) -> None:
    """Tokens of dropped sessions are forgotten after resume_seconds; live ones stay."""
    first, second = room.client(), room.client()
    first.login("alice")
    second.login("bob")
    first.session.connectionLost(None)
    assert room.hub.purge_tokens() == 0
    clock.advance(room.hub.resume_seconds + 1)
    assert room.hub.purge_tokens() == 1  # alice's; bob is still connected
    assert room.hub.purge_tokens() == 0


def test_an_undeliverable_table_message_never_raises_into_the_table(room: Room) -> None:
    """A message that cannot be encoded is logged and dropped; the caller goes on."""
    client = room.client()
    client.login("alice")
    room.hub.send("alice", Error(id=None, code="oops", message="", details={"v": object()}))
    room.hub.send("alice", Goodbye(code="big", message="x" * 70_000))
    room.hub.send("alice", Keepalive(server_time_ms=1))
    assert [f["type"] for f in client.read()][-1] == "keepalive"
