"""The model building blocks of the reference SRT runtime.

Fused ops dispatched through :mod:`sglang.runtime.op_dispatch`
(:class:`~sglang.srt.layers.layernorm.RMSNorm`,
:class:`~sglang.srt.layers.activation.SiluAndMul`,
:mod:`~sglang.srt.layers.rotary_embedding`), tensor-parallel linears and
embeddings, and attention through a backend chosen by name
(:mod:`sglang.srt.layers.attention`).
"""
