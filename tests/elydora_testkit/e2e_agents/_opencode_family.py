"""OpenCode and its fork Kilo Code share one row: the same plugin API, config shape and headless ``run``.

Each is pointed at the fake model through a custom provider in its global config file (``npm:
"@ai-sdk/openai-compatible"``, which both binaries bundle, so nothing is fetched for it) and run as
``<exe> run --auto --format json "..."``. With a plugin in its config folder, each agent first makes sure that
folder holds its plugin package (``@opencode-ai/plugin``, ``@kilocode/plugin``) and fetches it from npm
otherwise; ``install_agents.py`` installs that package once (``config_deps`` in ``agents.lock.json``) and
``configure`` copies it in, as the agent would have left it after a first start with network.

Their post-tool event is the plugin hook's native pair, ``tool.execute.after(input, output)``; our plugin
records it as one flat object: ``input`` (``tool, sessionID, callID, args``) and ``output`` (``title, output,
metadata``) beside ``hook_event_name`` and ``cwd`` (the plugin's ``directory``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from elydora_testkit.e2e_agents.shape import Agent, Json, member, post_event_named, write_json
from elydora_testkit.e2e_harness import Sandbox, cache_dir

POST_KEYS = frozenset({"hook_event_name", "cwd", "tool", "sessionID", "callID", "args", "title", "output",
                       "metadata"})
PROVIDER = "fake"
MODEL = "fake-model"


def _args_command(payload: Json) -> Any:
    return (payload.get("args") or {}).get("command")


def seed_config_deps(sb: Sandbox, agent_id: str) -> None:
    """Copy the agent's pre-installed config dependencies (``install_agents.py``) into the sandbox home."""
    manifest = json.loads((cache_dir() / "manifest.json").read_text())
    seed = manifest[agent_id]["config_deps"]
    source, target = Path(seed["folder"]), sb.home / seed["into"]
    target.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(source / name, target / name)
    shutil.copytree(source / "node_modules", target / "node_modules", symlinks=True)


def plugin_host_row(agent_id: str, name: str, *, settings: str, schema: str, env: dict[str, str]) -> Agent:
    """The row of an agent of the OpenCode family: ``settings`` is its config file (relative to home),
    ``schema`` the ``$schema`` its own files carry, ``env`` the switches that keep it offline and quiet."""
    config_dir = str(Path(settings).parent)

    def configure(sb: Sandbox, port: int) -> None:
        write_json(sb.home / settings, {
            "$schema": schema,
            "provider": {PROVIDER: {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Fake model",
                "options": {"baseURL": f"http://127.0.0.1:{port}/v1", "apiKey": "e2e-dummy-key"},
                "models": {MODEL: {"name": MODEL}},
            }},
            "model": f"{PROVIDER}/{MODEL}",
            "small_model": f"{PROVIDER}/{MODEL}",
            "autoupdate": False,
            "share": "disabled",
        })
        seed_config_deps(sb, agent_id)

    return Agent(
        id=agent_id, name=name, shell_tool="bash", hook_tool="bash", post_keys=POST_KEYS,
        configure=configure, env=lambda sb, port: dict(env),
        argv=lambda exe: [exe, "run", "--auto", "--format", "json", "Run echo hello"],
        config_files=(settings, f"{config_dir}/plugins", f"{config_dir}/plugin"),
        post_event_ok=post_event_named("tool.execute.after"),
        payload_tool=member("tool"),
        payload_command=_args_command,
        payload_call_id=member("callID"),
    )
