"""Codex on macOS reads two preference keys of ``com.openai.codex`` (``CFPreferencesCopyAppValue``):
``config_toml_base64``, a config layer above every file, and ``requirements_toml_base64``, requirements beside
requirements.toml. A device manager's profile sets them, and so can the user (``defaults write``): ``status``
reads both where Codex finds them, first file first. macOS is stood in for (``layers.on_macos``) with the
property lists laid out as on a Mac, below ``--root``; not verified on a Mac.
"""

from __future__ import annotations

import base64
import json
import plistlib
import sys
from pathlib import Path

import pytest

from elydora_cli.main import main
from elydora_cli.plug import layers, macprefs

DOMAIN = "com.openai.codex"


def _status(capsys: pytest.CaptureFixture[str], root: Path) -> tuple[int, dict[str, object]]:
    code = main(["status", "codex", "--json", "--root", str(root / "home")])
    return code, json.loads(capsys.readouterr().out)["providers"][0]


def _preferences(path: Path, **values: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    encoded = {key: base64.b64encode(text.encode()).decode() for key, text in values.items()}
    path.write_bytes(plistlib.dumps(encoded, fmt=plistlib.FMT_BINARY))
    return str(path)


@pytest.fixture
def installed(root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Path:
    """Codex installed and trusted as Codex would record it, on a stand-in macOS, no Codex to ask."""
    monkeypatch.setattr(layers, "on_macos", lambda: True)
    (root / "bin").mkdir()
    monkeypatch.setenv("PATH", str(root / "bin"))
    assert main(["install", "codex", "--python", sys.executable, "--root", str(root / "home")]) == 0
    hooks = root / "home" / ".codex" / "hooks.json"
    (root / "home" / ".codex" / "config.toml").write_text("\n".join(
        f'[hooks.state."{hooks}:{event}:0:0"]\ntrusted_hash = "sha256:x"\n'
        for event in ("pre_tool_use", "post_tool_use")
    ))  # fmt: skip
    capsys.readouterr()
    assert _status(capsys, root)[0] == 0
    return root / "home"


MANAGED = Path("Library/Managed Preferences")


@pytest.mark.parametrize(
    ("where", "key", "text", "fix"),
    [
        (MANAGED / f"{DOMAIN}.plist", "config_toml_base64", "[features]\nhooks = false\n", "administrator"),
        (MANAGED / macprefs.user_name() / f"{DOMAIN}.plist", "requirements_toml_base64",
         "allow_managed_hooks_only = true\n", "administrator"),
        (Path(f"Library/Preferences/{DOMAIN}.plist"), "config_toml_base64", "[features]\nhooks = false\n",
         f"defaults delete {DOMAIN} config_toml_base64"),
        (Path(f"Library/Preferences/ByHost/{DOMAIN}.0A1B2C3D.plist"), "requirements_toml_base64",
         "[features]\nhooks = false\n", "defaults delete"),
    ],
)  # fmt: skip
def test_a_preference_that_switches_hooks_off_is_named_with_its_fix(
    installed: Path, root: Path, capsys: pytest.CaptureFixture[str], where: Path, key: str, text: str, fix: str
) -> None:
    named = _preferences(installed / where, **{key: text})
    code, row = _status(capsys, root)
    problems = row["problems"]
    assert code == 1 and row["state"] == "switched off", row
    assert isinstance(problems, list)
    assert any(named in p and "runs none of our hooks" in p and fix in p for p in problems), problems


def test_the_first_file_that_holds_the_key_decides_and_a_managed_true_wins_over_the_users_false(
    installed: Path, root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _preferences(installed / f"Library/Preferences/{DOMAIN}.plist", config_toml_base64="[features]\nhooks = false\n")
    _preferences(installed / MANAGED / f"{DOMAIN}.plist", config_toml_base64="[features]\nhooks = true\n")
    assert _status(capsys, root)[0] == 0  # Codex takes the forced value; the user's own one is never read
    _preferences(installed / MANAGED / f"{DOMAIN}.plist", requirements_toml_base64="")  # holds another key only
    assert _status(capsys, root)[0] == 1


def test_a_preference_that_is_not_base64_toml_is_an_error_naming_the_file(
    installed: Path, root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = installed / f"Library/Preferences/{DOMAIN}.plist"
    path.parent.mkdir(parents=True)
    path.write_bytes(plistlib.dumps({"config_toml_base64": "not base64!"}))
    code, row = _status(capsys, root)
    assert code != 0 and row["state"] == "error"
    assert any(str(path) in p and "config_toml_base64 is not base64" in p for p in row["problems"]), row  # type: ignore[union-attr]
    _preferences(path, config_toml_base64="[features\n")  # base64 of text that is no TOML
    code, row = _status(capsys, root)
    assert code != 0 and row["state"] == "error" and any(str(path) in p for p in row["problems"])  # type: ignore[union-attr]


def test_elsewhere_the_preferences_are_not_read(root: Path, capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch, installed: Path) -> None:
    named = _preferences(installed / MANAGED / f"{DOMAIN}.plist", config_toml_base64="[features]\nhooks = false\n")
    monkeypatch.setattr(layers, "on_macos", lambda: False)
    _, row = _status(capsys, root)
    assert row["state"] != "switched off" and named not in json.dumps(row)
