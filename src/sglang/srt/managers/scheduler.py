"""The scheduler process: continuous batching over the paged KV cache.

:class:`Scheduler` is a documented hook target. Each loop iteration it
takes the requests that arrived, then either prefills the waiting requests
that fit (first come, first served, bounded by ``--max-running-requests``
and the free KV pages) or decodes every running request by one token. A
finished or aborted request's pages are freed at once; when a decode step
lacks pages, the newest running request goes back to the front of the
queue (its pages freed, its tokens kept) and is prefilled again later:
queued, never dropped.

With ``--tp-size`` above one, every rank runs the same loop on the same
inputs: rank 0 reads the engine's connection and broadcasts what arrived
over ``torch.distributed``, so all ranks form identical batches; requests
are always seeded, so all ranks sample identical tokens. Only rank 0 sends
outputs.

With ``--nnodes N`` the ranks are spread over N machines, ``tp_size / N``
each: node *n* runs ranks ``n * tp_size / N`` onwards, each on its local
device ``rank % (tp_size / N)``, and all of them meet at the TCP rendezvous
``--dist-init-addr`` (rank 0's machine). Only node 0 has the engine's
tokenizer front; the other nodes run their scheduler ranks and follow rank
0's broadcasts until it shuts them down.
"""

from __future__ import annotations

import collections
from typing import TYPE_CHECKING

from sglang.srt.managers.io_struct import (
    AbortRequest,
    RequestOutput,
    ShutdownRequest,
    StatsRequest,
    TokenizedRequest,
)
from sglang.srt.managers.schedule_batch import Req, ScheduleBatch
from sglang.srt.plugins import load_plugins

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from sglang.runtime.bootstrap import Worker
    from sglang.srt.managers.tp_worker import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs

__all__ = ["Scheduler", "run_scheduler_process"]


def _init_distributed(server_args: ServerArgs, rank: int) -> None:
    """Join the tensor-parallel process group (nothing to do for one rank)."""
    if server_args.tp_size == 1:
        return
    import datetime

    import torch.distributed as dist

    from sglang.srt.platforms import current_platform

    dist.init_process_group(
        backend=current_platform.get_torch_distributed_backend_str(),
        init_method=f"tcp://{server_args.dist_init_addr}",
        world_size=server_args.tp_size,
        rank=rank,
        timeout=datetime.timedelta(days=365),  # an idle server is not a failure
    )


def _leave_distributed(server_args: ServerArgs) -> None:
    """Leave the process group together, after a barrier.

    Rank 0 hosts the rendezvous store: no rank may still need it when rank 0
    exits (one that did would abort).
    """
    if server_args.tp_size == 1:
        return
    import torch.distributed as dist

    dist.barrier()
    dist.destroy_process_group()


class Scheduler:
    """One rank's scheduler: queues, batches, the model worker and the outputs.

    Args:
        server_args: The server arguments.
        tp_rank: This process's tensor-parallel rank.
        conn: The engine's connection (read and written by rank 0 only).

    Attributes:
        gpu_id: The local index of this rank's device (as upstream names it,
            whatever the device is).
    """

    def __init__(self, server_args: ServerArgs, tp_rank: int, conn: Connection | None) -> None:
        from sglang.srt.distributed import TensorParallel
        from sglang.srt.hf_tokenizer import HFTokenizer
        from sglang.srt.managers.tp_worker import TpModelWorker
        from sglang.srt.platforms import current_platform

        self.server_args = server_args
        self.tp = TensorParallel(tp_rank, server_args.tp_size, server_args.nnodes)
        self.gpu_id = self.tp.local_rank
        _init_distributed(server_args, tp_rank)
        current_platform.set_device(current_platform.get_device(self.tp.local_rank))
        self.conn = conn if tp_rank == 0 else None
        self.tp_worker = TpModelWorker(server_args, self.tp)
        self.tokenizer = HFTokenizer.from_pretrained(
            server_args.tokenizer_path or server_args.model_path
        )
        config = self.tp_worker.model_runner.config
        self.eos_token_ids = self.tokenizer.eos_token_ids or config.eos_token_ids
        self.page_size = server_args.page_size
        self.waiting: collections.deque[Req] = collections.deque()
        self.running: list[Req] = []
        self.stopping = False

    def info(self) -> dict[str, object]:
        """What the engine needs to check requests: limits and capacity."""
        return {
            "context_length": self.tp_worker.context_length,
            "max_total_tokens": self.tp_worker.max_total_tokens,
            "max_running_requests": self.tp_worker.max_running_requests,
            "free_pages": self.tp_worker.available_pages(),
            "total_pages": self.tp_worker.model_runner.allocator.num_pages,
            "waiting": len(self.waiting),
            "running": len(self.running),
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
        """Queue new requests, abort requests, or stop."""
        from sglang.srt.sampling.finish import OutputTracker
        from sglang.srt.sampling.sampler import new_generator

        for message in messages:
            if isinstance(message, TokenizedRequest):
                tracker = OutputTracker(
                    self.tokenizer,
                    message.params,
                    self.eos_token_ids,
                    prompt_tokens=len(message.input_ids),
                    context_length=self.tp_worker.context_length,
                )
                device = self.tp_worker.model_runner.device
                self.waiting.append(Req(message, tracker, new_generator(message.params, device)))
            elif isinstance(message, AbortRequest):
                self._abort(message.rid)
            elif isinstance(message, StatsRequest):
                if self.conn is not None:
                    self.conn.send(self.info())
            elif isinstance(message, ShutdownRequest):
                self.stopping = True

    def _abort(self, rid: str) -> None:
        for queue in (self.waiting, self.running):
            for req in list(queue):
                if req.rid == rid:
                    queue.remove(req)
                    req.tracker.abort("aborted by the client")
                    self.tp_worker.release(req.seq)
                    self._send([self._output(req, [], "", [])])

    # -- batches -----------------------------------------------------------------------

    def _pages_for(self, req: Req, extra: int) -> int:
        """Pages *req* still needs to hold its tokens plus *extra* more."""
        return -(-(len(req.seq.token_ids) + extra) // self.page_size) - len(req.seq.pages)

    def get_next_batch_to_run(self) -> ScheduleBatch | None:
        """Prefill the waiting requests that fit, else decode the running ones."""
        free = self.tp_worker.available_pages()
        room = self.tp_worker.max_running_requests - len(self.running)
        admitted: list[Req] = []
        while self.waiting and len(admitted) < room:
            need = self._pages_for(self.waiting[0], 0)
            if need > free:
                break  # first come, first served: nobody overtakes the head
            free -= need
            admitted.append(self.waiting.popleft())
        if admitted:
            return ScheduleBatch(tuple(admitted), is_prefill=True)
        while self.running and sum(self._pages_for(r, 1) for r in self.running) > free:
            newest = self.running.pop()
            free += len(newest.seq.pages)
            self.tp_worker.release(newest.seq)  # its tokens stay: it is prefilled again later
            self.waiting.appendleft(newest)
        if self.running:
            return ScheduleBatch(tuple(self.running), is_prefill=False)
        return None

    def run_batch(self, batch: ScheduleBatch) -> GenerationBatchResult:
        """Run one model step for *batch*."""
        return self.tp_worker.forward_batch_generation(batch)

    def process_batch_result(self, batch: ScheduleBatch, result: GenerationBatchResult) -> None:
        """Append each request's new token, finish requests, free their pages, send outputs."""
        if batch.is_prefill:
            self.running.extend(batch.reqs)
        outputs = []
        for req, token, logprob in zip(
            batch.reqs, result.next_token_ids, result.logprobs, strict=True
        ):
            req.seq.token_ids.append(token)
            text = req.tracker.append(token)
            logprobs = [logprob] if req.request.return_logprob else []
            if req.tracker.finished:
                self.running.remove(req)
                self.tp_worker.release(req.seq)
            outputs.append(self._output(req, [token], text, logprobs))
        self._send(outputs)

    def _output(self, req: Req, ids: list[int], text: str, logprobs: list[float]) -> RequestOutput:
        finish = req.tracker.finish
        return RequestOutput(
            rid=req.rid,
            output_ids=tuple(ids),
            text=text,
            logprobs=tuple(logprobs),
            finish_reason=None if finish is None else finish.to_dict(),
            prompt_tokens=req.prompt_tokens,
            completion_tokens=len(req.tracker.output_ids),
        )

    def _send(self, outputs: list[RequestOutput]) -> None:
        if self.conn is not None and outputs:
            self.conn.send(outputs)

    # -- the loop ------------------------------------------------------------------------

    def event_loop(self) -> None:
        """Serve until a :class:`ShutdownRequest` arrives."""
        while not self.stopping:
            idle = not self.waiting and not self.running
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
    load_plugins()
    scheduler = Scheduler(server_args, worker.rank, worker.conn)
    worker.ready(scheduler.info())
    scheduler.event_loop()
    _leave_distributed(server_args)
