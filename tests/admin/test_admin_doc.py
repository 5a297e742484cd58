"""docs/ADMIN.md against the code: every command with its role and fields, every admin code;
and the command registry's parsing, which gives admin frames the player protocol's codes (P-1)."""

from __future__ import annotations

from pathlib import Path

import pytest

import pokerroom.admin.handlers  # noqa: F401  (registers the commands)
from pokerroom.admin.commands import COMMANDS, IDENTITY_KEYS, describe, parse
from pokerroom.admin.errors import ADMIN_CODES
from pokerroom.admin.roles import Role
from pokerroom.protocol.errors import ProtocolError

DOC = (Path(__file__).resolve().parents[2] / "docs" / "ADMIN.md").read_text()


def _row(name: str) -> str:
    rows = [line for line in DOC.splitlines() if line.startswith(f"| `{name}` |")]
    assert len(rows) == 1, name
    return rows[0]


def test_every_command_is_documented_with_its_role_and_fields() -> None:
    """Each command has one row in the wire table naming its role and every field."""
    for name, command in COMMANDS.items():
        row = _row(name)
        assert f"| {command.role.label} |" in row, name
        for field, _, _, _ in describe(command):
            assert f"`{field}`" in row, (name, field)


def test_every_admin_code_and_role_is_documented() -> None:
    """Each admin error code and each role appears in backticks."""
    assert [code for code in ADMIN_CODES if f"`{code}`" not in DOC] == []
    assert [role.label for role in Role if f"`{role.label}`" not in DOC] == []


def test_every_cli_command_is_documented() -> None:
    """Each `pokerroom admin` subcommand appears in the CLI table."""
    from pokerroom.cli.admin_cmds import admin

    def paths(group: object, prefix: str) -> list[str]:
        found = []
        for name, sub in getattr(group, "commands", {}).items():
            if hasattr(sub, "commands"):
                found += paths(sub, f"{prefix}{name} ")
            else:
                found.append(f"{prefix}{name}")
        return found

    missing = [p for p in paths(admin, "") if f"| `{p}" not in DOC]
    assert missing == []


def test_roles_include_the_ones_below() -> None:
    """support < floor < director < admin; each allows what the lower ones may."""
    assert sorted(Role) == [Role.SUPPORT, Role.FLOOR, Role.DIRECTOR, Role.ADMIN]
    assert Role.ADMIN.allows(Role.SUPPORT) and Role.FLOOR.allows(Role.FLOOR)
    assert not Role.DIRECTOR.allows(Role.ADMIN) and not Role.SUPPORT.allows(Role.FLOOR)
    assert Role.parse(" Floor ") is Role.FLOOR
    with pytest.raises(ValueError, match="support, floor, director, admin"):
        Role.parse("owner")


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ({"type": "table_show"}, "bad_request_id"),
        ({"type": "table_show", "id": 1.5, "table_id": "t"}, "bad_request_id"),
        ({"type": "nope", "id": 1}, "unknown_message"),
        ({"type": ["table_show"], "id": 1}, "unknown_message"),
        ({"type": "table_show", "id": 1}, "missing_field"),
        ({"type": "table_show", "id": 1, "table_id": "t", "x": 1}, "unknown_field"),
        ({"type": "table_show", "id": 1, "table_id": 7}, "bad_field"),
        ({"type": "table_show", "id": 1, "table_id": "t", "as": "adm1"}, "identity_not_allowed"),
        (
            {
                "type": "wallet_correct",
                "id": 1,
                "player": "ann",
                "amount": 0,
                "reason": "r",
                "key": "k",
            },
            "invalid_amount",
        ),
        (
            {
                "type": "wallet_correct",
                "id": 1,
                "player": "ann",
                "amount": "5",
                "reason": "r",
                "key": "k",
            },
            "invalid_amount",
        ),
        (
            {
                "type": "wallet_correct",
                "id": 1,
                "player": "ann",
                "amount": True,
                "reason": "r",
                "key": "k",
            },
            "invalid_amount",
        ),
        ({"type": "player_moderator", "id": 1, "player": "ann", "on": "yes"}, "bad_field"),
        ({"type": "player_ban", "id": 1, "player": "ann", "reason": ""}, "bad_field"),
        (
            {"type": "player_block_lift", "id": 1, "player": "ann", "level": "1/2", "reason": "r"},
            "bad_field",
        ),
    ],
)
def test_malformed_commands_get_the_player_protocols_codes(frame: dict, code: str) -> None:
    """P-1: the registry refuses with the stable codes of the player protocol."""
    with pytest.raises(ProtocolError) as caught:
        parse(frame)
    assert caught.value.code == code


def test_a_command_parses_into_its_typed_args() -> None:
    """Optional fields take their defaults; null is accepted for an optional field."""
    _, command, args = parse(
        {"type": "player_mute", "id": "x", "player": "Ann", "reason": "spam", "table_id": None}
    )
    assert command.name == "player_mute" and command.role is Role.SUPPORT and command.changes
    assert (args.player, args.table_id, args.minutes, args.reason) == ("ann", None, None, "spam")
    assert "staff" in IDENTITY_KEYS and not any(
        f in IDENTITY_KEYS for c in COMMANDS.values() for f, *_ in describe(c)
    )
