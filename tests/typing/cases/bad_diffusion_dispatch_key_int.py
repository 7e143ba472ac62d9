"""get_dispatch_key_name names a CustomOp forward_<key>(): it is a str."""

from __future__ import annotations

from sglang.multimodal_gen.runtime.platforms import Platform, PlatformEnum


class MyDiffusionPlatform(Platform):
    _enum = PlatformEnum.OOT
    dispatch_key = 1  # expect-error

    def get_dispatch_key_name(self) -> int:  # expect-error
        return 1
