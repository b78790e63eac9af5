"""Kilo Code CLI: chat completions (SSE) through a custom provider in ``~/.config/kilo/kilo.json``."""

from __future__ import annotations

from elydora_testkit.e2e_agents._opencode_family import plugin_host_row

ROW = plugin_host_row(
    "kilo", "Kilo Code CLI", settings=".config/kilo/kilo.json", schema="https://app.kilo.ai/config.json",
    env={"KILO_DISABLE_AUTOUPDATE": "1", "KILO_DISABLE_MODELS_FETCH": "1", "KILO_DISABLE_SHARE": "1",
         "KILO_DISABLE_LSP_DOWNLOAD": "1", "KILO_TELEMETRY_LEVEL": "off", "KILO_DISABLE_SESSION_INGEST": "1",
         "KILO_DISABLE_CODEBASE_INDEXING": "1"},
)
