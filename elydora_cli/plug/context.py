"""Everything a provider needs to know about where it runs: roots, environment, interpreter, options."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from elydora_config.errors import UnsafePathError
from elydora_config.records import field, record, replace

from ..managed import RUNTIME_ROOT
from ..pathtext import NOT_UTF8, undecodable
from ..readpass import DIRECT, Reads
from ..statefiles import RUNTIME_FLAGS

if TYPE_CHECKING:
    from .agentprobe import AgentProbe

DEFAULT_TIMEOUT_SECONDS = 10
__all__ = ["DEFAULT_TIMEOUT_SECONDS", "RUNTIME_FLAGS", "Context"]


@record(frozen=True)
class Context:
    home: Path
    """The settings root: every agent path is resolved as if this were the home directory."""
    state_root: Path
    """Where ``.elydora/`` lives."""
    repo_root: Path
    """The project whose read-only project-level sources are consulted (the agents' cwd)."""
    env: Mapping[str, str] = field(default_factory=dict)
    python: str = "/usr/bin/python3"
    timeout_seconds: int = DEFAULT_TIMEOUT_SECONDS
    agent_id: str | None = None
    windows: bool = False
    rooted: bool = False
    """True when ``--root`` was given: absolute paths taken from the environment are placed below it."""
    hook_command: str | None = None
    """``--hook-command``: the supervisor the hook entries run instead of the Elydora runtime (its text,
    already checked by :func:`~elydora_cli.neutral.hookcommand.parse_hook_command`)."""
    provider: str | None = None
    """The provider being operated on (set by :mod:`.operations`; a supervisor command names it)."""
    known_hook_commands: tuple[str, ...] = ()
    """Supervisor commands earlier installs recorded (their entries are ours too, whatever the flags say)."""
    follow_symlinks: bool = False
    """Edit the real file a symlinked dotfile points to (see :mod:`elydora_cli.optins`)."""
    allow_read_only: bool = False
    """Replace settings files the caller may not write (see :mod:`elydora_cli.optins`)."""
    probe: AgentProbe | None = None
    """The agent's own introspection, when its executable is at hand (see :mod:`.agentprobe`)."""
    trust: bool = False
    """Install: record the agent's trust of our entries (``install --trust``; Codex)."""
    system: bool = False
    """``--scope system``: the agent's managed layer, launchers under the root-owned runtime root
    (:mod:`elydora_cli.managed`)."""
    lock_down: bool | None = None
    """``--lock-down`` (True) / ``--no-lock-down`` (False) under system scope; ``None``: keep what is there."""
    reads: Reads = DIRECT
    """How the agent's files and Elydora's state are read: plainly, or inside the read-only pass of a status run
    (:class:`~elydora_cli.readpass.ReadPass`)."""

    @property
    def elydora_dir(self) -> Path:
        return self._derived("state dir", "", lambda: _state_dir(self.state_root))

    def agent_id_for(self, provider_id: str) -> str:
        return self.agent_id or provider_id

    def agent_dir(self, agent_id: str) -> Path:
        return self._derived("agent dir", agent_id, lambda: self.elydora_dir / agent_id)

    @property
    def runtime_root(self) -> Path:
        """Where the launchers our entries run live: the state directory, or under system scope the
        root-owned runtime root (placed below ``--root``)."""
        if self.system:
            return self.place(RUNTIME_ROOT)
        return self.elydora_dir

    def runtime_dir(self, agent_id: str) -> Path:
        return self._derived("runtime dir", agent_id, lambda: self.runtime_root / agent_id)

    def runtime_file(self, agent_id: str, name: str) -> Path:
        """The runtime file ``name`` of the agent (our entries name them: a status checks each entry)."""
        return self._derived("runtime file", f"{agent_id}/{name}", lambda: self.runtime_dir(agent_id) / name)

    def _derived(self, what: str, name: str, make: Callable[[], Path]) -> Path:
        """``make()``, once per context: the context is immutable (its copies start afresh), and a status asks
        for the same directories hundreds of times."""
        derived: dict[tuple[str, str], Path] | None = self.__dict__.get("_derived_paths")
        if derived is None:
            derived = self.__dict__["_derived_paths"] = {}
        found = derived.get((what, name))
        if found is None:
            found = derived[what, name] = make()
        return found

    def env_value(self, name: str) -> str | None:
        """The variable's value; ``None`` when unset (an empty string is a value)."""
        return self.env.get(name)

    def place(self, value: str) -> Path:
        """A path taken from the environment: relative to the project, absolute ones kept below ``--root``. One that
        is not UTF-8 is refused: the agent, reading its environment as UTF-8, would look elsewhere."""
        if undecodable(value):
            raise UnsafePathError(value, NOT_UTF8)
        if os.path.isabs(value):
            if self.rooted:  # below the root with its anchor ("/", or a drive such as "C:\\") removed
                absolute = Path(value)
                return self.home / absolute.relative_to(absolute.anchor)
            return Path(value)
        return self.repo_root / value

    def local_app_data(self) -> Path:
        """Windows' ``%LOCALAPPDATA%`` (stripped), else its default ``<home>\\AppData\\Local``: where the agents that
        keep their settings among the local application data (Crush, Hermes) look on Windows."""
        value = (self.env_value("LOCALAPPDATA") or "").strip()
        return self.place(value) if value else self.home / "AppData" / "Local"

    def env_dir(self, name: str) -> Path | None:
        """``$name`` as a directory when set and non-empty, else ``None`` (the agent's default)."""
        value = self.env_value(name)
        return self.place(value) if value else None

    def with_options(self, **changes: object) -> Context:
        made = replace(self, **changes)
        if _PLACES.isdisjoint(changes):  # the same directories: derived once for both
            made.__dict__["_derived_paths"] = self.__dict__.setdefault("_derived_paths", {})
        return made


_PLACES = frozenset({"home", "state_root", "repo_root", "rooted", "system", "env"})
"""The fields the derived directories depend on (``env`` and ``repo_root`` through :meth:`Context.place`)."""


@functools.lru_cache(maxsize=32)
def _state_dir(state_root: Path) -> Path:
    """``<state root>/.elydora``, built once per root (status asks for it hundreds of times)."""
    return state_root / ".elydora"
