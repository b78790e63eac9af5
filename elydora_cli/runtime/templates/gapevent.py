"""The gap event the audit hook spools in place of an event it cannot spool as it is.

Inlined into the generated audit hook (``# @inline``); stdlib only, no ``json``. The flusher signs and chains a
gap event like any event, so the ledger holds a signed trace of every event: how many bytes were read, the
SHA-256 of those bytes (unpadded base64url, as everywhere in the ledger), why the event itself is not there,
and its tool name and session when they can be read from the bytes (the first string value of a member of
that name, at most :data:`MEMBER_TEXT_LIMIT` bytes, escapes left as they are). ``hook_event_name`` is
``elydora.gap`` (copy of ``elydora_cli.runtime.dropmark.GAP_EVENT``, pinned by the tests).
"""

from __future__ import annotations

import binascii

GAP_EVENT = "elydora.gap"
GAP_SESSION = "elydora-runtime"
MEMBER_TEXT_LIMIT = 256
TOOL_MEMBERS = (b'"tool_name"', b'"toolName"', b'"tool"')
_SESSION_MEMBERS = (b'"session_id"', b'"sessionId"', b'"conversation_id"', b'"sessionID"')
_BLANK = b" \t\r\n"


def member_text(data: bytes, names: tuple[bytes, ...]) -> str | None:
    """The string value of the first member called one of ``names`` found in ``data`` (raw JSON text)."""
    for name in names:
        at = data.find(name)
        while at >= 0:
            i = at + len(name)
            while data[i : i + 1] in _BLANK and i < len(data):
                i += 1
            if data[i : i + 1] == b":":
                i += 1
                while data[i : i + 1] in _BLANK and i < len(data):
                    i += 1
                if data[i : i + 1] != b'"':
                    break
                end = i + 1
                while end < len(data) and end - i <= MEMBER_TEXT_LIMIT and data[end : end + 1] != b'"':
                    end += 2 if data[end : end + 1] == b"\\" else 1
                return data[i + 1 : min(end, i + 1 + MEMBER_TEXT_LIMIT)].decode("utf-8", "replace")
            at = data.find(name, at + 1)
    return None


def json_text(value: str | None) -> str:
    """``value`` as a JSON string (``null`` for ``None``)."""
    if value is None:
        return "null"
    out = []
    for c in value:
        if c in '"\\':
            out.append("\\" + c)
        elif c < " " or c == "\x7f":
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def b64url_sha256(data: bytes, digest: object) -> str:
    """Unpadded base64url SHA-256 of what was read: ``digest`` (a ``hashlib`` object fed every byte) when the
    reader made one, else of ``data`` (then all that was read)."""
    raw = digest.digest() if digest is not None else __import__("hashlib").sha256(data).digest()  # type: ignore[attr-defined]
    return binascii.b2a_base64(raw, newline=False).rstrip(b"=").replace(b"+", b"-").replace(b"/", b"_").decode()


def gap_line(reason: str, detail: str, data: bytes, size: int, digest: object, provider: str) -> bytes:
    """The gap event (a JSON object, one line) for an event of ``size`` bytes that was not spooled."""
    session = member_text(data, _SESSION_MEMBERS) or GAP_SESSION
    tool = member_text(data, TOOL_MEMBERS)
    text = (
        f'{{"hook_event_name":"{GAP_EVENT}","session_id":{json_text(session)},"tool_name":"elydora",'
        f'"reason":{json_text(reason)},"detail":{json_text(detail)},"provider":{json_text(provider)},'
        f'"event":{{"bytes":{size},"sha256":"{b64url_sha256(data, digest)}","tool_name":{json_text(tool)}}}}}'
    )
    return text.encode("utf-8")
