"""The install manifest: what an install inserted, where, what it created and what it replaced.

Stored as ``install-manifest.json`` in the agent's state directory, written in the same transaction as the
config edits. Together with an exact-shape match it decides which entries are ours.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from elydora_config.errors import MalformedConfigError
from elydora_config.records import field, record

from ..plug.hookmap import EditLog
from ..readpass import DIRECT, Reads

if TYPE_CHECKING:
    from typing import Any

MANIFEST_NAME = "install-manifest.json"
FORMAT = 1


@record
class FileRecord:
    created_file: bool = False
    created: list[list[str | int]] = field(default_factory=list)
    inserted: list[dict[str, Any]] = field(default_factory=list)
    replaced: list[dict[str, Any]] = field(default_factory=list)
    blank: str | None = None
    """The whitespace the first install found as the file's whole content, where the agent reads a blank file
    as empty settings (``Sources.blank_is_empty``); uninstall writes it back when nothing else is left."""

    def to_json(self) -> dict[str, Any]:
        return {
            "created_file": self.created_file,
            "created": self.created,
            "inserted": self.inserted,
            "replaced": self.replaced,
            **({"blank": self.blank} if self.blank is not None else {}),
        }


@record
class Manifest:
    provider: str
    agent_id: str
    python: str
    timeout_seconds: int
    files: dict[str, FileRecord] = field(default_factory=dict)
    runtime: list[str] = field(default_factory=list)
    hook_command: str | None = None
    trusted: bool = False
    """The agent's trust of our entries was recorded by us (``install --trust``): a reinstall trusts again."""
    interpreter: dict[str, Any] | None = None
    """What the hook interpreter was at install (:func:`~.runtimecheck.fingerprint`): ``status`` runs it again
    only when it changed."""
    bytecode: dict[str, str] = field(default_factory=dict)
    """``{file name: digest}`` of the runtime bytecode the install compiled (:mod:`..runtime.bytecode`)."""
    follow_symlinks: bool = False
    """The install was given ``--follow-symlinks``: later commands follow links for this agent too."""
    created_dirs: list[str] = field(default_factory=list)
    """The folders outside the state root the installs created (:mod:`.folders`); uninstall removes the empty ones."""

    def encode(self) -> bytes:
        data = {
            "format": FORMAT,
            "provider": self.provider,
            "agent_id": self.agent_id,
            "python": self.python,
            "timeout_seconds": self.timeout_seconds,
            "hook_command": self.hook_command,
            **({"trusted": True} if self.trusted else {}),
            **({"interpreter": self.interpreter} if self.interpreter else {}),
            **({"bytecode": self.bytecode} if self.bytecode else {}),
            **({"follow_symlinks": True} if self.follow_symlinks else {}),
            **({"created_dirs": sorted(self.created_dirs)} if self.created_dirs else {}),
            "runtime": self.runtime,
            "files": {path: rec.to_json() for path, rec in sorted(self.files.items())},
        }
        return (json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")

    @classmethod
    def decode(cls, data: bytes, path: Path) -> Manifest:
        try:
            raw = json.loads(data)
            if raw.get("format") != FORMAT:
                raise ValueError(f"unsupported manifest format {raw.get('format')!r}")
            files = {
                p: FileRecord(r["created_file"], r["created"], r["inserted"], r["replaced"], _blank(r.get("blank")))
                for p, r in raw["files"].items()
            }
            return cls(
                raw["provider"],
                raw["agent_id"],
                raw["python"],
                int(raw["timeout_seconds"]),
                files,
                list(raw["runtime"]),
                raw.get("hook_command"),
                raw.get("trusted") is True,
                _optional_map(raw.get("interpreter")),
                {str(k): str(v) for k, v in (_optional_map(raw.get("bytecode")) or {}).items()},
                raw.get("follow_symlinks") is True,
                [str(d) for d in raw.get("created_dirs", [])],
            )
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
            raise MalformedConfigError(path, f"install manifest is unreadable: {exc}") from None

    def recorded_values(self) -> list[Any]:
        values: list[Any] = []
        for rec in self.files.values():
            for item in rec.inserted:
                value = item.get("value")
                values.append(value)
                if isinstance(value, dict) and isinstance(value.get("hooks"), list):
                    values.extend(value["hooks"])
        return values

    def record(
        self, path: Path, log: EditLog, *, created_file: bool, previous: FileRecord | None, blank: str | None = None
    ) -> None:
        """Merge one file's edit log (containers created earlier and still ours stay recorded; ``blank``: the
        file was blank when read, see :attr:`FileRecord.blank`)."""
        created = list(previous.created) if previous else []
        created += [c for c in log.created if c not in created]
        ours_before = [item.get("value") for item in previous.inserted] if previous else []
        ours_before += [h for v in ours_before if isinstance(v, dict) for h in v.get("hooks", []) or []]
        replaced = list(previous.replaced) if previous else []
        replaced += [r for r in log.removed if r["value"] not in ours_before and r not in replaced]
        was_created = created_file or bool(previous and previous.created_file)
        was_blank = previous.blank if previous and previous.blank is not None else blank
        self.files[str(path)] = FileRecord(was_created, created, log.inserted, replaced, was_blank)


def _blank(value: object) -> str | None:
    if value is not None and (not isinstance(value, str) or value.strip(" \t\r\n")):
        raise TypeError("blank must be a text of whitespace")
    return value


def _optional_map(value: object) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise TypeError("interpreter and bytecode must be objects")
    return value


def read_manifest(path: str, *, reads: Reads = DIRECT, allow_links: bool = False) -> Manifest | None:
    """The manifest at ``path`` read physically (bounded, never blocking on a FIFO); ``None`` when absent. In a
    read-only pass it is read and decoded once (status reads every agent's manifest for each provider).
    ``allow_links``: links in the path are followed (a state root under a symlinked home)."""
    return reads.kept(("manifest", path, allow_links), lambda: _decoded(path, reads, allow_links))


def _decoded(path: str, reads: Reads, allow_links: bool) -> Manifest | None:
    data = reads.read_physical(Path(path), max_bytes=4 << 20, allow_links=allow_links)
    return None if data is None else Manifest.decode(data, Path(path))
