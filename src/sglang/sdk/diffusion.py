"""The diffusion platform contract: :class:`Platform` and its ``PlatformEnum``.

Diffusion has its own platform identity type and base class, separate from
SRT's: a package that supports both runtimes defines two platform classes,
each using its runtime's ``PlatformEnum.OOT``. :data:`DIFFUSION_OPERATIONS`
lists the Active and Compatibility interfaces; methods not listed there are
not a stable out-of-tree contract.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping

from sglang.sdk.contract import Operation, OperationStatus, operation_table
from sglang.sdk.device import (
    CpuArchEnum,
    DeviceCapability,
    PlatformIdentity,
    detect_cpu_architecture,
    missing_override,
    seed_all_rngs,
    torch_inference_mode,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from contextlib import AbstractContextManager
    from typing import ClassVar

    import torch

    from sglang.sdk.constants import DiffusionPlatformApiVersion

__all__ = ["DIFFUSION_OPERATIONS", "Platform", "PlatformEnum"]


class PlatformEnum(enum.Enum):
    """The identity of a diffusion platform (distinct from SRT's enum)."""

    CUDA = enum.auto()
    ROCM = enum.auto()
    TPU = enum.auto()
    XPU = enum.auto()
    CPU = enum.auto()
    MPS = enum.auto()
    MUSA = enum.auto()
    NPU = enum.auto()
    OOT = enum.auto()
    UNSPECIFIED = enum.auto()


# The CustomOp implementation each identity selects: ``forward_<key>()``.
_DISPATCH_KEY_NAMES: Mapping[str, str] = {
    "CUDA": "cuda",
    "ROCM": "hip",
    "TPU": "tpu",
    "XPU": "xpu",
    "CPU": "cpu",
    "MPS": "mps",
    "MUSA": "musa",
    "NPU": "npu",
    "OOT": "oot",
    "UNSPECIFIED": "native",
}


class Platform(PlatformIdentity):
    """Base class of every diffusion platform, built-in or out of tree.

    Subclasses must be constructible without arguments. ``dispatch_key`` is
    the PyTorch dispatch key used for direct ``torch.library`` registrations;
    keep it separate from :meth:`get_dispatch_key_name`, which selects the
    ``CustomOp`` implementation (``forward_<name>()``).
    """

    _runtime_title = "diffusion"
    _enum: ClassVar[PlatformEnum] = PlatformEnum.UNSPECIFIED

    api_version: ClassVar[DiffusionPlatformApiVersion]
    """The diffusion platform contract version the class implements, as a literal.

    Declare it in the platform class body, ``api_version: ClassVar[Literal[1]] = 1``
    (:data:`~sglang.sdk.constants.DiffusionPlatformApiVersion`), as for SRT:
    this base class does not set it; a class without it is treated as
    version 1 and reported as undeclared by ``sglang plugins check``.
    """

    device_name: str = "unspecified"
    """Human-readable platform name."""
    device_type: str = "cpu"
    """The torch device type this platform allocates on."""
    dispatch_key: str = "CPU"
    """The PyTorch dispatch key for ``torch.library`` registrations."""

    def _identity(self) -> enum.Enum:
        return self._enum

    # -- Initialisation and configuration ------------------------------------

    def init_backend(self) -> None:
        """Initialise the backend once per worker, before pipeline modules are built."""

    def apply_server_args_defaults(self, server_args: object) -> None:
        """Set platform defaults on *server_args*."""

    # -- Device and memory -----------------------------------------------------

    def get_device(self, local_rank: int) -> torch.device:
        """Return the ``torch.device`` for *local_rank*."""
        raise missing_override(self, "get_device")

    def set_device(self, device: torch.device) -> None:
        """Make *device* the current device of this process."""
        raise missing_override(self, "set_device")

    def get_local_torch_device(self) -> torch.device:
        """Return the device this worker is bound to."""
        raise missing_override(self, "get_local_torch_device")

    def get_device_name(self, device_id: int = 0) -> str:
        """Return a human-readable name of device *device_id*."""
        raise missing_override(self, "get_device_name")

    def get_device_uuid(self, device_id: int = 0) -> str:
        """Return a unique identifier of device *device_id*."""
        raise missing_override(self, "get_device_uuid")

    def get_device_total_memory(self, device_id: int = 0) -> int:
        """Return the total memory of *device_id*, in bytes."""
        raise missing_override(self, "get_device_total_memory")

    def get_available_gpu_memory(self, device_id: int = 0) -> int:
        """Return the free memory of *device_id*, in bytes."""
        raise missing_override(self, "get_available_gpu_memory")

    def get_device_capability(self, device_id: int = 0) -> DeviceCapability | None:
        """Return the compute capability of *device_id*, or ``None``."""
        return None

    # -- Distributed -----------------------------------------------------------

    def get_torch_distributed_backend_str(self) -> str:
        """Return the ``torch.distributed`` backend name (default ``"gloo"``)."""
        return "gloo"

    def supports_distributed_device_id(self) -> bool:
        """Whether ``init_process_group`` may be given a ``device_id``."""
        return False

    def get_device_communicator_cls(self) -> type[object] | None:
        """Compatibility: the communicator class of older platform subclasses."""
        return None

    def get_all_to_all_communicator_cls(self) -> type[object] | None:
        """Return the communicator used by ``all_to_all_4D()``.

        Defaults to :meth:`get_device_communicator_cls`, the compatibility
        fallback; new platforms override this method instead.
        """
        return self.get_device_communicator_cls()

    def get_cpu_architecture(self) -> CpuArchEnum:
        """Return the host CPU architecture."""
        return detect_cpu_architecture()

    # -- Dispatch and models ---------------------------------------------------

    def get_torch_library_dispatch_key(self) -> str:
        """Return :attr:`dispatch_key`, for ``torch.library`` registrations."""
        return self.dispatch_key

    def get_dispatch_key_name(self) -> str:
        """Return the ``CustomOp`` key: ``forward_<key>()`` is preferred for each op."""
        return _DISPATCH_KEY_NAMES[self._enum.name]

    def get_attn_backend_cls_str(self, selected_backend: str | None, head_size: int) -> str:
        """Return the dotted path of the attention backend class to use."""
        raise missing_override(self, "get_attn_backend_cls_str")

    def verify_model_arch(self, model_arch: str) -> None:
        """Raise if *model_arch* cannot run on this platform (default: accept)."""

    def optimize_vae(self, vae: object) -> object:
        """Return *vae* prepared for this platform (default: unchanged)."""
        return vae

    # -- Execution -------------------------------------------------------------

    def get_compile_backend(self) -> str:
        """Return the torch.compile backend name (default ``"inductor"``)."""
        return "inductor"

    def get_compile_options(self) -> Mapping[str, object]:
        """Return extra ``torch.compile`` options (default: none)."""
        return {}

    def inference_mode(self) -> AbstractContextManager[object]:
        """Return the inference-mode context manager (default ``torch.inference_mode(True)``)."""
        return torch_inference_mode()

    def seed_everything(self, seed: int | None = None) -> None:
        """Seed ``random``, numpy (if installed) and torch; ``None`` does nothing."""
        seed_all_rngs(seed)

    def enable_dit_layerwise_offload_by_default(self) -> bool:
        """Whether DiT layer-wise offload is on by default (default ``False``)."""
        return False


_A, _C = OperationStatus.ACTIVE, OperationStatus.COMPATIBILITY
_RAISE = "raise NotImplementedError"
_ALWAYS = "always"
_DEV, _DIST, _DISP, _EXEC = "device and memory", "distributed", "dispatch and model", "execution"
_COMPILE = "with --enable-torch-compile"

DIFFUSION_OPERATIONS: Mapping[str, Operation] = operation_table(
    Operation("init_backend", _A, "pass", "one-time backend init", "initialisation", _ALWAYS),
    Operation(
        "apply_server_args_defaults", _A, "pass", "ServerArgs defaults", "configuration", _ALWAYS
    ),
    Operation("get_device", _A, _RAISE, "torch.device for a rank", _DEV, _ALWAYS),
    Operation("set_device", _A, _RAISE, "set the current device", _DEV, _ALWAYS),
    Operation("get_local_torch_device", _A, _RAISE, "bound device", _DEV, _ALWAYS),
    Operation("get_device_name", _A, _RAISE, "device name", _DEV, _ALWAYS),
    Operation("get_device_uuid", _A, _RAISE, "device identifier", _DEV, _ALWAYS),
    Operation("get_device_total_memory", _A, _RAISE, "total bytes", _DEV, _ALWAYS),
    Operation("get_available_gpu_memory", _A, _RAISE, "free bytes", _DEV, _ALWAYS),
    Operation("get_device_capability", _A, "None", "compute capability", _DEV, _ALWAYS),
    Operation("get_torch_distributed_backend_str", _A, '"gloo"', "backend", _DIST, _ALWAYS),
    Operation("supports_distributed_device_id", _A, "False", "device_id", _DIST, _ALWAYS),
    Operation("get_all_to_all_communicator_cls", _A, "compat fallback", "a2a", _DIST, _ALWAYS),
    Operation("get_cpu_architecture", _A, "detect", "host CPU architecture", _DIST, _ALWAYS),
    Operation("dispatch_key", _A, '"CPU"', "torch.library dispatch key", _DISP, _ALWAYS),
    Operation("get_torch_library_dispatch_key", _A, "dispatch_key", "reads it", _DISP, _ALWAYS),
    Operation("get_dispatch_key_name", _A, "by identity", "CustomOp key", _DISP, _ALWAYS),
    Operation("get_attn_backend_cls_str", _A, _RAISE, "attention class", _DISP, _ALWAYS),
    Operation("verify_model_arch", _A, "pass", "model support check", _DISP, _ALWAYS),
    Operation("optimize_vae", _A, "identity", "VAE preparation", _DISP, _ALWAYS),
    Operation("get_compile_backend", _A, '"inductor"', "compile backend", _EXEC, _COMPILE),
    Operation("get_compile_options", _A, "{}", "compile options", _EXEC, _COMPILE),
    Operation("inference_mode", _A, "torch.inference_mode(True)", "context", _EXEC, _ALWAYS),
    Operation("seed_everything", _A, "seed RNGs", "reproducibility", _EXEC, _ALWAYS),
    Operation(
        "enable_dit_layerwise_offload_by_default", _A, "False", "DiT offload", _EXEC, _ALWAYS
    ),
    Operation(
        "get_device_communicator_cls",
        _C,
        "None",
        "legacy communicator",
        "communicator",
        "when get_all_to_all_communicator_cls() returns None",
    ),
)
"""Every diffusion :class:`Platform` interface with its Active/Compatibility status."""
