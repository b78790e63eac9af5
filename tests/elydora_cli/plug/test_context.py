"""A context's directories: derived once per context, afresh for a changed copy."""

from __future__ import annotations

from pathlib import Path

from elydora_cli.plug.context import Context


def test_directories_are_derived_once_per_context_and_afresh_for_a_copy() -> None:
    ctx = Context(home=Path("/h"), state_root=Path("/h"), repo_root=Path("/w"))
    assert ctx.agent_dir("a") == Path("/h/.elydora/a") and ctx.agent_dir("a") is ctx.agent_dir("a")
    assert ctx.runtime_dir("a") is ctx.runtime_dir("a") and ctx.elydora_dir is ctx.elydora_dir
    assert ctx.runtime_file("a", "guard.py") == Path("/h/.elydora/a/guard.py")
    assert ctx.runtime_file("a", "guard.py") is ctx.runtime_file("a", "guard.py") != ctx.runtime_file("a", "hook.py")
    moved = ctx.with_options(state_root=Path("/s"))
    assert moved.agent_dir("a") == Path("/s/.elydora/a") and moved.runtime_dir("b") == Path("/s/.elydora/b")
    assert ctx.agent_dir("a") == Path("/h/.elydora/a")  # the original keeps its own
    assert moved == Context(home=Path("/h"), state_root=Path("/s"), repo_root=Path("/w"))  # fields only


def test_a_copy_that_keeps_the_places_keeps_the_derived_directories() -> None:
    ctx = Context(home=Path("/h"), state_root=Path("/h"), repo_root=Path("/w"))
    same = ctx.with_options(timeout_seconds=30, hook_command="/bin/x hook")
    assert same.agent_dir("a") is ctx.agent_dir("a") and same.runtime_file("a", "g") is ctx.runtime_file("a", "g")
    system = ctx.with_options(system=True, rooted=True)
    assert system.runtime_dir("a") != ctx.runtime_dir("a")  # under system scope: the root-owned runtime root
