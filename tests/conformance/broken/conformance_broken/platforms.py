"""The broken platform classes: :class:`Good` and one subclass per defect."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from sglang.runtime.builtin.srt import CpuSRTPlatform
from sglang.sdk.device import PlatformEnum

if TYPE_CHECKING:
    import torch

    from sglang.sdk.srt_runtime import GraphRunner, MHAKVPool


class Good(CpuSRTPlatform):
    """A correct out-of-tree platform on host memory (the built-in CPU's operations)."""

    _enum: ClassVar[PlatformEnum] = PlatformEnum.OOT


class SignatureDrift(Good):
    """Renames ``verify_quantization``'s parameter ``quant``."""

    def verify_quantization(self, method: str) -> None:  # pyright: ignore[reportIncompatibleMethodOverride]
        """Accept every method (under the wrong parameter name)."""


class PublicHelper(Good):
    """Adds a public method outside the contract."""

    def helper(self) -> int:
        """A vendor helper that should have been ``_helper``."""
        return 1


class IdentityLies(Good):
    """Claims to be CUDA while ``_enum`` is OOT."""

    def is_cuda(self) -> bool:
        """Wrong: the enum says otherwise."""
        return True


class MemoryLies(Good):
    """Reports more memory in use than the device has."""

    def get_current_memory_usage(self, device: torch.device | None = None) -> float:
        """Twice the total: a lie."""
        return 2.0 * self.get_device_total_memory()


class WrongType(Good):
    """Answers a ``bool`` query with an ``int``."""

    def is_pin_memory_available(self, device: str | torch.device | int | None = None) -> bool:
        """``0`` is not ``False``."""
        result: Any = 0
        return result  # type: ignore[no-any-return]


class LossyKVPool(Good):
    """Returns a KV pool that drops all but the first token of each write."""

    def get_mha_kv_pool_cls(self) -> type[MHAKVPool]:
        """The lossy pool."""
        from .runtime import LossyPool

        return LossyPool


class WrongOp(Good):
    """Dispatches RMSNorm to an implementation that is one percent off."""

    def get_dispatch_key_name(self) -> str:
        """The broken kernels' key."""
        return "broken"

    def init_backend(self) -> None:
        """Register the broken RMSNorm."""
        from .runtime import install_wrong_rms_norm

        install_wrong_rms_norm()


class PrefixBlindAttention(Good):
    """Its attention backend ignores cached keys in a prefill (see ``PrefixBlindBackend``)."""

    def get_default_attention_backend(self) -> str:
        """The broken backend."""
        return "prefix_blind"

    def init_backend(self) -> None:
        """Register the broken backend."""
        from .runtime import install_prefix_blind_attention

        install_prefix_blind_attention()


class GraphsNeverCaptured(Good):
    """Declares graph capture but keeps the eager graph runner."""

    def support_cuda_graph(self) -> bool:
        """Claim capture."""
        return True


class GoodGraphs(GraphsNeverCaptured):
    """Declares graph capture, with a runner that replays every decode batch."""

    def get_graph_runner_cls(self) -> type[GraphRunner]:
        """The replaying runner."""
        from .runtime import ReplayingGraphRunner

        return ReplayingGraphRunner


class StaleGraphInputs(GraphsNeverCaptured):
    """Declares graph capture, with a runner that replays the captured batch's inputs."""

    def get_graph_runner_cls(self) -> type[GraphRunner]:
        """The runner whose replays ignore the batch they are given."""
        from .runtime import StaleInputsGraphRunner

        return StaleInputsGraphRunner


class BadServerArgs(Good):
    """Sets an invalid default."""

    def apply_server_args_defaults(self, server_args: object) -> None:
        """``page_size = 0``: check_server_args() rejects it."""
        setattr(server_args, "page_size", 0)  # noqa: B010
