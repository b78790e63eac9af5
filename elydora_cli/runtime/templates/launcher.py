"""Launcher of a generated runtime script (``guard.py`` / ``hook.py``).

The implementation lives in a module beside it (``_elydora_guard.py`` / ``_elydora_audit.py``). The launcher
loads it by its path, never through ``sys.path`` (nothing placed in the agent directory can stand in for a
standard-library module, and no ``__pycache__`` is read): from the bytecode ``install`` compiled for this
interpreter (``<module>.<cache tag>.code``, which ``status`` checks against the install manifest), else from
the source. ``PRELOAD`` modules (system scope: ``_elydora_policy``) are loaded the same way first, into
``sys.modules``, where the runtime's import of them finds them. If a module cannot be loaded, the provider's
failure mode applies.
"""

import marshal
import sys

# -- parameters: the generator replaces each marked line with the agent's value ---------------------------
AGENT_DIR = "/nonexistent/.elydora/template"  # @param
MODULE = "_elydora_guard"  # @param
PRELOAD: tuple[str, ...] = ()  # @param
ERROR_PREFIX = "[Elydora guard] "  # @param
FAILURE_EXIT = 0  # @param
FAILURE_STDOUT = b""  # @param
# ---------------------------------------------------------------------------------------------------------
CODE_SUFFIX = ".code"  # copy of elydora_cli.runtime.bytecode.CODE_SUFFIX (tests pin them equal)


def load(name: str) -> object:
    """The module ``name`` of the agent directory, registered in ``sys.modules``."""
    path = f"{AGENT_DIR}/{name}.py"
    try:
        with open(f"{AGENT_DIR}/{name}.{sys.implementation.cache_tag}{CODE_SUFFIX}", "rb") as compiled:
            code = marshal.loads(compiled.read())
    except (OSError, ValueError, EOFError, TypeError):  # none for this interpreter: compile the source
        with open(path, "rb") as source:
            code = compile(source.read(), path, "exec", dont_inherit=True)
    module = type(sys)(name)
    module.__file__ = path
    sys.modules[name] = module
    exec(code, module.__dict__)
    return module


try:
    for preloaded in PRELOAD:
        load(preloaded)
    main = load(MODULE).main  # type: ignore[attr-defined]
except Exception as exc:  # a missing or broken runtime module: the provider's failure mode
    sys.stderr.write(f"{ERROR_PREFIX}cannot load {MODULE}: {type(exc).__name__}\n")
    sys.stdout.buffer.write(FAILURE_STDOUT)
    sys.exit(FAILURE_EXIT)
sys.exit(main())
