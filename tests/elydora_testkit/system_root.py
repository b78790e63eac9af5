"""A sandbox system root for ``--scope system`` tests: where its files are, and the command run against it.

``sysroot`` stands for ``/``: the managed layers, the root-owned launchers and each user's state lie below it
at their real paths (``managed.py`` holds the facts).
"""

from __future__ import annotations

import os
import pwd
from pathlib import Path

import pytest

from elydora_cli import managed
from elydora_cli.main import main


def system(sysroot: Path, *argv: str) -> int:
    """``elydora <argv> --scope system`` against the sandbox root, in this process."""
    return main([*argv, "--scope", "system", "--root", str(sysroot)])


def layer(sysroot: Path, agent: str) -> Path:
    """The agent's managed settings file."""
    return sysroot / managed.LAYERS[agent].path.lstrip("/")


def runtime(sysroot: Path, agent: str) -> Path:
    """The folder of the agent's root-owned launchers."""
    return sysroot / managed.RUNTIME_ROOT.lstrip("/") / agent


def user_state(sysroot: Path, agent: str) -> Path:
    """This OS user's state folder for the agent (``<agent>@<user>`` under the user's ``~/.elydora``)."""
    user = pwd.getpwuid(os.getuid())
    return sysroot / user.pw_dir.lstrip("/") / ".elydora" / managed.user_dir_name(agent, user.pw_name)


def agents_on_path(monkeypatch: pytest.MonkeyPatch, bin_dir: Path, *names: str) -> None:
    """Executables named ``names`` in a new ``bin_dir``, which heads a ``PATH`` of the system folders only."""
    bin_dir.mkdir()
    for name in names:
        (bin_dir / name).write_text("#!/bin/sh\n")
        (bin_dir / name).chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
