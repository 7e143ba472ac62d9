"""Which waiting requests a prefill step takes: :class:`SchedulePolicy` and :class:`PrefillAdder`.

``--schedule-policy lpm`` (the default with the prefix cache) takes the
requests with the longest cached prefix first, so requests that share a
system prompt run while it is cached; ``fcfs`` takes them in arrival
order. Under ``lpm`` no request waits forever: one that others overtook in
:data:`STARVATION_ROUNDS` prefill rounds, and one that was retracted, go
first, in arrival order.

:class:`PrefillAdder` builds one prefill batch within three limits: the
prompt tokens one step may compute (``--chunked-prefill-size``, else
``--max-prefill-tokens``), the running slots (``--max-running-requests``)
and the KV pages (free pages plus what the cache can evict, less a
reserve for the running requests' future tokens). A prompt longer than
the chunk budget is admitted as the *chunked request*: all its pages are
taken at once, and each step computes one more chunk of it. Nobody
overtakes a request that lacks pages, so the one that was first in line
gets them as running requests finish.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence

from sglang.sdk.srt_runtime import PagedAllocator
from sglang.srt.managers.schedule_batch import Req
from sglang.srt.mem_cache.base_prefix_cache import BasePrefixCache

__all__ = [
    "IN_BATCH_PREFIX_TOKENS",
    "LPM_QUEUE_LIMIT",
    "STARVATION_ROUNDS",
    "AddResult",
    "PrefillAdder",
    "SchedulePolicy",
    "is_urgent",
]

STARVATION_ROUNDS = 8
"""Prefill rounds in which others may overtake a waiting request before it goes first."""

LPM_QUEUE_LIMIT = 128
"""With more requests waiting than this, ``lpm`` orders by arrival (matching each costs)."""

IN_BATCH_PREFIX_TOKENS = 32
"""A request sharing this many uncached tokens with one admitted in the same round waits a
round, to find them cached instead of computing them twice."""

CLIP_MAX_NEW_TOKENS = 4096
"""Future tokens reserved per request are estimated from at most this many of its remaining."""


def is_urgent(req: Req) -> bool:
    """Whether *req* goes first: it was retracted, or overtaken too often (starvation bound)."""
    return req.retracted_at is not None or req.passed_over >= STARVATION_ROUNDS


class SchedulePolicy:
    """Orders the waiting queue for one prefill round.

    Args:
        policy: ``lpm`` or ``fcfs``.
        cache: The prefix cache (``lpm`` reads prefix lengths from it).
    """

    def __init__(self, policy: str, cache: BasePrefixCache) -> None:
        self.policy = policy
        self.cache = cache

    def order(self, waiting: Sequence[Req]) -> list[Req]:
        """The waiting requests in the order this round considers them."""
        urgent = [r for r in waiting if is_urgent(r)]
        rest = [r for r in waiting if not is_urgent(r)]
        if self.policy == "lpm" and len(waiting) <= LPM_QUEUE_LIMIT:
            length = {r.rid: self.cache.match_prefix(r.seq.token_ids[:-1]).length for r in rest}
            rest.sort(key=lambda r: (-length[r.rid], r.arrival))
        else:
            rest.sort(key=lambda r: r.arrival)
        return sorted(urgent, key=lambda r: r.arrival) + rest

    @staticmethod
    def passed_over(waiting: Iterable[Req], admitted: Sequence[Req]) -> None:
        """Count a round against each request still waiting that a later arrival overtook."""
        if not admitted:
            return
        latest = max(r.arrival for r in admitted)
        for req in waiting:
            if req.arrival < latest:
                req.passed_over += 1


class AddResult(enum.Enum):
    """What :meth:`PrefillAdder.add` did with a request."""

    ADDED = "added"
    """Admitted; this step computes its whole (remaining) prompt."""

    CHUNKED = "chunked"
    """Admitted as the chunked request; this step computes its first chunk."""

    DEFERRED = "deferred"
    """Skipped this round: a request admitted now computes its prefix."""

    FULL = "full"
    """Not admitted, and nobody after it will be: no budget, slot or pages left."""


def _pages(tokens: int, page_size: int) -> int:
    return -(-tokens // page_size)


class PrefillAdder:
    """Builds one prefill batch (see the module docstring).

    Args:
        cache: The prefix cache.
        allocator: The page allocator.
        token_budget: Prompt tokens the step may compute.
        chunking: Whether a prompt longer than the budget may be chunked.
        slots: Requests that may still be admitted (running slots left).
        reserved_tokens: Tokens to keep for the running requests' future output.
        new_token_ratio: The share of a request's remaining ``max_new_tokens``
            expected to be generated (the reserve's estimate).
        running: Whether any request runs now (else the first admission
            needs no reserve, so one request always fits an idle pool).
    """

    def __init__(
        self,
        cache: BasePrefixCache,
        allocator: PagedAllocator,
        *,
        token_budget: int,
        chunking: bool,
        slots: int,
        reserved_tokens: int,
        new_token_ratio: float,
        running: bool,
    ) -> None:
        self.cache = cache
        self.allocator = allocator
        self.page_size = allocator.page_size
        self.budget = token_budget
        self.chunking = chunking
        self.slots = slots
        self.reserved = reserved_tokens
        self.ratio = new_token_ratio
        self.running = running
        self.reqs: list[Req] = []
        self.chunked_req: Req | None = None

    def _reserve_for(self, req: Req) -> int:
        return int(min(req.remaining_new_tokens, CLIP_MAX_NEW_TOKENS) * self.ratio)

    def add_chunked(self, req: Req) -> None:
        """Continue the chunked request's prefill with its next chunk (its pages are taken)."""
        done = req.seq.cached_len
        remaining = len(req.seq.token_ids) - done
        step = min(remaining, max(self.budget, 1))
        req.seq.fill_len = done + step if step < remaining else None
        self.budget -= step
        self.slots -= 1
        self.reqs.append(req)
        if req.seq.fill_len is not None:
            self.chunked_req = req

    def _shares_with_admitted(self, req: Req, cached: int) -> bool:
        """Whether a request admitted now computes a good part of *req*'s uncached prompt.

        That is :data:`IN_BATCH_PREFIX_TOKENS` tokens, or the whole rest of
        the prompt (a sample of the same prompt, ``n > 1``) when it spans a page.
        """
        ids = req.seq.token_ids
        end = min(cached + IN_BATCH_PREFIX_TOKENS, req.prefix_limit)
        if end - cached < (IN_BATCH_PREFIX_TOKENS if end < len(ids) - 1 else self.page_size):
            return False
        head = ids[:end]
        return any(other.seq.token_ids[:end] == head for other in self.reqs)

    def add(self, req: Req, *, defer_shared: bool = True) -> AddResult:
        """Admit *req* if the batch has room for it (see :class:`AddResult`)."""
        if self.slots <= 0 or self.budget <= 0:
            return AddResult.FULL
        ids = req.seq.token_ids
        match = self.cache.match_prefix(ids[: req.prefix_limit])  # computes >= 1 token
        if defer_shared and self._shares_with_admitted(req, match.length):
            return AddResult.DEFERRED
        extend = len(ids) - match.length
        chunked = extend > self.budget
        if chunked and not self.chunking and (self.reqs or self.chunked_req):
            return AddResult.FULL  # a long prompt without chunking runs alone
        if chunked and self.chunking and self.chunked_req is not None:
            return AddResult.FULL  # one chunked request at a time
        self.cache.lock(match.node)
        need = _pages(len(ids), self.page_size) - len(match.pages)
        free = self.allocator.available_pages()
        room = free + self.cache.evictable_pages
        reserve = _pages(self.reserved + self._reserve_for(req), self.page_size)
        idle = not self.running and not self.reqs
        if need + (0 if idle else reserve) > room:
            self.cache.unlock(match.node)
            return AddResult.FULL
        if need > free:
            self.cache.evict(need - free)
        pages = self.allocator.alloc(need)
        if pages is None:  # the allocator and the cache disagree: an accounting bug
            self.cache.unlock(match.node)
            raise RuntimeError(f"the allocator refused {need} pages with {room} available")
        seq = req.seq
        seq.pages = [*match.pages, *pages]
        seq.cached_len, seq.shared_pages = match.length, len(match.pages)
        seq.cache_node = match.node
        if req.cached_tokens is None:
            req.cached_tokens = min(match.length, req.prompt_tokens)
        self.reserved += self._reserve_for(req)
        self.slots -= 1
        self.reqs.append(req)
        if chunked and self.chunking:
            seq.fill_len = match.length + self.budget
            self.budget = 0
            self.chunked_req = req
            return AddResult.CHUNKED
        self.budget -= extend
        return AddResult.ADDED
