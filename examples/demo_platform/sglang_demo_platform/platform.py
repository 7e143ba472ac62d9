"""``DemoSRTPlatform``: the demo device for the SRT runtime."""

from __future__ import annotations

from typing import ClassVar

from sglang.srt.platforms.interface import SRTPlatform
from sglang_demo_platform.device import DemoDeviceMixin

__all__ = ["DemoSRTPlatform"]


class DemoSRTPlatform(SRTPlatform, DemoDeviceMixin):
    """SRT on the demo device."""

    init_backend_calls: ClassVar[int] = 0
    """How often :meth:`init_backend` ran in this process (for the demo and tests)."""

    def get_default_attention_backend(self) -> str:
        """The demo device runs the native torch attention."""
        return "torch_native"

    def support_cuda_graph(self) -> bool:
        """No graph capture on the demo device."""
        return False

    def get_dispatch_key_name(self) -> str:
        """Fused ops dispatch to ``forward_demo()`` where one exists."""
        return "demo"

    def init_backend(self) -> None:
        """One-time backend setup; the demo only counts the calls."""
        type(self).init_backend_calls += 1
