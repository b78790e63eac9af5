"""Launcher of a generated runtime script (``guard.py`` / ``hook.py``).

The implementation lives in a module beside it (``_elydora_guard.py`` / ``_elydora_audit.py``) so that the
interpreter caches its bytecode in ``__pycache__`` instead of compiling it on every tool call; the
launcher itself is a few lines. If the module cannot be loaded, the provider's failure mode applies.
"""

import sys

# -- parameters: the generator replaces each marked line with the agent's value ---------------------------
AGENT_DIR = "/nonexistent/.elydora/template"  # @param
MODULE = "_elydora_guard"  # @param
ERROR_PREFIX = "[Elydora guard] "  # @param
FAILURE_EXIT = 0  # @param
FAILURE_STDOUT = b""  # @param
# ---------------------------------------------------------------------------------------------------------

sys.path.insert(0, AGENT_DIR)
try:
    main = __import__(MODULE).main
except Exception as exc:  # a missing or broken runtime module: the provider's failure mode
    sys.stderr.write(f"{ERROR_PREFIX}cannot load {MODULE}: {type(exc).__name__}\n")
    sys.stdout.buffer.write(FAILURE_STDOUT)
    sys.exit(FAILURE_EXIT)
del sys.path[0]
sys.exit(main())
