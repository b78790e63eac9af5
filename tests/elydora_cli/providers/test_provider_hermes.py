"""Hermes Agent: ``config.yaml``'s ``hooks:`` block (comments and the user's hooks kept) and the consent allowlist,
install twice byte-identical, uninstall byte-identical, malformed files refused, a concurrent writer, our hooks
run the way Hermes runs them, and a status that says when Hermes would skip or replace them."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
import yaml
from elydora_testkit.provider_cases import (
    change_before_commit,
    files_under,
    make_context,
    payload,
    run_as_agent,
    set_status,
)

from elydora_cli.exitcodes import UsageError
from elydora_cli.installer import operations
from elydora_cli.plug.context import Context
from elydora_cli.providers import hermes
from elydora_config.errors import ConcurrentModificationError, MalformedConfigError

CONFIG = (
    "# My Hermes settings\n"
    "model:\n"
    "  default: anthropic/claude-sonnet-4.5   # through OpenRouter\n"
    "  provider: openrouter\n"
    "\n"
    "hooks:\n"
    "  on_session_start:\n"
    "  - command: notify-send hi\n"
    "    timeout: 5\n"
    "  # pre_tool_call: mine, some day\n"
    "toolsets:\n"
    "  - hermes-cli\n"
)
ALLOWLIST = (
    '{\n  "approvals": [\n    {\n      "approved_at": "2026-11-28T09:14:02Z",\n      "command": "notify-send hi",\n'
    '      "event": "on_session_start",\n      "script_mtime_at_approval": null\n    }\n  ]\n}'
)
LINE = '[Elydora guard] Agent "hermes" is frozen in Elydora. Tool execution blocked.'


@pytest.fixture
def ctx(tmp_path: Path) -> Context:
    return make_context(tmp_path)


def folder(ctx: Context) -> Path:
    return ctx.home / ".hermes"


def seed(ctx: Context) -> tuple[Path, Path]:
    folder(ctx).mkdir(parents=True)
    config, allowlist = folder(ctx) / "config.yaml", folder(ctx) / "shell-hooks-allowlist.json"
    config.write_text(CONFIG)
    allowlist.write_text(ALLOWLIST)
    return config, allowlist


@pytest.mark.parametrize(
    ("env", "windows", "expected"),
    [
        ({}, False, "HOME/.hermes"),
        ({"HERMES_HOME": "  "}, False, "HOME/.hermes"),
        ({"HERMES_HOME": "/srv/hermes "}, False, "HOME/srv/hermes"),
        ({"HERMES_HOME": "profile"}, False, "REPO/profile"),
        ({}, True, "HOME/AppData/Local/hermes"),
        ({"LOCALAPPDATA": "/Users/me/Local"}, True, "HOME/Users/me/Local/hermes"),
    ],
)
def test_the_files_follow_hermes_home(tmp_path: Path, env: dict[str, str], windows: bool, expected: str) -> None:
    ctx = make_context(tmp_path, env).with_options(windows=windows)
    where = Path(expected.replace("HOME", str(ctx.home)).replace("REPO", str(ctx.repo_root)))
    paths = [t.path for t in hermes.sources(ctx).targets]
    assert paths == [where / "config.yaml", where / "shell-hooks-allowlist.json"]


def test_install_adds_our_hooks_and_approvals_and_keeps_everything_else(ctx: Context) -> None:
    config, allowlist = seed(ctx)
    operations.install("hermes", ctx)
    text = config.read_text()
    data = yaml.safe_load(text)
    for line in CONFIG.splitlines():
        assert line in text.splitlines()  # every line of the user's, comments included
    hooks = data["hooks"]
    assert hooks["on_session_start"] == [{"command": "notify-send hi", "timeout": 5}]
    guard, audit = hooks["pre_tool_call"], hooks["post_tool_call"]
    assert guard == [{"command": f"'{ctx.python}' '-I' '-S' '{ctx.home}/.elydora/hermes/guard.py'", "timeout": 10}]
    assert audit[0]["command"].endswith("/.elydora/hermes/hook.py'") and len(audit) == 1
    approvals = json.loads(allowlist.read_text())["approvals"]
    assert approvals[0]["command"] == "notify-send hi"
    assert [(a["event"], a["command"]) for a in approvals[1:]] == [
        ("pre_tool_call", guard[0]["command"]),
        ("post_tool_call", audit[0]["command"]),
    ]
    assert all(a["script_mtime_at_approval"] is None and a["approved_at"].endswith("Z") for a in approvals[1:])
    assert operations.status("hermes", ctx).healthy


def test_install_twice_is_once_and_uninstall_restores_every_byte(ctx: Context) -> None:
    config, allowlist = seed(ctx)
    before = files_under(folder(ctx))
    operations.install("hermes", ctx)
    once = files_under(folder(ctx))
    inodes = (config.stat().st_ino, allowlist.stat().st_ino)
    outcome = operations.install("hermes", ctx)
    assert files_under(folder(ctx)) == once and (config.stat().st_ino, allowlist.stat().st_ino) == inodes
    assert str(config) not in outcome.changed and str(allowlist) not in outcome.changed
    operations.uninstall("hermes", ctx)
    assert files_under(folder(ctx)) == before


def test_files_we_created_are_deleted_again(ctx: Context) -> None:
    operations.install("hermes", ctx)
    assert sorted(p.name for p in folder(ctx).iterdir()) == ["config.yaml", "shell-hooks-allowlist.json"]
    assert operations.status("hermes", ctx).healthy
    operations.uninstall("hermes", ctx)
    assert not folder(ctx).exists()  # the install created the folder too: the uninstall removes it once empty


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("model: [fake\n", "invalid YAML"),
        ("hooks: 3\n", "hooks must be an object"),
        ("hooks:\n  pre_tool_call:\n  - timeout: 5\n", "is missing the required key 'command'"),
        ("hooks:\n  pre_tool_call:\n  - command: x\n    timeout: soon\n", "must be a whole number of seconds"),
        ("hooks:\n  pre_tool_call: {command: x}\n", "must be an array"),
        ("hooks:\n  pre_tool_call: [{command: x}]\n", "flow style"),
        ("- just\n- a list\n", "the top level must be a YAML mapping"),
    ],
)
def test_a_malformed_config_is_refused_and_nothing_is_written(ctx: Context, text: str, reason: str) -> None:
    folder(ctx).mkdir(parents=True)
    (folder(ctx) / "config.yaml").write_text(text)
    before = files_under(ctx.home)
    with pytest.raises(MalformedConfigError, match=reason):
        operations.install("hermes", ctx)
    assert files_under(ctx.home) == before


def test_a_malformed_allowlist_is_refused(ctx: Context) -> None:
    config, allowlist = seed(ctx)
    allowlist.write_text('{"approvals": {}}')
    with pytest.raises(MalformedConfigError, match="approvals must be a list"):
        operations.install("hermes", ctx)
    assert config.read_text() == CONFIG


def test_a_timeout_hermes_would_clamp_is_refused(ctx: Context) -> None:
    with pytest.raises(UsageError, match="at most 300 s"):
        operations.install("hermes", ctx.with_options(timeout_seconds=301))


def test_a_concurrent_writer_aborts_the_install(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    config, _ = seed(ctx)
    theirs = CONFIG.encode() + b"theme: dark\n"
    change_before_commit(monkeypatch, config, theirs)
    with pytest.raises(ConcurrentModificationError):
        operations.install("hermes", ctx)
    assert config.read_bytes() == theirs


def _run(ctx: Context, event: str) -> tuple[int, str]:
    """Our entry for ``event`` run as Hermes runs it: split with shlex, no shell, the event on stdin."""
    [entry] = yaml.safe_load((folder(ctx) / "config.yaml").read_text())["hooks"][event]
    result = run_as_agent(shlex.split(entry["command"]), payload("hermes", event))
    return result.returncode, result.stdout.decode()


def test_our_hooks_allow_record_and_block_in_hermes_protocol(ctx: Context) -> None:
    seed(ctx)
    operations.install("hermes", ctx)
    assert _run(ctx, "pre_tool_call") == (0, "")  # no answer: Hermes runs the tool
    assert _run(ctx, "post_tool_call") == (0, "")
    set_status(ctx, "hermes", "frozen")
    code, stdout = _run(ctx, "pre_tool_call")
    assert code == 0 and json.loads(stdout) == {"decision": "block", "reason": LINE}  # what Hermes blocks on


def test_status_says_when_hermes_would_skip_our_hooks(ctx: Context) -> None:
    """``hermes hooks revoke`` (or a hand edit) takes an approval away: Hermes then skips the hook silently."""
    _, allowlist = seed(ctx)
    operations.install("hermes", ctx)
    data = json.loads(allowlist.read_text())
    data["approvals"] = [a for a in data["approvals"] if a["event"] != "pre_tool_call"]
    allowlist.write_text(json.dumps(data, indent=2, sort_keys=True))
    status = operations.status("hermes", ctx)
    assert not status.healthy
    assert [(f.path, f.message.split(";")[0]) for f in status.findings] == [
        (allowlist, "pre_tool_call: our hook is not approved here")
    ]
    operations.install("hermes", ctx)
    assert operations.status("hermes", ctx).healthy


@pytest.mark.parametrize(("variable", "managed"), [(None, "etc/hermes"), ("/opt/policy", "opt/policy")])
def test_status_says_when_the_managed_layer_replaces_our_hooks(
    tmp_path: Path, variable: str | None, managed: str
) -> None:
    ctx = make_context(tmp_path, {"HERMES_MANAGED_DIR": variable} if variable else {})
    operations.install("hermes", ctx)
    policy = ctx.home / managed / "config.yaml"
    policy.parent.mkdir(parents=True)
    policy.write_text("hooks:\n  pre_tool_call:\n  - command: /usr/local/bin/company-guard\n")
    findings = operations.status("hermes", ctx).findings
    assert [(f.path, f.message) for f in findings] == [(policy, f"hooks.pre_tool_call {hermes.REPLACED}")]
    policy.write_text("model:\n  default: company-model\n")
    assert operations.status("hermes", ctx).healthy
