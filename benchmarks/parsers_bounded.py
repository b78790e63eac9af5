"""Linear-time guards of the parsers (``python -m benchmarks.parsers_bounded`` from the project root).

* ``.env`` with 32k blank lines (spaces, tabs, empty) and a comment before the key, per line, against the same file with
  1k blank lines, measured in the same run (goal: <= 3x per line; the quadratic scan it replaced was ~30x).
* ``nesting 100k``: a settings text nested 100,000 deep refused by :func:`elydora_config.nesting.check_nesting`,
  against one nested 1,000 deep (goal: <= 3x: the scan stops at the limit, so the depth does not matter).
"""

from __future__ import annotations

from benchmarks.harness import Figure, dump_json, median_time, report
from elydora_cli.plug.dotenv import parse
from elydora_config.errors import MalformedConfigError
from elydora_config.nesting import check_nesting

BLANK = ("  \n", "\t\n", "\n", " \t \n")


def _dotenv(lines: int) -> str:
    return "".join(BLANK[i % len(BLANK)] for i in range(lines)) + "# where Qwen lives\nQWEN_HOME=/srv/qwen\n"


def _per_line(lines: int) -> float:
    text = _dotenv(lines)
    assert parse(text) == {"QWEN_HOME": "/srv/qwen"}
    return median_time(lambda: parse(text), repeat=5) / lines


def _refuse(depth: int) -> float:
    text = '{"x": ' + "[" * depth + "]" * depth + "}"

    def run() -> None:
        try:
            check_nesting(text, "settings.json")
        except MalformedConfigError:
            return
        raise AssertionError("not refused")

    return median_time(run, repeat=7)


def main() -> None:
    small, large = _per_line(1_000) * 1e6, _per_line(32_000) * 1e6
    report(Figure(".env 32k blank lines, per line", large, "us", ".env 1k blank lines, per line", small, goal=3.0))
    shallow, deep = _refuse(1_000), _refuse(100_000)
    report(Figure("nesting 100k refused", deep, "s", "nesting 1k refused", shallow, goal=3.0))
    dump_json()


if __name__ == "__main__":
    main()
