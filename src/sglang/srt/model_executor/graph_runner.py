"""``EagerGraphRunner``: the graph runner of devices without graph capture."""

from __future__ import annotations

import torch

from sglang.sdk.srt_runtime import ForwardBatchLike, ModelRunnerLike

__all__ = ["EagerGraphRunner"]


class EagerGraphRunner:
    """Captures nothing: every batch runs eagerly. Satisfies :class:`sglang.sdk.GraphRunner`."""

    def __init__(self, model_runner: ModelRunnerLike) -> None:
        self.model_runner = model_runner

    def can_run(self, batch: ForwardBatchLike) -> bool:
        """Never: there are no captured graphs."""
        return False

    def replay(self, batch: ForwardBatchLike) -> torch.Tensor:
        """Run *batch* eagerly."""
        return self.model_runner.forward_eager(batch)
