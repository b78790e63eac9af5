"""The generator (what the installer writes and status compares) and the guard's flat JSON reader."""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from elydora_cli import catalog, statefiles
from elydora_cli.runtime import GUARD_NAME, HOOK_NAME, generate, runtime_argv
from elydora_cli.runtime.templates.guard import parse_flat_object
from elydora_config.errors import UnsafePathError


@pytest.mark.parametrize("provider", catalog.provider_ids())
def test_generate_is_deterministic_and_compiles(tmp_path: Path, provider: str) -> None:
    directory = tmp_path / ".elydora" / "agent-1"
    first = generate(provider, directory, sys.executable)
    assert first == generate(provider, directory, sys.executable)
    assert set(first) == {GUARD_NAME, HOOK_NAME, "_elydora_guard.py", "_elydora_audit.py"}
    for name, (data, mode) in first.items():
        assert mode == (0o700 if name in (GUARD_NAME, HOOK_NAME) else 0o600)
        text = data.decode()
        assert text.startswith(f"#!{sys.executable} -IS\n")
        assert "# @param" not in text and repr(str(directory)) in text
        compile(text, name, "exec")


def test_generated_scripts_differ_by_provider_and_agent(tmp_path: Path) -> None:
    module = "_elydora_guard.py"
    one = generate("cursor", tmp_path / ".elydora" / "a", sys.executable)
    assert one[module] != generate("claudecode", tmp_path / ".elydora" / "a", sys.executable)[module]
    assert one[GUARD_NAME] != generate("cursor", tmp_path / ".elydora" / "b", sys.executable)[GUARD_NAME]
    assert one[HOOK_NAME] != generate("letta", tmp_path / ".elydora" / "a", sys.executable)[HOOK_NAME]


def test_rendered_parameters_hold_the_provider_facts(tmp_path: Path) -> None:
    namespace: dict[str, object] = {"__name__": "rendered"}
    exec(generate("cursor", tmp_path / "x", "/usr/bin/python3")["_elydora_guard.py"][0].decode(), namespace)
    assert namespace["AGENT_ID"] == "x" and namespace["PROVIDER_ID"] == "cursor"
    assert namespace["FAILURE_EXIT"] == 1 and namespace["ALLOW_STDOUT"] == b'{"permission":"allow"}\n'
    assert namespace["PACKAGE_PYTHON"] == os.path.abspath(sys.executable)  # the flusher/refresher interpreter


@pytest.mark.parametrize("name", ["con", " lead", "trail.", "a:b", "nul.txt", "com1"])
def test_unsafe_agent_directories_are_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(UnsafePathError):
        generate("codex", tmp_path / name, sys.executable)


def test_relative_interpreter_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        generate("codex", tmp_path / "a", "python3")


def test_runtime_argv_is_isolated_without_site() -> None:
    assert runtime_argv("/usr/bin/python3", Path("/h/.elydora/a/guard.py")) == [
        "/usr/bin/python3",
        "-I",
        "-S",
        "/h/.elydora/a/guard.py",
    ]


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(),
)


@given(st.dictionaries(st.text(), scalars, max_size=8), st.booleans(), st.sampled_from([None, 2, "\t"]))
def test_flat_reader_agrees_with_json(value: dict[str, object], ascii_only: bool, indent: object) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only, indent=indent)  # type: ignore[arg-type]
    parsed = parse_flat_object(text)
    assert parsed.keys() == value.keys()
    for key, item in value.items():
        got = parsed[key]
        assert type(got) is type(item) and (got == item or (isinstance(item, float) and math.isnan(item)))


@pytest.mark.parametrize(
    "text",
    [
        "",
        "[]",
        '{"a": {"b": 1}}',
        '{"a": [1]}',
        '{"a": 1,}',
        '{"a": 1, "a": 2}',
        '{"a": NaN}',
        '{"a": 01}',
        '{"a": 1.}',
        '{"a": "x}',
        '{"a": "\\x"}',
        '{"a": "tab\there"}',
        '{"a": 1} x',
        "{'a': 1}",
    ],
)
def test_flat_reader_refuses_what_it_cannot_vouch_for(text: str) -> None:
    with pytest.raises(ValueError):
        parse_flat_object(text)


def test_the_status_checks_read_flat_objects_with_the_guards_own_reader(tmp_path: Path) -> None:
    """The guard template imports its reader from ``templates/flatreader.py`` (which status imports without the
    rest of the guard), and the generated guard holds that module's code in place of the import: it stands
    alone, and reads exactly what status read."""
    from elydora_cli.runtime.templates import flatreader, guard

    assert guard.parse_flat_object is flatreader.parse_flat_object and guard._WS is flatreader._WS
    files = generate("claudecode", tmp_path / ".elydora" / "agents" / "claudecode-x", sys.executable)
    script = files[f"{statefiles.GUARD_MODULE}.py"][0].decode("utf-8")
    assert "from .flatreader import" not in script and "  # @inline\n" not in script  # no import left
    assert script.count("from __future__ import") == 1
    reader = Path(flatreader.__file__).read_text(encoding="utf-8")
    body = reader.partition("from __future__ import annotations\n")[2].strip("\n")
    assert body in script and "def parse_flat_object(" in body
    namespace: dict[str, object] = {}
    exec(compile(body, "flatreader", "exec"), namespace)  # the inlined code alone defines the reader
    assert callable(namespace["parse_flat_object"])


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (
            {"AGENT_DIR": "/a", "MODULE": "m", "POLICY": "", "ERROR_PREFIX": "p", "FAILURE_EXIT": 0},
            "unexpected parameter FAILURE_STDOUT",
        ),
        (
            {"AGENT_DIR": "/a", "MODULE": "m", "POLICY": "", "ERROR_PREFIX": "p", "FAILURE_EXIT": 0,
             "FAILURE_STDOUT": b"", "X": 1},
            r"parameters not found: \['X'\]",
        ),
    ],
)
def test_a_render_refuses_parameters_the_template_does_not_have(params: dict[str, object], message: str) -> None:
    render = sys.modules["elydora_cli.runtime.generate"]._render
    with pytest.raises(ValueError, match=f"launcher.py: {message}"):
        render("launcher.py", catalog.provider("claudecode"), "claudecode", "/usr/bin/python3", params)
