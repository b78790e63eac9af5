"""Factory Droid: handler shapes, the active user source, hooksDisabled precedence, validation, preconditions."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from provider_cases import CONFIGS, change_before_commit, expect_switch, files_under, make_context, parse_any

from elydora_cli.providers import droid, jsregex, operations
from elydora_cli.providers.context import Context
from elydora_cli.providers.ownership import Ref
from elydora_config.errors import ConcurrentModificationError, MalformedConfigError

HOOKS_JSON, NESTED = ".factory/hooks.json", ".factory/hooks/hooks.json"
LOCAL, SETTINGS = ".factory/settings.local.json", ".factory/settings.json"
USER_FILES = (HOOKS_JSON, NESTED, LOCAL, SETTINGS)


def guard(ctx: Context) -> dict[str, Any]:
    command = f"'{ctx.python}' '-I' '-S' '{ctx.elydora_dir}/droid/guard.py'"
    return {"type": "command", "command": command, "timeout": 10}


def audit(ctx: Context) -> dict[str, Any]:
    command = f"'{ctx.python}' '-I' '-S' '{ctx.elydora_dir}/droid/hook.py'"
    return {"type": "command", "command": command, "timeout": 10}


def ours(ctx: Context) -> dict[str, Any]:
    return {
        "PreToolUse": [{"matcher": "*", "hooks": [guard(ctx)]}],
        "PostToolUse": [{"matcher": "*", "hooks": [audit(ctx)]}],
    }


def write(ctx: Context, name: str, value: Any, *, root: Path | None = None) -> Path:
    path = (root or ctx.home) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value if isinstance(value, str) else json.dumps(value, indent=2) + "\n", encoding="utf-8")
    return path


def read(ctx: Context, name: str) -> Any:
    path = ctx.home / name
    return parse_any(path.read_text(encoding="utf-8"), path.suffix) if path.exists() else None


@pytest.fixture
def ctx(tmp_path: Path) -> Context:
    return make_context(tmp_path)


# -- what we write ---------------------------------------------------------------------------------------------


def test_fresh_install_writes_a_marked_bare_hooks_json_with_star_groups(ctx):
    operations.install("droid", ctx)
    text = (ctx.home / HOOKS_JSON).read_text()
    assert text.startswith("// Managed by Elydora\n{\n")
    assert read(ctx, HOOKS_JSON) == ours(ctx)  # a bare event map, as Droid reads hooks.json (no "hooks" key)
    assert all(not (ctx.home / name).exists() for name in USER_FILES[1:])


def test_windows_handler_uses_the_powershell_call_operator(ctx):
    windows = ctx.with_options(windows=True, python="C:\\Py\\python.exe")
    handler = droid.make_handler(Ref("droid", "guard", "C:\\Py\\python.exe", 10), windows)
    script = f"{ctx.elydora_dir}/droid/guard.py"
    expected = f"& 'C:\\Py\\python.exe' '-I' '-S' '{script}'; exit $LASTEXITCODE"
    assert handler == {"type": "command", "command": expected, "timeout": 10}


@pytest.mark.parametrize(
    "command",
    [
        "'{python}' '{dir}/droid/guard.py'",  # the reference installer's POSIX form
        '"{python}" "{dir}/droid/guard.py"',  # its older Windows form, written with double quotes
        "& '{python}' '{dir}/droid/guard.py'; exit $LASTEXITCODE",  # its PowerShell form
    ],
)
def test_reference_entries_are_migrated(ctx, command):
    old = {"type": "command", "command": command.format(python=ctx.python, dir=ctx.elydora_dir), "timeout": 10}
    write(ctx, HOOKS_JSON, {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [old]}]}})
    operations.install("droid", ctx)
    assert read(ctx, HOOKS_JSON) == ours(ctx)  # out of the wrapper Droid ignores, which is left empty and dropped


def test_look_alikes_stay(ctx):
    reference = f"'{ctx.python}' '{ctx.elydora_dir}/droid/guard.py'"
    look_alikes = [
        {**guard(ctx), "statusMessage": "mine"},  # an extra key
        {"type": "command", "command": reference, "timeout": 30},  # the reference form with another timeout
        {"type": "command", "command": reference + " '--verbose'", "timeout": 10},  # an extra argument
        {"type": "command", "command": f"'{ctx.python}' '/elsewhere/droid/guard.py'", "timeout": 10},
    ]
    user = {"hooks": {"PreToolUse": [{"matcher": "Read", "hooks": look_alikes}]}}
    write(ctx, HOOKS_JSON, user)
    operations.install("droid", ctx)
    assert read(ctx, HOOKS_JSON)["hooks"]["PreToolUse"][0] == user["hooks"]["PreToolUse"][0]
    operations.uninstall("droid", ctx)
    assert read(ctx, HOOKS_JSON) == user


def test_trailing_commas_are_accepted_and_kept(ctx):
    before = '{\n  "PreToolUse": [],\n  "showHookOutput": true,\n}\n'
    write(ctx, HOOKS_JSON, before)
    operations.install("droid", ctx)
    assert read(ctx, HOOKS_JSON) == {**ours(ctx), "showHookOutput": True}
    operations.uninstall("droid", ctx)
    assert (ctx.home / HOOKS_JSON).read_text() == before


# -- the "hooks" wrapper Droid ignores in hooks.json (docs/e2e.md, finding 1) -------------------------------------


def test_status_is_not_healthy_while_our_entries_sit_in_the_wrapper(ctx):
    operations.install("droid", ctx)
    write(ctx, HOOKS_JSON, "// Managed by Elydora\n" + json.dumps({"hooks": ours(ctx)}, indent=2) + "\n")
    status = operations.status("droid", ctx)
    assert not status.healthy
    errors = [f.render() for f in status.findings if f.severity == "error"]
    assert errors == [
        f"{ctx.home / HOOKS_JSON}: no Elydora guard handler for PreToolUse (expected exactly one)",
        f"{ctx.home / HOOKS_JSON}: no Elydora audit handler for PostToolUse (expected exactly one)",
    ]
    notes = [f.render() for f in status.findings if f.severity == "note"]
    moved = 'holds Elydora entries under "hooks", which Droid ignores here; run install to move them'
    assert notes == [f"{ctx.home / HOOKS_JSON}: {moved}"]


def test_an_older_wrapped_install_is_migrated_and_uninstalled(ctx, monkeypatch):
    with monkeypatch.context() as old:  # the installer before the fix: our groups under "hooks", recorded so
        old.setattr(droid, "BARE_HOOKS", droid.HOOKS)
        operations.install("droid", ctx)
    assert read(ctx, HOOKS_JSON) == {"hooks": ours(ctx)}
    operations.install("droid", ctx)
    assert (ctx.home / HOOKS_JSON).read_text().startswith("// Managed by Elydora\n")
    assert read(ctx, HOOKS_JSON) == ours(ctx)
    status = operations.status("droid", ctx)
    assert status.healthy and not status.findings, status.findings
    operations.uninstall("droid", ctx)
    assert not (ctx.home / HOOKS_JSON).exists()  # we created it, and nothing of the user's is left


def test_a_reference_wrapper_keeps_the_users_groups(ctx):
    reference = {"type": "command", "command": f"'{ctx.python}' '{ctx.elydora_dir}/droid/guard.py'", "timeout": 10}
    user = {"matcher": "Read", "hooks": [{"type": "command", "command": "root-user"}]}
    write(ctx, HOOKS_JSON, {"hooks": {"PreToolUse": [user, {"matcher": "*", "hooks": [reference]}]}})
    operations.install("droid", ctx)
    assert read(ctx, HOOKS_JSON) == {"hooks": {"PreToolUse": [user]}, **ours(ctx)}
    status = operations.status("droid", ctx)
    assert status.healthy
    ignored = 'Droid reads this file as a bare event map and ignores the hooks under its "hooks" key'
    assert [f.render() for f in status.findings] == [f"{ctx.home / HOOKS_JSON}: {ignored}"]
    operations.uninstall("droid", ctx)
    assert read(ctx, HOOKS_JSON) == {"hooks": {"PreToolUse": [user]}}


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"hooks": []}, "hooks must be an object"),
        ({"hooks": {"PreToolUse": {}}}, "hooks.PreToolUse must be an array"),
        ({"PreToolUse": {}}, "PreToolUse must be an array"),
        ({"PreToolUse": [{"matcher": 1, "hooks": []}]}, "PreToolUse[0].matcher must be a string"),
        ({"showHookOutput": "yes"}, "showHookOutput must be true or false"),
    ],
)
def test_a_malformed_hooks_json_aborts(ctx, value, message):
    write(ctx, HOOKS_JSON, value)
    before = files_under(ctx.home)
    with pytest.raises(MalformedConfigError, match=re.escape(message)):
        operations.install("droid", ctx)
    assert files_under(ctx.home) == before


# -- the active source --------------------------------------------------------------------------------------------

WITH_HOOKS = {"hooks": {}}
WITHOUT_HOOKS = {"theme": "dark"}


@pytest.mark.parametrize(
    ("present", "active"),
    [
        ({}, HOOKS_JSON),
        ({HOOKS_JSON: {}, SETTINGS: WITH_HOOKS}, HOOKS_JSON),
        ({HOOKS_JSON: {}, NESTED: {}}, HOOKS_JSON),
        ({NESTED: {}, LOCAL: WITH_HOOKS}, NESTED),
        ({LOCAL: WITH_HOOKS, SETTINGS: WITH_HOOKS}, SETTINGS),  # Droid never loads settings.local.json's hooks
        ({LOCAL: WITH_HOOKS}, HOOKS_JSON),
        ({LOCAL: WITHOUT_HOOKS, SETTINGS: WITH_HOOKS}, SETTINGS),
        ({LOCAL: WITHOUT_HOOKS, SETTINGS: WITHOUT_HOOKS}, HOOKS_JSON),
    ],
    ids=["nothing", "hooks.json", "hooks.json-over-nested", "nested", "settings-over-local", "local-only",
         "settings", "no-hooks-key"],
)
def test_active_source(ctx, present, active):
    for name, value in present.items():
        write(ctx, name, value)
    before = {name: (ctx.home / name).read_bytes() for name in present}
    operations.install("droid", ctx)
    value = read(ctx, active)
    hooks = value if active in (HOOKS_JSON, NESTED) else value["hooks"]
    assert hooks == ours(ctx)
    assert {n: (ctx.home / n).read_bytes() for n in present if n != active} == {
        n: b for n, b in before.items() if n != active
    }
    assert operations.status("droid", ctx).healthy


def test_our_entries_in_settings_local_are_moved_to_a_source_droid_loads(ctx):
    operations.install("droid", ctx)
    (ctx.home / HOOKS_JSON).unlink()
    write(ctx, LOCAL, {"theme": "dark", "hooks": ours(ctx)})  # where an older install could put them
    status = operations.status("droid", ctx)
    assert status.installed and not status.healthy
    assert any(f.severity == "note" and f.path == ctx.home / LOCAL for f in status.findings)
    operations.install("droid", ctx)
    assert read(ctx, LOCAL) == {"theme": "dark", "hooks": {}}
    assert read(ctx, HOOKS_JSON) == ours(ctx)
    assert operations.status("droid", ctx).healthy


def test_inactive_settings_source_is_left_byte_identical(ctx):
    write(ctx, HOOKS_JSON, (CONFIGS / "droid-before.jsonc").read_text())
    inactive = (CONFIGS / "droid-inactive-settings-after.jsonc").read_bytes()
    (ctx.home / SETTINGS).write_bytes(inactive)
    operations.install("droid", ctx)
    assert (ctx.home / SETTINGS).read_bytes() == inactive
    assert read(ctx, HOOKS_JSON)["PostToolUse"] == ours(ctx)["PostToolUse"]


def test_our_entries_leave_sources_that_are_no_longer_active(ctx):
    write(ctx, SETTINGS, {"theme": "dark", "hooks": {}})
    operations.install("droid", ctx)
    assert read(ctx, SETTINGS)["hooks"] == ours(ctx)
    write(ctx, HOOKS_JSON, {})
    status = operations.status("droid", ctx)
    assert not status.healthy
    notes = [f.render() for f in status.findings if f.severity == "note"]
    assert notes and "does not load" in notes[0] and SETTINGS in notes[0]
    operations.install("droid", ctx)
    assert read(ctx, SETTINGS) == {"theme": "dark", "hooks": {}}
    assert read(ctx, HOOKS_JSON) == ours(ctx)


def test_bare_legacy_map_with_switches(ctx):
    user = {"hooksDisabled": False, "showHookOutput": True, "Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}
    write(ctx, NESTED, user)
    operations.install("droid", ctx)
    assert read(ctx, NESTED) == {**user, **ours(ctx)}
    operations.uninstall("droid", ctx)
    assert read(ctx, NESTED) == user


def test_a_wrapped_legacy_file_gets_our_groups_at_its_root(ctx):
    write(ctx, NESTED, {"hooks": {"PreToolUse": []}})  # Droid 0.225.2 reads this file as a bare map too
    operations.install("droid", ctx)
    assert read(ctx, NESTED) == {"hooks": {"PreToolUse": []}, **ours(ctx)}


def test_uninstall_removes_only_our_handlers_from_a_user_group(ctx):
    operations.install("droid", ctx)
    mixed = {"matcher": "Read", "hooks": [{"type": "command", "command": "user"}, guard(ctx)]}
    value = read(ctx, HOOKS_JSON)
    value["PreToolUse"].insert(0, mixed)
    write(ctx, SETTINGS, {"hooks": {"PostToolUse": [{"matcher": "*", "hooks": [audit(ctx)]}]}})
    (ctx.home / HOOKS_JSON).write_text(json.dumps(value))
    operations.uninstall("droid", ctx)
    assert read(ctx, HOOKS_JSON) == {"PreToolUse": [{"matcher": "Read", "hooks": [mixed["hooks"][0]]}]}
    assert read(ctx, SETTINGS) == {"hooks": {}}


# -- hooksDisabled and allowManagedHooksOnly ----------------------------------------------------------------------

MANAGED = "etc/factory/settings.json"  # below the root (the test context is rooted at the home)
ROOT_LOCAL, ROOT_BASE = "work/.factory/settings.local.json", "work/.factory/settings.json"
SUB_LOCAL, SUB_BASE = "work/sub/.factory/settings.local.json", "work/sub/.factory/settings.json"
HOOKS_FILE = "hooks-file"  # hooksDisabled at the root of the active ~/.factory/hooks.json


def off(value: bool) -> dict[str, bool]:
    return {"hooksDisabled": value}


@pytest.mark.parametrize(
    ("files", "decided_by"),
    [
        ({}, None),
        ({SETTINGS: off(True)}, SETTINGS),
        ({SETTINGS: off(False)}, None),
        ({LOCAL: off(False), SETTINGS: off(True)}, None),  # user settings.local over settings
        ({LOCAL: off(True), SETTINGS: off(False)}, LOCAL),
        ({HOOKS_FILE: off(True)}, HOOKS_JSON),
        ({HOOKS_FILE: off(False), SETTINGS: off(True)}, SETTINGS),
        ({SETTINGS: off(False), HOOKS_FILE: off(True)}, HOOKS_JSON),  # see docs: the hooks file's true still blocks
        ({ROOT_BASE: off(True)}, ROOT_BASE),
        ({ROOT_LOCAL: off(False), ROOT_BASE: off(True)}, None),  # project local over base
        ({ROOT_BASE: off(False), SETTINGS: off(True)}, None),  # a project false wins over every user file
        ({ROOT_BASE: off(False), HOOKS_FILE: off(True)}, None),
        ({SUB_BASE: off(True)}, SUB_BASE),  # each deeper folder down to the working directory
        ({SUB_LOCAL: off(True), SUB_BASE: off(False)}, SUB_LOCAL),
        ({ROOT_BASE: off(False), SUB_BASE: off(True)}, None),  # the git root comes first
        ({MANAGED: off(True)}, MANAGED),
        ({MANAGED: off(False), ROOT_BASE: off(True), SETTINGS: off(True)}, None),  # system-managed first
        ({MANAGED: {"allowManagedHooksOnly": True, "hooksDisabled": False}}, MANAGED),
        ({MANAGED: {"allowManagedHooksOnly": False}, SETTINGS: off(True)}, SETTINGS),
    ],
)
def test_hooks_disabled_precedence(tmp_path, files, decided_by):
    ctx = make_context(tmp_path).with_options(repo_root=tmp_path / "work" / "sub")
    (tmp_path / "work" / ".git").mkdir(parents=True)
    (tmp_path / "work" / "sub").mkdir()
    write(ctx, HOOKS_JSON, files.get(HOOKS_FILE, {}))
    for name, value in files.items():
        if name in (LOCAL, SETTINGS, MANAGED):
            write(ctx, name, value)
        elif name != HOOKS_FILE:
            write(ctx, name.removeprefix("work/"), value, root=tmp_path / "work")
    where = (
        None
        if decided_by is None
        else tmp_path / decided_by
        if decided_by.startswith("work/")
        else ctx.home / decided_by
    )
    expect_switch("droid", ctx, where, tmp_path)


def test_status_reports_the_switch_that_turns_hooks_off(ctx):
    operations.install("droid", ctx)
    write(ctx, LOCAL, off(True))
    status = operations.status("droid", ctx)
    assert not status.healthy
    assert [f.render() for f in status.findings if f.severity == "error"] == [
        f"{ctx.home / LOCAL}: Factory Droid does not run user hooks: hooksDisabled is true in {ctx.home / LOCAL}"
    ]


def test_a_switch_of_the_wrong_type_is_an_error(ctx):
    write(ctx, MANAGED, {"allowManagedHooksOnly": "yes"})
    with pytest.raises(MalformedConfigError, match="allowManagedHooksOnly must be true or false"):
        operations.install("droid", ctx)


# -- validation --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"hooks": []}, "hooks must be an object"),
        ({"hooks": {"PreToolUse": {}}}, "hooks.PreToolUse must be an array"),
        ({"hooks": {"PreToolUse": [{"matcher": 1, "hooks": []}]}}, "matcher must be a string"),
        ({"hooks": {"PreToolUse": [{"commandRegex": [], "hooks": []}]}}, "commandRegex must be a string"),
        (
            {"hooks": {"X": [{"hooks": [{"type": "http", "url": "u"}]}]}},
            "hooks.X[0].hooks[0].type must be one of 'command'",
        ),
        ({"hooks": {"X": [{"hooks": [{"type": "command", "command": " "}]}]}}, "must be a non-empty string"),
        ({"hooks": {"X": [{"hooks": [{"type": "command", "command": "c", "timeout": 0}]}]}}, "positive number"),
        ({"hooksDisabled": "no"}, "hooksDisabled must be true or false"),
        ('{"hooks": {}, "hooks": {}}', "duplicate"),
    ],
)
def test_malformed_sources_abort_with_every_file_unchanged(ctx, value, message):
    write(ctx, HOOKS_JSON, {})
    write(ctx, SETTINGS, value)  # not the active source: every user source is validated
    before = files_under(ctx.home)
    with pytest.raises(MalformedConfigError, match=re.escape(message)):
        operations.install("droid", ctx)
    assert files_under(ctx.home) == before


def test_bare_legacy_switches_are_typed(ctx):
    write(ctx, NESTED, {"showHookOutput": "yes"})
    with pytest.raises(MalformedConfigError, match="showHookOutput must be true or false"):
        operations.install("droid", ctx)


def test_patterns_compile_as_javascript_regexps(ctx):
    write(ctx, HOOKS_JSON, {"hooks": {"PreToolUse": [{"matcher": "Edit|(?<w>Write)", "hooks": []}]}})
    write(ctx, LOCAL, {"hooks": {"Stop": [{"commandRegex": "^git (push", "hooks": []}]}})
    with pytest.raises(MalformedConfigError, match=r"hooks\.Stop\[0\]\.commandRegex is not a valid JavaScript"):
        operations.install("droid", ctx)
    write(ctx, LOCAL, {"hooks": {"Stop": [{"commandRegex": "^git (push|pull)", "hooks": []}]}})
    operations.install("droid", ctx)


def test_node_is_needed_only_for_real_patterns(ctx, monkeypatch):
    monkeypatch.setattr(jsregex.shutil, "which", lambda name: None)
    write(ctx, HOOKS_JSON, {"hooks": {"PreToolUse": [{"matcher": "", "hooks": []}, {"matcher": "*", "hooks": []}]}})
    operations.install("droid", ctx)
    operations.install("droid", ctx)  # our own "*" groups need no Node either
    write(ctx, SETTINGS, {"hooks": {"PreToolUse": [{"matcher": "Edit", "hooks": []}]}})
    with pytest.raises(jsregex.NodeUnavailableError, match=r"Node\.js \(`node`\) is needed"):
        operations.install("droid", ctx)


# -- read-only sources are preconditions -------------------------------------------------------------------------


@pytest.mark.parametrize("source", [MANAGED, "project"])
def test_a_consulted_file_changing_before_commit_aborts(ctx, monkeypatch, source):
    path = ctx.home / MANAGED if source == MANAGED else ctx.repo_root / ".factory" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"theme": "light"}\n')
    write(ctx, SETTINGS, {"hooks": {}})
    before = files_under(ctx.home.parent)
    change_before_commit(monkeypatch, path, b'{"hooksDisabled": true}\n')
    with pytest.raises(ConcurrentModificationError):
        operations.install("droid", ctx)
    assert files_under(ctx.home.parent) == {**before, str(path): b'{"hooksDisabled": true}\n'}


def test_project_layers_from_the_git_root_down_to_the_working_directory(tmp_path):
    ctx = make_context(tmp_path).with_options(repo_root=tmp_path / "work" / "a" / "b")
    (tmp_path / "work" / "a" / "b").mkdir(parents=True)
    (tmp_path / "work" / ".git").write_text("gitdir: elsewhere\n")  # a worktree's .git is a file
    folders = ["work", "work/a", "work/a/b"]
    expected = [tmp_path / f / ".factory" / n for f in folders for n in ("settings.local.json", "settings.json")]
    assert droid.project_settings(ctx) == expected
    (tmp_path / "work" / ".git").unlink()
    assert droid.project_settings(ctx) == expected[-2:]  # no git root: the working directory alone
