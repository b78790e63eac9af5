"""The JSON-RPC exchange with ``codex app-server`` over stdio (see :mod:`.codex` for what is asked)."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import selectors
import subprocess
import sys
import threading
import time
from typing import Any

from elydora_config import _platform

from ..plug.agentprobe import ListedHook, ProbeError

MAX_ANSWER_BYTES = 16 << 20


def list_hooks(exe: str, env: dict[str, str], cwd: str, timeout: float) -> list[ListedHook]:
    """Every hook ``codex app-server`` lists for ``cwd``."""
    answer = _exchange(exe, env, cwd, timeout)
    try:
        rows = [hook for entry in answer["data"] for hook in entry["hooks"]]
        return [
            ListedHook(str(h["key"]), str(h["currentHash"]), str(h["trustStatus"]), bool(h["enabled"]))
            for h in rows
        ]
    except (KeyError, TypeError) as exc:
        raise ProbeError(f"Codex answered hooks/list in an unknown shape ({exc!r})") from None


def _exchange(exe: str, env: dict[str, str], cwd: str, timeout: float) -> Any:
    try:
        proc = subprocess.Popen(
            [exe, "app-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=env, cwd=cwd, **_platform.NEW_SESSION,
        )
    except OSError as exc:
        raise ProbeError(f"Codex did not start ({exc.strerror or exc})") from None
    reader = _Lines(proc, time.monotonic() + timeout)
    try:
        reader.send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                     "params": {"clientInfo": {"name": "elydora", "version": "1"}}})
        reader.answer(1)
        reader.send({"jsonrpc": "2.0", "method": "initialized"})
        reader.send({"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [cwd]}})
        answer = reader.answer(2)
    except BaseException:
        reader.close(wait=0)  # a Codex that failed once gets no grace time
        raise
    reader.close(wait=5)
    return answer


class _Lines:
    """Newline-delimited JSON-RPC with one deadline for the whole exchange. Codex's output is waited for with a
    selector; on Windows, whose ``select`` takes sockets only, a thread reads it into a queue."""

    def __init__(self, proc: subprocess.Popen[bytes], deadline: float) -> None:
        self._proc = proc
        self._deadline = deadline
        self._buffer = b""
        self._read = 0
        assert proc.stdout is not None
        self._selector = selectors.DefaultSelector()
        self._chunks: queue.Queue[bytes] = queue.Queue()
        if sys.platform == "win32":
            threading.Thread(target=self._pump, args=(proc.stdout.fileno(),), daemon=True).start()
        else:
            self._selector.register(proc.stdout, selectors.EVENT_READ)

    def _pump(self, fd: int) -> None:
        """Windows: Codex's output into the queue, ``b""`` at its end."""
        chunk = b"-"
        while chunk:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                chunk = b""
            self._chunks.put(chunk)

    def _chunk(self, left: float) -> bytes | None:
        """Codex's next output (``b""``: it closed it), or ``None`` when none came within ``left`` seconds."""
        if sys.platform == "win32":
            try:
                return self._chunks.get(timeout=left)
            except queue.Empty:
                return None
        if not self._selector.select(left):
            return None
        assert self._proc.stdout is not None
        return os.read(self._proc.stdout.fileno(), 65536)

    def send(self, message: dict[str, Any]) -> None:
        assert self._proc.stdin is not None
        try:
            self._proc.stdin.write(json.dumps(message).encode() + b"\n")
            self._proc.stdin.flush()
        except OSError:
            raise ProbeError("Codex did not answer (it closed its input)") from None

    def answer(self, request_id: int) -> Any:
        while True:
            message = self._message()
            if isinstance(message, dict) and message.get("id") == request_id:
                if "error" in message:
                    raise ProbeError(f"Codex refused the request: {message['error']}")
                return message.get("result")

    def _message(self) -> Any:
        while b"\n" not in self._buffer:
            left = self._deadline - time.monotonic()
            chunk = self._chunk(left) if left > 0 else None
            if chunk is None:
                raise ProbeError("Codex did not answer in time")
            self._read += len(chunk)
            if not chunk:
                raise ProbeError(f"Codex did not answer (it exited with {self._proc.wait()})")
            if self._read > MAX_ANSWER_BYTES:
                raise ProbeError("Codex's answer is too large")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        try:
            return json.loads(line) if line.strip() else None
        except ValueError:
            raise ProbeError("Codex answered something that is not JSON-RPC") from None

    def close(self, wait: float) -> None:
        """End the exchange: Codex exits at the end of its input; after ``wait`` seconds it is killed."""
        self._selector.close()
        for stream in (self._proc.stdin, self._proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        try:
            self._proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(OSError):  # its own session: the native binary the launcher started too
                _platform.kill_session(self._proc)
            self._proc.wait()
