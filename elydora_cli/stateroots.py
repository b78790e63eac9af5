"""Our hook entries that run the runtime of another state root than the one this command was given.

An install with ``--state-root A`` writes entries naming ``A/.elydora/<agent>/guard.py``; a later ``status``
or ``uninstall`` without that flag looks at ``~/.elydora`` and would see nothing. Candidate roots are taken
from the text of the agent's config files (every ``<root>/.elydora/<id>/guard.py|hook.py`` they mention),
then each candidate is confirmed by the provider's own exact-shape recognition run for that state root: an
entry the user merely wrote by hand with such a path is not counted.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

from elydora_config.errors import ConfigError

from .installer import operations
from .installer.operations import sources_of
from .providers import load
from .recovery_hint import command_line
from .statefiles import STATE_DIR_NAME

if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

TEXT_LIMIT = 4 << 20
_ANCHOR = f"/{STATE_DIR_NAME}/"
_SCRIPT = rf"(/[^\s\"'=;|&<>`$\\]*?)/{re.escape(STATE_DIR_NAME)}/([A-Za-z0-9._-]+)/(?:guard|hook)\.py"
"""A runtime script of ours named in a config's text (its groups: the state root, the agent id)."""
_WINDOWS_ANCHOR = f"\\{STATE_DIR_NAME}\\"
_WINDOWS_SCRIPT = (
    rf"([A-Za-z]:(?:\\\\?[^\\/:*?\"'<>|`$=;&\r\n]+)*?)"
    rf"\\\\?{re.escape(STATE_DIR_NAME)}\\\\?([A-Za-z0-9._-]+)\\\\?(?:guard|hook)\.py"
)
"""The same on Windows: a drive, then folders parted by a backslash, or by two where the text is a JSON or
JavaScript string (its first group with those escapes is read back as one backslash)."""


def candidates(provider_id: str, ctx: Any) -> dict[Path, set[str]]:
    """State roots other than ``ctx.state_root`` that the provider's config files name, with agent ids."""
    found: dict[Path, set[str]] = {}
    ours = str(ctx.state_root)  # most entries name it as it stands: no Path to build for them
    for target in sources_of(load(provider_id), ctx).targets:
        try:
            data = ctx.reads.read_physical(target.path, max_bytes=TEXT_LIMIT)
        except (ConfigError, OSError):
            continue
        text = (data or b"").decode("utf-8", "replace")
        for named, agent_id in scripts_named(text):
            root = None if named == ours else Path(named)
            if root is not None and root != ctx.state_root:
                found.setdefault(root, set()).add(agent_id)
    return found


def scripts_named(text: str) -> Iterator[tuple[str, str]]:
    """``(root, agent id)`` of each ``<root>/.elydora/<id>/guard.py`` (or ``hook.py``) ``text`` names, left to
    right (:data:`_SCRIPT`: the root is absolute, free of white space and of quoting, assignment and shell
    operators, the shortest one for the leftmost start), then of each Windows path of a drive's
    ``.elydora\\<id>\\guard.py`` (:data:`_WINDOWS_SCRIPT`: its root may hold blanks, as a user's folder on
    Windows often does)."""
    if _ANCHOR in text:  # a config without our state directory's name: no pattern run over it
        for match in re.finditer(_SCRIPT, text):
            yield match[1], match[2]
    if _WINDOWS_ANCHOR in text:
        for match in re.finditer(_WINDOWS_SCRIPT, text):
            yield _read_back(match[1]), match[2]


def _read_back(root: str) -> str:
    """A Windows root as a JSON or JavaScript string spells it (``\\\\`` for a backslash, ``\\u00e9`` for a
    character outside ASCII), read back; one spelled with single backslashes is already the path."""
    if "\\\\" not in root:
        return root
    try:
        return str(json.loads(f'"{root}"'))
    except ValueError:  # not a string literal after all: only its doubled backslashes are read back
        return root.replace("\\\\", "\\")


def elsewhere(provider_id: str, ctx: Any) -> dict[str, list[str]]:
    """``{state root: [agent ids]}`` whose entries of exact shape are in the provider's config."""
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
    return command_line(["--state-root", root])


class ElsewhereError(ConfigError):
    """Uninstall refused: entries of ours for another state root would stay live."""


def refuse_if_elsewhere(provider_id: str, ctx: Any) -> None:
    """Uninstall never reports success while entries of ours for another state root remain."""
    other = elsewhere(provider_id, ctx)
    if other:
        root = next(iter(other))
        config = load(provider_id).sources(ctx).targets[0].path
        raise ElsewhereError(
            config,
            f"holds Elydora hook entries whose runtime is under the state root {root} (agent "
            f"{', '.join(other[root])}); pass {flags_for(root)} to uninstall them",
        )
