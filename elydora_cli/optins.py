"""The opt-ins that let the CLI write files it refuses by default: one home for their flags and setting.

* ``--follow-symlinks`` (or the setting ``ELYDORA_FOLLOW_SYMLINKS=1`` in the environment, for dotfiles
  managed by stow, chezmoi or home-manager, or a symlinked ``/home``): edit the real file a link points to,
  with that file's snapshot, mode and owner; the link stays a link. The install remembers it in the agent's
  manifest (later commands on that agent follow links too); ``--no-follow-symlinks`` refuses links again.
* ``--allow-read-only``: replace a settings file whose permission bits do not let the caller write it.

A refusal from the library carries the name of the library option (``ConfigError.opt_in``); :func:`hint_for`
turns it into the words a CLI user needs; :func:`elydora_cli.commands.options.add_opt_in_flags` gives a
command these flags.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping

FOLLOW_SYMLINKS_FLAG = "--follow-symlinks"
NO_FOLLOW_SYMLINKS_FLAG = "--no-follow-symlinks"
FOLLOW_SYMLINKS_SETTING = "ELYDORA_FOLLOW_SYMLINKS"
ALLOW_READ_ONLY_FLAG = "--allow-read-only"

_HINTS = {
    "follow_symlinks": f"pass {FOLLOW_SYMLINKS_FLAG} (or set {FOLLOW_SYMLINKS_SETTING}=1) to edit what it points to",
    "allow_read_only": f"pass {ALLOW_READ_ONLY_FLAG} to replace it anyway",
}


def follow_symlinks(args: argparse.Namespace, env: Mapping[str, str]) -> bool:
    if getattr(args, "no_follow_symlinks", False):
        return False
    return bool(getattr(args, "follow_symlinks", False)) or env.get(FOLLOW_SYMLINKS_SETTING, "") in ("1", "true", "yes")


def follow_symlinks_decided(args: argparse.Namespace, env: Mapping[str, str]) -> bool:
    """Whether this command says itself whether to follow links (a flag, or the setting): then what an install
    remembered does not apply."""
    return bool(getattr(args, "no_follow_symlinks", False)) or follow_symlinks(args, env)


def allow_read_only(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "allow_read_only", False))


def hint_for(exc: BaseException) -> str:
    """``"; pass ..."`` for a refusal that an opt-in would have allowed, else ``""``."""
    hint = _HINTS.get(getattr(exc, "opt_in", None) or "")
    return f"; {hint}" if hint else ""
