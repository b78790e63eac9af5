"""Factory Droid: handler shapes, the active user source, hooksDisabled precedence, validation, preconditions."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from elydora_testkit.droid import HOOKS_JSON, LOCAL, NESTED, SETTINGS, USER_FILES, audit, guard, ours, read, write
from elydora_testkit.provider_cases import (
    files_under,
    make_context,
    parse_any,
)
from locations import CONFIGS

from elydora_cli.installer import operations
from elydora_cli.plug.context import Context
from elydora_cli.plug.ownership import Ref
from elydora_cli.providers import droid
from elydora_config.errors import MalformedConfigError


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
        "'{python}' '{dir}/droid/guard.py'",  # the Python SDK installer's POSIX form
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
