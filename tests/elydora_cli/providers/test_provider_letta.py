"""Letta Code specifics: handler shape, HOME rules, hooks.disabled precedence, schema, legacy forms, status."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from elydora_testkit.provider_cases import make_context, payload, run_as_agent, shell_argv

from elydora_cli.installer import operations
from elydora_cli.plug.common import RefusedError
from elydora_cli.plug.context import Context
from elydora_cli.plug.ownership import Ref
from elydora_cli.providers import letta
from elydora_config.errors import MalformedConfigError

PY = sys.executable


def tree(root: Path) -> dict[str, bytes]:
    """Every file below ``root`` with its bytes (the state directory's lock file aside)."""
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and p.name != ".lock"
    }


def settings(ctx: Context) -> Path:
    return ctx.home / ".letta" / "settings.json"


def write(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value if isinstance(value, str) else json.dumps(value, indent=2) + "\n", encoding="utf-8")


def ours(home: Path, script: str, timeout: int = 10000) -> dict[str, Any]:
    command = f"'{PY}' '-I' '-S' '{home}/.elydora/letta/{script}'"
    return {"matcher": "*", "hooks": [{"type": "command", "command": command, "timeout": timeout}]}


@pytest.fixture
def ctx(tmp_path: Path) -> Context:
    return make_context(tmp_path)


def test_fresh_install_writes_exactly_these_groups_and_uninstall_deletes_the_file(ctx: Context) -> None:
    operations.install("letta", ctx)
    text = settings(ctx).read_text()
    assert json.loads(text) == {
        "hooks": {
            "PreToolUse": [ours(ctx.home, "guard.py")],
            "PostToolUse": [ours(ctx.home, "hook.py")],
        }
    }
    assert text.startswith('{\n  "hooks": {\n    "PreToolUse": [\n')
    operations.uninstall("letta", ctx)
    assert not settings(ctx).exists()


def test_timeout_is_in_milliseconds(ctx: Context) -> None:
    operations.install("letta", ctx.with_options(timeout_seconds=30))
    assert json.loads(settings(ctx).read_text())["hooks"]["PreToolUse"] == [ours(ctx.home, "guard.py", 30000)]


def test_windows_command_is_the_powershell_call_operator(ctx: Context) -> None:
    handler = letta.make_handler(Ref("letta", "guard", "C:\\Py\\python.exe", 10000), ctx.with_options(windows=True))
    assert handler == {
        "type": "command",
        "command": f"& 'C:\\Py\\python.exe' '-I' '-S' '{ctx.home}/.elydora/letta/guard.py'; exit $LASTEXITCODE",
        "timeout": 10000,
    }


def test_a_file_the_user_created_survives_uninstall_even_when_empty(ctx: Context) -> None:
    """The reference deletes any settings file whose root becomes {}; we delete only a file we created."""
    write(settings(ctx), "{}\n")
    operations.install("letta", ctx)
    operations.uninstall("letta", ctx)
    assert settings(ctx).read_text() == "{}\n"


def test_crlf_file_keeps_its_line_ends(ctx: Context) -> None:
    write(settings(ctx), '{\r\n  "theme": "dark"\r\n}\r\n')
    operations.install("letta", ctx)
    text = settings(ctx).read_bytes()
    assert text.startswith(b'{\r\n  "theme": "dark",\r\n') and b"\n" not in text.replace(b"\r\n", b"")
    operations.uninstall("letta", ctx)
    assert settings(ctx).read_bytes() == b'{\r\n  "theme": "dark"\r\n}\r\n'


# -- where the file is ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("home_env", "rooted", "expected"),
    [
        (None, False, "HOME_DIR"),
        ("", False, "HOME_DIR"),
        ("/elsewhere/me", False, "/elsewhere/me"),
        ("rel/home", False, "REPO/rel/home"),
        ("/elsewhere/me", True, "HOME_DIR"),  # --root stands for the home directory that HOME names
    ],
)
def test_home_rules(tmp_path: Path, home_env: str | None, rooted: bool, expected: str) -> None:
    env = {} if home_env is None else {"HOME": home_env}
    ctx = Context(home=tmp_path / "h", state_root=tmp_path / "h", repo_root=tmp_path / "r", env=env, rooted=rooted)
    want = Path(expected.replace("HOME_DIR", str(tmp_path / "h")).replace("REPO", str(tmp_path / "r")))
    assert letta.sources(ctx).targets[0].path == want / ".letta" / "settings.json"


def test_project_settings_are_consulted_only_outside_the_home(tmp_path: Path) -> None:
    ctx = make_context(tmp_path)
    project = ctx.repo_root / ".letta"
    assert letta.sources(ctx).depends == [project / "settings.json", project / "settings.local.json"]
    at_home = ctx.with_options(repo_root=ctx.home)
    assert letta.sources(at_home).depends == [ctx.home / ".letta" / "settings.local.json"]


# -- hooks.disabled precedence ----------------------------------------------------------------------------

G, P, L = "global", "project", "local"


@pytest.mark.parametrize(
    ("user", "project", "local", "disabled_by"),
    [
        (None, None, None, None),
        (False, None, None, None),
        (False, True, True, None),  # a user false wins over everything
        (True, None, None, G),
        (True, False, False, G),
        (None, True, None, P),
        (None, True, False, P),
        (None, None, True, L),
        (None, False, True, L),  # a project false does not re-enable what project-local disables
        (None, False, False, None),
    ],
)
def test_hooks_disabled_precedence(
    ctx: Context, user: bool | None, project: bool | None, local: bool | None, disabled_by: str | None
) -> None:
    files = {
        G: settings(ctx),
        P: ctx.repo_root / ".letta" / "settings.json",
        L: ctx.repo_root / ".letta" / "settings.local.json",
    }
    for name, value in ((G, user), (P, project), (L, local)):
        if value is not None:
            write(files[name], {"hooks": {"disabled": value}})
    before = tree(ctx.home.parent)
    refused_by = None
    try:
        operations.install("letta", ctx)
    except RefusedError as refused:
        assert "hooks.disabled is true" in refused.reason
        refused_by = refused.path
    assert refused_by == (str(files[disabled_by]) if disabled_by else None)
    assert (tree(ctx.home.parent) == before) is bool(disabled_by)  # a refusal writes nothing
    assert operations.status("letta", ctx).healthy is not bool(disabled_by)


def test_project_file_is_the_user_file_when_working_in_the_home(ctx: Context) -> None:
    home_ctx = ctx.with_options(repo_root=ctx.home)
    write(ctx.home / ".letta" / "settings.local.json", {"hooks": {"disabled": True}})
    with pytest.raises(RefusedError):
        operations.install("letta", home_ctx)
    write(settings(ctx), {"hooks": {"disabled": False}})
    operations.install("letta", home_ctx)


def test_status_reports_hooks_disabled_after_install(ctx: Context) -> None:
    operations.install("letta", ctx)
    write(ctx.repo_root / ".letta" / "settings.local.json", {"hooks": {"disabled": True}})
    status = operations.status("letta", ctx)
    assert not status.healthy
    assert status.switched_off
    assert [f.render() for f in status.findings] == [
        f"{ctx.repo_root}/.letta/settings.local.json: Letta Code runs none of our hooks: hooks.disabled is true "
        f"here; remove it (or set hooks.disabled to false in {ctx.home}/.letta/settings.json, which wins)"
    ]
    operations.uninstall("letta", ctx)  # uninstall is never refused
    assert not settings(ctx).exists()


def test_a_change_to_a_project_file_before_commit_aborts_with_every_file_unchanged(
    ctx: Context, monkeypatch: pytest.MonkeyPatch
) -> None:
    from elydora_config.transaction import Transaction

    local = ctx.repo_root / ".letta" / "settings.local.json"
    write(local, {"hooks": {"disabled": False}})
    write(settings(ctx), {"theme": "dark"})
    before = tree(ctx.home.parent)
    original = Transaction.commit

    def commit_after_a_change(self: Transaction) -> str | None:
        write(local, {"hooks": {"disabled": True}})
        return original(self)

    monkeypatch.setattr(Transaction, "commit", commit_after_a_change)
    # the run starts over from its reads (installer/rewrites.py): the layer now switches hooks off
    with pytest.raises(RefusedError, match="hooks are disabled"):
        operations.install("letta", ctx)
    after = tree(ctx.home.parent)
    changed = {name for name in set(before) | set(after) if before.get(name) != after.get(name)}
    assert changed == {str(local.relative_to(ctx.home.parent))}
    assert not (ctx.elydora_dir / "letta").exists()


# -- schema -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ('{"hooks": {"disabled": "yes"}}', "hooks.disabled must be true or false"),
        ('{"hooks": {"PreToolUse": [{"hooks": []}]}}', "hooks.PreToolUse[0] is missing the required key 'matcher'"),
        ('{"hooks": {"Stop": [{"matcher": "*", "hooks": []}]}}', "hooks.Stop[0].matcher must be absent"),
        ('{"hooks": {"PreToolUse": [{"matcher": 1, "hooks": []}]}}', "hooks.PreToolUse[0].matcher must be a string"),
        ('{"hooks": {"Stop": [{"hooks": [{"type": "http"}]}]}}', "hooks.Stop[0].hooks[0].type must be one of"),
        ('{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": " "}]}]}}', "command must be a non-empty"),
        ('{"hooks": {"Stop": [{"hooks": [{"type": "prompt", "prompt": "p", "model": 1}]}]}}', "model must be a"),
        ('{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": -1}]}]}}', "non-negative"),
        ('{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "quiet": 1}]}]}}', "quiet must be true"),
        ('{"hooks": {"Stop": [{"hooks": [{"type": "prompt"}]}]}}', "missing the required key 'prompt'"),
        ('{"hooks": {"FutureEvent": {}}}', "hooks.FutureEvent must be an array"),
        ('{"hooks": []}', "hooks must be an object"),
        ('{"theme": "dark",}', ""),
        ('{"a": 1, "a": 2}', ""),
        ("// comment\n{}", ""),
        ("[]", "top level must be a JSON object"),
    ],
)
def test_malformed_settings_are_refused_untouched(ctx: Context, content: str, reason: str) -> None:
    write(settings(ctx), content)
    with pytest.raises(MalformedConfigError) as error:
        operations.install("letta", ctx)
    assert reason in error.value.reason
    assert settings(ctx).read_text() == content
    assert not ctx.elydora_dir.exists()


def test_non_boolean_switch_in_a_project_file_names_that_file(ctx: Context) -> None:
    project = ctx.repo_root / ".letta" / "settings.json"
    write(project, {"hooks": {"disabled": 0}})
    with pytest.raises(MalformedConfigError) as error:
        operations.install("letta", ctx)
    assert error.value.path == str(project)
    assert not settings(ctx).exists()


def test_what_letta_accepts_is_kept(ctx: Context) -> None:
    user: dict[str, Any] = {
        "hooks": {
            "FutureEvent": [None, 3],
            "Stop": [{"hooks": [{"type": "prompt", "prompt": "p", "model": "m", "extra": [1]}]}],
            "PreToolUse": [{"matcher": "(", "hooks": [{"type": "command", "command": "x", "timeout": 0}], "x": 1}],
        }
    }
    write(settings(ctx), user)
    operations.install("letta", ctx)
    hooks = json.loads(settings(ctx).read_text())["hooks"]
    assert hooks["FutureEvent"] == user["hooks"]["FutureEvent"] and hooks["Stop"] == user["hooks"]["Stop"]
    assert hooks["PreToolUse"] == [user["hooks"]["PreToolUse"][0], ours(ctx.home, "guard.py")]


# -- ownership --------------------------------------------------------------------------------------------


def test_legacy_and_reference_entries_are_migrated_and_look_alikes_kept(ctx: Context) -> None:
    agent = f"{ctx.home}/.elydora/letta"
    look_alikes = [
        {"type": "command", "command": f"'{PY}' '-X' 'dev' '{agent}/guard.py'", "timeout": 10000},
        {"type": "command", "command": f"'{PY}' '/other/guard.py'", "timeout": 10000},
        {"type": "command", "command": f"'{PY}' '{agent}/guard.py'", "timeout": 10000, "quiet": True},
    ]
    write(
        settings(ctx),
        {
            "hooks": {
                "PreToolUse": [
                    {"matcher": "*", "hooks": [{"type": "command", "command": f'"{PY}" {agent}/guard.py'}]},
                    {"matcher": "Bash", "hooks": look_alikes},
                ],
                "PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": f"{agent}/hook.py"}]}],
                "PostToolUseFailure": [
                    {
                        "matcher": "*",
                        "hooks": [{"type": "command", "command": f"'{PY}' '{agent}/hook.py'", "timeout": 10000}],
                    }
                ],
            }
        },
    )
    operations.install("letta", ctx)
    # The reference installer's entry on PostToolUseFailure goes too: Letta also runs PostToolUse for failed
    # calls, so it recorded each of them twice (docs/e2e.md, finding 8).
    assert json.loads(settings(ctx).read_text())["hooks"] == {
        "PreToolUse": [{"matcher": "Bash", "hooks": look_alikes}, ours(ctx.home, "guard.py")],
        "PostToolUse": [ours(ctx.home, "hook.py")],
    }


def test_uninstall_removes_our_old_failure_event_entry(ctx: Context) -> None:
    """An earlier install's audit entry on PostToolUseFailure (docs/e2e.md, finding 8) is ours to remove."""
    user_group = {"matcher": "Bash", "hooks": [{"type": "command", "command": "notify-send failed"}]}
    write(settings(ctx), {"theme": "dark", "hooks": {
        "PreToolUse": [ours(ctx.home, "guard.py")],
        "PostToolUse": [ours(ctx.home, "hook.py")],
        "PostToolUseFailure": [user_group, ours(ctx.home, "hook.py")],
    }})
    operations.uninstall("letta", ctx)
    assert json.loads(settings(ctx).read_text()) == {"theme": "dark", "hooks": {"PostToolUseFailure": [user_group]}}


def test_uninstall_of_another_agent_id_leaves_ours(ctx: Context) -> None:
    operations.install("letta", ctx)
    before = settings(ctx).read_bytes()
    operations.uninstall("letta", ctx.with_options(agent_id="someone-else"))
    assert settings(ctx).read_bytes() == before


def test_status_names_each_missing_or_duplicated_entry(ctx: Context) -> None:
    operations.install("letta", ctx)
    value = json.loads(settings(ctx).read_text())
    value["hooks"]["PostToolUse"] = []
    value["hooks"]["PreToolUse"].append(ours(ctx.home, "guard.py"))
    write(settings(ctx), value)
    assert sorted(f.render() for f in operations.status("letta", ctx).findings) == [
        f"{settings(ctx)}: 2 Elydora guard handler for PreToolUse (expected exactly one)",
        f"{settings(ctx)}: no Elydora audit handler for PostToolUse (expected exactly one)",
    ]


def test_audit_is_fail_closed_and_guard_fail_open(ctx: Context) -> None:
    operations.install("letta", ctx)
    hooks = json.loads(settings(ctx).read_text())["hooks"]
    audit = run_as_agent(shell_argv(hooks["PostToolUse"][0]["hooks"][0]["command"]), b"not json")
    assert audit.returncode == 1 and audit.stderr.startswith(b"[Elydora audit] ") and audit.stdout == b""
    guard = run_as_agent(shell_argv(hooks["PreToolUse"][0]["hooks"][0]["command"]), b"not json")
    assert guard.returncode == 0 and guard.stderr.startswith(b"[Elydora guard] ")
    ok = run_as_agent(shell_argv(hooks["PostToolUse"][0]["hooks"][0]["command"]), payload("letta", "PostToolUse"))
    assert ok.returncode == 0, ok.stderr
