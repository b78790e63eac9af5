"""The Elydora Operation Record (EOR): derive, hash, chain, sign and verify.

Signed fields (14): ``op_version``, ``operation_id`` (UUIDv7), ``org_id``, ``agent_id``, ``issued_at``,
``ttl_ms``, ``nonce``, ``operation_type``, ``subject``, ``action``, ``payload``, ``payload_hash``,
``prev_chain_hash``, ``agent_pubkey_kid``. ``chain_hash`` = b64url(SHA-256(``prev|payload_hash|op_id|
issued_at``)); ``signature`` = b64url(Ed25519(JCS(signed fields))).

A payload whose canonical form exceeds the server's 256 KiB cap is sent in a reduced form (see
:func:`reduce_payload`) that keeps the event's structure with long strings cut in place, is guaranteed to
fit, and commits to the SHA-256 of the full payload's canonical form; the full payload stays in the local
ledger next to the record.
"""

from __future__ import annotations

import base64
import hashlib
import os
import time
from typing import TYPE_CHECKING, Any

from .jcs import canonicalize

if TYPE_CHECKING:  # the keys are passed in: reading records (audit tail) needs no cryptography
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

OP_VERSION = "1.0"
OPERATION_TYPE = "ai.tool_use"
TTL_MS = 30_000  # a slow client clock is corrected from the server's Date header (see deliver.py)
SERVER_PAYLOAD_LIMIT = 262_144  # UTF-8 bytes of JSON.stringify(payload) (= its RFC 8785 form's size)
REDUCED_MARKER = "elydora_reduced"
REDUCED_SCALAR_LIMIT = 1024
CUT_MARK = "\u2026[elydora: {} chars cut]"
CUT_SLACK = 32
SIGNED_FIELDS = (
    "op_version",
    "operation_id",
    "org_id",
    "agent_id",
    "issued_at",
    "ttl_ms",
    "nonce",
    "operation_type",
    "subject",
    "action",
    "payload",
    "payload_hash",
    "prev_chain_hash",
    "agent_pubkey_kid",
)
RECORD_FIELDS = (*SIGNED_FIELDS, "chain_hash", "signature")
_SESSION_KEYS = ("conversation_id", "session_id", "sessionId", "session", "taskId", "sessionID")
_PLACE_KEYS = ("working_directory", "cwd")
"""Where a payload without a session id says the agent works (Letta Code: ``working_directory``)."""
PLACE_PREFIX = "dir:"
_TOOL_KEYS = ("tool_name", "toolName", "name", "tool")
_NESTED_TOOL_KEYS = ("tool_result", "tool_call")


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def uuid7(now_ms: int, random_bytes: bytes | None = None) -> str:
    """A UUIDv7: 48-bit millisecond time, version 7, variant 0b10, 74 random bits; lower-case text."""
    rand = int.from_bytes(random_bytes if random_bytes is not None else os.urandom(10), "big")
    value = (now_ms & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76
    value |= ((rand >> 62) & 0xFFF) << 64
    value |= 0b10 << 62
    value |= rand & ((1 << 62) - 1)
    text = f"{value:032x}"
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def _label(value: Any) -> str | None:
    if isinstance(value, str) and value:
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def session_of(payload: dict[str, Any]) -> str:
    """The first present of conversation_id, session_id, sessionId, session, taskId, sessionID (OpenCode); for a
    payload with none (Letta Code sends no session id), ``dir:`` + its working_directory (or cwd): the same for
    every call made in one directory, so the records of one project share a subject; else ``unknown``."""
    for key in _SESSION_KEYS:
        label = _label(payload.get(key))
        if label is not None:
            return label
    for key in _PLACE_KEYS:
        place = payload.get(key)
        if isinstance(place, str) and place:
            return PLACE_PREFIX + place
    return "unknown"


def tool_of(payload: dict[str, Any]) -> str:
    """The first present of tool_name, toolName, name, tool (OpenCode), tool_result.name, tool_call.name; else
    ``unknown``."""
    for key in _TOOL_KEYS:
        label = _label(payload.get(key))
        if label is not None:
            return label
    for key in _NESTED_TOOL_KEYS:
        nested = payload.get(key)
        if isinstance(nested, dict):
            label = _label(nested.get("name"))
            if label is not None:
                return label
    return "unknown"


def payload_hash(payload: Any) -> str:
    return b64url(hashlib.sha256(canonicalize(payload)).digest())


def chain_hash(prev_chain_hash: str, payload_hash_text: str, operation_id: str, issued_at: int) -> str:
    text = f"{prev_chain_hash}|{payload_hash_text}|{operation_id}|{issued_at}"
    return b64url(hashlib.sha256(text.encode("utf-8")).digest())


def _cut(value: Any, cap: int, cuts: list[int]) -> Any:
    """A copy of ``value`` where every string longer than ``cap`` (plus room for the marker) is cut."""
    if isinstance(value, str):
        if len(value) <= cap + CUT_SLACK:
            return value
        cuts.append(len(value) - cap)
        return value[:cap] + CUT_MARK.format(len(value) - cap)
    if isinstance(value, dict):
        return {key: _cut(item, cap, cuts) for key, item in value.items()}
    if isinstance(value, list):
        return [_cut(item, cap, cuts) for item in value]
    return value


def _marker(canonical: bytes, how: str, **extra: Any) -> dict[str, Any]:
    return {
        "reason": f"payload exceeds {SERVER_PAYLOAD_LIMIT} bytes",
        "how": how,
        "full_payload_hash": b64url(hashlib.sha256(canonical).digest()),
        "full_payload_bytes": len(canonical),
        **extra,
    }


def _fits(payload: dict[str, Any]) -> bool:
    return len(canonicalize(payload)) <= SERVER_PAYLOAD_LIMIT


def _truncated(body: dict[str, Any], canonical: bytes, cap: int) -> dict[str, Any]:
    cuts: list[int] = []
    reduced: dict[str, Any] = _cut(body, cap, cuts)
    reduced[REDUCED_MARKER] = _marker(canonical, "truncated", strings_cut=len(cuts), chars_cut=sum(cuts))
    return reduced


def reduce_payload(payload: dict[str, Any], canonical: bytes) -> dict[str, Any]:
    """The documented reduced form of an oversized payload; its canonical form always fits the limit.

    1. Every member is kept (``tool_input`` included); strings longer than a cap are cut in place to the
       cap followed by ``…[elydora: N chars cut]``. The cap is the largest that fits (binary search).
    2. If even an empty cap does not fit (a huge number of members), only the top-level members that are
       null, booleans, numbers or strings of at most 1024 characters are kept; ``omitted`` names the rest.
    3. If that still does not fit, only the session and tool names are kept.

    ``elydora_reduced`` records how, with the SHA-256 and size of the full payload's canonical JSON, which
    the local ledger keeps whole. Deterministic, so ``audit verify`` recomputes and compares it.
    """
    body = {key: value for key, value in payload.items() if key != REDUCED_MARKER}
    low, high = 0, max((len(s) for s in _strings(body)), default=0)
    if _fits(_truncated(body, canonical, low)):
        while low < high:  # the largest cap whose result fits
            middle = (low + high + 1) // 2
            if _fits(_truncated(body, canonical, middle)):
                low = middle
            else:
                high = middle - 1
        return _truncated(body, canonical, low)
    scalars = {
        key: value
        for key, value in body.items()
        if value is None
        or isinstance(value, (bool, int, float))
        or (isinstance(value, str) and len(value) <= REDUCED_SCALAR_LIMIT)
    }
    omitted = sorted(key for key in body if key not in scalars)
    reduced = dict(scalars, **{REDUCED_MARKER: _marker(canonical, "scalars", omitted=omitted[:100])})
    if _fits(reduced):
        return reduced
    names = {"session_id": session_of(payload), "tool_name": tool_of(payload)}
    return dict(names, **{REDUCED_MARKER: _marker(canonical, "names")})


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def wire_payload(payload: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The payload to sign and send, and whether it had to be reduced."""
    canonical = canonicalize(payload)
    if len(canonical) <= SERVER_PAYLOAD_LIMIT:
        return payload, False
    return reduce_payload(payload, canonical), True


def build_record(
    *,
    org_id: str,
    agent_id: str,
    kid: str,
    key: Ed25519PrivateKey,
    payload: dict[str, Any],
    prev_chain_hash: str,
    now_ms: int | None = None,
) -> dict[str, Any]:
    """A complete signed record (16 fields) for ``payload`` chained after ``prev_chain_hash``."""
    issued_at = now_ms if now_ms is not None else time.time_ns() // 1_000_000
    operation_id = uuid7(issued_at)
    hashed = payload_hash(payload)
    record: dict[str, Any] = {
        "op_version": OP_VERSION,
        "operation_id": operation_id,
        "org_id": org_id,
        "agent_id": agent_id,
        "issued_at": issued_at,
        "ttl_ms": TTL_MS,
        "nonce": b64url(os.urandom(16)),
        "operation_type": OPERATION_TYPE,
        "subject": {"session_id": session_of(payload)},
        "action": {"tool": tool_of(payload)},
        "payload": payload,
        "payload_hash": hashed,
        "prev_chain_hash": prev_chain_hash,
        "agent_pubkey_kid": kid,
    }
    record["chain_hash"] = chain_hash(prev_chain_hash, hashed, operation_id, issued_at)
    record["signature"] = b64url(key.sign(signing_input(record)))
    return record


def signing_input(record: dict[str, Any]) -> bytes:
    return canonicalize({name: record[name] for name in SIGNED_FIELDS})


def check_record(record: Any, public_key: Ed25519PublicKey) -> str | None:
    """Why ``record`` is not a well-formed, correctly hashed and signed EOR, or ``None`` when it is."""
    if not isinstance(record, dict) or set(record) != set(RECORD_FIELDS):
        return "the record does not have exactly the 16 EOR fields"
    if not isinstance(record["payload"], dict) or not isinstance(record["issued_at"], int):
        return "payload or issued_at has the wrong type"
    if payload_hash(record["payload"]) != record["payload_hash"]:
        return "payload_hash does not match the payload"
    expected = chain_hash(
        record["prev_chain_hash"], record["payload_hash"], record["operation_id"], record["issued_at"]
    )
    if expected != record["chain_hash"]:
        return "chain_hash does not match the record"
    from cryptography.exceptions import InvalidSignature

    try:
        public_key.verify(b64url_decode(record["signature"]), signing_input(record))
    except (InvalidSignature, ValueError, TypeError):
        return "the signature is not valid"
    return None
