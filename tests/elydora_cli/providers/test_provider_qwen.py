"""Qwen Code: handler shapes, home resolution through QWEN_HOME and .env files, disableAllHooks, folder trust."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from elydora_testkit.provider_cases import change_before_commit, expect_switch, files_under, make_context, parse_any

from elydora_cli.installer import operations
from elydora_cli.plug import jsregex
from elydora_cli.plug.common import RefusedError
from elydora_cli.plug.context import Context
from elydora_cli.plug.ownership import Ref
from elydora_cli.providers import qwen
from elydora_config.errors import ConcurrentModificationError, MalformedConfigError

USER = ".qwen/settings.json"
SYSTEM, DEFAULTS = "etc/qwen-code/settings.json", "etc/qwen-code/system-defaults.json"  # below the root
WORKSPACE = "work/.qwen/settings.json"  # relative to the test folder: the working directory is <tmp>/work


def handler(ctx: Context, name: str, script: str) -> dict[str, Any]:
    command = f"'{ctx.python}' '-I' '-S' '{ctx.elydora_dir}/qwen/{script}'"
    return {"type": "command", "name": name, "command": command, "shell": "bash", "timeout": 10000}


def ours(ctx: Context) -> dict[str, Any]:
    audit = handler(ctx, "elydora-audit", "hook.py")
    return {
        "PreToolUse": [{"hooks": [handler(ctx, "elydora-guard", "guard.py")]}],
        "PostToolUse": [{"hooks": [audit]}],
        "PostToolUseFailure": [{"hooks": [audit]}],
    }


def write(base: Path, name: str, value: Any) -> Path:
    path = base / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value if isinstance(value, str) else json.dumps(value, indent=2) + "\n", encoding="utf-8")
    return path


def read(path: Path) -> Any:
    return parse_any(path.read_text(encoding="utf-8"), path.suffix)


@pytest.fixture
def ctx(tmp_path: Path) -> Context:
    return make_context(tmp_path)


# -- what we write ---------------------------------------------------------------------------------------------


def test_fresh_install_writes_named_bash_handlers_in_milliseconds(ctx):
    operations.install("qwen", ctx)
    path = ctx.home / USER
    assert path.read_text().startswith("// Managed by Elydora\n")
    assert read(path) == {"hooks": ours(ctx)}
    operations.uninstall("qwen", ctx)
    assert not path.exists()


def test_windows_handler_runs_in_powershell(ctx):
    windows = ctx.with_options(windows=True, python="C:\\Py\\python.exe")
    made = qwen.make_handler(Ref("qwen", "audit", "C:\\Py\\python.exe", 10000), windows)
    command = f"& 'C:\\Py\\python.exe' '-I' '-S' '{ctx.elydora_dir}/qwen/hook.py'; exit $LASTEXITCODE"
    assert made == {
        "type": "command",
        "name": "elydora-audit",
        "command": command,
        "shell": "powershell",
        "timeout": 10000,
    }


def test_reference_entries_are_migrated(ctx):
    reference = f"'{ctx.python}' '{ctx.elydora_dir}/qwen/guard.py'"
    named = {"type": "command", "name": "elydora-guard", "command": reference, "shell": "bash", "timeout": 10000}
    unnamed = {"type": "command", "command": reference, "shell": "bash", "timeout": 10000}
    user = {"matcher": "read_file", "hooks": [{"type": "command", "command": "user-hook"}]}
    before = {"hooks": {"PreToolUse": [user, {"hooks": [named]}, {"matcher": "*", "hooks": [unnamed]}]}}
    write(ctx.home, USER, before)
    operations.install("qwen", ctx)
    assert read(ctx.home / USER) == {"hooks": {**ours(ctx), "PreToolUse": [user, *ours(ctx)["PreToolUse"]]}}


def test_look_alikes_stay(ctx):
    reference = f"'{ctx.python}' '{ctx.elydora_dir}/qwen/guard.py'"
    look_alikes = [
        {"type": "command", "name": "elydora-guard", "command": reference, "shell": "bash", "timeout": 5000},
        {"type": "command", "name": "mine", "command": reference, "shell": "bash", "timeout": 10000},
        {**handler(ctx, "elydora-guard", "guard.py"), "async": True},
    ]
    before = {"hooks": {"PreToolUse": [{"hooks": look_alikes}]}}
    write(ctx.home, USER, before)
    operations.install("qwen", ctx)
    operations.uninstall("qwen", ctx)
    assert read(ctx.home / USER) == before


# -- the Qwen home ---------------------------------------------------------------------------------------------

Q, OS = ".qwen/.env", ".env"  # the default home's and the OS home's .env files


@pytest.mark.parametrize(
    ("env", "files", "home", "consulted"),
    [
        ({}, {}, ".qwen", [Q, OS]),
        ({"QWEN_HOME": "/alt"}, {}, "alt", ["alt/.env"]),  # the OS home's .env is not read
        ({"QWEN_HOME": "/alt", "QWEN_RUNTIME_DIR": "/rt"}, {OS: "QWEN_HOME=/b\n"}, "alt", []),  # no file read
        ({"QWEN_HOME": "/alt", "QWEN_RUNTIME_DIR": ""}, {"alt/.env": "QWEN_HOME=/z\n"}, "alt", ["alt/.env"]),
        ({"QWEN_HOME": ""}, {OS: "QWEN_HOME=/b\n"}, ".qwen", [Q, OS]),  # the environment owns it, even empty
        ({}, {Q: "QWEN_HOME=/q\n"}, "q", [Q, OS, "q/.env"]),  # a home found in a file: its .env is read too
        ({}, {OS: "export QWEN_HOME='~/from-os-home' # c\n"}, "from-os-home", [Q, OS, "from-os-home/.env"]),
        ({}, {Q: "QWEN_HOME=\n", OS: "QWEN_HOME: /b\n"}, "b", [Q, OS, "b/.env"]),  # an empty value does not count
        ({}, {Q: "QWEN_HOME=/a\n", OS: "QWEN_HOME=/b\n"}, "a", [Q, OS, "a/.env"]),  # the first file wins
        ({}, {Q: "QWEN_HOME=/a\n", "a/.env": "QWEN_HOME=/c\n"}, "a", [Q, OS, "a/.env"]),  # no second redirect
        ({"QWEN_RUNTIME_DIR": "/rt"}, {OS: "QWEN_HOME=/b\n"}, "b", [Q, OS, "b/.env"]),
        ({}, {Q: 'QWEN_HOME="~"\n'}, "", [Q, OS]),
        ({}, {Q: "# QWEN_HOME=/commented\n"}, ".qwen", [Q, OS]),
    ],
)
def test_home_resolution(ctx, env, files, home, consulted):
    ctx = ctx.with_options(env=env)
    for name, text in files.items():
        write(ctx.home, name, text)
    found = qwen.resolve_home(ctx, qwen._disk(ctx))
    assert found.path == ctx.home / home if home else found.path == ctx.home
    assert list(found.env_files) == [ctx.home / name for name in consulted]
    assert qwen.sources(ctx).targets[0].path == found.path / "settings.json"
    assert set(found.env_files) <= set(qwen.sources(ctx).depends)


def test_relative_home_resolves_against_the_working_directory(ctx):
    ctx = ctx.with_options(env={"QWEN_HOME": "rel/home", "QWEN_RUNTIME_DIR": "x"})
    assert qwen.sources(ctx).targets[0].path == ctx.repo_root / "rel" / "home" / "settings.json"


def test_install_writes_into_the_home_a_dotenv_names(ctx):
    write(ctx.home, OS, 'QWEN_HOME="/srv/qwen"\n')
    operations.install("qwen", ctx)
    assert read(ctx.home / "srv/qwen/settings.json") == {"hooks": ours(ctx)}
    assert not (ctx.home / USER).exists()


def test_a_dotenv_read_twice_differently_aborts(ctx, monkeypatch):
    stale = {ctx.home / OS: "QWEN_HOME=/stale\n"}
    monkeypatch.setattr(qwen, "_disk", lambda ctx: stale.get)
    with pytest.raises(ConcurrentModificationError, match="Qwen Code home"):
        operations.install("qwen", ctx)
    assert not (ctx.home / "stale").exists() and not (ctx.home / USER).exists()


# -- disableAllHooks ---------------------------------------------------------------------------------------------


def off(value: bool) -> dict[str, bool]:
    return {"disableAllHooks": value}


def place(ctx: Context, files: dict[str, Any]) -> None:
    """User, system and system-defaults files live below the root; the workspace file below the test folder."""
    for name, value in files.items():
        write(ctx.home.parent if name.startswith("work/") else ctx.home, name, value)


def where(ctx: Context, name: str) -> str:
    return str((ctx.home.parent if name.startswith("work/") else ctx.home) / name)


@pytest.mark.parametrize(
    ("files", "decided_by"),
    [
        ({}, None),
        ({USER: off(True)}, USER),
        ({DEFAULTS: off(True), USER: off(False)}, None),  # the last explicit value wins
        ({DEFAULTS: off(False), USER: off(True)}, USER),
        ({DEFAULTS: off(True)}, DEFAULTS),
        ({USER: off(False), WORKSPACE: off(True)}, WORKSPACE),
        ({WORKSPACE: off(True), SYSTEM: off(False)}, None),  # system settings override everything
        ({USER: off(False), SYSTEM: off(True)}, SYSTEM),
        ({WORKSPACE: off(False), USER: off(True)}, None),
    ],
)
def test_disable_all_hooks_precedence(ctx, files, decided_by):
    place(ctx, files)
    expect_switch("qwen", ctx, decided_by and where(ctx, decided_by), ctx.home.parent)


def test_the_workspace_is_not_consulted_in_the_home_directory(ctx):
    ctx = ctx.with_options(repo_root=ctx.home, env={"QWEN_HOME": "/q", "QWEN_RUNTIME_DIR": "/r"})
    write(ctx.home, USER, off(True))  # <home>/.qwen/settings.json would be the workspace file here
    assert ctx.home / USER not in qwen.sources(ctx).depends
    operations.install("qwen", ctx)
    assert read(ctx.home / "q/settings.json") == {"hooks": ours(ctx)}


def test_system_paths_from_the_environment(ctx):
    env = {"QWEN_CODE_SYSTEM_SETTINGS_PATH": "/opt/qs.json"}
    write(ctx.home, "opt/system-defaults.json", off(True))  # system defaults sit beside the system settings
    with pytest.raises(RefusedError) as caught:
        operations.install("qwen", ctx.with_options(env=env))
    assert caught.value.path == str(ctx.home / "opt/system-defaults.json")
    env["QWEN_CODE_SYSTEM_DEFAULTS_PATH"] = "/opt/elsewhere.json"
    operations.install("qwen", ctx.with_options(env=env))


def test_status_says_which_file_disables_hooks(ctx):
    operations.install("qwen", ctx)
    write(ctx.home, SYSTEM, off(True))
    status = operations.status("qwen", ctx)
    assert not status.healthy
    assert [f.render() for f in status.findings] == [
        f"{ctx.home / SYSTEM}: Qwen Code runs none of our hooks: disableAllHooks is true here; remove it (or set it "
        "to false)"
    ]


# -- folder trust ----------------------------------------------------------------------------------------------

TRUST = ".qwen/trustedFolders.json"
TRUST_ON = {"security": {"folderTrust": {"enabled": True}}}


@pytest.mark.parametrize(
    ("settings", "rules", "trusted"),
    [
        ({}, {"{cwd}": "DO_NOT_TRUST"}, True),  # folder trust is off by default
        ({USER: TRUST_ON}, None, True),  # no trusted-folders file
        ({USER: TRUST_ON}, {"{cwd}": "DO_NOT_TRUST"}, False),
        ({USER: TRUST_ON}, {"{tmp}": "DO_NOT_TRUST"}, True),  # only the exact folder is untrusted
        ({USER: TRUST_ON}, {"{tmp}": "TRUST_FOLDER", "{cwd}": "DO_NOT_TRUST"}, True),  # trust rules come first
        ({USER: TRUST_ON}, {"{tmp}/other": "TRUST_PARENT", "{cwd}": "DO_NOT_TRUST"}, True),  # the parent is trusted
        ({USER: TRUST_ON}, {"{cwd}x": "TRUST_FOLDER", "{cwd}": "DO_NOT_TRUST"}, False),  # a name prefix is not a parent
        ({USER: TRUST_ON}, {"{cwd}/deeper": "TRUST_FOLDER", "{cwd}": "DO_NOT_TRUST"}, False),
        ({SYSTEM: TRUST_ON}, {"{cwd}": "DO_NOT_TRUST"}, False),
        ({SYSTEM: TRUST_ON, USER: {"security": {"folderTrust": {"enabled": False}}}}, {"{cwd}": "DO_NOT_TRUST"}, True),
    ],
)
def test_folder_trust_decides_whether_the_workspace_counts(ctx, settings, rules, trusted):
    place(ctx, {**settings, WORKSPACE: off(True)})
    if rules is not None:
        cwd, tmp = str(ctx.repo_root), str(ctx.home.parent)
        write(ctx.home, TRUST, {k.format(cwd=cwd, tmp=tmp): v for k, v in rules.items()})
    if trusted:
        with pytest.raises(RefusedError, match=re.escape(f"disableAllHooks is true in {where(ctx, WORKSPACE)}")):
            operations.install("qwen", ctx)
    else:
        operations.install("qwen", ctx)


def test_unknown_trust_levels_are_an_error(ctx):
    place(ctx, {USER: TRUST_ON})
    write(ctx.home, TRUST, {str(ctx.repo_root): "TRUST_ME"})
    with pytest.raises(MalformedConfigError, match="has trust level 'TRUST_ME'"):
        operations.install("qwen", ctx)


def test_the_trust_file_is_parsed_only_when_folder_trust_is_on(ctx):
    write(ctx.home, TRUST, "not json")
    operations.install("qwen", ctx)
    place(ctx, {SYSTEM: TRUST_ON})
    with pytest.raises(MalformedConfigError):
        operations.install("qwen", ctx)


# -- validation --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"hooks": {},}', "trailing comma"),
        ({"disableAllHooks": "yes"}, "disableAllHooks must be true or false"),
        ({"hooks": {"PreToolUse": [{"hooks": [{"type": "agent", "prompt": "p"}]}]}}, "type must be one of"),
        ({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "c", "shell": "zsh"}]}]}}, "shell must be"),
        ({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "c", "timeout": -1}]}]}}, "non-negative"),
        ({"hooks": {"Stop": [{"hooks": [{"type": "http"}]}]}}, "missing the required key 'url'"),
        ({"hooks": {"Stop": [{"sequential": "yes", "hooks": []}]}}, "sequential must be true or false"),
        ({"hooks": {"PreToolUse": [{"matcher": "(", "hooks": []}]}}, "not a valid JavaScript regular expression"),
    ],
)
def test_malformed_settings_abort_with_every_file_unchanged(ctx, text, message):
    write(ctx.home, USER, text)
    before = files_under(ctx.home)
    with pytest.raises(MalformedConfigError, match=re.escape(message)):
        operations.install("qwen", ctx)
    assert files_under(ctx.home) == before


def test_matchers_are_checked_on_matcher_events_of_every_settings_file(ctx, monkeypatch):
    write(ctx.home, USER, {"hooks": {"Stop": [{"matcher": "(", "hooks": []}]}})  # Stop has no matcher to compile
    write(ctx.home, SYSTEM, {"hooks": {"PreToolUse": [{"matcher": " ", "hooks": []}, {"matcher": "*", "hooks": []}]}})
    monkeypatch.setattr(jsregex, "which", lambda name: None)  # no pattern needs Node here
    operations.install("qwen", ctx)
    monkeypatch.undo()
    write(ctx.home, SYSTEM, {"hooks": {"SessionStart": [{"matcher": "[", "hooks": []}]}})
    with pytest.raises(MalformedConfigError, match=re.escape("hooks.SessionStart[0].matcher is not a valid")) as e:
        operations.install("qwen", ctx)
    assert e.value.path == str(ctx.home / SYSTEM)


# -- read-only sources are preconditions -------------------------------------------------------------------------


@pytest.mark.parametrize("source", [OS, Q, SYSTEM, DEFAULTS, TRUST, "workspace"])
def test_a_consulted_file_changing_before_commit_aborts(ctx, monkeypatch, source):
    path = ctx.repo_root / ".qwen/settings.json" if source == "workspace" else ctx.home / source
    write(path.parent, path.name, "# nothing\n" if path.name == ".env" else "{}\n")
    before = files_under(ctx.home.parent)
    changed = b"QWEN_HOME=/elsewhere\n" if path.name == ".env" else b'{"disableAllHooks": true}\n'
    change_before_commit(monkeypatch, path, changed)
    # the run starts over from its reads (installer/rewrites.py): a settings layer that now switches hooks off is
    # refused; a change that goes on at each commit (the same bytes written again) ends as a conflict
    expected = RefusedError if source in (SYSTEM, DEFAULTS, "workspace") else ConcurrentModificationError
    with pytest.raises(expected):
        operations.install("qwen", ctx)
    assert files_under(ctx.home.parent) == {**before, str(path): changed}


def test_agent_runs_handlers_in_their_shell(tmp_path):
    ctx = Context(home=tmp_path, state_root=tmp_path, repo_root=tmp_path)
    assert qwen.agent_argv({"command": "c", "shell": "bash"}, ctx) == ["bash", "-c", "c"]
    powershell = ["powershell", "-NoProfile", "-Command", "c"]
    assert qwen.agent_argv({"command": "c", "shell": "powershell"}, ctx) == powershell


def test_matcher_events():
    assert {
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "PermissionRequest",
        "PermissionDenied",
        "SubagentStart",
        "SubagentStop",
        "PreCompact",
        "PostCompact",
        "SessionStart",
        "SessionEnd",
        "StopFailure",
        "Notification",
        "InstructionsLoaded",
        "UserPromptExpansion",
    } == qwen.MATCHER_EVENTS
