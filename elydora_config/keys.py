"""Ed25519 identities: generation, canonical one-line encoding, strict decoding.

The canonical form of a private key is the unpadded base64url encoding of its 32-byte seed (43 characters).
Decoding refuses anything that does not re-encode to exactly the same text (padding, whitespace, standard
base64 alphabet, non-zero trailing bits, wrong length), so one key has exactly one spelling.
"""

from __future__ import annotations

import binascii
from typing import TYPE_CHECKING

from .errors import InvalidKeyError, PathLike

if TYPE_CHECKING:  # cryptography is imported by the functions that make or use keys, not by checking one
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

_B64URL = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
_TO_URL = bytes.maketrans(b"+/", b"-_")
_FROM_URL = bytes.maketrans(b"-_", b"+/")
"""base64url is base64 with ``-`` and ``_`` for ``+`` and ``/``: :mod:`binascii` does the rest (the
:mod:`base64` module would load :mod:`struct` too, on every ``status``)."""


def b64url_encode(data: bytes) -> str:
    """Unpadded URL-safe base64 of ``data``."""
    return binascii.b2a_base64(data, newline=False).translate(_TO_URL).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    """:func:`base64.urlsafe_b64decode` of ``text`` with its padding restored: characters outside the alphabet
    are skipped, a wrong length raises :class:`binascii.Error` (both are ``ValueError``)."""
    try:
        data = text.encode("ascii")
    except UnicodeEncodeError:
        raise ValueError("string argument should contain only ASCII characters") from None  # base64's words
    return binascii.a2b_base64((data + b"=" * (-len(data) % 4)).translate(_FROM_URL))


def b64url_decode_strict(text: str, *, length: int, what: str, path: PathLike | None = None) -> bytes:
    """Decode unpadded base64url of exactly ``length`` bytes; refuse any non-canonical spelling."""
    if not _B64URL.issuperset(text):
        raise InvalidKeyError(path, f"{what} is not unpadded base64url")
    try:
        raw = b64url_decode(text)
    except (binascii.Error, ValueError):
        raise InvalidKeyError(path, f"{what} is not valid base64url") from None
    if len(raw) != length or b64url_encode(raw) != text:
        raise InvalidKeyError(path, f"{what} is not the canonical encoding of {length} bytes")
    return raw


def generate_private_key() -> Ed25519PrivateKey:
    """A new random Ed25519 private key."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    return Ed25519PrivateKey.generate()


def encode_private_key(key: Ed25519PrivateKey) -> str:
    """The canonical one-line text of ``key`` (no trailing newline)."""
    from cryptography.hazmat.primitives import serialization

    seed = key.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )
    return b64url_encode(seed)


def decode_private_key(text: str, *, path: PathLike | None = None) -> Ed25519PrivateKey:
    """Strictly decode a canonical private key (one trailing newline is tolerated)."""
    return private_key_from_seed(decode_private_seed(text, path=path))


def private_key_from_seed(seed: bytes) -> Ed25519PrivateKey:
    """The Ed25519 key of a 32-byte seed. Made by cryptography's Rust binding directly where it has one (the
    same key object the public class returns): the public module's Python layers (its ``utils``, ``enum``,
    the serialization module) cost the audit hook's detached flusher a few ms on every start."""
    try:
        from cryptography.hazmat.bindings._rust import openssl as rust_openssl

        return rust_openssl.ed25519.from_private_bytes(seed)
    except (ImportError, AttributeError):  # another layout of the binding: the public API
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        return Ed25519PrivateKey.from_private_bytes(seed)


def decode_private_seed(text: str, *, path: PathLike | None = None) -> bytes:
    """The 32-byte seed of a canonical private key (one trailing newline is tolerated), strictly decoded."""
    body = text[:-1] if text.endswith("\n") else text
    return b64url_decode_strict(body, length=32, what="private key", path=path)


def encode_public_key(key: Ed25519PublicKey) -> str:
    """The canonical text of a public key: unpadded URL-safe base64 of its 32 raw bytes."""
    from cryptography.hazmat.primitives import serialization

    return b64url_encode(key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw))


def decode_public_key(text: str, *, path: PathLike | None = None) -> Ed25519PublicKey:
    """The Ed25519 public key of its canonical text (:class:`InvalidKeyError` otherwise)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    raw = b64url_decode_strict(text, length=32, what="public key", path=path)
    return Ed25519PublicKey.from_public_bytes(raw)
