"""GitHub Copilot CLI: handler shape, paths, the disableAllHooks layers, schema refusals, legacy migration."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from elydora_testkit.provider_cases import change_before_commit, files_under, make_context, payload, run_as_agent

from elydora_cli.installer import operations
from elydora_cli.plug.common import RefusedError
from elydora_cli.plug.context import Context
from elydora_cli.plug.jsregex import NodeUnavailableError
from elydora_cli.providers import copilot
from elydora_config.errors import MalformedConfigError, UnsafePathError

PY = "/opt/py/bin/python3"


def _ctx(tmp_path: Path, env: dict[str, str] | None = None, python: str = sys.executable) -> Context:
    return make_context(tmp_path, env).with_options(python=python)


def _file(ctx: Context) -> Path:
    return ctx.home / ".copilot" / "hooks" / "elydora-audit.json"


def _legacy(ctx: Context) -> Path:
    return ctx.repo_root / ".github" / "hooks" / "hooks.json"


def _write(path: Path, value: object) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = (value if isinstance(value, str) else json.dumps(value, indent=2) + "\n").encode()
    path.write_bytes(data)
    return data


def test_installs_both_shells_with_seconds(tmp_path):
    ctx = _ctx(tmp_path, python=PY)
    operations.install("copilot", ctx)
    state = f"{ctx.home}/.elydora/copilot"
    assert json.loads(_file(ctx).read_text()) == {
        "version": 1,
        "hooks": {
            "preToolUse": [
                {
                    "type": "command",
                    "bash": f"'/opt/py/bin/python3' '-I' '-S' '{state}/guard.py'",
                    "powershell": f"& '/opt/py/bin/python3' '-I' '-S' '{state}/guard.py'; exit $LASTEXITCODE",
                    "timeoutSec": 10,
                }
            ],
            "postToolUse": [
                {
                    "type": "command",
                    "bash": f"'/opt/py/bin/python3' '-I' '-S' '{state}/hook.py'",
                    "powershell": f"& '/opt/py/bin/python3' '-I' '-S' '{state}/hook.py'; exit $LASTEXITCODE",
                    "timeoutSec": 10,
                }
            ],
            "postToolUseFailure": [
                {
                    "type": "command",
                    "bash": f"'/opt/py/bin/python3' '-I' '-S' '{state}/hook.py'",
                    "powershell": f"& '/opt/py/bin/python3' '-I' '-S' '{state}/hook.py'; exit $LASTEXITCODE",
                    "timeoutSec": 10,
                }
            ],
        },
    }
    assert _file(ctx).read_text().startswith('{\n  "version": 1,\n  "hooks": {\n')


def test_a_file_we_created_is_deleted_on_uninstall(tmp_path):
    ctx = _ctx(tmp_path)
    operations.install("copilot", ctx)
    operations.uninstall("copilot", ctx)
    assert not _file(ctx).exists()


@pytest.mark.parametrize(
    ("value", "where"),
    [
        (None, ".copilot/hooks/elydora-audit.json"),
        ("", ".copilot/hooks/elydora-audit.json"),
        ("/opt/copilot", "opt/copilot/hooks/elydora-audit.json"),  # absolute: below --root
        ("rel/home", "../work/rel/home/hooks/elydora-audit.json"),  # relative to the project (cwd)
        ("~/cp", "../work/~/cp/hooks/elydora-audit.json"),  # used as given: no ~ expansion
    ],
)
def test_copilot_home(tmp_path, value, where):
    ctx = _ctx(tmp_path, {} if value is None else {"COPILOT_HOME": value})
    targets = copilot.sources(ctx).targets
    assert os.path.normpath(targets[0].path) == os.path.normpath(ctx.home / where)
    assert targets[1].path == ctx.repo_root / ".github" / "hooks" / "hooks.json"


def test_layers_follow_copilot_home_and_the_project(tmp_path):
    ctx = _ctx(tmp_path, {"COPILOT_HOME": "/c"})
    home, cwd = ctx.home / "c", ctx.repo_root
    assert copilot.sources(ctx).depends == [
        home / "config.json",
        home / "settings.json",
        cwd / ".claude" / "settings.json",
        cwd / ".claude" / "settings.local.json",
        cwd / ".github" / "copilot" / "settings.json",
        cwd / ".github" / "copilot" / "settings.local.json",
    ]


LAYERS = {
    "config": ".copilot/config.json",
    "settings": ".copilot/settings.json",
    "claude": "work:.claude/settings.json",
    "claude_local": "work:.claude/settings.local.json",
    "project": "work:.github/copilot/settings.json",
    "project_local": "work:.github/copilot/settings.local.json",
    "ours": ".copilot/hooks/elydora-audit.json",
}


def _layer_path(ctx: Context, name: str) -> Path:
    where = LAYERS[name]
    return ctx.repo_root / where[5:] if where.startswith("work:") else ctx.home / where


# (the disableAllHooks value per layer, disabled?): the last explicit boolean wins; our file's true always wins.
PRECEDENCE = [
    ({}, False),
    ({"config": True}, True),
    ({"settings": True}, True),
    ({"claude": True}, True),
    ({"claude_local": True}, True),
    ({"project": True}, True),
    ({"project_local": True}, True),
    ({"config": True, "settings": False}, False),
    ({"settings": False, "claude": True}, True),
    ({"config": True, "project_local": False}, False),
    ({"project": False, "project_local": True}, True),
    ({"claude_local": True, "project": False}, False),
    ({"claude": False, "claude_local": True}, True),
    ({"config": True, "settings": True, "claude": True, "claude_local": True, "project": False}, False),
    ({"config": False, "project": True, "project_local": None}, True),  # None: the layer exists, key unset
    ({"ours": True}, True),
    ({"ours": True, "config": False, "project_local": False}, True),
    ({"ours": False, "settings": True}, True),
    ({"ours": False}, False),
]


def _case_id(case: object) -> str:
    if isinstance(case, bool):
        return "disabled" if case else "enabled"
    return ",".join(f"{k}={json.dumps(v)}" for k, v in case.items()) or "no-layers"  # type: ignore[attr-defined]


@pytest.mark.parametrize(("layers", "disabled"), PRECEDENCE, ids=_case_id)
def test_disable_all_hooks_precedence(tmp_path, layers, disabled):
    ctx = _ctx(tmp_path)
    for name, flag in layers.items():
        content = {"version": 1} if name == "ours" else {"model": "x"}
        _write(_layer_path(ctx, name), content if flag is None else {**content, "disableAllHooks": flag})
    before = files_under(ctx.home, ctx.repo_root)
    if not disabled:
        operations.install("copilot", ctx)
        assert operations.status("copilot", ctx).healthy
        return
    with pytest.raises(RefusedError) as refused:
        operations.install("copilot", ctx)
    assert "disableAllHooks is true in" in str(refused.value)
    assert files_under(ctx.home, ctx.repo_root) == before
    assert not ctx.agent_dir("copilot").exists()


def test_the_refusal_names_the_deciding_layer(tmp_path):
    ctx = _ctx(tmp_path)
    _write(_layer_path(ctx, "settings"), {"disableAllHooks": True})
    _write(_layer_path(ctx, "claude"), {"disableAllHooks": False})
    _write(_layer_path(ctx, "project"), {"disableAllHooks": True})
    with pytest.raises(RefusedError) as refused:
        operations.install("copilot", ctx)
    assert str(_layer_path(ctx, "project")) in str(refused.value)
    assert str(_layer_path(ctx, "settings")) not in str(refused.value)


def test_status_reports_hooks_disabled_after_install(tmp_path):
    ctx = _ctx(tmp_path)
    operations.install("copilot", ctx)
    assert operations.status("copilot", ctx).healthy
    _write(_layer_path(ctx, "claude_local"), {"disableAllHooks": True})
    status = operations.status("copilot", ctx)
    assert not status.healthy
    deciding = _layer_path(ctx, "claude_local")
    assert [f.render() for f in status.findings] == [
        f"{_file(ctx)}: GitHub Copilot CLI hooks are disabled: disableAllHooks is true in {deciding}"
    ]


def test_settings_layers_are_jsonc_and_blank_means_empty(tmp_path):
    ctx = _ctx(tmp_path)
    _write(_layer_path(ctx, "config"), '{"disableAllHooks": true,}\n')
    _write(_layer_path(ctx, "settings"), '// user settings\n{\n  "disableAllHooks": false, /* on */\n}\n')
    _write(_layer_path(ctx, "claude"), "")
    _write(_layer_path(ctx, "project_local"), "  \n\t\n")
    operations.install("copilot", ctx)
    assert _file(ctx).exists()


# What Copilot 1.0.102 writes into ~/.copilot/config.json on its first run (docs/e2e.md, finding 3).
COPILOT_OWN_CONFIG = (
    "// User settings belong in settings.json.\n"
    "// This file is managed automatically.\n"
    '{\n  "firstLaunchAt": "2026-11-30T10:00:00.000Z",\n}\n'
)


@pytest.mark.parametrize("text", [COPILOT_OWN_CONFIG, "", " \n"], ids=["copilot-own", "empty", "blank"])
def test_copilots_own_config_json_does_not_stop_install_or_status(tmp_path, text):
    ctx = _ctx(tmp_path)
    _write(_layer_path(ctx, "config"), text)
    assert not operations.status("copilot", ctx).installed
    operations.install("copilot", ctx)
    assert operations.status("copilot", ctx).healthy
    assert _layer_path(ctx, "config").read_text() == text  # a read-only layer: never written


def test_a_commented_config_json_still_switches_hooks_off(tmp_path):
    ctx = _ctx(tmp_path)
    _write(_layer_path(ctx, "config"), COPILOT_OWN_CONFIG.replace("{\n", '{\n  "disableAllHooks": true,\n', 1))
    with pytest.raises(RefusedError, match="disableAllHooks is true in"):
        operations.install("copilot", ctx)


@pytest.mark.parametrize(
    ("layer", "text", "message"),
    [
        ("config", "{", "config.json"),
        ("settings", "{", "settings.json"),
        ("project", '{"disableAllHooks": "yes"}', "disableAllHooks must be true or false"),
        ("ours", '{"version": 1, "disableAllHooks": 1}', "disableAllHooks must be true or false"),
    ],
)
def test_a_malformed_layer_aborts_and_writes_nothing(tmp_path, layer, text, message):
    ctx = _ctx(tmp_path)
    _write(_layer_path(ctx, layer), text)
    before = files_under(ctx.home, ctx.repo_root)
    with pytest.raises(MalformedConfigError) as caught:
        operations.install("copilot", ctx)
    assert message in str(caught.value)
    assert files_under(ctx.home, ctx.repo_root) == before


@pytest.mark.parametrize("layer", ["config", "project_local"])
@pytest.mark.parametrize("existing", [True, False])
def test_a_layer_changed_before_commit_aborts_the_install(tmp_path, monkeypatch, layer, existing):
    ctx = _ctx(tmp_path)
    _write(_layer_path(ctx, "settings"), {"theme": "dark"})
    if existing:
        _write(_layer_path(ctx, layer), {"disableAllHooks": False})
    before = files_under(ctx.home, ctx.repo_root)
    change_before_commit(monkeypatch, _layer_path(ctx, layer), b'{"disableAllHooks": true}\n')
    # the run starts over from its reads (installer/rewrites.py): the layer now switches hooks off
    with pytest.raises(RefusedError, match="hooks are disabled"):
        operations.install("copilot", ctx)
    after = files_under(ctx.home, ctx.repo_root)
    assert after.pop(str(_layer_path(ctx, layer))) == b'{"disableAllHooks": true}\n'
    before.pop(str(_layer_path(ctx, layer)), None)
    assert after == before
    assert not _file(ctx).exists()


def test_symlinked_project_directories_are_refused(tmp_path):
    ctx = _ctx(tmp_path)
    (tmp_path / "elsewhere").mkdir()
    (ctx.repo_root / ".claude").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(UnsafePathError):
        operations.install("copilot", ctx)
    assert not _file(ctx).exists()


SCHEMA_REFUSALS = [
    ({"hooks": {}}, 'has no "version": 1'),
    ({"version": True, "hooks": {}}, "version must be 1, not true"),
    ({"version": 2}, "version must be 1, not 2"),
    ({"version": 1, "hooks": {"beforeTool": []}}, "hooks.beforeTool is not an event this agent knows"),
    ({"version": 1, "hooks": {"preToolUse": {}}}, "hooks.preToolUse must be an array"),
    ({"version": 1, "hooks": {"preToolUse": [{"type": "command"}]}}, "needs at least one of bash, powershell"),
    ({"version": 1, "hooks": {"preToolUse": [{"bash": "x", "timeoutSec": 0}]}}, "timeoutSec must be a positive"),
    ({"version": 1, "hooks": {"preToolUse": [{"bash": "x", "env": {"A": ""}}]}}, "map of non-empty strings"),
    ({"version": 1, "hooks": {"preToolUse": [{"bash": "x", "shell": "zsh"}]}}, "shell is not a known key"),
    ({"version": 1, "hooks": {"preToolUse": [{"type": "http", "url": "http://example.com"}]}}, "must be https://"),
    ({"version": 1, "hooks": {"preToolUse": [{"type": "http", "url": "http://127.0.0.1:9"}]}}, "must be https://"),
    ({"version": 1, "hooks": {"preToolUse": [{"type": "http"}]}}, "missing the required key 'url'"),
    ({"version": 1, "hooks": {"preToolUse": [{"type": "prompt", "prompt": "p"}]}}, "only on sessionStart"),
    ({"version": 1, "hooks": {"sessionStart": [{"type": "prompt", "prompt": ""}]}}, "prompt must be a non-empty"),
    ({"version": 1, "hooks": {"postToolUse": [{"bash": "x", "matcher": "("}]}}, "not a valid JavaScript regular"),
    ({"version": 1, "hooks": {"postToolUse": [{"bash": "x", "matcher": "*"}]}}, "not a valid JavaScript regular"),
]


@pytest.mark.parametrize(("value", "message"), SCHEMA_REFUSALS)
def test_schema_refusals_leave_every_file_untouched(tmp_path, value, message):
    ctx = _ctx(tmp_path)
    _write(_file(ctx), value)
    before = files_under(ctx.home, ctx.repo_root)
    with pytest.raises(MalformedConfigError) as caught:
        operations.install("copilot", ctx)
    assert message in str(caught.value)
    assert files_under(ctx.home, ctx.repo_root) == before


def test_the_legacy_project_file_is_validated_too(tmp_path):
    ctx = _ctx(tmp_path)
    _write(_legacy(ctx), {"version": 1, "hooks": {"nope": []}})
    with pytest.raises(MalformedConfigError) as caught:
        operations.install("copilot", ctx)
    assert str(_legacy(ctx)) in str(caught.value)


def test_accepted_user_entries(tmp_path):
    ctx = _ctx(tmp_path, {"COPILOT_HOOK_ALLOW_LOCALHOST": "1"})
    hooks = {
        "PreToolUse": [{"bash": "a", "matcher": "**"}, {"powershell": "b", "matcher": "Bash|Edit", "cwd": "."}],
        "permissionRequest": [{"command": "c", "matcher": "*", "timeout": 1.5}],
        "notification": [{"type": "http", "url": "http://127.0.0.1:8080/x", "headers": {"A": "b"}}],
        "sessionStart": [{"type": "prompt", "prompt": "hello"}, {"type": "http", "url": "https://example.com"}],
    }
    _write(_file(ctx), {"version": 1, "disableAllHooks": False, "hooks": hooks})
    operations.install("copilot", ctx)
    assert json.loads(_file(ctx).read_text())["hooks"]["PreToolUse"] == hooks["PreToolUse"]


def test_pre_tool_wildcards_need_no_node(tmp_path, monkeypatch):
    ctx = _ctx(tmp_path)
    _write(_file(ctx), {"version": 1, "hooks": {"preToolUse": [{"bash": "a", "matcher": "*"}]}})
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    operations.install("copilot", ctx)
    _write(_file(ctx), {"version": 1, "hooks": {"postToolUse": [{"bash": "a", "matcher": "Bash"}]}})
    with pytest.raises(NodeUnavailableError) as caught:
        operations.install("copilot", ctx)
    assert "Node.js (`node`) is needed" in str(caught.value)


def _old_entry(ctx: Context, script: str, bash: str, powershell: str, timeout: int = 10) -> dict[str, object]:
    path = f"{ctx.elydora_dir}/copilot/{script}"
    return {
        "type": "command",
        "bash": bash.format(path=path),
        "powershell": powershell.format(path=path),
        "timeoutSec": timeout,
    }


CALL = "& '/usr/bin/python3' '{path}'; exit $LASTEXITCODE"
OLDER_FORMS = [
    ("'/usr/bin/python3' '{path}'", CALL, 10),  # the Python SDK installer
    ("/usr/bin/python3 {path}", CALL, 10),  # quoted only where needed
    ('"/usr/bin/python3" {path}', '"/usr/bin/python3" {path}', 5),  # the first installer
    ('"C:\\Tools\\py.exe" {path}', '"C:\\Tools\\py.exe" {path}', 5),  # any interpreter in quotes
    ("{path}", "{path}", 5),  # the script alone
]
LOOK_ALIKES = [
    ("'/usr/bin/python3' '-u' '{path}'", "& '/usr/bin/python3' '-u' '{path}'; exit $LASTEXITCODE", 10),
    ("/usr/bin/python3 {path}", "/usr/bin/python3 {path}", 10),  # powershell is not the call form
    ('"/usr/bin/python3" {path}', '"/usr/bin/python3" {path}', 6),  # the first installer used 5 s
    ('"/usr/bin/python3" {path}', "{path}", 5),  # the two shells differ
    ("'/usr/bin/node' '{path}'", "& '/usr/bin/node' '{path}'; exit $LASTEXITCODE", 10),
]


@pytest.mark.parametrize(("bash", "powershell", "timeout"), OLDER_FORMS)
def test_older_entries_are_migrated_out_of_the_project_file(tmp_path, bash, powershell, timeout):
    ctx = _ctx(tmp_path)
    _write(
        _legacy(ctx), {"version": 1, "hooks": {"preToolUse": [_old_entry(ctx, "guard.py", bash, powershell, timeout)]}}
    )
    operations.install("copilot", ctx)
    assert not _legacy(ctx).exists()
    assert operations.status("copilot", ctx).healthy


@pytest.mark.parametrize(("bash", "powershell", "timeout"), LOOK_ALIKES)
def test_look_alikes_stay(tmp_path, bash, powershell, timeout):
    ctx = _ctx(tmp_path)
    data = _write(
        _legacy(ctx), {"version": 1, "hooks": {"preToolUse": [_old_entry(ctx, "guard.py", bash, powershell, timeout)]}}
    )
    operations.install("copilot", ctx)
    assert _legacy(ctx).read_bytes() == data


def test_uninstall_cleans_the_project_file_and_keeps_user_entries(tmp_path):
    ctx = _ctx(tmp_path)
    old = _old_entry(ctx, "hook.py", "{path}", "{path}", 5)
    user = {"type": "command", "bash": "user"}
    _write(_legacy(ctx), {"version": 1, "hooks": {"postToolUse": [old, user], "sessionEnd": [old]}})
    operations.uninstall("copilot", ctx)
    assert json.loads(_legacy(ctx).read_text()) == {"version": 1, "hooks": {"postToolUse": [user]}}
    _write(_legacy(ctx), {"version": 1, "hooks": {"postToolUse": [old]}})
    operations.uninstall("copilot", ctx)
    assert not _legacy(ctx).exists()


def test_status_names_leftovers_in_the_project_file(tmp_path):
    ctx = _ctx(tmp_path)
    operations.install("copilot", ctx)
    _write(_legacy(ctx), {"version": 1, "hooks": {"preToolUse": [_old_entry(ctx, "guard.py", "{path}", "{path}", 5)]}})
    status = operations.status("copilot", ctx)
    assert [f.render() for f in status.findings] == [
        f"{_legacy(ctx)}: holds Elydora entries of an older install; run install to move them"
    ]


def test_status_says_which_entry_is_missing(tmp_path):
    ctx = _ctx(tmp_path)
    operations.install("copilot", ctx)
    value = json.loads(_file(ctx).read_text())
    value["hooks"]["postToolUseFailure"].append(value["hooks"]["postToolUseFailure"][0])
    del value["hooks"]["preToolUse"]
    _write(_file(ctx), value)
    assert [f.render() for f in operations.status("copilot", ctx).findings] == [
        f"{_file(ctx)}: no Elydora guard handler for preToolUse (expected exactly one)",
        f"{_file(ctx)}: 2 Elydora audit handler for postToolUseFailure (expected exactly one)",
    ]


def test_a_file_left_by_an_older_installer_is_adopted_and_deleted_on_uninstall(tmp_path):
    ctx = _ctx(tmp_path)
    old = _old_entry(ctx, "guard.py", "'/usr/bin/python3' '{path}'", CALL, 10)
    _write(_file(ctx), {"version": 1, "hooks": {"preToolUse": [old]}})
    operations.install("copilot", ctx)
    assert old not in json.loads(_file(ctx).read_text())["hooks"]["preToolUse"]
    operations.uninstall("copilot", ctx)
    assert not _file(ctx).exists()


def test_a_users_own_empty_file_survives_install_and_uninstall(tmp_path):
    ctx = _ctx(tmp_path)
    data = _write(_file(ctx), '{"version": 1, "hooks": {}}\n')
    operations.install("copilot", ctx)
    operations.uninstall("copilot", ctx)
    assert _file(ctx).read_bytes() == data


def test_uninstall_of_another_agent_id_keeps_ours(tmp_path):
    ctx = _ctx(tmp_path)
    operations.install("copilot", ctx)
    installed = _file(ctx).read_bytes()
    operations.uninstall("copilot", ctx.with_options(agent_id="someone-else"))
    assert _file(ctx).read_bytes() == installed


def test_the_guard_fails_open_because_copilot_denies_on_any_nonzero_exit(tmp_path):
    ctx = _ctx(tmp_path)
    operations.install("copilot", ctx)
    guard = copilot.agent_argv(json.loads(_file(ctx).read_text())["hooks"]["preToolUse"][0], ctx)
    assert run_as_agent(guard, b"not json").returncode == 0
    (ctx.agent_dir("copilot") / "config.json").write_text("{broken")
    broken = run_as_agent(guard, payload("copilot", "preToolUse"))
    assert broken.returncode == 0 and broken.stderr
