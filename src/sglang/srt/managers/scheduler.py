"""The scheduler process: continuous batching over the paged KV cache and its prefix cache.

:class:`Scheduler` is a documented hook target. Each loop iteration it
takes the requests that arrived, then runs one step: a prefill of waiting
requests (each reuses the longest prefix the radix cache holds and
computes the rest, a long prompt a chunk per step) or a decode of every
running request by one token. While both kinds of work exist the steps
alternate, so a long prompt arriving never freezes the streams already
running. Finished, aborted and retracted requests leave what they
computed in the cache; when pages run short, unlocked cached pages are
evicted first, then the newest running request is retracted (its tokens
kept, its work cached) and prefilled again later: queued, never dropped.
A request that alone fills the KV cache ends with ``finish_reason``
``length``.

With ``--tp-size`` above one, every rank runs the same loop on the same
inputs: rank 0 reads the engine's connection and broadcasts what arrived
over ``torch.distributed``, so all ranks form identical batches and
identical prefix trees; requests are always seeded, so all ranks sample
identical tokens. Only rank 0 sends outputs and logs.

With ``--nnodes N`` the ranks are spread over N machines, ``tp_size / N``
each: node *n* runs ranks ``n * tp_size / N`` onwards, each on its local
device ``rank % (tp_size / N)``, and all of them meet at the TCP rendezvous
``--dist-init-addr`` (rank 0's machine). Only node 0 has the engine's
tokenizer front; the other nodes run their scheduler ranks and follow rank
0's broadcasts until it shuts them down.
"""

from __future__ import annotations

import collections
import logging
import os
from typing import TYPE_CHECKING

from sglang.runtime.environment import read_flag
from sglang.sdk.constants import ENV_CHECK_KV_ACCOUNTING
from sglang.srt.managers.io_struct import (
    AbortRequest,
    ControlReply,
    FlushCacheRequest,
    RequestOutput,
    ShutdownRequest,
    StatsRequest,
    TokenizedRequest,
)
from sglang.srt.managers.kv_room import KVRoom, RoomVerdict
from sglang.srt.managers.schedule_batch import Req, ScheduleBatch
from sglang.srt.managers.schedule_policy import (
    AddResult,
    PrefillAdder,
    SchedulePolicy,
    is_urgent,
)
from sglang.srt.managers.scheduler_output import GrammarCache, request_output
from sglang.srt.managers.scheduler_stats import SchedulerStats
from sglang.srt.plugins import load_plugins

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from sglang.runtime.bootstrap import Worker
    from sglang.srt.managers.tp_worker import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs

__all__ = ["Scheduler", "run_scheduler_process"]

_log = logging.getLogger(__name__)


class Scheduler:
    """One rank's scheduler: queues, the prefix cache, batches, the model worker and outputs.

    Args:
        server_args: The server arguments.
        tp_rank: This process's tensor-parallel rank.
        conn: The engine's connection (read and written by rank 0 only).

    Attributes:
        gpu_id: The local index of this rank's device (as upstream names it,
            whatever the device is).
        tree_cache: The prefix cache: a
            :class:`~sglang.srt.mem_cache.radix_cache.RadixCache`, or a
            :class:`~sglang.srt.mem_cache.chunk_cache.ChunkCache` with
            ``--disable-radix-cache``.
        chunked_req: The request whose prompt is being prefilled a chunk at a time.
    """

    def __init__(self, server_args: ServerArgs, tp_rank: int, conn: Connection | None) -> None:
        from sglang.srt.distributed import TensorParallel, init_distributed
        from sglang.srt.hf_tokenizer import HFTokenizer
        from sglang.srt.managers.tp_worker import TpModelWorker
        from sglang.srt.mem_cache.chunk_cache import ChunkCache
        from sglang.srt.mem_cache.radix_cache import RadixCache
        from sglang.srt.platforms import current_platform

        self.server_args = server_args
        self.tp = TensorParallel(tp_rank, server_args.tp_size, server_args.nnodes)
        self.gpu_id = self.tp.local_rank
        init_distributed(server_args, tp_rank)
        current_platform.set_device(current_platform.get_device(self.tp.local_rank))
        self.conn = conn if tp_rank == 0 else None
        self.tp_worker = TpModelWorker(server_args, self.tp)
        self.tokenizer = HFTokenizer.from_pretrained(
            server_args.tokenizer_path or server_args.model_path
        )
        config = self.tp_worker.model_runner.config
        self.eos_token_ids = self.tokenizer.eos_token_ids or config.eos_token_ids
        self.page_size = server_args.page_size
        self.allocator = self.tp_worker.model_runner.allocator
        cache_cls = ChunkCache if server_args.disable_radix_cache else RadixCache
        self.tree_cache = cache_cls(self.allocator)
        self.policy = SchedulePolicy(server_args.schedule_policy or "fcfs", self.tree_cache)
        self.room = KVRoom(self.tree_cache, self.allocator, server_args.schedule_conservativeness)
        self.waiting: collections.deque[Req] = collections.deque()
        self.running: list[Req] = []
        self.chunked_req: Req | None = None
        self.stats = SchedulerStats(server_args, tp_rank == 0)
        self.grammars = GrammarCache(
            server_args, self.tokenizer, config.vocab_size, self.eos_token_ids
        )
        self.check_every_step = read_flag(
            ENV_CHECK_KV_ACCOUNTING, os.environ.get(ENV_CHECK_KV_ACCOUNTING)
        )
        self._arrivals = 0
        self._last_was_prefill = False
        self.stopping = False

    def info(self) -> dict[str, object]:
        """What the engine needs to check requests, and the state the metrics read."""
        return {
            "context_length": self.tp_worker.context_length,
            "dtype": self.tp_worker.dtype,
            "max_total_tokens": self.tp_worker.max_total_tokens,
            "max_running_requests": self.tp_worker.max_running_requests,
            "page_size": self.page_size,
            "free_pages": self.allocator.available_pages(),
            "total_pages": self.allocator.num_pages,
            "cached_pages": self.tree_cache.evictable_pages + self.tree_cache.protected_pages,
            "evictable_pages": self.tree_cache.evictable_pages,
            "token_usage": self.room.token_usage(),
            "waiting": len(self.waiting),
            "running": len(self.running) + (self.chunked_req is not None),
            **self.stats.totals(),
        }

    # -- input -------------------------------------------------------------------------

    def recv_requests(self, *, block: bool) -> list[object]:
        """Return what arrived (rank 0 reads; other ranks receive its broadcast)."""
        messages: list[object] = []
        if self.conn is not None:
            if block:
                messages.append(self.conn.recv())
            while self.conn.poll():
                messages.append(self.conn.recv())
        if self.tp.size > 1:
            import torch.distributed as dist

            box: list[object] = [messages]
            dist.broadcast_object_list(box, src=0)
            received = box[0]
            assert isinstance(received, list)
            messages = received
        return messages

    def process_input(self, messages: list[object]) -> None:
        """Queue new requests, abort requests, answer control messages, or stop."""
        for message in messages:
            if isinstance(message, TokenizedRequest):
                self.waiting.append(self._new_req(message))
            elif isinstance(message, AbortRequest):
                self._abort(message.rid)
            elif isinstance(message, StatsRequest):
                self._reply(message.token, self.info())
            elif isinstance(message, FlushCacheRequest):
                self._reply(message.token, self.flush_cache())
            elif isinstance(message, ShutdownRequest):
                self.stopping = True

    def _new_req(self, message: TokenizedRequest) -> Req:
        from sglang.srt.sampling.finish import OutputTracker
        from sglang.srt.sampling.penaltylib import Penalizer
        from sglang.srt.sampling.sampler import new_generator

        params = message.params
        tracker = OutputTracker(
            self.tokenizer,
            params,
            self.eos_token_ids,
            prompt_tokens=len(message.input_ids),
            context_length=self.tp_worker.context_length,
        )
        device = self.tp_worker.model_runner.device
        generator = new_generator(params, device)
        penalizer = None
        if params.penalized:
            stop = {*self.eos_token_ids, *params.stop_token_ids}
            penalizer = Penalizer(params, message.input_ids, stop, device)
        grammar = None
        if params.grammar is not None and params.max_new_tokens > 0:
            grammar = self.grammars.get(*params.grammar)
        self._arrivals += 1
        return Req(
            message, tracker, generator, self._arrivals, penalizer=penalizer, grammar=grammar
        )

    def _reply(self, token: int, body: dict[str, object]) -> None:
        if self.conn is not None:
            self.conn.send(ControlReply(token, body))

    def flush_cache(self) -> dict[str, object]:
        """Empty the prefix cache, unless a request is running or waiting."""
        busy = len(self.running) + len(self.waiting) + (self.chunked_req is not None)
        if busy:
            return {
                "success": False,
                "message": f"the prefix cache was not flushed: {busy} "
                f"request{'' if busy == 1 else 's'} running or waiting; flush it when the "
                "server is idle",
            }
        self.tree_cache.reset()
        return {"success": True, "message": "Cache flushed."}

    def _abort(self, rid: str) -> None:
        for req in list(self.waiting):
            if req.rid == rid:
                self.waiting.remove(req)
                self._end(req, "aborted by the client")
        for req in [*self.running, *([self.chunked_req] if self.chunked_req else [])]:
            if req.rid == rid:
                self._release(req)
                self._end(req, "aborted by the client")

    def _end(self, req: Req, message: str) -> None:
        req.tracker.abort(message)
        self._send([request_output(req, [], "", [])])

    def _release(self, req: Req) -> None:
        """Take *req* out of the running set; leave its work in the cache, free the rest."""
        if req is self.chunked_req:
            self.chunked_req = None
        else:
            self.running.remove(req)
        req.seq.fill_len = None
        self.tree_cache.cache_finished_req(req.seq)

    # -- batches -----------------------------------------------------------------------

    def get_next_batch_to_run(self) -> ScheduleBatch | None:
        """Prefill waiting requests (or the next chunk), else decode; alternate when both wait.

        With ``--enable-mixed-chunk`` the running requests decode in the
        prefill's step instead, when their next tokens fit as they are.
        """
        mixed = self.server_args.enable_mixed_chunk and self.running
        if mixed and (self.waiting or self.chunked_req):
            ready = self.room.make_room(self.running, self.chunked_req) == RoomVerdict()
            batch = self._prefill_batch(decoding=tuple(self.running)) if ready else None
            if batch is not None:
                return batch
        batch = None
        if self._last_was_prefill:
            batch = self._decode_batch()
        if batch is None:
            batch = self._prefill_batch()
        if batch is None and not self._last_was_prefill:
            batch = self._decode_batch()
        self._last_was_prefill = batch is not None and batch.is_prefill
        return batch

    def _prefill_batch(self, decoding: tuple[Req, ...] = ()) -> ScheduleBatch | None:
        """The next prefill; *decoding* requests ride along, one token each (a mixed step)."""
        if not self.waiting and self.chunked_req is None:
            return None
        args = self.server_args
        chunk = args.chunked_prefill_size or -1
        decode_pages = self.room.decode_pages(decoding)
        adder = PrefillAdder(
            self.tree_cache,
            self.allocator,
            token_budget=(chunk if chunk > 0 else args.max_prefill_tokens) - len(decoding),
            chunking=chunk > 0,
            slots=self.tp_worker.max_running_requests - len(self.running),
            reserved_tokens=self.room.reserved_tokens(self.running) + decode_pages * self.page_size,
            new_token_ratio=self.room.new_token_ratio,
            running=bool(self.running),
        )
        if self.chunked_req is not None:
            adder.add_chunked(self.chunked_req)
        cache_on = not args.disable_radix_cache
        for req in self.policy.order(self.waiting):
            result = adder.add(req, defer_shared=cache_on and not is_urgent(req))
            if result is AddResult.FULL:
                break
        admitted = [r for r in adder.reqs if r is not self.chunked_req]
        for req in admitted:
            self.waiting.remove(req)
            if req.retracted_at is None:
                self.stats.admitted(req)
        self.policy.passed_over(self.waiting, admitted)
        self.chunked_req = adder.chunked_req
        if not adder.reqs:
            return None
        batch = ScheduleBatch(
            (*adder.reqs, *decoding), True, adder.chunked_req, decode_reqs=decoding
        )
        if decoding:
            self.room.decoded()
        self.stats.log_prefill(batch, self.running, len(self.waiting), self.room.token_usage())
        return batch

    def _decode_batch(self) -> ScheduleBatch | None:
        """Decode every running request, after making room for one more token each."""
        while self.running:
            verdict = self.room.make_room(self.running, self.chunked_req)
            if verdict.retract is not None:
                victim = verdict.retract
                self._release(victim)
                victim.retracted_at = victim.output_len
                self.waiting.appendleft(victim)
                self.room.retracted()
                _log.debug(
                    "retracted %s at output %d to make room for the running requests",
                    victim.rid,
                    victim.output_len,
                )
            elif verdict.finish is not None:
                self._finish_at_capacity(verdict.finish)
            elif verdict.wait:
                return None  # the chunked request holds the pages: let it finish its prefill
            else:
                self.room.decoded()
                return ScheduleBatch(tuple(self.running), is_prefill=False)
        return None

    def _finish_at_capacity(self, req: Req) -> None:
        total = self.allocator.num_pages * self.page_size
        _log.warning(
            "request %s alone fills the KV cache (%d tokens: prompt %d + output %d, capacity "
            "%d); it ends with finish_reason 'length'. Raise --max-total-tokens for longer "
            "outputs",
            req.rid,
            len(req.seq.token_ids),
            req.prompt_tokens,
            req.output_len,
            total,
        )
        text = req.tracker.finish_length()
        self._release(req)
        self._send([request_output(req, [], text, [])])

    def run_batch(self, batch: ScheduleBatch) -> GenerationBatchResult:
        """Run one model step for *batch*."""
        return self.tp_worker.forward_batch_generation(batch)

    def process_batch_result(self, batch: ScheduleBatch, result: GenerationBatchResult) -> None:
        """Append each request's new token, finish requests, free their pages, send outputs."""
        if batch.is_prefill:
            for req, logits in zip(batch.prefill_reqs, result.input_logits, strict=False):
                self.tree_cache.cache_unfinished_req(req.seq)  # shareable from now on
                if logits is not None and req.input_logprobs is not None:
                    req.input_logprobs.add(*logits)
            self.running.extend(r for r in batch.sampling_reqs if r not in self.running)
        outputs = []
        tokens = result.next_token_ids
        for i, (req, token) in enumerate(zip(batch.sampling_reqs, tokens, strict=True)):
            if req.tracker.room == 0:  # max_new_tokens 0: the prefill was all
                req.tracker.finish_empty()
                self._release(req)
                outputs.append(request_output(req, [], "", []))
                continue
            text = req.append_token(token)
            if req.tracker.finished:
                self._release(req)
            outputs.append(request_output(req, [token], text, [result.logprobs[i]], result, i))
        self._send(outputs)
        if not batch.is_prefill:
            self.stats.log_decode(batch, self.running, len(self.waiting), self.room.token_usage())
        if self.check_every_step:
            self.room.check(self.running, self.chunked_req, self.waiting)

    def _send(self, outputs: list[RequestOutput]) -> None:
        if self.conn is not None and outputs:
            self.conn.send(outputs)

    # -- the loop ------------------------------------------------------------------------

    @property
    def idle(self) -> bool:
        """Whether no request is waiting or running."""
        return not self.waiting and not self.running and self.chunked_req is None

    def event_loop(self) -> None:
        """Serve until a :class:`ShutdownRequest` arrives."""
        while not self.stopping:
            idle = self.idle
            if idle:  # a cheap moment to prove no page was lost
                self.room.check(self.running, self.chunked_req, self.waiting)
            self.process_input(self.recv_requests(block=idle))
            batch = self.get_next_batch_to_run()
            if batch is not None:
                self.process_batch_result(batch, self.run_batch(batch))


def run_scheduler_process(server_args: ServerArgs, worker: Worker) -> None:
    """The scheduler process's entry point (the spawn target): plugins, scheduler, loop.

    ``load_plugins()`` runs before ``Scheduler()`` (the bootstrap has run it
    already; it runs once per process), so hooks on the scheduler and the
    model worker are in place when they are built.
    """
    from sglang.srt.distributed import leave_distributed

    load_plugins()
    scheduler = Scheduler(server_args, worker.rank, worker.conn)
    worker.ready(scheduler.info())
    scheduler.event_loop()
    leave_distributed(server_args)
