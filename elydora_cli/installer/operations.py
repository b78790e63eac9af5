"""Install, uninstall and status of one provider: sources -> one Transaction -> provider edits -> commit.

Every file an operation touches (agent settings, runtime scripts, identity, manifest) is staged in one
:class:`~elydora_config.Transaction`; every read-only source the agent consults is a snapshot precondition.

With ``--hook-command`` (``Context.hook_command``) the entries run that supervisor instead of the runtime:
install writes the agent identity (the supervisor may be ``elydora hook``, which reads it) and the manifest,
no generated runtime (an earlier install's is removed), and status checks the supervisor executable instead.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from elydora_config.errors import ConfigError, RecoveryNeededError
from elydora_config.files import read_physical
from elydora_config.log import get_logger
from elydora_config.records import field, record

from .. import identity
from ..exitcodes import UsageError
from ..plug.agentprobe import AGENT
from ..plug.context import Context
from ..plug.contract import Finding, Format, Sources
from ..plug.documents import Documents
from ..plug.layers import OFF, env_findings
from ..providers import load
from ..readpass import Reads
from ..recovery_hint import with_command
from ..statefiles import GUARD_SCRIPT
from . import entries
from .agentcheck import loaded_findings
from .dryrun import DRY_RUN_MAX_BYTES, Preview, pending_journal, preview
from .folders import created_by, remove_empty
from .hardlinks import refuse_hard_linked
from .manifest import MANIFEST_NAME, Manifest, read_manifest
from .rewrites import committed, parsed, read_through, retried
from .runtimecheck import check_runtime, command_mismatch, fingerprint, interpreter_state, live_guard
from .staging import (
    PYCACHE,
    runtime_files,
    stage_bytecode,
    stage_identity,
    stage_pycache_removal,
    stage_retired_runtime,
    stage_runtime,
    stage_runtime_removal,
    stage_state_repair,
    stage_stubs,
    stage_system_policy,
)
from .systemscope import (
    after_install,
    dir_mode,
    refuse_unmanaged,
    system_notes,
    user_root,
)

if TYPE_CHECKING:  # the transaction machinery is loaded by the commands that write: status never needs it
    from typing import Any

    from elydora_config import Transaction

    from ..plug.provider import Provider

SECRET_FILES = {identity.PRIVATE_KEY, identity.CONFIG}


@record
class Outcome:
    provider: str
    agent_id: str
    changed: list[str] = field(default_factory=list)
    preview: Preview | None = None
    """A dry run's diff of the agent files and list of Elydora's own files."""
    notes: list[str] = field(default_factory=list)


def _transaction(ctx: Context) -> Transaction:
    from elydora_config import Transaction

    return Transaction(
        ctx.elydora_dir, lock_timeout=10.0, follow_symlinks=ctx.follow_symlinks, allow_read_only=ctx.allow_read_only
    )


def sources_of(provider: Provider, ctx: Context) -> Sources:
    """``provider.sources(ctx)``; in a read-only pass (``ctx.reads``) once per provider and context: status
    asks for them for the agent's documents and again for the state roots the documents name. The result is
    shared: read it, never change it."""
    key = ("sources", id(provider), id(ctx))
    pair: tuple[Context, Sources] = ctx.reads.kept(key, lambda: (ctx, provider.sources(ctx)))
    return pair[1]  # the pair holds ``ctx``, so that its id is not reused while the block lasts


def load_documents(tx: Transaction | None, provider: Provider, ctx: Context) -> Documents:
    """Read and parse every target and read-only source (all parsed before anything is written)."""
    src = sources_of(provider, ctx)
    targets = {t.path: t for t in src.targets}
    docs: dict[Path, Any] = {}
    originals: dict[Path, str | None] = {}
    blanks: dict[Path, str] = {}
    for target in src.targets:
        text = _read_text(tx, target.path, target.max_bytes, ctx)
        originals[target.path] = text
        docs[target.path] = None
        if text is not None and target.fmt is not Format.TEXT:
            blank = src.blank_is_empty and _blank_json(text, target.fmt)
            if blank:
                blanks[target.path] = text
            read_as = target.new_text if blank else text
            docs[target.path] = parsed(tx, target.path, target.max_bytes, read_as, target.fmt)
    depends: dict[Path, Any] = {}
    for path in src.depends:
        text = _read_text(tx, path, 2 << 20, ctx)
        fmt = src.depend_formats.get(path)
        depends[path] = text
        if text is not None and fmt is not None and fmt is not Format.TEXT:
            read_as = "{}" if src.blank_is_empty and _blank_json(text, fmt) else text
            depends[path] = parsed(tx, path, 2 << 20, read_as, fmt)
    return Documents(targets, docs, originals, depends, blanks=blanks)


def _blank_json(text: str, fmt: Format) -> bool:
    """Whether ``text`` is a JSON file holding only whitespace (nothing at all included)."""
    return fmt in (Format.JSON, Format.JSONC, Format.JSONC_NO_TRAILING_COMMAS) and not text.strip(" \t\r\n")


def _read_text(tx: Transaction | None, path: Path, max_bytes: int, ctx: Context) -> str | None:
    if tx is not None:
        return tx.read_text(path, max_bytes=max_bytes)
    return ctx.reads.read_physical(path, max_bytes=max_bytes, text=True, allow_links=ctx.follow_symlinks)


def _manifests(tx: Transaction | None, ctx: Context, provider_id: str) -> dict[str, Manifest]:
    """Every manifest of ``provider_id`` under the state root, by agent id."""
    root = ctx.elydora_dir
    if tx is None:  # a read-only pass (status) lists and reads them once for every provider
        every = ctx.reads.kept(("manifests", str(root)), lambda: _read_manifests(root, ctx.reads))
        return {m.agent_id: m for m in every if m.provider == provider_id}
    found: dict[str, Manifest] = {}
    for name in _agent_dirs(root):
        path = root / name / MANIFEST_NAME
        if not _may_belong(path, provider_id, ctx.follow_symlinks):
            continue  # another agent's manifest: not snapshotted, so its own install does not conflict with ours
        data = tx.read(path, max_bytes=4 << 20) if os.path.lexists(path) else None
        manifest = None if data is None else Manifest.decode(data, path)
        if manifest is not None and manifest.provider == provider_id:
            found[manifest.agent_id] = manifest
    return found


def _may_belong(path: Path, provider_id: str, follow_symlinks: bool) -> bool:
    """Whether the manifest at ``path`` may be one of ``provider_id``'s, judged from a plain read: an install or
    uninstall snapshots only its own agent's manifests (any of them, under any agent id), never another agent's,
    which that agent's own run may rewrite meanwhile. A manifest that cannot be read or decoded here is read in
    the transaction, which reports it."""
    try:
        data = read_physical(path, max_bytes=4 << 20, allow_links=follow_symlinks)
        return data is None or Manifest.decode(data, path).provider == provider_id
    except (ConfigError, OSError):
        return True


def _agent_dirs(root: Path) -> list[str]:
    try:
        with os.scandir(root) as listing:
            return sorted(e.name for e in listing if e.is_dir(follow_symlinks=False))
    except (FileNotFoundError, NotADirectoryError):
        return []


def installed_manifests(ctx: Context) -> list[Manifest]:
    """Every install manifest under the state directory (sorted by agent id): what is installed."""
    return _read_manifests(ctx.elydora_dir, ctx.reads)


def _read_manifests(root: Path, reads: Reads) -> list[Manifest]:
    """Every manifest under the state directory, read outside a transaction (sorted by directory name)."""
    read = (read_manifest(os.path.join(root, name, MANIFEST_NAME), reads=reads) for name in _agent_dirs(root))
    return [m for m in read if m is not None]


def _scoped(provider: Provider, ctx: Context, provider_id: str, manifests: dict[str, Manifest]) -> Context:
    """``ctx`` for one provider: its id, and the supervisor commands its earlier installs recorded (their
    entries are recognised as ours). A provider that takes no hook command ignores ``--hook-command``."""
    known = tuple(dict.fromkeys(m.hook_command for m in manifests.values() if m.hook_command))
    hook_command = None if provider.HOOK_COMMAND_REFUSED else ctx.hook_command
    return ctx.with_options(provider=provider_id, known_hook_commands=known, hook_command=hook_command)


@record
class _Prepared:
    """The prelude every operation shares: the parsed files, the manifests, the scoped context."""

    docs: Documents
    manifests: dict[str, Manifest]
    ctx: Context


def _prepare(tx: Transaction | None, provider: Provider, ctx: Context, provider_id: str) -> _Prepared:
    docs = load_documents(tx, provider, ctx)
    manifests = _manifests(tx, ctx, provider_id)
    _attach_manifests(docs, manifests)
    return _Prepared(docs, manifests, _scoped(provider, ctx, provider_id, manifests))


def _attach_manifests(docs: Documents, manifests: dict[str, Manifest]) -> None:
    for manifest in manifests.values():
        docs.recorded.extend(manifest.recorded_values())
        for path, rec in manifest.files.items():
            docs.created.setdefault(Path(path), []).extend(rec.created)
            if rec.created_file:
                docs.created_files.add(Path(path))
            if rec.blank is not None:
                docs.blanks.setdefault(Path(path), rec.blank)


def _stage_documents(tx: Transaction, docs: Documents, mode: int = 0o700) -> list[str]:
    changed = []
    for path, target in docs.targets.items():
        final = docs.final_text(path)
        if final == docs.originals.get(path):
            continue
        refuse_hard_linked(path, follow_symlinks=tx.follow_symlinks)
        changed.append(str(path))
        if final is None:
            tx.remove(path)
        else:
            tx.mkdir(path.parent, mode)
            tx.write(path, final.encode("utf-8"), mode=target.mode if docs.originals.get(path) is None else None)
    return changed


def _changed_paths(tx: Transaction) -> list[str]:
    """The staged files whose bytes differ from what is on disk (the agent's configs first)."""
    changed = [p for p in tx.staged_paths if tx.read(p) != read_physical(p, max_bytes=256 << 20)]
    return sorted(changed, key=lambda p: ("/.elydora/" in p, p))


def _finish(tx: Transaction, outcome: Outcome, dry_run: bool, ctx: Context, docs: Documents) -> Outcome:
    log = get_logger("operations")
    log.debug("staged", provider=outcome.provider, paths=tx.staged_paths)
    if dry_run:
        read = [snap.path for p in (*docs.targets, *docs.depends) if (snap := tx.snapshot(p)) is not None]
        journal = pending_journal(str(ctx.elydora_dir), [*tx.staged_paths, *read])
        if journal is not None:  # the real run would stop there (exit 4): so does its preview
            tx.discard()
            raise with_command(RecoveryNeededError(journal, "is an interrupted transaction"), ctx)
        before = {p: read_physical(p, max_bytes=DRY_RUN_MAX_BYTES) for p in tx.staged_paths}
        outcome.preview = preview(tx, before, (str(ctx.elydora_dir), str(ctx.runtime_root)))
        tx.discard()
        log.info("dry run: nothing written", provider=outcome.provider)
    else:
        try:
            txid = committed(tx, tx.commit)
        except RecoveryNeededError as exc:
            raise with_command(exc, ctx) from None
        log.info("committed", provider=outcome.provider, agent=outcome.agent_id, txid=txid, changed=outcome.changed)
    return outcome


def install(provider_id: str, ctx: Context, *, dry_run: bool = False) -> Outcome:
    """Install our entries, runtime, identity and manifest for ``provider_id`` in one transaction (run again,
    bounded, while a file it read is being rewritten: :mod:`.rewrites`)."""
    return retried(lambda: _install(provider_id, ctx, dry_run))


def _install(provider_id: str, ctx: Context, dry_run: bool) -> Outcome:
    provider = load(provider_id)
    refuse_unmanaged(provider_id, ctx)  # before anything is read
    refused = provider.HOOK_COMMAND_REFUSED
    if ctx.hook_command and refused:
        raise UsageError(f"{provider_id}: --hook-command does not apply: {refused}; install it without one")
    agent_id = identity.check_agent_id(ctx.agent_id_for(provider_id))
    agent_dir = ctx.agent_dir(agent_id)
    outcome = Outcome(provider_id, agent_id)
    tx = _transaction(ctx)
    op = read_through(tx, lambda: _prepare(tx, provider, ctx, provider_id))
    docs, manifests, ctx = op.docs, op.manifests, op.ctx
    previous = manifests.get(agent_id)
    inherited = bool(previous and previous.trusted and not ctx.trust)  # trusted by us before: trust again
    ctx = ctx.with_options(trust=ctx.trust or inherited)
    provider.install(docs, ctx, agent_id)
    tx.mkdir(agent_dir, 0o700)
    runtime_dir = ctx.runtime_dir(agent_id)
    if ctx.system:  # no identity of the machine: each user's is created on first use (runtime/provision.py)
        repaired: list[tuple[Path, str]] = []
        stage_system_policy(tx, runtime_dir)
    elif stage_identity(tx, agent_dir, provider_id, agent_id):
        repaired = []
    else:
        repaired = stage_state_repair(tx, agent_dir)
    if ctx.hook_command:
        runtime: list[str] = []
        stage_runtime_removal(tx, provider_id, agent_dir, ctx.python)
        code: dict[str, str] = {}
    else:
        code = stage_bytecode(tx, provider_id, runtime_dir, ctx.python, user_root(ctx), _compiled_for(previous, ctx))
        runtime = stage_runtime(tx, provider_id, runtime_dir, ctx.python, user_root(ctx)) + sorted(code)
    runtime += _stage_extra_runtime(tx, provider, ctx, runtime_dir, agent_id)
    outcome.changed = _stage_documents(tx, docs, dir_mode(ctx)) + [str(path) for path, _ in repaired]
    trusted = _trusted(ctx) or inherited
    stage_retired_runtime(tx, runtime_dir, previous, runtime + runtime_files_names(provider_id, runtime_dir, ctx))
    manifest = Manifest(
        provider_id, agent_id, ctx.python, ctx.timeout_seconds, runtime=runtime, hook_command=ctx.hook_command,
        trusted=trusted, interpreter=None if ctx.hook_command else fingerprint(ctx.python), bytecode=code,
        follow_symlinks=ctx.follow_symlinks,
    )
    for path in docs.targets:
        if path in docs.logs and path not in docs.deleted:
            prior = previous.files.get(str(path)) if previous else None
            manifest.record(path, docs.logs[path], created_file=docs.was_created_by_us(path), previous=prior,
                            blank=docs.blanks.get(path))
    own = (str(ctx.elydora_dir), str(ctx.runtime_root))
    manifest.created_dirs = created_by(tx.staged_paths, own, previous.created_dirs if previous else [])
    tx.write(agent_dir / MANIFEST_NAME, manifest.encode(), mode=0o600)
    outcome.changed = _changed_paths(tx)  # a repaired runtime or identity file is a change too
    outcome.notes = [f"repaired {note}" for _, note in repaired]
    outcome.notes += _trust_notes(ctx) if ctx.trust and ctx.probe else system_notes(provider_id, ctx) or list(
        provider.NOTES
    )
    _finish(tx, outcome, dry_run, ctx, docs)
    if not dry_run and _trusted(ctx):
        outcome.notes += _confirm_trust(provider_id, ctx)
    if not dry_run:
        outcome.notes += after_install(provider_id, ctx, agent_id, ctx.python)
    return outcome


def _trusted(ctx: Context) -> bool:
    """Whether the agent itself hashed our entries for their trust entries in this install."""
    return bool(ctx.trust and ctx.probe and ctx.probe.report.check == AGENT)


def _trust_notes(ctx: Context) -> list[str]:
    note = ctx.probe.report.note if ctx.probe else None
    return [note if _trusted(ctx) else f"warning: {note}"] if note else []


def _confirm_trust(provider_id: str, ctx: Context) -> list[str]:
    """After the commit, the agent is asked again: our entries must now be listed as trusted."""
    found = status(provider_id, ctx.with_options(trust=False))
    if ctx.probe is None or ctx.probe.report.check != AGENT:
        return [f"warning: trust not confirmed: {ctx.probe.report.note if ctx.probe else 'no probe'}"]
    problems = [f.render() for f in found.findings if f.severity in ("error", "pending")]
    if problems:
        return [f"warning: the agent does not confirm the trust: {'; '.join(problems)}"]
    return [f"confirmed by {ctx.probe.name}: our hooks are listed, enabled and trusted"]


def _compiled_for(previous: Manifest | None, ctx: Context) -> dict[str, str] | None:
    """The bytecode digests of the earlier install when it ran this very interpreter (then unchanged modules
    need no compiling again)."""
    if previous is None or previous.python != ctx.python or previous.interpreter != fingerprint(ctx.python):
        return None
    return previous.bytecode


def runtime_files_names(provider_id: str, agent_dir: Path, ctx: Context) -> list[str]:
    return list(runtime_files(provider_id, agent_dir, ctx.python, user_root(ctx)))


def _stage_extra_runtime(
    tx: Transaction, provider: Provider, ctx: Context, agent_dir: Path, agent_id: str
) -> list[str]:
    files = provider.extra_runtime(ctx, agent_id)
    for name, (data, mode) in files.items():
        tx.write(agent_dir / name, data, mode=mode)
    return sorted(files)


def uninstall(provider_id: str, ctx: Context, *, dry_run: bool = False) -> Outcome:
    """Remove our entries and runtime files of ``provider_id`` in one transaction (run again like :func:`install`)."""
    return retried(lambda: _uninstall(provider_id, ctx, dry_run))


def _uninstall(provider_id: str, ctx: Context, dry_run: bool) -> Outcome:
    provider = load(provider_id)
    refuse_unmanaged(provider_id, ctx)
    tx = _transaction(ctx)
    op = read_through(tx, lambda: _prepare(tx, provider, ctx, provider_id))
    docs, manifests, ctx = op.docs, op.manifests, op.ctx
    agent_ids = {identity.check_agent_id(ctx.agent_id)} if ctx.agent_id else None
    provider.uninstall(docs, ctx, agent_ids)
    outcome = Outcome(provider_id, ctx.agent_id or "*")
    outcome.changed = _stage_documents(tx, docs, dir_mode(ctx))
    targets = agent_ids or set(manifests) | {provider_id}
    stub_mode = 0o755 if ctx.system else 0o700
    for agent_id in sorted(targets):
        agent_dir, runtime_dir = ctx.agent_dir(agent_id), ctx.runtime_dir(agent_id)
        manifest = manifests.get(agent_id)
        generated = runtime_files(provider_id, runtime_dir, ctx.python, user_root(ctx))
        names = set(manifest.runtime if manifest else []) | set(generated)
        names |= set(provider.extra_runtime(ctx, agent_id))  # also without a manifest
        python = manifest.python if manifest else ctx.python
        left = stage_stubs(tx, provider_id, runtime_dir, python, names, stub_mode)
        removals = [runtime_dir / name for name in sorted(names - set(left))] + [agent_dir / MANIFEST_NAME]
        for path in removals:
            if path.exists():
                tx.remove(path)
                outcome.changed.append(str(path))
        if any(left.values()):
            outcome.changed += [str(runtime_dir / name) for name, new in left.items() if new]
            outcome.notes.append(
                f"{runtime_dir}: {' and '.join(sorted(left))} {'is' if len(left) == 1 else 'are'} now inert stubs"
                " (they allow and record nothing) so that sessions started before the uninstall keep working;"
                " restart those sessions. The next install or uninstall removes the stubs after 24 h."
            )
        stage_pycache_removal(tx, runtime_dir)
    _finish(tx, outcome, dry_run, ctx, docs)
    if not dry_run:  # an empty bytecode folder, and empty folders the installs created, are all that may remain
        remove_empty([ctx.runtime_dir(agent_id) / PYCACHE for agent_id in targets])
        remove_empty(d for agent_id in targets if agent_id in manifests for d in manifests[agent_id].created_dirs)
    return outcome


@record
class ProviderStatus:
    provider: str
    agent_id: str
    installed: bool
    findings: list[Finding] = field(default_factory=list)

    @property
    def healthy(self) -> bool:
        return self.installed and not any(f.severity in ("error", "pending", OFF) for f in self.findings)

    @property
    def awaiting_approval(self) -> bool:
        """Installed correctly, but the agent waits for the user to approve the hooks before running them."""
        severities = {f.severity for f in self.findings}
        return self.installed and "pending" in severities and not severities & {"error", OFF}

    @property
    def switched_off(self) -> bool:
        """Installed correctly, but a setting or variable the agent reads switches our hooks off."""
        severities = {f.severity for f in self.findings}
        return self.installed and OFF in severities and "error" not in severities


def status(provider_id: str, ctx: Context) -> ProviderStatus:
    provider = load(provider_id)
    agent_id = identity.check_agent_id(ctx.agent_id_for(provider_id))
    agent_dir = ctx.agent_dir(agent_id)
    refuse_unmanaged(provider_id, ctx)
    op = _prepare(None, provider, ctx, provider_id)
    docs, manifests, ctx = op.docs, op.manifests, op.ctx
    installed = agent_id in manifests or live_guard(ctx.runtime_dir(agent_id) / GUARD_SCRIPT)
    manifest = manifests.get(agent_id)
    mismatch = command_mismatch(manifest.hook_command if manifest else None, ctx.hook_command)
    if installed and mismatch:  # every entry and runtime check would fail for this one reason
        return ProviderStatus(provider_id, agent_id, installed, [Finding(mismatch)])
    findings = provider.check(docs, ctx, agent_id) + loaded_findings(provider, docs, ctx, agent_id)
    findings += env_findings(ctx, provider.ENV_SWITCHES, provider.FACTS.display_name)
    result = ProviderStatus(provider_id, agent_id, installed, findings)
    if installed:
        result.findings += check_runtime(provider, provider_id, ctx, agent_dir, agent_id, manifest)
    return result


def installed_entries(provider_id: str, ctx: Context) -> list[entries.Entry]:
    """The agent's entries of ours as the agent would run them (see :mod:`.entries`)."""
    provider = load(provider_id)
    agent_id = identity.check_agent_id(ctx.agent_id_for(provider_id))
    op = _prepare(None, provider, ctx, provider_id)
    return entries.installed(provider, op.docs, op.ctx, agent_id)


def read_documents(provider_id: str, ctx: Context) -> tuple[Documents, Context]:
    """The agent's files as status reads them, with the context scoped to the provider."""
    op = _prepare(None, load(provider_id), ctx, provider_id)
    return op.docs, op.ctx


def entry_findings(provider_id: str, ctx: Context) -> list[Finding]:
    """What the agent module reports of our entries alone (with ``ctx.probe``: what the agent itself loads)."""
    provider = load(provider_id)
    agent_id = identity.check_agent_id(ctx.agent_id_for(provider_id))
    op = _prepare(None, provider, ctx, provider_id)
    return provider.check(op.docs, op.ctx, agent_id) + loaded_findings(provider, op.docs, op.ctx, agent_id)


def interpreter_of(provider_id: str, ctx: Context) -> dict[str, object]:
    """The interpreter the installed hooks run (from the manifest) and whether it can still run them."""
    agent_id = identity.check_agent_id(ctx.agent_id_for(provider_id))
    manifest = _manifests(None, ctx, provider_id).get(agent_id)
    python = manifest.python if manifest else ctx.python
    present = os.path.isfile(python) and os.access(python, os.X_OK)
    if not present or (manifest is not None and manifest.hook_command):
        return {"path": python, "present": present, "identity": None}
    state, _, problem = interpreter_state(python, manifest.interpreter if manifest else None, ctx.reads)
    return {"path": python, "present": present and problem is None, "identity": state}
