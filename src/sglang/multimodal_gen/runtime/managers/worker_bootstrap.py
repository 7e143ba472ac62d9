"""Spawning diffusion workers on the shared bootstrap (:mod:`sglang.runtime.bootstrap`).

A scheduler child unpickles its :class:`SchedulerProcessSpec` (standard
library types plus the opaque :class:`ServerArgsPayload`) and then runs,
in order::

    initialize_current_platform()   # init_backend(), once
    load_plugins()                  # callbacks register hooks; nothing is resolved
    apply_plugin_hooks()            # targets may be imported from here on
    materialise ServerArgs
    resolve and call the (patched) gpu_worker.run_scheduler_process

The HTTP server child (:class:`HTTPServerProcessSpec`) registers the
plugins and applies their hooks before it imports
``sglang.multimodal_gen.runtime.launch_server`` or materialises the
arguments, for the same reason. A child that finds runtime modules
already imported (the launching script's module scope ran again in it)
logs one WARNING naming each of them.
Importing this module imports no diffusion runtime module and no torch.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sglang.runtime.bootstrap import Payload, WorkerGroup, WorkerSpec, local_rendezvous_address

if TYPE_CHECKING:
    from sglang.multimodal_gen.runtime.server_args import ServerArgs

__all__ = [
    "HTTP_STEPS",
    "HTTP_TARGET",
    "SERVER_ARGS_TYPE",
    "STEPS",
    "TARGET",
    "WATCHED_MODULES",
    "HTTPServerProcessSpec",
    "SchedulerProcessSpec",
    "ServerArgsPayload",
    "launch_scheduler_processes",
]

SERVER_ARGS_TYPE = "sglang.multimodal_gen.runtime.server_args:ServerArgs"
"""What a :class:`ServerArgsPayload` holds."""

STEPS = (
    "sglang.multimodal_gen.runtime.platforms:initialize_current_platform",
    "sglang.multimodal_gen.runtime.platforms.plugins:load_plugins",
    "sglang.multimodal_gen.runtime.platforms.plugins:apply_plugin_hooks",
)
"""The start-up steps of every scheduler child, in order."""

TARGET = "sglang.multimodal_gen.runtime.managers.gpu_worker:run_scheduler_process"
"""The scheduler child's target, resolved after the hooks are applied."""

HTTP_STEPS = STEPS[1:]
"""The HTTP server child's start-up steps: plugin registration, then hook application."""

HTTP_TARGET = "sglang.multimodal_gen.runtime.launch_server:run_http_server"
"""The HTTP server child's target, resolved after the hooks are applied."""

WATCHED_MODULES = (
    "sglang.multimodal_gen.runtime.managers.gpu_worker",
    "sglang.multimodal_gen.runtime.pipelines",
    "sglang.multimodal_gen.runtime.models",
    "sglang.multimodal_gen.runtime.layers",
    "sglang.multimodal_gen.runtime.distributed",
    "sglang.multimodal_gen.runtime.entrypoints",
    "sglang.multimodal_gen.runtime.launch_server",
)
"""Runtime modules a child should not find imported before its hooks are applied."""


@dataclass(frozen=True)
class ServerArgsPayload(Payload):
    """The server arguments as opaque pickled bytes.

    Materialising imports :data:`SERVER_ARGS_TYPE` first, then unpickles
    and checks the type, so unpickling the spec imports no pipeline module.
    """

    @classmethod
    def from_server_args(cls, server_args: ServerArgs) -> ServerArgsPayload:
        """Pickle *server_args*, a :data:`SERVER_ARGS_TYPE`."""
        kind = type(server_args)
        if f"{kind.__module__}:{kind.__qualname__}" != SERVER_ARGS_TYPE:
            raise TypeError(f"ServerArgsPayload holds a {SERVER_ARGS_TYPE}, not {kind!r}")
        return cls(SERVER_ARGS_TYPE, pickle.dumps(server_args))


@dataclass(frozen=True)
class SchedulerProcessSpec(WorkerSpec):
    """A scheduler child: a shared :class:`~sglang.runtime.bootstrap.WorkerSpec` with our steps."""

    @classmethod
    def for_rank(cls, payload: ServerArgsPayload, rank: int) -> SchedulerProcessSpec:
        """The spec of sequence-parallel rank *rank*."""
        return cls(
            name=f"diffusion scheduler rank {rank}",
            target=TARGET,
            payload=payload,
            steps=STEPS,
            rank=rank,
            watched_modules=WATCHED_MODULES,
        )


@dataclass(frozen=True)
class HTTPServerProcessSpec(WorkerSpec):
    """The HTTP server child: plugins and hooks first, then ``runtime.launch_server``."""

    @classmethod
    def for_server(cls, payload: ServerArgsPayload) -> HTTPServerProcessSpec:
        """The spec of the one HTTP server process."""
        return cls(
            name="diffusion HTTP server",
            target=HTTP_TARGET,
            payload=payload,
            steps=HTTP_STEPS,
            watched_modules=WATCHED_MODULES,
        )


def launch_scheduler_processes(
    server_args: ServerArgs, timeout: float
) -> tuple[WorkerGroup, dict[int, object]]:
    """Start one scheduler child per sequence-parallel rank; wait until all are ready.

    Raises:
        sglang.runtime.bootstrap.WorkerFailedError: A child failed (its
            error and traceback text are in the message).
    """
    if not server_args.dist_init_addr:
        server_args.dist_init_addr = local_rendezvous_address()
    payload = ServerArgsPayload.from_server_args(server_args)
    specs = [SchedulerProcessSpec.for_rank(payload, rank) for rank in range(server_args.sp_degree)]
    group = WorkerGroup(specs).start()
    return group, group.wait_ready(timeout=timeout)
