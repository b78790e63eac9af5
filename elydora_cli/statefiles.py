"""Names and limits of the files in an agent's state directory ``<state root>/.elydora/<agent id>/``, and the
rule for agent ids (:func:`check_agent_id`, the one home of it: installer, agent commands and hook paths).

Kept free of heavy imports so that the hook paths (``elydora hook``, the neutral contract) can use them without
loading the key library. The generated runtime scripts restate the few they need (they must run without this
package); tests pin those copies equal to these.
"""

from __future__ import annotations

STATE_DIR_NAME = ".elydora"
CONFIG = "config.json"
PRIVATE_KEY = "private.key"
STATUS = "status.json"
STATUS_CACHE = "status-cache.json"
CHAIN_STATE = "chain-state.json"
ERROR_LOG = "error.log"
SPOOL = "spool.jsonl"
RETIRED_SPOOL = "spool.retired"
REJECTED = "spool.rejected"
LEDGER = "ledger.jsonl"
OUTBOX = "outbox.json"
FLUSH_LOCK = "flush.lock"
SPOOL_LOCK = "spool.lock"
"""Windows only: held by each writer of ``spool.jsonl`` and by the flusher retiring it (``spoollock``)."""
DELIVERY = "delivery.json"
DELIVERY_STOPPED = "delivery-stopped"
REJECTED_RECORDS = "records.rejected"
SERVER_JWKS = "server-jwks.json"
REFRESH_LOCK = "refresh.lock"

STATUSES = ("active", "frozen", "revoked")
QUERY_GRACE = 300.0  # seconds a refused status query (401/403) is tolerated before "status unknown" applies
CACHE_TTL = 60.0  # a status cache checked longer ago than this is refreshed in the background by the guard
FAR_STALE = 300.0  # a status cache older than this is refreshed synchronously before the guard decides
CONFIG_KEYS = ("org_id", "agent_id", "kid", "base_url", "agent_name", "token")
LOCAL_ORG = "local"
CONFIG_LIMIT = 512 << 10
SECRET_LIMIT = 64 << 10
GUARD_SCRIPT = "guard.py"
AUDIT_SCRIPT = "hook.py"
"""The generated runtime's entry points an agent's hook entries run (launchers of the two modules below)."""
SUPERVISOR_SCRIPT = "supervisor.py"
"""With ``--hook-command``, for an agent whose entries other agents also run (catalog ``host``): the
argument-free launcher the entries name, which does the host check and then becomes the supervisor."""
GUARD_MODULE = "_elydora_guard"
AUDIT_MODULE = "_elydora_audit"
POLICY_MODULE = "_elydora_policy"
"""System scope only: where each user's state is and the root-owned status the guard decides from."""
RUNTIME_FLAGS = ("-I", "-S")
"""Interpreter flags of every hook command: isolated mode and no ``site`` import (saves ~25 ms a call)."""
PROBE_ENV = "ELYDORA_VERIFY_PROBE"
"""Set by ``elydora verify`` for a probe: the random name of its scratch directory ``<PROBE_PREFIX><name>`` inside
the runtime's own directory, whose status decides and whose spool records (see docs/verify.md)."""
PROBE_PREFIX = "verify-probe."
PROBE_NAME_BYTES = 16
"""Random bytes of a probe's name (128 bits, written as 32 hex digits)."""
PROBE_LIFETIME = 60.0
"""Seconds after its last change a probe directory is honoured (the runtime templates restate these three)."""
AUDIT_REVIEWED = "audit-reviewed.json"
"""``{"gaps", "seq", "at"}``: how many gap entries and records ``audit verify`` last showed (``runtime/trace.py``)."""
HOST_LOG = "host-check.log"
"""Events whose payload did not show the agent the entries belong to (``runtime/templates/hookinput.py``)."""


def check_agent_id(agent_id: str) -> str:
    """The agent id when it is a safe directory name everywhere (runtime.md rules), else UnsafePathError.

    Names the journal folder could take (``transactions`` in any case, any dot name) are reserved: an agent
    there would read the journal as its state.
    """
    from elydora_config import errors, paths  # the library: not for the runtime that reads names only

    paths.check_safe_name(agent_id, what="agent id")
    try:  # bytes that are no UTF-8 arrive as lone surrogates (argv, file names): no agent's config could hold them
        agent_id.encode("utf-8")
    except UnicodeEncodeError:
        shown = agent_id.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        problem = "is not UTF-8 text (the agent's config files name it and hold UTF-8 only)"
        raise errors.UnsafePathError(None, f"agent id '{shown}' {problem}") from None
    if agent_id.startswith(" "):
        raise errors.UnsafePathError(None, f"unsafe agent id {agent_id!r}: it starts with a space")
    if agent_id.startswith(".") or agent_id.lower() == paths.TRANSACTIONS_DIR:
        raise errors.UnsafePathError(None, f"agent id {agent_id!r} is reserved for the state directory's own files")
    return agent_id


def agent_dir_path(state_root: str, agent_id: str) -> str:
    """``<state root>/.elydora/<agent id>`` (absolute) for a safe agent id."""
    import os  # the flusher's boot (runtime/settle.py) reads the names here before os is loaded

    return os.path.join(os.path.abspath(state_root), STATE_DIR_NAME, check_agent_id(agent_id))


__all__ = [
    "AUDIT_MODULE",
    "AUDIT_REVIEWED",
    "AUDIT_SCRIPT",
    "CACHE_TTL",
    "CHAIN_STATE",
    "CONFIG",
    "CONFIG_KEYS",
    "CONFIG_LIMIT",
    "DELIVERY",
    "DELIVERY_STOPPED",
    "ERROR_LOG",
    "FAR_STALE",
    "FLUSH_LOCK",
    "GUARD_MODULE",
    "GUARD_SCRIPT",
    "HOST_LOG",
    "LEDGER",
    "LOCAL_ORG",
    "OUTBOX",
    "POLICY_MODULE",
    "PRIVATE_KEY",
    "PROBE_ENV",
    "PROBE_LIFETIME",
    "PROBE_NAME_BYTES",
    "PROBE_PREFIX",
    "QUERY_GRACE",
    "REFRESH_LOCK",
    "REJECTED",
    "REJECTED_RECORDS",
    "RETIRED_SPOOL",
    "RUNTIME_FLAGS",
    "SECRET_LIMIT",
    "SERVER_JWKS",
    "SPOOL",
    "SPOOL_LOCK",
    "STATE_DIR_NAME",
    "STATUS",
    "STATUSES",
    "STATUS_CACHE",
    "SUPERVISOR_SCRIPT",
    "agent_dir_path",
    "check_agent_id",
]

GENESIS = "A" * 43
"""The ``prev_chain_hash`` of an agent's first record. Kept here with the state file names, so that reading
a chain state does not import the record machinery (hashing, canonical JSON)."""
