#!/usr/bin/env bash
# Runs the Windows CPython that setup.sh prepared, under Wine, on this checkout: `tests/windows/run.sh ARGS...`
# is `python.exe ARGS...` with the repository (and tests/, for elydora_testkit) importable. Its standard
# streams are pipes (stderr merged into stdout): under Wine, a file or /dev/null handed over as a standard
# stream fails at start-up ("init_sys_streams: ... Invalid handle").
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
cache="${ELYDORA_WINDOWS_CACHE:-$HOME/.cache/elydora-windows}"
export WINEPREFIX="$cache/prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
# The embeddable Python ignores PYTHONPATH (its ._pth file fixes sys.path). One .pth file in its site-packages,
# the same for every checkout, puts the folders named in ELYDORA_CHECKOUT first on sys.path: the cache is shared,
# so two checkouts (a CI clone, a work tree) running at once each import their own code. Wine hands the variable
# to the Windows process.
printf 'import os, sys; sys.path[:0] = [p for p in os.environ.get("ELYDORA_CHECKOUT", "").split(";") if p]\r\n' \
    >"$cache/python/Lib/site-packages/elydora-checkout.pth"
export ELYDORA_CHECKOUT="Z:${repo//\//\\};Z:${repo//\//\\}\\tests"
# The node.exe setup.sh fetched, for the tests that run the hooks as a Node-based agent does (a Windows path).
node_exe="$(ls "$cache"/node-*/node.exe 2>/dev/null | tail -n 1)"
if [ -n "$node_exe" ]; then
    export ELYDORA_TEST_NODE="Z:${node_exe//\//\\}"
    # ... and on the Windows PATH (Wine appends WINEPATH to it), as an installed Node is: the agents whose hooks
    # are Node programs (Cline's hook files, the OpenCode, Kilo and Pi modules) run them with it in the demo.
    node_dir="$(dirname "$node_exe")"
    export WINEPATH="Z:${node_dir//\//\\}"
fi
# From the checkout, or from the folder ELYDORA_WINDOWS_CWD names (a project folder, as a user runs `elydora`).
cd "${ELYDORA_WINDOWS_CWD:-$repo}"
: | /usr/lib/wine/wine64 "$cache/python/python.exe" "$@" 2>&1 | cat
