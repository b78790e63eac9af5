"""Factory Droid: handler shapes, the active user source, hooksDisabled precedence, validation, preconditions."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from elydora_testkit.provider_cases import (
    CONFIGS,
    change_before_commit,
    expect_switch,
    files_under,
    make_context,
    parse_any,
)

from elydora_cli.installer import operations
from elydora_cli.plug import jsregex
from elydora_cli.plug.context import Context
from elydora_cli.plug.ownership import Ref
from elydora_cli.providers import droid
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


def test_settings_keeps_an_event_the_hooks_file_does_not_define(ctx):
    write(ctx, HOOKS_JSON, (CONFIGS / "droid-before.jsonc").read_text())  # PreToolUse only in the ignored wrapper
    settings = (CONFIGS / "droid-inactive-settings-after.jsonc").read_bytes()  # the user's PostToolUse group
    (ctx.home / SETTINGS).write_bytes(settings)
    operations.install("droid", ctx)
    user = parse_any(settings.decode(), ".jsonc")
    assert read(ctx, SETTINGS)["hooks"]["PostToolUse"] == [*user["hooks"]["PostToolUse"], *ours(ctx)["PostToolUse"]]
    assert "PostToolUse" not in read(ctx, HOOKS_JSON)  # there it would keep Droid from running the user's group
    assert read(ctx, HOOKS_JSON)["PreToolUse"] == ours(ctx)["PreToolUse"]
    assert operations.status("droid", ctx).healthy
    operations.uninstall("droid", ctx)
    assert (ctx.home / SETTINGS).read_bytes() == settings


# -- per event: Droid runs an event from the hooks file when it defines it, else from settings.json --------------


def droid_runs(ctx: Context) -> dict[str, Any]:
    """The groups Droid 0.225 runs per event: the hooks file's, else settings.json's (never both)."""
    hooks_file = next((v for n in (HOOKS_JSON, NESTED) if (v := read(ctx, n)) is not None), {})
    settings = (read(ctx, SETTINGS) or {}).get("hooks", {})
    return {e: hooks_file[e] if e in hooks_file else settings[e] for e in {*hooks_file, *settings} if "Use" in e}


USER_PRE = {"matcher": "Execute", "hooks": [{"type": "command", "command": "user-pre"}]}
USER_STOP = {"hooks": [{"type": "command", "command": "user-stop"}]}


@pytest.mark.parametrize("post_in", [None, HOOKS_JSON, SETTINGS])
def test_each_event_goes_where_droid_runs_it(ctx, post_in):
    user_post = {"matcher": "Edit", "hooks": [{"type": "command", "command": "user-post"}]}
    hooks_file: dict[str, Any] = {"Stop": [USER_STOP]}
    settings: dict[str, Any] = {"theme": "dark", "hooks": {"PreToolUse": [USER_PRE]}}
    if post_in is not None:
        (hooks_file if post_in == HOOKS_JSON else settings["hooks"])["PostToolUse"] = [user_post]
    paths = [write(ctx, HOOKS_JSON, hooks_file), write(ctx, SETTINGS, settings)]
    before = {path: path.read_bytes() for path in paths}
    operations.install("droid", ctx)
    assert read(ctx, SETTINGS)["hooks"]["PreToolUse"] == [USER_PRE, *ours(ctx)["PreToolUse"]]
    assert "PreToolUse" not in read(ctx, HOOKS_JSON)
    post = read(ctx, SETTINGS if post_in == SETTINGS else HOOKS_JSON)  # the rule: else the active hooks.json
    post_map = post["hooks"] if post_in == SETTINGS else post
    assert post_map["PostToolUse"] == [*([user_post] if post_in else []), *ours(ctx)["PostToolUse"]]
    runs = droid_runs(ctx)
    assert runs["PreToolUse"] == [USER_PRE, *ours(ctx)["PreToolUse"]]  # the user's group still runs, and ours
    assert runs["PostToolUse"] == post_map["PostToolUse"]
    status = operations.status("droid", ctx)
    assert status.healthy and not status.findings, status.findings
    installed = {path: path.read_bytes() for path in paths}
    operations.install("droid", ctx)
    assert {path: path.read_bytes() for path in paths} == installed  # install twice = once
    operations.uninstall("droid", ctx)
    assert {path: path.read_bytes() for path in paths} == before
    assert not (ctx.home / NESTED).exists() and not (ctx.home / LOCAL).exists()


def test_status_reports_our_group_shadowing_the_users(ctx):
    write(ctx, HOOKS_JSON, ours(ctx))  # where an install before the per-event rule put our groups
    settings = write(ctx, SETTINGS, {"hooks": {"PreToolUse": [USER_PRE]}})
    status = operations.status("droid", ctx)
    assert not status.healthy
    shadowed = f"the Elydora PreToolUse group here keeps Droid from running the PreToolUse groups of {settings}"
    expected = f"{ctx.home / HOOKS_JSON}: {shadowed}; run install to move it there"
    assert [f.render() for f in status.findings] == [expected]
    operations.install("droid", ctx)
    assert droid_runs(ctx)["PreToolUse"] == [USER_PRE, *ours(ctx)["PreToolUse"]]
    assert read(ctx, HOOKS_JSON) == {"PostToolUse": ours(ctx)["PostToolUse"]}
    assert operations.status("droid", ctx).healthy


def test_status_notes_our_entries_shadowed_by_the_hooks_file(ctx):
    write(ctx, HOOKS_JSON, {"PreToolUse": [USER_PRE]})
    write(ctx, SETTINGS, {"hooks": ours(ctx)})  # Droid runs hooks.json's PreToolUse, not these
    status = operations.status("droid", ctx)
    assert [f.render() for f in status.findings] == [
        f"{ctx.home / HOOKS_JSON}: no Elydora guard handler for PreToolUse (expected exactly one)",
        f"{ctx.home / SETTINGS}: holds Elydora entries Droid does not load from here (PreToolUse)",
    ]
    operations.install("droid", ctx)
    expected = {"PreToolUse": [USER_PRE, *ours(ctx)["PreToolUse"]], "PostToolUse": ours(ctx)["PostToolUse"]}
    assert read(ctx, HOOKS_JSON) == expected  # settings.json does not define PostToolUse: the active source
    assert read(ctx, SETTINGS) == {"hooks": {}}
    assert operations.status("droid", ctx).healthy


def test_our_entries_leave_sources_that_are_no_longer_active(ctx):
    write(ctx, SETTINGS, {"theme": "dark", "hooks": {}})
    operations.install("droid", ctx)
    assert read(ctx, SETTINGS)["hooks"] == ours(ctx)
    write(ctx, HOOKS_JSON, {})
    status = operations.status("droid", ctx)  # hooks.json defines neither event: Droid runs settings.json's
    assert status.healthy and not status.findings, status.findings
    write(ctx, HOOKS_JSON, {"PreToolUse": [USER_PRE]})
    status = operations.status("droid", ctx)
    assert not status.healthy
    notes = [f.render() for f in status.findings if f.severity == "note"]
    assert notes == [f"{ctx.home / SETTINGS}: holds Elydora entries Droid does not load from here (PreToolUse)"]
    write(ctx, HOOKS_JSON, {})
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
