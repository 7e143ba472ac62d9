"""Device operations of the built-in platforms, written once per family.

:class:`BuiltinDeviceOps` implements every device operation of both
runtimes' contracts in terms of a :class:`~sglang.runtime.builtin.families.DeviceFamily`:
accelerator families call their torch namespace (``torch.cuda``,
``torch.xpu``, ...), the CPU family reads host memory from the operating
system. A built-in platform class composes this mixin with its runtime's
base class and sets ``_family``; nothing here is specific to SRT or
diffusion.

torch is imported by the operations that need it, never at import time.
"""

from __future__ import annotations

import os
import platform as _platform
import sys
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from sglang.runtime.builtin.families import DeviceFamily
from sglang.sdk.device import DeviceCapability

if TYPE_CHECKING:
    import torch

__all__ = [
    "BuiltinDeviceOps",
    "host_available_memory",
    "host_cpu_name",
    "host_peak_rss",
    "host_total_memory",
]

_MEMINFO = Path("/proc/meminfo")
_CPUINFO = Path("/proc/cpuinfo")
_MACHINE_ID = (Path("/etc/machine-id"), Path("/var/lib/dbus/machine-id"))


def _meminfo_bytes(field: str) -> int | None:
    """Return a ``/proc/meminfo`` field (reported in kB) in bytes, if present."""
    try:
        text = _MEMINFO.read_text(encoding="ascii")
    except OSError:
        return None
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        if key == field:
            return int(rest.split()[0]) * 1024
    return None


def _sysconf(name: str) -> int | None:
    try:
        value = os.sysconf(name)
    except (AttributeError, ValueError, OSError):
        return None
    return value if value > 0 else None


def host_total_memory() -> int:
    """Return the host's physical memory in bytes (``sysconf``, else ``/proc/meminfo``)."""
    pages, page_size = _sysconf("SC_PHYS_PAGES"), _sysconf("SC_PAGE_SIZE")
    if pages is not None and page_size is not None:
        return pages * page_size
    total = _meminfo_bytes("MemTotal")
    if total is None:
        raise RuntimeError("cannot determine the host memory size (no sysconf, no /proc/meminfo)")
    return total


def host_available_memory() -> int:
    """Return the host memory available to new allocations, in bytes.

    ``MemAvailable`` of ``/proc/meminfo`` where the kernel provides it,
    else free pages from ``sysconf``.
    """
    available = _meminfo_bytes("MemAvailable")
    if available is not None:
        return available
    pages, page_size = _sysconf("SC_AVPHYS_PAGES"), _sysconf("SC_PAGE_SIZE")
    if pages is not None and page_size is not None:
        return pages * page_size
    raise RuntimeError("cannot determine the available host memory")


def host_peak_rss() -> int:
    """Return this process's peak resident set size, in bytes."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        pass
    else:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        # kilobytes on Linux and the BSDs, bytes on macOS
        return int(peak) if sys.platform == "darwin" else int(peak) * 1024
    try:  # pragma: no cover - no resource module
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    raise RuntimeError("cannot determine the peak memory of this process")  # pragma: no cover


def host_cpu_name() -> str:
    """Return the host CPU's model name (``/proc/cpuinfo``, else ``platform``)."""
    try:
        text = _CPUINFO.read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("model name", "Model", "cpu model") and value.strip():
            return value.strip()
    return _platform.processor() or _platform.machine() or "cpu"


def _host_uuid() -> str:
    """Return a stable identifier of this host (machine id, else MAC-derived)."""
    for path in _MACHINE_ID:
        try:
            text = path.read_text(encoding="ascii").strip()
        except OSError:
            continue
        if text:
            return str(uuid.UUID(hex=text)) if len(text) == 32 else text
    return str(uuid.UUID(int=uuid.getnode()))


class BuiltinDeviceOps:
    """The device operations of a built-in platform, parameterised by ``_family``.

    Subclasses set ``_family`` (a :class:`DeviceFamily`); the class then
    gets ``device_name``, ``device_type`` and ``dispatch_key`` from it and
    every device operation of both runtimes' contracts.
    """

    _family: ClassVar[DeviceFamily]
    device_name: str
    device_type: str
    dispatch_key: str

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        family = cls.__dict__.get("_family")
        if isinstance(family, DeviceFamily):
            cls.device_name = family.key
            cls.device_type = family.device_type
            cls.dispatch_key = family.dispatch_key

    # -- helpers -------------------------------------------------------------

    def _torch(self) -> Any:
        import torch

        return torch

    def _api(self) -> Any:
        """Return the family's torch namespace (``torch.cuda``, ...), or ``None`` for the CPU."""
        namespace = self._family.namespace
        if namespace is None:
            return None
        if self._family.extension is not None:  # the extension registers the namespace
            __import__(self._family.extension)
        return getattr(self._torch(), namespace)

    # -- device objects --------------------------------------------------------

    def get_device(self, local_rank: int) -> torch.device:
        """Return ``torch.device(device_type, local_rank)`` (``cpu`` for the CPU)."""
        import torch

        if self._family.namespace is None:
            return torch.device("cpu")
        return torch.device(self._family.device_type, local_rank)

    def get_local_torch_device(self) -> torch.device:
        """Return the device this process is bound to (the current device)."""
        api = self._api()
        if api is None or not hasattr(api, "current_device"):
            return self.get_device(0)
        return self.get_device(int(api.current_device()))

    def set_device(self, device: torch.device) -> None:
        """Make *device* current (nothing to do on the CPU)."""
        api = self._api()
        if api is not None and hasattr(api, "set_device"):
            api.set_device(device)

    # -- identity ----------------------------------------------------------------

    def get_device_name(self, device_id: int = 0) -> str:
        """Return the device's marketing name (the CPU model for the CPU)."""
        api = self._api()
        if api is None:
            return host_cpu_name()
        if hasattr(api, "get_device_name"):
            return str(api.get_device_name(device_id))
        return f"{self._family.title} device {device_id}"

    def get_device_uuid(self, device_id: int = 0) -> str:
        """Return the device's UUID (the host's machine id for the CPU)."""
        api = self._api()
        if api is None:
            return _host_uuid()
        properties = self._properties(api, device_id)
        value = getattr(properties, "uuid", None)
        if value is None:
            return f"{self._family.key}:{device_id}"
        return str(value)

    def get_device_capability(self, device_id: int = 0) -> DeviceCapability | None:
        """Return ``DeviceCapability(major, minor)``, or ``None`` where it has no meaning."""
        if not self._family.has_capability:
            return None
        major, minor = self._api().get_device_capability(device_id)
        return DeviceCapability(int(major), int(minor))

    # -- memory ------------------------------------------------------------------

    def _properties(self, api: Any, device_id: int) -> Any:
        getter = getattr(api, "get_device_properties", None)
        return getter(device_id) if callable(getter) else None

    def get_device_total_memory(self, device_id: int = 0) -> int:
        """Return the device's total memory in bytes (host memory for the CPU)."""
        api = self._api()
        if api is None:
            return host_total_memory()
        if self._family.unified_memory:
            recommended: Any = getattr(api, "recommended_max_memory", None)
            return host_total_memory() if recommended is None else int(recommended())
        return int(self._properties(api, device_id).total_memory)

    def get_available_memory(self, device_id: int = 0) -> tuple[int, int]:
        """Return ``(free_bytes, total_bytes)`` of the device."""
        api = self._api()
        if api is None:
            return host_available_memory(), host_total_memory()
        if self._family.unified_memory:
            total = self.get_device_total_memory(device_id)
            return max(total - int(api.driver_allocated_memory()), 0), total
        free, total = api.mem_get_info(device_id)
        return int(free), int(total)

    def get_available_gpu_memory(self, device_id: int = 0) -> int:
        """Return the device's free memory in bytes."""
        return self.get_available_memory(device_id)[0]

    def get_current_memory_usage(self, device: torch.device | None = None) -> float:
        """Return the current peak memory usage in bytes.

        Accelerators reset their peak statistics and then read the peak
        allocated memory (the allocated memory right now, as upstream does);
        the CPU reports the process's peak resident set size.
        """
        api = self._api()
        if api is None:
            return float(host_peak_rss())
        if self._family.unified_memory:
            return float(api.current_allocated_memory())
        api.reset_peak_memory_stats(device)
        return float(api.max_memory_allocated(device))

    def empty_cache(self) -> None:
        """Release cached device memory (nothing to do on the CPU)."""
        api = self._api()
        if api is not None and hasattr(api, "empty_cache"):
            api.empty_cache()

    def synchronize(self) -> None:
        """Wait for outstanding device work (nothing to wait for on the CPU)."""
        api = self._api()
        if api is not None and hasattr(api, "synchronize"):
            api.synchronize()

    def is_pin_memory_available(self, device: str | torch.device | int | None = None) -> bool:
        """Whether pinned host memory helps copies to *device*.

        Pinning speeds up host-to-device copies only for this family's
        accelerator: with *device* ``None`` or an index (this platform's
        device), or a ``torch.device`` or string (``"cuda:1"``) of the
        family's device type, the family decides; for any other target, the
        CPU included, the answer is ``False``.
        """
        if isinstance(device, str):
            kind = device.partition(":")[0]
        elif device is None or isinstance(device, int):
            kind = self._family.device_type
        else:
            kind = device.type
        return kind == self._family.device_type and self._family.pin_memory

    # -- distributed ---------------------------------------------------------------

    def get_torch_distributed_backend_str(self) -> str:
        """Return the family's ``torch.distributed`` backend (``nccl``, ``gloo``, ...)."""
        return self._family.distributed_backend

    def supports_distributed_device_id(self) -> bool:
        """Whether ``init_process_group`` accepts a ``device_id`` for this family."""
        return self._family.distributed_device_id

    # -- dispatch --------------------------------------------------------------------

    def get_dispatch_key_name(self) -> str:
        """Return the custom-op key: ``forward_<name>()`` implements an op for this family."""
        return self._family.dispatch_key_name
