"""The built-in platforms of both runtimes, and the hardware probes behind them.

* :mod:`~sglang.runtime.builtin.families` holds one table of device families
  (CPU, CUDA, ROCm, XPU, MPS, NPU, MUSA): how each is probed, its torch
  namespace, device type, distributed backend and dispatch keys. Probes take
  a torch-like namespace, so the fallback chain can be tested without the
  hardware.
* :mod:`~sglang.runtime.builtin.ops` implements the device operations once,
  parameterised by a family.
* :mod:`~sglang.runtime.builtin.srt` and :mod:`~sglang.runtime.builtin.diffusion`
  compose those operations with each runtime's base class and enum.

Importing any of these modules never imports torch; torch is imported when
a probe runs or a device operation is called.

The names below load on first access: selecting a plugin platform never
pays for the built-in classes, and probing imports only the families table.
"""

from __future__ import annotations

from sglang.runtime._lazy import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from sglang.runtime.builtin.diffusion import (
        BuiltinDiffusionPlatform,
        CpuPlatform,
        CudaPlatform,
        MpsPlatform,
        MusaPlatform,
        NpuPlatform,
        RocmPlatform,
        XpuPlatform,
    )
    from sglang.runtime.builtin.families import (
        FAMILIES,
        DeviceFamily,
        ProbeContext,
        ProbeOutcome,
        probe_families,
    )
    from sglang.runtime.builtin.ops import BuiltinDeviceOps
    from sglang.runtime.builtin.srt import (
        BuiltinSRTPlatform,
        CpuSRTPlatform,
        CudaSRTPlatform,
        RocmSRTPlatform,
        XpuSRTPlatform,
    )

__all__ = [
    "FAMILIES",
    "BuiltinDeviceOps",
    "BuiltinDiffusionPlatform",
    "BuiltinSRTPlatform",
    "CpuPlatform",
    "CpuSRTPlatform",
    "CudaPlatform",
    "CudaSRTPlatform",
    "DeviceFamily",
    "MpsPlatform",
    "MusaPlatform",
    "NpuPlatform",
    "ProbeContext",
    "ProbeOutcome",
    "RocmPlatform",
    "RocmSRTPlatform",
    "XpuPlatform",
    "XpuSRTPlatform",
    "probe_families",
]

__getattr__, __dir__ = lazy_exports(
    globals(),
    {
        "sglang.runtime.builtin.diffusion": (
            "BuiltinDiffusionPlatform",
            "CpuPlatform",
            "CudaPlatform",
            "MpsPlatform",
            "MusaPlatform",
            "NpuPlatform",
            "RocmPlatform",
            "XpuPlatform",
        ),
        "sglang.runtime.builtin.families": (
            "FAMILIES",
            "DeviceFamily",
            "ProbeContext",
            "ProbeOutcome",
            "probe_families",
        ),
        "sglang.runtime.builtin.ops": ("BuiltinDeviceOps",),
        "sglang.runtime.builtin.srt": (
            "BuiltinSRTPlatform",
            "CpuSRTPlatform",
            "CudaSRTPlatform",
            "RocmSRTPlatform",
            "XpuSRTPlatform",
        ),
    },
)
