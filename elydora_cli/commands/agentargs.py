"""What the ``elydora agent`` verbs share: the agent they work on (``PROVIDER``/``--provider``, ``--agent-id``,
where its state lives), the server identity of ``create --base-url`` and ``provision`` (from flags, owner-only
files or a hidden prompt) and its check against the server, and how a result is printed."""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
from typing import Any

from elydora_config import keys

from .. import catalog, identity
from ..exitcodes import UsageError
from .options import checked_agent_id, home_from

SECRET_FLAGS = ("--token", "--private-key")


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
    return str(home_from(args))


def selected_provider(args: argparse.Namespace) -> str | None:
    """``PROVIDER`` or ``--provider`` as its canonical id (an alias resolved); an unknown one, two different ones,
    or none where the command needs one, are usage errors."""
    names = [n for n in (getattr(args, "provider_word", None), args.provider) if n is not None]
    if not names:
        if getattr(args, "provider_required", False):
            raise UsageError(f"name the provider: elydora {args.command} {args.agent_command} PROVIDER")
        return None
    try:
        chosen = {catalog.canonical_id(name) for name in names}
    except catalog.UnknownProviderError as exc:
        raise UsageError(exc.message) from None
    if len(chosen) > 1:
        raise UsageError(f"two providers given ({' and '.join(names)}): name one, as PROVIDER or --provider")
    return chosen.pop()


def selected_agent_dir(args: argparse.Namespace) -> str:
    agent_id = checked_agent_id(args.agent_id) or selected_provider(args)
    if not agent_id:
        raise UsageError("name the agent with --agent-id or --provider")
    return identity.agent_dir(state_root(args), agent_id)


def server_settings(args: argparse.Namespace) -> dict[str, Any] | None:
    """The server identity from flags, files and prompts; ``None`` for a local agent."""
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
    if path is not None:
        return identity.read_secret_file(path, what)
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        flag = "--token-file" if what == "token" else "--private-key-file"
        raise UsageError(f"no {what}: pass {flag} (an owner-only file) or run on a terminal to be prompted")
    value = getpass.getpass(prompt).strip()
    if not value or len(value.encode("utf-8")) > identity.SECRET_LIMIT:
        raise UsageError(f"the {what} must be one non-empty line of at most 64 KiB")
    return value


def check_binding(args: argparse.Namespace, agent_id: str, server: dict[str, Any]) -> Any:
    """Refuse a binding that cannot work (names the mismatch); the check's outcome otherwise."""
    from ..runtime import binding  # the HTTP client: not on the read-only commands that share this module

    key = keys.decode_private_key(server["key"], path="private key")
    checked = binding.check(server["base_url"], server["token"], agent_id, server["org_id"], server["kid"], key)
    if checked.problem is not None:
        where = args.private_key_file if "private key" in checked.problem else server["base_url"]
        raise identity.IdentityError(where or "private key", f"{checked.problem}; nothing was written")
    return checked


def print_result(args: argparse.Namespace, data: dict[str, Any], text: str) -> None:
    """``data`` as JSON with ``--json``, else ``text``."""
    if args.json:
        sys.stdout.write(json.dumps(data, indent=2, sort_keys=True) + "\n")
    else:
        sys.stdout.write(text + "\n")
