"""The interrupted transactions of a state root, and the exact ``elydora recover`` command named wherever a
pending journal is reported."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from elydora_config.errors import RecoveryNeededError
from elydora_config.paths import TRANSACTIONS_DIR, pending_journals

from .pathtext import shell_line, windows_word

if TYPE_CHECKING:
    from typing import Any


def recover_command(ctx: Any) -> str:
    """``elydora recover`` with the ``--root``/``--state-root`` this command was given (quoted for a shell)."""
    return elydora_command(ctx, "recover")


def elydora_command(ctx: Any, *args: str) -> str:
    """``elydora <args>`` with the ``--root``/``--state-root`` this command was given (quoted for a shell)."""
    words = ["elydora", *args]
    if ctx.rooted:
        words += ["--root", str(ctx.home)]
    if ctx.state_root != ctx.home:
        words += ["--state-root", str(ctx.state_root)]
    return command_line(words)


def command_line(words: Sequence[str]) -> str:
    """``words`` as one command line for this system's shell, on one line, each word quoted only where it needs
    it: for a POSIX shell (:func:`.pathtext.shell_line`), or for cmd.exe and PowerShell alike
    (:func:`.pathtext.windows_word`)."""
    if os.name == "nt":
        return " ".join(windows_word(word) for word in words)
    return shell_line(words)


def with_command(exc: RecoveryNeededError, ctx: Any) -> RecoveryNeededError:
    """The same error, its message ending in the command that resolves it."""
    return RecoveryNeededError(exc.path, f"holds an interrupted transaction; run `{recover_command(ctx)}` first")


def command_for_journal(journal: str) -> str:
    """``elydora recover`` for the state root that holds ``journal`` (``<root>/.elydora/transactions/<txid>``):
    what any command that met the journal without knowing its own flags can name."""
    state_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(journal))))
    return command_line(["elydora", "recover", "--state-root", state_root])


def pending_recovery(ctx: Any) -> dict[str, Any] | None:
    """The interrupted transactions of the state root, with the exact command that resolves them."""
    try:
        if not pending_journals(os.path.join(ctx.elydora_dir, TRANSACTIONS_DIR)):
            return None  # the common case, decided without loading the transaction machinery
        from elydora_config.recovery import pending

        found = pending(ctx.elydora_dir)
    except (OSError, ValueError) as exc:
        return {"txids": [], "command": recover_command(ctx), "error": str(exc)}
    if not found:
        return None
    return {
        "txids": [p.txid for p in found],
        "paths": sorted({x for p in found for x in p.paths}),
        "command": recover_command(ctx),
        **({"torn": True} if any(p.torn for p in found) else {}),
    }
