"""The exit-code mapping lives below the entry point: no module of the package imports ``main``."""

from __future__ import annotations

import ast
from pathlib import Path

from elydora_cli import exitcodes
from elydora_config import errors

PACKAGE = Path(__file__).resolve().parents[2] / "elydora_cli"
FRONT_ENDS = ("main.py", "__main__.py")
DRIVERS = ("demo/tour.py",)
"""The demo's tour drives whole ``elydora`` commands as a user would type them: it sits above the entry
point, not below it, and is the one module besides the entry point that calls ``main``."""


def _imports_main(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if module.endswith("main") or any(alias.name == "main" for alias in node.names):
                return True
        if isinstance(node, ast.Import) and any(alias.name.endswith(".main") for alias in node.names):
            return True
    return False


def test_nothing_below_the_entry_point_imports_main() -> None:
    offenders = [
        str(p.relative_to(PACKAGE))
        for p in PACKAGE.rglob("*.py")
        if p.name not in FRONT_ENDS and _imports_main(p)
    ]
    assert sorted(offenders) == sorted(DRIVERS)


def test_errors_map_to_the_documented_codes() -> None:
    assert exitcodes.exit_code_for(exitcodes.UsageError("x")) == exitcodes.USAGE == 2
    assert exitcodes.exit_code_for(errors.LockTimeoutError("/p", "held")) == exitcodes.CONFLICT == 3
    assert exitcodes.exit_code_for(ValueError("x")) == exitcodes.UNHEALTHY == 1
    assert exitcodes.describe_error(FileNotFoundError(2, "No such file", "/x")) == "/x: No such file"
