"""Every answer of ``POST /v1/operations`` that is not an accepted receipt, classified in one place.

=====================  ==========================================================================
verdict                what the flusher does
=====================  ==========================================================================
``TRANSIENT``          retry with exponential back-off, honouring ``Retry-After`` (network errors,
                       429, 5xx, a 2xx that is not a matching receipt, e.g. a maintenance page)
``RESYNC``             ``PREV_HASH_MISMATCH``: our own candidate was accepted, or re-base on the
                       server's chain head
``RESIGN``             ``REPLAY_DETECTED``: the nonce is burnt; sign the record again (fresh nonce)
``RESIGN_CLOCK``       ``TTL_EXPIRED``: sign again with a time corrected from the server's ``Date``
``RECORD``             permanent for this record (``PAYLOAD_TOO_LARGE``, ``VALIDATION_ERROR`` and any
                       other 4xx refusal): quarantine it with the server's answer, write a signed
                       gap entry, deliver the rest
``AGENT``              permanent for the agent (401, 403 ``AGENT_FROZEN``/``KEY_REVOKED``/``FORBIDDEN``,
                       404 ``UNKNOWN_AGENT``, ``INVALID_SIGNATURE``): stop delivering, keep everything,
                       report it (``delivery-stopped``, read by ``status`` and the guard)
=====================  ==========================================================================

Only the codes and statuses are used, never the (localised) message text, except the expected hash
of ``PREV_HASH_MISMATCH``, which is structured (a 43-character hash in quotes).
"""

from __future__ import annotations

TRANSIENT = "transient"
RESYNC = "resync"
RESIGN = "resign"
RESIGN_CLOCK = "resign-clock"
RECORD = "record"
AGENT = "agent"

_BY_CODE = {
    "PREV_HASH_MISMATCH": RESYNC,
    "REPLAY_DETECTED": RESIGN,
    "TTL_EXPIRED": RESIGN_CLOCK,
    "PAYLOAD_TOO_LARGE": RECORD,
    "VALIDATION_ERROR": RECORD,
    "INVALID_SIGNATURE": AGENT,
    "UNAUTHORIZED": AGENT,
    "AGENT_FROZEN": AGENT,
    "KEY_REVOKED": AGENT,
    "FORBIDDEN": AGENT,
    "UNKNOWN_AGENT": AGENT,
    "INTERNAL_ERROR": TRANSIENT,
}


def classify(status: int, code: str | None) -> str:
    """The verdict for one refused attempt (``status`` is the HTTP status, ``code`` the error code)."""
    if status == 429 or status >= 500:
        return TRANSIENT
    if code in _BY_CODE:
        return _BY_CODE[code]
    if status in (401, 403, 404):
        return AGENT
    if 400 <= status < 500:
        return RECORD
    return TRANSIENT  # 1xx/2xx/3xx without a receipt: not an answer of the server's API


def describe(status: int, code: str | None) -> str:
    return f"{status} {code}" if code else str(status)
