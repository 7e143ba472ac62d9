"""Starting the engine's scheduler ranks: :func:`launch_subprocesses`.

Before anything is spawned the plugins are loaded, the arguments and the
model path are checked and the platform is asked for the runtime's
factories, so a mistake fails in the calling process with one message.
Then one scheduler process per local tensor-parallel rank starts through
the shared spawn bootstrap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sglang.runtime.bootstrap import WorkerGroup
    from sglang.srt.server_args import ServerArgs

__all__ = ["EXIT_GRACE", "follow_node_zero", "launch_subprocesses"]

_STEPS = ("sglang.srt.platforms:initialize_current_platform", "sglang.srt.plugins:load_plugins")
_TARGET = "sglang.srt.managers.scheduler:run_scheduler_process"
_WATCHED = (  # modules whose classes hooks must reach (io_struct and the like are plain data)
    "sglang.srt.managers.scheduler",
    "sglang.srt.managers.tp_worker",
    "sglang.srt.managers.schedule_batch",
    "sglang.srt.model_executor",
    "sglang.srt.models",
    "sglang.srt.layers",
    "sglang.srt.mem_cache",
)
_FACTORIES = ("get_mha_kv_pool_cls", "get_paged_allocator_cls", "get_graph_runner_cls")
_START_TIMEOUT = 600.0
EXIT_GRACE = 5.0
"""Seconds a scheduler rank gets to exit after it is asked to."""


def _check_platform() -> None:
    """Fail now, not in a child, when the platform cannot run the runtime."""
    from sglang.srt.platforms import current_platform

    for name in _FACTORIES:
        try:
            getattr(current_platform, name)()
        except NotImplementedError:
            raise RuntimeError(
                f"the SRT platform {type(current_platform).__qualname__} cannot run the reference "
                f"runtime: it does not implement {name}(). No accelerator, platform plugin or "
                f"CPU engine was selected (see sglang plugins explain). Fix: set "
                f"SGLANG_USE_CPU_ENGINE=1 to run on the CPU, or install a platform plugin for "
                f"your hardware."
            ) from None


def follow_node_zero(group: WorkerGroup) -> None:
    """Node rank > 0: wait until every local scheduler rank exits (node 0 stops them).

    Raises:
        sglang.runtime.bootstrap.WorkerFailedError: A rank failed (its error).
    """
    try:
        for rank, process in group.processes.items():
            process.join()
            if process.exitcode != 0:
                group.recv(rank, timeout=EXIT_GRACE)  # raises with the rank's error
    finally:
        group.shutdown()


def launch_subprocesses(server_args: ServerArgs) -> tuple[WorkerGroup, dict[int, object]]:
    """Load plugins, check the arguments and the platform, start the scheduler ranks.

    Returns the worker group and what each local rank reported when ready.
    """
    from sglang.runtime.bootstrap import Payload, WorkerGroup, WorkerSpec, local_rendezvous_address
    from sglang.srt.configs.model_path import resolve_model_paths
    from sglang.srt.plugins import load_plugins

    load_plugins()
    server_args.check_server_args()
    resolve_model_paths(server_args)
    _check_platform()
    if server_args.tp_size > 1 and not server_args.dist_init_addr:
        server_args.dist_init_addr = local_rendezvous_address()
    per_node = server_args.tp_size // server_args.nnodes
    first = server_args.node_rank * per_node
    payload = Payload.pack(server_args)
    specs = [
        WorkerSpec(
            name=f"SRT scheduler rank {rank}",
            target=_TARGET,
            payload=payload,
            steps=_STEPS,
            rank=rank,
            watched_modules=_WATCHED,
            log_level=server_args.log_level,
        )
        for rank in range(first, first + per_node)
    ]
    group = WorkerGroup(specs).start()
    return group, group.wait_ready(timeout=_START_TIMEOUT)
