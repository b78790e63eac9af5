"""Every command that meets a pending journal names the exact ``elydora recover`` command, not only install."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

from elydora_testkit.platforms import NO_CONTROL_CHARACTERS, posix_only, split_command_line


def _elydora(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "elydora_cli", *argv], capture_output=True, text=True, timeout=60, check=False
    )


def test_agent_create_on_a_pending_journal_names_the_recover_command(tmp_path: Path) -> None:
    home = tmp_path / "home dir"
    transactions = home / ".elydora" / "transactions"
    transactions.mkdir(parents=True, mode=0o700)
    (transactions / "00000000000000000001-1-abcd.journal").write_bytes(b'{"torn')  # unreadable: blocks all
    created = _elydora("agent", "create", "--provider", "claudecode", "--root", str(home))
    shown = re.search(r"run `(elydora recover [^`]*)` first", created.stderr)
    assert created.returncode == 4, created.stderr
    assert created.stderr.count("Error:") == 1 and shown is not None, created.stderr
    words = split_command_line(shown[1])  # pasted into this system's shell
    assert words == ["elydora", "recover", "--state-root", str(home)]
    recovered = _elydora(*words[1:])  # the command as printed resolves it
    assert recovered.returncode == 0, recovered.stderr
    assert _elydora("agent", "create", "--provider", "claudecode", "--root", str(home)).returncode == 0


@posix_only("the POSIX shell's quoting (Windows: test_cmdforms.py, windows_word)")
def test_a_command_is_quoted_as_shlex_quotes_each_word() -> None:
    """The command line reads back word for word as shlex quotes it."""
    from types import SimpleNamespace

    from elydora_cli.recovery_hint import elydora_command

    for home in ("/home/ann", "/home/a b", "/tmp/it's", "/h/$x", "/h/é", "/h/a*", "/h/-x", "/h/~"):
        ctx = SimpleNamespace(rooted=True, home=Path(home), state_root=Path(home + "/state"))
        words = ["elydora", "install", "codex", "--trust", "--root", home, "--state-root", home + "/state"]
        assert elydora_command(ctx, "install", "codex", "--trust") == " ".join(shlex.quote(w) for w in words)
    assert elydora_command(SimpleNamespace(rooted=True, home=Path("/h"), state_root=Path("/h")), "") == (
        "elydora '' --root /h"
    )


@posix_only(NO_CONTROL_CHARACTERS)
def test_a_command_naming_a_path_with_a_control_character_stays_on_one_line() -> None:
    """A newline or a tab in the home: ``$'...'`` (a terminal's copy would turn a quoted tab into blanks)."""
    from types import SimpleNamespace

    from elydora_cli.recovery_hint import elydora_command

    ctx = SimpleNamespace(rooted=True, home=Path("/h/new\nline"), state_root=Path("/h/a\tb"))
    assert elydora_command(ctx, "recover") == "elydora recover --root $'/h/new\\nline' --state-root $'/h/a\\tb'"
