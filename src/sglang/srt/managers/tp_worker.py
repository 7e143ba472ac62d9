"""The model on one tensor-parallel rank: :class:`TpModelWorker` (a documented hook target)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sglang.srt import platforms  # current_platform is read when it is used
from sglang.srt.mem_cache.sequence import SequenceState
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.srt.sampling.logprobs import position_details
from sglang.srt.sampling.sampler import Sampler

if TYPE_CHECKING:
    import torch

    from sglang.srt.configs.model_config import ModelConfig
    from sglang.srt.distributed import TensorParallel
    from sglang.srt.managers.io_struct import TopLogprobs
    from sglang.srt.managers.schedule_batch import Req, ScheduleBatch
    from sglang.srt.server_args import ServerArgs

__all__ = ["GenerationBatchResult", "TpModelWorker", "kv_capacity"]

_DTYPES = {"float32": "float32", "float16": "float16", "bfloat16": "bfloat16"}


@dataclass(frozen=True)
class GenerationBatchResult:
    """What one step produced.

    Attributes:
        next_token_ids: The next token of each sampling request (``batch.sampling_reqs``).
        logprobs: Each one's log-probability.
        top_logprobs: Per sampling request, its position's most likely tokens
            (empty unless it asked for ``top_logprobs_num``).
        token_ids_logprobs: Per sampling request, its ``token_ids_logprob`` values.
        input_logits: Per request of the batch (``batch.reqs``), ``(first
            position, logits)`` of the prompt positions whose log-probabilities
            it asked for, else ``None``.
    """

    next_token_ids: list[int]
    logprobs: list[float]
    top_logprobs: list[TopLogprobs] = field(default_factory=list)
    token_ids_logprobs: list[tuple[float, ...]] = field(default_factory=list)
    input_logits: list[tuple[int, torch.Tensor] | None] = field(default_factory=list)


def kv_capacity(
    *,
    free_bytes: int,
    weight_bytes: int,
    bytes_per_token: int,
    mem_fraction_static: float,
    usable_tokens: int,
) -> int:
    """KV-cache tokens that fit the memory budget, never more than the server can use.

    The budget is ``mem_fraction_static`` of the free memory less the
    weights; the result is capped at *usable_tokens* (context length times
    the most running requests), so a host whose "device memory" is all of
    RAM does not reserve gigabytes for a tiny model.
    """
    budget = int(free_bytes * mem_fraction_static) - weight_bytes
    if budget < bytes_per_token:
        raise RuntimeError(
            f"no memory left for the KV cache: {free_bytes} bytes free, the weights take "
            f"{weight_bytes}, and --mem-fraction-static is {mem_fraction_static}; raise "
            f"--mem-fraction-static or set --max-total-tokens"
        )
    return min(budget // bytes_per_token, usable_tokens)


class TpModelWorker:
    """Loads the model on this rank and runs one generation step per batch.

    Args:
        server_args: The server arguments.
        tp: This rank's tensor-parallel position.
    """

    def __init__(self, server_args: ServerArgs, tp: TensorParallel) -> None:
        import torch

        from sglang.srt.configs.model_config import ModelConfig

        self.server_args = server_args
        self.tp = tp
        dtype = getattr(torch, _DTYPES.get(server_args.dtype, "float32"))
        self.dtype: str = str(dtype).removeprefix("torch.")
        """The dtype the weights and the KV cache are in (``--dtype auto`` resolved)."""
        config = ModelConfig.from_pretrained(server_args.model_path)
        self.context_length = server_args.context_length or config.max_position_embeddings
        self.max_running_requests = server_args.max_running_requests or 32
        tokens = server_args.max_total_tokens or self._tokens_from_memory(config, dtype)
        self.model_runner = ModelRunner(
            server_args.model_path,
            dtype=dtype,
            max_total_tokens=tokens,
            page_size=server_args.page_size,
            attention_backend=server_args.attention_backend,
            tp=tp,
            quantization=server_args.quantization,
            enable_torch_compile=server_args.enable_torch_compile,
            disable_cuda_graph=server_args.disable_cuda_graph,
        )
        self.max_total_tokens = self.model_runner.allocator.num_pages * server_args.page_size
        self.sampler = Sampler()

    def _tokens_from_memory(self, config: ModelConfig, dtype: torch.dtype) -> int:
        import torch

        element = torch.empty((), dtype=dtype).element_size()
        kv_heads = max(1, config.num_kv_heads // self.tp.size)
        per_token = 2 * config.num_layers * kv_heads * config.head_dim * element
        # the checkpoint's size on disk, shared over the ranks: close enough for a budget
        weights = sum(f.stat().st_size for f in config.path.glob("*.safetensors")) // self.tp.size
        device = platforms.current_platform.get_device(self.tp.local_rank)
        free, _total = platforms.current_platform.get_available_memory(device.index or 0)
        return kv_capacity(
            free_bytes=free,
            weight_bytes=weights,
            bytes_per_token=per_token,
            mem_fraction_static=self.server_args.mem_fraction_static or 0.88,
            usable_tokens=self.context_length * self.max_running_requests,
        )

    def available_pages(self) -> int:
        """Free KV pages."""
        return self.model_runner.allocator.available_pages()

    def forward_batch_generation(self, batch: ScheduleBatch) -> GenerationBatchResult:
        """Run one step for *batch*; sample the next token of each sampling request.

        The results follow ``batch.sampling_reqs``: a chunked request whose
        prompt is not complete yet samples nothing (its seeded generator is
        left untouched, so chunking does not change what it samples). Each
        sampling request's logits get its penalties and its grammar's mask
        first (:meth:`process_logits`).
        """
        starts = [req.logits_from for req in batch.reqs] if batch.is_prefill else None
        spans = []  # (first position with logits, rows) per request
        for i, req in enumerate(batch.reqs):
            done, end = req.seq.cached_len, req.seq.target_len
            start = None if starts is None else starts[i]
            first = end - 1 if start is None else min(max(start, done), end - 1)
            spans.append((first, end - first))
        logits = self.model_runner.forward([req.seq for req in batch.reqs], starts)
        last, input_logits, row = [], [], 0
        for i, (first, count) in enumerate(spans):
            wanted = starts is not None and starts[i] is not None
            input_logits.append((first, logits[row : row + count]) if wanted else None)
            row += count
            last.append(row - 1)
        sampling = batch.sampling_reqs
        if not sampling:
            return GenerationBatchResult([], [], input_logits=input_logits)
        rows = [last[i] for i, req in enumerate(batch.reqs) if req is not batch.chunked_req]
        step_logits = logits[rows].float()
        self.process_logits(step_logits, sampling)
        params = [req.request.params for req in sampling]
        tokens, logprob_rows = self.sampler.sample(
            step_logits, params, [req.generator for req in sampling]
        )
        chosen = logprob_rows.gather(-1, tokens.unsqueeze(-1)).squeeze(-1)
        tops: list[TopLogprobs] = [() for _ in sampling]
        asked: list[tuple[float, ...]] = [() for _ in sampling]
        wanting = [i for i, r in enumerate(sampling) if r.request.return_logprob]
        top_rows = [i for i in wanting if sampling[i].request.top_logprobs_num]
        if top_rows:  # one top-k over every row that asks, cut to each one's k
            k = max(sampling[i].request.top_logprobs_num for i in top_rows)
            found, _ = position_details(logprob_rows[top_rows], k, None)
            for i, top in zip(top_rows, found, strict=True):
                tops[i] = top[: sampling[i].request.top_logprobs_num]
        for i in wanting:
            token_ids = sampling[i].request.token_ids_logprob
            if token_ids:
                asked[i] = position_details(logprob_rows[i : i + 1], 0, token_ids)[1][0]
        return GenerationBatchResult(tokens.tolist(), chosen.tolist(), tops, asked, input_logits)

    def process_logits(self, logits: torch.Tensor, reqs: tuple[Req, ...]) -> None:
        """Apply each request's penalties and biases, then its grammar's token mask, in place."""
        for i, req in enumerate(reqs):
            if req.penalizer is not None:
                req.penalizer.apply(logits[i])
        constrained = [i for i, req in enumerate(reqs) if req.grammar is not None]
        if not constrained:
            return
        import torch

        from sglang.srt.constrained import apply_token_bitmask

        width = -(-logits.shape[-1] // 32)
        bitmask = torch.full((len(constrained), width), -1, dtype=torch.int32)
        for row, i in enumerate(constrained):
            grammar = reqs[i].grammar
            assert grammar is not None
            grammar.fill_vocab_mask(bitmask, row)
        index = torch.tensor(constrained, dtype=torch.int64, device=logits.device)
        masked = logits.index_select(0, index)
        apply_token_bitmask(masked, bitmask.to(logits.device, non_blocking=True))
        logits.index_copy_(0, index, masked)

    def release(self, seq: SequenceState) -> None:
        """Free a finished request's KV pages."""
        self.model_runner.release(seq)
