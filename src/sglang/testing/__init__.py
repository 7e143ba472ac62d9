"""Test support that ships with the distribution: small random checkpoints.

:mod:`sglang.testing.make_model` writes a Hugging Face model directory
(config, safetensors weights, a byte-level BPE tokenizer trained on the spot,
chat template, generation config) that both the reference runtime and
``transformers`` load offline::

    from sglang.testing.make_model import make_model

    path = make_model(tmp_path / "tiny", arch="qwen3")

Importing this package is cheap; torch is imported when a model is written.
"""
