"""A platform that forgot SRTPlatform in its bases lacks the SRT methods."""

from __future__ import annotations

from sglang.sdk import SRTPlatformLike
from sglang.srt.platforms.device_mixin import DeviceMixin, PlatformEnum


class MyDeviceMixin(DeviceMixin):
    _enum = PlatformEnum.OOT
    device_name = "my_device"
    device_type = "my_device"


class MySRTPlatform(MyDeviceMixin):
    def get_default_attention_backend(self) -> str:
        return "torch_native"


class HandWritten:
    """Duck-typed, but without most of the contract."""

    device_name = "my_device"
    device_type = "my_device"

    def get_default_attention_backend(self) -> str:
        return "torch_native"


platform: SRTPlatformLike = MySRTPlatform()  # expect-error
duck: SRTPlatformLike = HandWritten()  # expect-error
