"""Factory Droid's user files and the handlers we write, shared by the Droid test files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from elydora_cli.plug.context import Context
from elydora_testkit.provider_cases import parse_any

HOOKS_JSON, NESTED = ".factory/hooks.json", ".factory/hooks/hooks.json"
LOCAL, SETTINGS = ".factory/settings.local.json", ".factory/settings.json"
USER_FILES = (HOOKS_JSON, NESTED, LOCAL, SETTINGS)


def guard(ctx: Context) -> dict[str, Any]:
    command = f"'{ctx.python}' '-I' '-S' '{ctx.elydora_dir}/droid/guard.py'"
    return {"type": "command", "command": command, "timeout": 10}


def audit(ctx: Context) -> dict[str, Any]:
    command = f"'{ctx.python}' '-I' '-S' '{ctx.elydora_dir}/droid/hook.py'"
    return {"type": "command", "command": command, "timeout": 10}


def ours(ctx: Context) -> dict[str, Any]:
    return {
        "PreToolUse": [{"matcher": "*", "hooks": [guard(ctx)]}],
        "PostToolUse": [{"matcher": "*", "hooks": [audit(ctx)]}],
    }


def write(ctx: Context, name: str, value: Any, *, root: Path | None = None) -> Path:
    path = (root or ctx.home) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value if isinstance(value, str) else json.dumps(value, indent=2) + "\n", encoding="utf-8")
    return path


def read(ctx: Context, name: str) -> Any:
    path = ctx.home / name
    return parse_any(path.read_text(encoding="utf-8"), path.suffix) if path.exists() else None
