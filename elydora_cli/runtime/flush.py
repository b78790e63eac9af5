"""The flusher: drains ``spool.jsonl`` in order into signed, chained records.

Run detached by the audit hook as ``<python> -I -m elydora_cli.runtime.flush <agent dir>`` (or in-process
by ``elydora audit flush``). Under the exclusive ``flush.lock`` (a second flusher exits at once) it:

1. finishes an interrupted spool retirement and cuts a torn ledger tail, then adopts the ledger's last
   entry if ``chain-state.json`` lags behind it;
2. for each complete spool line, in order: builds the record (RFC 8785 payload hash, chain hash, Ed25519
   signature) and either appends it to ``ledger.jsonl`` (local agent; in batches, ledger fsynced before the
   state is saved) or, for a server-bound agent, stores it in ``outbox.json`` and POSTs it (see
   :mod:`.deliver`), appending to the ledger and advancing the chain only once the server accepted it;
3. retires the spool once everything in it is delivered; after releasing the lock it looks again and
   goes on if new events arrived meanwhile.

A spool line that is not valid (torn, not JSON, ``NaN`` or a number outside the double range) is moved to
``spool.rejected``; a record the server refuses for good is moved to ``records.rejected`` with the server's
answer. Either way a signed gap entry takes its place in the ledger and the rest is delivered. A refusal
that is permanent for the agent stops delivery and keeps everything (see :mod:`.refusal`, :mod:`.health`).
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import TYPE_CHECKING

from elydora_config import _platform

from ..statefiles import CHAIN_STATE, OUTBOX, RETIRED_SPOOL, SPOOL
from . import spool
from .dropmark import pending_drops
from .errorlog import log_error
from .flushlock import BUSY, DRAINED, STOPPED, try_lock

if TYPE_CHECKING:
    from .deliver import RetryPolicy

LINGER = 0.25
LOCK_FD_FLAG = "--lock-fd"
PROVISION_FLAG = "--provision"
"""System scope: ``--provision <provider id>`` creates the user's identity on first use (see :mod:`.provision`)."""
_STATE_LIMIT = 64 << 10
_READ = os.O_RDONLY | _platform.O_NOFOLLOW | _platform.O_CLOEXEC


def _saved_offset(agent_dir: str) -> int:
    """``spool_offset`` of ``chain-state.json`` read cheaply (0 when absent or unreadable: the full check
    in :mod:`.state` runs once there is work)."""
    try:
        fd = _platform.open_at(os.path.join(agent_dir, CHAIN_STATE), _READ)
    except OSError:
        return 0
    try:
        value = json.loads(os.read(fd, _STATE_LIMIT)).get("spool_offset", 0)
    except (ValueError, AttributeError, OSError):
        return 0
    finally:
        os.close(fd)
    return value if isinstance(value, int) and value >= 0 else 0


def has_undelivered(agent_dir: str) -> bool:
    """Whether the spool holds a complete line past the saved offset (an event that arrived meanwhile)."""
    return spool.has_complete_line(os.path.join(agent_dir, SPOOL), _saved_offset(agent_dir))


def has_work(agent_dir: str) -> bool:
    """Undelivered events, a record being delivered, an interrupted spool retirement, or drop markers of
    events a full disk refused (they become a signed gap record)."""
    pending = (OUTBOX, RETIRED_SPOOL)
    if has_undelivered(agent_dir) or any(os.path.lexists(os.path.join(agent_dir, n)) for n in pending):
        return True
    return pending_drops(agent_dir) > 0


def flush(
    agent_dir: str,
    *,
    policy: RetryPolicy | None = None,
    linger: float = 0.0,
    held_fd: int | None = None,
    accept: bool = False,
) -> str:
    """Drain the spool; returns ``drained``, ``stopped`` (delivery gave up for now, or the chain state and the
    ledger disagree: :mod:`.chaincheck`) or ``busy``.

    With ``linger``, a drained flusher keeps the lock that long waiting for more events, so a burst of
    tool calls is served by one process instead of one start-up per call. The heavy modules (signing,
    HTTP) are imported only once there is work. ``accept`` (``audit flush --accept-ledger``): a disagreeing
    chain state is replaced by the ledger's head, and a signed record says so.
    """
    directory = os.path.abspath(agent_dir)
    outcome = BUSY
    while True:
        with try_lock(directory, held_fd) as held:
            held_fd = None
            if not held:
                return outcome
            # Events that arrive while lingering are drained under the same lock: releasing it between
            # passes would let a hook of the same burst take it and start a second flusher.
            while True:
                outcome = _run(directory, policy, accept) if accept or has_work(directory) else DRAINED
                accept = False
                if outcome != DRAINED or not _wait_for_events(directory, linger):
                    break
        if outcome != DRAINED or not has_undelivered(directory):
            return outcome


def _run(directory: str, policy: RetryPolicy | None, accept: bool = False) -> str:
    from .flusher import Flusher  # the signing chain (cryptography, the library): only once there is work

    return Flusher(directory, policy, accept=accept).run()


def _wait_for_events(directory: str, linger: float) -> bool:
    """Wait up to ``linger`` seconds for an undelivered event; whether one arrived."""
    deadline = time.monotonic() + linger
    while time.monotonic() < deadline:
        if has_undelivered(directory):
            return True
        time.sleep(0.02)
    return False


def _flush_main(directory: str, held_fd: int | None) -> str:
    try:
        return flush(directory, linger=LINGER, held_fd=held_fd)
    except ImportError:
        if not sys.flags.no_site:
            raise
        # Started without site (see the audit hook's FLUSH_PATH) and a module lives elsewhere: look again.
        import site

        site.main()
        return flush(directory, linger=LINGER)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    held_fd, provider = None, None
    if len(args) in (3, 5) and args[-2] == PROVISION_FLAG:  # a Windows hook hands over no lock (templates/hook.py)
        provider, args = args[-1], args[:-2]
    if len(args) == 3 and args[1] == LOCK_FD_FLAG and args[2].isdigit():
        held_fd, args = int(args[2]), args[:1]
    if len(args) != 1:
        sys.stderr.write(
            f"usage: python -m elydora_cli.runtime.flush <agent dir> [{LOCK_FD_FLAG} N] [{PROVISION_FLAG} ID]\n"
        )
        return 2
    directory = os.path.abspath(args[0])
    try:
        if provider is not None:
            from .provision import provision  # the library and the signing key: system scope's first use only

            provision(directory, provider)
        outcome = _flush_main(directory, held_fd)
    except Exception as exc:  # a detached process: the error log is its only voice
        message = getattr(exc, "message", None)
        log_error(directory, "flush", message if isinstance(message, str) else f"{type(exc).__name__}: {exc}")
        return 1
    return 0 if outcome != STOPPED else 1


if __name__ == "__main__":
    sys.exit(main())
