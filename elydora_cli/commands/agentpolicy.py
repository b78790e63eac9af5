"""``elydora agent freeze|unfreeze|revoke --scope system [--user NAME]``: the root-owned policy the guard of a
system-scope install decides from (see :mod:`elydora_cli.managed`).

Machine-wide: ``<runtime root>/<agent id>/status.json``; one user: ``.../users/<user name>.json``. Both are
root-owned 0644 files that users can read and cannot change, so a user who deletes or edits their own state
cannot lift a freeze. A revoked agent (or user) stays revoked.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from elydora_config import files
from elydora_config.paths import ensure_directory

from .. import identity, managed
from ..exitcodes import UsageError
from ..pathtext import shown
from ..statefiles import GUARD_SCRIPT

STATUS_FOR = {"freeze": "frozen", "unfreeze": "active", "revoke": "revoked"}


def policy_path(args: argparse.Namespace, agent_id: str) -> Path:
    directory = managed.placed(managed.RUNTIME_ROOT, Path(os.path.abspath(args.root)) if args.root else None)
    directory = directory / agent_id
    if args.user is None:
        return directory / managed.SYSTEM_STATUS
    name = identity.check_agent_id(args.user)  # a safe file name (the user-name rule of state directories)
    return directory / managed.POLICY_USERS / f"{name}.json"


def set_status(args: argparse.Namespace, verb: str, agent_id: str) -> int:
    managed.require_root(f"elydora agent {verb}")
    path = policy_path(args, agent_id)
    runtime_dir = path.parent if args.user is None else path.parent.parent
    if not (runtime_dir / GUARD_SCRIPT).exists():
        raise identity.IdentityError(runtime_dir, f"holds no system-scope install of agent {agent_id!r}")
    if verb == "revoke" and not args.yes:
        raise UsageError("revoke is permanent; pass --yes to confirm")
    if path.exists() and identity.read_status_file(str(path)) == "revoked":
        raise identity.IdentityError(path, "is revoked for good; a revoked agent or user stays revoked")
    ensure_directory(path.parent, mode=managed.DIR_MODE)
    status = STATUS_FOR[verb]
    files.write_atomic(path, identity.status_bytes(status, args.reason), mode=managed.POLICY_MODE)
    who = f"user {args.user!r} of agent {agent_id!r}" if args.user else f"agent {agent_id!r} for every user"
    sys.stdout.write(f"{who} is now {status} (changed: {shown(str(path))})\n")
    return 0
