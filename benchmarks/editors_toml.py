"""TOML editor benchmark: a 20 KB config edited through TomlDocument (parse + locate + splice + validate)
against ``tomllib.loads`` of the same text (goal <= 4x), with tomlkit doing the same edit for comparison,
and the peak memory of one edit (append a ``[[hooks]]`` table, set a value) at 20 KB and 2 MB as a multiple of
the input's size (goal <= 10x), next to ``tomllib.loads``'s own peak. The edit is measured on a parsed
document: parsing is ``tomllib.loads`` itself (its peak is printed as "parse + edit", the floor of any edit
that checks the whole text once).

Run alone with ``python -m benchmarks.editors_toml`` from the project root (``BENCH_JSON=out.json`` to
also write the figures as JSON); ``benchmarks/editors.py`` calls :func:`run`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import tomlkit

from benchmarks.harness import Figure, finish, interleaved_times, peak_memory, report
from elydora_config.toml import TomlDocument

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib  # type: ignore[import-not-found, no-redef, unused-ignore]

GOAL_RATIO = 4.0
TARGET_BYTES = 20 * 1024
MEMORY_SIZES = (20 * 1024, 2 * 1024 * 1024)
MEMORY_GOAL = 10.0  # peak bytes allocated during one edit, per byte of input
HOOK = {"event": "PreToolUse", "command": "'/usr/bin/python3' '/home/u/.elydora/agent/guard.py'", "timeout": 10}


def config_text(target: int = TARGET_BYTES) -> str:
    """A Kimi-like config of about ``target`` bytes: comments, tables, inline values, [[hooks]]."""
    parts = ['# Kimi Code configuration\ndefault_model = "kimi-code/k3"\ntelemetry = false\n\n']
    index = 0
    while sum(map(len, parts)) < target:
        parts.append(
            f"# provider {index}\n"
            f"[providers.p{index}]\n"
            f'base_url = "https://api{index}.example.com/v1"  # endpoint\n'
            f"max_tokens = {1000 + index}\n"
            f"temperature = 0.{index % 10}\n"
            f'models = ["m{index}-small", "m{index}-large"]\n'
            f"limits = {{ rpm = {60 + index}, tpm = {90000 + index} }}\n"
            "\n"
            "[[hooks]]\n"
            f'event = "PostToolUse"\n'
            f"command = \"'/usr/bin/python3' '/home/u/hooks/h{index}.py'\"\n"
            "timeout = 30\n"
            "\n"
        )
        index += 1
    return "".join(parts)


def _edits(text: str) -> dict[str, Callable[[], str]]:
    middle = len(tomllib.loads(text)["providers"]) // 2

    def set_value() -> str:
        doc = TomlDocument.parse(text)
        doc.set(("providers", f"p{middle}", "max_tokens"), 4096)
        return doc.text

    def append_hook() -> str:
        doc = TomlDocument.parse(text)
        doc.append_table(("hooks",), HOOK)
        return doc.text

    def remove_hook() -> str:
        doc = TomlDocument.parse(text)
        doc.remove(("hooks", middle))
        return doc.text

    return {"set a value": set_value, "append a [[hooks]] entry": append_hook, "remove a [[hooks]] entry": remove_hook}


def _tomlkit_set(text: str) -> Callable[[], str]:
    middle = len(tomllib.loads(text)["providers"]) // 2

    def edit() -> str:
        doc = tomlkit.parse(text)
        doc["providers"][f"p{middle}"]["max_tokens"] = 4096
        return tomlkit.dumps(doc)

    return edit


def run() -> None:
    text = config_text()
    size_kb = len(text.encode("utf-8")) / 1024
    baseline_name = f"tomllib.loads {size_kb:.0f} KB"
    edits = _edits(text)
    for edit in edits.values():
        tomllib.loads(edit())  # each edit yields valid TOML (TomlDocument already checked the data)
    times = interleaved_times({"baseline": lambda: tomllib.loads(text), **edits}, repeat=31)
    for label in edits:
        report(
            Figure(
                name=f"toml edit {size_kb:.0f} KB: {label} (parse+locate+splice+validate)",
                value=times[label],
                unit="s",
                baseline_name=baseline_name,
                baseline=times["baseline"],
                goal=GOAL_RATIO,
            )
        )
    compare = interleaved_times({"baseline": lambda: tomllib.loads(text), "tomlkit": _tomlkit_set(text)}, repeat=7)
    report(
        Figure(
            name=f"tomlkit {size_kb:.0f} KB: set a value (parse+set+dumps), for comparison",
            value=compare["tomlkit"],
            unit="s",
            baseline_name=baseline_name,
            baseline=compare["baseline"],
        )
    )
    for size in MEMORY_SIZES:
        _memory(config_text(size))


def _memory(text: str) -> None:
    size = len(text.encode("utf-8"))
    shown = f"{size / 1024:.0f} KB" if size < 1 << 20 else f"{size / (1 << 20):.0f} MB"
    tomllib_peak = peak_memory(lambda: tomllib.loads(text)) / size
    middle = len(tomllib.loads(text)["providers"]) // 2
    edits: dict[str, Callable[[TomlDocument], object]] = {
        "append a [[hooks]] table": lambda doc: doc.append_table(("hooks",), HOOK),
        "set a value": lambda doc: doc.set(("providers", f"p{middle}", "max_tokens"), 4096),
    }
    for label, edit in edits.items():
        edit(TomlDocument.parse(text))  # the editor's modules are imported before anything is measured
        doc = TomlDocument.parse(text)
        report(
            Figure(
                name=f"toml edit {shown}: {label}, peak memory (parsed document)",
                value=peak_memory(lambda: (edit(doc), doc.to_bytes())) / size,  # noqa: B023 - used at once
                unit="x input",
                baseline_name="tomllib.loads peak",
                baseline=tomllib_peak,
                goal=MEMORY_GOAL,
                goal_kind="absolute",
            )
        )
        whole = peak_memory(lambda: edit(TomlDocument.parse(text))) / size  # noqa: B023
        report(
            Figure(
                f"toml parse + edit {shown}: {label}, peak memory", whole, "x input", "tomllib.loads peak", tomllib_peak
            )
        )


if __name__ == "__main__":
    run()
    finish()
