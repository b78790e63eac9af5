"""The read-only pass of a command (``elydora_cli.readpass``): inside one block a file is read once per limit,
a value computed once, and every directory opened once (``elydora_config.paths.DirectoryCache``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from elydora_cli.readpass import kept_value, read_pass, read_physical
from elydora_config import _sysio
from elydora_config.errors import FileTooLargeError


def test_kept_value_lives_as_long_as_the_block() -> None:
    calls: list[int] = []

    def compute() -> int:
        calls.append(1)
        return len(calls)

    assert kept_value("k", compute) == 1 and kept_value("k", compute) == 2  # outside: every time
    with read_pass():
        assert kept_value("k", compute) == 3
        assert kept_value("k", compute) == 3
        with read_pass():  # nested: the same block
            assert kept_value("k", compute) == 3
    with read_pass():
        assert kept_value("k", compute) == 4  # a new block computes again


def test_a_pass_reads_a_file_once_per_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Inside a pass a read of the same file with the same limit gets the first read's bytes; a read that
    refused keeps nothing; every directory is opened once."""
    small, big = tmp_path / "small", tmp_path / "big"
    small.write_bytes(b"12345")
    big.write_bytes(b"x" * 50)
    files: list[str] = []
    directories: list[str] = []
    real_open = _sysio.open_file

    def counting(name: str, flags: int, *args: Any, **kwargs: Any) -> int:
        (directories if flags & _sysio.O_DIRECTORY else files).append(name)
        return real_open(name, flags, *args, **kwargs)

    monkeypatch.setattr(_sysio, "open_file", counting)
    with read_pass():
        assert read_physical(small, max_bytes=100) == b"12345"
        assert read_physical(small, max_bytes=100, text=True) == "12345"
        assert read_physical(big, max_bytes=100) == b"x" * 50
        with pytest.raises(FileTooLargeError) as kept:
            read_physical(big, max_bytes=10)
        assert files == ["small", "big", "big"]
        assert len(directories) == len(tmp_path.parts)  # "/" and each component, once
    with pytest.raises(FileTooLargeError) as fresh:
        read_physical(big, max_bytes=10)
    assert str(kept.value) == str(fresh.value)
    small.write_bytes(b"123456")
    with read_pass():
        with pytest.raises(FileTooLargeError):
            read_physical(small, max_bytes=5)  # a refused read keeps nothing: the next one reads again
        small.write_bytes(b"12345")
        assert read_physical(small, max_bytes=5) == b"12345"
