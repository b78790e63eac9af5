"""The neutral v1 response: effect derivation, the document, ``hook-`` ids and the byte encoding.

``decision`` is ``deny`` exactly when the outcome is blocked; the effect is ``block`` (``continue`` for a
blocked ``Stop``), ``rewrite`` when an allowed outcome replaces the tool input, else ``allow``. Optional
members are left out when empty. The encoding is two-space indented JSON, UTF-8, with U+2028/U+2029
escaped and a final newline.
"""

from __future__ import annotations

import json
import os
from typing import Any

from elydora_config.records import field, record

from .contract import CONTRACT_VERSION, resolve_provider
from .request import HookRequest

ID_PREFIX = "hook-"
DEFAULT_BLOCK_REASON = "Blocked by Elydora."


def new_hook_id() -> str:
    """``hook-`` and 16 random lowercase hex digits (correlation and tracking ids; opaque)."""
    return ID_PREFIX + os.urandom(8).hex()


@record(frozen=True)
class Outcome:
    """What the decision engine concluded about one event."""

    blocked: bool = False
    reason: str = ""
    updated_input: dict[str, Any] | None = None
    additional_context: str = ""
    decisions: tuple[dict[str, Any], ...] = ()
    advice: dict[str, Any] = field(default_factory=dict)
    tracking_id: str = ""
    runtime_ms: int = 0


def response_provider(request: HookRequest) -> str | None:
    """``event.provider``: the named provider in the hint, else in ``source``; never from the environment."""
    return resolve_provider(request.provider_hint) or resolve_provider(request.source)


def effect(event_name: str, outcome: Outcome) -> dict[str, Any]:
    """The ``effect`` object (``updated_input`` comes first, as in the Coding Ethos encoder)."""
    action = "allow"
    reason = ""
    if outcome.blocked:
        action = "continue" if event_name == "Stop" else "block"
        reason = outcome.reason or DEFAULT_BLOCK_REASON
    elif outcome.updated_input:
        action = "rewrite"
    result: dict[str, Any] = {}
    if outcome.updated_input:
        result["updated_input"] = outcome.updated_input
    result["action"] = action
    if reason:
        result["reason"] = reason
    if outcome.additional_context:
        result["additional_context"] = outcome.additional_context
    return result


def build_response(request: HookRequest, outcome: Outcome) -> dict[str, Any]:
    """The response document for ``request`` (ids generated where the request and outcome have none)."""
    event: dict[str, Any] = {"name": request.hook_event_name}
    provider = response_provider(request)
    if provider:
        event["provider"] = provider
    if request.tool_name:
        event["tool"] = request.tool_name
    doc: dict[str, Any] = {
        "contract_version": CONTRACT_VERSION,
        "correlation_id": request.correlation_id or new_hook_id(),
        "event": event,
        "decision": "deny" if outcome.blocked else "allow",
        "effect": effect(request.hook_event_name, outcome),
        "status": "blocked" if outcome.blocked else "allowed",
    }
    if outcome.blocked:
        doc["tracking_id"] = outcome.tracking_id or new_hook_id()
    if outcome.decisions:
        doc["decisions"] = list(outcome.decisions)
    if outcome.advice:
        doc["advice"] = outcome.advice
    if outcome.runtime_ms > 0:
        doc["runtime_ms"] = outcome.runtime_ms
    return doc


def exit_code(doc: dict[str, Any]) -> int:
    """0 for ``allow`` (any effect, including ``rewrite``), 1 for ``deny``."""
    return 1 if doc["decision"] == "deny" else 0


def encode(doc: Any) -> bytes:
    """Indented UTF-8 JSON with U+2028/U+2029 escaped and lone surrogates replaced, plus a newline."""
    text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from a \\udXXX escape in the request
        return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in text).encode("utf-8")
