"""The bus over a real nats-server: publish, subscribe, request/reply, and NATS going away."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
import pytest
from twisted.internet.defer import Deferred, succeed

from pokerroom.cluster.bus import CLUSTER_UNAVAILABLE, Bus, decode, encode
from pokerroom.cluster.payloads import Reply
from pokerroom.protocol.errors import ProtocolError
from tests.cluster.loop import run, until
from tests.cluster.natsproc import NatsServer, free_port, require_nats


class Ping(msgspec.Struct, frozen=True):
    n: int
    text: str


def connected(loop: asyncio.AbstractEventLoop, url: str, name: str = "t") -> Bus:
    bus = Bus(url, name=name, loop=loop, reconnect_seconds=0.05)
    run(loop, bus.connect())
    return bus


def test_publish_reaches_a_subscriber_decoded(
    loop: asyncio.AbstractEventLoop, nats_server: NatsServer
) -> None:
    a, b = connected(loop, nats_server.url, "a"), connected(loop, nats_server.url, "b")
    got: list[tuple[Ping, str | None]] = []
    run(loop, b.subscribe("t.pub.*", lambda data, reply: got.append((decode(data, Ping), reply))))
    run(loop, b.flush())
    run(loop, a.publish("t.pub.x", encode(Ping(1, "one"))))
    run(loop, a.publish("t.other", encode(Ping(9, "not for b"))))
    run(loop, a.publish("t.pub.y", encode(Ping(2, "two"))))
    until(loop, lambda: len(got) == 2)
    assert got == [(Ping(1, "one"), None), (Ping(2, "two"), None)]  # in order, none else
    run(loop, a.close())
    run(loop, b.close())


def test_request_gets_the_answer_of_a_deferred_responder(
    loop: asyncio.AbstractEventLoop, nats_server: NatsServer
) -> None:
    a, b = connected(loop, nats_server.url, "a"), connected(loop, nats_server.url, "b")
    later: list[Deferred[bytes]] = []

    def respond(data: bytes) -> Deferred[bytes]:
        ping = decode(data, Ping)
        if ping.n == 1:
            return succeed(encode(Ping(ping.n + 1, ping.text.upper())))
        d: Deferred[bytes] = Deferred()
        later.append(d)
        return d

    run(loop, b.serve("t.req", respond))
    run(loop, b.flush())
    assert decode(run(loop, a.request("t.req", encode(Ping(1, "hi")))), Ping) == Ping(2, "HI")
    pending = a.request("t.req", encode(Ping(5, "later")))
    until(loop, lambda: later)
    later[0].callback(encode(Ping(6, "done")))
    assert decode(run(loop, pending), Ping) == Ping(6, "done")
    run(loop, a.close())
    run(loop, b.close())


def test_a_request_nobody_serves_fails_cluster_unavailable_at_once(
    loop: asyncio.AbstractEventLoop, nats_server: NatsServer
) -> None:
    a = connected(loop, nats_server.url)
    with pytest.raises(ProtocolError) as caught:
        run(loop, a.request("t.nobody", b"x", timeout=30.0), seconds=5.0)  # not the timeout
    assert caught.value.code == CLUSTER_UNAVAILABLE
    run(loop, a.close())


def test_a_request_not_answered_in_time_fails_cluster_unavailable(
    loop: asyncio.AbstractEventLoop, nats_server: NatsServer
) -> None:
    a, b = connected(loop, nats_server.url, "a"), connected(loop, nats_server.url, "b")
    run(loop, b.serve("t.silent", lambda data: Deferred()))  # never answers
    run(loop, b.flush())
    with pytest.raises(ProtocolError) as caught:
        run(loop, a.request("t.silent", b"x", timeout=0.2))
    assert caught.value.code == CLUSTER_UNAVAILABLE
    run(loop, a.close())
    run(loop, b.close())


def test_a_failing_responder_is_answered_at_once_not_left_to_the_timeout(
    loop: asyncio.AbstractEventLoop, nats_server: NatsServer
) -> None:
    """A responder that raises (a payload it cannot decode: a forged or newer message) or whose
    Deferred fails is answered a `Reply` of `cluster_unavailable` at once (the asker's outcome
    as after a timeout, without waiting it out: up to 600 s for a staff `table_close`), and
    the subscription answers the next request."""
    a, b = connected(loop, nats_server.url, "a"), connected(loop, nats_server.url, "b")

    def respond(data: bytes) -> bytes | Deferred[bytes]:
        if data == b"later":
            failed: Deferred[bytes] = Deferred()
            failed.errback(ValueError("a bug"))
            return failed
        return encode(Reply(ok=True, result=decode(data, Ping).n))

    run(loop, b.serve("t.fails", respond))
    run(loop, b.flush())
    for bad in (b"\xc1", b"later"):  # not msgpack; a failed Deferred
        answer = decode(run(loop, a.request("t.fails", bad, timeout=3)), Reply)
        assert (answer.ok, answer.code) == (False, CLUSTER_UNAVAILABLE)
    good = decode(run(loop, a.request("t.fails", encode(Ping(7, "x")), timeout=3)), Reply)
    assert good.ok and good.result == 7
    run(loop, a.close())
    run(loop, b.close())


def test_a_failing_handler_is_logged_and_the_subscription_goes_on(
    loop: asyncio.AbstractEventLoop, nats_server: NatsServer
) -> None:
    a = connected(loop, nats_server.url)
    got: list[bytes] = []

    def handler(data: bytes, reply: str | None) -> None:
        if data == b"bad":
            raise ValueError("a bug")
        got.append(data)

    run(loop, a.subscribe("t.h", handler))
    run(loop, a.flush())
    for data in (b"bad", b"good"):
        run(loop, a.publish("t.h", data))
    until(loop, lambda: got == [b"good"])
    run(loop, a.close())


def test_connect_to_nothing_fails(loop: asyncio.AbstractEventLoop) -> None:
    require_nats()
    bus = Bus(f"nats://127.0.0.1:{free_port()}", name="t", loop=loop, connect_seconds=0.5)
    refused = r"cannot reach NATS at nats://127\.0\.0\.1:\d+ \(4 tries\)"
    with pytest.raises(ConnectionError, match=refused):
        run(loop, bus.connect(), seconds=15.0)
    assert not bus.connected
    with pytest.raises(ProtocolError) as caught:
        run(loop, bus.publish("t.x", b""))
    assert caught.value.code == CLUSTER_UNAVAILABLE


def test_nats_restart_fails_requests_clearly_then_reconnects_with_subscriptions(
    loop: asyncio.AbstractEventLoop,
) -> None:
    server = NatsServer(require_nats())
    server.start()
    try:
        a, b = connected(loop, server.url, "a"), connected(loop, server.url, "b")
        run(loop, b.serve("t.echo", lambda data: data))
        run(loop, b.flush())
        assert run(loop, a.request("t.echo", b"before")) == b"before"
        server.stop()
        until(loop, lambda: not a.connected and not b.connected)
        attempts: list[Deferred[Any]] = [a.request("t.echo", b"down"), a.publish("t.echo", b"x")]
        for attempt in attempts:
            with pytest.raises(ProtocolError) as caught:
                run(loop, attempt)
            assert caught.value.code == CLUSTER_UNAVAILABLE
        late: list[bytes] = []
        run(loop, b.subscribe("t.late", lambda data, reply: late.append(data)))  # kept for later
        server.start()
        until(loop, lambda: a.reconnects == 1 and b.reconnects == 1, seconds=10.0)
        assert a.connected and b.connected
        run(loop, b.flush())  # the subscription was sent again on reconnect
        assert run(loop, a.request("t.echo", b"after")) == b"after"
        run(loop, a.publish("t.late", b"news"))
        until(loop, lambda: late == [b"news"])
        run(loop, a.close())
        run(loop, b.close())
    finally:
        server.stop()
