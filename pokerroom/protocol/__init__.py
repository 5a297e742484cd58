"""The client protocol: message definitions (pure), JSON-lines framing, one session per connection.

See docs/PROTOCOL.md for the wire format and docs/design/room.md for how sessions, the lobby
and the table actors talk.
"""
