"""A stand-in ``grok`` executable answering ``grok inspect --json`` as Grok Build 0.2.111 does.

It lists each handler of ``~/.grok/hooks/*.json`` (``event``, ``hookType``, ``target``, ``source``, ``matcher``)
and, like the real one, the Claude Code hooks of ``~/.claude/settings.json`` it cross-loads (``vendor:
"claude"``, ``compatibilityStatus``). ``FAKE_GROK_MODE``: ``ok``, ``hide`` (lists no hook), ``disabled`` (lists
every hook with ``"disabled": true``, as the real one lists the hooks it found but will not run), ``exit`` (fails).
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path
from typing import Any


def install_fake(bin_dir: Path, mode: str = "ok") -> Path:
    """Write ``bin_dir/grok`` running this fake with ``mode``; returns its path."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    exe = bin_dir / "grok"
    exe.write_text(f"#!/bin/sh\nFAKE_GROK_MODE={mode} exec '{sys.executable}' '{Path(__file__).resolve()}' \"$@\"\n")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return exe


def _listed(data: dict[str, Any], folder: Path, extra: dict[str, Any]) -> list[dict[str, Any]]:
    listed = []
    for event, groups in data.get("hooks", {}).items():
        for group in groups:
            for handler in group.get("hooks", []):
                listed.append({"event": event, "hookType": handler.get("type"), "target": handler.get("command"),
                               "source": {"type": "user", "path": str(folder)}, "matcher": group.get("matcher"),
                               **extra})
    return listed


def _hooks(mode: str) -> list[dict[str, Any]]:
    home = Path(os.environ["HOME"])
    off = {"disabled": True} if mode == "disabled" else {}
    folder = home / ".grok" / "hooks"
    listed = []
    for path in sorted(folder.glob("*.json")):
        listed += _listed(json.loads(path.read_text()), folder, off)
    claude = home / ".claude" / "settings.json"
    if claude.exists():
        status = {"disabled": True, "compatibilityStatus": "disabled"} if off else {"compatibilityStatus": "enabled"}
        listed += _listed(json.loads(claude.read_text()), claude.parent, {"vendor": "claude", **status})
    return listed


def main() -> int:
    mode = os.environ.get("FAKE_GROK_MODE", "ok")
    if sys.argv[1:] != ["inspect", "--json"] or mode == "exit":
        return 2
    print(json.dumps({"grokVersion": "0.2.111", "hooks": [] if mode == "hide" else _hooks(mode)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
