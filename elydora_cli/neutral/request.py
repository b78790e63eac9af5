"""The hook request: bounded reading, JSON framing, alias decoding and declared-mode validation.

One request is one JSON object of at most 1 MiB. When its ``contract_version`` is a non-empty string the
request is *declared*: the version must be ``coding-ethos.hook/v1``, only the canonical fields may appear
and they are checked for length and control characters. Otherwise the request is decoded *leniently*:
each field may come under one of several aliases (``hookEventName``, ``toolInput``, nested ``tool_call``
objects, ...) and nothing is length-checked. Event and tool names are normalised in both modes, before
validation (:mod:`.aliases`).
"""

from __future__ import annotations

import json
import math
from typing import Any, BinaryIO

from elydora_config.records import field, record, replace

from .aliases import normalise_event, normalise_tool
from .contract import (
    CANONICAL_FIELDS,
    CANONICAL_LIMITS,
    CONTRACT_VERSION,
    EVENTS,
    MAX_INPUT_BYTES,
    OPTIONAL_STRING_ORDER,
    ContractError,
    has_control,
    resolve_declared_provider,
    utf8_length,
)

_WS = " \t\n\r"
_PROVIDER_KEYS = ("provider", "agent", "runtime")
_EVENT_KEYS = ("hook_event_name", "hookEventName", "event", "event_name")
_SESSION_KEYS = ("session_id", "sessionID", "sessionId")
_CWD_KEYS = ("cwd", "working_directory", "workingDirectory")
_TOOL_NAME_KEYS = ("tool_name", "toolName", "tool")
_TOOL_INPUT_KEYS = ("tool_input", "toolInput", "input", "arguments", "args", "parameters")
_TOOL_RESPONSE_KEYS = ("tool_response", "toolResponse", "response", "output", "result")
_TRANSCRIPT_KEYS = ("transcript_path", "transcriptPath")
_MODEL_KEYS = ("model", "model_name", "modelName")
_CONTEXT_KEYS = (
    "context_window_tokens",
    "contextWindowTokens",
    "context_length",
    "contextLength",
    "max_context_tokens",
    "maxContextTokens",
)
_NESTED_TOOL_KEYS = ("tool_call", "toolCall", "tool")
_NESTED_NAME_KEYS = ("name", "tool_name", "toolName", "tool")
_NESTED_INPUT_KEYS = ("input", "arguments", "args", "parameters")
_NESTED_RESPONSE_KEYS = ("response", "output", "result")
_CODE_KEYS = ("return_code", "returnCode", "exitCode", "exit_code", "code")
_STATE_KEYS = ("status", "state", "outcome")


@record(frozen=True)
class HookRequest:
    """A decoded, normalised request. Empty strings and ``0`` mean "absent"."""

    declared: bool
    hook_event_name: str = ""
    provider_hint: str = ""
    source: str = ""
    """The request's own ``source`` field (see :attr:`effective_source` for the defaulted value)."""
    correlation_id: str = ""
    session_id: str = ""
    cwd: str = ""
    transcript_path: str = ""
    matcher: str = ""
    model: str = ""
    tool_name: str = ""
    tool_input: dict[str, Any] = field(default_factory=dict)
    tool_response: dict[str, Any] | None = None
    context_window_tokens: int = 0

    @property
    def effective_source(self) -> str:
        return self.source or self.provider_hint

    @property
    def command(self) -> str:
        value = self.tool_input.get("command")
        return value if isinstance(value, str) else ""

    def with_provider(self, hint: str) -> HookRequest:
        """The request with its provider hint replaced (``--provider``, applied after validation)."""
        return replace(self, provider_hint=hint)


def read_bounded(stream: BinaryIO) -> bytes:
    """All of ``stream`` when it holds at most 1 MiB; :class:`ContractError` before any parsing otherwise."""
    data = stream.read(MAX_INPUT_BYTES + 1)
    check_size(data)
    return data


def check_size(data: bytes) -> None:
    if len(data) > MAX_INPUT_BYTES:
        raise ContractError(f"payload exceeds {MAX_INPUT_BYTES} bytes")


def parse_request(data: bytes) -> HookRequest:
    """Size check, JSON framing, decoding and (for a declared request) validation."""
    check_size(data)
    return from_object(decode_object(data))


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:40]} is out of range")
    return value


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite)


def _skip(text: str, index: int) -> int:
    while index < len(text) and text[index] in _WS:
        index += 1
    return index


def decode_object(data: bytes) -> dict[str, Any]:
    """Exactly one JSON object (whitespace around it allowed; ``null`` counts as ``{}``)."""
    text = data.decode("utf-8", "replace")
    start = _skip(text, 0)
    if start == len(text):
        raise ContractError("decode hook event: empty input")
    try:
        value, end = _DECODER.raw_decode(text, start)
    except (ValueError, RecursionError) as exc:
        raise ContractError(f"decode hook event: {_short(exc)}") from None
    if value is None:
        value = {}
    if not isinstance(value, dict):
        raise ContractError(f"decode hook event: expected a JSON object, got {type(value).__name__}")
    rest = _skip(text, end)
    if rest < len(text):
        try:
            _DECODER.raw_decode(text, rest)
        except (ValueError, RecursionError):
            raise ContractError("decode hook event: trailing data after the JSON object") from None
        raise ContractError("decode hook event: multiple JSON values")
    return value


def _short(exc: BaseException) -> str:
    return "nesting too deep" if isinstance(exc, RecursionError) else str(exc)


def from_object(obj: dict[str, Any]) -> HookRequest:
    """Decode a request object (lenient aliases, normalisation), then validate it when declared."""
    version = obj.get("contract_version")
    declared = isinstance(version, str) and bool(version)
    if declared and version != CONTRACT_VERSION:
        raise ContractError(f"invalid hook request: unsupported contract_version {_show(str(version))}")
    request = _decode(obj, declared)
    if declared:
        _validate(obj, request)
    return request


def _decode(obj: dict[str, Any], declared: bool) -> HookRequest:
    tool_name = _string(obj, _TOOL_NAME_KEYS)
    tool_input = _object(obj, _TOOL_INPUT_KEYS)
    tool_response = _response(obj, _TOOL_RESPONSE_KEYS)
    for key in _NESTED_TOOL_KEYS:
        nested = obj.get(key)
        if isinstance(nested, dict):
            tool_name = tool_name or _string(nested, _NESTED_NAME_KEYS)
            tool_input = tool_input if tool_input is not None else _object(nested, _NESTED_INPUT_KEYS)
            tool_response = tool_response if tool_response is not None else _response(nested, _NESTED_RESPONSE_KEYS)
    canonical_name, normalised_input = normalise_tool(tool_name, tool_input or {})
    return HookRequest(
        declared=declared,
        hook_event_name=normalise_event(_string(obj, _EVENT_KEYS)),
        provider_hint=_string(obj, _PROVIDER_KEYS),
        source=_string(obj, ("source",)),
        correlation_id=_string(obj, ("correlation_id",)),
        session_id=_string(obj, _SESSION_KEYS),
        cwd=_string(obj, _CWD_KEYS),
        transcript_path=_string(obj, _TRANSCRIPT_KEYS),
        matcher=_string(obj, ("matcher",)),
        model=_string(obj, _MODEL_KEYS),
        tool_name=canonical_name,
        tool_input=normalised_input,
        tool_response=_merge_status(obj, tool_response),
        context_window_tokens=_positive_int(obj, _CONTEXT_KEYS),
    )


def _string(obj: dict[str, Any], keys: tuple[str, ...]) -> str:
    for key in keys:
        value = obj.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def _object(obj: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any] | None:
    for key in keys:
        value = obj.get(key)
        if isinstance(value, dict):
            return value
    return None


def _response(obj: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any] | None:
    for key in keys:
        value = obj.get(key)
        if isinstance(value, dict):
            return value
        if isinstance(value, str):
            return {"output": value}
    return None


def _positive_int(obj: dict[str, Any], keys: tuple[str, ...]) -> int:
    for key in keys:
        value = obj.get(key)
        number = 0
        if isinstance(value, bool):
            continue
        if isinstance(value, int):
            number = value
        elif isinstance(value, float) and value.is_integer():
            number = int(value)
        elif isinstance(value, str):
            digits = value[1:] if value[:1] in "+-" else value
            if digits.isascii() and digits.isdigit():
                number = int(value)
        if number > 0:
            return number
    return 0


def _merge_status(obj: dict[str, Any], response: dict[str, Any] | None) -> dict[str, Any] | None:
    """Top-level exit codes and states join the tool response (its own values win)."""
    extra: dict[str, Any] = {}
    for key in _CODE_KEYS:
        value = obj.get(key)
        if isinstance(value, (int, float, str)) and not isinstance(value, bool):
            extra[key] = value
    for key in _STATE_KEYS:
        value = obj.get(key)
        if isinstance(value, str):
            extra[key] = value
    if not extra:
        return response
    merged = dict(extra)
    merged.update(response or {})
    return merged


def _show(value: str, limit: int = 80) -> str:
    return repr(value if len(value) <= limit else value[:limit] + "...")


def _check(name: str, value: str) -> None:
    limit = CANONICAL_LIMITS[name]
    if utf8_length(value) > limit:
        raise ContractError(f"invalid hook request: {name} exceeds {limit} bytes")
    if has_control(value):
        raise ContractError(f"invalid hook request: {name} contains control characters")


def _validate(obj: dict[str, Any], request: HookRequest) -> None:
    """Declared-mode checks, in the contract's order; the first failure is reported."""
    unknown = sorted(key for key in obj if key not in CANONICAL_FIELDS)
    if unknown:
        raise ContractError(f"invalid hook request: unsupported field {_show(unknown[0])}")
    _check("correlation_id", request.correlation_id)
    event = request.hook_event_name
    if not event.strip():
        raise ContractError("invalid hook request: hook_event_name is required")
    _check("hook_event_name", event)
    if event not in EVENTS:
        raise ContractError(f"invalid hook request: unsupported hook_event_name {_show(event)}")
    provider = request.provider_hint
    if not provider.strip():
        raise ContractError("invalid hook request: provider is required")
    _check("provider", provider)
    if resolve_declared_provider(provider) is None:
        raise ContractError(f"invalid hook request: unsupported provider {_show(provider)}")
    values = {
        "cwd": request.cwd,
        "transcript_path": request.transcript_path,
        "matcher": request.matcher,
        "model": request.model,
        "session_id": request.session_id,
        "source": request.source,
        "tool_name": request.tool_name,
    }
    for name in OPTIONAL_STRING_ORDER:
        _check(name, values[name])
