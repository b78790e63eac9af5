"""What a dry run shows: the unified diff of every agent file it would change, then one line per file of
Elydora's own (runtime, bytecode, identity, manifest) that it would create, change or remove.

The user's files are what a user reviews, so they come first and in full; our own files are a thousand lines
of generated code, listed by name and size (``-v`` shows their diff; secret files and bytecode never). A dry
run also refuses, as the real run would, files an interrupted transaction still holds (:func:`pending_journal`).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from elydora_config.paths import TRANSACTIONS_DIR, pending_journals
from elydora_config.records import field, record

from .. import identity

if TYPE_CHECKING:
    from collections.abc import Iterable

    from elydora_config import Transaction

SECRET_FILES = {identity.PRIVATE_KEY, identity.CONFIG}

DRY_RUN_MAX_BYTES = 256 << 20
"""The largest file a dry run reads to diff it (the agents' settings files are far smaller)."""


@record
class OwnFile:
    """One file of Elydora's own a dry run would change: ``change`` is ``new``, ``changed`` or ``removed``;
    ``diff`` its unified diff (empty for a secret file or bytecode)."""

    path: str
    change: str
    size: int
    diff: str = ""
    note: str = ""

    def line(self) -> str:
        size = f"{self.size:,} bytes" if self.change != "removed" else ""
        detail = ", ".join(d for d in (size, self.note) if d)
        return f"  {self.change:<8} {self.path}" + (f" ({detail})" if detail else "")


@record
class Preview:
    """The agent files' unified diff, and Elydora's own files in staging order."""

    diff: str = ""
    own: list[OwnFile] = field(default_factory=list)

    def text(self, provider: str, *, full: bool) -> str:
        """What the dry run prints: the agent files' diff, then our files (one line each, or their diffs)."""
        if not self.own:
            return self.diff
        how = "their diffs follow" if full else "-v shows their diffs"
        header = f"{provider}: {len(self.own)} file(s) of Elydora's own ({how}):\n"
        lines = [header, *(f.line() + "\n" for f in self.own)]
        if full:
            lines += [f.diff for f in self.own]
        return self.diff + "".join(lines)


def preview(tx: Transaction, before: dict[str, bytes | None], own_roots: Iterable[str]) -> Preview:
    """The :class:`Preview` of every staged file (``before``: each one's bytes now; ``own_roots``: the
    directories that hold Elydora's own files); the diffs are the library's :meth:`Transaction.diff`."""
    roots = tuple(os.path.join(root, "") for root in own_roots)
    own = [path for path in tx.staged_paths if path.startswith(roots)]
    result = Preview(diff=tx.diff([p for p in tx.staged_paths if p not in own], max_bytes=DRY_RUN_MAX_BYTES))
    for path in own:
        new, old = tx.read(path), before.get(path)
        change = "removed" if new is None else "new" if old is None else "changed"
        secret = os.path.basename(path) in SECRET_FILES
        binary = not secret and _binary(old, new)
        note = "secret, not shown" if secret else "binary" if binary else ""
        text = "" if secret or binary else tx.diff([path], max_bytes=DRY_RUN_MAX_BYTES)
        result.own.append(OwnFile(path, change, len(new or b""), text, note))
    return result


def _binary(*contents: bytes | None) -> bool:
    for data in contents:
        if data is None:
            continue
        if b"\0" in data:
            return True
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return True
    return False


def pending_journal(state_dir: str, paths: Iterable[str]) -> str | None:
    """The journal of an interrupted transaction that holds one of ``paths`` (or its directory), as the
    commit would find it: the dry run then fails as the real run would (exit 4), never says "nothing to change"."""
    txdir = os.path.join(state_dir, TRANSACTIONS_DIR)
    names = pending_journals(txdir)
    if not names:
        return None
    from elydora_config.journal import blocking_journal  # the commit engine: status imports this module

    touched = set(paths)
    touched |= {os.path.dirname(p) for p in touched}
    name = blocking_journal(txdir, names, touched)
    return None if name is None else os.path.join(txdir, name)
