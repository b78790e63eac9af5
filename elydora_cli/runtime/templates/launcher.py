"""Launcher of a generated runtime script (``guard.py`` / ``hook.py``).

The implementation lives in a module beside it (``_elydora_guard.py`` / ``_elydora_audit.py``). The launcher
loads it by its path, never through ``sys.path`` (nothing placed in the agent directory can stand in for a
standard-library module, and no ``__pycache__`` is read): from the bytecode ``install`` compiled for this
interpreter (``<module>.<cache tag>.code``, which ``status`` checks against the install manifest), else from
the source. ``PRELOAD`` modules (system scope: ``_elydora_policy``) are loaded the same way first, into
``sys.modules``, where the runtime's import of them finds them. If a module cannot be loaded, the provider's
failure mode applies.
"""

from __future__ import annotations

import marshal
import sys

TYPE_CHECKING = False  # what typing.TYPE_CHECKING is, without importing typing on every tool call
if TYPE_CHECKING:
    from types import ModuleType

# -- parameters: the generator replaces each marked line with the agent's value ---------------------------
AGENT_DIR = "/nonexistent/.elydora/template"  # @param
MODULE = "_elydora_guard"  # @param
POLICY = ""  # @param
ERROR_PREFIX = "[Elydora guard] "  # @param
FAILURE_EXIT = 0  # @param
FAILURE_STDOUT = b""  # @param
# ---------------------------------------------------------------------------------------------------------
CODE_SUFFIX = ".code"  # copy of elydora_cli.runtime.bytecode.CODE_SUFFIX (tests pin them equal)


def module(name: str) -> ModuleType:
    """A new, empty module for ``name`` of the agent directory."""
    new = type(sys)(name)
    new.__file__ = f"{AGENT_DIR}/{name}.py"
    return new


def run(loaded: ModuleType) -> None:
    """Run the code of ``loaded`` in it."""
    path = f"{AGENT_DIR}/{loaded.__name__}.py"
    try:
        with open(f"{AGENT_DIR}/{loaded.__name__}.{sys.implementation.cache_tag}{CODE_SUFFIX}", "rb") as compiled:
            code = marshal.loads(compiled.read())
    except (OSError, ValueError, EOFError, TypeError):  # none for this interpreter: compile the source
        with open(path, "rb") as source:
            code = compile(source.read(), path, "exec", dont_inherit=True)
    exec(code, loaded.__dict__)


try:
    runtime = module(MODULE)
    if POLICY:
        policy = module(POLICY)
        policy.__dict__["RUNTIME"] = runtime
        run(policy)
        runtime.__dict__["POLICY"] = policy
    run(runtime)
    main = runtime.main
except Exception as exc:  # a missing or broken runtime module: the provider's failure mode
    sys.stderr.write(f"{ERROR_PREFIX}cannot load {MODULE}: {type(exc).__name__}\n")
    sys.stdout.buffer.write(FAILURE_STDOUT)
    sys.exit(FAILURE_EXIT)
sys.exit(main())
