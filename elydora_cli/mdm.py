"""The artifacts an administrator uploads to a device manager (Jamf, Kandji, Intune): our managed settings as a
configuration profile (``.mobileconfig``, macOS), a registry file (``.reg``, Windows) or the file the agent reads.

Each holds exactly what ``elydora install <agent> --scope system`` writes into the agent's managed layer (our
entries naming the root-owned launchers, and the switches that install sets), built by the agent module itself
on empty documents: nothing is read from or written to the machine's managed layers. The launchers must still
be installed on every machine (``install --scope system`` with the same ``--python``): the profile only
delivers the settings, through the source the agent ranks above its files (Claude Code uses one managed source
only: docs/fleet.md).

- Claude Code: the ``com.anthropic.claudecode`` preference domain holds the settings keys themselves; Windows
  reads the JSON text from the ``Settings`` value of ``HKLM\\SOFTWARE\\Policies\\ClaudeCode``.
- Codex: the ``com.openai.codex`` domain holds ``requirements_toml_base64``, the requirements.toml text in
  base64; Windows has no registry form (Codex reads ``%ProgramData%\\OpenAI\\Codex\\requirements.toml``).
"""

from __future__ import annotations

import base64
import json
import plistlib
import uuid
from pathlib import Path

from elydora_config.records import record

from . import claudesources
from .exitcodes import UsageError
from .plug.context import Context
from .plug.documents import Documents
from .providers import codex, load

MOBILECONFIG, REG, FILE = "mobileconfig", "reg", "file"
FORMATS = (MOBILECONFIG, REG, FILE)
PROFILE_ID = "dev.elydora.managed"
UUID_NAMESPACE = uuid.UUID("6f1c5a3e-2d4b-5e8f-9a0c-1b2d3e4f5a6b")
"""Fixed: the same agent's profile keeps its identifiers from one generation to the next, so a device manager
replaces it instead of adding a second one."""


@record(frozen=True)
class Delivery:
    """How one agent reads managed settings from a device manager."""

    domain: str
    """The macOS preference domain."""
    requirements_key: str | None = None
    """The key holding the managed file's text in base64 (Codex); ``None``: the settings keys themselves."""
    registry_key: str | None = None
    """``HKLM`` key whose ``Settings`` value holds the JSON text (Windows); ``None``: no registry form."""


DELIVERIES = {
    "claudecode": Delivery(claudesources.PREFERENCES_DOMAIN, registry_key=claudesources.POLICY_KEY),
    "codex": Delivery(codex.PREFERENCES_DOMAIN, requirements_key=codex.REQUIREMENTS_PREFERENCE),
}
REGISTRY_VALUE = claudesources.POLICY_VALUE


def delivery(provider_id: str, fmt: str) -> Delivery:
    """The agent's delivery, refused clearly where the agent reads no such profile."""
    found = DELIVERIES.get(provider_id)
    if found is None:
        raise UsageError(f"{provider_id}: no device-manager profile: the agent reads no managed preferences "
                         f"(agents that do: {', '.join(sorted(DELIVERIES))}); use install --scope system")
    if fmt == REG and found.registry_key is None:
        raise UsageError(f"{provider_id}: no registry form: on Windows the agent reads its managed file only "
                         "(use --format file)")
    return found


def managed_text(provider_id: str, ctx: Context, agent_id: str) -> str:
    """The managed file's text a system install of ``agent_id`` would write from scratch (its first target)."""
    provider = load(provider_id)
    src = provider.sources(ctx)
    targets = {t.path: t for t in src.targets}
    docs = Documents(targets, dict.fromkeys(targets), dict.fromkeys(targets), dict.fromkeys(src.depends))
    provider.install(docs, ctx, agent_id)
    text = docs.final_text(src.targets[0].path)
    assert text is not None  # an install always writes its entries
    return text


def _uuid(*parts: str) -> str:
    return str(uuid.uuid5(UUID_NAMESPACE, "/".join(parts))).upper()


def settings_of(provider_id: str, text: str) -> dict[str, object]:
    """The preference keys the profile sets."""
    found = DELIVERIES[provider_id]
    if found.requirements_key is not None:
        return {found.requirements_key: base64.b64encode(text.encode("utf-8")).decode("ascii")}
    value: dict[str, object] = json.loads(text)
    return value


def mobileconfig(provider_id: str, agent_id: str, text: str) -> bytes:
    """A configuration profile (XML property list) with one custom settings payload for the agent's domain."""
    found = DELIVERIES[provider_id]
    payload = {
        "PayloadType": found.domain,
        "PayloadIdentifier": f"{PROFILE_ID}.{agent_id}.{found.domain}",
        "PayloadUUID": _uuid(agent_id, found.domain),
        "PayloadVersion": 1,
        "PayloadDisplayName": f"Elydora hooks for {agent_id}",
        **settings_of(provider_id, text),
    }
    profile = {
        "PayloadType": "Configuration",
        "PayloadVersion": 1,
        "PayloadIdentifier": f"{PROFILE_ID}.{agent_id}",
        "PayloadUUID": _uuid(agent_id),
        "PayloadDisplayName": f"Elydora hooks ({agent_id})",
        "PayloadDescription": "Elydora's guard and audit hooks, naming the launchers elydora install --scope system "
        "puts in /usr/local/lib/elydora on every machine",
        "PayloadScope": "System",
        "PayloadContent": [payload],
    }
    return plistlib.dumps(profile, fmt=plistlib.FMT_XML, sort_keys=True)


def _reg_string(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def registry_file(provider_id: str, text: str) -> bytes:
    """A ``.reg`` file (Registry Editor 5, UTF-16 with its byte order mark) setting the policy value to the
    settings as one line of JSON (a string value holds no line break)."""
    found = DELIVERIES[provider_id]
    compact = json.dumps(json.loads(text), separators=(",", ":"), ensure_ascii=False)
    lines = ["Windows Registry Editor Version 5.00", "", f"[HKEY_LOCAL_MACHINE\\{found.registry_key}]",
             f'"{REGISTRY_VALUE}"="{_reg_string(compact)}"', ""]
    return "\ufeff".encode("utf-16-le") + "\r\n".join(lines).encode("utf-16-le")


def read_registry_file(data: bytes) -> dict[str, dict[str, str]]:
    """The keys and string values of a ``.reg`` file (what Registry Editor would import), to check one back."""
    text = data.decode("utf-16")
    keys: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    for line in text.splitlines():
        if line.startswith("[") and line.endswith("]"):
            current = keys.setdefault(line[1:-1], {})
        elif current is not None and line.startswith('"') and '"="' in line and line.endswith('"'):
            name, _, value = line[1:-1].partition('"="')
            current[name] = value.replace('\\"', '"').replace("\\\\", "\\")
    return keys


def artifact(provider_id: str, fmt: str, ctx: Context, agent_id: str) -> bytes:
    """The bytes of the artifact ``fmt`` for one agent."""
    delivery(provider_id, fmt)
    text = managed_text(provider_id, ctx, agent_id)
    if fmt == MOBILECONFIG:
        return mobileconfig(provider_id, agent_id, text)
    if fmt == REG:
        return registry_file(provider_id, text)
    return text.encode("utf-8")


def default_name(provider_id: str, fmt: str, ctx: Context) -> str:
    """``elydora-<agent>.mobileconfig``, ``.reg``, or the managed file's own name."""
    if fmt == FILE:
        return Path(load(provider_id).sources(ctx).targets[0].path).name
    return f"elydora-{provider_id}.{fmt}"
