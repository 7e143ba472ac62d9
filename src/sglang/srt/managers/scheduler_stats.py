"""The scheduler's counters and its periodic batch lines: :class:`SchedulerStats`.

Rank 0 logs, at INFO on ``sglang.srt.managers.scheduler``, one line per
prefill batch and one per ``--decode-log-interval`` decode steps, in
upstream SGLang's words::

    Prefill batch. #new-seq: 2, #new-token: 96, #cached-token: 160, token usage: 0.31, \
#running-req: 3, #queue-req: 0
    Decode batch. #running-req: 5, #token: 1404, token usage: 0.34, gen throughput \
(token/s): 212.40, #queue-req: 0

The totals (:meth:`SchedulerStats.totals`) feed ``/metrics``:
``sglang:cache_hit_rate`` is the share of admitted prompt tokens that the
prefix cache held, since the server started.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from sglang.srt.managers.schedule_batch import Req, ScheduleBatch
    from sglang.srt.server_args import ServerArgs

__all__ = ["SchedulerStats"]

_log = logging.getLogger("sglang.srt.managers.scheduler")


class SchedulerStats:
    """Counts admitted and cached prompt tokens; logs the batch lines on rank 0.

    Args:
        server_args: The server arguments (``--decode-log-interval``).
        leader: Whether this rank logs.
    """

    def __init__(self, server_args: ServerArgs, leader: bool) -> None:
        self.interval = max(1, server_args.decode_log_interval)
        self.leader = leader
        self.prompt_tokens = 0
        self.cached_tokens = 0
        self.generated_tokens = 0
        self._decodes = 0
        self._since = time.perf_counter()
        self._tokens_since = 0

    def admitted(self, req: Req) -> None:
        """Count a request admitted for the first time."""
        self.prompt_tokens += req.prompt_tokens
        self.cached_tokens += req.cached_tokens or 0

    def totals(self) -> dict[str, object]:
        """Counters since start: prompt and cached tokens, the hit rate, tokens generated."""
        rate = self.cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0
        return {
            "prompt_tokens_total": self.prompt_tokens,
            "cached_tokens_total": self.cached_tokens,
            "cache_hit_rate": rate,
            "generated_tokens_total": self.generated_tokens,
        }

    def log_prefill(
        self, batch: ScheduleBatch, running: Sequence[Req], waiting: int, token_usage: float
    ) -> None:
        """Log a prefill batch (new sequences, computed and cached tokens, the queues)."""
        self.generated_tokens += len(batch.sampling_reqs)
        if not (self.leader and _log.isEnabledFor(logging.INFO)):
            return
        new = sum(r.seq.target_len - r.seq.cached_len for r in batch.reqs)
        cached = sum(r.seq.cached_len for r in batch.reqs)
        _log.info(
            "Prefill batch. #new-seq: %d, #new-token: %d, #cached-token: %d, token usage: "
            "%.2f, #running-req: %d, #queue-req: %d",
            len(batch.reqs),
            new,
            cached,
            token_usage,
            len(running),
            waiting,
        )

    def log_decode(
        self, batch: ScheduleBatch, running: Sequence[Req], waiting: int, token_usage: float
    ) -> None:
        """Count a decode step; every ``--decode-log-interval`` steps, log the batch line."""
        self.generated_tokens += len(batch.reqs)
        self._tokens_since += len(batch.reqs)
        self._decodes += 1
        if self._decodes % self.interval:
            return
        now = time.perf_counter()
        throughput = self._tokens_since / max(now - self._since, 1e-9)
        self._since, self._tokens_since = now, 0
        if not (self.leader and _log.isEnabledFor(logging.INFO)):
            return
        _log.info(
            "Decode batch. #running-req: %d, #token: %d, token usage: %.2f, gen throughput "
            "(token/s): %.2f, #queue-req: %d",
            len(running),
            sum(len(r.seq.token_ids) for r in running),
            token_usage,
            throughput,
            waiting,
        )
