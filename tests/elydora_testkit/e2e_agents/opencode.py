"""OpenCode: chat completions (SSE) through a custom provider in ``~/.config/opencode/opencode.json``."""

from __future__ import annotations

from elydora_testkit.e2e_agents._opencode_family import plugin_host_row

ROW = plugin_host_row(
    "opencode", "OpenCode", settings=".config/opencode/opencode.json", schema="https://opencode.ai/config.json",
    env={"OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_MODELS_FETCH": "1", "OPENCODE_DISABLE_SHARE": "1",
         "OPENCODE_DISABLE_LSP_DOWNLOAD": "1"},
)
