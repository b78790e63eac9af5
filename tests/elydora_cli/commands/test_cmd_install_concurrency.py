"""A concurrent writer during install is detected and keeps its bytes; a crash during install is undone
(or completed) by ``elydora recover``, never left half-installed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from elydora_cli.main import main
from elydora_config import Transaction

ORIGINAL = b'{\n  "model": "sonnet"\n}\n'

CRASH_RUNNER = """
import os, sys
from elydora_config import _sysio
limit = int(sys.argv[1])
calls = {"n": 0}
def crashing(name):
    original = getattr(_sysio, name)
    def wrapper(*args, **kwargs):
        if name == "open_file" and not args[1] & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            return original(*args, **kwargs)  # reads mutate nothing
        calls["n"] += 1
        if calls["n"] == limit:
            os._exit(77)
        return original(*args, **kwargs)
    return wrapper
for name in ("open_file", "write_all", "fsync", "fchmod", "rename", "rename_noreplace", "exchange", "unlink",
             "link", "mkdir", "rmdir", "fsync_dir"):
    if hasattr(_sysio, name):
        setattr(_sysio, name, crashing(name))
from elydora_cli.main import main
sys.exit(main(sys.argv[2:]))
"""


def test_concurrent_writer_is_detected_and_kept(tmp_path, capsys, monkeypatch):
    home = tmp_path / "home"
    target = home / ".claude" / "settings.json"
    target.parent.mkdir(parents=True)
    target.write_bytes(ORIGINAL)
    theirs = b'{\n  "model": "opus"\n}\n'
    original_commit = Transaction.commit

    def commit_after_foreign_write(self):
        target.write_bytes(theirs)
        return original_commit(self)

    monkeypatch.setattr(Transaction, "commit", commit_after_foreign_write)
    code = main(["install", "claudecode", "--root", str(home)])
    err = capsys.readouterr().err
    assert code == 3 and err.startswith("Error: ") and str(target) in err and "changed by another program" in err
    assert target.read_bytes() == theirs
    assert not (home / ".elydora" / "claudecode" / "guard.py").exists()


def _run_crashing(limit: int, home: Path) -> int:
    argv = [sys.executable, "-c", CRASH_RUNNER, str(limit), "install", "claudecode", "--root", str(home)]
    return subprocess.run(argv, capture_output=True, timeout=60).returncode


def test_crash_at_every_system_call_of_install_recovers(tmp_path):
    installed_once = tmp_path / "reference"
    (installed_once / ".claude").mkdir(parents=True)
    (installed_once / ".claude" / "settings.json").write_bytes(ORIGINAL)
    assert _run_crashing(10**9, installed_once) == 0
    after = (installed_once / ".claude" / "settings.json").read_bytes().replace(bytes(installed_once), b"HOME")
    points = 0
    for limit in range(1, 200):
        home = tmp_path / f"crash-{limit}"
        (home / ".claude").mkdir(parents=True)
        (home / ".claude" / "settings.json").write_bytes(ORIGINAL)
        code = _run_crashing(limit, home)
        if code == 0:
            break
        assert code == 77
        points += 1
        assert main(["recover", "--root", str(home), "--json"]) == 0
        final = (home / ".claude" / "settings.json").read_bytes().replace(bytes(home), b"HOME")
        assert final in (ORIGINAL, after), limit
        guard = home / ".elydora" / "claudecode" / "guard.py"
        assert guard.exists() == (final == after), limit  # a hook never points at a missing script
        leftovers = [p for p in home.rglob("*") if ".elydora-tmp-" in p.name or p.name.endswith(".journal")]
        assert not leftovers, (limit, leftovers)
    assert points > 20, "the harness must have crashed the install at many points"
