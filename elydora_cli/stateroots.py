"""Our hook entries that run the runtime of another state root than the one this command was given.

An install with ``--state-root A`` writes entries naming ``A/.elydora/<agent>/guard.py``; a later ``status``
or ``uninstall`` without that flag looks at ``~/.elydora`` and would see nothing. Candidate roots are taken
from the text of the agent's config files (every ``<root>/.elydora/<id>/guard.py|hook.py`` they mention),
then each candidate is confirmed by the provider's own exact-shape recognition run for that state root: an
entry the user merely wrote by hand with such a path is not counted.
"""

from __future__ import annotations

import re
from pathlib import Path

from elydora_config.errors import ConfigError
from elydora_config.typecheck import TYPE_CHECKING

from .statefiles import STATE_DIR_NAME

if TYPE_CHECKING:
    from typing import Any

_SCRIPT = re.compile(
    r"(/[^\s\"'=;|&<>`$\\]*?)/" + re.escape(STATE_DIR_NAME) + r"/([A-Za-z0-9._-]+)/(?:guard|hook)\.py"
)
TEXT_LIMIT = 4 << 20


def candidates(provider_id: str, ctx: Any) -> dict[Path, set[str]]:
    """State roots other than ``ctx.state_root`` that the provider's config files name, with agent ids."""
    from elydora_config.files import read_physical

    from .providers import load

    found: dict[Path, set[str]] = {}
    for target in load(provider_id).sources(ctx).targets:
        try:
            data = read_physical(target.path, max_bytes=TEXT_LIMIT)
        except (ConfigError, OSError):
            continue
        text = (data or b"").decode("utf-8", "replace")
        for match in _SCRIPT.finditer(text):
            root = Path(match.group(1))
            if root != ctx.state_root:
                found.setdefault(root, set()).add(match.group(2))
    return found


def elsewhere(provider_id: str, ctx: Any) -> dict[str, list[str]]:
    """``{state root: [agent ids]}`` whose entries of exact shape are in the provider's config."""
    from .installer import operations

    confirmed: dict[str, list[str]] = {}
    for root, agent_ids in sorted(candidates(provider_id, ctx).items()):
        for agent_id in sorted(agent_ids):
            other = ctx.with_options(state_root=root, agent_id=agent_id)
            try:
                entries = operations.installed_entries(provider_id, other)
            except (ConfigError, OSError, ValueError):
                continue
            if entries:
                confirmed.setdefault(str(root), []).append(agent_id)
    return confirmed


def flags_for(root: str) -> str:
    from .plug.cmdforms import shell_word

    return f"--state-root {shell_word(root)}"


class ElsewhereError(ConfigError):
    """Uninstall refused: entries of ours for another state root would stay live."""


def refuse_if_elsewhere(provider_id: str, ctx: Any) -> None:
    """Uninstall never reports success while entries of ours for another state root remain."""
    other = elsewhere(provider_id, ctx)
    if other:
        from .providers import load

        root = next(iter(other))
        config = load(provider_id).sources(ctx).targets[0].path
        raise ElsewhereError(
            config,
            f"holds Elydora hook entries whose runtime is under the state root {root} (agent "
            f"{', '.join(other[root])}); pass {flags_for(root)} to uninstall them",
        )
