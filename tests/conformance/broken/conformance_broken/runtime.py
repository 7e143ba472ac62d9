"""The broken runtime pieces (they import torch, so the callbacks never import this)."""

from __future__ import annotations

from typing import Any

import torch

from sglang.runtime.op_dispatch import register_op_impl
from sglang.srt.layers.attention import register_attention_backend
from sglang.srt.layers.attention.torch_native_backend import TorchNativeAttnBackend
from sglang.srt.mem_cache.memory_pool import MHATokenToKVPool


class LossyPool(MHATokenToKVPool):
    """Writes only the first token of each call."""

    def set_kv_buffer(
        self, layer_id: int, loc: torch.Tensor, k: torch.Tensor, v: torch.Tensor
    ) -> None:
        """Drop everything after the first token."""
        super().set_kv_buffer(layer_id, loc[:1], k[:1], v[:1])


def _wrong_rms_norm(op: Any, x: torch.Tensor, residual: torch.Tensor | None = None) -> Any:
    result = op.forward_native(x, residual)
    if isinstance(result, tuple):
        return result[0] * 1.01, result[1]
    return result * 1.01


def install_wrong_rms_norm() -> None:
    """Register the one-percent-off RMSNorm for the ``broken`` key."""
    register_op_impl("rms_norm", "broken", _wrong_rms_norm)


class ReplayingGraphRunner:
    """A stand-in for a capturing runner: "replays" decode batches (eagerly, on the host)."""

    def __init__(self, model_runner: Any) -> None:
        self.model_runner = model_runner

    def can_run(self, batch: Any) -> bool:
        """Every decode batch (one new token per sequence)."""
        return all(n == 1 for n in batch.extend_lens)

    def replay(self, batch: Any) -> torch.Tensor:
        """The eager forward, as a captured graph would compute it."""
        logits: torch.Tensor = self.model_runner.forward_eager(batch)
        return logits


class StaleInputsGraphRunner(ReplayingGraphRunner):
    """A capturing runner whose replays never copy the new batch into the graph's inputs.

    The first batch of each size is "captured" (run, its logits kept as the
    graph's output buffer); every later replay of that size returns what the
    captured inputs give, whatever batch it is handed, as a real graph does
    when its static input buffers are not refreshed.
    """

    def __init__(self, model_runner: Any) -> None:
        super().__init__(model_runner)
        self._outputs: dict[int, torch.Tensor] = {}

    def replay(self, batch: Any) -> torch.Tensor:
        """The captured batch's logits (computed on the first replay of this size)."""
        size = len(batch.seq_lens)
        if size not in self._outputs:
            self._outputs[size] = super().replay(batch)
        return self._outputs[size].clone()


def _wrong_diffusion_rms_norm(op: Any, x: torch.Tensor) -> torch.Tensor:
    result: torch.Tensor = op.forward_native(x) * 1.01
    return result


def install_wrong_diffusion_rms_norm() -> None:
    """Register the one-percent-off diffusion RMSNorm for the ``broken`` key."""
    from sglang.multimodal_gen.runtime.layers.custom_op import CustomOp
    from sglang.multimodal_gen.runtime.layers.layernorm import RMSNorm

    CustomOp.register_oot_forward(RMSNorm, _wrong_diffusion_rms_norm, "broken")


class PrefixBlindBackend(TorchNativeAttnBackend):
    """Prefill attends only to the tokens computed in this step, never to cached ones.

    Right whenever a prefill starts at position 0 (every prompt without a
    prefix cache); wrong as soon as a prefill starts after cached or shared
    pages.
    """

    def init_forward_metadata(self, batch: Any) -> None:
        """Gather only each sequence's new tokens for a prefill."""
        super().init_forward_metadata(batch)
        # no slots: attend causally over the step's own keys, as for a prefix of 0
        self._extends = [(start, extend, None, None) for start, extend, _, _ in self._extends]


def install_prefix_blind_attention() -> None:
    """Register the prefix-blind attention backend as ``prefix_blind``."""
    register_attention_backend("prefix_blind", PrefixBlindBackend)
