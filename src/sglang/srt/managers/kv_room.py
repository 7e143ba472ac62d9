"""KV pages for the running requests: :class:`KVRoom` makes room, reserves it, and checks it.

Before a decode step every running request needs a slot for one more
token. :meth:`KVRoom.make_room` says how to get the pages when too few are
free, in this order: evict unlocked cached pages (least recently used
first); retract the newest running request that made progress since it
was last retracted; retract the chunked request; wait for the chunked
request to finish its prefill (its pages are all taken already, so it
always can); and when one request alone fills the pool, finish it with
``finish_reason`` ``length``. Every branch either makes progress or frees
pages, so the scheduler finishes every admitted request.

Admission keeps a reserve for the running requests' future tokens:
:attr:`KVRoom.new_token_ratio` of what each may still generate, as
upstream SGLang estimates it. The ratio starts at ``0.7 x
--schedule-conservativeness``, decays a little with every decode step,
and goes back up after a retraction.

The accounting invariant, checked by :meth:`KVRoom.check` when the
scheduler is idle and, with ``SGLANG_CHECK_KV_ACCOUNTING=1``, after every
step: free pages + pages only the cache holds + pages requests hold (their
own, and the cached ones they lock) = the pool.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sglang.sdk.srt_runtime import PagedAllocator
from sglang.srt.managers.schedule_batch import Req
from sglang.srt.managers.schedule_policy import CLIP_MAX_NEW_TOKENS
from sglang.srt.mem_cache.base_prefix_cache import BasePrefixCache, KVAccountingError

__all__ = ["KVRoom", "RoomVerdict"]

_INIT_RATIO = 0.7
_MIN_RATIO_SHARE = 0.14
_DECAY_STEPS = 600


@dataclass(frozen=True)
class RoomVerdict:
    """What the scheduler must do before it can decode (all empty: decode now).

    Attributes:
        retract: Put this request back in the queue (its work stays cached).
        finish: End this request at the capacity: it alone fills the pool.
        wait: Run the chunked request's prefill first; decode afterwards.
    """

    retract: Req | None = None
    finish: Req | None = None
    wait: bool = False


_DECODE = RoomVerdict()


class KVRoom:
    """Page bookkeeping of one scheduler (see the module docstring).

    Args:
        cache: The prefix cache.
        allocator: The page allocator.
        conservativeness: ``--schedule-conservativeness``.
    """

    def __init__(
        self, cache: BasePrefixCache, allocator: PagedAllocator, conservativeness: float
    ) -> None:
        self.cache = cache
        self.allocator = allocator
        self.page_size = allocator.page_size
        self.init_ratio = min(1.0, _INIT_RATIO * conservativeness)
        self.min_ratio = self.init_ratio * _MIN_RATIO_SHARE
        self.new_token_ratio = self.init_ratio

    def decoded(self) -> None:
        """One decode step runs: expect a little less of the future."""
        step = (self.init_ratio - self.min_ratio) / _DECAY_STEPS
        self.new_token_ratio = max(self.min_ratio, self.new_token_ratio - step)

    def retracted(self) -> None:
        """A request was retracted: reserve as much as at the start again."""
        self.new_token_ratio = self.init_ratio

    def reserved_tokens(self, running: Iterable[Req]) -> int:
        """Tokens to keep free for what *running* requests will still generate."""
        ratio = self.new_token_ratio
        return sum(int(min(r.remaining_new_tokens, CLIP_MAX_NEW_TOKENS) * ratio) for r in running)

    def token_usage(self) -> float:
        """The share of the pool that requests use (cached-only pages count as free)."""
        total = self.allocator.num_pages
        used = total - self.allocator.available_pages() - self.cache.evictable_pages
        return used / total

    def decode_pages(self, running: Sequence[Req]) -> int:
        """The pages one more token of every running request takes."""
        size = self.page_size
        return sum(max(0, -(-len(r.seq.token_ids) // size) - len(r.seq.pages)) for r in running)

    def _missing(self, running: Sequence[Req]) -> int:
        return self.decode_pages(running) - self.allocator.available_pages()

    def make_room(self, running: Sequence[Req], chunked: Req | None) -> RoomVerdict:
        """Free pages for one more token of every running request, or say what to do first."""
        missing = self._missing(running)
        if missing <= 0:
            return _DECODE
        self.cache.evict(missing)
        if self._missing(running) <= 0:
            return _DECODE
        progressed = [r for r in running if r.may_retract]
        if len(running) > 1 and progressed:
            return RoomVerdict(retract=max(progressed, key=lambda r: r.arrival))
        if chunked is not None:
            return RoomVerdict(retract=chunked) if chunked.may_retract else RoomVerdict(wait=True)
        if len(running) > 1:
            return RoomVerdict(retract=max(running, key=lambda r: r.arrival))
        return RoomVerdict(finish=running[0])

    def check(self, running: Sequence[Req], chunked: Req | None, waiting: Iterable[Req]) -> None:
        """Prove that every page is free, cached or held, exactly once.

        Raises:
            KVAccountingError: The pages do not add up (the message has the counts).
        """
        self.cache.check()
        holders = [*running, *([chunked] if chunked is not None else [])]
        own = [p for r in holders for p in r.seq.pages[r.seq.shared_pages :]]
        shared = {p for r in holders for p in r.seq.pages[: r.seq.shared_pages]}
        free = self.allocator.available_pages()
        evictable, protected = self.cache.evictable_pages, self.cache.protected_pages
        total = self.allocator.num_pages
        problems = []
        if free + evictable + protected + len(own) != total:
            problems.append(
                f"{free} free + {evictable} cached + {protected} cached and locked + "
                f"{len(own)} held by requests != {total} pages"
            )
        if len(set(own)) != len(own):
            problems.append("a page is held by two requests")
        if len(shared) != protected:
            problems.append(f"requests lock {len(shared)} cached pages, the cache {protected}")
        idle = [r.rid for r in waiting if r.seq.pages]
        if idle:
            problems.append(f"waiting requests hold pages: {', '.join(idle)}")
        if problems:
            raise KVAccountingError("KV page accounting broken: " + "; ".join(problems))
