"""Render the guard and audit scripts of one agent from the templates in this package.

The templates (``templates/guard.py``, ``templates/hook.py``, ``templates/launcher.py``, and
``templates/supervisor.py`` for ``--hook-command`` installs of an agent other agents cross-load) are ordinary,
linted modules whose parameter lines end in ``# @param``; rendering replaces each such line with the Python
literal of the agent's value (state directory, interpreter, the provider's deny, success and failure
outputs), so a generated script needs neither the catalog nor this package at run time.

Per agent: ``guard.py`` and ``hook.py`` (0700) are short launchers; the code is in ``_elydora_guard.py`` and
``_elydora_audit.py`` (0600) beside them, which the launchers load by path (never through ``sys.path``) from
the bytecode ``install`` compiles for the hook interpreter (:mod:`.bytecode`; compiling the guard on every
call would cost a quarter of the start-up budget). The output is deterministic: ``status`` compares the
installed files byte for byte with :func:`generate`, and the bytecode with the digests the install manifest
recorded.
"""

from __future__ import annotations

import functools
import os
import sys
from typing import TYPE_CHECKING

from elydora_config import _platform

from .. import __version__, catalog, managed, packagedata
from ..identity import check_agent_id
from ..statefiles import AUDIT_MODULE, AUDIT_SCRIPT, GUARD_MODULE, GUARD_SCRIPT, POLICY_MODULE, RUNTIME_FLAGS
from .templateparams import cut, cut_python, joined

GUARD_NAME = GUARD_SCRIPT
HOOK_NAME = AUDIT_SCRIPT

if TYPE_CHECKING:  # kept out of the import: the detached flusher imports this package on every start
    from collections.abc import Callable
    from typing import Any

    from elydora_config.errors import PathLike

    from .. import catalog

SCRIPT_MODE = 0o700
MODULE_MODE = 0o600
INLINE_LINE = r"^from \.(\w+) import (?:[\w, ]+  # @inline|\(  # @inline\n[\w, \n]*?\n\))$"
"""A template's import of another template module (its group: the module), on one line or with its names in
parentheses up to the next ``)`` line; the generated script holds the module's code in its place."""
_FUTURE = "from __future__ import annotations\n"


def runtime_argv(python: str, script_path: PathLike) -> list[str]:
    """How an agent must run a generated script: isolated mode, no ``site`` (stdlib only, fastest start)."""
    return [python, *RUNTIME_FLAGS, os.fspath(script_path)]


def generate(
    provider_id: str, agent_dir: PathLike, python: str, *, user_root: str | None = None
) -> dict[str, tuple[bytes, int]]:
    """Every generated runtime file of the agent, as ``{file name: (bytes, mode)}``.

    ``user_root`` (system scope): ``agent_dir`` is the root-owned runtime directory, the state is each
    user's own (their home from the password database, placed below ``user_root``: ``""`` on a real
    machine), the guard decides from root-owned policy and blocks on its own failures (fail closed), and the
    files are readable by every user but writable by root only."""
    facts = catalog.provider(provider_id)
    directory = os.path.abspath(os.fspath(agent_dir))
    agent_id = check_agent_id(os.path.basename(directory))
    if not os.path.isabs(python):
        raise ValueError("the interpreter path must be absolute")
    system = user_root is not None
    background = package_python(python, system)
    common = {"AGENT_DIR": directory, "PACKAGE_PYTHON": background, **_host_params(facts), "SYSTEM": system}
    guard_failure = _guard_failure(facts, system)
    flush_path = flusher_path(background)
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
            FAILURE_EXIT=guard_failure[0],
            FAILURE_STDOUT=guard_failure[1],
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
            PROVIDER_ID=facts.id,
        ),
    )
    audit_failure = (facts.audit.failure_exit_code, facts.audit.failure_stdout)
    script, module = (managed.LAUNCHER_MODE, managed.MODULE_MODE) if system else (SCRIPT_MODE, MODULE_MODE)
    files = {
        GUARD_NAME: (_launcher(facts, agent_id, python, directory, GUARD_MODULE, guard_failure, system), script),
        HOOK_NAME: (_launcher(facts, agent_id, python, directory, AUDIT_MODULE, audit_failure, system), script),
        f"{GUARD_MODULE}.py": (guard, module),
        f"{AUDIT_MODULE}.py": (hook, module),
    }
    if system:
        owner = _platform.user_id()
        params = {"AGENT_DIR": directory, "AGENT_ID": agent_id, "USER_ROOT": user_root, "OWNER_UID": owner}
        files[f"{POLICY_MODULE}.py"] = (_render("policy.py", facts, agent_id, python, params), module)
    return files


def _guard_failure(facts: catalog.Provider, system: bool) -> tuple[int, bytes]:
    """(exit code, stdout) of the guard's own failures: the agent's failure mode, or under system scope a
    block (fail closed: a user who breaks the runtime's inputs must not get an unguarded agent)."""
    if system:
        return facts.guard_runtime.deny_exit_code, facts.runtime_deny_stdout("revoked")
    return facts.guard_runtime.failure_exit_code, facts.guard_runtime.failure_stdout


def supervisor_launcher(
    provider_id: str, agent_dir: PathLike, python: str, argv: list[str], env: dict[str, str]
) -> bytes:
    """The argument-free launcher of a ``--hook-command`` supervisor (``templates/supervisor.py``): the host
    check of the agent's runtime (noted in ``agent_dir``), then ``argv`` (with ``env`` added) in its place."""
    facts = catalog.provider(provider_id)
    directory = os.path.abspath(os.fspath(agent_dir))
    agent_id = check_agent_id(os.path.basename(directory))
    if not (argv and os.path.isabs(argv[0])):
        raise ValueError("the supervisor must be an absolute executable")
    params = {
        "AGENT_DIR": directory,
        "ARGV": tuple(argv),
        "ENV": dict(env),
        **_host_params(facts),
        "ERROR_PREFIX": catalog.guard_error_prefix(),
        "FAILURE_EXIT": facts.guard_runtime.failure_exit_code,
    }
    return _render("supervisor.py", facts, agent_id, python, params)


def package_python(python: str, system: bool) -> str:
    """The interpreter of the runtime's background processes (the flusher and the status refresher), which
    import this package: the one running it now, which surely can (the hooks' own ``python`` may be a system
    interpreter without the package: ``install --python /usr/bin/python3`` from a virtual environment or pipx,
    as install advises), except under system scope, where every user runs them and root's own installation may
    be out of their reach: the hooks' interpreter then, which install checks can run the flusher."""
    return python if system else os.path.abspath(sys.executable)


FLUSHER_MODULES = ("elydora_cli", "elydora_config", "cryptography", "_cffi_backend", "certifi")
"""The top-level modules outside the standard library that the detached flusher imports (``_cffi_backend``
through ``cryptography``, ``certifi`` for a server-bound agent)."""


@functools.cache
def flusher_path(python: str) -> tuple[str, ...]:
    """The directories holding :data:`FLUSHER_MODULES` as this interpreter finds them, for the audit hook to
    start the flusher without ``site`` (its ``.pth`` files cost several times the interpreter's own start).
    Looked up once per process and interpreter: ``status`` renders every agent's hook to compare it.

    Empty when the agent runs another interpreter than this one (its packages and extension modules may be
    others): the hook then starts the flusher with ``site``, as it does when a listed directory is gone.
    """
    if os.path.realpath(python) != os.path.realpath(sys.executable):
        return ()
    found: list[str] = []
    for name in FLUSHER_MODULES:
        try:
            spec = _find_spec(name)
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


def _find_spec(name: str) -> Any:
    """``importlib.util.find_spec(name)`` for a top-level module name, without importing :mod:`importlib.util`
    (and its abstract base classes) on every ``status``: the loaded module's spec, else the first spec a
    finder of :data:`sys.meta_path` gives (``None``: not found)."""
    module = sys.modules.get(name)
    if module is not None:
        spec = getattr(module, "__spec__", None)
        if spec is None:
            raise ValueError(f"{name}.__spec__ is None")
        return spec
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        spec = find(name, None) if find is not None else None
        if spec is not None:
            return spec
    return None


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
    failure: tuple[int, bytes],
    system: bool,
) -> bytes:
    prefix = catalog.guard_error_prefix() if module == GUARD_MODULE else catalog.audit_error_prefix()
    params = {
        "AGENT_DIR": directory,
        "MODULE": module,
        "POLICY": POLICY_MODULE if system else "",
        "ERROR_PREFIX": prefix,
        "FAILURE_EXIT": failure[0],
        "FAILURE_STDOUT": failure[1],
    }
    return _render("launcher.py", facts, agent_id, python, params)


def _deny(facts: catalog.Provider, status: catalog.BlockStatus) -> tuple[bytes, bytes]:
    return facts.runtime_deny_stdout(status), (facts.guard_stderr(status) + "\n").encode("utf-8")


def _render(template: str, facts: catalog.Provider, agent_id: str, python: str, params: dict[str, Any]) -> bytes:
    texts, names = _parsed(template)
    if len(names) != len(params) or params.keys() != set(names):  # else each name once, and all of them
        _refuse_parameters(template, names, params)
    lines = [f"{name} = {params[name]!r}" for name in names]
    return (_header(facts, agent_id, python) + joined(texts, lines)).encode("utf-8")


def _refuse_parameters(template: str, names: tuple[str, ...], params: dict[str, Any]) -> None:
    """Raise for the first way ``params`` and the template's parameter ``names`` disagree."""
    for name in names:
        if name not in params:
            raise ValueError(f"{template}: unexpected parameter {name}")
    if len(set(names)) != len(names):
        raise ValueError(f"{template}: unexpected parameter {next(n for n in names if names.count(n) > 1)}")
    raise ValueError(f"{template}: parameters not found: {sorted(set(params) - set(names))}")


_PARSED: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}


def _parsed(template: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The template cut at its parameter lines: the texts between them and the parameter names in order,
    read and cut once per process (``status`` renders every agent's runtime to compare it)."""
    known = _PARSED.get(template)
    if known is None:
        inlined: set[str] = set()

        def code_of(module: str) -> str:  # each module once, where it is first imported (its imports first)
            if module in inlined:
                return ""
            inlined.add(module)
            return with_inlined_imports(_inlined(module), code_of)

        known = _PARSED[template] = cut_python(with_inlined_imports(packagedata.read_template(template), code_of))
    return known


def with_inlined_imports(source: str, code_of: Callable[[str], str]) -> str:
    """``source`` with each import of a template module ``# @inline`` (:data:`INLINE_LINE`: on one line, or with
    its names in parentheses on the lines up to the next ``)`` line, as the import sorter writes a long list)
    replaced by ``code_of(<module>)``."""
    texts, modules = cut(source, INLINE_LINE)
    return joined(texts, [code_of(module) for module in modules])


def _inlined(module: str) -> str:
    """The code of the template module ``module``: everything below its ``from __future__`` line (its own
    ``# @inline`` imports are inlined in turn by :func:`_parsed`)."""
    source = packagedata.read_template(f"{module}.py")
    return source[source.index(_FUTURE) + len(_FUTURE) :].strip("\n")


SHEBANG_LIMIT = 127
"""Bytes of a ``#!`` line (newline included) every Linux kernel reads whole (older ones stop at 128)."""


@functools.cache
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
