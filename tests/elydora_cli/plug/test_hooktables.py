"""The "tables" layout: which tables are ours, and that the table of an event is its handler with the event first."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from elydora_testkit.provider_cases import make_context

from elydora_cli.plug import hooktables
from elydora_cli.plug.context import Context
from elydora_cli.plug.ownership import Ref, runtime_argv

EVENTS = {"Before": "guard", "After": "audit"}


def _handler(ref: Ref, ctx: Context) -> dict[str, Any]:
    return {"command": shlex.join(runtime_argv(ref, ctx)), "timeout": ref.timeout}


def _no_schema(path: Path, value: Any, ctx: Context) -> list[Any]:
    return list(value.get("hooks", []))


TABLES = hooktables.HookTables(EVENTS, _handler, _no_schema)


def test_the_table_is_the_handler_with_its_event_first(tmp_path: Path) -> None:
    ctx = make_context(tmp_path)
    table = hooktables.table_for(TABLES, Ref("a1", "guard", ctx.python, 7), ctx, "Before")
    assert list(table) == ["event", "command", "timeout"] and table["event"] == "Before"
    assert hooktables.ours(TABLES, table, ctx) == Ref("a1", "guard", ctx.python, 7)


def test_tables_of_another_shape_or_role_are_not_ours(tmp_path: Path) -> None:
    ctx = make_context(tmp_path)
    table = hooktables.table_for(TABLES, Ref("a1", "guard", ctx.python, 7), ctx, "Before")
    assert hooktables.ours(TABLES, {**table, "matcher": "*"}, ctx) is None
    assert hooktables.ours(TABLES, {**table, "event": "After"}, ctx) is None  # a guard under an audit event
    assert hooktables.ours(TABLES, {**table, "timeout": "7"}, ctx) is None
    assert hooktables.ours(TABLES, {"event": "Before", "command": "echo hi", "timeout": 7}, ctx) is None


def test_installed_lists_only_our_tables_with_their_event(tmp_path: Path) -> None:
    ctx = make_context(tmp_path)
    ours = hooktables.table_for(TABLES, Ref("a1", "audit", ctx.python, 7), ctx, "After")
    value = {"hooks": [{"event": "After", "command": "echo hi", "timeout": 7}, ours]}
    assert hooktables.installed(TABLES, value, ctx) == [("After", Ref("a1", "audit", ctx.python, 7), ours)]
