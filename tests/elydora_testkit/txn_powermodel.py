"""The power-loss model used by ``test_txn_powerloss.py`` (its docstring states the assumptions).

:class:`Recorder` runs as an :func:`txn_harness.intercept` hook during a real commit and turns every
``_sysio`` call into an :class:`Op` on a path or on a model inode (directory descriptors are mapped to paths
through ``/proc/self/fd``). :class:`ModelFS` replays a chosen subset of those ops onto the initial tree and
materialises the result as a real directory tree (hard links included) at the very same place, so the
absolute paths inside the journal stay valid.
"""

from __future__ import annotations

import os
import random
import shutil
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

DATA_OPS = ("write", "chmod")
ENTRY_OPS = ("create", "mkdir", "rename", "rename_noreplace", "exchange", "link", "unlink", "rmdir")
RENAMES = ("rename", "rename_noreplace", "exchange")
BARRIERS = ("fsync", "fsync_dir")


@dataclass(frozen=True)
class Op:
    kind: str
    path: str = ""  # create/mkdir/unlink/rmdir: the entry; rename/link: the source; fsync_dir: the directory
    dst: str = ""  # rename/link destination
    inode: int = -1  # create/write/chmod/fsync
    offset: int = 0
    data: bytes = b""
    mode: int = 0

    def sync_keys(self) -> set[tuple[str, Any]]:
        """What a barrier must cover before this op is durable."""
        if self.kind in DATA_OPS:
            return {("inode", self.inode)}
        if self.kind in (*RENAMES, "link"):
            keys = {("dir", os.path.dirname(self.dst))}
            if self.kind in RENAMES:
                keys.add(("dir", os.path.dirname(self.path)))
            return keys
        return {("dir", os.path.dirname(self.path))}

    def barrier_key(self) -> tuple[str, Any]:
        return ("inode", self.inode) if self.kind == "fsync" else ("dir", self.path)


@dataclass
class Inode:
    data: bytearray
    mode: int


@dataclass
class ModelFS:
    """A directory tree: entries map absolute paths to ``("d", mode)`` or ``("f", inode id)``."""

    root: str
    entries: dict[str, tuple[str, int]] = field(default_factory=dict)
    inodes: dict[int, Inode] = field(default_factory=dict)

    def copy(self) -> ModelFS:
        inodes = {k: Inode(bytearray(v.data), v.mode) for k, v in self.inodes.items()}
        return ModelFS(self.root, dict(self.entries), inodes)

    def _is_dir(self, path: str) -> bool:
        return path == self.root or self.entries.get(path, ("", 0))[0] == "d"

    def apply(self, op: Op, keep: int | None = None, zero_fill: bool = False) -> None:
        """Apply ``op`` (a write only up to ``keep`` bytes when torn); skip it when its preconditions fail."""
        kind, path = op.kind, op.path
        if kind in ("create", "mkdir"):
            if self._is_dir(os.path.dirname(path)) and path not in self.entries:
                self.entries[path] = ("d", op.mode) if kind == "mkdir" else ("f", op.inode)
        elif kind == "write":
            node = self.inodes[op.inode]
            data = op.data if keep is None else op.data[:keep]
            if zero_fill:
                data += bytes(len(op.data) - len(data))
            end = op.offset + len(data)
            if len(node.data) < op.offset:
                node.data.extend(bytes(op.offset - len(node.data)))
            node.data[op.offset : end] = data
        elif kind == "chmod":
            self.inodes[op.inode].mode = op.mode
        elif kind in (*RENAMES, "link"):
            src = self.entries.get(path)
            dst = self.entries.get(op.dst)
            if src is None or src[0] != "f" or not self._is_dir(os.path.dirname(op.dst)):
                return
            if kind == "exchange":
                if dst is not None and dst[0] == "f":
                    self.entries[path], self.entries[op.dst] = dst, src
                return
            if dst is not None and (kind in ("link", "rename_noreplace") or dst[0] == "d"):
                return
            self.entries[op.dst] = src
            if kind != "link" and path != op.dst:
                del self.entries[path]
        elif kind == "unlink":
            if self.entries.get(path, ("", 0))[0] == "f":
                del self.entries[path]
        elif kind == "rmdir" and self._is_dir(path) and not any(p.startswith(path + os.sep) for p in self.entries):
            self.entries.pop(path, None)

    def materialise(self) -> None:
        """Replace the real tree at ``root`` with this model (inode sharing becomes hard links)."""
        shutil.rmtree(self.root, ignore_errors=True)
        os.mkdir(self.root)
        first: dict[int, str] = {}
        for path in sorted(self.entries, key=lambda p: p.count(os.sep)):
            kind, value = self.entries[path]
            if kind == "d":
                os.mkdir(path)
                os.chmod(path, value)
            elif value in first:
                os.link(first[value], path)
            else:
                node = self.inodes[value]
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                try:
                    os.write(fd, bytes(node.data))
                    os.fchmod(fd, node.mode)
                finally:
                    os.close(fd)
                first[value] = path


def capture(root: str) -> tuple[ModelFS, dict[tuple[int, int], int]]:
    """The model of the real tree at ``root`` and the map from (device, inode) to model inode ids."""
    model = ModelFS(root)
    ids: dict[tuple[int, int], int] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames:
            full = os.path.join(dirpath, name)
            model.entries[full] = ("d", stat.S_IMODE(os.lstat(full).st_mode))
        for name in filenames:
            full = os.path.join(dirpath, name)
            info = os.lstat(full)
            key = (info.st_dev, info.st_ino)
            if key not in ids:
                ids[key] = len(ids)
                with open(full, "rb") as fh:
                    model.inodes[ids[key]] = Inode(bytearray(fh.read()), stat.S_IMODE(info.st_mode))
            model.entries[full] = ("f", ids[key])
    return model, ids


class Recorder:
    """An ``intercept`` hook that records the ops of a real run (and performs them)."""

    def __init__(self, root: str) -> None:
        self.initial, self._ids = capture(root)
        self.created: dict[int, Inode] = {}
        self.ops: list[Op] = []
        self._fds: dict[int, tuple[str, Any]] = {}

    def __call__(self, name: str, real: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        handler: Callable[..., Any] = getattr(self, "_" + name)
        return handler(real, *args, **kwargs)

    def _path(self, name: str, dir_fd: int | None) -> str:
        base = os.getcwd() if dir_fd is None else os.readlink(f"/proc/self/fd/{dir_fd}")
        return os.path.normpath(os.path.join(base, name))

    def _inode(self, fd: int) -> int:
        kind, value = self._fds[fd]
        assert kind == "file", "a data op on a directory descriptor"
        return int(value)

    def _open_file(
        self,
        real: Callable[..., int],
        name: str,
        flags: int,
        mode: int = 0o600,
        *,
        dir_fd: int | None = None,
        no_links: bool = False,
    ) -> int:
        path = self._path(name, dir_fd)
        existed = os.path.lexists(path)
        fd = real(name, flags, mode, dir_fd=dir_fd, no_links=no_links)
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            self._fds[fd] = ("dir", path)
            return fd
        key = (info.st_dev, info.st_ino)
        if not existed:
            self._ids[key] = len(self._ids) + len(self.created) + 1000
            self.created[self._ids[key]] = Inode(bytearray(), stat.S_IMODE(info.st_mode))
            self.ops.append(Op("create", path, inode=self._ids[key]))
        assert key in self._ids, f"{path} was opened but is not part of the model"
        self._fds[fd] = ("file", self._ids[key])
        return fd

    def _close(self, real: Callable[..., None], fd: int) -> None:
        self._fds.pop(fd, None)
        real(fd)

    def _write_all(self, real: Callable[..., None], fd: int, data: bytes) -> None:
        offset = os.lseek(fd, 0, os.SEEK_CUR)
        real(fd, data)
        self.ops.append(Op("write", inode=self._inode(fd), offset=offset, data=bytes(data)))

    def _fchmod(self, real: Callable[..., None], fd: int, mode: int) -> None:
        real(fd, mode)
        self.ops.append(Op("chmod", inode=self._inode(fd), mode=mode))

    def _fsync(self, real: Callable[..., None], fd: int) -> None:
        real(fd)
        self.ops.append(Op("fsync", inode=self._inode(fd)))

    def _fsync_dir(self, real: Callable[..., None], dir_fd: int) -> None:
        real(dir_fd)
        self.ops.append(Op("fsync_dir", self._fds[dir_fd][1]))

    def _two_names(self, kind: str, real: Callable[..., None], src: str, dst: str, **fds: int | None) -> None:
        op = Op(kind, self._path(src, fds.get("src_dir_fd")), self._path(dst, fds.get("dst_dir_fd")))
        real(src, dst, **fds)
        self.ops.append(op)

    def _rename(self, real: Callable[..., None], src: str, dst: str, **fds: int | None) -> None:
        self._two_names("rename", real, src, dst, **fds)

    def _rename_noreplace(self, real: Callable[..., None], src: str, dst: str, **fds: int | None) -> None:
        self._two_names("rename_noreplace", real, src, dst, **fds)

    def _exchange(self, real: Callable[..., None], src: str, dst: str, **fds: int | None) -> None:
        self._two_names("exchange", real, src, dst, **fds)

    def _link(self, real: Callable[..., None], src: str, dst: str, **fds: int | None) -> None:
        self._two_names("link", real, src, dst, **fds)

    def _unlink(self, real: Callable[..., None], name: str, *, dir_fd: int | None = None) -> None:
        path = self._path(name, dir_fd)
        real(name, dir_fd=dir_fd)
        self.ops.append(Op("unlink", path))

    def _mkdir(self, real: Callable[..., None], name: str, mode: int, *, dir_fd: int | None = None) -> None:
        path = self._path(name, dir_fd)
        real(name, mode, dir_fd=dir_fd)
        self.ops.append(Op("mkdir", path, mode=stat.S_IMODE(os.lstat(path).st_mode)))

    def _rmdir(self, real: Callable[..., None], path: str) -> None:
        real(path)
        self.ops.append(Op("rmdir", os.path.normpath(path)))

    def start_model(self) -> ModelFS:
        """The initial tree plus every inode the run created (unreachable until a create op names it)."""
        model = self.initial.copy()
        model.inodes.update({k: Inode(bytearray(v.data), v.mode) for k, v in self.created.items()})
        return model


def durable_before(ops: list[Op]) -> list[int]:
    """For each op, the smallest crash point (number of ops issued) from which it is certainly durable."""
    result = []
    for index, op in enumerate(ops):
        if op.kind in BARRIERS:
            result.append(index + 1)
            continue
        needed = 0
        for key in op.sync_keys():
            later = [j for j in range(index + 1, len(ops)) if ops[j].kind in BARRIERS and ops[j].barrier_key() == key]
            needed = max(needed, later[0] + 1 if later else len(ops) + 1)
        result.append(needed)
    return result


def crash_state(
    start: ModelFS, ops: list[Op], durable: list[int], point: int, rng: random.Random
) -> tuple[ModelFS, list[str]]:
    """The tree after power is lost once ``point`` ops were issued; unsynced ops applied, dropped or torn."""
    model = start.copy()
    choices: list[str] = []
    for index in range(point):
        op = ops[index]
        if op.kind in BARRIERS:
            continue
        if durable[index] <= point:
            model.apply(op)
            continue
        roll = rng.random()
        if op.kind == "write" and roll < 0.3:
            keep = rng.randrange(len(op.data)) if op.data else 0
            zero = rng.random() < 0.5
            model.apply(op, keep, zero)
            choices.append(f"{index}:tear{keep}{'+zeros' if zero else ''}")
        elif roll < 0.65:
            model.apply(op)
            choices.append(f"{index}:apply")
        else:
            choices.append(f"{index}:drop")
    return model, choices
