"""The server's signed receipt (the body of ``202 {"receipt": {...}}``): match it, keep it, verify it.

A record counts as delivered only when the answer is a receipt for *that* record: its ``operation_id`` and
``chain_hash`` equal the record's. The receipt is kept in the ledger entry (``"receipt"``).

Verification (``elydora audit verify``, when the server's key set was saved to ``server-jwks.json``):
``receipt_hash`` = unpadded base64url SHA-256 of the RFC 8785 form of the receipt's content fields (every
member except ``receipt_hash``, ``elydora_kid`` and ``elydora_signature``), and ``elydora_signature`` is
the server's Ed25519 signature over the UTF-8 text of ``receipt_hash``, made with the key of the JWKS
whose ``kid`` is ``elydora_kid``.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from .jcs import CanonicalizationError, canonicalize
from .record import b64url, b64url_decode

if TYPE_CHECKING:  # reading the ledger (audit tail) loads no cryptography; checking a receipt does
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

_PROOF = ("receipt_hash", "elydora_kid", "elydora_signature")


def receipt_of(body: Any, record: dict[str, Any]) -> dict[str, Any] | None:
    """The receipt in a 202 body when it is the receipt of ``record``, else ``None``."""
    receipt = body.get("receipt") if isinstance(body, dict) else None
    if not isinstance(receipt, dict):
        return None
    if receipt.get("operation_id") != record["operation_id"] or receipt.get("chain_hash") != record["chain_hash"]:
        return None
    return receipt


def jwks_keys(jwks: Any) -> dict[str, Ed25519PublicKey]:
    """``kid`` -> Ed25519 public key for every usable key of a JWKS document."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    found: dict[str, Ed25519PublicKey] = {}
    keys = jwks.get("keys") if isinstance(jwks, dict) else None
    for key in keys if isinstance(keys, list) else []:
        if not isinstance(key, dict) or key.get("kty") != "OKP" or key.get("crv") != "Ed25519":
            continue
        try:
            found[str(key["kid"])] = Ed25519PublicKey.from_public_bytes(b64url_decode(str(key["x"])))
        except (KeyError, ValueError, TypeError):
            continue
    return found


def check_receipt(receipt: Any, record: dict[str, Any], keys: dict[str, Ed25519PublicKey]) -> str | None:
    """Why ``receipt`` is not the server's valid receipt of ``record``, or ``None`` when it is."""
    if not isinstance(receipt, dict) or receipt_of({"receipt": receipt}, record) is None:
        return "the receipt does not name this record's operation_id and chain_hash"
    key = keys.get(str(receipt.get("elydora_kid")))
    if key is None:
        return f"the receipt's server key {receipt.get('elydora_kid')!r} is not in server-jwks.json"
    try:
        content = canonicalize({k: v for k, v in receipt.items() if k not in _PROOF})
        signature = b64url_decode(str(receipt["elydora_signature"]))
    except (CanonicalizationError, KeyError, ValueError):
        return "the receipt is malformed"
    if b64url(hashlib.sha256(content).digest()) != receipt.get("receipt_hash"):
        return "receipt_hash does not match the receipt"
    from cryptography.exceptions import InvalidSignature

    try:
        key.verify(signature, str(receipt["receipt_hash"]).encode())
    except InvalidSignature:
        return "the server's signature on the receipt is not valid"
    return None
