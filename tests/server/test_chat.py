"""Chat rules of C-13: every line shown kept, rate limit, repeats, mutes, filters, hand talk."""

from __future__ import annotations

from typing import Any, cast

import pytest
from twisted.internet.defer import Deferred, succeed
from twisted.internet.task import Clock

from pokerroom.chat import ChatRules, ChatService, chat_log
from pokerroom.chat.filters import first_problem
from pokerroom.chat.service import Mute
from pokerroom.ledger import LedgerService
from pokerroom.protocol import errors
from pokerroom.protocol.errors import ProtocolError
from pokerroom.protocol.events import ChatLine
from tests.ledger.conftest import QueueReactor

T = "nl-1"


@pytest.fixture
def chat(clock: Clock, ledger: LedgerService) -> ChatService:
    """A chat service with the default rules."""
    return ChatService(clock, ledger, ChatRules())


def say(
    reactor: QueueReactor, chat: ChatService, text: str, player: str = "alice", **kw: Any
) -> ChatLine:
    """Post a line outside a hand; its `chat` event (the line is stored in the next batch)."""
    kw.setdefault("in_hand", False)
    kw.setdefault("hand_running", False)
    return reactor.wait(chat.post(player, T, text, **kw))


def refused(reactor: QueueReactor, chat: ChatService, text: str, **kw) -> str:
    """The code a refused line gets."""
    with pytest.raises(ProtocolError) as caught:
        say(reactor, chat, text, **kw)
    return caught.value.code


def test_c13_every_line_shown_is_kept_and_a_refused_line_stores_nothing(
    reactor: QueueReactor, chat: ChatService, ledger: LedgerService
) -> None:
    """C-13: the room keeps every chat line it shows; a refused line is answered at once,
    touches no database and is only counted (ARCH 16: a flood of refusals writes nothing)."""
    event = say(reactor, chat, "good luck all")
    assert isinstance(event, ChatLine) and (event.player, event.table_id) == ("alice", T)
    assert refused(reactor, chat, "visit www.cheapchips.com") == errors.CHAT_ADVERTISING
    for _ in range(50):
        assert refused(reactor, chat, "x" * 201) == errors.CHAT_TOO_LONG
    assert chat.writer.queued_lines == 1 and ledger.pending == 0  # nothing written yet
    reactor.wait(chat.flush())
    lines = chat_log(ledger.engine, T)
    assert [(line["text"], line["refused"]) for line in lines] == [("good luck all", None)]
    assert chat.refused == {errors.CHAT_ADVERTISING: 1, errors.CHAT_TOO_LONG: 50}


def test_c13_rate_limit_per_player_with_the_clock(
    reactor: QueueReactor, chat: ChatService, clock: Clock
) -> None:
    """C-13: five lines in ten seconds, the sixth is refused; later it goes through."""
    for i in range(5):
        say(reactor, chat, f"line {i}")
        clock.advance(1)
    assert refused(reactor, chat, "one more") == errors.CHAT_RATE_LIMITED
    say(reactor, chat, "other player is fine", player="bob")
    clock.advance(6)
    say(reactor, chat, "one more")


def test_c13_repeated_line_is_spam_until_the_window_passes(
    reactor: QueueReactor, chat: ChatService, clock: Clock
) -> None:
    """C-13 spam: the same line (case and punctuation aside) within 60 s is refused."""
    say(reactor, chat, "nice hand")
    clock.advance(5)
    assert refused(reactor, chat, "NICE HAND!!") == errors.CHAT_REPEATED
    clock.advance(60)
    say(reactor, chat, "nice hand")


def test_c13_table_mute_timed_and_global_mute_permanent(
    reactor: QueueReactor, chat: ChatService, clock: Clock
) -> None:
    """C-13: a muted player's lines get chat_muted with the end time; mutes end or lift."""
    reactor.wait(chat.mute("alice", by="mod", table_id=T, minutes=10))
    with pytest.raises(ProtocolError) as caught:
        say(reactor, chat, "hello")
    assert caught.value.code == errors.CHAT_MUTED
    assert caught.value.details["until_ms"] == int(clock.seconds() * 1000) + 600_000
    reactor.wait(chat.post("alice", "plo-1", "other table ok", in_hand=False, hand_running=False))
    clock.advance(601)
    say(reactor, chat, "hello again")
    reactor.wait(chat.mute("alice", by="mod"))
    assert refused(reactor, chat, "anyone?") == errors.CHAT_MUTED
    clock.advance(10**7)
    assert refused(reactor, chat, "still?") == errors.CHAT_MUTED
    assert reactor.wait(chat.unmute("alice")) == 1
    say(reactor, chat, "thanks")


def test_c13_mutes_survive_a_restart(
    reactor: QueueReactor, clock: Clock, ledger: LedgerService
) -> None:
    """Mutes are stored: a new chat service loads the active ones."""
    first = ChatService(clock, ledger, ChatRules())
    reactor.wait(first.mute("alice", by="mod", minutes=5))
    reactor.wait(first.mute("bob", by="mod", minutes=1))
    clock.advance(120)
    second = ChatService(clock, ledger, ChatRules())
    reactor.wait(second.load())
    assert second.mute_of("alice", T) is not None
    assert second.mute_of("bob", T) is None


def test_c13_a_mute_stored_or_lifted_tells_the_cluster_after_the_write(
    reactor: QueueReactor, clock: Clock, ledger: LedgerService
) -> None:
    """Cluster mode: `changed` runs once the mute is in the database (the other nodes read the
    mutes again then), for a mute, a lift, and the staff's remember and forget; a second
    service that loads then knows it."""
    here = ChatService(clock, ledger, ChatRules())
    told: list[bool] = []
    here.changed = lambda: told.append(bool(here.mute_of("alice", T)))
    muting = here.mute("alice", by="mod", minutes=5)
    assert told == []  # not before the write
    reactor.wait(muting)
    assert told == [True]
    there = ChatService(clock, ledger, ChatRules())
    reactor.wait(there.load())
    assert there.mute_of("alice", T) is not None
    assert reactor.wait(here.unmute("alice")) == 1
    assert told == [True, False]
    reactor.wait(there.load())
    assert there.mute_of("alice", T) is None
    here.forget("bob", None)
    assert len(told) == 3
    assert reactor.wait(here.unmute("nobody")) == 0 and len(told) == 3  # nothing lifted


def test_c13_no_hand_talk_by_a_player_not_in_the_hand(
    reactor: QueueReactor, chat: ChatService
) -> None:
    """C-13: while a hand runs, a player not in it is refused; players in it and
    everyone between hands may chat."""
    code = refused(reactor, chat, "he has AK", in_hand=False, hand_running=True)
    assert code == errors.CHAT_HAND_IN_PROGRESS
    say(reactor, chat, "gl", in_hand=True, hand_running=True)
    say(reactor, chat, "he had AK", in_hand=False, hand_running=False)


def test_c13_hand_talk_keyword_mode_lets_other_talk_through() -> None:
    """The 'keywords' table setting refuses only lines that talk about cards and actions."""
    rules = ChatRules(hand_talk_mode="keywords")
    assert first_problem("he has Ks", rules, in_hand=False, hand_running=True) == (
        errors.CHAT_HAND_IN_PROGRESS
    )
    assert first_problem("how is everyone", rules, in_hand=False, hand_running=True) is None
    off = ChatRules(hand_talk_rule=False)
    assert first_problem("he has Ks", off, in_hand=False, hand_running=True) is None


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("   ", errors.CHAT_EMPTY),
        ("x" * 201, errors.CHAT_TOO_LONG),
        ("join discord.gg/freechips", errors.CHAT_ADVERTISING),
        ("best site: http://x.y", errors.CHAT_ADVERTISING),
        ("you are an IDIOT", errors.CHAT_LANGUAGE),
        ("you 1d10t", errors.CHAT_LANGUAGE),
        ("lets chip dump to him", errors.CHAT_LANGUAGE),
        ("😀😀😀😀😀😀😀😀😀", errors.CHAT_FLOOD),
        ("nooooooooooooo", errors.CHAT_FLOOD),
        ("!!!!!!!!!!!", errors.CHAT_FLOOD),
    ],
)
def test_c13_filters_spam_ads_and_slurs(text: str, code: str) -> None:
    """C-13: empty, too long, advertising, word list (leet folded), floods."""
    assert first_problem(text, ChatRules(), in_hand=False, hand_running=False) == code


@pytest.mark.parametrize("text", ["gg wp", "nice river", "well played, sir", "lol 😀", "9.5 bb"])
def test_ordinary_lines_pass_the_filters(text: str) -> None:
    """Normal table talk is not caught by the filters."""
    assert first_problem(text, ChatRules(), in_hand=False, hand_running=False) is None


def test_word_list_comes_from_config() -> None:
    """The word list is a room setting; unknown settings are an error."""
    rules = ChatRules.from_mapping({"blocked_words": ["Donkey"], "rate_lines": 3})
    assert (
        first_problem("donkey!", rules, in_hand=False, hand_running=False) == errors.CHAT_LANGUAGE
    )
    with pytest.raises(ValueError):
        ChatRules.from_mapping({"rate_line": 3})


def test_c13_a_load_whose_read_predates_a_mute_made_here_reads_again(
    reactor: QueueReactor, clock: Clock, ledger: LedgerService
) -> None:
    """Cluster mode reloads the mutes (another node's bell, every `staff_reload_seconds`): a
    read that began before staff muted alice here is older than memory, so it is read again
    (what the database says now) and alice stays muted; applied as it was, it dropped her mute
    until the next reload."""
    chat = ChatService(clock, ledger, ChatRules())
    first: Deferred[list[Mute]] = Deferred()
    reads = [first, succeed([Mute(7, "alice", None, None)])]
    chat.ledger = cast(Any, type("Held", (), {"read": lambda self, *a: reads.pop(0)})())
    loading = chat.load()
    chat.remember(Mute(7, "alice", None, None))  # staff muted her here while the read ran
    first.callback([])  # what the read saw: no mute yet
    assert loading.called and reads == []
    assert chat.mute_of("alice", T) is not None
