"""How the CLI reads its files (``elydora_cli.readpass``): plain reads read again every time; inside one read
pass a file is read once (whatever limit a later read gives, as long as the file fits it), a value computed once,
and every directory opened once (``elydora_config.paths.DirectoryCache``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from elydora_cli.readpass import DIRECT, ReadPass
from elydora_config import _sysio
from elydora_config.errors import FileTooLargeError


def test_a_kept_value_lives_as_long_as_its_pass() -> None:
    calls: list[int] = []

    def compute() -> int:
        calls.append(1)
        return len(calls)

    assert DIRECT.kept("k", compute) == 1 and DIRECT.kept("k", compute) == 2  # plain reads: every time
    with ReadPass() as reads:
        assert reads.kept("k", compute) == 3
        assert reads.kept("k", compute) == 3
        assert DIRECT.kept("k", compute) == 4  # another reader keeps nothing of the pass
    with ReadPass() as reads:
        assert reads.kept("k", compute) == 5  # a new pass computes again


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
    with ReadPass() as reads:
        assert reads.read_physical(small, max_bytes=100) == b"12345"
        assert reads.read_physical(small, max_bytes=100, text=True) == "12345"
        assert reads.read_physical(big, max_bytes=100) == b"x" * 50
        with pytest.raises(FileTooLargeError) as kept:
            reads.read_physical(big, max_bytes=10)
        assert files == ["small", "big", "big"]
        assert len(directories) == len(tmp_path.parts)  # "/" and each component, once
    with pytest.raises(FileTooLargeError) as fresh:
        DIRECT.read_physical(big, max_bytes=10)
    assert str(kept.value) == str(fresh.value)
    small.write_bytes(b"123456")
    with ReadPass() as reads:
        with pytest.raises(FileTooLargeError):
            reads.read_physical(small, max_bytes=5)  # a refused read keeps nothing: the next one reads again
        small.write_bytes(b"12345")
        assert reads.read_physical(small, max_bytes=5) == b"12345"


def test_one_read_serves_every_limit_the_file_fits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file read under one limit is not read again under another it fits (the bytes would be the same); under
    a limit it exceeds it is read again, and refused as a plain read refuses it. A missing file is missing under
    every limit."""
    path = tmp_path / "f"
    path.write_bytes(b"x" * 50)
    opened: list[str] = []
    real_open = _sysio.open_file

    def counting(name: str, flags: int, *args: Any, **kwargs: Any) -> int:
        if not flags & _sysio.O_DIRECTORY:
            opened.append(name)
        return real_open(name, flags, *args, **kwargs)

    monkeypatch.setattr(_sysio, "open_file", counting)
    with ReadPass() as reads:
        first = reads.read_physical_stat(path, max_bytes=100)
        assert first is not None and first.data == b"x" * 50
        assert reads.read_physical_stat(path, max_bytes=1000) is first
        assert reads.read_physical_stat(path, max_bytes=50) is first
        assert opened == ["f"]
        with pytest.raises(FileTooLargeError) as kept:
            reads.read_physical(path, max_bytes=49)
        assert opened == ["f", "f"]  # over the limit: read again, and refused
        assert reads.read_physical(tmp_path / "absent", max_bytes=10) is None
        assert reads.read_physical(tmp_path / "absent", max_bytes=1 << 20, text=True) is None
        assert opened == ["f", "f", "absent"]
    with pytest.raises(FileTooLargeError) as fresh:
        DIRECT.read_physical(path, max_bytes=49)
    assert str(kept.value) == str(fresh.value)


def test_plain_reads_read_again(tmp_path: Path) -> None:
    path = tmp_path / "file"
    path.write_bytes(b"one")
    assert DIRECT.read_physical(path, max_bytes=10) == b"one"
    path.write_bytes(b"two")
    assert DIRECT.read_physical(path, max_bytes=10, text=True) == "two"
    assert DIRECT.read_physical(tmp_path / "absent", max_bytes=10) is None


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts descriptors in /proc")
def test_a_pass_closes_its_directories(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "f").write_bytes(b"x")
    before = len(list(Path("/proc/self/fd").iterdir()))
    with ReadPass() as reads:
        assert reads.read_physical(tmp_path / "a" / "f", max_bytes=10) == b"x"
        assert len(list(Path("/proc/self/fd").iterdir())) > before  # the walked directories stay open
    assert len(list(Path("/proc/self/fd").iterdir())) == before
