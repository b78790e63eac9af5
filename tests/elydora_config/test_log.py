"""The loggers: a record below the level is dropped without loading structlog; one at or above it is written."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Iterator

import pytest

from elydora_config import log


@pytest.fixture(autouse=True)
def _restore_options() -> Iterator[None]:
    yield
    log.set_options()


def test_a_record_below_the_level_loads_no_structlog() -> None:
    code = (
        "import sys\n"
        "from elydora_config import log\n"
        "log.set_options(verbose=1)\n"
        "log.get_logger('x').debug('dropped', n=1)\n"
        "print('structlog' in sys.modules)\n"
        "log.get_logger('x').info('kept', n=1)\n"
        "print('structlog' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "True"]
    assert "kept" in done.stderr and "dropped" not in done.stderr


@pytest.mark.parametrize(
    ("verbose", "written"),
    [(0, ["warning", "error"]), (1, ["info", "warning", "error"]), (2, ["debug", "info", "warning", "error"])],
)
def test_each_verbosity_writes_its_levels_and_up_as_json_lines(verbose: int, written: list[str]) -> None:
    stream = io.StringIO()
    log.set_options(verbose=verbose, json=True, stream=stream)
    logger = log.get_logger("operations")
    for method in ("debug", "info", "warning", "error"):
        getattr(logger, method)(f"a {method}", provider="codex")
    records = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [r["level"] for r in records] == written
    assert all(r["component"] == "operations" and r["provider"] == "codex" for r in records)
    assert [r["event"] for r in records] == [f"a {m}" for m in written]


def test_readable_lines_by_default() -> None:
    stream = io.StringIO()
    log.set_options(stream=stream)
    log.get_logger("operations").warning("slow disk", seconds=3)
    line = stream.getvalue()
    assert "slow disk" in line and "seconds=3" in line and "component=operations" in line
    with pytest.raises(json.JSONDecodeError):
        json.loads(line)
