"""``elydora agent create|show|freeze|unfreeze|revoke``: the agent identity the runtime signs with.

A local agent (the default) gets a fresh Ed25519 key, ``config.json`` with ``"base_url": null`` and a local
status that ``freeze``/``unfreeze``/``revoke`` change. With ``--base-url`` (and ``--org-id``, ``--kid``)
the identity points at an Elydora server; the token and the registered private key come from owner-only
files (``--token-file``, ``--private-key-file``) or a hidden prompt on a terminal, never from argv.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
import time
from typing import Any

from elydora_config import _platform, files, keys, paths

from .. import agentstate, catalog, identity, managed
from ..exitcodes import UsageError
from ..pathtext import shown
from ..runtime.flush import flush
from ..runtime.generate import generate
from ..runtime.refresh import read_cache, refresh, status_from, write_cache
from ..statehistory import lifted
from .agentargs import (
    add_selection_args,
    check_binding,
    print_result,
    refuse_secrets_in_argv,
    selected_agent_dir,
    selected_provider,
    server_settings,
    state_root,
)
from .agentpolicy import set_status
from .agentprovision import run as provision
from .options import checked_agent_id

EXAMPLES = {
    "create": "examples:\n"
    "  elydora agent create gemini --agent-id gemini-ci     # a second local identity (key, status, ledger)\n"
    "  elydora agent create claude --base-url https://elydora.example --org-id ORG --kid KID \\\n"
    "      --token-file token.txt --private-key-file key.txt   # bound to a server (secrets from files)",
    "provision": "examples:\n"
    "  sudo elydora agent provision claude --scope system --user alice --base-url https://elydora.example \\\n"
    "      --org-id ORG --kid KID --token-file token.txt --private-key-file key.txt   # see docs/fleet.md\n"
    "  sudo elydora agent provision claude --scope system --user alice ... --dry-run   # check, write nothing",
    "show": "examples:\n"
    "  elydora agent show claude                            # identity, public key and status (never the token)\n"
    "  elydora agent show --agent-id gemini-ci --json",
    "freeze": "examples:\n"
    "  elydora agent freeze claude --reason 'incident 42'   # the guard blocks the next tool call\n"
    "  sudo elydora agent freeze claude --scope system --user alice   # one user of a system install",
    "unfreeze": "examples:\n"
    "  elydora agent unfreeze claude                        # the guard allows tool calls again\n"
    "  sudo elydora agent unfreeze claude --scope system    # every user of a system install",
    "revoke": "examples:\n"
    "  elydora agent revoke codex --reason 'key leaked' --yes   # for good: see docs/status.md to start over\n"
    "  elydora agent revoke codex                           # asks on a terminal",
}
"""The examples that end each verb's ``--help``."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "agent",
        help="create, show, freeze, unfreeze or revoke an agent identity",
        epilog="examples:\n"
        "  elydora agent show --provider claude           # identity, public key and status (never the token)\n"
        "  elydora agent freeze --provider codex --reason 'incident 42'\n"
        "  elydora agent unfreeze --provider codex\n"
        "  elydora agent create --provider gemini --agent-id gemini-ci   # a second local identity\n"
        "  sudo elydora agent provision --scope system --provider claude --user alice --base-url URL \\\n"
        "      --org-id ORG --kid KID --token-file F --private-key-file K   # see docs/fleet.md",
    )
    verbs = parser.add_subparsers(dest="agent_command", metavar="VERB", required=True)
    create = verbs.add_parser("create", help="create an agent identity and its runtime", epilog=EXAMPLES["create"])
    add_selection_args(create, provider_required=True)
    create.add_argument("--base-url", help="Elydora server origin (default: a local agent with a local ledger)")
    create.add_argument("--org-id", help="organisation id on the server (with --base-url)")
    create.add_argument("--kid", help="key id registered on the server (with --base-url)")
    create.add_argument("--token-file", help="owner-only file holding the API token (with --base-url)")
    create.add_argument("--private-key-file", help="owner-only file holding the registered private key")
    provision = verbs.add_parser(
        "provision", help="--scope system: bind one user's identity <agent id>@<user> to a server (root only)",
        epilog=EXAMPLES["provision"],
    )
    add_selection_args(provision, provider_required=True)
    provision.add_argument("--scope", choices=(managed.SYSTEM,), required=True, help="system (the only scope)")
    provision.add_argument("--user", required=True, help="the OS user whose identity is bound")
    for flag, what in (("--base-url", "Elydora server origin"), ("--org-id", "organisation id on the server"),
                       ("--kid", "key id registered on the server for <agent id>@<user>")):
        provision.add_argument(flag, required=True, help=what)
    provision.add_argument("--token-file", help="owner-only file holding the API token (else a hidden prompt)")
    provision.add_argument("--private-key-file", help="owner-only file holding the user's registered private key")
    provision.add_argument("--dry-run", action="store_true", help="check and say what would change; write nothing")
    show = verbs.add_parser(
        "show", help="show an agent's identity and status (never the token)", epilog=EXAMPLES["show"]
    )
    add_selection_args(show)
    for verb in ("freeze", "unfreeze", "revoke"):
        sub = verbs.add_parser(
            verb, help=f"{verb} a local agent (the guard applies it on the next tool call)", epilog=EXAMPLES[verb]
        )
        add_selection_args(sub)
        sub.add_argument("--reason", help="recorded in status.json")
        sub.add_argument(
            "--scope", choices=managed.SCOPES, default=managed.USER,
            help="system: the root-owned policy of a --scope system install (root only; see docs/fleet.md)",
        )
        sub.add_argument("--user", help="--scope system: this OS user only (default: every user)")
        if verb == "revoke":
            sub.add_argument("--yes", action="store_true", help="confirm without asking (revoking is permanent)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    refuse_secrets_in_argv(args)
    verb = args.agent_command
    if verb == "create":
        return _create(args)
    if verb == "show":
        return _show(args)
    if verb == "provision":
        return provision(args)
    if getattr(args, "scope", managed.USER) == managed.SYSTEM:
        agent_id = checked_agent_id(args.agent_id) or selected_provider(args)
        if not agent_id:
            raise UsageError("name the agent with --agent-id or --provider")
        return set_status(args, verb, agent_id)
    if getattr(args, "user", None) is not None:
        raise UsageError("--user applies to --scope system only")
    return _set_status(args, verb)


def _create(args: argparse.Namespace) -> int:
    provider = catalog.provider(selected_provider(args) or "")
    agent_id = checked_agent_id(args.agent_id) or provider.id
    server = server_settings(args)
    checked = check_binding(args, agent_id, server) if server is not None else None
    directory = _write_identity(state_root(args), provider.id, agent_id, server)
    warnings = _prime_status(directory, checked, server["kid"]) if server is not None else []
    mode = "local" if server is None else f"server {server['base_url']}"
    result = {"agent_id": agent_id, "provider": provider.id, "agent_dir": directory, "mode": mode}
    print_result(args, dict(result, warnings=warnings), f"created agent {agent_id!r} ({mode}) in {directory}")
    for warning in warnings:
        sys.stderr.write(f"Warning: {warning}\n")
    return 0


def _write_identity(root: str, provider_id: str, agent_id: str, server: dict[str, Any] | None) -> str:
    """config.json, private.key, the local status and the runtime scripts, all or nothing."""
    from elydora_config import Transaction  # the commit engine: not on a read-only `agent show`

    state = identity.state_dir(root)
    directory = identity.agent_dir(root, agent_id)
    paths.ensure_directory(state)
    config_path = os.path.join(directory, identity.CONFIG)
    if server is None:
        key = keys.generate_private_key()
        config = identity.AgentConfig(identity.LOCAL_ORG, agent_id, identity.key_id(key), None, provider_id)
    else:
        key = keys.decode_private_key(server["key"], path="private key")
        config = identity.AgentConfig(
            server["org_id"], agent_id, server["kid"], server["base_url"], provider_id, server["token"]
        )
    with Transaction(state) as tx:
        if tx.read(config_path, max_bytes=identity.CONFIG_LIMIT) is not None:
            raise identity.IdentityError(config_path, "already exists; choose another --agent-id")
        if not os.path.isdir(directory):
            tx.mkdir(directory, 0o700)
        identity.stage_new_identity(tx, directory, config, key)
        for name, (data, mode) in generate(provider_id, directory, sys.executable).items():
            tx.write(os.path.join(directory, name), data, mode=mode)
    return directory


def _prime_status(directory: str, checked: Any, kid: str) -> list[str]:
    """Prime the cache from the checked answer (or ask once) so the guard decides from the first call."""
    warnings = list(checked.warnings)
    if checked.agent is not None:
        now = time.time()
        write_cache(directory, status_from(checked.agent, kid), now, now)
        return warnings
    if refresh(directory) is None:
        warnings.append("could not read the agent status from the server yet (see error.log); the guard retries")
    return warnings


def _show(args: argparse.Namespace) -> int:
    directory = selected_agent_dir(args)
    config = identity.read_config(directory)
    info: dict[str, Any] = dict(
        config.public_dict(), agent_dir=directory, mode="local" if config.is_local else "server"
    )
    info["public_key"] = keys.encode_public_key(identity.read_private_key(directory).public_key())
    info["status"] = _current_status(directory, config.is_local)
    lines = [f"{key}: {'null' if value is None else value}" for key, value in info.items()]
    print_result(args, info, "\n".join(lines))
    return 0


def _current_status(directory: str, local: bool) -> str:
    if local:
        now = agentstate.current(directory)
        if now.problem is not None:  # the guard cannot use it: say so, never a stale answer
            return f"unenforced ({now.problem}; repair it with elydora agent freeze or unfreeze)"
        tampered = lifted(directory, now.status)
        return str(now.status) if tampered is None else f"tampered ({tampered})"
    cache = read_cache(directory)
    return "unknown (no status cached yet)" if cache is None else f"{cache['status']} (cached)"


_TRANSITIONS = {"freeze": "frozen", "unfreeze": "active", "revoke": "revoked"}


def _set_status(args: argparse.Namespace, verb: str) -> int:
    directory = selected_agent_dir(args)
    config = identity.read_config(directory)
    if not config.is_local:
        raise identity.IdentityError(
            os.path.join(directory, identity.CONFIG),
            f"agent {config.agent_id!r} is managed by {config.base_url}; {verb} it on the server",
        )
    if verb == "revoke":
        _confirm_revoke(args, config.agent_id)
    notes = _owner_only(directory)
    now = agentstate.current(directory)
    known = now.status
    tampered = None if now.problem is not None else lifted(directory, now.status)
    if now.problem is not None:  # repair: what the guard would read is unusable
        known = agentstate.restored(directory, now)[0]
        notes.append(f"repaired: {now.problem} (last known status: {known})")
    elif tampered is not None:  # repair: status.json lifts what the signed history records
        known = agentstate.recorded(directory)
        notes.append(f"repaired: {tampered.partition(': run ')[0]}")
    status_path = os.path.join(directory, identity.STATUS)
    if known == "revoked" and verb != "revoke":
        if now.problem is not None or tampered is not None:
            files.write_atomic(status_path, identity.status_bytes("revoked", "restored"), mode=0o600)
        raise identity.IdentityError(status_path, "the agent is revoked for good (see docs/status.md: start over)")
    status = _TRANSITIONS[verb]
    files.write_atomic(status_path, identity.status_bytes(status, args.reason), mode=0o600)
    _audit_change(directory, status, args.reason)
    done = f"agent {config.agent_id!r} is now {status} (changed: {shown(str(status_path))})"
    text = "\n".join([done, *(f"note: {n}" for n in notes)])
    print_result(args, {"agent_dir": directory, "status": status, "changed": [status_path], "notes": notes}, text)
    return 0


def _owner_only(directory: str) -> list[str]:
    """The guard refuses identity files others can read: make them owner-only again (a repair)."""
    notes = []
    for name in (identity.CONFIG, identity.PRIVATE_KEY):
        path = os.path.join(directory, name)
        info = os.lstat(path)
        if stat.S_ISREG(info.st_mode) and not _platform.is_private(info):
            os.chmod(path, 0o600)
            notes.append(f"repaired: {path} made owner-only")
    return notes


def _confirm_revoke(args: argparse.Namespace, agent_id: str) -> None:
    """Revoking is permanent: ask on a terminal; elsewhere ``--yes`` is required."""
    if args.yes:
        return
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        raise UsageError("revoke is permanent; pass --yes to confirm (no terminal to ask on)")
    sys.stderr.write(f"Revoke agent {agent_id!r} for good? Its guard blocks every tool call from now on. [y/N] ")
    sys.stderr.flush()
    if sys.stdin.readline().strip().lower() not in ("y", "yes"):
        raise UsageError("not confirmed; nothing changed")


def _audit_change(directory: str, status: str, reason: str | None) -> None:
    """The change goes into the signed ledger too (best effort: status.json is already written)."""
    try:
        agentstate.record_change(directory, status, reason)
        flush(directory)
    except Exception as exc:
        sys.stderr.write(f"Warning: {directory}: the change was not recorded in the audit ledger: {exc}\n")
