"""``DiffGenerator``: offline text-to-image generation over spawned workers.

``from_pretrained()`` runs the launcher's plugin steps
(``apply_plugin_hooks()``: general-plugin callbacks run here too), lets the
platform set its server-argument defaults, then starts one worker per
sequence-parallel rank on the shared spawn bootstrap. ``generate()`` sends
each request to every rank and returns rank 0's images as PIL images. The
workers stop on :meth:`DiffGenerator.shutdown`, on leaving a ``with`` block
and at interpreter exit.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import re
import threading
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sglang.multimodal_gen.configs.sampling_params import SamplingParams
from sglang.multimodal_gen.runtime.managers.io_struct import (
    GenerateRequest,
    GenerateResult,
    ShutdownRequest,
)
from sglang.multimodal_gen.runtime.server_args import ServerArgs

if TYPE_CHECKING:
    from PIL.Image import Image

    from sglang.runtime.bootstrap import WorkerGroup

__all__ = ["DiffGenerator"]

_EXIT_GRACE = 5.0


_live: weakref.WeakSet[DiffGenerator] = weakref.WeakSet()


@atexit.register  # registered after the bootstrap's own handler, so it runs first
def _shutdown_live_generators() -> None:
    for generator in list(_live):
        generator.shutdown()


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_")[:40] or "image"


class DiffGenerator:
    """A running diffusion runtime (use :meth:`from_pretrained`).

    Args:
        server_args: The finished server arguments.

    Raises:
        ValueError: A bad server argument (the message names the flag).
        sglang.runtime.bootstrap.WorkerFailedError: A worker failed to
            start (its error and traceback text are in the message).
    """

    def __init__(self, server_args: ServerArgs) -> None:
        from sglang.multimodal_gen import envs
        from sglang.multimodal_gen.runtime.managers.worker_bootstrap import (
            launch_scheduler_processes,
        )
        from sglang.multimodal_gen.runtime.platforms.plugins import apply_plugin_hooks

        apply_plugin_hooks()
        server_args.apply_platform_defaults()
        server_args.check_server_args()
        self.server_args = server_args
        self._lock = threading.Lock()
        self._ids = itertools.count()
        self._closed = False
        self._group: WorkerGroup
        self._group, self.worker_info = launch_scheduler_processes(
            server_args, envs.start_timeout()
        )
        _live.add(self)

    @classmethod
    def from_pretrained(cls, model_path: str | None = None, **kwargs: Any) -> DiffGenerator:
        """Start workers for the diffusers-layout model at *model_path*.

        Args:
            model_path: The model directory.
            **kwargs: :class:`ServerArgs` fields (``sp_degree=``, ...).
        """
        return cls(ServerArgs(model_path=model_path or "", **kwargs))

    def generate(
        self,
        prompt: str | Sequence[str],
        sampling_params: SamplingParams | Mapping[str, object] | None = None,
        output_path: str | None = None,
    ) -> Image | list[Image]:
        """Generate one image per prompt.

        Args:
            prompt: A prompt, or a list of prompts.
            sampling_params: A :class:`SamplingParams` or a dict of its fields.
            output_path: A folder to save PNGs in (default: ``--output-path``, else none).

        Returns:
            A ``PIL.Image.Image`` for one prompt, a list for a list of prompts.

        Raises:
            ValueError: A bad parameter (the message names it).
            RuntimeError: The generator was shut down, or a worker failed.
        """
        from PIL import Image as PILImage

        prompts = [prompt] if isinstance(prompt, str) else list(prompt)
        if not prompts or not all(isinstance(p, str) for p in prompts):
            raise ValueError("prompt must be a str or a non-empty list of str")
        params = SamplingParams.from_value(sampling_params)
        with self._lock:
            if self._closed:
                raise RuntimeError("the generator has been shut down")
            request = GenerateRequest(next(self._ids), tuple(prompts), params)
            for rank in self._group.specs:
                self._group.send(rank, request)
            results = {rank: self._group.recv(rank) for rank in self._group.specs}
        leader = results[min(results)]
        assert isinstance(leader, GenerateResult)
        if leader.error is not None:
            raise ValueError(leader.error)
        images = [PILImage.frombytes("RGB", (w, h), data) for w, h, data in leader.images]
        folder = output_path or self.server_args.output_path
        if folder is not None:
            Path(folder).mkdir(parents=True, exist_ok=True)
            for index, (text, image) in enumerate(zip(prompts, images, strict=True)):
                image.save(Path(folder) / f"{request.rid:04d}_{index}_{_slug(text)}.png")
        return images if not isinstance(prompt, str) else images[0]

    def shutdown(self) -> None:
        """Stop the workers (idempotent): ask them, wait a little, then terminate."""
        with self._lock:
            first, self._closed = not self._closed, True
        if first:
            _live.discard(self)
            with contextlib.suppress(OSError):  # a worker that is gone is terminated below
                for rank in self._group.specs:
                    self._group.send(rank, ShutdownRequest())
                self._group.join(timeout=_EXIT_GRACE)
            self._group.shutdown()

    def __enter__(self) -> DiffGenerator:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.shutdown()
