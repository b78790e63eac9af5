"""Render the guard and audit scripts of one agent from the templates in this package.

The templates (``templates/guard.py``, ``templates/hook.py``, ``templates/launcher.py``) are ordinary,
linted modules whose parameter lines end in ``# @param``; rendering replaces each such line with the Python
literal of the agent's value (state directory, interpreter, the provider's deny, success and failure
outputs), so a generated script needs neither the catalog nor this package at run time.

Per agent: ``guard.py`` and ``hook.py`` (0700) are short launchers; the code is in ``_elydora_guard.py`` and
``_elydora_audit.py`` (0600) beside them, imported so that the interpreter caches the bytecode in the
agent's ``__pycache__`` (compiling the guard on every call would cost a quarter of the start-up budget).
The output is deterministic: ``status`` compares the installed files byte for byte with :func:`generate`
(``__pycache__`` is the interpreter's cache, not a generated file).
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

from .. import __version__
from ..statefiles import AUDIT_MODULE, AUDIT_SCRIPT, GUARD_MODULE, GUARD_SCRIPT, RUNTIME_FLAGS

GUARD_NAME = GUARD_SCRIPT
HOOK_NAME = AUDIT_SCRIPT

if TYPE_CHECKING:  # kept out of the import: the detached flusher imports this package on every start
    from elydora_config.errors import PathLike

    from .. import catalog

SCRIPT_MODE = 0o700
MODULE_MODE = 0o600
_PARAM_LINE = re.compile(r"^([A-Z_]+)(?:: [^=]+)? = .*  # @param$", re.MULTILINE)


def runtime_argv(python: str, script_path: PathLike) -> list[str]:
    """How an agent must run a generated script: isolated mode, no ``site`` (stdlib only, fastest start)."""
    return [python, *RUNTIME_FLAGS, os.fspath(script_path)]


def generate(provider_id: str, agent_dir: PathLike, python: str) -> dict[str, tuple[bytes, int]]:
    """Every generated runtime file of the agent, as ``{file name: (bytes, mode)}``."""
    from .. import catalog
    from ..identity import check_agent_id

    facts = catalog.provider(provider_id)
    directory = os.path.abspath(os.fspath(agent_dir))
    agent_id = check_agent_id(os.path.basename(directory))
    if not os.path.isabs(python):
        raise ValueError("the interpreter path must be absolute")
    common = {"AGENT_DIR": directory, "PYTHON": python, **_host_params(facts)}
    flush_path = flusher_path(python)
    guard = _render(
        "guard.py",
        facts,
        agent_id,
        python,
        dict(
            common,
            AGENT_ID=agent_id,
            PROVIDER_ID=facts.id,
            ALLOW_STDOUT=facts.guard_runtime.success_stdout,
            DENY_EXIT=facts.guard_runtime.deny_exit_code,
            DENY={status: _deny(facts, status) for status in ("frozen", "revoked")},
            FAILURE_EXIT=facts.guard_runtime.failure_exit_code,
            FAILURE_STDOUT=facts.guard_runtime.failure_stdout,
        ),
    )
    hook = _render(
        "hook.py",
        facts,
        agent_id,
        python,
        dict(
            common,
            FLUSH_PATH=flush_path,
            SUCCESS_STDOUT=facts.audit.success_stdout,
            FAILURE_EXIT=facts.audit.failure_exit_code,
            FAILURE_STDOUT=facts.audit.failure_stdout,
        ),
    )
    return {
        GUARD_NAME: (_launcher(facts, agent_id, python, directory, GUARD_MODULE, facts.guard), SCRIPT_MODE),
        HOOK_NAME: (_launcher(facts, agent_id, python, directory, AUDIT_MODULE, facts.audit), SCRIPT_MODE),
        f"{GUARD_MODULE}.py": (guard, MODULE_MODE),
        f"{AUDIT_MODULE}.py": (hook, MODULE_MODE),
    }


FLUSHER_MODULES = ("elydora_cli", "elydora_config", "cryptography", "_cffi_backend", "certifi")
"""The top-level modules outside the standard library that the detached flusher imports (``_cffi_backend``
through ``cryptography``, ``certifi`` for a server-bound agent)."""


def flusher_path(python: str) -> tuple[str, ...]:
    """The directories holding :data:`FLUSHER_MODULES` as this interpreter finds them, for the audit hook to
    start the flusher without ``site`` (its ``.pth`` files cost several times the interpreter's own start).

    Empty when the agent runs another interpreter than this one (its packages and extension modules may be
    others): the hook then starts the flusher with ``site``, as it does when a listed directory is gone.
    """
    import importlib.util
    import sys

    if os.path.realpath(python) != os.path.realpath(sys.executable):
        return ()
    found: list[str] = []
    for name in FLUSHER_MODULES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is None:
            continue
        where = next(iter(spec.submodule_search_locations or ()), None) or spec.origin
        if where and os.path.isabs(where):
            directory = os.path.dirname(where)
            if directory not in found:
                found.append(directory)
    return tuple(found)


def _host_params(facts: catalog.Provider) -> dict[str, tuple[bytes, ...]]:
    """``HOST_KEYS`` (each member name as it appears quoted in the payload) and ``FOREIGN_ENV``."""
    keys = facts.host.payload_keys if facts.host else ()
    names = facts.host.foreign_env if facts.host else ()
    return {
        "HOST_KEYS": tuple(f'"{key}"'.encode() for key in keys),
        "FOREIGN_ENV": tuple(name.encode() for name in names),
    }


def _launcher(
    facts: catalog.Provider,
    agent_id: str,
    python: str,
    directory: str,
    module: str,
    mode: catalog.GuardFacts | catalog.AuditFacts,
) -> bytes:
    from .. import catalog

    prefix = catalog.guard_error_prefix() if module == GUARD_MODULE else catalog.audit_error_prefix()
    params = {
        "AGENT_DIR": directory,
        "MODULE": module,
        "ERROR_PREFIX": prefix,
        "FAILURE_EXIT": mode.failure_exit_code,
        "FAILURE_STDOUT": mode.failure_stdout,
    }
    return _render("launcher.py", facts, agent_id, python, params)


def _deny(facts: catalog.Provider, status: catalog.BlockStatus) -> tuple[bytes, bytes]:
    return facts.runtime_deny_stdout(status), (facts.guard_stderr(status) + "\n").encode("utf-8")


def _render(template: str, facts: catalog.Provider, agent_id: str, python: str, params: dict[str, Any]) -> bytes:
    from importlib import resources

    source = resources.files(f"{__package__}.templates").joinpath(template).read_text(encoding="utf-8")
    seen: set[str] = set()

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in params or name in seen:
            raise ValueError(f"{template}: unexpected parameter {name}")
        seen.add(name)
        return f"{name} = {params[name]!r}"

    body = _PARAM_LINE.sub(replace, source)
    if seen != set(params):
        raise ValueError(f"{template}: parameters not found: {sorted(set(params) - seen)}")
    return (_header(facts, agent_id, python) + body).encode("utf-8")


SHEBANG_LIMIT = 127
"""Bytes of a ``#!`` line (newline included) every Linux kernel reads whole (older ones stop at 128)."""


def shebang(python: str) -> str:
    """``#!<python> -IS`` (one flag word: a shebang passes one argument), or ``""`` when the interpreter path
    holds whitespace or the line would be too long: then the launchers run only through the interpreter."""
    flags = "-" + "".join(flag.lstrip("-") for flag in RUNTIME_FLAGS)
    line = f"#!{python} {flags}\n"
    usable = not any(c.isspace() for c in python) and len(line.encode("utf-8")) <= SHEBANG_LIMIT
    return line if usable else ""


def _header(facts: catalog.Provider, agent_id: str, python: str) -> str:
    return (
        f"{shebang(python)}# Generated by elydora-config {__version__} for {facts.display_name} ({facts.id}),"
        f" agent {agent_id!r}. Do not edit: status compares this file with what it generates.\n"
    )
