"""``elydora agent provision --scope system --user NAME --base-url ...``: bind one user's identity to a server.

Under ``--scope system`` each user's identity is ``<agent id>@<user>`` in their own home. Root provisions it
(see docs/fleet.md, "A server binding from files"): the binding is checked against the server exactly as
``agent create --base-url`` checks it (the agent must exist there with that key), then, with the user's own
rights (effective uid and groups switched, so no write follows a link the user planted), the state directory
is made 0700 and ``config.json`` (naming the server, holding the token) and ``private.key`` are written
owner-only; finally root's binding record (no secret) goes beside the launchers, for the compliance probe.
Secrets come only from owner-only files or a hidden prompt.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from elydora_config import files, keys
from elydora_config.paths import ensure_directory

from .. import catalog, identity, managed
from ..exitcodes import UsageError
from ..runtime.provision import bind
from .agentargs import check_binding, print_result, selected_provider, server_settings
from .options import checked_agent_id


def run(args: argparse.Namespace) -> int:
    managed.require_root("elydora agent provision")
    provider = catalog.provider(selected_provider(args) or "")
    runtime_dir, user, agent_dir = _target(args, provider.id)
    server = server_settings(args)
    if server is None:  # argparse requires --base-url; kept for the type checker
        raise UsageError("agent provision needs --base-url")
    checked = check_binding(args, os.path.basename(agent_dir), server)
    key = keys.decode_private_key(server["key"], path="private key")
    result = _bind_as(user, agent_dir, provider.id, server, key, args.dry_run)
    marker, record = _binding_record(runtime_dir, user.pw_name, os.path.basename(agent_dir), server, key)
    if not (marker.is_file() and marker.read_bytes() == record):
        if not args.dry_run:
            _write_record(marker, record)
        result["changed"].append(str(marker))
    doc = {"agent_id": os.path.basename(agent_dir), "user": user.pw_name, "agent_dir": agent_dir,
           "base_url": server["base_url"], "dry_run": args.dry_run, "warnings": list(checked.warnings), **result}
    print_result(args, doc, _text(doc))
    for warning in checked.warnings:
        sys.stderr.write(f"Warning: {warning}\n")
    return 0


def _target(args: argparse.Namespace, provider_id: str) -> tuple[Path, Any, str]:
    """(the install's runtime directory, the user's password entry, the user's state directory); refused
    clearly when the agent has no system install, the user does not exist or has no home."""
    if sys.platform == "win32":  # refused earlier (managed.require_root); written out for the type checker
        raise UsageError("system scope is not supported on Windows yet")
    import pwd  # POSIX only

    base_id = checked_agent_id(args.agent_id) or provider_id
    root = Path(os.path.abspath(args.root)) if args.root else None
    runtime_dir = managed.placed(managed.RUNTIME_ROOT, root) / base_id
    if not (runtime_dir / managed.SYSTEM_STATUS).exists():
        raise identity.IdentityError(runtime_dir, f"holds no system-scope install of agent {base_id!r}; install it "
                                     "with --scope system first")
    try:
        user = pwd.getpwnam(identity.check_agent_id(args.user))
    except KeyError:
        raise identity.IdentityError(None, f"user {args.user!r} does not exist on this machine") from None
    home = managed.user_home(user.pw_dir, root)
    if not home.is_dir() or home.is_symlink():
        raise identity.IdentityError(home, f"is not the home directory of user {user.pw_name!r}")
    agent_id = identity.check_agent_id(managed.user_dir_name(base_id, user.pw_name))
    return runtime_dir, user, str(home / identity.STATE_DIR_NAME / agent_id)


def _text(doc: dict[str, Any]) -> str:
    verb = "would change" if doc["dry_run"] else "changed"
    lines = [f"{doc['agent_id']}: bound to {doc['base_url']} in {doc['agent_dir']}"]
    lines += [f"{verb}: {path}" for path in doc["changed"]] or ["unchanged"]
    if doc["replaced"]:
        lines.append(f"{'would keep' if doc['dry_run'] else 'kept'} the earlier state as {doc['replaced']}")
    return "\n".join(lines)


def _bind_as(user: Any, agent_dir: str, provider_id: str, server: dict[str, Any], key: Any,
             dry_run: bool) -> dict[str, Any]:
    config = identity.AgentConfig(server["org_id"], os.path.basename(agent_dir), server["kid"], server["base_url"],
                                  provider_id, server["token"])
    _preload()
    with as_user(user):
        return bind(agent_dir, config, key, dry_run=dry_run)


def _preload() -> None:
    """Import what :func:`bind` needs while still root: the user may not read the interpreter's own files."""
    import elydora_config.files
    import elydora_config.journal
    import elydora_config.lock
    import elydora_config.transaction  # noqa: F401

    from ..runtime import flush  # noqa: F401 (its lock: a replaced state is moved aside under it)


@contextlib.contextmanager
def as_user(user: Any) -> Iterator[None]:
    """Run the block with ``user``'s effective uid, gid and groups (root keeps its saved uid to switch back).

    Files created inside are the user's; a link the user planted is followed with the user's rights only."""
    if sys.platform == "win32":  # no system scope there (managed.require_root)
        raise UsageError("system scope is not supported on Windows yet")
    groups = os.getgroups()
    egid = os.getegid()
    os.setgroups(os.getgrouplist(user.pw_name, user.pw_gid))
    try:
        os.setegid(user.pw_gid)
        try:
            os.seteuid(user.pw_uid)
            old_umask = os.umask(0o077)
            try:
                yield
            finally:
                os.umask(old_umask)
                os.seteuid(0)
        finally:
            os.setegid(egid)
    finally:
        os.setgroups(groups)


def _binding_record(runtime_dir: Path, user: str, agent_id: str, server: dict[str, Any],
                    key: Any) -> tuple[Path, bytes]:
    public = keys.encode_public_key(key.public_key())
    data = {"agent_id": agent_id, "user": user, "base_url": server["base_url"], "org_id": server["org_id"],
            "kid": server["kid"], "public_key": public}
    return runtime_dir / managed.BINDINGS / f"{user}.json", (json.dumps(data, sort_keys=True) + "\n").encode()


def _write_record(path: Path, data: bytes) -> None:
    ensure_directory(path.parent, mode=managed.DIR_MODE)
    files.write_atomic(path, data, mode=managed.POLICY_MODE)
