"""``Qwen3ForCausalLM``: the Llama decoder with per-head q/k RMSNorm."""

from __future__ import annotations

from sglang.srt.models.llama import LlamaForCausalLM

__all__ = ["Qwen3ForCausalLM"]


class Qwen3ForCausalLM(LlamaForCausalLM):
    """Qwen3: queries and keys are RMS-normalised per head before the rotary embedding."""

    qk_norm = True
