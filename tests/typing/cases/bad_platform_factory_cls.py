"""A platform factory typed to return something other than the protocol it promises."""

from __future__ import annotations

from sglang.srt.platforms.interface import PlatformEnum, SRTPlatform


class NotAnAllocator:
    def describe(self) -> str:
        return "not an allocator"


class MySRTPlatform(SRTPlatform):
    _enum = PlatformEnum.OOT

    def get_paged_allocator_cls(self) -> type[NotAnAllocator]:  # expect-error
        return NotAnAllocator
