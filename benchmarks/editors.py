"""Benchmarks of the JSON/JSONC editor (``python -m benchmarks.editors`` from the project root).

An *edit* is one ``set``, bytes in and bytes out: decode the UTF-8 bytes, parse and validate the whole text,
locate the path, splice the new value in, validate the result and encode it (``to_bytes``).  The same edit is
also made from ``str`` (``JsoncDocument.parse(text)``, the documented entry point, to ``.text``).  Each shape
is measured three ways, all in the same run:

* against ``json.loads`` of the same document without its comments (the *comment-free twin*; for plain
  JSON the same bytes), interleaved round by round so that machine noise hits both alike (goal <= 3x; for
  the dense-comment shape <= 4x), from bytes and from ``str`` alike;
* against VS Code's ``jsonc-parser`` doing the same edit under node (``modify`` + ``applyEdits``, bytes in
  and out, see ``benchmarks/node/``), when ``node`` and ``npm`` exist (goal: faster, <= 1x).  The package
  is installed from the lock file into a cache directory outside the repository
  (``$ELYDORA_BENCH_CACHE``, default ``~/.cache/elydora-benchmarks``);
* the peak Python allocation of one edit against the size of the input (goal <= 4x; ``json.loads``'s own
  peak rides along).

The documents are generated: a ``.claude.json``-like shape (a few top-level settings and a big ``projects``
map whose entries hold prompt histories), pretty-printed with two spaces, non-ASCII text included.  The
sparse JSONC variant adds line comments, block comments (with quotes and slashes inside) and trailing
commas at every depth, one change per ~25 lines; the dense one puts two comments on every line.  The edit
sets one value inside a project in the middle of the map.  The process exits 1 when a figure misses its goal.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from benchmarks import harness
from elydora_config.jsonc import JSONC, STRICT_JSON, Dialect, JsoncDocument

MB = 1 << 20
WORDS = ["fix", "the", "bug", "in", "parser", "please", "add", "tests", "refactor", "config"]
WORDS += ["caf\u00e9", "\u65e5\u672c"]  # non-ASCII text, as in real prompt histories
SPEED_GOAL = 3.0  # edit / json.loads of the comment-free twin
DENSE_GOAL = 4.0  # the same, for two comments on every line (a shape no agent writes)
NODE_GOAL = 1.0  # edit / jsonc-parser
MEMORY_GOAL = 4.0  # peak allocation of an edit / input bytes
NODE_DIR = Path(__file__).resolve().parent / "node"
ROUNDS = 3  # rounds per shape (each one interleaved call by call)
WARMUP_SECONDS = 0.3  # of each side before the rounds (see NodeEditor)


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


def with_dense_comments(plain: str) -> str:
    """Two comments on every line of pretty-printed JSON: a block comment before the token, a line comment after."""
    out = []
    for i, line in enumerate(plain.split("\n")):
        stripped = line.lstrip()
        indent = line[: len(line) - len(stripped)]
        out.append(f'{indent}/* {i % 97} "q" */ {stripped} // n{i} http://x/y')
    return "\n".join(out)


def middle_path(value: dict[str, Any]) -> tuple[str, ...]:
    keys = list(value["projects"])
    return ("projects", keys[len(keys) // 2], "hasTrustDialogAccepted")


def edit_once(data: bytes, dialect: Dialect, path: tuple[str, ...]) -> bytes:
    doc = JsoncDocument.parse_bytes(data, dialect)
    doc.set(path, "edited")
    return doc.to_bytes()


def edit_text_once(text: str, dialect: Dialect, path: tuple[str, ...]) -> str:
    doc = JsoncDocument.parse(text, dialect)
    doc.set(path, "edited")
    return doc.text


# -- jsonc-parser under node -----------------------------------------------------------------------


def _node_modules() -> Path | None:
    """``node_modules`` holding the locked ``jsonc-parser`` (installed on first use), or None without node."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        return None
    cache = Path(os.environ.get("ELYDORA_BENCH_CACHE", Path.home() / ".cache" / "elydora-benchmarks")) / "node"
    lock = (NODE_DIR / "package-lock.json").read_bytes()
    stamp = cache / "installed-lock.json"
    if not (stamp.exists() and stamp.read_bytes() == lock and (cache / "node_modules" / "jsonc-parser").is_dir()):
        cache.mkdir(parents=True, exist_ok=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(NODE_DIR / name, cache / name)
        done = subprocess.run(
            [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=cache, capture_output=True, text=True
        )
        if done.returncode != 0:
            print(f"npm ci failed, jsonc-parser figures skipped: {done.stderr.strip()[-300:]}", flush=True)
            return None
        stamp.write_bytes(lock)
    return cache / "node_modules"


class NodeEditor:
    """``jsonc-parser`` doing the edit in a node process kept open for the whole shape, timed edit by edit.

    Each of its timed edits is requested between two of ours (:meth:`time_one`), so that both sides are
    sampled under the same machine load: on this shared machine the load shifts within a fraction of a
    second, and whole rounds of one side then the other measured the shift as much as the editors.  Both
    sides are warmed up for ``WARMUP_SECONDS`` first: V8 compiles the hot functions only after a few dozen
    runs (its first samples take 5-10 times its steady state), and a median that mixed them in would
    compare our warm code with its unoptimised one.  Only the edit itself is timed on either side (node
    times its own, so the pipe is left out).
    """

    def __init__(self, modules: Path, source: Path, path: tuple[str, ...]) -> None:
        argv = ["node", str(NODE_DIR / "jsonc_edit.mjs"), str(modules), str(source), json.dumps(path)]
        self._process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def _ask(self, command: str) -> str:
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write(command + "\n")
        self._process.stdin.flush()
        answer = self._process.stdout.readline()
        if not answer:
            raise RuntimeError(f"the jsonc-parser process ended (exit {self._process.wait()})")
        return answer.strip()

    def warm(self) -> None:
        self._ask(f"warm {WARMUP_SECONDS}")

    def time_one(self) -> float:
        return float(self._ask("time"))

    def close(self) -> None:
        assert self._process.stdin is not None
        self._process.stdin.close()
        self._process.wait()


def _sample(node: NodeEditor, samples: list[float]) -> None:
    samples.append(node.time_one())


def warm(fn: Callable[[], object]) -> None:
    """Run ``fn`` for ``WARMUP_SECONDS`` (at least once), as node's side is warmed up."""
    until = time.perf_counter() + WARMUP_SECONDS
    fn()
    while time.perf_counter() < until:
        fn()


# -- figures ---------------------------------------------------------------------------------------


def bench_shape(
    name: str, data: bytes, twin: bytes, dialect: Dialect, repeat: int, modules: Path | None, goal: float = SPEED_GOAL
) -> None:
    path = middle_path(json.loads(twin))
    result = edit_once(data, dialect, path)
    assert JsoncDocument.parse_bytes(result, dialect).get(path) == "edited" and result != data
    text = data.decode("utf-8")
    assert edit_text_once(text, dialect, path) == result.decode("utf-8")
    size = {"MB": f"{len(data) / MB:.2f}"}
    # Each round interleaves our edit, json.loads and (when node exists) jsonc-parser's edit call by
    # call, so that a change in machine load hits all three alike (see NodeEditor); each figure is a
    # median of rounds.
    rounds: dict[str, list[float]] = {"edit": [], "edit from str": [], "loads": [], "node": []}
    with tempfile.TemporaryDirectory(prefix="elydora-bench-node-") as tmp:
        source = Path(tmp) / "input.json"
        source.write_bytes(data)
        node = NodeEditor(modules, source, path) if modules is not None else None
        fns: dict[str, Callable[[], object]] = {
            "edit": lambda: edit_once(data, dialect, path),
            "edit from str": lambda: edit_text_once(text, dialect, path),
            "loads": lambda: json.loads(twin),
        }
        for fn in fns.values():
            warm(fn)
        node_samples: list[float] = []
        if node is not None:
            node.warm()
            fns["node"] = partial(_sample, node, node_samples)
        for _ in range(ROUNDS):
            node_samples.clear()
            times = harness.interleaved_times(fns, repeat=repeat, warmup=0)
            rounds["edit"].append(times["edit"])
            rounds["edit from str"].append(times["edit from str"])
            rounds["loads"].append(times["loads"])
            if node is not None:
                rounds["node"].append(statistics.median(node_samples))
        if node is not None:
            node.close()
    edit, loads = statistics.median(rounds["edit"]), statistics.median(rounds["loads"])
    harness.report(
        harness.Figure(f"{name}: edit", edit, "s", "json.loads of the comment-free twin", loads, goal=goal, extra=size)
    )
    harness.report(
        harness.Figure(
            f"{name}: edit from str",
            statistics.median(rounds["edit from str"]),
            "s",
            "json.loads of the comment-free twin",
            loads,
            goal=goal,
        )
    )
    if modules is not None:
        harness.report(
            harness.Figure(
                f"{name}: edit vs jsonc-parser",
                edit,
                "s",
                "jsonc-parser modify+applyEdits (node)",
                statistics.median(rounds["node"]),
                goal=NODE_GOAL,
            )
        )
    peak = harness.peak_memory(lambda: edit_once(data, dialect, path))
    loads_peak = harness.peak_memory(lambda: json.loads(twin))
    harness.report(
        harness.Figure(
            f"{name}: peak memory of an edit",
            peak / MB,
            "MiB",
            "input size",
            len(data) / MB,
            goal=MEMORY_GOAL,
            extra={"json.loads_peak_x": f"{loads_peak / len(twin):.2f}"},
        )
    )


def shapes(quick: bool) -> list[tuple[str, Callable[[], tuple[bytes, bytes, Dialect]], int, float]]:
    """(name, maker of (data, comment-free twin, dialect), repeat, speed goal) for every shape, built one at a
    time."""

    def small() -> tuple[bytes, bytes, Dialect]:
        plain = json.dumps(claude_like(20 * 1024, seed=3), indent=2, ensure_ascii=False)
        return with_comments(plain, seed=4).encode("utf-8"), plain.encode("utf-8"), JSONC

    def two_mb(kind: str) -> Callable[[], tuple[bytes, bytes, Dialect]]:
        def make() -> tuple[bytes, bytes, Dialect]:
            plain = json.dumps(claude_like(2 * MB), indent=2, ensure_ascii=False)
            if kind == "plain":
                return plain.encode("utf-8"), plain.encode("utf-8"), STRICT_JSON
            text = with_comments(plain) if kind == "sparse" else with_dense_comments(plain)
            return text.encode("utf-8"), plain.encode("utf-8"), JSONC

        return make

    big = 8 if quick else 64

    def huge() -> tuple[bytes, bytes, Dialect]:
        data = json.dumps(claude_like(big * MB, seed=7), indent=2, ensure_ascii=False).encode("utf-8")
        return data, data, STRICT_JSON

    scale = 1 if quick else 2  # repeats per round (three rounds)
    return [
        ("20 KB JSONC settings", small, 51 * scale, SPEED_GOAL),
        ("2 MB JSONC, a comment every ~25 lines", two_mb("sparse"), 5 * scale, SPEED_GOAL),
        ("2 MB JSONC, two comments on every line", two_mb("dense"), 5 * scale, DENSE_GOAL),
        ("2 MB plain JSON", two_mb("plain"), 5 * scale, SPEED_GOAL),
        (f"{big} MB plain JSON", huge, 1 if quick else 2, SPEED_GOAL),
    ]


def _load() -> str:
    """The machine's load, printed with the figures: on a shared machine absolute times swing with it."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.1f} {five:.1f} {fifteen:.1f}"


def main() -> None:
    quick = "--quick" in sys.argv
    run = "quick" if quick else "full"
    print(f"python {sys.version.split()[0]}, {run} run, {os.cpu_count()} CPUs, {_load()}", flush=True)
    modules = _node_modules()
    if modules is None:
        print("node/npm not found: jsonc-parser figures skipped", flush=True)
    for name, make, repeat, goal in shapes(quick):
        data, twin, dialect = make()
        assert JsoncDocument.parse_bytes(data, dialect).value == json.loads(twin)
        bench_shape(name, data, twin, dialect, repeat, modules, goal)
        del data, twin
    if "--json-only" not in sys.argv:
        try:
            from benchmarks import editors_toml
        except ImportError:
            print("benchmarks.editors_toml not available: TOML figures skipped", flush=True)
        else:
            editors_toml.run()
    print(f"at the end: {_load()}", flush=True)
    harness.dump_json()
    missed = [fig.name for fig in harness.RESULTS if fig.met is False]
    if missed:
        print(f"{len(missed)} figure(s) missed their goal: {'; '.join(missed)}", flush=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
