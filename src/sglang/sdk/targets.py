"""The documented hook targets: each one's path, signature and signature version, once.

A hook on a documented target is part of the contract: the target keeps its
path and its signature within a version, and a registration may state the
version it was written against (``api_version=1`` to
``HookRegistry.register(...)`` or ``plugin_hook(...)``), so that a stale
registration is refused when hooks are applied instead of failing later
inside the call. :data:`HOOK_TARGETS` lists them; the API reference's target
table and the contract manifest (``sglang plugins contract``) are generated
from it, and a test keeps each :attr:`~DocumentedTarget.signature` equal to
the real function's.

A hook on any other name works as well, but is the plugin's to maintain.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from sglang.sdk._record import Record
from sglang.sdk.contract import ContractVersions

__all__ = ["HOOK_TARGETS", "DocumentedTarget", "documented_target"]


class DocumentedTarget(Record):
    """One documented hook target.

    Attributes:
        path: The dotted path hooks are registered on.
        runtime: The runtime whose registry hooks it: ``"srt"`` or ``"diffusion"``.
        signature: The target's signature as its hooks see it (a method's
            ``self`` included), with annotations as written in its module.
        use: What plugins hook it for.
        api_version: The version of :attr:`signature`; it changes with any
            change that can break a hook written against it.
        deprecated: Earlier versions still accepted, with one WARNING, for
            one minor release after the change.
        change: What a hook on a deprecated version must change.
    """

    path: str
    runtime: str
    signature: str
    use: str
    api_version: int = 1
    deprecated: frozenset[int] = frozenset()
    change: str = ""

    @property
    def versions(self) -> ContractVersions:
        """The versions of this target's signature that this release accepts."""
        return ContractVersions(
            f"the signature of hook target {self.path!r}",
            self.api_version,
            self.deprecated | {self.api_version},
            self.change,
        )


_SERVER_ARGS = "sglang.srt.server_args.ServerArgs"
_SCHEDULER = "sglang.srt.managers.scheduler.Scheduler"
_WORKER = "sglang.srt.managers.tp_worker.TpModelWorker"
_GPU_WORKER = "sglang.multimodal_gen.runtime.managers.gpu_worker.GPUWorker"


def _table(*targets: DocumentedTarget) -> Mapping[str, DocumentedTarget]:
    table: dict[str, DocumentedTarget] = {}
    for target in targets:
        if target.path in table:
            raise ValueError(f"hook target {target.path!r} is listed twice")
        table[target.path] = target
    return MappingProxyType(table)


HOOK_TARGETS: Mapping[str, DocumentedTarget] = _table(
    DocumentedTarget(
        f"{_SERVER_ARGS}.add_cli_args",
        "srt",
        "(parser: argparse.ArgumentParser) -> None",
        "add custom CLI arguments",
    ),
    DocumentedTarget(
        f"{_SERVER_ARGS}.__post_init__", "srt", "(self) -> None", "adjust ServerArgs after parsing"
    ),
    DocumentedTarget(
        f"{_SERVER_ARGS}.check_server_args", "srt", "(self) -> None", "add or relax validation"
    ),
    DocumentedTarget(
        f"{_SCHEDULER}.__init__",
        "srt",
        "(self, server_args: ServerArgs, tp_rank: int, conn: Connection | None) -> None",
        "custom scheduler state",
    ),
    DocumentedTarget(
        f"{_SCHEDULER}.get_next_batch_to_run",
        "srt",
        "(self) -> ScheduleBatch | None",
        "custom scheduling policy",
    ),
    DocumentedTarget(
        f"{_SCHEDULER}.run_batch",
        "srt",
        "(self, batch: ScheduleBatch) -> GenerationBatchResult",
        "profiling, inspection",
    ),
    DocumentedTarget(
        f"{_SCHEDULER}.process_batch_result",
        "srt",
        "(self, batch: ScheduleBatch, result: GenerationBatchResult) -> None",
        "custom metrics",
    ),
    DocumentedTarget(
        f"{_WORKER}.__init__",
        "srt",
        "(self, server_args: ServerArgs, tp: TensorParallel) -> None",
        "custom worker state",
    ),
    DocumentedTarget(
        f"{_WORKER}.forward_batch_generation",
        "srt",
        "(self, batch: ScheduleBatch) -> GenerationBatchResult",
        "wrap the forward pass",
    ),
    DocumentedTarget(
        f"{_GPU_WORKER}.init_device_and_model",
        "diffusion",
        "(self) -> None",
        "rank-aware initialisation (BEFORE or AROUND)",
    ),
)
"""Every documented hook target, by dotted path, in the documentation's order."""


def documented_target(path: str) -> DocumentedTarget | None:
    """The documented target *path* names (dotted or ``pkg.mod:Cls.meth``), if any."""
    return HOOK_TARGETS.get(path.replace(":", "."))
