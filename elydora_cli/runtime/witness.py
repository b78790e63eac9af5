"""Root's witness of each user's chain head under ``--scope system``: what catches a whole directory restored.

A user owns their state directory, so a consistent older copy of it (ledger, chain state, spool together)
agrees with itself and no check inside it can tell (docs/runtime.md, "Rollback"). Under system scope root keeps,
per agent and user, the last chain head it saw, in a directory only root can write:
``<state root>/.elydora/<agent id>/heads/<user>.json`` = ``{"seq", "head", "end", "at"}`` (``end``: the byte
offset just after that entry in the user's ledger, so checking it reads one line, not the ledger).

``elydora status --scope system`` (root's compliance probe) calls :func:`check_users`: for each user with a state
directory for the agent, the ledger must still hold the recorded entry (its sequence and head at that offset);
then the record moves forward to the ledger's last entry. A ledger that lost the recorded entry was rolled back
(entries removed, or the directory restored from an older copy): reported until root removes the record after
looking into it. The witness is only as fresh as the last probe: entries written and removed between two runs
are not seen (server receipts cover those for a bound user).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from elydora_config import _platform, files, paths
from elydora_config.errors import ConfigError

from ..managed import user_dir_name, user_home
from ..statefiles import LEDGER, STATE_DIR_NAME
from . import chaincheck, ledgertail

HEADS = "heads"
RECORD_LIMIT = 4 << 10
_LINE_SCAN = 64 << 20
_READ = os.O_RDONLY | _platform.O_NOFOLLOW | _platform.O_NONBLOCK | _platform.O_CLOEXEC


def _ledger_tail(ledger: str) -> tuple[int, str, int] | None:
    """(sequence, head, end offset) of the ledger's last complete entry, ``None`` for an empty one."""
    try:
        fd = ledgertail.open_regular(ledger, _READ)
    except FileNotFoundError:
        return None
    try:
        end = ledgertail.last_newline_end(fd, os.fstat(fd).st_size)
        if end == 0:
            return None
        start = ledgertail.last_newline_end(fd, end - 1)
        entry = json.loads(_platform.pread(fd, end - start, start))
    finally:
        os.close(fd)
    head = chaincheck.head_of(entry) if isinstance(entry, dict) else None
    if head is None or not isinstance(entry.get("seq"), int):
        raise ValueError("the ledger's last entry has no sequence number or chain hash")
    return entry["seq"], head, end


def _entry_ending_at(ledger: str, end: int) -> dict[str, object] | None:
    """The ledger entry whose line ends at byte ``end`` (``None``: the ledger is shorter, or no line ends there)."""
    try:
        fd = ledgertail.open_regular(ledger, _READ)
    except FileNotFoundError:
        return None
    try:
        if os.fstat(fd).st_size < end or end <= 0 or _platform.pread(fd, 1, end - 1) != b"\n":
            return None
        start = ledgertail.last_newline_end(fd, end - 1)
        data = _platform.pread(fd, min(end - start, _LINE_SCAN), start)
    finally:
        os.close(fd)
    try:
        entry = json.loads(data)
    except ValueError:
        return None
    return entry if isinstance(entry, dict) else None


def check(record_path: Path, user_dir: Path) -> str | None:
    """Compare one user's ledger with root's record, then move the record forward; why it was rolled back."""
    ledger = str(user_dir / LEDGER)
    try:
        data = files.read_physical(record_path, max_bytes=RECORD_LIMIT)
        seen = json.loads(data) if data is not None else None
        tail = _ledger_tail(ledger)
    except (ConfigError, OSError, ValueError) as exc:
        return f"{record_path} or {ledger} cannot be read: {getattr(exc, 'message', None) or exc}"
    if isinstance(seen, dict):
        entry = _entry_ending_at(ledger, int(seen.get("end", 0)))
        if entry is None or entry.get("seq") != seen.get("seq") or chaincheck.head_of(entry) != seen.get("head"):
            when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(float(seen.get("at", 0))))
            now = f"it ends at entry {tail[0]}" if tail else "it is empty"
            return (
                f"{ledger} no longer holds entry {seen.get('seq')} (head {seen.get('head')}) that root saw at {when};"
                f" {now}: entries were removed or the directory was restored from an older copy (root's record:"
                f" {record_path})"
            )
    if tail is not None:
        record = {"seq": tail[0], "head": tail[1], "end": tail[2], "at": int(time.time())}
        paths.ensure_directory(record_path.parent, mode=0o700)
        files.write_atomic(record_path, (json.dumps(record) + "\n").encode("ascii"), mode=0o600)
    return None


def check_users(state_dir: Path, agent_id: str, user_root: Path | None) -> dict[str, str]:
    """``{user: why}`` for every user whose state directory for ``agent_id`` lost an entry root saw; the records
    of the others move forward. ``state_dir``: root's ``<state root>/.elydora/<agent id>``."""
    if sys.platform == "win32":  # no system scope there (managed.require_root)
        return {}
    import pwd  # POSIX only

    problems = {}
    for user in pwd.getpwall():
        home = user_home(user.pw_dir, user_root)
        user_dir = home / STATE_DIR_NAME / user_dir_name(agent_id, user.pw_name)
        if not user_dir.is_dir() or user_dir.is_symlink():
            continue
        problem = check(state_dir / HEADS / f"{user.pw_name}.json", user_dir)
        if problem is not None:
            problems[user.pw_name] = problem
    return problems
