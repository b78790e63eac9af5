"""The fallback engine: the same edits done through tomlkit, for shapes the span editor leaves alone.

tomlkit keeps most formatting but has known cases where its output re-parses to different data
(tomlkit#556, #588: a table added under a dotted key captures the keys after it), so the caller
always re-parses what this returns and refuses it when the data is not exactly the intended data.
"""

from __future__ import annotations

import re
from typing import Any

import tomlkit
from tomlkit.container import Container
from tomlkit.items import AoT, Array, Table

from elydora_config.toml._values import Path

_LONE_LF = r"(?<!\r)\n"


def tomlkit_edit(
    body: str,
    kind: str,
    path: Path,
    value: Any = None,
    index: int = 0,
    prune: tuple[Path, ...] = (),
    newline: str = "\n",
) -> str:
    """Apply one edit with tomlkit and return the new text (not yet verified).

    ``kind`` is "set", "remove" or "insert"; ``prune`` lists containers (deepest first) to delete
    when the edit leaves them empty; ``newline`` is the document's line ending.
    """
    doc = tomlkit.parse(body)
    if kind == "set":
        parent: Any = doc
        for key in path[:-1]:
            if isinstance(key, str) and key not in parent:
                parent[key] = tomlkit.table()
            parent = parent[key]
        parent[path[-1]] = value
    elif kind == "remove":
        parent = _walk(doc, path[:-1])
        del parent[path[-1]]
    elif kind == "insert":
        target = _walk(doc, path)
        if not isinstance(target, AoT | Array):
            raise TypeError("not an array")
        target.insert(index, value)
    else:  # pragma: no cover - internal misuse
        raise ValueError(kind)
    for container_path in prune:
        holder = _walk(doc, container_path[:-1])
        if container_path[-1] in holder and not len(holder[container_path[-1]]):
            del holder[container_path[-1]]
    text = tomlkit.dumps(doc)
    if newline == "\r\n" and not re.compile(_LONE_LF).search(body):
        text = re.compile(_LONE_LF).sub("\r\n", text)
    return text


def _walk(doc: Container, path: Path) -> Any:
    node: Any = doc
    for key in path:
        node = node[key]
    return node


def is_implicit(body: str, path: Path) -> bool:
    """tomlkit's view of whether the container at ``path`` has no text of its own."""
    node = _walk(tomlkit.parse(body), path)
    if isinstance(node, AoT):
        return True
    return isinstance(node, Table) and bool(node.is_super_table())
