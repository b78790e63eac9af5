"""Delivering one outbox record to the Elydora server: bounded retries, ``Retry-After``, chain resync.

The outbox keeps every signed candidate of the record. Sending is retried a bounded number of times:

* network errors and 5xx answers back off exponentially; 429/503 wait for ``Retry-After`` (seconds or an
  HTTP date) when it is within :attr:`RetryPolicy.max_wait`, otherwise the run stops and the earliest
  retry time is kept in the outbox (``not_before``) so the next run honours it too;
* ``400 PREV_HASH_MISMATCH`` names the server's last chain hash: when it is one of our own candidates, that
  candidate was accepted earlier (its answer was lost) and counts as delivered; otherwise the record is
  re-signed on top of the server's hash (a resync, noted in the ledger) and sent again;
* a candidate about to expire, or refused as a replay or as expired, is re-signed with a fresh
  ``operation_id``, nonce and ``issued_at`` (same chain position) and the old candidate is kept;
* 401, 403 (``AGENT_FROZEN``, ``KEY_REVOKED``), ``INVALID_SIGNATURE`` and other refusals stop the run.

The record never leaves the outbox unless it was accepted, so nothing is lost; a record is never accepted
twice, because the server refuses any second record on the same chain position.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ..identity import AgentConfig
from . import client, state
from .errorlog import log_error
from .record import build_record

_EXPECTED = re.compile(r'Expected prev_chain_hash "([A-Za-z0-9_-]{43})"')
_STOP_CODES = frozenset({"INVALID_SIGNATURE", "AGENT_FROZEN", "KEY_REVOKED", "UNAUTHORIZED"})
EXPIRY_MARGIN_MS = 5_000
MAX_CANDIDATES = 16

Poster = Callable[[str, "str | None", dict[str, Any]], client.Response]


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 8
    base_delay: float = 0.25
    max_delay: float = 4.0
    max_wait: float = 60.0

    def backoff(self, attempt: int) -> float:
        return float(min(self.max_delay, self.base_delay * (2 ** max(0, attempt - 1))))


def _default_post(base_url: str, token: str | None, record: dict[str, Any]) -> client.Response:
    return client.post_operation(base_url, token, record)


class Delivery:
    def __init__(
        self,
        agent_dir: str,
        config: AgentConfig,
        key: Ed25519PrivateKey,
        policy: RetryPolicy,
        post: Poster = _default_post,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        assert config.base_url is not None
        self.dir = agent_dir
        self.config = config
        self.base_url: str = config.base_url
        self.key = key
        self.policy = policy
        self.post = post
        self.sleep = sleep

    def add_candidate(self, outbox: dict[str, Any], payload: dict[str, Any], prev: str) -> dict[str, Any]:
        """Sign a new candidate for the outbox's record and store the outbox before it can be sent."""
        if len(outbox["candidates"]) >= MAX_CANDIDATES:
            raise RuntimeError("too many re-signed candidates for one record")
        record = build_record(
            org_id=self.config.org_id,
            agent_id=self.config.agent_id,
            kid=self.config.kid,
            key=self.key,
            payload=payload,
            prev_chain_hash=prev,
        )
        outbox["candidates"].append(record)
        state.save_outbox(self.dir, outbox)
        return record

    def _log(self, message: str) -> None:
        log_error(self.dir, "flush", message)

    def _wait_not_before(self, outbox: dict[str, Any]) -> bool:
        delay = float(outbox.get("not_before", 0)) - time.time()
        if delay <= 0:
            return True
        if delay > self.policy.max_wait:
            return False
        self.sleep(delay)
        return True

    def deliver(self, outbox: dict[str, Any]) -> dict[str, Any] | None:
        """The accepted candidate, or ``None`` when this run gives up (the outbox stays for the next run)."""
        if not self._wait_not_before(outbox):
            return None
        for attempt in range(1, self.policy.attempts + 1):
            candidate = self._fresh(outbox)
            try:
                response = self.post(self.base_url, self.config.token, candidate)
            except client.TransportError as exc:
                self._log(f"server unreachable (attempt {attempt}): {exc}")
                self.sleep(self.policy.backoff(attempt))
                continue
            if response.ok:
                return candidate
            verdict = self._handle_refusal(outbox, candidate, response, attempt)
            if verdict is not None:
                return verdict or None
        self._log(f"gave up on record {outbox['seq']} after {self.policy.attempts} attempts; it stays queued")
        return None

    def _fresh(self, outbox: dict[str, Any]) -> dict[str, Any]:
        candidate: dict[str, Any] = outbox["candidates"][-1]
        now_ms = time.time_ns() // 1_000_000
        if candidate["issued_at"] + candidate["ttl_ms"] - EXPIRY_MARGIN_MS < now_ms:
            candidate = self.add_candidate(outbox, candidate["payload"], candidate["prev_chain_hash"])
        return candidate

    def _handle_refusal(
        self, outbox: dict[str, Any], candidate: dict[str, Any], response: client.Response, attempt: int
    ) -> dict[str, Any] | None:
        """``None`` to try again, the accepted candidate, or ``{}`` to stop this run."""
        status, code = response.status, response.code
        if status == 429 or status >= 500:
            return self._back_off(outbox, response, attempt)
        if code == "PREV_HASH_MISMATCH":
            return self._resync(outbox, candidate, response)
        if status in (401, 403) or code in _STOP_CODES or status not in (400, 409, 422):
            self._log(f"server refused record {outbox['seq']}: {status} {code or ''} {response.message}")
            return {}
        # A replay, an expired record or a similar refusal of this very signature: re-sign and retry.
        self._log(f"server refused record {outbox['seq']} ({status} {code or ''}); re-signing it")
        self.add_candidate(outbox, candidate["payload"], candidate["prev_chain_hash"])
        return None

    def _back_off(self, outbox: dict[str, Any], response: client.Response, attempt: int) -> dict[str, Any] | None:
        wait = response.retry_after if response.retry_after is not None else self.policy.backoff(attempt)
        if wait > self.policy.max_wait:
            outbox["not_before"] = time.time() + wait
            state.save_outbox(self.dir, outbox)
            self._log(f"server asked to retry after {wait:.0f} s; record {outbox['seq']} stays queued")
            return {}
        self.sleep(wait)
        return None

    def _resync(
        self, outbox: dict[str, Any], candidate: dict[str, Any], response: client.Response
    ) -> dict[str, Any] | None:
        match = _EXPECTED.search(response.message)
        if match is None:
            self._log(f"PREV_HASH_MISMATCH without the expected hash: {response.message}")
            return {}
        expected = match.group(1)
        for earlier in outbox["candidates"]:
            if earlier["chain_hash"] == expected:
                return dict(earlier)
        self._log(f"server chain head differs from ours; re-basing record {outbox['seq']} on it")
        self.add_candidate(outbox, candidate["payload"], expected)
        return None
