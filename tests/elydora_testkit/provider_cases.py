"""Shared machinery of the provider acceptance tests: before/after pairs (fixtures/configs) and running our hooks.

An after-file writes each Elydora handler in a neutral placeholder form (``/PYTHON/bin/python3
/HOME/.elydora/AGENT/guard.py``, see :data:`REF_MARK`), not in the exact command our providers build (we run
the interpreter with ``-I -S`` and real paths). ``expected_value`` therefore replaces every placeholder handler
in an after-file with the handler our provider module builds for the same role, agent and timeout; the rest
of the document (placement, order, user entries) is compared as it is. The exact shape of our handlers is
pinned separately, literally, in each provider's own test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from locations import PAYLOADS

from elydora_cli import identity
from elydora_cli.plug import hooktables
from elydora_cli.plug.context import Context
from elydora_cli.plug.ownership import Ref

REF_MARK = "/HOME/.elydora/AGENT/"


@dataclass
class Case:
    provider: str
    before: str | None
    after: str
    env: dict[str, str] = field(default_factory=dict)
    legacy: bool = False
    """The before-file holds old Elydora entries that install migrates (so uninstall cannot restore it)."""
    dirs: tuple[str, ...] = ()
    """Directories (below the home) that exist before the install, e.g. an agent's legacy home."""
    target: str | None = None
    """Where the before-file goes and the after-file is read, relative to the home (default: the first target)."""
    in_project: bool = False
    """``target`` is relative to the project (the agent's cwd) instead of the home (Copilot's legacy file)."""
    deviation: Callable[[Any], Any] | None = None
    """Where the after-file records the shape an agent's documentation describes but we knowingly write another:
    turns the after-value into ours (the provider's case file says why). Our handlers still replace the
    placeholders afterwards."""

    @property
    def id(self) -> str:
        return self.after.rsplit(".", 1)[0]


def target_path(case: Case, ctx: Context, module: Any) -> Path:
    """The file a case's before/after pair belongs to."""
    if case.target is None:
        return Path(module.sources(ctx).targets[0].path)
    return (ctx.repo_root if case.in_project else ctx.home) / case.target


def make_context(tmp: Path, env: dict[str, str] | None = None, dirs: tuple[str, ...] = (), **options: Any) -> Context:
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    for name in dirs:
        (home / name).mkdir(parents=True, exist_ok=True)
    (tmp / "work").mkdir(exist_ok=True)
    return Context(
        home=home,
        state_root=home,
        repo_root=tmp / "work",
        env=dict(env or {}),
        python=sys.executable,
        rooted=True,
        **options,
    )


def parse_any(text: str, suffix: str) -> Any:
    if suffix == ".mjs":  # a hook script (Cline) is not data: the provider's ``installed`` reads it
        return text
    if suffix == ".toml":
        if sys.version_info >= (3, 11):
            import tomllib
        else:  # Python 3.10: the same parser, as the tomli package
            import tomli as tomllib  # type: ignore[import-not-found, no-redef, unused-ignore]

        return tomllib.loads(text)
    from elydora_config.jsonc import JSONC, JsoncDocument

    return JsoncDocument.parse(text, JSONC).value


def _role(text: str) -> str:
    return "guard" if "guard" in text.rsplit("/", 1)[-1] else "audit"


def expected_value(value: Any, module: Any, ctx: Context, agent_id: str) -> Any:
    """The after-value with each placeholder Elydora handler replaced by ours."""
    if isinstance(value, dict):
        marks = [v for v in value.values() if isinstance(v, str) and REF_MARK in v]
        marks += [a for v in value.values() if isinstance(v, list) for a in v if isinstance(a, str) and REF_MARK in a]
        if marks:
            hooks = getattr(module, "HOOKS", None)
            timeout = value.get(hooks.timeout_key if hooks else "timeout")
            ref = Ref(agent_id, _role(marks[0].strip("'\"")), ctx.python, timeout)
            if hooks:
                return hooks.make(ref, ctx)
            return hooktables.table_for(module.TABLES, ref, ctx, value["event"])  # the tables layout (Kimi)
        return {k: expected_value(v, module, ctx, agent_id) for k, v in value.items()}
    if isinstance(value, list):
        return [expected_value(v, module, ctx, agent_id) for v in value]
    return value


def ordered(value: Any) -> str:
    """Order-sensitive canonical text (dict key order matters in a config file)."""
    return json.dumps(value, ensure_ascii=False)


def set_status(ctx: Context, agent_id: str, status: str) -> None:
    path = ctx.agent_dir(agent_id) / identity.STATUS
    path.write_bytes(identity.status_bytes(status, None))
    cache = ctx.agent_dir(agent_id) / identity.STATUS_CACHE
    if cache.exists():
        cache.unlink()


def run_as_agent(
    argv: list[str], payload: bytes, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    return subprocess.run(argv, input=payload, capture_output=True, timeout=30, env={**clean, **(env or {})})


def shell_argv(command: str) -> list[str]:
    return ["/bin/sh", "-c", command]


def payload(provider: str, event: str) -> bytes:
    return (PAYLOADS / f"{provider}-{event}.json").read_bytes()


def installed_commands(provider: str, ctx: Context) -> list[tuple[str, str, list[str]]]:
    """(event, role, argv) of every entry of ours in the installed config, read back the way ``elydora verify``
    reads it and run the way the agent runs it (``elydora_cli.installer.entries``)."""
    from elydora_cli.installer import operations

    return [(entry.event, entry.role, entry.argv) for entry in operations.installed_entries(provider, ctx)]


def load_cases() -> list[Case]:
    """Every provider's cases, from ``cases/<provider>_cases.py`` (one file per provider, no shared list)."""
    import importlib.util

    found: list[Case] = []
    for path in sorted((Path(__file__).parents[1] / "elydora_cli" / "providers" / "cases").glob("*_cases.py")):
        spec = importlib.util.spec_from_file_location(f"cases_{path.stem}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        found.extend(module.CASES)
    return found


def files_under(*roots: Path) -> dict[str, bytes]:
    """Every regular file below ``roots`` with its bytes (to prove an aborted operation wrote nothing)."""
    return {
        str(path): path.read_bytes()
        for root in roots
        for path in sorted(root.rglob("*"))
        if path.is_file() and not path.is_symlink() and "transactions" not in path.parts and path.name != ".lock"
    }


def change_before_commit(monkeypatch: Any, path: Path, data: bytes) -> None:
    """Make the next ``Transaction.commit`` first write ``data`` to ``path`` (a concurrent edit), then commit."""
    from elydora_config.transaction import Transaction

    original = Transaction.commit

    def commit(self: Transaction) -> str | None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return original(self)

    monkeypatch.setattr(Transaction, "commit", commit)


def expect_switch(provider: str, ctx: Context, refused_by: Path | None, *roots: Path) -> None:
    """A precedence-table row: install succeeds with a healthy status (``refused_by`` is ``None``), or it is
    refused naming ``refused_by`` and writes nothing below ``roots``."""
    import pytest

    from elydora_cli.installer import operations
    from elydora_cli.plug.common import RefusedError

    before = files_under(*roots)
    if refused_by is None:
        operations.install(provider, ctx)
        assert operations.status(provider, ctx).healthy, operations.status(provider, ctx).findings
        return
    with pytest.raises(RefusedError) as caught:
        operations.install(provider, ctx)
    assert caught.value.path == str(refused_by)
    assert files_under(*roots) == before, "a refused install wrote something"
