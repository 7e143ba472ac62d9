"""The diffusion worker: :class:`GPUWorker` and :func:`run_scheduler_process` (hook targets).

``GPUWorker.init_device_and_model()`` binds the device
(``get_device()``, ``set_device()``, ``get_local_torch_device()``), joins
the sequence-parallel group, logs one start-up line (``get_device_name()``,
``get_device_uuid()``, ``get_device_total_memory()``,
``get_cpu_architecture()``), reads ``get_available_gpu_memory()`` and
builds the pipeline. Plugins hook it (BEFORE or AROUND) for rank-aware setup.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING

from sglang.multimodal_gen.runtime.managers.io_struct import (
    GenerateRequest,
    GenerateResult,
    ShutdownRequest,
)

if TYPE_CHECKING:
    import torch

    from sglang.multimodal_gen.runtime.pipelines.pipeline import TextToImagePipeline
    from sglang.multimodal_gen.runtime.server_args import ServerArgs
    from sglang.runtime.bootstrap import Worker

__all__ = ["GPUWorker", "run_scheduler_process"]

logger = logging.getLogger(__name__)


class GPUWorker:
    """One rank of the diffusion runtime.

    Args:
        server_args: The materialised server arguments.
        rank: This worker's sequence-parallel rank (also its local device index).
    """

    def __init__(self, server_args: ServerArgs, rank: int) -> None:
        self.server_args = server_args
        self.rank = rank
        self.device: torch.device | None = None
        self.pipeline: TextToImagePipeline | None = None
        self.free_memory_before_model = 0

    def init_device_and_model(self) -> None:
        """Bind the device, join the group, log the start-up line, build the pipeline."""
        from sglang.multimodal_gen.runtime.distributed import init_distributed
        from sglang.multimodal_gen.runtime.pipelines.pipeline import TextToImagePipeline
        from sglang.multimodal_gen.runtime.platforms import current_platform

        args = self.server_args
        platform = current_platform
        platform.set_device(platform.get_device(self.rank))
        self.device = platform.get_local_torch_device()
        assert args.dist_init_addr is not None, "the launcher sets dist_init_addr"
        init_distributed(args.sp_degree, self.rank, args.dist_init_addr, self.device)
        total = platform.get_device_total_memory(self.rank)
        logger.info(
            "diffusion worker rank %d (pid %d) on %s [%s], %.1f GiB, host %s",
            self.rank,
            os.getpid(),
            platform.get_device_name(self.rank),
            platform.get_device_uuid(self.rank),
            total / 2**30,
            platform.get_cpu_architecture().name,
        )
        self.free_memory_before_model = platform.get_available_gpu_memory(self.rank)
        self.pipeline = TextToImagePipeline(args, self.device)

    def info(self) -> dict[str, object]:
        """What the worker reports when ready."""
        assert self.pipeline is not None
        return {
            "rank": self.rank,
            "pid": os.getpid(),
            "device": str(self.device),
            "attention": self.pipeline.attention.path,
            "free_memory_before_model": self.free_memory_before_model,
        }

    def generate(self, request: GenerateRequest) -> GenerateResult:
        """Run *request*; rank 0 returns the images, other ranks only acknowledge."""
        assert self.pipeline is not None
        try:
            images = self.pipeline.generate(request.prompts, request.params)
        except ValueError as exc:
            return GenerateResult(request.rid, error=str(exc))
        return GenerateResult(request.rid, tuple(images) if self.rank == 0 else ())


def run_scheduler_process(server_args: ServerArgs, worker: Worker) -> None:
    """The worker process's target: build the worker, report ready, serve requests."""
    logging.basicConfig(level=server_args.log_level.upper(), format="%(name)s: %(message)s")
    gpu_worker = GPUWorker(server_args, worker.rank)
    gpu_worker.init_device_and_model()
    worker.ready(gpu_worker.info())
    while True:
        message = worker.conn.recv()
        if isinstance(message, ShutdownRequest):
            return
        if isinstance(message, GenerateRequest):
            worker.conn.send(gpu_worker.generate(message))
