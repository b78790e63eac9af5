"""Factory Droid: hooksDisabled and allowManagedHooksOnly precedence, validation, preconditions."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from elydora_testkit.droid import HOOKS_JSON, LOCAL, NESTED, SETTINGS, write
from elydora_testkit.provider_cases import (
    change_before_commit,
    expect_switch,
    files_under,
    make_context,
)

from elydora_cli.installer import operations
from elydora_cli.plug import jsregex
from elydora_cli.plug.common import RefusedError
from elydora_cli.plug.context import Context
from elydora_cli.providers import droid
from elydora_config.errors import MalformedConfigError


@pytest.fixture
def ctx(tmp_path: Path) -> Context:
    return make_context(tmp_path)


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
    assert status.switched_off
    assert [f.render() for f in status.findings if f.severity == "off"] == [
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
    monkeypatch.setattr(jsregex, "which", lambda name: None)
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
    # the run starts over from its reads (installer/rewrites.py): the layer now switches hooks off
    with pytest.raises(RefusedError, match="does not run user hooks"):
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
