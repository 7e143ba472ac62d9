"""The offline API: :class:`Engine` (also ``sglang.Engine``).

The engine tokenizes in the calling process and runs one scheduler process
per tensor-parallel rank on this machine, started through the shared spawn
bootstrap: each child initialises the platform, loads the plugins and
applies their hooks before it materialises the server arguments and calls
the (possibly hooked) :func:`~sglang.srt.managers.scheduler.run_scheduler_process`.
A receiver thread hands each output to the request it belongs to, so
several threads may generate at once; a scheduler that fails or dies makes
every waiting call raise with its error.

With ``--nnodes N``, ``Engine(...)`` runs on every node with its
``--node-rank``: each starts the ``tp_size / N`` scheduler ranks of its node.
As upstream, only node 0 has the tokenizer front; on another node the
constructor blocks, serving its ranks, until node 0 shuts them down (the
object then only supports :meth:`Engine.shutdown`).
"""

from __future__ import annotations

import itertools
import queue
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sglang.srt.entrypoints.engine_launch import EXIT_GRACE, follow_node_zero, launch_subprocesses
from sglang.srt.entrypoints.outputs import result_dict, stream_chunk_dict
from sglang.srt.entrypoints.validation import InvalidRequestError, PromptItem, split_prompts
from sglang.srt.managers.io_struct import (
    AbortRequest,
    ControlReply,
    FlushCacheRequest,
    RequestOutput,
    ShutdownRequest,
    StatsRequest,
    TokenizedRequest,
)
from sglang.srt.managers.tokenizer_manager import LogprobOptions, TokenizerManager
from sglang.srt.server_args import ServerArgs

if TYPE_CHECKING:
    from sglang.srt.hf_tokenizer import HFTokenizer

__all__ = ["Engine", "FlushCacheError", "OutputSink"]

OutputSink = Callable[["RequestOutput | BaseException"], object]
"""Receives a request's outputs on the engine's receiver thread (see :meth:`Engine.submit`)."""


class FlushCacheError(RuntimeError):
    """The prefix cache was not flushed: requests are running or waiting."""


class Engine:
    """The reference SRT runtime, offline: ``Engine(model_path=...).generate(...)``.

    Args:
        server_args: A ready :class:`ServerArgs` (then no keyword arguments).
        **kwargs: :class:`ServerArgs` fields, for example ``model_path=``,
            ``tp_size=``, ``max_total_tokens=``.

    Raises:
        ValueError: A bad server argument (the message names the flag), or
            a model path that is neither a model directory nor in the local
            Hugging Face cache.
        RuntimeError: The platform cannot run the runtime.
        sglang.runtime.bootstrap.WorkerFailedError: A scheduler failed to start
            (its error and traceback are in the message).

    Attributes:
        last_receive_time: ``time.monotonic()`` when the scheduler last sent
            anything (an output or a reply): its heartbeat, which
            ``/health_generate`` reads.
    """

    def __init__(self, server_args: ServerArgs | None = None, **kwargs: Any) -> None:
        from sglang.srt.hf_tokenizer import HFTokenizer

        self.server_args = server_args if server_args is not None else ServerArgs(**kwargs)
        self._group, infos = launch_subprocesses(self.server_args)
        self._lock = threading.Lock()
        self._closed = False
        if self.server_args.node_rank > 0:  # scheduler ranks only: no tokenizer front
            self._closed = True
            follow_node_zero(self._group)
            return
        self._leader = min(infos)
        info = infos[self._leader]
        assert isinstance(info, dict)
        self.context_length = int(info["context_length"])
        self.max_total_tokens = int(info["max_total_tokens"])
        self.tokenizer: HFTokenizer = HFTokenizer.from_pretrained(
            self.server_args.tokenizer_path or self.server_args.model_path
        )
        self.tokenizer_manager = TokenizerManager(
            self.tokenizer,
            context_length=self.context_length,
            max_total_tokens=self.max_total_tokens,
            grammar_backend=self.server_args.grammar_backend,
            new_rid=lambda: uuid.uuid4().hex,
        )
        self._sinks: dict[str, OutputSink] = {}
        self.last_receive_time = time.monotonic()
        self._send_lock = threading.Lock()  # a Connection is not safe for concurrent sends
        self._tokens = itertools.count(1)
        self._replies: dict[int, queue.Queue[dict[str, object] | BaseException]] = {}
        self._failure: BaseException | None = None
        self._receiver = threading.Thread(
            target=self._receive, name="sglang-engine-receiver", daemon=True
        )
        self._receiver.start()

    # -- outputs -----------------------------------------------------------------------

    def _receive(self) -> None:
        while True:
            try:
                message = self._group.recv(self._leader)
                self.last_receive_time = time.monotonic()
            except BaseException as exc:  # a dead or failed scheduler, or shutdown
                with self._lock:
                    if not self._closed:
                        self._failure = exc
                    waiting = list(self._sinks.values())
                    replies = list(self._replies.values())
                for sink in waiting:
                    sink(exc)
                for reply in replies:
                    reply.put(exc)
                return
            if isinstance(message, ControlReply):
                with self._lock:
                    box = self._replies.pop(message.token, None)
                if box is not None:
                    box.put(message.body)
                continue
            assert isinstance(message, list)
            with self._lock:
                for output in message:
                    target = self._sinks.get(output.rid)
                    if target is not None:
                        target(output)

    # -- requests ----------------------------------------------------------------------

    def token_text(self, token_id: int) -> str:
        """The text of one token, special tokens included (``return_text_in_logprobs``)."""
        return self.tokenizer.decode([token_id], skip_special_tokens=False)

    def _send(self, message: object) -> None:
        with self._send_lock:
            self._group.send(self._leader, message)

    def submit_requests(
        self, requests: Sequence[TokenizedRequest], sinks: Sequence[OutputSink]
    ) -> None:
        """Send prepared *requests*; the outputs of each go to its sink (see :meth:`submit`).

        Raises:
            InvalidRequestError: A request's ``rid`` is already in flight
                (``param`` ``"rid"``); nothing is sent.
            RuntimeError: The engine was shut down or its scheduler failed.
        """
        with self._lock:
            if self._closed:
                raise RuntimeError("the engine has been shut down")
            if self._failure is not None:
                raise RuntimeError(f"the engine's scheduler failed: {self._failure}")
            seen = set(self._sinks)
            for request in requests:
                if request.rid in seen:
                    raise InvalidRequestError(
                        f"rid {request.rid!r} is already in flight: request ids must be unique "
                        f"(leave rid out to get a fresh one)",
                        "rid",
                    )
                seen.add(request.rid)
            for request, sink in zip(requests, sinks, strict=True):
                self._sinks[request.rid] = sink
        for request in requests:
            self._send(request)

    def _queued(
        self, requests: Sequence[TokenizedRequest]
    ) -> list[queue.Queue[RequestOutput | BaseException]]:
        queues: list[queue.Queue[RequestOutput | BaseException]] = [queue.Queue() for _ in requests]
        self.submit_requests(requests, [q.put for q in queues])
        return queues

    def submit(
        self,
        prompt: str | None = None,
        sampling_params: Mapping[str, object] | None = None,
        input_ids: Sequence[int] | None = None,
        return_logprob: bool = False,
        *,
        sink: OutputSink,
        rid: str | None = None,
        options: LogprobOptions | None = None,
    ) -> str:
        """Check and send one request whose outputs go to *sink*; return its id.

        The engine's receiver thread calls ``sink(output)`` with each
        :class:`~sglang.srt.managers.io_struct.RequestOutput` (the last one
        has a ``finish_reason``), or once with the exception when the
        scheduler fails, so *sink* must return at once (for example hand
        the item to an event loop with ``loop.call_soon_threadsafe``). Call
        :meth:`release` when done with the request. *rid* names the request
        (default: a fresh id); an id already in flight is refused. *options*
        says which log-probabilities to report (default: the output
        tokens' when *return_logprob*).

        Raises:
            ValueError: A bad parameter (an
                :class:`~sglang.srt.entrypoints.validation.InvalidRequestError`
                naming it); nothing is sent.
            RuntimeError: The engine was shut down or its scheduler failed.
        """
        if options is None:
            options = LogprobOptions(return_logprob)
        item = PromptItem(prompt, input_ids, sampling_params, rid)
        requests = self.tokenizer_manager.prepare([item], [options])
        if len(requests) != 1:
            raise ValueError("submit() sends one request: use submit_requests() for n > 1")
        self.submit_requests(requests, [sink])
        return requests[0].rid

    def release(self, rid: str) -> None:
        """Stop delivering request *rid*'s outputs (idempotent; does not abort it)."""
        with self._lock:
            self._sinks.pop(rid, None)

    def _outputs(
        self, rid: str, q: queue.Queue[RequestOutput | BaseException]
    ) -> Iterator[RequestOutput]:
        try:
            while True:
                item = q.get()
                if isinstance(item, BaseException):
                    raise RuntimeError(f"the engine's scheduler failed: {item}") from item
                yield item
                if item.finish_reason is not None:
                    return
        finally:
            self.release(rid)

    def _control(self, kind: type[StatsRequest | FlushCacheRequest]) -> dict[str, object]:
        """Send a control message to rank 0 and wait for its reply."""
        box: queue.Queue[dict[str, object] | BaseException] = queue.Queue()
        with self._lock:
            if self._closed:
                raise RuntimeError("the engine has been shut down")
            if self._failure is not None:
                raise RuntimeError(f"the engine's scheduler failed: {self._failure}")
            token = next(self._tokens)
            self._replies[token] = box
        self._send(kind(token))
        item = box.get()
        if isinstance(item, BaseException):
            raise RuntimeError(f"the engine's scheduler failed: {item}") from item
        return item

    def get_server_info(self) -> dict[str, object]:
        """Return the scheduler's limits and state now (free KV pages, queue lengths, cache)."""
        return self._control(StatsRequest)

    def flush_cache(self) -> None:
        """Empty the prefix cache (every cached page goes back to the free pool).

        Raises:
            FlushCacheError: Requests are running or waiting; nothing was flushed.
        """
        reply = self._control(FlushCacheRequest)
        if not reply.get("success"):
            raise FlushCacheError(str(reply.get("message")))

    def abort(self, rid: str) -> None:
        """Abort request *rid* and the requests named after it (their KV pages are freed).

        The requests named after *rid* are those ``f"{rid}-..."``: the ``n``
        samples of a request and the prompts of an OpenAI response named
        *rid*. Each result ends with ``abort``. An id that is not in flight
        (finished, or never sent) is ignored.
        """
        prefix = f"{rid}-"
        with self._lock:
            derived = [r for r in self._sinks if r.startswith(prefix)]
        for name in (rid, *derived):
            self._send(AbortRequest(name))

    def abort_all(self) -> list[str]:
        """Abort every request in flight (as :meth:`abort`); return their ids."""
        with self._lock:
            rids = list(self._sinks)
        for rid in rids:
            self.abort(rid)
        return rids

    def generate(
        self,
        prompt: str | Sequence[str] | None = None,
        sampling_params: Mapping[str, object] | Sequence[Mapping[str, object]] | None = None,
        input_ids: Sequence[int] | Sequence[Sequence[int]] | None = None,
        return_logprob: bool = False,
        stream: bool = False,
        rid: str | Sequence[str] | None = None,
        logprob_start_len: int | None = None,
        top_logprobs_num: int | None = None,
        token_ids_logprob: Sequence[int] | None = None,
        return_text_in_logprobs: bool = False,
    ) -> Any:
        """Generate for one prompt or a list (text or token ids), with upstream's arguments.

        Returns a dict shaped like upstream's (``text``, ``output_ids``,
        ``meta_info``; see :mod:`~sglang.srt.entrypoints.outputs`), a list of
        them for a list of prompts or ``n > 1`` (prompt-major), or with
        ``stream=True`` (one prompt, one sample) an iterator of dicts holding
        the new part of ``text`` and ``output_ids``, the last with ``finish_reason``.
        *rid* names the request (a list: one id per prompt; with ``n > 1``
        sample *j* of a prompt named ``r`` is ``f"{r}-{j}"``); by default each
        gets a fresh id. ``meta_info["id"]`` is the id.

        Raises:
            ValueError: A bad parameter (an
                :class:`~sglang.srt.entrypoints.validation.InvalidRequestError`
                naming it); no request of the call is sent then.
        """
        batch, items = split_prompts(prompt, input_ids, sampling_params, rid)
        options = LogprobOptions.build(
            return_logprob,
            logprob_start_len,
            top_logprobs_num,
            token_ids_logprob,
            return_text_in_logprobs,
        )
        requests = self.tokenizer_manager.prepare(items, [options] * len(items))
        if stream:
            if len(requests) != 1:
                raise ValueError("stream=True takes one prompt and one sample (n=1)")
            return self._stream(requests[0].rid, self._queued(requests)[0], options)
        queues = self._queued(requests)
        results = [
            result_dict(list(self._outputs(r.rid, q)), options, self.token_text)
            for r, q in zip(requests, queues, strict=True)
        ]
        return results if batch or len(results) > 1 else results[0]

    def _stream(
        self, rid: str, q: queue.Queue[RequestOutput | BaseException], options: LogprobOptions
    ) -> Iterator[dict[str, Any]]:
        for chunk in self._outputs(rid, q):
            yield stream_chunk_dict(chunk, options, self.token_text)

    # -- lifetime ----------------------------------------------------------------------

    def shutdown(self) -> None:
        """Stop the scheduler processes (idempotent).

        They are asked to stop and given a few seconds to exit by themselves
        (so their exit handlers run); whatever is left is terminated. The
        thread that reads their outputs ends with them, before their
        connections close: a connection closed under it would free its
        file descriptor for the next engine of this process to reuse.
        """
        with self._lock:
            if self._closed:
                return
            self._closed = True
        try:
            self._send(ShutdownRequest())
        except OSError:  # the scheduler is gone already
            pass
        else:
            self._group.join(timeout=EXIT_GRACE)
        self._group.stop()
        if self._receiver is not threading.current_thread():
            self._receiver.join()  # the schedulers' exit ends its wait
        self._group.shutdown()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.shutdown()
