"""How each agent's Windows runner starts our entries (:mod:`elydora_cli.plug.runners`), and the exact shape of
every PowerShell script it would run.

Every agent is installed as on Windows (``windows=True``) into a home whose path holds a space, a single quote
and a non-ASCII letter, with an interpreter at such a path. The PowerShell rows cannot run on our machines
(Wine's ``powershell.exe`` is a stub): each script is decoded and compared character for character with the
call-operator form, ``'`` doubled, ``exit $LASTEXITCODE`` last; those rows are "not executed here". The other
rows (exec forms, word lists the agent splits itself, Node files) are what ``elydora demo`` runs
under Wine (``tests/elydora_cli/commands/test_cmd_demo_windows.py``).
"""

from __future__ import annotations

import binascii
import os
import sys
from pathlib import Path

import pytest
from elydora_testkit.windows_runners import EXECUTED, POWERSHELL_RUN

from elydora_cli.installer import operations
from elydora_cli.plug import runners
from elydora_cli.plug.cmdforms import encoded_powershell, parse_encoded_powershell, powershell_call
from elydora_cli.plug.context import RUNTIME_FLAGS, Context
from elydora_cli.plug.ownership import script_path
from elydora_cli.providers import implemented_ids

ENV = {"SystemRoot": "C:\\Windows", "ComSpec": "C:\\Windows\\system32\\cmd.exe"}
POWERSHELL = "C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe"
def test_every_agent_is_in_one_table() -> None:
    assert set(POWERSHELL_RUN) | set(EXECUTED) == set(implemented_ids())
    assert not set(POWERSHELL_RUN) & set(EXECUTED)
    assert (len(EXECUTED), len(POWERSHELL_RUN)) == (9, 13)


@pytest.fixture(scope="module")
def windows_install(tmp_path_factory: pytest.TempPathFactory) -> tuple[Context, dict[str, list[operations.Entry]]]:
    """Every agent installed as on Windows below ``Jöhn O'Brien home``, entries read back per agent."""
    home = tmp_path_factory.mktemp("w") / "Jöhn O'Brien home"
    (home / "project").mkdir(parents=True)
    if os.name == "nt":  # the real interpreter: a Windows path, drive and backslashes
        python = sys.executable
    else:  # the same interpreter at a path with a space, a quote and a non-ASCII letter
        folder = home / "Pythön 3.13 it's"
        folder.mkdir()
        (folder / "python.exe").symlink_to(sys.executable)
        python = str(folder / "python.exe")
    ctx = Context(home=home, state_root=home, repo_root=home / "project", env=ENV, python=python, windows=True)
    entries = {}
    for pid in implemented_ids():
        operations.install(pid, ctx)
        entries[pid] = operations.installed_entries(pid, ctx)
    return ctx, entries


def _call_operator(words: list[str]) -> str:
    """The script we mean, spelled out here (not by the code under test): every word single-quoted with ``'``
    doubled, then ``; exit $LASTEXITCODE`` so that PowerShell exits with the hook's own code."""
    return "& " + " ".join("'" + w.replace("'", "''") + "'" for w in words) + "; exit $LASTEXITCODE"


def _decoded(payload: str) -> str:
    return binascii.a2b_base64(payload).decode("utf-16-le")


@pytest.mark.parametrize("pid", sorted(POWERSHELL_RUN))
def test_powershell_rows_run_the_exact_call_operator_script(windows_install, pid: str) -> None:
    """Not executed here: the script each PowerShell row runs, decoded, is exactly the call-operator form."""
    ctx, entries = windows_install
    assert entries[pid]
    for entry in entries[pid]:
        argv = entry.argv
        assert runners.is_powershell(argv), argv
        words = [ctx.python, *RUNTIME_FLAGS, str(script_path(ctx, entry.ref.agent_id, entry.ref.role))]
        assert "'" in words[-1] and "ö" in words[-1] and " " in words[-1]
        how = POWERSHELL_RUN[pid]
        if how == "encoded":  # the line's own words: powershell.exe and its flags, no shell in between
            assert argv[:5] == [POWERSHELL, "-NoLogo", "-NoProfile", "-NonInteractive", "-EncodedCommand"]
            assert _decoded(argv[5]) == _call_operator(words)
        elif how == "encoded in call operator":
            assert argv[:-1] == [POWERSHELL, *runners.POWERSHELL_FLAGS]
            head = f"& '{POWERSHELL}' -NoLogo -NoProfile -NonInteractive -EncodedCommand "
            assert argv[-1].startswith(head)
            assert _decoded(argv[-1][len(head):]) == _call_operator(words)
        else:
            assert argv[-1] == _call_operator(words)
            assert argv[-2] == "-Command" and argv[0] in (POWERSHELL, "powershell")


@pytest.mark.parametrize("pid", sorted(EXECUTED))
def test_other_rows_start_a_program_without_powershell(windows_install, pid: str) -> None:
    ctx, entries = windows_install
    assert entries[pid]
    for entry in entries[pid]:
        argv = entry.argv
        assert not runners.is_powershell(argv)
        kind = EXECUTED[pid]
        if kind == "python":
            script = str(script_path(ctx, entry.ref.agent_id, entry.ref.role))
            assert argv == [ctx.python, *RUNTIME_FLAGS, script]
        else:
            assert argv[0] == "node" and Path(argv[-1]).is_file()


def test_windows_argv_by_form() -> None:
    call = powershell_call(["C:\\P y\\python.exe", "C:\\h\\it's\\guard.py"])
    assert runners.windows_argv(call, ENV) == [POWERSHELL, *runners.POWERSHELL_FLAGS, call]
    encoded = encoded_powershell(["C:\\P y\\python.exe", "g.py"], ENV)
    argv = runners.windows_argv(encoded, ENV)
    assert argv[0] == POWERSHELL and argv[4] == "-EncodedCommand"
    assert parse_encoded_powershell(encoded) == ["C:\\P y\\python.exe", "g.py"]
    assert _decoded(argv[5]) == _call_operator(["C:\\P y\\python.exe", "g.py"])
    assert runners.windows_argv('"C:\\a b\\w.cmd"', {}) == ["C:\\Windows\\System32\\cmd.exe", "/d", "/s", "/c",
                                                            '""C:\\a b\\w.cmd""']


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"ComSpec": "D:\\W\\system32\\cmd.exe"}, "D:\\W\\system32\\cmd.exe"),
        ({"COMSPEC": "relative\\cmd.exe", "SystemRoot": "E:\\Win"}, "E:\\Win\\System32\\cmd.exe"),
        ({"ComSpec": 'C:\\"x\\cmd.exe'}, "C:\\Windows\\System32\\cmd.exe"),
        ({"ComSpec": "C:\\x\\evil.exe"}, "C:\\Windows\\System32\\cmd.exe"),
    ],
)
def test_comspec_is_an_absolute_cmd_exe_or_the_system_one(env: dict[str, str], expected: str) -> None:
    assert runners.comspec(env) == expected


def test_is_powershell_by_file_name() -> None:
    assert runners.is_powershell([POWERSHELL, "-Command", "x"])
    assert runners.is_powershell(["pwsh", "-c"]) and runners.is_powershell(["/usr/bin/PowerShell"])
    assert not runners.is_powershell(["C:\\powershell.exe.cmd"]) and not runners.is_powershell([])


def test_posix_runners_are_unchanged(tmp_path: Path) -> None:
    ctx = Context(home=tmp_path, state_root=tmp_path, repo_root=tmp_path)
    assert runners.shell_argv("'a' 'b'", ctx) == ["/bin/sh", "-c", "'a' 'b'"]
    assert runners.word_list("'C:\\a b\\p.exe' 'it'\"'\"'s'") == ["C:\\a b\\p.exe", "it's"]
