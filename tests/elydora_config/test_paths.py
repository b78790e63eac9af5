"""Safe path components and physical directory creation."""

from __future__ import annotations

import stat

import pytest

from elydora_config.errors import UnsafePathError
from elydora_config.paths import check_safe_name, ensure_directory, unsafe_name_reason


@pytest.mark.parametrize(
    "name",
    ["", ".", "..", "a/b", "a\\b", "tab\there", "nul\x00", "del\x7f", "a<b", "a>b", 'a"b', "a|b", "a?b",
     "a*b", "a:b", "trailing.", "trailing ", "CON", "con.txt", "Lpt1", "COM9.json", "aux "],
)
def test_unsafe_names_refused(name):
    assert unsafe_name_reason(name) is not None
    with pytest.raises(UnsafePathError):
        check_safe_name(name)


@pytest.mark.parametrize("name", ["claudecode", "agent-1", "a.b", "console", "com10", "lpt", ".hidden", "ünï"])
def test_safe_names_accepted(name):
    assert check_safe_name(name) == name


def test_ensure_directory_creates_private_chain(tmp_path):
    target = tmp_path / "a" / "b" / "c"
    created = ensure_directory(target)
    assert created == [str(tmp_path / "a"), str(tmp_path / "a" / "b"), str(target)]
    assert all(stat.S_IMODE((tmp_path / p).stat().st_mode) == 0o700 for p in ["a", "a/b", "a/b/c"])
    assert ensure_directory(target) == []


def test_ensure_directory_refuses_links(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    with pytest.raises(UnsafePathError, match="symbolic link"):
        ensure_directory(tmp_path / "link" / "child")
    assert not (real / "child").exists()
    assert ensure_directory(tmp_path / "link" / "child", allow_links=True) == [str(tmp_path / "link" / "child")]


def test_ensure_directory_refuses_file_in_the_way(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(UnsafePathError, match="not a directory"):
        ensure_directory(tmp_path / "file" / "child")
