"""A managed layer's lock-down switch (Claude Code ``allowManagedHooksOnly``, Codex ``allow_managed_hooks_only``).

Set only when asked (``install --scope system --lock-down``), removed with ``--no-lock-down`` or by uninstall,
and only where we set it: ownership is the install manifest's record ``{"at": [key], "value": {"lockdown":
key}}`` among the values this install inserted (a marker no handler can equal); a switch the administrator
set already stays theirs and is never removed by us.
"""

from __future__ import annotations

from pathlib import Path

from .context import Context
from .contract import Finding
from .documents import Documents


def _marker(key: str) -> dict[str, str]:
    return {"lockdown": key}


def _ours(docs: Documents, key: str) -> bool:
    return _marker(key) in docs.recorded


def _record(docs: Documents, path: Path, key: str) -> None:
    docs.log(path).inserted.append({"at": [key], "value": _marker(key)})


def apply(docs: Documents, path: Path, ctx: Context, key: str) -> None:
    """``--lock-down``: set the switch; ``--no-lock-down``: remove ours; neither: keep what is there."""
    doc = docs.doc(path)
    if ctx.lock_down is True:
        doc = docs.ensure(path)
        if doc.get([key], None) is not True:
            doc.set([key], True)
            _record(docs, path, key)
        elif _ours(docs, key):
            _record(docs, path, key)
    elif ctx.lock_down is False:
        remove(docs, path, key)
    elif _ours(docs, key) and doc is not None and doc.get([key], None) is True:
        _record(docs, path, key)


def remove(docs: Documents, path: Path, key: str) -> None:
    """Remove the switch when we set it (uninstall and ``--no-lock-down``)."""
    doc = docs.doc(path)
    if doc is not None and _ours(docs, key) and doc.get([key], None) is True:
        doc.remove([key])


def check(docs: Documents, path: Path, key: str, turns_off: str) -> list[Finding]:
    """A note of what the switch, when on, also turns off (whoever set it)."""
    doc = docs.doc(path)
    if doc is None or doc.get([key], None) is not True:
        return []
    who = "set by this install" if _ours(docs, key) else "set by the administrator"
    return [Finding(f"lock-down: {key} is true ({who}); it also switches off {turns_off}", path, severity="note")]
