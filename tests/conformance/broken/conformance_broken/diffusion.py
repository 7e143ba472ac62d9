"""The broken diffusion platform: a correct host-memory platform with a wrong custom op."""

from __future__ import annotations

from typing import ClassVar

from sglang.multimodal_gen.runtime.platforms import PlatformEnum
from sglang.runtime.builtin.diffusion import CpuPlatform


class WrongDiffusionOp(CpuPlatform):
    """Registers a diffusion ``RMSNorm`` forward that is one percent off."""

    _enum: ClassVar[PlatformEnum] = PlatformEnum.OOT

    def get_dispatch_key_name(self) -> str:
        """The broken kernels' key."""
        return "broken"

    def init_backend(self) -> None:
        """Register the broken RMSNorm."""
        from .runtime import install_wrong_diffusion_rms_norm

        install_wrong_diffusion_rms_norm()
