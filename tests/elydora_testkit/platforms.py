"""Which system the tests run on, and the marks that say a test holds for one kind only (with the reason)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from elydora_cli.plug.cmdforms import parse_msvc

WINDOWS = sys.platform == "win32"
SITE_FORCED = WINDOWS and any(Path(sys.executable).parent.glob("python*._pth"))
"""The embeddable CPython of the Windows leg imports ``site`` whatever ``-S`` says: its ``._pth`` file, which
makes our checkout importable, asks for it. An installed CPython for Windows honours ``-S``."""

windows_only = pytest.mark.skipif(not WINDOWS, reason="a Windows behaviour (run by the Windows leg, under Wine)")


def split_command_line(text: str) -> list[str]:
    """The words the program gets when ``text``, a command line we print, is pasted into this system's shell
    (a POSIX shell; on Windows the C runtime's reading, the same from cmd.exe and PowerShell)."""
    return (parse_msvc(text) or []) if WINDOWS else shlex.split(text)


def posix_only(reason: str) -> pytest.MarkDecorator:
    """Skip on Windows, saying why the test does not apply there (``reason`` completes "POSIX only: ...")."""
    return pytest.mark.skipif(WINDOWS, reason=f"POSIX only: {reason}")


NO_MODES = "Windows keeps no permission bits but the read-only attribute (access is the folder's inherited ACL)"
NO_LINKS = "Wine cannot make symbolic links or junctions (test_platform.py substitutes their attributes)"
NO_SPECIAL_FILES = "Windows has no FIFOs or sockets in the file system"
NO_NICENESS = "Windows has priority classes, not niceness (the flusher starts BELOW_NORMAL_PRIORITY_CLASS)"
NO_OWNERS = "Windows files have no owner or group the library keeps"
NO_UNDECODABLE_NAMES = "Windows file names are UTF-16 text: no name holds bytes that are not UTF-8"
NO_CONTROL_CHARACTERS = "Windows file names cannot hold a control character (a newline, a tab)"
NO_LONG_NAME_ERROR = "Wine reports a name over 255 characters as not found (ERROR_FILE_NOT_FOUND), not as too long"
