"""Entry-point groups and env var names are Final constants with literal types."""

from __future__ import annotations

from typing import Literal

from sglang.sdk import SRT_PLATFORMS_GROUP, ServeBackendApiVersion

SRT_PLATFORMS_GROUP = "my.platforms"  # expect-error
group: Literal["sglang.srt.plugins"] = SRT_PLATFORMS_GROUP  # expect-error
version: ServeBackendApiVersion = 2  # expect-error
