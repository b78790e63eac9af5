"""``elydora hook`` end to end: selector, agent state as the guard reads it, audit spool, native modes."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest
from elydora_testkit.neutral_support import Agents, Cli, Result, ledger_payloads, spool_events, wait_until

from elydora_cli import catalog

PRE = json.dumps({"provider": "codex", "hook_event_name": "PreToolUse", "tool_name": "Bash"}).encode()
V1 = "coding-ethos.hook/v1"


def _neutral(cli: Cli, agents: Agents, stdin: bytes, *extra: str, env: dict[str, str] | None = None) -> Result:
    return cli("hook", "--contract", "neutral-v1", "--state-root", str(agents.root), *extra, stdin=stdin, env=env)


# -- selector ------------------------------------------------------------------------------------------------
def test_selector_from_flag_or_environment(cli: Cli, agents: Agents) -> None:
    agents.create("codex")
    root = ["--state-root", str(agents.root)]
    by_env = cli("hook", *root, stdin=PRE, env={"ELYDORA_HOOK_CONTRACT": "neutral-v1"})
    assert (by_env.code, by_env.json()["contract_version"]) == (0, V1)
    flag_wins = cli("hook", "--contract", "neutral-v1", *root, stdin=PRE, env={"ELYDORA_HOOK_CONTRACT": "bogus"})
    assert (flag_wins.code, flag_wins.json()["decision"]) == (0, "allow")
    native = cli("hook", "--provider", "codex", *root, stdin=PRE, env={"ELYDORA_HOOK_CONTRACT": ""})
    assert (native.code, native.out, native.err) == (0, b"", "")


@pytest.mark.parametrize(
    ("argv", "env"),
    [(["--contract", "neutral-v2"], {}), (["--contract", "NEUTRAL-V1"], {}), ([], {"ELYDORA_HOOK_CONTRACT": "v1"})],
)
def test_unknown_selector_fails_before_anything_else(
    cli: Cli, tmp_path: Path, argv: list[str], env: dict[str, str]
) -> None:
    oversized = b"{" * ((1 << 20) + 10)
    result = cli("hook", *argv, "--state-root", str(tmp_path / "missing"), stdin=oversized, env=env)
    assert (result.code, result.out) == (1, b"")
    assert result.err.startswith("Error: --contract must be neutral-v1") and result.err.count("\n") == 1
    assert not (tmp_path / "missing").exists()


def test_malformed_flags_are_usage_errors(cli: Cli) -> None:
    result = cli("hook", "--contract", stdin=PRE)
    assert (result.code, result.out) == (2, b"")


# -- neutral errors: stderr only, exit 1 -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("stdin", "reason"),
    [
        (b'{"provider": "codex", "event": "Stop"} {}', "multiple JSON values"),
        (b"{", "decode hook event"),
        (b'{"provider":"codex","event":"Stop","p":"' + b"x" * (1 << 20) + b'"}', "payload exceeds 1048576 bytes"),
        (json.dumps({"contract_version": V1, "hook_event_name": "Stop"}).encode(), "provider is required"),
        (json.dumps({"provider": "generic", "event": "Stop"}).encode(), "no agent answers this hook"),
        (json.dumps({"provider": "codex", "event": "Stop"}).encode(), "no agent 'codex'"),
    ],
)
def test_neutral_failures(cli: Cli, agents: Agents, stdin: bytes, reason: str) -> None:
    result = _neutral(cli, agents, stdin)
    assert (result.code, result.out) == (1, b"")
    assert result.err.startswith("Error: ") and reason in result.err


def test_provider_flag_replaces_the_hint_after_validation(cli: Cli, agents: Agents) -> None:
    kimi = agents.create("kimi", "frozen")
    declared_without_provider = json.dumps({"contract_version": V1, "hook_event_name": "PreToolUse"}).encode()
    refused = _neutral(cli, agents, declared_without_provider, "--provider", "kimi")
    assert refused.code == 1 and "provider is required" in refused.err
    lenient = json.dumps({"provider": "codex", "hook_event_name": "PreToolUse", "tool_name": "Bash"}).encode()
    result = _neutral(cli, agents, lenient, "--provider", "kimi")
    doc = result.json()
    assert (result.code, doc["decision"], doc["event"]["provider"], result.err) == (1, "deny", "kimi", "")
    assert spool_events(kimi) == [lenient]


def test_exactly_one_mebibyte_is_accepted(cli: Cli, agents: Agents) -> None:
    agents.create("codex")
    head = b'{"provider":"codex","event":"PostToolUse","pad":"'
    body = head + b"x" * ((1 << 20) - len(head) - 2) + b'"}'
    assert len(body) == 1 << 20
    result = _neutral(cli, agents, body)
    assert (result.code, result.json()["decision"]) == (0, "allow")


# -- the decision is the guard's -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("status", "event", "decision", "action"),
    [
        ("active", "PreToolUse", "allow", "allow"),
        ("frozen", "PreToolUse", "deny", "block"),
        ("revoked", "PreToolUse", "deny", "block"),
        ("frozen", "PermissionRequest", "deny", "block"),
        ("frozen", "PostToolUse", "allow", "allow"),
        ("frozen", "Stop", "allow", "allow"),
        ("revoked", "UserPromptSubmit", "allow", "allow"),
    ],
)
def test_local_status_decides_gated_events(
    cli: Cli, agents: Agents, status: str, event: str, decision: str, action: str
) -> None:
    agents.create("claudecode", status)
    request = json.dumps({"provider": "claude-code", "hook_event_name": event, "tool_name": "Bash"}).encode()
    result = _neutral(cli, agents, request)
    doc = result.json()
    assert (doc["decision"], doc["effect"]["action"], result.code) == (decision, action, int(decision == "deny"))
    assert doc["event"]["provider"] == "claude" and result.err == ""
    if decision == "deny":
        assert doc["effect"]["reason"] == f'Agent "claudecode" is {status} in Elydora. Tool execution blocked.'
        assert re.match(r"^hook-[0-9a-f]{16}$", doc["tracking_id"])
        assert doc["decisions"][0]["evidence"] == {"agent_id": "claudecode", "status": status, "source": "status.json"}


def test_agent_id_and_provider_must_agree(cli: Cli, agents: Agents) -> None:
    agents.create("gemini", "frozen", agent_id="work-gemini")
    request = json.dumps({"provider": "Gemini-CLI", "hook_event_name": "BeforeTool"}).encode()
    result = _neutral(cli, agents, request, "--agent-id", "work-gemini")
    assert (result.code, result.json()["event"]["name"], result.json()["decision"]) == (1, "PreToolUse", "deny")
    generic = json.dumps({"provider": "generic", "hook_event_name": "PreToolUse"}).encode()
    assert _neutral(cli, agents, generic, "--agent-id", "work-gemini").code == 1
    wrong = json.dumps({"provider": "codex", "hook_event_name": "PreToolUse"}).encode()
    mismatch = _neutral(cli, agents, wrong, "--agent-id", "work-gemini")
    assert (mismatch.code, mismatch.out) == (1, b"") and "belongs to another agent" in mismatch.err
    unsafe = _neutral(cli, agents, generic, "--agent-id", "../x")
    assert unsafe.code == 1 and "unsafe agent id" in unsafe.err


def test_broken_state_is_an_error_not_a_decision(cli: Cli, agents: Agents) -> None:
    directory = agents.create("codex")
    (directory / "status.json").chmod(0o644)
    result = _neutral(cli, agents, PRE)
    assert (result.code, result.out) == (1, b"") and "status.json is accessible by other users" in result.err
    (directory / "status.json").chmod(0o600)
    (directory / "status.json").write_text('{"status": "paused"}')
    assert "unknown status" in _neutral(cli, agents, PRE).err
    (directory / "status.json").write_text('{"status": "active", "status": "frozen"}')
    assert "duplicate member" in _neutral(cli, agents, PRE).err
    (directory / "config.json").unlink()
    assert "config.json is missing" in _neutral(cli, agents, PRE).err
    assert spool_events(directory) == []


@pytest.mark.parametrize(("status", "decision"), [("active", "allow"), ("frozen", "deny"), ("revoked", "deny")])
def test_server_agent_uses_the_status_cache(cli: Cli, agents: Agents, status: str, decision: str) -> None:
    directory = agents.server("codex", status)
    doc = _neutral(cli, agents, PRE).json()
    assert doc["decision"] == decision
    assert not (directory / "refresh.lock").exists()  # a fresh cache starts no refresh


def test_stale_cache_still_decides_and_starts_a_refresh(cli: Cli, agents: Agents) -> None:
    directory = agents.server("codex", "frozen", age=3600)
    doc = _neutral(cli, agents, PRE).json()
    assert doc["decision"] == "deny"
    assert wait_until(lambda: (directory / "refresh.lock").exists())


def test_absent_cache_is_an_error_and_starts_a_refresh(cli: Cli, agents: Agents) -> None:
    directory = agents.server("codex", None)
    result = _neutral(cli, agents, PRE)
    assert (result.code, result.out) == (1, b"") and "no cached agent status yet" in result.err
    assert wait_until(lambda: (directory / "refresh.lock").exists())


# -- audit -----------------------------------------------------------------------------------------------------
def test_every_event_is_spooled_and_recorded_by_the_flusher(cli: Cli, agents: Agents) -> None:
    directory = agents.create("codex", "frozen")
    sent = [
        b'  {"provider": "codex",\n "hook_event_name": "PreToolUse", "tool_name": "Bash", "session_id": "s1"}\n',
        json.dumps({"provider": "codex", "event": "PostToolUse", "tool": "exec_command", "sessionId": "s1"}).encode(),
        b"null",
    ]
    codes = [_neutral(cli, agents, body).code for body in sent]
    assert codes == [1, 0, 1]  # null has no event: not gated, but no provider either -> error
    assert spool_events(directory) == [
        b'{"provider": "codex",  "hook_event_name": "PreToolUse", "tool_name": "Bash", "session_id": "s1"}',
        sent[1],
    ]
    assert _neutral(cli, agents, b"null", "--provider", "codex").code == 0
    assert spool_events(directory)[-1] == b"{}"
    frozen = {"hook_event_name": "elydora.status", "session_id": "elydora-cli", "tool_name": "elydora",
              "status": "frozen", "reason": None}  # fmt: skip
    expected = [frozen] + [json.loads(body) for body in (*sent[:2], b"{}")]  # the freeze is audited too
    assert wait_until(lambda: ledger_payloads(directory) == expected), ledger_payloads(directory)


def test_refused_requests_are_not_audited(cli: Cli, agents: Agents) -> None:
    directory = agents.create("codex")
    bad = json.dumps({"contract_version": V1, "provider": "codex", "hook_event_name": "Nope"}).encode()
    assert _neutral(cli, agents, bad).code == 1
    assert spool_events(directory) == []


def test_spool_must_be_owner_only(cli: Cli, agents: Agents) -> None:
    directory = agents.create("codex")
    spool = directory / "spool.jsonl"
    spool.write_bytes(b"")
    spool.chmod(0o644)
    result = _neutral(cli, agents, PRE)
    assert (result.code, result.out) == (1, b"") and "spool.jsonl is not an owner-only regular file" in result.err


# -- provider-native modes keep each agent's protocol ------------------------------------------------------------
@pytest.mark.parametrize("provider", ["claudecode", "gemini", "cline", "cursor", "grok", "kimi"])
def test_native_deny_follows_the_catalog(cli: Cli, agents: Agents, provider: str) -> None:
    agents.create(provider, "revoked")
    facts = catalog.provider(provider)
    event = json.dumps({"hook_event_name": facts.events.pre_tool, "tool_name": "Bash"}).encode()
    result = cli("hook", "--provider", provider, "--state-root", str(agents.root), stdin=event)
    assert (result.code, result.out) == (facts.guard.deny_exit_code, facts.deny_stdout("revoked"))
    assert result.err == facts.guard_stderr("revoked") + "\n"


@pytest.mark.parametrize("provider", ["gemini", "cursor", "codex"])
def test_native_allow_follows_the_catalog(cli: Cli, agents: Agents, provider: str) -> None:
    agents.create(provider, "frozen")
    facts = catalog.provider(provider)
    post = json.dumps({"hook_event_name": facts.events.post_tool, "tool_name": "Bash"}).encode()
    result = cli("hook", "--provider", provider, "--state-root", str(agents.root), stdin=post)
    assert (result.code, result.out, result.err) == (0, facts.audit.success_stdout, "")


@pytest.mark.parametrize(("provider", "code"), [("claudecode", 0), ("cursor", 1)])
def test_native_failure_mode(cli: Cli, agents: Agents, provider: str, code: int) -> None:
    facts = catalog.provider(provider)
    root = ["--provider", provider, "--state-root", str(agents.root)]
    broken = cli("hook", *root, stdin=b"{")
    assert (broken.code, broken.out) == (code, facts.guard.failure_stdout)
    assert broken.err.startswith("[Elydora guard] decode hook event")
    missing = cli("hook", *root, stdin=json.dumps({"hook_event_name": facts.events.post_tool}).encode())
    assert (missing.code, missing.out) == (facts.audit.failure_exit_code, facts.audit.failure_stdout)
    assert missing.err.startswith(f"[Elydora audit] no agent {provider!r}")
    directory = agents.create(provider)
    (directory / "config.json").chmod(0o640)
    logged = cli("hook", *root, stdin=json.dumps({"hook_event_name": facts.events.pre_tool}).encode())
    assert logged.code == code and "config.json is accessible by other users" in logged.err
    assert "guard: config.json is accessible by other users" in (directory / "error.log").read_text()


def test_native_without_a_provider(cli: Cli, agents: Agents) -> None:
    unknown = cli("hook", "--state-root", str(agents.root), stdin=b"{}")
    assert (unknown.code, unknown.out) == (1, b"") and "pass --provider" in unknown.err
    bad_id = cli("hook", "--provider", "nope", "--state-root", str(agents.root), stdin=b"{}")
    assert bad_id.code == 1 and "unknown provider 'nope'" in bad_id.err
    agents.create("kimi", "frozen")
    hinted = cli("hook", "--state-root", str(agents.root), stdin=b'{"provider": "kimi-code", "event": "PreToolUse"}')
    assert hinted.code == catalog.provider("kimi").guard.deny_exit_code


def test_help_lists_both_commands(cli: Cli) -> None:
    result = cli("--help")
    assert result.code == 0 and "hook" in result.text and "hooks" in result.text


def test_flusher_interpreter_is_this_one(cli: Cli, agents: Agents, monkeypatch: pytest.MonkeyPatch) -> None:
    directory = agents.create("codex")
    monkeypatch.setattr(sys, "executable", str(directory / "no-such-python"))
    result = _neutral(cli, agents, PRE)
    assert result.code == 0  # the event stays spooled when the flusher cannot start; it is logged
    assert "cannot start the flusher" in (directory / "error.log").read_text()
    assert spool_events(directory) == [PRE]
    assert os.stat(directory / "spool.jsonl").st_mode & 0o777 == 0o600
