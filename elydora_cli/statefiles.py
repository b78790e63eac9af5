"""Names and limits of the files in an agent's state directory ``<state root>/.elydora/<agent id>/``.

Kept free of imports so that the hook paths (``elydora hook``, the neutral contract) can use them without
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
DELIVERY = "delivery.json"
DELIVERY_STOPPED = "delivery-stopped"
REJECTED_RECORDS = "records.rejected"
SERVER_JWKS = "server-jwks.json"
REFRESH_LOCK = "refresh.lock"

STATUSES = ("active", "frozen", "revoked")
QUERY_GRACE = 300.0  # seconds a refused status query (401/403) is tolerated before "status unknown" applies
FAR_STALE = 300.0  # a status cache older than this is refreshed synchronously before the guard decides
CONFIG_KEYS = ("org_id", "agent_id", "kid", "base_url", "agent_name", "token")
LOCAL_ORG = "local"
CONFIG_LIMIT = 512 << 10
SECRET_LIMIT = 64 << 10

__all__ = [
    "CHAIN_STATE",
    "CONFIG",
    "CONFIG_KEYS",
    "CONFIG_LIMIT",
    "DELIVERY",
    "DELIVERY_STOPPED",
    "ERROR_LOG",
    "FAR_STALE",
    "FLUSH_LOCK",
    "LEDGER",
    "LOCAL_ORG",
    "OUTBOX",
    "PRIVATE_KEY",
    "QUERY_GRACE",
    "REFRESH_LOCK",
    "REJECTED",
    "REJECTED_RECORDS",
    "RETIRED_SPOOL",
    "SECRET_LIMIT",
    "SERVER_JWKS",
    "SPOOL",
    "STATE_DIR_NAME",
    "STATUS",
    "STATUSES",
    "STATUS_CACHE",
]
