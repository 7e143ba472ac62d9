"""``LlamaForCausalLM`` (and ``MistralForCausalLM``): the shared decoder.

Grouped-query attention, tied or untied embeddings, default and ``llama3``
rope. Subclasses switch features with class attributes: :attr:`force_qkv_bias`
(Qwen2) and :attr:`qk_norm` (Qwen3).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

import torch

from sglang.srt.configs.model_config import ModelConfig
from sglang.srt.distributed import TensorParallel
from sglang.srt.layers.activation import SiluAndMul
from sglang.srt.layers.layernorm import RMSNorm
from sglang.srt.layers.linear import (
    MergedColumnParallelLinear,
    QKVParallelLinear,
    RowParallelLinear,
    WeightLoader,
    default_weight_loader,
)
from sglang.srt.layers.radix_attention import RadixAttention
from sglang.srt.layers.rotary_embedding import get_rope
from sglang.srt.layers.vocab_parallel_embedding import ParallelLMHead, VocabParallelEmbedding
from sglang.srt.model_executor.forward_batch_info import ForwardBatch

__all__ = ["STACKED_PARAMS", "LlamaForCausalLM", "MistralForCausalLM"]

STACKED_PARAMS: tuple[tuple[str, str, int | str], ...] = (
    ("qkv_proj", "q_proj", "q"),
    ("qkv_proj", "k_proj", "k"),
    ("qkv_proj", "v_proj", "v"),
    ("gate_up_proj", "gate_proj", 0),
    ("gate_up_proj", "up_proj", 1),
)
"""(fused parameter, checkpoint name, shard id) for the fused projections."""


def _loader(param: torch.nn.Parameter) -> WeightLoader:
    loader: WeightLoader = getattr(param, "weight_loader", default_weight_loader)
    return loader


class LlamaMLP(torch.nn.Module):
    """``down(silu(gate(x)) * up(x))`` with gate and up fused."""

    def __init__(self, config: ModelConfig, tp: TensorParallel) -> None:
        super().__init__()
        h, inter = config.hidden_size, config.intermediate_size
        self.gate_up_proj = MergedColumnParallelLinear(h, [inter, inter], tp=tp)
        self.down_proj = RowParallelLinear(inter, h, tp=tp)
        self.act_fn = SiluAndMul()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Apply the gated MLP."""
        out: torch.Tensor = self.down_proj(self.act_fn(self.gate_up_proj(x)))
        return out


class LlamaAttention(torch.nn.Module):
    """Self-attention with rotary positions over the paged cache."""

    def __init__(
        self, config: ModelConfig, layer_id: int, tp: TensorParallel, qkv_bias: bool, qk_norm: bool
    ) -> None:
        super().__init__()
        d = config.head_dim
        self.qkv_proj = QKVParallelLinear(
            config.hidden_size, d, config.num_heads, config.num_kv_heads, qkv_bias, tp=tp
        )
        self.o_proj = RowParallelLinear(
            config.num_heads * d, config.hidden_size, bias=config.attention_bias, tp=tp
        )
        self.q_norm = RMSNorm(d, config.rms_norm_eps) if qk_norm else None
        self.k_norm = RMSNorm(d, config.rms_norm_eps) if qk_norm else None
        self.rotary_emb = get_rope(d, config.max_position_embeddings, config.rope)
        heads, kv_heads = self.qkv_proj.num_heads, self.qkv_proj.num_kv_heads
        self.attn = RadixAttention(heads, d, d**-0.5, kv_heads, layer_id)

    def _head_norm(self, norm: RMSNorm | None, x: torch.Tensor) -> torch.Tensor:
        if norm is None:
            return x
        shaped = x.view(x.shape[0], -1, self.attn.head_dim)
        out: torch.Tensor = norm(shaped)
        return out.view_as(x)

    def forward(
        self, positions: torch.Tensor, x: torch.Tensor, batch: ForwardBatch
    ) -> torch.Tensor:
        """Project, normalise (Qwen3), rotate, attend and project back."""
        q, k, v = self.qkv_proj.split(self.qkv_proj(x))
        q, k = self._head_norm(self.q_norm, q), self._head_norm(self.k_norm, k)
        q, k = self.rotary_emb(positions, q, k)
        out: torch.Tensor = self.o_proj(self.attn(q, k, v, batch))
        return out


class LlamaDecoderLayer(torch.nn.Module):
    """Pre-norm attention and MLP blocks with the residual add fused into RMSNorm."""

    def __init__(
        self, config: ModelConfig, layer_id: int, tp: TensorParallel, qkv_bias: bool, qk_norm: bool
    ) -> None:
        super().__init__()
        self.self_attn = LlamaAttention(config, layer_id, tp, qkv_bias, qk_norm)
        self.mlp = LlamaMLP(config, tp)
        self.input_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.post_attention_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)

    def forward(
        self,
        positions: torch.Tensor,
        hidden: torch.Tensor,
        residual: torch.Tensor | None,
        batch: ForwardBatch,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Return ``(hidden, residual)`` after this layer."""
        if residual is None:
            residual = hidden
            hidden = self.input_layernorm(hidden)
        else:
            hidden, residual = self.input_layernorm(hidden, residual)
        hidden = self.self_attn(positions, hidden, batch)
        normed: tuple[torch.Tensor, torch.Tensor] = self.post_attention_layernorm(hidden, residual)
        return self.mlp(normed[0]), normed[1]


class LlamaModel(torch.nn.Module):
    """The embedding, the decoder layers and the final norm."""

    def __init__(
        self, config: ModelConfig, tp: TensorParallel, qkv_bias: bool, qk_norm: bool
    ) -> None:
        super().__init__()
        self.embed_tokens = VocabParallelEmbedding(config.vocab_size, config.hidden_size, tp=tp)
        self.layers = torch.nn.ModuleList(
            LlamaDecoderLayer(config, i, tp, qkv_bias, qk_norm) for i in range(config.num_layers)
        )
        self.norm = RMSNorm(config.hidden_size, config.rms_norm_eps)

    def forward(self, batch: ForwardBatch) -> torch.Tensor:
        """Return the final hidden states of the batch's new tokens."""
        hidden = self.embed_tokens(batch.input_ids)
        residual: torch.Tensor | None = None
        for layer in self.layers:
            hidden, residual = layer(batch.positions, hidden, residual, batch)
        out, _ = self.norm(hidden, residual)
        return out  # type: ignore[no-any-return]


class LlamaForCausalLM(torch.nn.Module):
    """A Llama-style causal LM over the paged KV cache.

    ``forward(batch)`` returns the logits of each sequence's last new token,
    ``(batch_size, vocab_size)``, or of the new tokens ``batch.logits_indices`` names.

    Attributes:
        force_qkv_bias: Give q/k/v a bias whatever ``attention_bias`` says (Qwen2).
        qk_norm: RMS-normalise queries and keys per head (Qwen3).
    """

    force_qkv_bias: ClassVar[bool] = False
    qk_norm: ClassVar[bool] = False

    def __init__(self, config: ModelConfig, tp: TensorParallel | None = None) -> None:
        super().__init__()
        tp = tp or TensorParallel()
        self.config = config
        qkv_bias = self.force_qkv_bias or config.attention_bias
        self.model = LlamaModel(config, tp, qkv_bias, self.qk_norm)
        self.lm_head = ParallelLMHead(config.vocab_size, config.hidden_size, tp=tp)
        if config.tie_word_embeddings:
            self.lm_head.weight = self.model.embed_tokens.weight

    def forward(self, batch: ForwardBatch) -> torch.Tensor:
        """Return the logits of each sequence's last new token (or of ``batch.logits_indices``)."""
        hidden = self.model(batch)
        rows = batch.logits_indices
        if rows is None:
            rows = torch.tensor(batch.extend_lens, device=hidden.device).cumsum(0) - 1
        return self.lm_head.compute_logits(hidden[rows])

    def load_weights(self, weights: Iterable[tuple[str, torch.Tensor]]) -> None:
        """Load checkpoint tensors (Hugging Face names) into the fused parameters.

        Raises:
            ValueError: A checkpoint tensor has no parameter, or a parameter
                got no tensor (names listed).
        """
        params = dict(self.named_parameters(remove_duplicate=False))
        loaded: set[str] = set()
        for name, tensor in weights:
            if "rotary_emb.inv_freq" in name:
                continue
            if name == "lm_head.weight" and self.config.tie_word_embeddings:
                continue
            for fused, original, shard in STACKED_PARAMS:
                if f".{original}." in name:
                    target = name.replace(original, fused)
                    if target in params:
                        _loader(params[target])(params[target], tensor, shard)
                        loaded.add(target)
                        break
            else:
                if name not in params:
                    raise ValueError(
                        f"checkpoint tensor {name!r} matches no parameter of {type(self).__name__}"
                    )
                param = params[name]
                _loader(param)(param, tensor)
                loaded.add(name)
        if self.config.tie_word_embeddings:
            loaded.add("lm_head.weight")
        missing = sorted(set(params) - loaded)
        if missing:
            raise ValueError(f"the checkpoint in {self.config.path} lacks: {', '.join(missing)}")


class MistralForCausalLM(LlamaForCausalLM):
    """Mistral: the Llama decoder (sliding-window attention is not used)."""
