"""``elydora agent create|show|freeze|unfreeze|revoke``: the agent identity the runtime signs with.

A local agent (the default) gets a fresh Ed25519 key, ``config.json`` with ``"base_url": null`` and a local
status that ``freeze``/``unfreeze``/``revoke`` change. With ``--base-url`` (and ``--org-id``, ``--kid``)
the identity points at an Elydora server; the token and the registered private key come from owner-only
files (``--token-file``, ``--private-key-file``) or a hidden prompt on a terminal, never from argv.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from ..exitcodes import UsageError
from ..statehistory import lifted

SECRET_FLAGS = ("--token", "--private-key")
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


def add_selection_args(parser: argparse.ArgumentParser, *, provider_required: bool = False) -> None:
    """``PROVIDER`` (or ``--provider``) and ``--agent-id`` choose the agent; the global ``--state-root``/``--root``
    where its state lives. ``provider_required``: one of the two provider forms must be given."""
    parser.add_argument(
        "provider_word", nargs="?", metavar="PROVIDER", help="provider id or alias (the default agent id)"
    )
    parser.add_argument("--provider", help="the same as PROVIDER")
    parser.set_defaults(provider_required=provider_required)
    parser.add_argument("--agent-id", help="agent id (default: the provider id)")
    for flag in SECRET_FLAGS:  # accepted only to refuse them without echoing the value
        parser.add_argument(flag, dest=_secret_dest(flag), nargs="?", const="", help=argparse.SUPPRESS)


def _secret_dest(flag: str) -> str:
    return flag.strip("-").replace("-", "_") + "_in_argv"


def refuse_secrets_in_argv(args: argparse.Namespace) -> None:
    """The old ``--token VALUE`` form is refused; the message never contains the value."""
    for flag in SECRET_FLAGS:
        if getattr(args, _secret_dest(flag), None) is not None:
            raise UsageError(f"{flag} is not accepted: secrets never go on the command line; use {flag}-file")


def state_root(args: argparse.Namespace) -> str:
    """``--state-root``, else ``--root``, else ``$HOME`` (refused when empty or unset)."""
    if args.state_root or args.root:
        return os.path.abspath(str(args.state_root or args.root))
    from .options import home_from

    return str(home_from(args))


def selected_provider(args: argparse.Namespace) -> str | None:
    """``PROVIDER`` or ``--provider`` as its canonical id (an alias resolved); an unknown one, two different ones,
    or none where the command needs one, are usage errors."""
    names = [n for n in (getattr(args, "provider_word", None), args.provider) if n is not None]
    if not names:
        if getattr(args, "provider_required", False):
            raise UsageError(f"name the provider: elydora {args.command} {args.agent_command} PROVIDER")
        return None
    from .. import catalog

    try:
        chosen = {catalog.canonical_id(name) for name in names}
    except catalog.UnknownProviderError as exc:
        raise UsageError(exc.message) from None
    if len(chosen) > 1:
        raise UsageError(f"two providers given ({' and '.join(names)}): name one, as PROVIDER or --provider")
    return chosen.pop()


def selected_agent_dir(args: argparse.Namespace) -> str:
    from .. import identity
    from .options import checked_agent_id

    agent_id = checked_agent_id(args.agent_id) or selected_provider(args)
    if not agent_id:
        raise UsageError("name the agent with --agent-id or --provider")
    return identity.agent_dir(state_root(args), agent_id)


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
    from .. import managed

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
        from .agentprovision import run as provision

        return provision(args)
    from .. import managed

    if getattr(args, "scope", managed.USER) == managed.SYSTEM:
        from .agentpolicy import set_status
        from .options import checked_agent_id

        agent_id = checked_agent_id(args.agent_id) or selected_provider(args)
        if not agent_id:
            raise UsageError("name the agent with --agent-id or --provider")
        return set_status(args, verb, agent_id)
    if getattr(args, "user", None) is not None:
        raise UsageError("--user applies to --scope system only")
    return _set_status(args, verb)


def _create(args: argparse.Namespace) -> int:
    from .. import catalog
    from .options import checked_agent_id

    provider = catalog.provider(selected_provider(args) or "")
    agent_id = checked_agent_id(args.agent_id) or provider.id
    server = _server_settings(args)
    checked = _check_binding(args, agent_id, server) if server is not None else None
    directory = _write_identity(state_root(args), provider.id, agent_id, server)
    warnings = _prime_status(directory, checked, server["kid"]) if server is not None else []
    mode = "local" if server is None else f"server {server['base_url']}"
    result = {"agent_id": agent_id, "provider": provider.id, "agent_dir": directory, "mode": mode}
    _print(args, dict(result, warnings=warnings), f"created agent {agent_id!r} ({mode}) in {directory}")
    for warning in warnings:
        sys.stderr.write(f"Warning: {warning}\n")
    return 0


def _server_settings(args: argparse.Namespace) -> dict[str, Any] | None:
    """The server identity from flags, files and prompts; ``None`` for a local agent."""
    from .. import identity

    server_flags = ("org_id", "kid", "token_file", "private_key_file")
    if args.base_url is None:
        used = [f"--{name.replace('_', '-')}" for name in server_flags if getattr(args, name) is not None]
        if used:
            raise UsageError(f"{', '.join(used)} need --base-url")
        return None
    if not args.org_id or not args.kid:
        raise UsageError("--base-url needs --org-id and --kid (as registered on the server)")
    base_url = identity.validate_base_url(args.base_url)
    token = _secret(args.token_file, "token", "Elydora API token: ")
    key_text = _secret(args.private_key_file, "private key", "Registered private key (base64url seed): ")
    return {"base_url": base_url, "org_id": args.org_id, "kid": args.kid, "token": token, "key": key_text}


def _secret(path: str | None, what: str, prompt: str) -> str:
    from .. import identity

    if path is not None:
        return identity.read_secret_file(path, what)
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        flag = "--token-file" if what == "token" else "--private-key-file"
        raise UsageError(f"no {what}: pass {flag} (an owner-only file) or run on a terminal to be prompted")
    import getpass

    value = getpass.getpass(prompt).strip()
    if not value or len(value.encode("utf-8")) > identity.SECRET_LIMIT:
        raise UsageError(f"the {what} must be one non-empty line of at most 64 KiB")
    return value


def _write_identity(root: str, provider_id: str, agent_id: str, server: dict[str, Any] | None) -> str:
    """config.json, private.key, the local status and the runtime scripts, all or nothing."""
    from elydora_config import Transaction, keys, paths

    from .. import identity
    from ..runtime.generate import generate

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


def _check_binding(args: argparse.Namespace, agent_id: str, server: dict[str, Any]) -> Any:
    """Refuse a binding that cannot work (names the mismatch); the check's outcome otherwise."""
    from elydora_config import keys

    from .. import identity
    from ..runtime import binding

    key = keys.decode_private_key(server["key"], path="private key")
    checked = binding.check(server["base_url"], server["token"], agent_id, server["org_id"], server["kid"], key)
    if checked.problem is not None:
        where = args.private_key_file if "private key" in checked.problem else server["base_url"]
        raise identity.IdentityError(where or "private key", f"{checked.problem}; nothing was written")
    return checked


def _prime_status(directory: str, checked: Any, kid: str) -> list[str]:
    """Prime the cache from the checked answer (or ask once) so the guard decides from the first call."""
    from ..runtime.refresh import refresh, status_from, write_cache

    warnings = list(checked.warnings)
    if checked.agent is not None:
        import time

        now = time.time()
        write_cache(directory, status_from(checked.agent, kid), now, now)
        return warnings
    if refresh(directory) is None:
        warnings.append("could not read the agent status from the server yet (see error.log); the guard retries")
    return warnings


def _show(args: argparse.Namespace) -> int:
    from elydora_config import keys

    from .. import identity

    directory = selected_agent_dir(args)
    config = identity.read_config(directory)
    info: dict[str, Any] = dict(
        config.public_dict(), agent_dir=directory, mode="local" if config.is_local else "server"
    )
    info["public_key"] = keys.encode_public_key(identity.read_private_key(directory).public_key())
    info["status"] = _current_status(directory, config.is_local)
    lines = [f"{key}: {'null' if value is None else value}" for key, value in info.items()]
    _print(args, info, "\n".join(lines))
    return 0


def _current_status(directory: str, local: bool) -> str:
    from ..runtime.refresh import read_cache

    if local:
        from .. import agentstate

        now = agentstate.current(directory)
        if now.problem is not None:  # the guard cannot use it: say so, never a stale answer
            return f"unenforced ({now.problem}; repair it with elydora agent freeze or unfreeze)"
        tampered = lifted(directory, now.status)
        return str(now.status) if tampered is None else f"tampered ({tampered})"
    cache = read_cache(directory)
    return "unknown (no status cached yet)" if cache is None else f"{cache['status']} (cached)"


_TRANSITIONS = {"freeze": "frozen", "unfreeze": "active", "revoke": "revoked"}


def _set_status(args: argparse.Namespace, verb: str) -> int:
    from elydora_config import files

    from .. import agentstate, identity

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
    done = f"agent {config.agent_id!r} is now {status} (changed: {status_path})"
    text = "\n".join([done, *(f"note: {n}" for n in notes)])
    _print(args, {"agent_dir": directory, "status": status, "changed": [status_path], "notes": notes}, text)
    return 0


def _owner_only(directory: str) -> list[str]:
    """The guard refuses identity files others can read: make them owner-only again (a repair)."""
    import stat

    from .. import identity

    notes = []
    for name in (identity.CONFIG, identity.PRIVATE_KEY):
        path = os.path.join(directory, name)
        info = os.lstat(path)
        if stat.S_ISREG(info.st_mode) and stat.S_IMODE(info.st_mode) & 0o077:
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
    from .. import agentstate
    from ..runtime.flush import flush

    try:
        agentstate.record_change(directory, status, reason)
        flush(directory)
    except Exception as exc:
        sys.stderr.write(f"Warning: {directory}: the change was not recorded in the audit ledger: {exc}\n")


def _print(args: argparse.Namespace, data: dict[str, Any], text: str) -> None:
    if args.json:
        import json

        sys.stdout.write(json.dumps(data, indent=2, sort_keys=True) + "\n")
    else:
        sys.stdout.write(text + "\n")
