"""``ModelRunner``: one model on one device, with its paged KV cache.

Every device- and subsystem-specific piece comes from ``current_platform``:
the device (``get_device(rank)``), the KV pool (``get_mha_kv_pool_cls()``),
the page allocator (``get_paged_allocator_cls()``), the graph runner
(``get_graph_runner_cls()``), the default attention backend name, the
quantization config (``get_quantization_config()``, with ``--quantization``),
the ``torch.compile`` backend (``get_compile_backend()``, with
``--enable-torch-compile``) and the inference-mode context.
:meth:`ModelRunner.forward` runs one prefill or decode step for a batch of :class:`SequenceState`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import torch

from sglang.sdk.srt_runtime import ForwardBatchLike, GraphRunner
from sglang.srt import platforms  # current_platform is read when a runner is built
from sglang.srt.configs.model_config import ModelConfig
from sglang.srt.distributed import TensorParallel
from sglang.srt.layers.attention import get_attention_backend_cls
from sglang.srt.layers.quantization import resolve_quantization_config
from sglang.srt.mem_cache.sequence import SequenceState
from sglang.srt.model_executor.compile import compile_model
from sglang.srt.model_executor.forward_batch_info import ForwardBatch, ForwardMode
from sglang.srt.model_executor.model_loader import load_model

__all__ = ["GreedyOutput", "ModelRunner", "OutOfKVPagesError", "SequenceState"]


class OutOfKVPagesError(RuntimeError):
    """The KV cache has too few free pages for a step."""


@dataclass(frozen=True)
class GreedyOutput:
    """The result of :meth:`ModelRunner.generate_greedy` for one prompt.

    Attributes:
        output_ids: The generated token ids.
        logprobs: The log-probability of each generated token.
    """

    output_ids: list[int]
    logprobs: list[float]


class ModelRunner:
    """Loads a model onto ``current_platform.get_device(rank)`` and runs steps over a paged cache.

    Args:
        model_path: A local Hugging Face model directory.
        dtype: The weight and activation dtype.
        max_total_tokens: The KV capacity in tokens (rounded up to pages).
        page_size: Tokens per KV page.
        attention_backend: A registered backend name, else the platform default.
        tp: This rank's tensor-parallel position.
        quantization: A ``--quantization`` name, or ``None`` for none.
        enable_torch_compile: Compile the decoder layers with the platform's backend.
        disable_cuda_graph: Run every step eagerly, even on a platform that
            declares graph capture.

    Attributes:
        graph_runner: The platform's graph runner (``get_graph_runner_cls()``),
            or ``None`` when the platform declares no graph capture
            (``support_cuda_graph()`` is false) or *disable_cuda_graph* is set.
    """

    def __init__(
        self,
        model_path: str | Path,
        *,
        dtype: torch.dtype = torch.float32,
        max_total_tokens: int = 4096,
        page_size: int = 16,
        attention_backend: str | None = None,
        tp: TensorParallel | None = None,
        quantization: str | None = None,
        enable_torch_compile: bool = False,
        disable_cuda_graph: bool = False,
    ) -> None:
        self.platform = platforms.current_platform
        self.tp = tp or TensorParallel()
        self.config = ModelConfig.from_pretrained(model_path)
        self.device = self.platform.get_device(self.tp.local_rank)
        self.quant_config = resolve_quantization_config(self.platform, quantization)
        self.model = load_model(
            self.config,
            dtype=dtype,
            device=self.device,
            tp=self.tp,
            quant_config=self.quant_config,
        )
        self.compile_backend: str | None = None
        if enable_torch_compile:
            self.compile_backend = self.platform.get_compile_backend()
            compile_model(self.model, self.compile_backend)
        num_pages = -(-max_total_tokens // page_size)
        kv_heads = max(1, self.config.num_kv_heads // self.tp.size)
        self.kv_pool = self.platform.get_mha_kv_pool_cls()(
            num_pages=num_pages,
            page_size=page_size,
            num_layers=self.config.num_layers,
            num_kv_heads=kv_heads,
            head_dim=self.config.head_dim,
            dtype=dtype,
            device=self.device,
        )
        self.allocator = self.platform.get_paged_allocator_cls()(
            num_pages=num_pages, page_size=page_size
        )
        backend = attention_backend or self.platform.get_default_attention_backend()
        self.attn_backend = get_attention_backend_cls(backend)(self.kv_pool)
        self.graph_runner: GraphRunner | None = None
        if self.platform.support_cuda_graph() and not disable_cuda_graph:
            self.graph_runner = self.platform.get_graph_runner_cls()(self)

    # -- batches -----------------------------------------------------------------

    def _reserve(self, seq: SequenceState) -> None:
        page_size = self.allocator.page_size
        needed = -(-seq.target_len // page_size) - len(seq.pages)
        if needed > 0:
            pages = self.allocator.alloc(needed)
            if pages is None:
                raise OutOfKVPagesError(
                    f"need {needed} KV pages, {self.allocator.available_pages()} free; "
                    "raise --max-total-tokens or run fewer sequences"
                )
            seq.pages.extend(pages)

    def prepare(
        self, seqs: Sequence[SequenceState], logits_from: Sequence[int | None] | None = None
    ) -> ForwardBatch:
        """Reserve pages for each sequence's new tokens and describe the step.

        *logits_from* gives, per sequence, the first position whose logits
        the step returns (``None``: only the last new token's).
        """
        page_size = self.allocator.page_size
        ids: list[int] = []
        positions: list[int] = []
        slots: list[int] = []
        for seq in seqs:
            self._reserve(seq)
            new = range(seq.cached_len, seq.target_len)
            ids.extend(seq.token_ids[i] for i in new)
            positions.extend(new)
            slots.extend(seq.pages[i // page_size] * page_size + i % page_size for i in new)
        extend_lens = [s.target_len - s.cached_len for s in seqs]
        decode = all(n == 1 for n in extend_lens) and all(s.cached_len for s in seqs)

        def tensor(values: list[int]) -> torch.Tensor:
            return torch.tensor(values, dtype=torch.int64, device=self.device)

        rows: list[int] | None = None
        if logits_from is not None and any(start is not None for start in logits_from):
            rows, offset = [], 0
            for seq, start, count in zip(seqs, logits_from, extend_lens, strict=True):
                first = count - 1 if start is None else max(0, start - seq.cached_len)
                rows.extend(range(offset + min(first, count - 1), offset + count))
                offset += count

        return ForwardBatch(
            forward_mode=ForwardMode.DECODE if decode else ForwardMode.EXTEND,
            input_ids=tensor(ids),
            positions=tensor(positions),
            seq_lens=[s.target_len for s in seqs],
            extend_lens=extend_lens,
            page_tables=[list(s.pages) for s in seqs],
            out_cache_loc=tensor(slots),
            attn_backend=self.attn_backend,
            logits_indices=None if rows is None else tensor(rows),
        )

    def forward_eager(self, batch: ForwardBatchLike) -> torch.Tensor:
        """Run the model on *batch* without graphs; return last-token logits."""
        assert isinstance(batch, ForwardBatch)
        self.attn_backend.init_forward_metadata(batch)
        logits: torch.Tensor = self.model(batch)
        return logits

    def forward(
        self, seqs: Sequence[SequenceState], logits_from: Sequence[int | None] | None = None
    ) -> torch.Tensor:
        """Run one step for *seqs* (prefill or decode); return their logits.

        One row per sequence, ``(len(seqs), vocab)``, unless *logits_from*
        asks a sequence for the logits of positions ``logits_from[i]`` to its
        last (see :meth:`prepare`); the rows follow the sequences' order.
        """
        batch = self.prepare(seqs, logits_from)
        with self.platform.inference_mode():
            if self.graph_runner is not None and self.graph_runner.can_run(batch):
                logits = self.graph_runner.replay(batch)
            else:
                logits = self.forward_eager(batch)
        for seq in seqs:
            seq.cached_len, seq.fill_len = seq.target_len, None
        return logits

    def release(self, seq: SequenceState) -> None:
        """Free *seq*'s KV pages."""
        self.allocator.free(seq.pages)
        seq.pages, seq.cached_len = [], 0

    # -- convenience ---------------------------------------------------------------

    def generate_greedy(
        self, prompts: Sequence[Sequence[int]], max_new_tokens: int
    ) -> list[GreedyOutput]:
        """Prefill every prompt in one batch, then decode them together, greedily.

        No early stop: each prompt gets exactly *max_new_tokens* tokens. Pages
        are freed before returning.
        """
        seqs = [SequenceState(list(p)) for p in prompts]
        outputs = [GreedyOutput([], []) for _ in seqs]
        try:
            for _ in range(max_new_tokens):
                logprobs = torch.log_softmax(self.forward(seqs).float(), dim=-1)
                best = logprobs.argmax(dim=-1)
                for seq, out, token, row in zip(
                    seqs, outputs, best.tolist(), logprobs, strict=True
                ):
                    seq.token_ids.append(token)
                    out.output_ids.append(token)
                    out.logprobs.append(float(row[token]))
        finally:
            for seq in seqs:
                self.release(seq)
        return outputs
