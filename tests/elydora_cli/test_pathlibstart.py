"""pathlib imported by the package without ``urllib.parse``: each case runs in a fresh interpreter (``-I -S``, the
project on ``sys.path``), since this one has long imported both."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import elydora_cli

PROJECT = str(Path(elydora_cli.__file__).resolve().parent.parent)


def _fresh(code: str) -> dict[str, object]:
    """Run ``code`` (which sets ``out``) after the project is put on ``sys.path``; ``out`` as JSON."""
    program = f"import json, sys\nsys.path.insert(0, {PROJECT!r})\n{code}\nprint(json.dumps(out))"
    run = subprocess.run([sys.executable, "-I", "-S", "-c", program], capture_output=True, text=True, check=True)
    result: dict[str, object] = json.loads(run.stdout)
    return result


def test_the_command_line_loads_pathlib_without_urllib_parse_or_ipaddress() -> None:
    out = _fresh(
        "from elydora_cli.main import build_parser\n"
        "build_parser(['status'])\n"
        "out = {name: name in sys.modules for name in ('pathlib', 'urllib.parse', 'ipaddress')}"
    )
    assert out == {"pathlib": True, "urllib.parse": False, "ipaddress": False}


def test_the_package_alone_imports_no_pathlib() -> None:
    """The detached flusher imports the package on every start: pathlib is the command line's cost only."""
    out = _fresh("import elydora_cli.runtime.flush\nout = {'pathlib': 'pathlib' in sys.modules}")
    assert out == {"pathlib": False}


def test_as_uri_still_quotes_and_urllib_parse_is_the_real_module_afterwards() -> None:
    out = _fresh(
        "from elydora_cli.pathlibstart import import_pathlib\n"
        "import_pathlib()\n"
        "import pathlib\n"
        "uri = pathlib.PurePosixPath('/a b/%c').as_uri()\n"
        "import urllib.parse\n"
        "out = {'uri': uri, 'real': sys.modules['urllib.parse'].__spec__ is not None,\n"
        "       'split': urllib.parse.urlsplit('https://h:1/p').port}"
    )
    assert out == {"uri": "file:///a%20b/%25c", "real": True, "split": 1}


def test_an_earlier_urllib_parse_is_used_as_it_is() -> None:
    out = _fresh(
        "import urllib.parse\n"
        "from elydora_cli.pathlibstart import import_pathlib\n"
        "import_pathlib()\n"
        "import pathlib\n"
        "out = {'bound': pathlib.urlquote_from_bytes is urllib.parse.quote_from_bytes}"
    )
    assert out == {"bound": True}


def test_the_stand_in_reads_any_other_name_from_the_real_module() -> None:
    """What a pathlib of another version might import from ``urllib.parse``: correct, only not deferred."""
    out = _fresh(
        "from elydora_cli.pathlibstart import NAME, _StandIn\n"
        "stand_in = sys.modules[NAME] = _StandIn(NAME)\n"
        "quote = stand_in.quote\n"
        "out = {'quoted': quote('a b'), 'real': sys.modules[NAME] is not stand_in,\n"
        "       'package': hasattr(stand_in, '__path__')}"
    )
    assert out == {"quoted": "a%20b", "real": True, "package": False}
