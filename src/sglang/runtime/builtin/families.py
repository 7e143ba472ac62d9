"""Device families: one table shared by the SRT and diffusion built-ins.

A :class:`DeviceFamily` says how to detect a kind of hardware and how torch
addresses it. Detection never initialises a device context:

* CUDA and ROCm: ``torch.cuda.device_count()``, which asks NVML (AMD SMI on
  ROCm) before falling back to the CUDA runtime, and ``torch.version.hip``
  to tell the two apart;
* XPU: ``torch.xpu.is_available()`` when torch has an ``xpu`` namespace;
* MPS: ``torch.backends.mps.is_available()``;
* NPU and MUSA: the ``torch_npu`` / ``torch_musa`` extension is imported only
  when :func:`importlib.util.find_spec` finds it installed;
* CPU: always available.

Probes receive a :class:`ProbeContext` (the torch module, or any torch-like
namespace, plus ``find_spec`` and ``import_module``), so tests drive the
whole fallback chain with fake namespaces and :func:`ProbeContext.real`
runs the real probes.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

__all__ = [
    "CPU",
    "CUDA",
    "FAMILIES",
    "MPS",
    "MUSA",
    "NPU",
    "ROCM",
    "XPU",
    "DeviceFamily",
    "ProbeContext",
    "ProbeOutcome",
    "probe_cpu",
    "probe_cuda",
    "probe_families",
    "probe_mps",
    "probe_musa",
    "probe_npu",
    "probe_rocm",
    "probe_xpu",
]


@dataclass(frozen=True)
class ProbeContext:
    """What a probe may look at: torch (or a torch-like namespace) and the importer.

    Attributes:
        torch: The ``torch`` module, or a namespace with the same attributes;
            ``None`` when torch is not installed (then no accelerator probe
            finds anything and only the CPU is available).
        find_spec: Returns a module spec, or ``None`` when the module is not
            installed (``importlib.util.find_spec``).
        import_module: Imports a module by name (``importlib.import_module``).
    """

    torch: object | None
    find_spec: Callable[[str], object | None]
    import_module: Callable[[str], object]

    @classmethod
    def real(cls) -> ProbeContext:
        """Return the context of this interpreter: imports torch now.

        torch is an optional dependency (``sglang[torch]``): when it is not
        installed, the context's :attr:`torch` is ``None``. A torch that is
        installed but fails to import raises.
        """
        try:
            import torch
        except ModuleNotFoundError as exc:
            if exc.name != "torch":
                raise
            return cls(None, importlib.util.find_spec, importlib.import_module)
        return cls(torch, importlib.util.find_spec, importlib.import_module)


def _namespace(torch: object, path: str) -> object | None:
    """Return ``torch.<path>`` (dotted), or ``None`` when any part is missing."""
    target: object | None = torch
    for part in path.split("."):
        target = getattr(target, part, None)
        if target is None:
            return None
    return target


def _call_bool(namespace: object | None, method: str) -> bool:
    """Return ``bool(namespace.method())``, ``False`` if the method is missing."""
    function: Any = getattr(namespace, method, None)
    return False if function is None else bool(function())


def _hip_version(torch: object) -> object | None:
    return getattr(getattr(torch, "version", None), "hip", None)


def _cuda_device_count(torch: object) -> int:
    function: Any = getattr(getattr(torch, "cuda", None), "device_count", None)
    return 0 if function is None else int(function())


def probe_cpu(context: ProbeContext) -> bool:
    """The CPU is always available."""
    return True


def probe_cuda(context: ProbeContext) -> bool:
    """NVIDIA CUDA: a CUDA (not HIP) torch build that sees at least one device."""
    return _hip_version(context.torch) is None and _cuda_device_count(context.torch) > 0


def probe_rocm(context: ProbeContext) -> bool:
    """AMD ROCm: a HIP torch build that sees at least one device."""
    return _hip_version(context.torch) is not None and _cuda_device_count(context.torch) > 0


def probe_xpu(context: ProbeContext) -> bool:
    """Intel XPU: ``torch.xpu`` exists and reports a device."""
    return _call_bool(_namespace(context.torch, "xpu"), "is_available")


def probe_mps(context: ProbeContext) -> bool:
    """Apple MPS: ``torch.backends.mps.is_available()``."""
    return _call_bool(_namespace(context.torch, "backends.mps"), "is_available")


def _probe_extension(context: ProbeContext, family: DeviceFamily) -> bool:
    """Import the family's torch extension only if installed, then ask its namespace."""
    assert family.extension is not None
    assert family.namespace is not None
    if context.find_spec(family.extension) is None:
        return False
    context.import_module(family.extension)
    return _call_bool(_namespace(context.torch, family.namespace), "is_available")


def probe_npu(context: ProbeContext) -> bool:
    """Huawei Ascend NPU: ``torch_npu`` installed and ``torch.npu.is_available()``."""
    return _probe_extension(context, NPU)


def probe_musa(context: ProbeContext) -> bool:
    """Moore Threads MUSA: ``torch_musa`` installed and ``torch.musa.is_available()``."""
    return _probe_extension(context, MUSA)


@dataclass(frozen=True)
class DeviceFamily:
    """A kind of hardware, as both runtimes' built-in platforms see it.

    Attributes:
        key: Short name, for example ``"cuda"``.
        title: Human-readable name for messages (``"CUDA"``).
        enum_name: The member name in both runtimes' ``PlatformEnum``.
        device_type: The torch device type (``"cuda"`` also for ROCm).
        namespace: The torch attribute with the device API (``"cuda"``,
            ``"xpu"``, ...); ``None`` for the CPU, which has none.
        distributed_backend: The ``torch.distributed`` backend name.
        dispatch_key: The PyTorch dispatch key for ``torch.library``.
        dispatch_key_name: The custom/fused-op key: ``forward_<name>()``.
        pin_memory: Whether pinned host memory speeds up copies to it.
        has_capability: Whether ``get_device_capability()`` is meaningful.
        distributed_device_id: Whether ``init_process_group`` takes a ``device_id``.
        probe: Decides availability from a :class:`ProbeContext`.
        extension: The out-of-tree torch extension that registers the
            namespace (``"torch_npu"``), imported only when installed;
            ``None`` when torch itself provides the namespace.
        unified_memory: Whether the device shares host memory (MPS): memory
            is then read from the driver's allocation counters, not from
            per-device properties.
    """

    key: str
    title: str
    enum_name: str
    device_type: str
    namespace: str | None
    distributed_backend: str
    dispatch_key: str
    dispatch_key_name: str
    pin_memory: bool
    has_capability: bool
    distributed_device_id: bool
    probe: Callable[[ProbeContext], bool]
    extension: str | None = None
    unified_memory: bool = False


CPU = DeviceFamily(
    key="cpu",
    title="CPU",
    enum_name="CPU",
    device_type="cpu",
    namespace=None,
    distributed_backend="gloo",
    dispatch_key="CPU",
    dispatch_key_name="cpu",
    pin_memory=False,
    has_capability=False,
    distributed_device_id=False,
    probe=probe_cpu,
)
"""The host CPU."""

CUDA = DeviceFamily(
    key="cuda",
    title="CUDA",
    enum_name="CUDA",
    device_type="cuda",
    namespace="cuda",
    distributed_backend="nccl",
    dispatch_key="CUDA",
    dispatch_key_name="cuda",
    pin_memory=True,
    has_capability=True,
    distributed_device_id=True,
    probe=probe_cuda,
)
"""NVIDIA GPUs through CUDA."""

ROCM = DeviceFamily(
    key="rocm",
    title="ROCm",
    enum_name="ROCM",
    device_type="cuda",
    namespace="cuda",
    distributed_backend="nccl",
    dispatch_key="CUDA",
    dispatch_key_name="hip",
    pin_memory=True,
    has_capability=True,
    distributed_device_id=True,
    probe=probe_rocm,
)
"""AMD GPUs through ROCm/HIP (torch names them ``cuda`` devices; RCCL is ``nccl``)."""

XPU = DeviceFamily(
    key="xpu",
    title="XPU",
    enum_name="XPU",
    device_type="xpu",
    namespace="xpu",
    distributed_backend="xccl",
    dispatch_key="XPU",
    dispatch_key_name="xpu",
    pin_memory=True,
    has_capability=False,
    distributed_device_id=False,
    probe=probe_xpu,
)
"""Intel GPUs through ``torch.xpu``."""

MPS = DeviceFamily(
    key="mps",
    title="MPS",
    enum_name="MPS",
    device_type="mps",
    namespace="mps",
    distributed_backend="gloo",
    dispatch_key="MPS",
    dispatch_key_name="mps",
    pin_memory=False,
    has_capability=False,
    distributed_device_id=False,
    probe=probe_mps,
    unified_memory=True,
)
"""Apple GPUs through Metal Performance Shaders."""

NPU = DeviceFamily(
    key="npu",
    title="NPU",
    enum_name="NPU",
    device_type="npu",
    namespace="npu",
    distributed_backend="hccl",
    dispatch_key="PrivateUse1",
    dispatch_key_name="npu",
    pin_memory=True,
    has_capability=False,
    distributed_device_id=False,
    probe=probe_npu,
    extension="torch_npu",
)
"""Huawei Ascend NPUs through the ``torch_npu`` extension."""

MUSA = DeviceFamily(
    key="musa",
    title="MUSA",
    enum_name="MUSA",
    device_type="musa",
    namespace="musa",
    distributed_backend="mccl",
    dispatch_key="PrivateUse1",
    dispatch_key_name="musa",
    pin_memory=True,
    has_capability=True,
    distributed_device_id=False,
    probe=probe_musa,
    extension="torch_musa",
)
"""Moore Threads GPUs through the ``torch_musa`` extension."""

FAMILIES: Mapping[str, DeviceFamily] = MappingProxyType(
    {family.key: family for family in (CPU, CUDA, ROCM, XPU, MPS, NPU, MUSA)}
)
"""Every device family by key."""


@dataclass(frozen=True)
class ProbeOutcome:
    """The result of probing one family.

    Attributes:
        family: The family's key.
        available: Whether the probe found the hardware.
        error: ``"ExcType: message"`` when the probe raised (then
            :attr:`available` is ``False``).
    """

    family: str
    available: bool
    error: str | None = None


def probe_families(
    keys: Iterable[str],
    context: ProbeContext,
    *,
    families: Mapping[str, DeviceFamily] = FAMILIES,
    stop_at_first: bool = True,
) -> tuple[ProbeOutcome, ...]:
    """Probe the families named by *keys*, in order.

    A probe that raises (for example a broken ``torch_npu`` install) counts
    as unavailable and its error is kept in the outcome. With
    *stop_at_first*, probing stops at the first available family, which is
    then the last outcome.
    """
    outcomes: list[ProbeOutcome] = []
    for key in keys:
        family = families[key]
        try:
            available = family.probe(context)
        except Exception as exc:
            outcomes.append(ProbeOutcome(key, False, f"{type(exc).__name__}: {exc}"))
            continue
        outcomes.append(ProbeOutcome(key, available))
        if available and stop_at_first:
            break
    return tuple(outcomes)
