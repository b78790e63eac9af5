"""Keeping both versions when recovery finds a target that another program changed after the crash.

The other program's bytes stay in place. What the interrupted transaction knew of that file goes to
``<state>/recovered/<txid>/``: the original (from the rollback artifact) as ``<n>-<name>.original`` and the
version the transaction meant to write (from its staged copy) as ``<n>-<name>.ours``, each only when it still
exists and still has the hash the journal recorded. ``README.txt`` beside them says which file is which and
where each came from. The folder is 0700 and every file 0600 (they may hold secrets); every file is written
under a temp name, fsynced and renamed, so an interrupted recovery that runs again rewrites the same files.
"""

from __future__ import annotations

import hashlib
import os

from . import _sysio
from .errors import ConfigError
from .files import create_temp, read_at, remove_quietly
from .journal import RECOVERED_DIR, Entry, Journal, new_copy_name
from .paths import ensure_directory, open_directory
from .records import record

_MAX_BYTES = 1 << 30


@record
class Conflict:
    """A target left as another program wrote it; where its original and our version were saved (if at all)."""

    path: str
    original: str | None = None
    ours: str | None = None
    existed: bool = True  # the file existed before the transaction
    removal: bool = False  # the transaction meant to remove it


def recovery_folder(state_dir: str, txid: str) -> str:
    return os.path.join(state_dir, RECOVERED_DIR, txid)


def save_conflicts(
    state_dir: str,
    txfd: int,
    journal: Journal,
    foreign: list[tuple[int, Entry, int | None]],
    *,
    allow_links: bool = False,
) -> tuple[str, list[Conflict]]:
    """Save the original and our version of every ``(index, entry, target directory fd)`` in ``foreign``."""
    folder = recovery_folder(state_dir, journal.txid)
    ensure_directory(folder, mode=0o700, allow_links=allow_links)
    ffd = open_directory(folder, allow_links=allow_links)
    try:
        conflicts = []
        for index, entry, dfd in foreign:
            base = f"{index}-{os.path.basename(entry.path)}"
            conflict = Conflict(entry.path, existed=entry.old.exists, removal=entry.kind == "remove")
            if entry.artifact is not None:
                conflict.original = _keep(ffd, folder, base + ".original", [(txfd, entry.artifact)], entry.old.sha256)
            if entry.kind == "write" and entry.new_sha256 is not None:
                sources = [(txfd, new_copy_name(journal.txid, index))]
                if dfd is not None and entry.temp is not None:
                    sources.append((dfd, entry.temp))
                conflict.ours = _keep(ffd, folder, base + ".ours", sources, entry.new_sha256)
            conflicts.append(conflict)
        _write(ffd, "README.txt", _readme(journal.txid, conflicts).encode("utf-8"))
        _sysio.fsync_dir(ffd)
    finally:
        _sysio.close(ffd)
    return folder, conflicts


def _keep(ffd: int, folder: str, name: str, sources: list[tuple[int, str]], sha256: str) -> str | None:
    """Copy the first source that holds ``sha256`` to ``name``; its path, or ``None`` when none does."""
    for dfd, source in sources:
        try:
            found = read_at(dfd, source, source, _MAX_BYTES)
        except (OSError, ConfigError):  # unreadable (a link, a special file, too large): not what we wrote
            continue
        if found is not None and hashlib.sha256(found.data).hexdigest() == sha256:
            _write(ffd, name, found.data)
            return os.path.join(folder, name)
    return None


def _write(ffd: int, name: str, data: bytes) -> None:
    tmp = create_temp(ffd, name, data, 0o600)
    try:
        _sysio.rename(tmp, name, src_dir_fd=ffd, dst_dir_fd=ffd)
    except BaseException:
        remove_quietly(ffd, tmp)
        raise


def _readme(txid: str, conflicts: list[Conflict]) -> str:
    lines = [
        f"Recovery of the interrupted transaction {txid}.",
        "Another program changed these files after the interruption. Their current content was left in place;",
        "the versions below are kept here for you to compare and merge. Delete this folder when you are done.",
        "",
    ]
    for conflict in conflicts:
        lines.append(conflict.path)
        original = "not available" if conflict.existed else "none (the file did not exist)"
        ours = "none (the transaction meant to remove it)" if conflict.removal else "not available"
        lines.append(f"  original (before the transaction): {_shown(conflict.original, original)}")
        lines.append(f"  ours (what the transaction meant to write): {_shown(conflict.ours, ours)}")
    return "\n".join(lines) + "\n"


def _shown(path: str | None, missing: str) -> str:
    return os.path.basename(path) if path else missing
