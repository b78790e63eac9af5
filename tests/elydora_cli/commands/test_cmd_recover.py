"""``elydora recover`` after a killed install and a later edit of the agent's settings by someone else: it
finishes (exit 0), keeps the edit in place, saves our version and the original in a folder it names; and the
unresolved journal of one agent never blocks installing another."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_cmd_install_concurrency import ORIGINAL, _run_crashing

from elydora_cli.main import main
from elydora_config import pending

THEIRS = b'{\n  "model": "opus",\n  "edited": "by the agent after the crash"\n}\n'

# Dies once our bytes are at settings.json: after the exchange (Linux), or after the rename that follows the
# verify where there is no exchange (Windows: the exchange raises ENOSYS, so it never dies there).
KILL_AFTER_SETTINGS = """
import os, sys
from elydora_config import _sysio
def then_die(real):
    def call(src, dst, **kwargs):
        real(src, dst, **kwargs)
        if dst == "settings.json":
            os._exit(77)
    return call
_sysio.exchange = then_die(_sysio.exchange)
_sysio.rename = then_die(_sysio.rename)
from elydora_cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def _killed_after_settings_written(tmp_path: Path) -> tuple[Path, bytes]:
    """A home whose install was killed right after settings.json got our bytes; returns it and those bytes."""
    reference = tmp_path / "reference"
    (reference / ".claude").mkdir(parents=True)
    (reference / ".claude" / "settings.json").write_bytes(ORIGINAL)
    assert _run_crashing(10**9, reference) == 0
    ours = (reference / ".claude" / "settings.json").read_bytes().replace(_in_json(reference), b"HOME")
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_bytes(ORIGINAL)
    argv = [sys.executable, "-c", KILL_AFTER_SETTINGS, "install", "claudecode", "--root", str(home)]
    assert subprocess.run(argv, capture_output=True, timeout=60).returncode == 77
    assert pending(home / ".elydora") and (home / ".claude" / "settings.json").read_bytes() != ORIGINAL
    return home, ours.replace(b"HOME", _in_json(home))


def _in_json(path: Path) -> bytes:
    """``path`` as settings.json spells it (a Windows path's backslashes doubled)."""
    return json.dumps(str(path))[1:-1].encode()


def test_recover_after_killed_install_and_foreign_edit_exits_0_and_names_the_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home, ours = _killed_after_settings_written(tmp_path)
    settings = home / ".claude" / "settings.json"
    settings.write_bytes(THEIRS)
    capsys.readouterr()
    assert main(["recover", "--root", str(home)]) == 0
    out = capsys.readouterr().out
    folder = next(iter((home / ".elydora" / "recovered").iterdir()))
    assert str(folder) in out and str(settings) in out and "kept in place" in out
    assert settings.read_bytes() == THEIRS
    saved = {p.suffix: p.read_bytes() for p in folder.iterdir() if p.name != "README.txt"}
    assert saved == {".original": ORIGINAL, ".ours": ours}
    assert pending(home / ".elydora") == []
    assert main(["recover", "--root", str(home), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"recovered": []}


def test_unresolved_journal_of_one_agent_does_not_block_installing_another(tmp_path: Path) -> None:
    home, _ = _killed_after_settings_written(tmp_path)
    assert pending(home / ".elydora")
    assert main(["install", "codex", "--root", str(home)]) == 0
    assert main(["install", "claudecode", "--root", str(home)]) == 4
