"""The in-namespace half of the e2e tests: runs the fake model server and the agents, on loopback only.

The test starts this script as ``unshare -n <python> driver.py`` (a new network namespace whose only
interface is ``lo``) and talks to it over stdin/stdout, one JSON object per line:

* on start it brings ``lo`` up, starts the fake model on 127.0.0.1 (free port) and writes
  ``{"ready": true, "port": P, "interfaces": [...]}``;
* ``{"op": "reset", "tool": T, "command": C, "log": PATH, "arguments"?: {...}, "fill"?: {...}, "answer_delay"?: S}``:
  a fresh fake-model state (one tool call of ``T`` is offered again) logging to PATH; with ``arguments``, the
  call has exactly those (``fill``: ``{"key": K, "size": N}`` sets ``arguments[K]`` to N bytes of text, so a
  large Write is not sent through this pipe); the answers after the tool call come S seconds late (optional,
  default 0);
* ``{"op": "run", "argv": [...], "env": {...}, "cwd": D, "timeout": S, "stdout": F, "stderr": F}``: runs a
  command in the namespace (the agent), kills its process group on time-out, answers
  ``{"rc": N, "timed_out": bool, "seconds": S}``;
* ``{"op": "quit"}``.

The server runs inside the namespace because the namespace's loopback is not the host's: an agent in here
can reach nothing but this server.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import time

from fake_model import FakeModel

SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1


def loopback_up() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        ifreq = struct.pack("16sH14s", b"lo", 0, b"")
        flags = struct.unpack("16sH14s", fcntl.ioctl(sock, SIOCGIFFLAGS, ifreq))[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sH14s", b"lo", flags | IFF_UP, b""))


def run(request: dict) -> dict:
    env = request["env"]
    t0 = time.monotonic()
    with open(request["stdout"], "wb") as out, open(request["stderr"], "wb") as err:
        proc = subprocess.Popen(
            request["argv"], cwd=request["cwd"], env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
            start_new_session=True,
        )
        timed_out = False
        try:
            rc = proc.wait(timeout=request["timeout"])
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(proc.pid, signal.SIGKILL)
            rc = proc.wait()
    seconds = round(time.monotonic() - t0, 2)
    leftovers = reap_namespace()
    return {"rc": rc, "timed_out": timed_out, "seconds": seconds, "killed_leftovers": leftovers}


def namespace_processes() -> dict[int, str]:
    """Every other process in this network namespace (all of them descend from this driver), by command line."""
    own = os.readlink("/proc/self/ns/net")
    found: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            if os.readlink(f"/proc/{entry}/ns/net") != own:
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                found[int(entry)] = fh.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
        except OSError:
            continue
    return found


OURS = ("elydora_cli.runtime.", "/.elydora/", "\\.elydora\\")
"""What the command line of one of our processes names: the flusher's module, or a runtime script (``hook.py``,
``guard.py``) in a state directory (a Windows path under Wine)."""


def reap_namespace(flusher_wait: float = 20.0) -> list[str]:
    """Let our hooks and their detached flusher finish their work, then end whatever the agent left running
    (daemons such as Cline's hub), so that each run starts from nothing and the namespace dies with the driver.

    Our audit hooks too: an agent that starts its post-tool hooks without waiting for them (Kimi Code, the
    plugin modules) may exit while one is still writing its event on a loaded machine; the user's agent would
    leave it running to its end, so the driver does too."""
    deadline = time.monotonic() + flusher_wait
    while time.monotonic() < deadline:
        procs = namespace_processes()
        if not any(mark in cmd for cmd in procs.values() for mark in OURS):
            break
        time.sleep(0.1)
    procs = namespace_processes()
    for pid in procs:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    for pid in procs:  # reap our own children among them
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
    return sorted(cmd[:200] for cmd in procs.values() if cmd)


def bind_managed_layers(binds: list[list[str]]) -> None:
    """In the private mount namespace (``unshare --mount``, propagation private): each source directory over its
    target. A missing target is made in a throw-away overlay of its parent (``/etc``), never on the host."""
    overlaid: set[str] = set()
    for source, target in binds:
        parent = os.path.dirname(target)
        if not os.path.isdir(target) and parent not in overlaid:
            scratch = os.path.join(os.path.dirname(source), ".overlay" + parent.replace("/", "_"))
            upper, work = os.path.join(scratch, "upper"), os.path.join(scratch, "work")
            os.makedirs(upper, exist_ok=True)
            os.makedirs(work, exist_ok=True)
            options = f"lowerdir={parent},upperdir={upper},workdir={work}"
            subprocess.run(["mount", "-t", "overlay", "overlay", "-o", options, parent], check=True)
            overlaid.add(parent)
        os.makedirs(target, exist_ok=True)
        subprocess.run(["mount", "--bind", source, target], check=True)


def overlay_folders(overlays: list[list[str]]) -> None:
    """In the private mount namespace: each folder under a throw-away overlay whose writes land in its scratch
    folder, so what runs in here changes nothing the host sees (e.g. a shared Wine prefix: the copy in here is
    this driver's own, and so is its wineserver, which the driver ends with the rest)."""
    for folder, scratch in overlays:
        upper, work = os.path.join(scratch, "upper"), os.path.join(scratch, "work")
        os.makedirs(upper, exist_ok=True)
        os.makedirs(work, exist_ok=True)
        options = f"lowerdir={folder},upperdir={upper},workdir={work}"
        subprocess.run(["mount", "-t", "overlay", "overlay", "-o", options, folder], check=True)


def main() -> int:
    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # nothing but our protocol lines on the real stdout
    overlay_folders(json.loads(os.environ.get("ELYDORA_E2E_OVERLAYS") or "[]"))
    bind_managed_layers(json.loads(os.environ.get("ELYDORA_E2E_BINDS") or "[]"))
    loopback_up()
    interfaces = sorted(name for _index, name in socket.if_nameindex())
    fake = FakeModel("", "", os.devnull)
    port = fake.start()
    out.write(json.dumps({"ready": True, "port": port, "interfaces": interfaces}) + "\n")
    for line in sys.stdin:
        request = json.loads(line)
        op = request["op"]
        if op == "quit":
            break
        if op == "reset":
            arguments = request.get("arguments")
            fill = request.get("fill")
            if arguments is not None and fill is not None:
                arguments = {**arguments, fill["key"]: ("0123456789abcdef" * (fill["size"] // 16 + 1))[: fill["size"]]}
            with fake.lock:
                fake.shell_tool, fake.command, fake.log_path = request["tool"], request["command"], request["log"]
                fake.arguments = arguments
                fake.tool_call_id = None
                fake.answer_delay = float(request.get("answer_delay", 0.0))
            answer: dict = {"ok": True}
        elif op == "run":
            answer = run(request)
        else:
            answer = {"error": f"unknown op {op!r}"}
        out.write(json.dumps(answer) + "\n")
    reap_namespace(flusher_wait=5.0)
    fake.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
