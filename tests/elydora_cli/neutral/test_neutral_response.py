"""The neutral response: effect derivation, optional members, ids, key order and byte encoding."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from elydora_cli.neutral.request import HookRequest, parse_request
from elydora_cli.neutral.response import Outcome, build_response, effect, encode, exit_code, new_hook_id

HOOK_ID = re.compile(r"^hook-[0-9a-f]{16}$")


def _request(**fields: Any) -> HookRequest:
    return parse_request(json.dumps({"provider": "codex", "event": "PreToolUse", **fields}).encode())


@pytest.mark.parametrize(
    ("event", "outcome", "action", "decision"),
    [
        ("PreToolUse", Outcome(), "allow", "allow"),
        ("PreToolUse", Outcome(blocked=True), "block", "deny"),
        ("Stop", Outcome(blocked=True), "continue", "deny"),
        ("Stop", Outcome(additional_context="keep going"), "allow", "allow"),
        ("PreToolUse", Outcome(updated_input={"command": "x"}), "rewrite", "allow"),
        ("PreToolUse", Outcome(blocked=True, updated_input={"command": "x"}), "block", "deny"),
        ("Stop", Outcome(blocked=True, updated_input={"command": "x"}), "continue", "deny"),
        ("PreToolUse", Outcome(updated_input={}), "allow", "allow"),
    ],
)
def test_effect_derivation(event: str, outcome: Outcome, action: str, decision: str) -> None:
    doc = build_response(_request(event=event), outcome)
    assert (doc["effect"]["action"], doc["decision"]) == (action, decision)
    assert doc["status"] == ("blocked" if decision == "deny" else "allowed")
    assert exit_code(doc) == (1 if decision == "deny" else 0)
    assert ("reason" in doc["effect"]) is (decision == "deny")
    assert ("tracking_id" in doc) is (decision == "deny")
    assert ("updated_input" in doc["effect"]) is bool(outcome.updated_input)


def test_effect_member_order_and_context() -> None:
    outcome = Outcome(blocked=True, reason="no", updated_input={"a": 1}, additional_context="ctx")
    assert list(effect("PreToolUse", outcome)) == ["updated_input", "action", "reason", "additional_context"]
    assert effect("PreToolUse", Outcome(blocked=True))["reason"]  # never empty on deny
    assert effect("Stop", Outcome(additional_context="c")) == {"action": "allow", "additional_context": "c"}


def test_document_members() -> None:
    full = Outcome(
        blocked=True,
        reason="r",
        decisions=({"decision": "block", "message": "m", "policy_id": "p", "severity": "block"},),
        advice={"reminders": {}},
        tracking_id="hook-0123456789abcdef",
        runtime_ms=4,
    )
    doc = build_response(_request(correlation_id="lane-01", tool_name="Bash"), full)
    assert list(doc) == [
        "contract_version",
        "correlation_id",
        "event",
        "decision",
        "effect",
        "status",
        "tracking_id",
        "decisions",
        "advice",
        "runtime_ms",
    ]
    assert doc["event"] == {"name": "PreToolUse", "provider": "codex", "tool": "Bash"}
    assert (doc["correlation_id"], doc["tracking_id"], doc["runtime_ms"]) == ("lane-01", "hook-0123456789abcdef", 4)
    bare = build_response(parse_request(b"{}"), Outcome(runtime_ms=0, decisions=(), advice={}))
    assert bare["event"] == {"name": ""}
    assert not {"tracking_id", "decisions", "advice", "runtime_ms"} & set(bare)


def test_event_provider_from_hint_then_source_never_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for marker in ("CLAUDECODE", "CODEX_THREAD_ID", "GEMINI_CLI", "KIMI_CODE_HOME"):
        monkeypatch.setenv(marker, "1")
    assert "provider" not in build_response(parse_request(b'{"provider": "generic"}'), Outcome())["event"]
    from_source = parse_request(b'{"provider": "my-supervisor", "source": "Gemini-CLI"}')
    assert build_response(from_source, Outcome())["event"]["provider"] == "gemini"
    hinted = parse_request(b'{"provider": "kimi", "source": "codex"}')
    assert build_response(hinted, Outcome())["event"]["provider"] == "kimi"


def test_generated_ids_are_distinct_and_well_formed() -> None:
    ids = {new_hook_id() for _ in range(200)}
    assert len(ids) == 200 and all(HOOK_ID.match(i) for i in ids)
    doc = build_response(_request(), Outcome(blocked=True))
    assert HOOK_ID.match(doc["correlation_id"]) and HOOK_ID.match(doc["tracking_id"])
    assert doc["correlation_id"] != doc["tracking_id"]


def test_encoding() -> None:
    doc = {"a": "<&> é \u2028\u2029", "b": [1, {"c": None}]}
    data = encode(doc)
    assert data.endswith(b"}\n") and data.count(b"\n") == data.decode().count("\n")
    text = data.decode("utf-8")
    assert '"a": "<&> é \\u2028\\u2029"' in text and "\u2028" not in text
    assert text.startswith('{\n  "a": ') and json.loads(text) == doc
    lone = encode({"id": json.loads('"x\\ud800y"')})
    assert json.loads(lone) == {"id": "x\ufffdy"}


def test_lone_surrogate_correlation_id_round_trips_as_replacement() -> None:
    request = parse_request(b'{"correlation_id": "id-\\udc00"}')
    assert json.loads(encode(build_response(request, Outcome())))["correlation_id"] == "id-\ufffd"
