"""Benchmarks of the JSON/JSONC editor (``python -m benchmarks.editors`` from the project root).

An *edit* is: decode the bytes, parse and validate the whole text, locate the path, splice the new value
in and validate the result (the edited container is re-walked; the new value is re-scanned).  Every
ratio compares with ``json.loads`` of the same bytes measured in the same run, interleaved with the edit
so that machine noise hits both alike.  For a JSONC file the baseline is ``json.loads`` of the same
document written without its comments (``json.loads`` cannot read comments).

The documents are generated: a ``.claude.json``-like shape (a few top-level settings and a big
``projects`` map whose entries hold prompt histories), pretty-printed with two spaces, non-ASCII text
included.  The JSONC variant adds line comments, block comments (with quotes and slashes inside) and
trailing commas at every depth.  The edit sets one value inside a project in the middle of the map.
"""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
from typing import Any

from benchmarks import harness
from elydora_config.jsonc import JSONC, STRICT_JSON, Dialect, JsoncDocument

MB = 1 << 20
WORDS = ["fix", "the", "bug", "in", "parser", "please", "add", "tests", "refactor", "config"]
WORDS += ["caf\u00e9", "\u65e5\u672c"]  # non-ASCII text, as in real prompt histories


def claude_like(target_bytes: int, seed: int = 1) -> dict[str, Any]:
    """A value shaped like a long-used ``~/.claude.json``, about ``target_bytes`` when pretty-printed."""
    rnd = random.Random(seed)
    doc: dict[str, Any] = {
        "numStartups": 412,
        "installMethod": "native",
        "autoUpdates": True,
        "tipsHistory": {f"tip-{i}": rnd.randint(1, 400) for i in range(40)},
        "userID": "a" * 64,
        "projects": {},
        "cachedChangelog": "# Changelog\n" + "- item\n" * 200,
        "oauthAccount": {"accountUuid": "x", "emailAddress": "u@example.test"},
    }
    size = len(json.dumps(doc, indent=2))
    index = 0
    while size < target_bytes:
        history = [
            {"display": " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(3, 60))), "pastedContents": {}}
            for _ in range(rnd.randint(1, 30))
        ]
        project = {
            "allowedTools": [],
            "history": history,
            "mcpServers": {},
            "hasTrustDialogAccepted": rnd.random() < 0.5,
            "projectOnboardingSeenCount": rnd.randint(0, 9),
            "lastCost": rnd.random() * 3,
            "lastDuration": rnd.randint(1, 999999),
            "exampleFiles": ["a.py", "b.py"],
            "lastSessionId": f"{rnd.getrandbits(128):032x}",
        }
        key = f"/home/user/src/project-{index}"
        doc["projects"][key] = project
        size += len(json.dumps({key: project}, indent=2)) + 2
        index += 1
    return doc


def with_comments(plain: str, seed: int = 2) -> str:
    """Add comments and trailing commas to pretty-printed JSON at every depth (one change per ~25 lines)."""
    rnd = random.Random(seed)
    lines = plain.split("\n")
    out: list[str] = []
    for i, line in enumerate(lines):
        roll = rnd.random()
        stripped = line.lstrip()
        indent = line[: len(line) - len(stripped)]
        if roll < 0.015 and stripped.startswith('"'):
            out.append(f'{indent}/* a "block" comment // with slashes */')
        if roll > 0.985 and line.endswith(",") and not stripped.startswith("}"):
            line += f"  // note {i}"
        elif roll > 0.98 and i + 1 < len(lines) and lines[i + 1].lstrip()[:1] in ("]", "}") and line[-1:] not in "[{,":
            line += ","  # a trailing comma before the closing bracket
        out.append(line)
    return "\n".join(out)


def middle_path(value: dict[str, Any]) -> tuple[str, ...]:
    keys = list(value["projects"])
    return ("projects", keys[len(keys) // 2], "hasTrustDialogAccepted")


def edit_once(data: bytes, dialect: Dialect, path: tuple[str, ...]) -> JsoncDocument:
    doc = JsoncDocument.parse_bytes(data, dialect)
    doc.set(path, "edited")
    return doc


def durable_write(path: str, data: bytes) -> None:
    try:
        from elydora_config.files import write_atomic
    except ImportError:  # pragma: no cover - the files module ships with the library
        tmp = path + ".tmp"
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        return
    write_atomic(path, data)


def bench_edit(name: str, data: bytes, baseline: bytes, dialect: Dialect, goal: float, repeat: int) -> None:
    path = middle_path(json.loads(baseline))
    result = edit_once(data, dialect, path)
    assert result.get(path) == "edited" and result.to_bytes() != data
    times = harness.interleaved_times(
        {"edit": lambda: edit_once(data, dialect, path), "loads": lambda: json.loads(baseline)}, repeat=repeat
    )
    harness.report(
        harness.Figure(
            name, times["edit"], "s", "json.loads", times["loads"], goal=goal, extra={"MB": f"{len(data) / MB:.2f}"}
        )
    )


def bench_small(data: bytes, repeat: int) -> None:
    path = middle_path(_plain(data))
    seconds = harness.median_time(lambda: edit_once(data, JSONC, path), repeat=repeat)
    harness.report(
        harness.Figure(
            "20 KB JSONC edit", seconds, "s", goal=0.002, goal_kind="absolute", extra={"KB": f"{len(data) / 1024:.1f}"}
        )
    )


def _plain(data: bytes) -> dict[str, Any]:
    value = JsoncDocument.parse_bytes(data, JSONC).value
    assert isinstance(value, dict)
    return value


def bench_huge(megabytes: int, repeat: int) -> None:
    value = claude_like(megabytes * MB, seed=7)
    data = json.dumps(value, indent=2, ensure_ascii=False).encode("utf-8")
    path = middle_path(value)
    del value
    with tempfile.TemporaryDirectory(prefix="elydora-bench-") as tmp:
        target = os.path.join(tmp, ".claude.json")
        with open(target, "wb") as fh:
            fh.write(data)

        def edit_and_write() -> None:
            doc = edit_once(data, STRICT_JSON, path)
            durable_write(target, doc.to_bytes())

        times = harness.interleaved_times(
            {"edit": edit_and_write, "loads": lambda: json.loads(data)}, repeat=repeat, warmup=1
        )
        with open(target, "rb") as fh:
            assert JsoncDocument.parse_bytes(fh.read(), STRICT_JSON).get(path) == "edited"
    harness.report(
        harness.Figure(
            f"{megabytes} MB .claude.json-like JSON edit + durable write",
            times["edit"],
            "s",
            "json.loads",
            times["loads"],
            goal=1.0,
            extra={"MB": f"{len(data) / MB:.1f}"},
        )
    )
    memory(f"{megabytes} MB JSON edit", data, STRICT_JSON, path)


def memory(name: str, data: bytes, dialect: Dialect, path: tuple[str, ...], baseline: bytes | None = None) -> None:
    """Peak Python allocation of one edit (and of ``json.loads``) per MB of input."""
    mb = len(data) / MB
    peak = harness.peak_memory(lambda: edit_once(data, dialect, path).to_bytes())
    loads_peak = harness.peak_memory(lambda: json.loads(baseline if baseline is not None else data))
    harness.report(
        harness.Figure(
            f"{name}: peak memory per MB of input",
            peak / MB / mb,
            "MB/MB",
            "json.loads",
            loads_peak / MB / mb,
        )
    )


def main() -> None:
    quick = "--quick" in sys.argv
    print(f"python {sys.version.split()[0]}, {'quick' if quick else 'full'} run", flush=True)
    value = claude_like(2 * MB)
    plain = json.dumps(value, indent=2, ensure_ascii=False)
    jsonc = with_comments(plain)
    plain_bytes, jsonc_bytes = plain.encode("utf-8"), jsonc.encode("utf-8")
    assert JsoncDocument.parse(jsonc, JSONC).value == value
    repeat = 7 if quick else 21
    bench_edit("2 MB JSONC edit", jsonc_bytes, plain_bytes, JSONC, 3.0, repeat)
    bench_edit("2 MB plain JSON edit", plain_bytes, plain_bytes, STRICT_JSON, 1.0, repeat)

    small_value = claude_like(20 * 1024, seed=3)
    small = with_comments(json.dumps(small_value, indent=2, ensure_ascii=False), seed=4).encode("utf-8")
    bench_small(small, 51 if quick else 201)

    memory("2 MB JSONC edit", jsonc_bytes, JSONC, middle_path(value), plain_bytes)
    memory("2 MB plain JSON edit", plain_bytes, STRICT_JSON, middle_path(value))
    bench_huge(8 if quick else 64, 3 if quick else 5)

    try:
        from benchmarks import editors_toml
    except ImportError:
        print("benchmarks.editors_toml not available: TOML figures skipped", flush=True)
    else:
        editors_toml.run()
    harness.dump_json()


if __name__ == "__main__":
    main()
