"""The on-disk record of a transaction in flight.

A journal lives in ``<state_dir>/transactions/<txid>.journal`` and is written once, before any temporary file
exists, then fsynced together with its directory. Its last line carries the SHA-256 of the body, so a torn
journal (power lost before the fsync) is recognised and treated as "nothing happened yet". Rollback artifacts
(``<txid>.<n>.orig``) and a copy of each new content (``<txid>.<n>.new``, so that recovery can hand it to the
user when another program overwrote the target after a crash) sit beside it. After a successful commit the
journal is renamed ``<txid>.done`` and its artifacts are deleted at once (they may hold secrets the user has
since removed); the ``.done`` records (paths and hashes only) are kept under bounded retention.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from typing import Any

from . import _platform, _sysio
from .errors import MalformedConfigError
from .paths import JOURNAL_SUFFIX as JOURNAL_SUFFIX  # re-exported: its home is paths (cheap to import)
from .paths import TRANSACTIONS_DIR as TRANSACTIONS_DIR
from .records import field, record
from .snapshot import Snapshot

DONE_SUFFIX = ".done"
RECOVERED_DIR = "recovered"
"""Under the state directory: one folder per transaction whose recovery found a target changed by someone else."""
FORMAT = 1


def new_txid() -> str:
    """Sortable by creation time, unique across processes."""
    return f"{time.time_ns():020d}-{os.getpid()}-{os.urandom(4).hex()}"


@record
class Entry:
    """One staged change: ``kind`` is ``write`` or ``remove``."""

    path: str
    kind: str
    old: Snapshot
    new_sha256: str | None = None
    mode: int | None = None
    temp: str | None = None
    artifact: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The entry as plain JSON data, the form it has in the journal file."""
        return {
            "path": self.path,
            "kind": self.kind,
            "old": self.old.to_json(),
            "new_sha256": self.new_sha256,
            "mode": self.mode,
            "temp": self.temp,
            "artifact": self.artifact,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Entry:
        """The entry a journal recorded with :meth:`to_json`."""
        return cls(
            path=data["path"],
            kind=data["kind"],
            old=Snapshot.from_json(data["old"]),
            new_sha256=data["new_sha256"],
            mode=data["mode"],
            temp=data["temp"],
            artifact=data["artifact"],
        )


@record
class Journal:
    """A transaction's durable plan: its id, one entry per file it replaces or removes, the directories it
    created, and whether its paths go through links the caller allowed (recovery follows them likewise)."""

    txid: str
    entries: list[Entry] = field(default_factory=list)
    created_dirs: list[str] = field(default_factory=list)
    allow_links: bool = False  # the paths go through links the caller allowed; recovery must follow them too

    def encode(self) -> bytes:
        """The journal file's bytes: the JSON document and its checksum."""
        body = json.dumps(
            {
                "format": FORMAT,
                "txid": self.txid,
                "entries": [e.to_json() for e in self.entries],
                "created_dirs": self.created_dirs,
                "allow_links": self.allow_links,
            },
            sort_keys=True,
        ).encode("utf-8")
        return body + b"\nsha256:" + hashlib.sha256(body).hexdigest().encode("ascii") + b"\n"

    @classmethod
    def decode(cls, data: bytes, path: str) -> Journal | None:
        """The journal in ``data``, or ``None`` when it is torn (incomplete or checksum mismatch)."""
        body, sep, trailer = data.rpartition(b"\nsha256:")
        if not sep or trailer.strip() != hashlib.sha256(body).hexdigest().encode("ascii"):
            return None
        try:
            raw = json.loads(body)
            if raw.get("format") != FORMAT:
                raise MalformedConfigError(path, f"journal format {raw.get('format')!r} is not supported")
            return cls(
                txid=raw["txid"],
                entries=[Entry.from_json(e) for e in raw["entries"]],
                created_dirs=list(raw["created_dirs"]),
                allow_links=bool(raw.get("allow_links", False)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise MalformedConfigError(path, f"journal is inconsistent: {exc}") from None


def read_journal(txdir: str, name: str) -> Journal | None:
    """The journal ``name`` in ``txdir`` (``None`` when torn)."""
    path = os.path.join(txdir, name)
    with open(path, "rb") as fh:
        return Journal.decode(fh.read(), path)


def blocking_journal(txdir: str, names: list[str], paths: set[str]) -> str | None:
    """The first of the pending journals ``names`` that touched one of ``paths`` (or whose files are unknown).

    Journals about other files do not block: their recovery decides by the content of their own targets only.
    Paths compare as the file system compares names (case-insensitively on Windows).
    """
    keys = {_platform.name_key(p) for p in paths}
    for name in names:
        try:
            journal = read_journal(txdir, name)
        except (OSError, MalformedConfigError):
            return name
        if journal is None:
            return name
        touched = [e.path for e in journal.entries] + journal.created_dirs
        if not keys.isdisjoint(_platform.name_key(p) for p in touched):
            return name
    return None


def keep_new_copies(txfd: int, journal: Journal, data: dict[str, bytes]) -> None:
    """Owner-only copies of the new contents, so that recovery can hand ours to the user when another program
    overwrote a target after a crash. Not synced (recovery checks their hashes); deleted at retirement."""
    for index, entry in enumerate(journal.entries):
        if entry.kind == "write":
            _sysio.close(write_new(txfd, new_copy_name(journal.txid, index), data[entry.path]))


def write_new(dfd: int, name: str, data: bytes) -> int:
    """Create ``name`` exclusively (0600) in the directory ``dfd`` and write ``data``; returns the open fd."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _sysio.O_NOFOLLOW
    fd = _sysio.open_file(name, flags, 0o600, dir_fd=dfd)
    try:
        _sysio.write_all(fd, data)
    except BaseException:
        _sysio.close(fd)
        raise
    return fd


def artifact_name(txid: str, index: int) -> str:
    """The file name under which entry ``index`` of transaction ``txid`` keeps its original bytes."""
    return f"{txid}.{index}.orig"


def new_copy_name(txid: str, index: int) -> str:
    """The file name, in the transactions directory, of the private copy of target ``index``'s new bytes
    (what recovery saves as "ours" when another program changed the target after a crash)."""
    return f"{txid}.{index}.new"


def belongs_to(name: str, txid: str) -> bool:
    """Whether the file ``name`` in the transactions directory belongs to transaction ``txid``."""
    return name.startswith(txid + ".")
