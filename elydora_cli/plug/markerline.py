"""The marker line of a generated file (Cline's hook files, the plugin modules): compact JSON in canonical
base64url without padding, after a fixed prefix. One home for its encoding and its strict decoding."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from elydora_config.errors import MalformedConfigError
from elydora_config.keys import b64url_decode, b64url_encode

if TYPE_CHECKING:
    from typing import Any, TypeVar

    M = TypeVar("M")


def broken(path: Path, reason: str) -> MalformedConfigError:
    return MalformedConfigError(path, f"its Elydora marker is unreadable ({reason}); move the file away or delete it")


def encode(data: dict[str, Any]) -> str:
    raw = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return b64url_encode(raw)


def decode(encoded: str, path: Path) -> Any:
    """The JSON value of a marker; anything but canonical base64url of UTF-8 JSON raises :func:`broken`."""
    try:
        raw = b64url_decode(encoded)
        if b64url_encode(raw) != encoded:
            raise broken(path, "not canonical base64url")
        return json.loads(raw.decode("utf-8"))
    except ValueError as exc:  # binascii.Error, UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise broken(path, str(exc)) from None


def read(text: str | None, path: Path, marker_of: Callable[[str, Path], M | None], missing: str) -> M | str:
    """The marker of a generated file as ``status`` sees it, or the problem: ``missing`` (no file), the broken
    marker's reason, or a file without our marker."""
    if text is None:
        return missing
    try:
        found = marker_of(text, path)
    except MalformedConfigError as exc:
        return exc.reason
    return "has no Elydora marker: another integration owns it" if found is None else found
