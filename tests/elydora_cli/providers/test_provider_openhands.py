"""OpenHands: the shell-form handler pinned literally (never ``async``), the file rules OpenHands enforces
(six events, two spellings, the unwrapped form), the project file as a read-only source, the one ``Error:`` line."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest
from elydora_testkit.provider_cases import change_before_commit, files_under, make_context
from hypothesis import given, settings
from hypothesis import strategies as st

from elydora_cli.installer import operations
from elydora_cli.main import main
from elydora_cli.plug.context import Context
from elydora_cli.plug.ownership import Ref
from elydora_cli.providers import openhands
from elydora_cli.providers.openhands import snake
from elydora_config.errors import ConcurrentModificationError, MalformedConfigError


def _user(ctx: Context) -> Path:
    return ctx.home / ".openhands" / "hooks.json"


def _write(path: Path, value: object) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = (json.dumps(value, indent=2) + "\n").encode()
    path.write_bytes(data)
    return data


def test_installs_synchronous_shell_handlers_in_star_groups(tmp_path: Path) -> None:
    ctx = make_context(tmp_path).with_options(python="/opt/py/bin/python3")
    operations.install("openhands", ctx)
    state = f"{ctx.home}/.elydora/openhands"
    guard = {"type": "command", "command": f"'/opt/py/bin/python3' '-I' '-S' '{state}/guard.py'", "timeout": 10}
    audit = {"type": "command", "command": f"'/opt/py/bin/python3' '-I' '-S' '{state}/hook.py'", "timeout": 10}
    assert json.loads(_user(ctx).read_text()) == {
        "hooks": {
            "PreToolUse": [{"matcher": "*", "hooks": [guard]}],
            "PostToolUse": [{"matcher": "*", "hooks": [audit]}],
        }
    }


def test_windows_entries_are_an_encoded_powershell_command_for_cmd_exe(tmp_path: Path) -> None:
    ctx = make_context(tmp_path).with_options(python="C:\\Python\\python.exe", windows=True)
    handler = openhands.make_handler(Ref("openhands", "guard", "C:\\Python\\python.exe", 10), ctx)
    assert set(handler) == {"type", "command", "timeout"} and handler["timeout"] == 10
    head, encoded = handler["command"].rsplit(" ", 1)
    powershell = '"C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe"'
    assert head == f"{powershell} -NoLogo -NoProfile -NonInteractive -EncodedCommand"
    script = base64.b64decode(encoded).decode("utf-16-le")
    guard = f"{ctx.home}/.elydora/openhands/guard.py"
    assert script == f"& 'C:\\Python\\python.exe' '-I' '-S' '{guard}'; exit $LASTEXITCODE"


def test_a_user_hook_marked_async_is_kept_and_ours_never_are(tmp_path: Path) -> None:
    ctx = make_context(tmp_path)
    mine = {"matcher": "*", "hooks": [{"command": "notify-send tool", "async": True}]}
    _write(_user(ctx), {"hooks": {"PreToolUse": [mine]}})
    operations.install("openhands", ctx)
    groups = json.loads(_user(ctx).read_text())["hooks"]["PreToolUse"]
    assert groups[0] == mine
    assert all("async" not in handler for group in groups[1:] for handler in group["hooks"])


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"pre_tool_use": []}, "keeps its events at the top level ('pre_tool_use')"),
        ({"hooks": {"BeforeTool": []}}, "hooks.BeforeTool is not an event this agent knows"),
        ({"hooks": {"PreToolUse": [], "pre_tool_use": []}}, "hooks has both PreToolUse and pre_tool_use"),
        ({"hooks": {"post_tool_use": []}}, "hooks spells PostToolUse as post_tool_use"),
        ({"hooks": {"Stop": [{"hooks": [{"command": "x", "timeout": 1.5}]}]}}, "timeout must be a non-negative"),
        ({"hooks": {"Stop": [{"hooks": [{"type": "http", "url": "x"}]}]}}, "type must be one of"),
        ({"hooks": {"Stop": [{"hooks": [{"command": "x", "async": "yes"}]}]}}, "async must be true or false"),
        ({"hooks": {"Stop": [{"hooks": [{"type": "command"}]}]}}, "missing the required key 'command'"),
    ],
)
def test_what_openhands_rejects_is_refused_untouched(tmp_path: Path, value: object, message: str) -> None:
    ctx = make_context(tmp_path)
    _write(_user(ctx), value)
    before = files_under(ctx.home, ctx.repo_root)
    with pytest.raises(MalformedConfigError) as caught:
        operations.install("openhands", ctx)
    assert message in str(caught.value)
    assert files_under(ctx.home, ctx.repo_root) == before


def test_snake_case_events_of_the_user_are_kept(tmp_path: Path) -> None:
    ctx = make_context(tmp_path)
    before = _write(_user(ctx), {"hooks": {"session_start": [{"hooks": [{"command": "echo hi"}]}]}})
    operations.install("openhands", ctx)
    assert json.loads(_user(ctx).read_text())["hooks"]["session_start"] == [{"hooks": [{"command": "echo hi"}]}]
    operations.uninstall("openhands", ctx)
    assert _user(ctx).read_bytes() == before


def test_a_project_hooks_file_makes_status_unhealthy_and_guards_the_transaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OpenHands CLI 1.16.0 reads the project's hooks.json instead of the user file (docs/e2e.md)."""
    ctx = make_context(tmp_path)
    project = ctx.repo_root / ".openhands" / "hooks.json"
    _write(project, {"hooks": {"Stop": []}})
    operations.install("openhands", ctx)
    status = operations.status("openhands", ctx)
    assert not status.healthy
    assert [(f.severity, f.path) for f in status.findings] == [("error", project)]
    assert "reads instead of the user file: our hooks do not run here" in status.findings[0].message
    operations.uninstall("openhands", ctx)
    change_before_commit(monkeypatch, project, b'{"hooks": {}}\n')
    with pytest.raises(ConcurrentModificationError):
        operations.install("openhands", ctx)
    assert not _user(ctx).exists()


def test_the_project_file_follows_openhands_work_dir(tmp_path: Path) -> None:
    """The CLI looks for the project file in ``$OPENHANDS_WORK_DIR`` when set, not in the current directory."""
    elsewhere = tmp_path / "elsewhere"
    ctx = make_context(tmp_path, env={"OPENHANDS_WORK_DIR": str(elsewhere)}).with_options(rooted=False)
    _write(ctx.repo_root / ".openhands" / "hooks.json", {"hooks": {}})  # not the CLI's project any more
    operations.install("openhands", ctx)
    assert operations.status("openhands", ctx).healthy
    _write(elsewhere / ".openhands" / "hooks.json", {"hooks": {}})
    status = operations.status("openhands", ctx)
    assert [(f.severity, f.path) for f in status.findings] == [("error", elsewhere / ".openhands" / "hooks.json")]


def test_a_concurrent_writer_of_the_user_file_aborts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = make_context(tmp_path)
    _write(_user(ctx), {"hooks": {}})
    change_before_commit(monkeypatch, _user(ctx), b'{"hooks": {"Stop": []}}\n')
    with pytest.raises(ConcurrentModificationError):
        operations.install("openhands", ctx)
    assert _user(ctx).read_bytes() == b'{"hooks": {"Stop": []}}\n'
    assert not (ctx.elydora_dir / "openhands").exists()


def test_the_cli_prints_one_error_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ctx = make_context(tmp_path)
    _write(_user(ctx), {"hooks": {"Stop": [], "stop": []}})
    code = main(["install", "openhands", "--root", str(ctx.home), "--repo-root", str(ctx.repo_root)])
    err = capsys.readouterr().err.splitlines()
    assert code == 1
    assert err == [f"Error: {_user(ctx)}: hooks has both Stop and stop; OpenHands rejects the file"]


@settings(max_examples=500)
@given(st.text(alphabet=st.sampled_from(list("PreToolUsesZ_éÉ1")), max_size=10))
def test_snake_spells_as_the_pattern_did(name: str) -> None:
    """OpenHands' rule, pinned against the substitution it replaced (an underscore before every ASCII capital
    but the first character)."""
    assert snake(name) == re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()
    assert snake("PreToolUse") == "pre_tool_use"
