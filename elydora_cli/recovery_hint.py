"""The exact ``elydora recover`` command for a state root, named wherever a pending journal is reported."""

from __future__ import annotations

from typing import TYPE_CHECKING

from elydora_config.errors import RecoveryNeededError

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
    return _quoted(words)


def _quoted(words: list[str]) -> str:
    """``words`` as one shell command line, each word as :func:`shlex.quote` gives it."""
    from .plug.cmdforms import shell_word

    return " ".join(map(shell_word, words))


def with_command(exc: RecoveryNeededError, ctx: Any) -> RecoveryNeededError:
    """The same error, its message ending in the command that resolves it."""
    return RecoveryNeededError(exc.path, f"holds an interrupted transaction; run `{recover_command(ctx)}` first")


def command_for_journal(journal: str) -> str:
    """``elydora recover`` for the state root that holds ``journal`` (``<root>/.elydora/transactions/<txid>``):
    what any command that met the journal without knowing its own flags can name."""
    import os

    state_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(journal))))
    return _quoted(["elydora", "recover", "--state-root", state_root])
