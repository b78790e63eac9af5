"""Test helpers are imported as the ``elydora_testkit`` package, never through ``sys.path`` edits in the test process.

``tests/`` is on pytest's ``pythonpath``, so a helper shared by test files lives in ``tests/elydora_testkit/`` and is
imported as ``from elydora_testkit.<module> import ...``. A child interpreter's path written into a program string
(``test_txn_strace.py`` does that) is text, not a call, and is not counted.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def _is_sys_path(node: ast.AST) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "path"
            and isinstance(node.value, ast.Name) and node.value.id == "sys")


def path_edits(source: str) -> list[int]:
    """Line numbers of every statement that changes ``sys.path`` (a method call on it or an assignment into it)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _is_sys_path(node.func.value):
            lines.append(node.lineno)
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                inner = target.value if isinstance(target, ast.Subscript) else target
                if _is_sys_path(inner):
                    lines.append(node.lineno)
    return sorted(lines)


def test_the_detector_sees_every_kind_of_edit() -> None:
    source = ("import sys\nsys.path.insert(0, 'a')\nsys.path.append('b')\nsys.path[:0] = ['c']\n"
              "sys.path += ['d']\nsys.path = []\nCHILD = 'sys.path.insert(0, 1)'\n")
    assert path_edits(source) == [2, 3, 4, 5, 6]


def test_no_test_module_edits_sys_path() -> None:
    offenders = [f"{path.relative_to(TESTS)}:{line}"
                 for path in sorted(TESTS.rglob("*.py")) if "corpus" not in path.relative_to(TESTS).parts
                 for line in path_edits(path.read_text(encoding="utf-8"))]
    assert offenders == []
