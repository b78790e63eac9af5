"""The demo's sandbox: ``DIR/home`` seeded with every agent's existing configs, ``DIR/project`` its project.

A directory is used only when it is empty, or when it holds the marker of an earlier demo (then its
``home`` and ``project`` are replaced); anything else is refused, so a mistyped path never loses a byte.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from elydora_config.errors import ConfigError
from elydora_config.records import record

from ..pathtext import NOT_UTF8, undecodable
from ..plug.common import module_path_problem

if TYPE_CHECKING:
    from importlib.abc import Traversable

MARKER = ".elydora-demo"
DOT = "dot-"
MODES = {".claude/settings.json": 0o600, ".codex/config.toml": 0o600, ".cline/hooks/TaskStart.mjs": 0o755}
"""Modes other than 0644 among the seeded files (uninstall must keep each file's mode too)."""
DEFAULT_MODE = 0o644

Snapshot = dict[str, tuple[bytes, int]]
"""Path below the home -> (bytes, permission bits)."""


class DemoDirError(ConfigError):
    """A demo directory that is not empty and not an earlier demo's, or not a path the agents can read."""


@record(frozen=True)
class Sandbox:
    root: Path
    home: Path
    project: Path


def _seeds(folder: Traversable, prefix: str = "") -> dict[str, bytes]:
    found: dict[str, bytes] = {}
    for item in sorted(folder.iterdir(), key=lambda t: t.name):
        name = "." + item.name[len(DOT):] if item.name.startswith(DOT) else item.name
        if item.is_dir():
            found.update(_seeds(item, f"{prefix}{name}/"))
        elif not name.endswith((".pyc", ".py")):
            found[prefix + name] = item.read_bytes()
    return found


def seeds() -> dict[str, bytes]:
    """The shipped configs by path below the home (``.claude/settings.json`` ...)."""
    return _seeds(resources.files(__package__).joinpath("home"))


def prepare(directory: str | None) -> Sandbox:
    """A fresh sandbox in ``directory`` (default: a new temporary directory), seeded and marked."""
    root = Path(tempfile.mkdtemp(prefix="elydora-demo-")) if directory is None else Path(os.path.abspath(directory))
    if undecodable(str(root)):
        raise DemoDirError(root, NOT_UTF8)
    if module_path_problem(root, os.name == "nt"):
        raise DemoDirError(root, "holds a backslash: the demo installs every agent, and Cline, OpenCode, Kilo and Pi "
                                 "could not load their module below it (docs/providers.md); choose another folder")
    if root.exists() and not root.is_dir():
        raise DemoDirError(root, "is not a directory")
    if root.is_dir() and any(root.iterdir()):
        if not (root / MARKER).is_file():
            raise DemoDirError(root, "is not empty and holds no earlier demo; give an empty or new directory")
        for name in ("home", "project"):
            if (root / name).is_dir() and not (root / name).is_symlink():
                shutil.rmtree(root / name)
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    (root / MARKER).write_text("a sandbox made by `elydora demo`; `elydora demo` may replace it\n", encoding="utf-8")
    sandbox = Sandbox(root, root / "home", root / "project")
    sandbox.project.mkdir(mode=0o700, parents=True)
    for relative, data in seeds().items():
        path = sandbox.home / relative
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        path.write_bytes(data)
        path.chmod(MODES.get(relative, DEFAULT_MODE))
    return sandbox


def snapshot(home: Path, relatives: list[str] | None = None) -> Snapshot:
    """Bytes and mode of ``relatives`` (default: every file below ``home`` outside ``.elydora``)."""
    if relatives is None:
        relatives = sorted(
            str(path.relative_to(home))
            for path in home.rglob("*")
            if path.is_file() and path.relative_to(home).parts[0] != ".elydora"
        )
    found: Snapshot = {}
    for relative in relatives:
        path = home / relative
        if path.is_file():
            found[relative] = (path.read_bytes(), stat.S_IMODE(path.stat().st_mode))
    return found


def differences(before: Snapshot, home: Path) -> list[str]:
    """What differs from ``before``: changed bytes or modes, missing files, and files left over."""
    after = snapshot(home)
    problems = [f"{rel}: missing" for rel in before if rel not in after]
    problems += [f"{rel}: bytes differ" for rel in before if rel in after and after[rel][0] != before[rel][0]]
    problems += [
        f"{rel}: mode {after[rel][1]:o}, was {before[rel][1]:o}"
        for rel in before
        if rel in after and after[rel][1] != before[rel][1]
    ]
    problems += [f"{rel}: left over" for rel in after if rel not in before]
    return problems
