"""Delivering one outbox record to the Elydora server: every answer classified by :mod:`.refusal`.

The outbox keeps every signed candidate of the record. Sending is retried a bounded number of times:

* transient (network errors, 429, 5xx, a 2xx that is not this record's receipt): exponential back-off;
  ``Retry-After`` (seconds or an HTTP date) is honoured when within :attr:`RetryPolicy.max_wait`, otherwise
  the run stops and the earliest retry time is kept in the outbox (``not_before``) for the next run;
* ``PREV_HASH_MISMATCH`` names the server's last chain hash: when it is one of our own candidates, that
  candidate was accepted earlier (its answer was lost) and counts as delivered; otherwise the record is
  re-signed on top of the server's hash (a resync, noted in the ledger) and sent again;
* ``REPLAY_DETECTED`` (the nonce is burnt, even by a refused attempt) and a candidate about to expire are
  re-signed with a fresh ``operation_id``, nonce and ``issued_at`` on the same chain position;
  ``TTL_EXPIRED`` also corrects ``issued_at`` by the server's clock (its ``Date`` header);
* a refusal that is permanent for the record ends in :data:`REJECTED` (the flusher quarantines it);
  one that is permanent for the agent ends in :data:`AGENT_STOPPED` (nothing is dropped).

Delivered means a 202 whose receipt names the candidate's ``operation_id`` and ``chain_hash``; a record is
never accepted twice, because the server refuses any second record on the same chain position.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from elydora_config.records import record

from ..identity import AgentConfig
from . import client, refusal, state
from .errorlog import log_error
from .receipt import receipt_of
from .record import build_record

_EXPECTED = re.compile(r'"([A-Za-z0-9_-]{43})"')
EXPIRY_MARGIN_MS = 5_000
MAX_CANDIDATES = 16
MAX_CLOCK_RESIGNS = 2

ACCEPTED = "accepted"
GAVE_UP = "gave-up"  # transient trouble: the record stays queued for the next run
REJECTED = "rejected"  # permanent for this record
AGENT_STOPPED = "agent-stopped"  # permanent for the agent

Poster = Callable[[str, "str | None", dict[str, Any]], client.Response]


@record(frozen=True)
class RetryPolicy:
    attempts: int = 8
    base_delay: float = 0.25
    max_delay: float = 4.0
    max_wait: float = 60.0

    def backoff(self, attempt: int) -> float:
        return float(min(self.max_delay, self.base_delay * (2 ** max(0, attempt - 1))))


@record(frozen=True)
class Outcome:
    kind: str
    candidate: dict[str, Any] | None = None
    receipt: dict[str, Any] | None = None
    response: client.Response | None = None

    @property
    def code(self) -> str:
        return refusal.describe(self.response.status, self.response.code) if self.response else ""


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
        self.clock_offset_ms = 0  # server clock minus ours, learnt from a TTL_EXPIRED answer

    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000 + self.clock_offset_ms

    def add_candidate(self, outbox: dict[str, Any], payload: dict[str, Any], prev: str) -> dict[str, Any] | None:
        """Sign a new candidate and store the outbox before it can be sent; ``None`` past the limit."""
        if len(outbox["candidates"]) >= MAX_CANDIDATES:
            self._log(f"record {outbox['seq']} has {MAX_CANDIDATES} signed candidates; it stays queued")
            return None
        record = build_record(
            org_id=self.config.org_id,
            agent_id=self.config.agent_id,
            kid=self.config.kid,
            key=self.key,
            payload=payload,
            prev_chain_hash=prev,
            now_ms=self.now_ms(),
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

    def deliver(self, outbox: dict[str, Any]) -> Outcome:
        if not self._wait_not_before(outbox):
            return Outcome(GAVE_UP)
        for attempt in range(1, self.policy.attempts + 1):
            candidate = self._fresh(outbox)
            if candidate is None:
                return Outcome(GAVE_UP)
            try:
                response = self.post(self.base_url, self.config.token, candidate)
            except client.TransportError as exc:
                self._log(f"server unreachable (attempt {attempt}): {exc}")
                self.sleep(self.policy.backoff(attempt))
                continue
            receipt = receipt_of(response.body, candidate) if response.status == 202 else None
            if receipt is not None:
                return Outcome(ACCEPTED, candidate, receipt, response)
            outcome = self._handle(outbox, candidate, response, attempt)
            if outcome is not None:
                return outcome
        self._log(f"gave up on record {outbox['seq']} after {self.policy.attempts} attempts; it stays queued")
        return Outcome(GAVE_UP)

    def _fresh(self, outbox: dict[str, Any]) -> dict[str, Any] | None:
        candidate: dict[str, Any] = outbox["candidates"][-1]
        if candidate["issued_at"] + candidate["ttl_ms"] - EXPIRY_MARGIN_MS < self.now_ms():
            return self.add_candidate(outbox, candidate["payload"], candidate["prev_chain_hash"])
        return candidate

    def _handle(
        self, outbox: dict[str, Any], candidate: dict[str, Any], response: client.Response, attempt: int
    ) -> Outcome | None:
        """An outcome that ends this record's delivery, or ``None`` to send (a new candidate) again."""
        verdict = refusal.classify(response.status, response.code)
        what = refusal.describe(response.status, response.code)
        if verdict == refusal.TRANSIENT:
            if response.ok:
                self._log(f"the answer to record {outbox['seq']} ({what}) is not its receipt; not delivered")
            return self._back_off(outbox, response, attempt)
        if verdict == refusal.RESYNC:
            return self._resync(outbox, candidate, response)
        if verdict == refusal.RESIGN_CLOCK:
            return self._resign_clock(outbox, candidate, response)
        if verdict == refusal.RESIGN:
            fresh = self.add_candidate(outbox, candidate["payload"], candidate["prev_chain_hash"])
            return None if fresh is not None else Outcome(GAVE_UP)
        kind = REJECTED if verdict == refusal.RECORD else AGENT_STOPPED
        self._log(f"server refused record {outbox['seq']}: {what} {response.message}")
        return Outcome(kind, candidate, None, response)

    def _resign_clock(
        self, outbox: dict[str, Any], candidate: dict[str, Any], response: client.Response
    ) -> Outcome | None:
        outbox["clock_resigns"] = int(outbox.get("clock_resigns", 0)) + 1
        if outbox["clock_resigns"] > MAX_CLOCK_RESIGNS:
            return Outcome(REJECTED, candidate, None, response)
        if response.server_time is not None:
            self.clock_offset_ms = int(response.server_time * 1000) - time.time_ns() // 1_000_000
            self._log(f"the server's clock differs from ours by {self.clock_offset_ms} ms; re-signing")
        fresh = self.add_candidate(outbox, candidate["payload"], candidate["prev_chain_hash"])
        return None if fresh is not None else Outcome(GAVE_UP)

    def _back_off(self, outbox: dict[str, Any], response: client.Response, attempt: int) -> Outcome | None:
        wait = response.retry_after if response.retry_after is not None else self.policy.backoff(attempt)
        if wait > self.policy.max_wait:
            outbox["not_before"] = time.time() + wait
            state.save_outbox(self.dir, outbox)
            self._log(f"server asked to retry after {wait:.0f} s; record {outbox['seq']} stays queued")
            return Outcome(GAVE_UP)
        self.sleep(wait)
        return None

    def _resync(self, outbox: dict[str, Any], candidate: dict[str, Any], response: client.Response) -> Outcome | None:
        match = _EXPECTED.search(response.message)
        if match is None:
            self._log(f"PREV_HASH_MISMATCH without the expected hash: {response.message}")
            return Outcome(GAVE_UP)
        expected = match.group(1)
        for earlier in outbox["candidates"]:
            if earlier["chain_hash"] == expected:
                return Outcome(ACCEPTED, dict(earlier), None, response)  # accepted before; its answer was lost
        self._log(f"server chain head differs from ours; re-basing record {outbox['seq']} on it")
        fresh = self.add_candidate(outbox, candidate["payload"], expected)
        return None if fresh is not None else Outcome(GAVE_UP)
