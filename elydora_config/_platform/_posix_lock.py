"""The POSIX half of :mod:`elydora_config._platform.locking`: ``flock`` itself, ``pread`` and ``pwrite``."""

from __future__ import annotations

import fcntl
import os
import sys

assert sys.platform != "win32"  # for mypy: the Windows half is checked with --platform win32

flock = fcntl.flock
LOCK_SH = fcntl.LOCK_SH
LOCK_EX = fcntl.LOCK_EX
LOCK_EX_NB = fcntl.LOCK_EX | fcntl.LOCK_NB
LOCK_UN = fcntl.LOCK_UN
pread = os.pread
pwrite = os.pwrite
