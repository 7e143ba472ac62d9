"""Reading a Hugging Face model directory: ``config.json``, generation and chat files."""

from sglang.srt.configs.model_config import (
    ModelConfig,
    ModelFileError,
    RopeConfig,
)

__all__ = ["ModelConfig", "ModelFileError", "RopeConfig"]
