"""Device identity types and the :class:`DeviceMixin` of SRT platforms.

Everything here is importable without torch: torch types appear only in
annotations, and the two defaults that the specification defines in terms
of torch (:meth:`DeviceMixin.inference_mode` and
:meth:`DeviceMixin.seed_everything`) import it when they are called.
"""

from __future__ import annotations

import enum
from collections import namedtuple
from collections.abc import Mapping

from sglang.sdk.contract import Operation, OperationStatus, operation_table

TYPE_CHECKING = False
if TYPE_CHECKING:
    from contextlib import AbstractContextManager
    from typing import ClassVar, NamedTuple

    import torch

__all__ = [
    "DEVICE_OPERATIONS",
    "CpuArchEnum",
    "DeviceCapability",
    "DeviceMixin",
    "PlatformEnum",
    "PlatformIdentity",
    "detect_cpu_architecture",
    "seed_all_rngs",
    "torch_inference_mode",
]


class PlatformEnum(enum.Enum):
    """The identity of an SRT platform.

    Out-of-tree platforms use :attr:`OOT`; the other members name the
    built-in hardware families.
    """

    CUDA = enum.auto()
    ROCM = enum.auto()
    CPU = enum.auto()
    XPU = enum.auto()
    MUSA = enum.auto()
    NPU = enum.auto()
    TPU = enum.auto()
    MPS = enum.auto()
    OOT = enum.auto()
    UNSPECIFIED = enum.auto()


class CpuArchEnum(enum.Enum):
    """The host CPU architecture family."""

    X86 = enum.auto()
    ARM = enum.auto()
    UNSPECIFIED = enum.auto()


if TYPE_CHECKING:

    class _Capability(NamedTuple):
        major: int
        minor: int

else:
    # the same named tuple, without importing typing on the way to current_platform
    _Capability = namedtuple("_Capability", ("major", "minor"))


class DeviceCapability(_Capability):
    """A device's compute capability, ordered like a version: ``(major, minor)``.

    ``DeviceCapability(8, 0) < DeviceCapability(9, 0)`` holds because
    named tuples compare field by field.
    """

    __slots__ = ()

    def as_version_str(self) -> str:
        """Return ``"major.minor"``, for example ``"9.0"``."""
        return f"{self.major}.{self.minor}"

    def to_int(self) -> int:
        """Return ``major * 10 + minor``, for example ``90`` for 9.0."""
        return self.major * 10 + self.minor


_CPU_ARCH_BY_MACHINE: Mapping[str, CpuArchEnum] = {
    "x86_64": CpuArchEnum.X86,
    "amd64": CpuArchEnum.X86,
    "i386": CpuArchEnum.X86,
    "i686": CpuArchEnum.X86,
    "arm64": CpuArchEnum.ARM,
    "aarch64": CpuArchEnum.ARM,
    "armv7l": CpuArchEnum.ARM,
}


def detect_cpu_architecture(machine: str | None = None) -> CpuArchEnum:
    """Map ``platform.machine()`` (or *machine*) to a :class:`CpuArchEnum`."""
    if machine is None:
        import platform  # imported here: a millisecond that startup need not pay

        machine = platform.machine()
    name = machine.lower()
    return _CPU_ARCH_BY_MACHINE.get(name, CpuArchEnum.UNSPECIFIED)


def torch_inference_mode() -> AbstractContextManager[object]:
    """Return ``torch.inference_mode(True)``, importing torch only now."""
    import torch

    return torch.inference_mode(True)


def seed_all_rngs(seed: int | None) -> None:
    """Seed ``random``, numpy (when installed) and torch; ``None`` does nothing."""
    if seed is None:
        return
    import random

    random.seed(seed)
    try:
        import numpy
    except ImportError:
        pass
    else:
        numpy.random.seed(seed)
    import torch

    torch.manual_seed(seed)  # pyright: ignore[reportUnknownMemberType]


class PlatformIdentity:
    """Identity queries shared by the SRT and diffusion platform bases.

    A platform declares ``_enum``; each ``is_*`` query compares that member's
    *name*, so the same code serves both runtimes' ``PlatformEnum`` types.
    Each runtime's base class types ``_enum`` as its own ``PlatformEnum``
    (so a checker rejects the other runtime's members) and returns it from
    :meth:`_identity`.
    """

    _CUDA_ALIKE: ClassVar[frozenset[str]] = frozenset({"CUDA", "ROCM", "MUSA"})
    _runtime_title: ClassVar[str] = "SGLang"
    """The runtime this base class belongs to, for :meth:`__repr__` (``"SRT"``, ...)."""
    _origin: str | None = None
    """How platform selection chose this instance, for :meth:`__repr__`.

    Set by selection on the instance it makes current, for example
    ``"entry point 'demo' of distribution sglang-demo-platform 0.1.0
    (explicit: SGLANG_PLATFORM=demo)"`` or ``"built-in fallback: no plugin
    activated and CUDA is available"``; ``None`` on an instance that
    selection did not make.
    """

    def __repr__(self) -> str:
        """Say which platform this is: class, runtime, device and where it came from.

        For example ``<SRT platform pkg.mod.MyPlatform, device 'mydev', from
        entry point 'mydev' of distribution my-plugin 1.0 (explicit:
        SGLANG_PLATFORM=mydev)>``.
        """
        cls = type(self)
        name = getattr(self, "device_name", "unspecified")
        origin = self._origin or "not chosen by platform selection"
        return (
            f"<{self._runtime_title} platform {cls.__module__}.{cls.__qualname__}, "
            f"device {name!r}, {origin}>"
        )

    def _identity(self) -> enum.Enum:
        """Return the platform's identity member (the runtime base returns ``_enum``)."""
        raise missing_override(self, "_identity")

    def _is(self, name: str) -> bool:
        return self._identity().name == name

    def is_cuda(self) -> bool:
        """Whether this is the NVIDIA CUDA platform."""
        return self._is("CUDA")

    def is_rocm(self) -> bool:
        """Whether this is the AMD ROCm platform."""
        return self._is("ROCM")

    def is_npu(self) -> bool:
        """Whether this is the Huawei NPU platform."""
        return self._is("NPU")

    def is_cpu(self) -> bool:
        """Whether this is the CPU-only platform."""
        return self._is("CPU")

    def is_xpu(self) -> bool:
        """Whether this is the Intel XPU platform."""
        return self._is("XPU")

    def is_musa(self) -> bool:
        """Whether this is the Moore Threads MUSA platform."""
        return self._is("MUSA")

    def is_mps(self) -> bool:
        """Whether this is the Apple MPS platform."""
        return self._is("MPS")

    def is_cuda_alike(self) -> bool:
        """Whether the hardware offers a CUDA-like API (CUDA, ROCm or MUSA)."""
        return self._identity().name in self._CUDA_ALIKE

    def is_out_of_tree(self) -> bool:
        """Whether this platform comes from a plugin (``_enum`` is ``OOT``)."""
        return self._is("OOT")


def missing_override(platform: object, operation: str) -> NotImplementedError:
    """Return the error a base-class method raises when a platform must override it."""
    return NotImplementedError(
        f"{type(platform).__qualname__} does not implement {operation}(); "
        f"override it in the platform class"
    )


class DeviceMixin(PlatformIdentity):
    """Device identity and device operations of an SRT platform.

    Subclasses set ``_enum`` (``PlatformEnum.OOT`` for plugins),
    ``device_name`` and ``device_type`` (the torch device type) and override
    the operations their hardware supports. :data:`DEVICE_OPERATIONS` records
    which operations the core calls today.
    """

    _enum: ClassVar[PlatformEnum] = PlatformEnum.UNSPECIFIED
    device_name: str = "unspecified"
    """Human-readable platform name, for example ``"cuda"``."""
    device_type: str = "cpu"
    """The torch device type this platform allocates on."""

    def _identity(self) -> enum.Enum:
        return self._enum

    def get_device(self, local_rank: int) -> torch.device:
        """Return the ``torch.device`` for *local_rank*."""
        raise missing_override(self, "get_device")

    def set_device(self, device: torch.device) -> None:
        """Make *device* the current device of this process."""
        raise missing_override(self, "set_device")

    def get_device_name(self, device_id: int = 0) -> str:
        """Return a human-readable name of device *device_id*."""
        raise missing_override(self, "get_device_name")

    def get_device_uuid(self, device_id: int = 0) -> str:
        """Return a unique identifier of device *device_id*."""
        raise missing_override(self, "get_device_uuid")

    def get_device_capability(self, device_id: int = 0) -> DeviceCapability | None:
        """Return the compute capability of *device_id*, or ``None`` if not applicable."""
        raise missing_override(self, "get_device_capability")

    def empty_cache(self) -> None:
        """Release cached device memory (default: nothing to release)."""

    def synchronize(self) -> None:
        """Wait for outstanding device work (default: nothing to wait for)."""

    def get_device_total_memory(self, device_id: int = 0) -> int:
        """Return the total memory of *device_id*, in bytes."""
        raise missing_override(self, "get_device_total_memory")

    def get_available_memory(self, device_id: int = 0) -> tuple[int, int]:
        """Return ``(free_bytes, total_bytes)`` of *device_id*."""
        raise missing_override(self, "get_available_memory")

    def get_current_memory_usage(self, device: torch.device | None = None) -> float:
        """Return the current peak memory usage of *device*, in bytes."""
        raise missing_override(self, "get_current_memory_usage")

    def is_pin_memory_available(self, device: str | torch.device | int | None = None) -> bool:
        """Whether pinned host memory speeds up copies to *device* (default ``False``).

        *device* is anything torch accepts as a device: a ``torch.device``,
        a string such as ``"cuda"`` or ``"cuda:1"``, or an index; ``None``
        or an index means this platform's device. A CPU target is never
        worth pinning for.
        """
        return False

    def get_torch_distributed_backend_str(self) -> str:
        """Return the ``torch.distributed`` backend name, for example ``"nccl"``."""
        raise missing_override(self, "get_torch_distributed_backend_str")

    def get_communicator_class(self) -> type[object] | None:
        """Return a platform-specific communicator class, or ``None``."""
        return None

    def inference_mode(self) -> AbstractContextManager[object]:
        """Return the inference-mode context manager (default ``torch.inference_mode(True)``)."""
        return torch_inference_mode()

    def seed_everything(self, seed: int | None = None) -> None:
        """Seed ``random``, numpy (if installed) and torch with *seed*; ``None`` does nothing."""
        seed_all_rngs(seed)

    def verify_quantization(self, quant: str) -> None:
        """Raise if quantization method *quant* is unsupported (default: accept all)."""

    def get_cpu_architecture(self) -> CpuArchEnum:
        """Return the host CPU architecture (default: detected from ``platform.machine()``)."""
        return detect_cpu_architecture()


_A, _P = OperationStatus.ACTIVE, OperationStatus.PLANNED
_RAISE = "raise NotImplementedError"
_ALWAYS = "always"

DEVICE_OPERATIONS: Mapping[str, Operation] = operation_table(
    Operation("get_device", _P, _RAISE, "torch.device for a local rank", "device", _ALWAYS),
    Operation("set_device", _P, _RAISE, "set the current device", "device", _ALWAYS),
    Operation("get_device_name", _P, _RAISE, "human-readable device name", "device"),
    Operation("get_device_uuid", _P, _RAISE, "unique device identifier", "device"),
    Operation(
        "get_device_capability", _P, _RAISE, "DeviceCapability(major, minor) or None", "device"
    ),
    Operation("empty_cache", _P, "pass", "release cached device memory", "device"),
    Operation("synchronize", _P, "pass", "synchronize device work", "device"),
    Operation("get_device_total_memory", _A, _RAISE, "total device memory in bytes", "device"),
    Operation(
        "get_available_memory",
        _P,
        _RAISE,
        "(free_bytes, total_bytes)",
        "device",
        "unless --max-total-tokens is given",
    ),
    Operation("get_current_memory_usage", _A, _RAISE, "current peak usage in bytes", "device"),
    Operation("is_pin_memory_available", _A, "False", "pinned host memory usable", "device"),
    Operation(
        "get_torch_distributed_backend_str",
        _P,
        _RAISE,
        "distributed backend string",
        "device",
        _ALWAYS,
    ),
    Operation("get_communicator_class", _P, "None", "platform communicator class", "device"),
    Operation(
        "inference_mode",
        _P,
        "torch.inference_mode(True)",
        "inference context manager",
        "device",
        _ALWAYS,
    ),
    Operation("seed_everything", _P, "seed random/numpy/torch", "seed every RNG", "device"),
    Operation("verify_quantization", _P, "pass", "validate a quantization method", "device"),
    Operation("get_cpu_architecture", _P, "detect x86/arm", "host CPU architecture", "device"),
)
"""Every :class:`DeviceMixin` operation with its Active/Planned status."""
