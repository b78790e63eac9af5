"""A concurrent writer during install is detected and keeps its bytes; a crash during install is undone
(or completed) by ``elydora recover``, never left half-installed."""

from __future__ import annotations

import json
import os
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


def test_another_agents_install_between_our_read_and_commit_is_no_conflict(root, capsys, monkeypatch):
    """Two runs on different agents share no file: Gemini's install (and uninstall) committing while Claude
    Code's is between its reads and its commit leaves Claude Code's install untouched by it."""
    home = root / "home"
    original_commit = Transaction.commit
    other: list[str] = ["install"]

    def commit_after_another_agents_run(self):
        if other and any("/.claude/" in p for p in self.staged_paths):
            verb = other.pop()
            assert main([verb, "gemini", "--root", str(home), "-q"]) == 0
        return original_commit(self)

    monkeypatch.setattr(Transaction, "commit", commit_after_another_agents_run)
    assert main(["install", "gemini", "--root", str(home), "-q"]) == 0
    assert main(["install", "claudecode", "--root", str(home)]) == 0, capsys.readouterr().err
    other.append("uninstall")
    assert main(["uninstall", "claudecode", "--root", str(home)]) == 0, capsys.readouterr().err
    assert not other


def _rewritten_in_place_while_read(monkeypatch, target: Path, times: int) -> list[int]:
    """The agent rewrites ``target`` in place (truncate, then write) each time the install reads it, ``times``
    times: the read sees the truncated file, the full text is back right after."""
    full = target.read_bytes()
    original_read = Transaction.read
    seen = [0]

    def read(self, path, **kwargs):
        if str(path) == str(target) and seen[0] < times:
            seen[0] += 1
            with open(target, "r+b") as fh:
                fh.truncate(0)
            try:
                return original_read(self, path, **kwargs)
            finally:
                with open(target, "r+b") as fh:
                    fh.write(full)
        return original_read(self, path, **kwargs)

    monkeypatch.setattr(Transaction, "read", read)
    return seen


def test_a_file_rewritten_in_place_while_read_is_read_again(root, capsys, monkeypatch):
    home = root / "home"
    target = home / ".gemini" / "settings.json"
    target.parent.mkdir(parents=True)
    target.write_bytes(b'{\n  "theme": "dark"\n}\n')
    seen = _rewritten_in_place_while_read(monkeypatch, target, times=1)
    code = main(["install", "gemini", "--root", str(home)])
    assert code == 0, capsys.readouterr().err
    assert seen[0] == 1 and b'"theme": "dark"' in target.read_bytes() and b"guard" in target.read_bytes()


def test_a_file_that_keeps_being_rewritten_is_a_conflict_not_a_malformed_file(root, capsys, monkeypatch):
    home = root / "home"
    target = home / ".gemini" / "settings.json"
    target.parent.mkdir(parents=True)
    original = b'{\n  "theme": "dark"\n}\n'
    target.write_bytes(original)
    _rewritten_in_place_while_read(monkeypatch, target, times=10**6)
    code = main(["install", "gemini", "--root", str(home)])
    err = capsys.readouterr().err
    assert code == 3, err
    assert err.startswith(f"Error: {target}: kept changing while it was read") and "empty document" not in err
    assert target.read_bytes() == original and not (home / ".elydora").exists()


def test_a_file_we_only_read_replaced_before_our_commit_is_read_again(root, capsys, monkeypatch):
    """Claude Code's project settings (read, never written) replaced between our read and our commit: the install
    starts over from its reads and keeps their bytes."""
    home, project = root / "home", root / "work" / ".claude" / "settings.json"
    project.parent.mkdir(parents=True)
    project.write_bytes(b'{"model": "sonnet"}\n')
    original_commit = Transaction.commit
    commits = [0]

    def commit_after_project_edit(self):
        commits[0] += 1
        if commits[0] == 1:
            project.write_bytes(b'{"model": "opus"}\n')
        return original_commit(self)

    monkeypatch.setattr(Transaction, "commit", commit_after_project_edit)
    assert main(["install", "claudecode", "--root", str(home)]) == 0, capsys.readouterr().err
    assert commits[0] == 2 and project.read_bytes() == b'{"model": "opus"}\n'


def test_a_hard_linked_settings_file_is_refused_not_split(root, capsys):
    home = root / "home"
    target = home / ".claude" / "settings.json"
    target.parent.mkdir(parents=True)
    target.write_bytes(ORIGINAL)
    other = root / "dotfiles-settings.json"
    os.link(target, other)
    code = main(["install", "claudecode", "--root", str(home)])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith(f"Error: {target}: has 2 hard links") and "--follow-symlinks" in err
    assert target.read_bytes() == ORIGINAL and os.path.samefile(target, other)
    assert not (home / ".elydora" / "claudecode" / "guard.py").exists()
    other.unlink()  # a name of its own: installed, and uninstalled back to the same bytes
    assert main(["install", "claudecode", "--root", str(home), "-q"]) == 0
    os.link(target, other)
    assert main(["uninstall", "claudecode", "--root", str(home)]) == 1
    assert os.path.samefile(target, other) and b"guard" in target.read_bytes()


def test_a_dry_run_fails_as_the_real_run_would_while_a_recovery_is_pending(tmp_path, capsys):
    """An install a crash interrupted holds Claude Code's files: the dry run says so (exit 4, the recover
    command), never "nothing to change"; for any agent, the dry run ends as the real run does."""
    for limit in range(5, 200):
        home = tmp_path / f"crash-{limit}"
        (home / ".claude").mkdir(parents=True)
        (home / ".claude" / "settings.json").write_bytes(ORIGINAL)
        assert _run_crashing(limit, home) == 77
        if list((home / ".elydora" / "transactions").glob("*.journal")):
            break
    else:
        raise AssertionError("no crash point left a journal")
    code = main(["install", "claudecode", "--root", str(home), "--dry-run"])
    out, err = capsys.readouterr()
    assert (code, out) == (4, "") and "holds an interrupted transaction; run `elydora recover --root" in err
    assert main(["install", "claudecode", "--root", str(home)]) == 4
    capsys.readouterr()
    for agent in ("gemini", "claudecode"):
        dry = main(["uninstall", agent, "--root", str(home), "--dry-run"])
        assert dry == main(["uninstall", agent, "--root", str(home)]) == 4
    assert main(["recover", "--root", str(home)]) == 0
    capsys.readouterr()
    assert main(["install", "claudecode", "--root", str(home), "--dry-run"]) == 0
    assert "claudecode: nothing to change" not in capsys.readouterr().out


def test_a_dry_run_shows_the_users_file_first_and_lists_our_own(tmp_path, capsys):
    home = tmp_path / "home"
    target = home / ".claude" / "settings.json"
    target.parent.mkdir(parents=True)
    target.write_bytes(ORIGINAL)
    assert main(["install", "claudecode", "--root", str(home), "--dry-run"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == f"--- {target}" and len(lines) < 80
    own = lines[lines.index("claudecode: 10 file(s) of Elydora's own (-v shows their diffs):") + 1:]
    agent_dir = home / ".elydora" / "claudecode"
    assert f"  new      {agent_dir / 'private.key'} (44 bytes, secret, not shown)" in own
    assert any(line.startswith(f"  new      {agent_dir / 'guard.py'} (") for line in own)
    assert main(["install", "claudecode", "--root", str(home), "--dry-run", "-v"]) == 0
    full = capsys.readouterr().out
    assert f"+++ {agent_dir / 'guard.py'}" in full and "-----BEGIN" not in full and len(full.splitlines()) > 500
    assert not agent_dir.exists() and target.read_bytes() == ORIGINAL


def _interrupted_install(tmp_path: Path) -> Path:
    """A home where a crash interrupted Claude Code's install after its journal was complete."""
    for limit in range(5, 200):
        home = tmp_path / f"interrupted-{limit}"
        (home / ".claude").mkdir(parents=True)
        (home / ".claude" / "settings.json").write_bytes(ORIGINAL)
        assert _run_crashing(limit, home) == 77
        journals = list((home / ".elydora" / "transactions").glob("*.journal"))
        if journals and b'"entries"' in journals[0].read_bytes():
            return home
    raise AssertionError("no crash point left a whole journal")


def test_status_marks_only_the_agents_an_interrupted_transaction_holds(tmp_path, capsys):
    home = _interrupted_install(tmp_path)
    code = main(["status", "--root", str(home), "--json"])
    doc = json.loads(capsys.readouterr().out)
    states = {row["provider"]: row["state"] for row in doc["providers"]}
    assert code == 4 and doc["exit_code"] == 4 and doc["recovery"]["command"] == f"elydora recover --root {home}"
    assert states.pop("claudecode") == "recovery pending" and set(states.values()) == {"not installed"}
    assert [row["recovery"] is not None for row in doc["providers"]].count(True) == 1
    code = main(["status", "--root", str(home), "-q"])
    out = capsys.readouterr().out
    assert code == 4 and out == (
        f"recovery pending (run: elydora recover --root {home}); not healthy: claudecode (recovery pending)\n"
    )
