"""Canonical Ed25519 key encoding and strict decoding."""

from __future__ import annotations

import base64
import sys
from collections.abc import Callable

import pytest

from elydora_config.errors import InvalidKeyError
from elydora_config.keys import (
    b64url_decode,
    b64url_decode_strict,
    b64url_encode,
    decode_private_key,
    decode_public_key,
    encode_private_key,
    encode_public_key,
    generate_private_key,
    private_key_from_seed,
)


def test_round_trip_and_signature():
    key = generate_private_key()
    text = encode_private_key(key)
    assert len(text) == 43 and "=" not in text
    again = decode_private_key(text + "\n")
    assert encode_private_key(again) == text
    signature = again.sign(b"message")
    decode_public_key(encode_public_key(key.public_key())).verify(signature, b"message")


def _variants(text: str) -> list[str]:
    seed = base64.urlsafe_b64decode(text + "=")
    last = text[-1]
    alphabet = "AEIMQUYcgkosw048"  # characters whose low 2 bits are zero
    other = next(c for c in "BCDFGHJKLNOPRSTVWXZabdefhijlmnpqrtuvxyz1235679-_" if c != last)
    variants = [
        text + "=",  # padding
        " " + text,  # whitespace
        text + "\n\n",  # two newlines
        text[:-1],  # short
        text + "A",  # long
        base64.b64encode(seed).decode().rstrip("="),  # standard alphabet (when it differs)
        text[:-1] + other,  # non-zero trailing bits (when last char had them zero) or different key
    ]
    if last in alphabet:
        variants.append(text[:-1] + chr(ord(last) + 1))
    return [v for v in variants if v.rstrip("\n") != text]


def test_non_canonical_spellings_refused():
    for _ in range(20):
        text = encode_private_key(generate_private_key())
        for variant in _variants(text):
            try:
                decoded = decode_private_key(variant)
            except InvalidKeyError:
                continue
            # Only a different, equally canonical key may decode: it must re-encode to itself.
            assert encode_private_key(decoded) == variant.rstrip("\n")
            assert variant.rstrip("\n") != text


def test_error_names_path_without_secret():
    secret = encode_private_key(generate_private_key())
    with pytest.raises(InvalidKeyError) as info:
        decode_private_key(secret + "=", path="/home/u/.elydora/a/private.key")
    assert "/home/u/.elydora/a/private.key" in str(info.value)
    assert secret not in str(info.value)


@pytest.mark.parametrize("binding", ["rust", "public"])
def test_a_key_from_its_seed_signs_as_the_public_class_does(binding: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    if binding == "public":  # a cryptography whose binding is not where we look: the public API is used
        monkeypatch.setitem(sys.modules, "cryptography.hazmat.bindings._rust", None)
    seed = bytes(range(32))
    key = private_key_from_seed(seed)
    reference = Ed25519PrivateKey.from_private_bytes(seed)
    assert isinstance(key, Ed25519PrivateKey)
    assert key.sign(b"record") == reference.sign(b"record")  # Ed25519 signatures are deterministic
    assert encode_private_key(key) == base64.urlsafe_b64encode(seed).rstrip(b"=").decode()


def test_base64url_agrees_with_the_base64_module() -> None:
    """The encoding is done with binascii alone (no base64/struct import): it matches base64's for every length,
    and decoding takes exactly what base64 decodes back, refusing the rest."""
    import os

    for length in range(70):
        data = os.urandom(length)
        text = base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")
        assert b64url_encode(data) == text
        assert b64url_decode_strict(text, length=length, what="it") == data
    for text in ("", "A", "AB", "ABC", "AB-_", "A+/A", "AB==", "ABC=", "é" * 4, "AA AA", "AAAA\n"):
        try:
            expected = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)) if text.isascii() else None
        except ValueError:
            expected = None
        try:
            got: bytes | None = b64url_decode_strict(text, length=len(expected or b""), what="it")
        except InvalidKeyError:
            got = None
        canonical = expected is not None and base64.urlsafe_b64encode(expected).rstrip(b"=").decode() == text
        assert got == (expected if canonical and all(c.isalnum() or c in "-_" for c in text) else None), text


@pytest.mark.parametrize(
    "text", ["", "A", "AB", "ABC", "ABCD", "AB-_", "A+/A", "AB==", "A=B", "AAAAA", "!!!!", "QUJDRA", "é", "AA AA"]
)
def test_lenient_base64url_decoding_is_the_base64_modules(text: str) -> None:
    """Same bytes, or the same error and message, as ``base64.urlsafe_b64decode`` (markers report its words)."""
    def outcome(decode: Callable[[str], bytes]) -> tuple[str, object]:
        try:
            return "ok", decode(text)
        except ValueError as exc:
            return type(exc).__name__, str(exc)

    assert outcome(b64url_decode) == outcome(lambda t: base64.urlsafe_b64decode(t + "=" * (-len(t) % 4)))
