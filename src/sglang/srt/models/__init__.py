"""Model implementations: Llama (and Mistral), Qwen2, Qwen3.

They share one decoder (:mod:`sglang.srt.models.llama`); the Qwen models
differ only in class attributes (q/k/v bias, per-head q/k norm).
"""
