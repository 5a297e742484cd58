"""Table chat (C-13): filters, rate limit, mutes, and a log of every line."""

from pokerroom.chat.filters import ChatRules
from pokerroom.chat.service import ChatService, Mute, chat_log

__all__ = ["ChatRules", "ChatService", "Mute", "chat_log"]
