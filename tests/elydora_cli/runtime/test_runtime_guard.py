"""The generated guard for every provider: allow, deny (frozen, revoked agent, revoked kid), failure mode.

Expected outputs are written out literally from providers.md (sections 3-15), not taken from the catalog,
so a wrong catalog entry fails here.
"""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from elydora_testkit.fake_elydora_server import FakeElydora
from elydora_testkit.platforms import NO_MODES, SITE_FORCED, posix_only
from elydora_testkit.runtime_helpers import PYTHON, AgentHandle, host_envelope, make_agent, wait_until
from locations import PAYLOADS

from elydora_cli import catalog, identity
from elydora_cli.runtime import refresh, runtime_argv
from elydora_config._platform import locking

PLAIN = {"deny_exit": 2, "deny_stdout": "", "allow": "", "fail_exit": 0, "fail_stdout": ""}
EXPECTED: dict[str, dict[str, object]] = {
    "claudecode": PLAIN,
    "codex": PLAIN,
    "gemini": {"deny_exit": 2, "deny_stdout": "", "allow": "{}\n", "fail_exit": 0, "fail_stdout": "{}\n"},
    "kimi": PLAIN,
    "grok": {
        "deny_exit": 2,
        "deny_stdout": '{"decision":"deny","reason":"Agent \\"grok\\" is STATUS in Elydora."}\n',
        "allow": "",
        "fail_exit": 0,
        "fail_stdout": "",
    },
    "augment": PLAIN,
    # Cline runs the Node hook file in front of the guard; the file turns exit 2 + stderr into the cancel JSON
    # (tests/elydora_cli/providers/test_provider_cline.py), so the guard itself speaks the plain protocol.
    "cline": PLAIN,
    # Copilot differs from the reference providers.md (exit 2 alone): with that, Copilot 1.0.102 tells the model
    # only "hook exited with code 2"; with this answer on stdout the model reads our line (docs/e2e.md, finding 4).
    "copilot": {
        "deny_exit": 2,
        "deny_stdout": '{"permissionDecision":"deny","permissionDecisionReason":'
        '"[Elydora guard] Agent \\"copilot\\" is STATUS in Elydora. Tool execution blocked."}\n',
        "allow": "",
        "fail_exit": 0,
        "fail_stdout": "",
    },
    "cursor": {
        "deny_exit": 2,
        "deny_stdout": '{"permission":"deny","userMessage":"Agent \\"cursor\\" is STATUS in Elydora.",'
        '"agentMessage":"Agent \\"cursor\\" is STATUS in Elydora. Tool execution is blocked."}\n',
        "allow": '{"permission":"allow"}\n',
        "fail_exit": 1,
        "fail_stdout": "",
    },
    "droid": PLAIN,
    "qwen": PLAIN,
    "letta": PLAIN,
    "kirocli": PLAIN,
    "kiroide": PLAIN,
    "kiroagent": PLAIN,
    "qoder": PLAIN,
    "openhands": PLAIN,
    # Crush reads exit 2 with the reason on stderr; the guard never prints {"decision": "allow"} on success
    "crush": PLAIN,
    # The plugin module in front of the guard turns exit 2 into a throw and its own failures (exit 1 here) into
    # a throw as well: the guard fails closed (tests/elydora_cli/plug/test_plugin_node.py).
    "opencode": {**PLAIN, "fail_exit": 1},
    "kilo": {**PLAIN, "fail_exit": 1},
    "pi": {**PLAIN, "fail_exit": 1},
    # Hermes blocks on the Claude-style JSON answer only (its exit status is just logged): exit 0 with the answer,
    # our stderr line as the reason the model reads (docs/providers.md, Hermes).
    "hermes": {
        "deny_exit": 0,
        "deny_stdout": '{"decision":"block","reason":'
        '"[Elydora guard] Agent \\"hermes\\" is STATUS in Elydora. Tool execution blocked."}\n',
        "allow": "",
        "fail_exit": 0,
        "fail_stdout": "",
    },
}
PROVIDERS = sorted(EXPECTED)
SAMPLES = PAYLOADS


def _event(provider: str) -> bytes:
    pre = catalog.provider(provider).events.pre_tool
    return (SAMPLES / f"{provider}-{pre}.json").read_bytes()  # every provider has a sample in fixtures/payloads


def _stderr(provider: str, status: str) -> bytes:
    return f'[Elydora guard] Agent "{provider}" is {status} in Elydora. Tool execution blocked.\n'.encode()


def _assert_denied(result: subprocess.CompletedProcess[bytes], provider: str, status: str) -> None:
    expected = EXPECTED[provider]
    assert result.returncode == expected["deny_exit"]
    assert result.stdout.decode() == str(expected["deny_stdout"]).replace("STATUS", status)
    assert result.stderr == _stderr(provider, status)


def _assert_failed(result: subprocess.CompletedProcess[bytes], provider: str) -> None:
    expected = EXPECTED[provider]
    assert result.returncode == expected["fail_exit"]
    assert result.stdout.decode() == expected["fail_stdout"]
    lines = result.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith("[Elydora guard] ")


def test_catalog_lists_exactly_the_expected_providers() -> None:
    assert sorted(catalog.provider_ids()) == PROVIDERS


@pytest.mark.parametrize("provider", PROVIDERS)
def test_local_active_allows_with_success_output(tmp_path: Path, provider: str) -> None:
    agent = make_agent(tmp_path, provider)
    result = agent.run("guard.py", _event(provider))
    assert (result.returncode, result.stdout.decode(), result.stderr) == (0, EXPECTED[provider]["allow"], b"")


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("status", ["frozen", "revoked"])
def test_local_frozen_or_revoked_denies(tmp_path: Path, provider: str, status: str) -> None:
    agent = make_agent(tmp_path, provider)
    agent.set_local_status(status)
    _assert_denied(agent.run("guard.py", _event(provider)), provider, status)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_server_frozen_agent_and_revoked_kid_deny(tmp_path: Path, provider: str, server: FakeElydora) -> None:
    agent = make_agent(tmp_path, provider, server=server)
    assert refresh.refresh(str(agent.directory)) == "active"
    assert agent.run("guard.py", _event(provider)).stdout.decode() == EXPECTED[provider]["allow"]
    server.state.agents[provider].status = "frozen"
    assert refresh.refresh(str(agent.directory)) == "frozen"
    _assert_denied(agent.run("guard.py", _event(provider)), provider, "frozen")
    server.state.agents[provider].status = "active"
    kid = agent.config.kid
    server.state.agents[provider].keys[kid] = ("revoked", server.state.agents[provider].keys[kid][1])
    assert refresh.refresh(str(agent.directory)) == "revoked"
    _assert_denied(agent.run("guard.py", _event(provider)), provider, "revoked")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_broken_config_applies_the_failure_mode(tmp_path: Path, provider: str) -> None:
    agent = make_agent(tmp_path, provider)
    agent.set_local_status("frozen")
    agent.path(identity.CONFIG).write_bytes(b'{"org_id": "local", "agent_id": ')
    _assert_failed(agent.run("guard.py", _event(provider)), provider)
    assert "config.json" in agent.path(identity.ERROR_LOG).read_text()


@pytest.mark.parametrize("provider", PROVIDERS)
def test_broken_cache_applies_the_failure_mode(tmp_path: Path, provider: str, server: FakeElydora) -> None:
    agent = make_agent(tmp_path, provider, server=server)
    agent.path(identity.STATUS_CACHE).write_bytes(b'{"status": "active", "cached_at": "yesterday"}')
    agent.path(identity.STATUS_CACHE).chmod(0o600)
    _assert_failed(agent.run("guard.py", _event(provider)), provider)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_invalid_stdin_applies_the_failure_mode(tmp_path: Path, provider: str) -> None:
    agent = make_agent(tmp_path, provider)
    _assert_failed(agent.run("guard.py", b"not json"), provider)


@pytest.mark.parametrize(
    "mutation",
    [
        lambda c: c.update(agent_name="other"),
        lambda c: c.update(extra="x"),
        lambda c: c.update(kid=""),
        lambda c: c.update(base_url="ftp://example.com"),
    ],
)
def test_config_that_does_not_validate_fails_closed_for_cursor(tmp_path: Path, mutation: object) -> None:
    agent = make_agent(tmp_path, "cursor")
    config = json.loads(agent.path(identity.CONFIG).read_text())
    mutation(config)  # type: ignore[operator]
    agent.path(identity.CONFIG).write_text(json.dumps(config))
    _assert_failed(agent.run("guard.py", b"{}"), "cursor")


@posix_only(NO_MODES)
def test_config_readable_by_others_is_refused(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, "claudecode")
    agent.path(identity.CONFIG).chmod(0o644)
    _assert_failed(agent.run("guard.py", b"{}"), "claudecode")


def test_huge_stdin_is_drained_and_decided(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, "grok")
    agent.set_local_status("frozen")
    event = b'{"toolInput": "' + b"x" * (3 << 20) + b'"}'
    _assert_denied(agent.run("guard.py", event), "grok", "frozen")


def _write_cache(agent: AgentHandle, status: str, age: float) -> None:
    stamp = time.time() - age
    (agent.path(identity.STATUS_CACHE)).write_bytes(refresh.cache_bytes(status, stamp, stamp))
    agent.path(identity.STATUS_CACHE).chmod(0o600)


def test_stale_cache_keeps_last_decision_and_refreshes_in_background(tmp_path: Path, server: FakeElydora) -> None:
    agent = make_agent(tmp_path, "claudecode", server=server)
    server.state.agents["claudecode"].status = "frozen"
    _write_cache(agent, "active", age=120)  # stale, but not far beyond its lifetime (health.FAR_STALE)
    assert agent.run("guard.py", b"{}").returncode == 0  # last known decision, no waiting
    assert wait_until(lambda: b'"frozen"' in agent.path(identity.STATUS_CACHE).read_bytes(), timeout=20)
    _assert_denied(agent.run("guard.py", b"{}"), "claudecode", "frozen")


def test_fresh_cache_makes_no_server_call(tmp_path: Path, server: FakeElydora) -> None:
    agent = make_agent(tmp_path, "codex", server=server)
    _write_cache(agent, "active", age=1)
    for _ in range(3):
        assert agent.run("guard.py", b"{}").returncode == 0
    time.sleep(0.5)
    assert server.state.requests == []


def test_offline_guard_tries_at_most_one_refresh_per_minute(tmp_path: Path, server: FakeElydora) -> None:
    agent = make_agent(tmp_path, "qwen", server=server)
    server.stop()
    _write_cache(agent, "active", age=600)
    assert agent.run("guard.py", b"{}").returncode == 0
    log = agent.path(identity.ERROR_LOG)
    assert wait_until(lambda: log.exists() and "cannot refresh" in log.read_text(), timeout=20)
    time.sleep(0.3)
    before = log.read_text()
    for _ in range(5):
        assert agent.run("guard.py", b"{}").returncode == 0
    time.sleep(1.0)
    assert log.read_text() == before  # no new refresh attempt: checked_at moved on


def test_a_guard_that_waited_for_a_running_refresh_uses_its_result_and_starts_no_second(
    tmp_path: Path, server: FakeElydora
) -> None:
    agent = make_agent(tmp_path, "qwen", server=server)
    server.stop()
    _write_cache(agent, "active", age=600)  # far stale: the guard refreshes before deciding
    lock = os.open(agent.path(identity.REFRESH_LOCK), os.O_RDWR | os.O_CREAT, 0o600)
    locking.flock(lock, locking.LOCK_EX_NB)  # a refresh is running
    argv = runtime_argv(PYTHON, agent.path("guard.py"))
    guard = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert guard.stdin is not None
    guard.stdin.write(host_envelope("qwen", b"{}"))
    guard.stdin.close()  # the event read, the guard finds the far-stale cache and waits for the lock
    time.sleep(1.0)
    _write_cache(agent, "frozen", age=0)  # what that refresh found
    os.close(lock)
    assert guard.wait(timeout=30) is not None and guard.stdout is not None and guard.stderr is not None
    result = subprocess.CompletedProcess(argv, guard.returncode, guard.stdout.read(), guard.stderr.read())
    _assert_denied(result, "qwen", "frozen")
    time.sleep(1.5)  # a second refresh would find the server gone and log it
    log = agent.path(identity.ERROR_LOG)
    assert not log.exists() or "refresh" not in log.read_text()


def test_a_refresher_started_after_another_one_checked_the_server_asks_nothing(
    tmp_path: Path, server: FakeElydora
) -> None:
    agent = make_agent(tmp_path, "qwen", server=server)
    server.state.agents["qwen"].status = "frozen"
    _write_cache(agent, "active", age=5)  # a refresher that held the lock before this one checked 5 s ago
    assert refresh.main([str(agent.directory)]) == 0
    assert server.state.requests == [] and b'"active"' in agent.path(identity.STATUS_CACHE).read_bytes()
    _write_cache(agent, "active", age=identity.CACHE_TTL + 1)  # stale: this one asks
    assert refresh.main([str(agent.directory)]) == 0
    assert server.state.requests and b'"frozen"' in agent.path(identity.STATUS_CACHE).read_bytes()


def test_hot_path_imports_no_json_re_or_site(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, "gemini")
    argv = [PYTHON, "-X", "importtime", "-I", "-S", str(agent.path("guard.py"))]
    result = subprocess.run(argv, input=b"{}", capture_output=True, check=False)
    assert result.returncode == 0
    imported = {line.split("|")[-1].strip() for line in result.stderr.decode().splitlines() if "|" in line}
    assert not imported & {"json", "re", "subprocess", "urllib.request", "elydora_cli"}
    assert "site" not in imported or SITE_FORCED


@pytest.mark.parametrize("provider", PROVIDERS)
def test_missing_runtime_module_applies_the_failure_mode(tmp_path: Path, provider: str) -> None:
    agent = make_agent(tmp_path, provider)
    agent.path("_elydora_guard.py").unlink()
    _assert_failed(agent.run("guard.py", b"{}"), provider)


def test_the_launcher_loads_the_module_by_path_and_its_bytecode_not_sys_path_or_pycache(tmp_path: Path) -> None:
    """Nothing beside the runtime stands in for a standard module, no __pycache__ is read or written, and the
    bytecode install compiles for this interpreter is what runs (status checks it against the manifest)."""
    agent = make_agent(tmp_path, "augment")
    agent.path("select.py").write_text("raise SystemExit(0)\n")  # would allow every call if imported
    (agent.directory / "__pycache__").mkdir()
    tag = sys.implementation.cache_tag
    agent.path(f"__pycache__/_elydora_guard.{tag}.pyc").write_bytes(b"planted")
    frozen = agent.path("status.json")
    frozen.write_bytes(identity.status_bytes("frozen", None))
    assert agent.run("guard.py", b"{}").returncode == 2  # the real guard ran, and blocked
    assert sorted(p.name for p in (agent.directory / "__pycache__").iterdir()) == [f"_elydora_guard.{tag}.pyc"]
    source = agent.path("_elydora_guard.py").read_bytes() + b"\ndef main():\n    return 7\n"
    code = marshal.dumps(compile(source, "_elydora_guard.py", "exec", dont_inherit=True))
    agent.path(f"_elydora_guard.{tag}.code").write_bytes(code)
    assert agent.run("guard.py", b"{}").returncode == 7  # the compiled file is what the launcher loads
