"""Every vector of ``neutral-v1/cases.json`` and the golden request/response pairs (containment).

The vectors are written for the contract's originating CLI (Coding Ethos' ``coding-ethos-run``). Mapping
from it to ours: ``agent-hook`` is ``elydora hook``, ``agent-hooks`` is ``elydora hooks``,
``CODE_ETHOS_HOOK_CONTRACT`` is ``ELYDORA_HOOK_CONTRACT``. That CLI decides with a policy engine; ours is
the guard's rule (a frozen or revoked agent is refused tool calls), so a vector that expects a deny runs
against a frozen agent, and a vector that expects an allow against an active one.

Vectors about features elydora does not have are skipped by name in :data:`SKIPPED` with the reason;
vectors checked with one expectation left out or replaced are listed in :data:`ADAPTED`.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from elydora_testkit.neutral_support import REFERENCE, Agents, Cli, contains

from elydora_cli import __version__, catalog
from elydora_cli.neutral import capabilities
from elydora_cli.neutral.contract import ContractError
from elydora_cli.neutral.engine import Selection, run_neutral
from elydora_cli.neutral.hookcommand import HookCommandError, parse_hook_command
from elydora_cli.neutral.request import parse_request
from elydora_cli.neutral.response import Outcome, build_response

HOOK_ID = re.compile(r"^hook-[0-9a-f]{16}$")
NO_MCP = "elydora has no MCP server (the capability document says mcp_command_flag: null)"
SKIPPED = {
    "MCP-A01": NO_MCP,
    "MCP-R01": NO_MCP,
    "MCP-R02": NO_MCP,
    "MCP-R03": NO_MCP,
    "MCP-R04": NO_MCP,
    "MCP-D01": NO_MCP,
    "MCP-D02": NO_MCP,
    "ROOT-01": "split-root rule for generated MCP entries; " + NO_MCP,
    "ROOT-02": "split-root rule for generated MCP entries; " + NO_MCP,
    "NAT-02": "the Kimi Stop checkpoint is advice from the Coding Ethos policy engine; the guard has no checkpoints",
    "CAP-02": "runtime_version comes from the package metadata, falling back to elydora_cli.__version__: "
    "there is no --ethos-root/pyproject.toml lookup that could fail",
    "TMO-RENDER-45": "rendering timeouts into agent settings is the installer's (providers/ tests pin it)",
}
ADAPTED = {
    "CLI-01": "'\"advice\":' is left out: the reference prints it only because its policy bundle has reminders",
    "CLI-02": "the deny comes from the frozen kimi agent, not from a --no-verify policy",
    "RESP-02": "the deny comes from the frozen codex agent, not from a --no-verify policy",
    "NAT-01": "checked against our Kimi protocol from catalog.json (exit 2, reason on stderr, no stdout JSON)",
    "NAT-03": "checked against our Codex protocol from catalog.json (exit 2, reason on stderr), not the "
    "reference's own Codex adapter (exit 1, JSON on stdout)",
    "CAP-01": "runtime_version is ours; mcp_command_flag and runtime_policy_command are null (no such features)",
    "CAP-03": "providers are our adapters: the catalog's agents in catalog order, then generic",
    "CAP-04": "an unknown sub-command is a usage error, exit 2 (the CLI's convention), not 1",
    "HCMD-A02": "refused: the coding-ethos-run runner is not ours; our grammar needs an absolute `hook` command",
    "HCMD-A03": "refused: relative runner; our grammar needs an absolute executable",
    "HCMD-A07": "refused: the coding-ethos-run runner with `agent-hook` is not ours",
    "KIMI-CMD-01": "the command text with ` --provider kimi` appended; writing it into Kimi's TOML is the installer's",
    "TMO-0": "our message says '--hook-timeout-seconds must be between 1 and 3600'",
    "TMO-3601": "our message says '--hook-timeout-seconds must be between 1 and 3600'",
    "TMO--1": "our message says '--hook-timeout-seconds must be between 1 and 3600'",
}


def _cases() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = json.loads((REFERENCE / "cases.json").read_text())["cases"]
    return cases


CASES = _cases()


def _padded(total: int | None) -> bytes:
    """A lenient request padded to exactly ``total`` bytes (or one byte past the 1 MiB limit when None)."""
    head = b'{"provider":"codex","event":"Stop","padding":"'
    size = (1 << 20) + 1 if total is None else total
    return head + b"x" * (size - len(head) - 2) + b'"}'


def _request_bytes(case: dict[str, Any], reference: Path) -> bytes:
    given = case["input"]
    if "file" in given:
        return (reference / str(given["file"])).read_bytes()
    if "json" in given:
        return json.dumps(given["json"]).encode()
    if "raw" in given:
        return str(given["raw"]).encode()
    assert "generator" in given
    return _padded(None if case["id"] == "REQ-07" else 1 << 20)


def test_every_vector_is_handled() -> None:
    ids = {case["id"] for case in CASES}
    assert len(CASES) == 100 and len(ids) == 100
    assert set(SKIPPED) <= ids and set(ADAPTED) <= ids and not set(SKIPPED) & set(ADAPTED)
    assert {case["layer"] for case in CASES} <= set(_HANDLERS) | {"mcp-command", "roots"}


def test_containment_rule_is_not_vacuous() -> None:
    assert contains({"a": {"b": 1, "c": 2}, "d": [1, {"e": 3, "f": 4}]}, {"a": {"b": 1}, "d": [1, {"e": 3}]})
    assert not contains({"a": 1}, {"a": 2})
    assert not contains({"a": 1}, {"b": 1})
    assert not contains({"a": [1]}, {"a": [1, 2]})
    assert not contains({"a": 1}, {"a": True})
    assert not contains({"a": [{"x": 1}]}, {"a": [{"x": 1, "y": 2}]})


_PARAMS = [pytest.param(case, id=case["id"]) for case in CASES]


@pytest.mark.parametrize("case", _PARAMS)
def test_vector(case: dict[str, Any], reference: Path, cli: Cli, agents: Agents) -> None:
    if case["id"] in SKIPPED:
        pytest.skip(SKIPPED[case["id"]])
    _HANDLERS[case["layer"]](case, reference, cli, agents)


def _decode(case: dict[str, Any], reference: Path, cli: Cli, agents: Agents) -> None:
    data = _request_bytes(case, reference)
    expect = case["expect"]
    if not expect["ok"]:
        with pytest.raises(ContractError) as caught:
            parse_request(data)
        assert expect["error_contains"] in caught.value.message
        return
    request = parse_request(data)
    event = expect.get("event", {})
    fields = {
        "hook_event_name": request.hook_event_name,
        "provider_hint": request.provider_hint,
        "tool_name": request.tool_name,
        "correlation_id": request.correlation_id,
        "command": request.command,
        "context_window_tokens": request.context_window_tokens,
    }
    for name, value in event.items():
        if name == "tool_input_has":
            assert contains(request.tool_input, value)
        elif name == "tool_uses_len":
            assert len(request.tool_input["tool_uses"]) == value
        else:
            assert fields[name] == value, name
    if "response_event_provider" in expect:
        shown = build_response(request, Outcome())["event"].get("provider")
        wanted = expect["response_event_provider"]
        assert shown == (None if wanted.startswith("<omitted") else wanted)


def _run(case: dict[str, Any], reference: Path, cli: Cli, agents: Agents) -> None:
    doc = build_response(parse_request(_request_bytes(case, reference)), Outcome())
    assert re.match(case["expect"]["correlation_id_regex"], doc["correlation_id"])


def _dig(doc: dict[str, Any], dotted: str) -> Any:
    value: Any = doc
    for part in dotted.split("."):
        value = value[part]
    return value


def _encode(case: dict[str, Any], reference: Path, cli: Cli, agents: Agents) -> None:
    expect = case["expect"]
    if "file" in case["input"]:
        blocked = expect["exit_code_neutral"] == 1
        agents.create("codex", "frozen" if blocked else "active")
        result = cli(
            "hook", "--contract", "neutral-v1", "--state-root", str(agents.root), stdin=_request_bytes(case, reference)
        )
        assert (result.code, result.err) == (expect["exit_code_neutral"], "")
        doc = result.json()
        assert contains(doc, json.loads((reference / expect["subset_of_output"]["file"]).read_text()))
        if "tracking_id_regex" in expect:
            assert re.match(expect["tracking_id_regex"], doc["tracking_id"])
        if expect.get("effect_reason_nonempty"):
            assert doc["effect"]["reason"]
    else:
        given = case["input"]["result"]
        request = parse_request(json.dumps({"provider": "codex", "event": given.get("event", "PreToolUse")}).encode())
        outcome = Outcome(
            blocked=given["status"] == "blocked",
            updated_input=given.get("updated_input"),
            decisions=tuple(given.get("decisions", ())),
            advice=given.get("advice", {}),
            runtime_ms=given.get("runtime_ms", 0),
        )
        doc = build_response(request, outcome)
    for key in expect.get("absent_keys", ()):
        assert key not in doc, key
    for dotted, wanted in expect.items():
        if dotted in ("decision",) or dotted.startswith("effect."):
            value = _dig(doc, dotted)
            assert value if wanted == "<non-empty>" else value == wanted, dotted


_CLI_AGENTS = {
    "CLI-01": ("codex", "active"),
    "CLI-02": ("kimi", "frozen"),
    "CLI-03": ("codex", "active"),
    "CLI-06": ("codex", "active"),
    "NAT-01": ("kimi", "frozen"),
    "NAT-03": ("codex", "frozen"),
    "NAT-04": ("codex", "frozen"),
}


def _cli_run(case: dict[str, Any], reference: Path, cli: Cli, agents: Agents) -> tuple[int, str, str]:
    given = case["input"]
    if case["id"] in _CLI_AGENTS:
        agents.create(*_CLI_AGENTS[case["id"]])
    argv = ["hook" if word == "agent-hook" else word for word in given["argv"]]
    env = {k.replace("CODE_ETHOS_", "ELYDORA_"): v for k, v in given.get("env", {}).items()}
    if "stdin_file" in given:
        stdin = (reference / given["stdin_file"]).read_bytes()
    elif "stdin_json" in given:
        stdin = json.dumps(given["stdin_json"]).encode()
    else:
        stdin = str(given.get("stdin", "")).encode()
    result = cli(*argv, "--state-root", str(agents.root), stdin=stdin, env=env)
    return result.code, result.text, result.err


def _cli_neutral(case: dict[str, Any], reference: Path, cli: Cli, agents: Agents) -> None:
    code, out, err = _cli_run(case, reference, cli, agents)
    expect = case["expect"]
    assert code == expect["exit"], err
    wanted = [s for s in expect.get("stdout_contains", []) if not (case["id"] == "CLI-01" and s == '"advice":')]
    for text in wanted:
        assert text in out, text
    if expect.get("stderr_empty"):
        assert err == ""
    if expect.get("stdout_empty"):
        assert out == ""
    if "stderr_contains" in expect:
        assert expect["stderr_contains"] in err
    if expect.get("stdout_is_single_json_object"):
        assert isinstance(json.loads(out), dict) and out.endswith("}\n")


def _cli_native(case: dict[str, Any], reference: Path, cli: Cli, agents: Agents) -> None:
    code, out, err = _cli_run(case, reference, cli, agents)
    expect = case["expect"]
    if case["id"] == "NAT-04":
        assert (code, out) == (expect["exit"], "")
        return
    facts = catalog.provider(_CLI_AGENTS[case["id"]][0])
    assert code == facts.guard.deny_exit_code == 2
    assert out.encode() == facts.deny_stdout("frozen")
    assert err == facts.guard_stderr("frozen") + "\n"


def _capabilities(case: dict[str, Any], reference: Path, cli: Cli, agents: Agents) -> None:
    expect = case["expect"]
    if case["id"] == "CAP-04":
        assert cli("hooks").code == expect["exit"]
        assert cli("hooks", "missing").code == 2
        return
    if case["id"] == "CAP-01":
        result = cli("hooks", "capabilities", "--json")
        assert result.code == 0
        ours = ('"runtime_version": ', '"mcp_command_flag": ', '"runtime_policy_command": ')
        for text in expect["stdout_contains"]:
            if not text.startswith(ours):
                assert text in result.text, text
        doc = result.json()
        assert doc["runtime_version"] == capabilities.runtime_version()
        assert doc["mcp_command_flag"] is None and doc["runtime_policy_command"] is None
        return
    doc = capabilities.document()
    contract = doc["hook_contracts"][0]
    assert contract["max_input_bytes"] == expect["hook_contracts[0].max_input_bytes"]
    assert contract["outcomes"] == expect["hook_contracts[0].outcomes"]
    assert contract["effects"] == expect["hook_contracts[0].effects"]
    assert len(contract["events"]) == expect["hook_contracts[0].events_len"]
    assert doc["supports_private_overlay"] is expect["supports_private_overlay"]
    providers = [entry["provider"] for entry in doc["providers"]]
    assert providers == [*catalog.provider_ids(), "generic"]
    served = {entry.get("contract_provider") for entry in doc["providers"]}
    assert set(expect["providers_order"]) - {"generic"} <= served


def _hook_command(case: dict[str, Any], reference: Path, cli: Cli, agents: Agents) -> None:
    text = case["input"]["hook_command"]
    accepted = case["expect"]["accepted"] and case["id"] not in ADAPTED
    if accepted:
        command = parse_hook_command(text)
        assert command.text == text and command.subcommand == "hook"
        return
    with pytest.raises(HookCommandError) as caught:
        parse_hook_command(text)
    assert case["expect"].get("error_contains", "unsupported hook command") in str(caught.value)


def _kimi_settings(case: dict[str, Any], reference: Path, cli: Cli, agents: Agents) -> None:
    command = parse_hook_command(case["input"]["hook_command"]).with_arguments("--provider", "kimi")
    assert command.text == case["expect"]["kimi_toml_command"]
    assert command.arguments == ("--provider", "kimi")


def _timeout(case: dict[str, Any], reference: Path, cli: Cli, agents: Agents) -> None:
    import argparse

    from elydora_cli.commands.options import context_from
    from elydora_cli.main import UsageError

    seconds = case["input"]["hook_timeout_seconds"]
    args = argparse.Namespace(root=None, state_root=None, repo_root=None, agent_id=None, hook_timeout_seconds=seconds)
    if case["expect"]["accepted"]:
        assert context_from(args).timeout_seconds == seconds
        return
    with pytest.raises(UsageError, match="between 1 and 3600"):
        context_from(args)


_HANDLERS = {
    "decode": _decode,
    "run": _run,
    "encode": _encode,
    "cli-neutral": _cli_neutral,
    "cli-native": _cli_native,
    "capabilities": _capabilities,
    "hook-command": _hook_command,
    "kimi-settings": _kimi_settings,
    "timeout": _timeout,
}


@pytest.mark.parametrize(("name", "status"), [("allowed", "active"), ("blocked", "frozen")])
def test_golden_pair(name: str, status: str, reference: Path, agents: Agents) -> None:
    """The golden pairs through the engine (the CLI runs them in RESP-01/RESP-02)."""
    agents.create("codex", status)
    selection = Selection(str(agents.root), sys.executable)
    answer = run_neutral((reference / f"{name}-request.json").read_bytes(), selection)
    doc = json.loads(answer.stdout)
    assert contains(doc, json.loads((reference / f"{name}-response.json").read_text()))
    assert answer.exit_code == (1 if name == "blocked" else 0)
    assert ("tracking_id" in doc) is (name == "blocked")


def test_version_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib import metadata

    def missing(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    assert capabilities.runtime_version() == metadata.version("elydora-config")
    monkeypatch.setattr(metadata, "version", missing)
    assert capabilities.runtime_version() == __version__
