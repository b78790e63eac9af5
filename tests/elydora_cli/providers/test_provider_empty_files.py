"""An empty (0-byte), whitespace-only or comment-only config file, treated as each agent treats it
(docs/providers.md, each agent's "Empty file" line): where the agent reads a blank file as no settings, install
fills it and uninstall gives the blank text back; where it refuses one, so does install, naming the file and
what to write in it, and the file stays.
A TOML or YAML file holding nothing or only comments is an empty table or mapping for every reader."""

from __future__ import annotations

from pathlib import Path

import pytest
from elydora_testkit.provider_cases import make_context

from elydora_cli.installer import operations
from elydora_cli.main import main
from elydora_cli.plug.contract import Format
from elydora_cli.providers import load
from elydora_config.errors import MalformedConfigError

BLANK_IS_EMPTY = {"claudecode", "augment", "letta", "hermes"}
"""The agents whose loader reads a blank JSON file as no settings (the others refuse it, or are not known to
accept it)."""
AGENTS = sorted(
    ["augment", "claudecode", "codex", "copilot", "crush", "cursor", "droid", "gemini", "grok", "hermes", "kimi",
     "kiroagent", "kirocli", "kiroide", "letta", "openhands", "qoder", "qwen"]
)
TEXTS = {"empty": "", "blank": " \n  \r\n", "comment": "{comment}\n"}


def _comment(fmt: Format) -> str:
    return "# my settings" if fmt in (Format.TOML, Format.YAML) else "// my settings"


def _targets(agent: str, root: Path) -> list[tuple[Path, Format]]:
    root.mkdir()
    ctx = make_context(root)
    return [(t.path, t.fmt) for t in load(agent).sources(ctx).targets if t.fmt is not Format.TEXT]


def _accepted(agent: str, fmt: Format, kind: str) -> bool:
    if fmt in (Format.TOML, Format.YAML):
        return True
    return kind != "comment" and agent in BLANK_IS_EMPTY


@pytest.mark.parametrize("kind", sorted(TEXTS))
@pytest.mark.parametrize("agent", AGENTS)
def test_a_blank_file_is_filled_or_refused_as_the_agent_does(agent: str, kind: str, tmp_path: Path) -> None:
    count = len(_targets(agent, tmp_path / "probe"))
    assert count
    for index in range(count):  # each file the agent reads, made blank on its own
        root = tmp_path / str(index)
        path, fmt = _targets(agent, root)[index]
        ctx = make_context(root)
        text = TEXTS[kind].format(comment=_comment(fmt))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode())
        if _accepted(agent, fmt, kind):
            operations.install(agent, ctx)
            assert operations.status(agent, ctx).installed, (agent, path.name)  # (Codex: then awaiting trust)
            operations.uninstall(agent, ctx)
            assert path.read_bytes() == text.encode(), (agent, path.name)  # the file as it was, byte for byte
        else:
            with pytest.raises(MalformedConfigError) as caught:
                operations.install(agent, ctx)
            assert caught.value.path is not None and Path(caught.value.path) == path, (agent, path.name)
            assert path.read_bytes() == text.encode()


def test_the_refusal_is_one_error_line_naming_the_file_and_what_to_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ctx = make_context(tmp_path)
    settings = ctx.home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_bytes(b"")  # Gemini CLI stops with "Unexpected end of JSON input" on this file
    code = main(["install", "gemini", "--root", str(ctx.home)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1
    assert len(err) == 1 and err[0].startswith("Error: ") and str(settings) in err[0], err
    assert "write one in it, such as {}" in err[0]
    assert settings.read_bytes() == b""
