"""Host-memory accounting for the demo device (shared by both runtimes' classes)."""

from __future__ import annotations

import os
import sys

__all__ = ["DEMO_CAPABILITY", "available_bytes", "peak_bytes", "total_bytes"]

DEMO_CAPABILITY = (1, 0)
"""The demo device's (major, minor) compute capability."""


def total_bytes() -> int:
    """Physical host memory, which backs the demo device."""
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def available_bytes() -> int:
    """Host memory available for new allocations."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def peak_bytes() -> int:
    """This process's peak resident memory."""
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024
