"""The systemd units in config/systemd/ (docs/OPERATIONS.md shows them word for word).

`systemd-analyze verify` (when the machine has it) must print nothing: it exits 0 even on an
unknown key, so any line it prints is a failure. The rules it does not check are checked here:
a timer's `Persistent=` needs `OnCalendar=`, and `After=network-online.target` does nothing
without `Wants=network-online.target`.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
UNITS = ROOT / "config" / "systemd"
NAMES = ("pokerroom.service", "pokerroom-refunds.service", "pokerroom-refunds.timer")


def _keys(text: str) -> dict[str, dict[str, list[str]]]:
    """Section -> key -> values (systemd allows a key more than once)."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), {})
            continue
        key, _, value = line.partition("=")
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


def test_every_unit_is_shown_word_for_word_in_operations_md() -> None:
    doc = (ROOT / "docs" / "OPERATIONS.md").read_text()
    for name in NAMES:
        shown = rf"`/etc/systemd/system/{re.escape(name)}`.*?```ini\n(.*?)```"
        match = re.search(shown, doc, re.S)
        assert match, f"OPERATIONS.md does not show {name}"
        assert match.group(1) == (UNITS / name).read_text(), name


def test_a_persistent_timer_has_a_calendar() -> None:
    timer = _keys((UNITS / "pokerroom-refunds.timer").read_text())["Timer"]
    assert timer.get("Persistent") == ["true"]
    assert timer.get("OnCalendar"), "Persistent= only applies to OnCalendar= timers"


@pytest.mark.parametrize("name", [n for n in NAMES if n.endswith(".service")])
def test_network_online_is_wanted_where_it_is_waited_for(name: str) -> None:
    unit = _keys((UNITS / name).read_text())["Unit"]
    if any("network-online.target" in v for v in unit.get("After", [])):
        assert any("network-online.target" in v for v in unit.get("Wants", []))


def test_the_server_is_not_restarted_on_a_configuration_error() -> None:
    # serve exits 2 for a wrong setting or a taken port, and a database code (docs/OPERATIONS.md)
    # for a wrong database: a restart cannot help, but 69 (no answer yet) may clear by itself.
    service = _keys((UNITS / "pokerroom.service").read_text())["Service"]
    assert service["Restart"] == ["on-failure"]
    prevent = set(service["RestartPreventExitStatus"][0].split())
    assert prevent == {"2", "65", "66", "70", "73", "77", "78"}  # all but 69: may clear
    assert service["ExecStart"][0].split()[1] == "serve"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze here")
def test_systemd_analyze_verify_says_nothing(tmp_path: Path) -> None:
    for name in NAMES:  # the program must exist for verify: point ExecStart at /bin/true
        text = (UNITS / name).read_text()
        text = text.replace("/srv/pokerroom/.venv/bin/pokerroom", "/bin/true")
        (tmp_path / name).write_text(text)
    done = subprocess.run(
        ["systemd-analyze", "verify", *(str(tmp_path / n) for n in NAMES)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout + done.stderr == ""


def test_systemd_analyze_would_catch_a_misspelled_key(tmp_path: Path) -> None:
    if shutil.which("systemd-analyze") is None:
        pytest.skip("no systemd-analyze here")
    bad = tmp_path / "typo.service"
    bad.write_text("[Service]\nExecStrat=/bin/true\nExecStart=/bin/true\n")
    done = subprocess.run(
        ["systemd-analyze", "verify", str(bad)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "ExecStrat" in done.stdout + done.stderr
