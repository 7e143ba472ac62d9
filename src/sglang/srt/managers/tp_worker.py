"""The model on one tensor-parallel rank: :class:`TpModelWorker` (a documented hook target)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sglang.srt import platforms  # current_platform is read when it is used
from sglang.srt.mem_cache.sequence import SequenceState
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.srt.sampling.sampler import Sampler

if TYPE_CHECKING:
    import torch

    from sglang.srt.configs.model_config import ModelConfig
    from sglang.srt.distributed import TensorParallel
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.server_args import ServerArgs

__all__ = ["GenerationBatchResult", "TpModelWorker", "kv_capacity"]

_DTYPES = {"float32": "float32", "float16": "float16", "bfloat16": "bfloat16"}


@dataclass(frozen=True)
class GenerationBatchResult:
    """What one step produced: the next token and its log-probability per request."""

    next_token_ids: list[int]
    logprobs: list[float]


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
        """Run one step for *batch*; return the next token and its logprob of each sampling request.

        The results follow ``batch.sampling_reqs``: a chunked request whose
        prompt is not complete yet samples nothing (its seeded generator is
        left untouched, so chunking does not change what it samples).
        """
        logits = self.model_runner.forward([req.seq for req in batch.reqs])
        sampling = batch.sampling_reqs
        if len(sampling) != len(batch.reqs):
            rows = [i for i, req in enumerate(batch.reqs) if req is not batch.chunked_req]
            logits = logits[rows]
        if not sampling:
            return GenerationBatchResult([], [])
        tokens, logprobs = self.sampler(
            logits,
            [req.request.params for req in sampling],
            [req.generator for req in sampling],
        )
        return GenerationBatchResult(tokens.tolist(), logprobs.tolist())

    def release(self, seq: SequenceState) -> None:
        """Free a finished request's KV pages."""
        self.model_runner.release(seq)
