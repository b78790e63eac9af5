"""Our hook entries that run the runtime of another state root than the one this command was given.

An install with ``--state-root A`` writes entries naming ``A/.elydora/<agent>/guard.py``; a later ``status``
or ``uninstall`` without that flag looks at ``~/.elydora`` and would see nothing. Candidate roots are taken
from the text of the agent's config files (every ``<root>/.elydora/<id>/guard.py|hook.py`` they mention),
then each candidate is confirmed by the provider's own exact-shape recognition run for that state root: an
entry the user merely wrote by hand with such a path is not counted.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from elydora_config.errors import ConfigError

from .readpass import read_physical
from .statefiles import STATE_DIR_NAME

if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

TEXT_LIMIT = 4 << 20
_ANCHOR = f"/{STATE_DIR_NAME}/"
_SCRIPTS = ("guard.py", "hook.py")
_AGENT_ID_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")
_ROOT_STOPS = frozenset("\"'=;|&<>`$\\")
"""What ends a root path in a config's text (besides white space): quoting, assignment, shell operators."""


def candidates(provider_id: str, ctx: Any) -> dict[Path, set[str]]:
    """State roots other than ``ctx.state_root`` that the provider's config files name, with agent ids."""
    from .installer.operations import sources_of
    from .providers import load

    found: dict[Path, set[str]] = {}
    ours = str(ctx.state_root)  # most entries name it as it stands: no Path to build for them
    for target in sources_of(load(provider_id), ctx).targets:
        try:
            data = read_physical(target.path, max_bytes=TEXT_LIMIT)
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
    right: the root is absolute, free of white space and of :data:`_ROOT_STOPS`, and the shortest one for the
    leftmost start. String methods only (no pattern compiled on every status): what the pattern
    ``(/[^\\s"'=;|&<>`$\\\\]*?)/\\.elydora/([A-Za-z0-9._-]+)/(?:guard|hook)\\.py`` finds, in order."""
    done = 0  # where the last mention ended: the next one starts here or later
    anchor = text.find(_ANCHOR)
    while anchor >= 0:
        agent_id, end = _script_after(text, anchor)
        start = _root_start(text, done, anchor) if end >= 0 else -1
        if start >= 0:
            yield text[start:anchor], agent_id
            done = end
        anchor = text.find(_ANCHOR, anchor + 1)


def _script_after(text: str, anchor: int) -> tuple[str, int]:
    """``(agent id, end)`` when ``<id>/guard.py`` or ``<id>/hook.py`` follows the state directory's name at
    ``anchor``, else ``("", -1)``."""
    first = end = anchor + len(_ANCHOR)
    while end < len(text) and text[end] in _AGENT_ID_CHARS:
        end += 1
    if end > first and text.startswith("/", end):
        for script in _SCRIPTS:
            if text.startswith(script, end + 1):
                return text[first:end], end + 1 + len(script)
    return "", -1


def _root_start(text: str, done: int, anchor: int) -> int:
    """Where the root before ``anchor`` starts: the first ``/`` at or after ``done`` from which the text up to
    ``anchor`` holds no white space nor :data:`_ROOT_STOPS` (-1: none)."""
    begin = anchor
    while begin > done and not (text[begin - 1] in _ROOT_STOPS or text[begin - 1].isspace()):
        begin -= 1
    return text.find("/", begin, anchor)


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
