"""A stand-in ``grok`` executable answering ``grok inspect --json`` with the hooks of ``~/.grok/hooks/*.json``.

Each handler of those files is listed as Grok 0.2.111 lists it (``event``, ``hookType``, ``target``, ``source``).
``FAKE_GROK_MODE``: ``ok``, ``hide`` (lists no hook), ``exit`` (fails).
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


def _hooks() -> list[dict[str, Any]]:
    folder = Path(os.environ["HOME"]) / ".grok" / "hooks"
    listed = []
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text())
        for event, groups in data.get("hooks", {}).items():
            for group in groups:
                for handler in group.get("hooks", []):
                    listed.append({"event": event, "hookType": handler.get("type"), "target": handler.get("command"),
                                   "source": {"type": "user", "path": str(folder)}, "matcher": group.get("matcher")})
    return listed


def main() -> int:
    mode = os.environ.get("FAKE_GROK_MODE", "ok")
    if sys.argv[1:] != ["inspect", "--json"] or mode == "exit":
        return 2
    print(json.dumps({"grokVersion": "0.2.111", "hooks": [] if mode == "hide" else _hooks()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
