"""Request decoding beyond the reference vectors: framing, aliases, normalisation, declared validation."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from elydora_cli.neutral import aliases
from elydora_cli.neutral.contract import (
    CANONICAL_FIELDS,
    CONTRACT_VERSION,
    EVENTS,
    ContractError,
    resolve_declared_provider,
    resolve_provider,
)
from elydora_cli.neutral.request import HookRequest, parse_request, read_bounded

V1 = CONTRACT_VERSION


def _parse(obj: Any) -> HookRequest:
    return parse_request(json.dumps(obj).encode())


def _error(data: bytes) -> str:
    with pytest.raises(ContractError) as caught:
        parse_request(data)
    return caught.value.message


def _declared(**fields: Any) -> dict[str, Any]:
    return {"contract_version": V1, "provider": "codex", "hook_event_name": "Stop", **fields}


# -- framing -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "empty input"),
        (b"  \n\t ", "empty input"),
        (b"[1]", "expected a JSON object"),
        (b'"text"', "expected a JSON object"),
        (b"12", "expected a JSON object"),
        (b'{"a": 1', "decode hook event"),
        (b'{"a": NaN}', "decode hook event"),
        (b'{"a": 1e999}', "decode hook event"),
        (b'{"a": 1} {"b": 2}', "multiple JSON values"),
        (b'{"a": 1} 7', "multiple JSON values"),
        (b'{"a": 1} xyz', "trailing data"),
        (b'{"a": 1} {', "trailing data"),
        (b"[" * 100_000, "decode hook event"),
    ],
)
def test_framing_errors(data: bytes, reason: str) -> None:
    message = _error(data)
    assert reason in message and message.startswith("decode hook event")


def test_whitespace_null_and_duplicates() -> None:
    assert parse_request(b' \r\n {"event": "Stop"} \n\t').hook_event_name == "Stop"
    assert parse_request(b"null") == HookRequest(declared=False)
    assert parse_request(b'{"event": "Stop", "event": "SessionEnd"}').hook_event_name == "SessionEnd"
    assert parse_request(b'{"event": "St\xffop"}').hook_event_name == "St\ufffdop"


def test_size_bound_counts_bytes_before_parsing() -> None:
    limit = 1 << 20
    assert "payload exceeds 1048576 bytes" in _error(b" " * (limit + 1))
    assert "empty input" in _error(b" " * limit)  # exactly the limit is read and parsed
    stream = io.BytesIO(b"x" * (limit + 5))
    with pytest.raises(ContractError, match="payload exceeds"):
        read_bounded(stream)
    assert stream.tell() == limit + 1
    assert read_bounded(io.BytesIO(b"{}")) == b"{}"


# -- lenient aliases -----------------------------------------------------------------------------------------
def test_lenient_aliases_take_the_first_usable_key() -> None:
    request = _parse(
        {
            "agent": "",
            "runtime": "kimi-code",
            "hookEventName": 5,
            "event_name": "UserPromptSubmit",
            "sessionId": "s-1",
            "workingDirectory": "rel/dir",
            "toolName": "write_file",
            "arguments": {"path": "x"},
            "result": "done",
            "transcriptPath": "/t.jsonl",
            "modelName": "m",
            "contextLength": "128000",
            "correlation_id": "c\n1",
            "matcher": "Bash",
        }
    )
    assert (request.provider_hint, request.hook_event_name, request.session_id) == (
        "kimi-code",
        "UserPromptSubmit",
        "s-1",
    )
    assert (request.cwd, request.tool_name, request.tool_input) == ("rel/dir", "Write", {"path": "x"})
    assert request.tool_response == {"output": "done"}
    assert (request.transcript_path, request.model, request.context_window_tokens) == ("/t.jsonl", "m", 128000)
    assert request.correlation_id == "c\n1"  # lenient requests are not length- or control-checked
    assert (request.matcher, request.source, request.effective_source) == ("Bash", "", "kimi-code")
    assert not request.declared


def test_nested_tool_objects_fill_missing_values() -> None:
    request = _parse({"tool_call": {"name": "shell", "arguments": {"cmd": "ls"}, "output": "a b"}})
    assert (request.tool_name, request.command, request.tool_response) == ("Bash", "ls", {"output": "a b"})
    request = _parse({"tool_name": "Read", "toolCall": {"name": "shell", "input": {"file": "f"}}})
    assert (request.tool_name, request.tool_input) == ("Noop", {"file": "f"})
    request = _parse({"tool": {"tool": "apply_patch", "parameters": {"patch": "p"}, "response": {"ok": True}}})
    assert (request.tool_name, request.tool_input, request.tool_response) == ("Edit", {"patch": "p"}, {"ok": True})


def test_status_keys_merge_into_the_tool_response() -> None:
    request = _parse({"exitCode": 3, "state": "failed", "code": True, "tool_response": {"state": "own"}})
    assert request.tool_response == {"exitCode": 3, "state": "own"}
    assert _parse({"return_code": "1"}).tool_response == {"return_code": "1"}
    assert _parse({"outcome": 7}).tool_response is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [(5, 5), (5.0, 5), ("42", 42), ("+42", 42), (0, 0), (-5, 0), (2.5, 0), ("4.0", 0), ("1_000", 0), (True, 0)],
)
def test_context_window_tokens(value: Any, expected: int) -> None:
    assert _parse({"context_window_tokens": value}).context_window_tokens == expected
    assert _parse(_declared(context_window_tokens=value)).context_window_tokens == expected


def test_wrong_types_count_as_absent() -> None:
    request = _parse({"event": ["Stop"], "tool_name": {"x": 1}, "tool_input": "ls", "provider": 5})
    assert (request.hook_event_name, request.tool_name, request.tool_input, request.provider_hint) == ("", "", {}, "")
    assert "provider is required" in _error(json.dumps(_declared(provider=5)).encode())
    assert _parse({"contract_version": "", "anything": 1}).declared is False


# -- normalisation -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "canonical"),
    [
        ("bash", "Bash"),
        ("run_shell_command", "Bash"),
        ("my.server.exec_command", "Bash"),
        ("x.write_stdin", "Bash"),
        ("create_file", "Write"),
        ("replace", "Edit"),
        ("tools.apply_patch", "Edit"),
        ("MultiEdit", "MultiEdit"),
        ("google_web_search", "Noop"),
        ("functions.read_mcp_resource", "Noop"),
        ("AfterTool", "AfterTool"),
        ("exec_command.other", "exec_command.other"),
    ],
)
def test_tool_aliases(name: str, canonical: str) -> None:
    assert aliases.canonical_tool(name) == canonical
    assert _parse({"tool_name": name}).tool_name == canonical


@pytest.mark.parametrize(
    ("name", "canonical"),
    [("execute_bash", "Bash"), ("execute_cmd", "Bash"), ("fs_read", "Noop"), ("fs_write", "fs_write")],
)
def test_kiro_tool_aliases(name: str, canonical: str) -> None:
    """Kiro CLI's tools; ``fs_write`` (create, replace, insert, append in one tool) stays as it is."""
    assert aliases.canonical_tool(name) == canonical


def test_event_renames_only_before_tool() -> None:
    assert _parse({"event": "BeforeTool"}).hook_event_name == "PreToolUse"
    assert _parse({"event": "AfterTool"}).hook_event_name == "AfterTool"
    assert _parse(_declared(hook_event_name="BeforeTool")).hook_event_name == "PreToolUse"


def test_cmd_and_chars_become_command_chars_winning() -> None:
    request = _parse({"tool": "exec_command", "input": {"cmd": "a", "chars": "b"}})
    assert request.tool_input == {"cmd": "a", "chars": "b", "command": "b"}
    assert _parse({"tool": "exec_command", "input": {"cmd": "", "command": "c"}}).command == "c"


def test_parallel_wrapper() -> None:
    one = {"tool_uses": [{"name": "functions.apply_patch", "parameters": {"chars": "x"}}]}
    request = _parse({"tool": aliases.PARALLEL, "input": one})
    assert (request.tool_name, request.tool_input) == ("Edit", {"chars": "x", "command": "x"})
    passive = {"tool_uses": [{"recipient_name": "functions.update_plan", "parameters": {"plan": []}}]}
    request = _parse({"tool": aliases.PARALLEL, "input": passive})
    assert (request.tool_name, request.tool_input) == ("Bash", passive)
    many = {"tool_uses": [{"name": "Read"}, {"name": "Read"}]}
    request = _parse({"tool": aliases.PARALLEL, "input": many})
    assert request.tool_input == {**many, aliases.PARALLEL_BATCH_KEY: True}
    assert aliases.PARALLEL_BATCH_KEY not in many


# -- declared validation -------------------------------------------------------------------------------------
def test_declared_checks_run_in_order() -> None:
    everything_wrong = _declared(
        contract_version="coding-ethos.hook/v9", extra=1, correlation_id="x" * 200, hook_event_name="Nope"
    )
    steps = [
        ("contract_version", "coding-ethos.hook/v9", "unsupported contract_version"),
        ("contract_version", V1, "unsupported field 'extra'"),
        ("extra", None, "correlation_id exceeds 128 bytes"),
        ("correlation_id", "ok", "unsupported hook_event_name"),
    ]
    for key, value, reason in steps:
        if value is None:
            everything_wrong.pop(key)
        else:
            everything_wrong[key] = value
        assert reason in _error(json.dumps(everything_wrong).encode())


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"hook_event_name": "  "}, "hook_event_name is required"),
        ({"hook_event_name": "S" * 257}, "hook_event_name exceeds 256 bytes"),
        ({"hook_event_name": "Stop\x7f"}, "hook_event_name contains control characters"),
        ({"provider": "c" * 252 + "codex"}, "provider exceeds 256 bytes"),
        ({"provider": "codex\x85"}, "provider contains control characters"),
        ({"transcript_path": "/" * 4097}, "transcript_path exceeds 4096 bytes"),
        ({"matcher": "m\x00"}, "matcher contains control characters"),
        ({"model": "é" * 129}, "model exceeds 256 bytes"),
        ({"source": "s" * 257}, "source exceeds 256 bytes"),
        ({"cwd": "a\tb", "session_id": "\x01"}, "cwd contains control characters"),
        ({"tool_name": "T" * 257}, "tool_name exceeds 256 bytes"),
        ({"hookEventName": "Stop"}, "unsupported field"),
        ({"tool": "Bash"}, "unsupported field"),
    ],
)
def test_declared_refusals(fields: dict[str, Any], reason: str) -> None:
    assert reason in _error(json.dumps(_declared(**fields)).encode())


def test_declared_accepts_what_the_contract_allows() -> None:
    request = _parse(
        _declared(
            correlation_id="é" * 64,
            cwd="relative/dir with spaces/ü",
            tool_name="functions.exec_command",
            tool_input={"command": "ls\n"},
            tool_response="out",
            source="whatever",
            model="\u2028",
        )
    )
    assert request.declared and request.tool_name == "Bash" and request.tool_response == {"output": "out"}
    assert _parse(_declared(tool_name="y" * 300 + ".apply_patch")).tool_name == "Edit"  # limit after normalising
    for event in EVENTS:
        assert _parse(_declared(hook_event_name=event)).hook_event_name == event


@pytest.mark.parametrize(
    ("hint", "declared", "runtime"),
    [
        ("Gemini-CLI", "gemini", "gemini"),
        (" CODEX ", "codex", "codex"),
        ("claude-code", "claude", "claude"),
        ("kimi-code", "kimi", "kimi"),
        ("my-coding-ethos-kimi", "coding-ethos", "coding-ethos"),
        ("GENERIC", "generic", None),
        ("generic-x", None, None),
        ("unknown-supervisor", None, None),
    ],
)
def test_provider_resolution(hint: str, declared: str | None, runtime: str | None) -> None:
    assert resolve_declared_provider(hint) == declared
    assert resolve_provider(hint) == runtime


def test_canonical_field_set() -> None:
    assert len(CANONICAL_FIELDS) == 14
    for key in CANONICAL_FIELDS:
        value: Any = {} if key in ("tool_input", "tool_response") else 1 if key == "context_window_tokens" else "Stop"
        fields = {key: value} if key not in ("contract_version", "provider", "hook_event_name") else {}
        _parse(_declared(**fields))


def test_with_provider_replaces_only_the_hint() -> None:
    request = _parse(_declared(source="gemini"))
    replaced = request.with_provider("kimi")
    assert (replaced.provider_hint, replaced.source, replaced.hook_event_name) == ("kimi", "gemini", "Stop")
