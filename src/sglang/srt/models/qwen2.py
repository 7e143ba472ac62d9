"""``Qwen2ForCausalLM``: the Llama decoder with biased q/k/v projections."""

from __future__ import annotations

from sglang.srt.models.llama import LlamaForCausalLM

__all__ = ["Qwen2ForCausalLM"]


class Qwen2ForCausalLM(LlamaForCausalLM):
    """Qwen2: q, k and v projections carry a bias; o does not."""

    force_qkv_bias = True
