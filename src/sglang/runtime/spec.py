"""The two runtimes as data: what SRT and diffusion differ in.

The engine (selection, plugin loading, the hook registries) is written once
and fed one :class:`RuntimeSpec` per runtime. Everything that differs
between SRT and diffusion is a field here, not a branch in the engine.
"""

from __future__ import annotations

import _thread

from sglang.sdk import constants
from sglang.sdk._record import Generic, Record, T
from sglang.sdk.contract import Operation
from sglang.sdk.device import DEVICE_OPERATIONS
from sglang.sdk.device import PlatformEnum as SRTPlatformEnum
from sglang.sdk.diffusion import DIFFUSION_OPERATIONS
from sglang.sdk.diffusion import Platform as DiffusionPlatformBase
from sglang.sdk.diffusion import PlatformEnum as DiffusionPlatformEnum
from sglang.sdk.srt import SRT_OPERATIONS, SRTPlatform

TYPE_CHECKING = False
if TYPE_CHECKING:
    import enum
    from collections.abc import Callable

__all__ = ["DIFFUSION", "SRT", "BuiltinPlatform", "PerRuntime", "RuntimeSpec"]


class BuiltinPlatform(Record):
    """One built-in platform of a runtime, named by a short key.

    Attributes:
        key: The short name (``"cuda"``); for diffusion also the value of
            the override variable that selects it without probing.
        family: The device family whose probe decides availability, a key of
            :data:`sglang.runtime.builtin.families.FAMILIES`; ``None`` for a
            platform that is never probed (SRT's base ``SRTPlatform``).
        qualname: ``"module:Class"`` of the platform class, imported only
            when the platform is selected.
        title: Human-readable name, for messages (``"CUDA"``).
    """

    key: str
    family: str | None
    qualname: str
    title: str


class RuntimeSpec(Record):
    """Everything the shared engine needs to know about one runtime.

    Attributes:
        name: Short runtime name for messages: ``"srt"`` or ``"diffusion"``.
        title: Human-readable runtime name, for messages and docs.
        platforms_group: Entry-point group of platform plugins.
        plugins_group: Entry-point group of general plugins.
        selector_env: Environment variable that selects a platform explicitly.
        plugins_env: Environment variable holding the general-plugin allowlist.
        platform_base: The class every platform of this runtime subclasses.
        oot_enum: The ``PlatformEnum.OOT`` member plugins must declare.
        base_path: The documented import path of :attr:`platform_base`, for messages.
        enum_path: The documented import path of the runtime's ``PlatformEnum``.
        current_platform_path: The documented module holding ``current_platform``.
        builtins: The runtime's built-in platforms.
        probe_order: Keys of :attr:`builtins` probed, in order, when auto
            discovery activates no plugin; the first available one is used.
        default_builtin: Key of the built-in used when no probe succeeds.
        override_aliases: Keys of built-ins that :attr:`selector_env` may
            name to select them without probing.
        auto_only_builtins: Keys of built-ins that are only ever detected,
            never selected by name.
        cpu_engine_env: Environment variable that, set to ``1``, selects
            :attr:`cpu_engine_builtin` when no plugin activates (SRT only).
        cpu_engine_builtin: Key of the built-in :attr:`cpu_engine_env` selects.
        auto_allowlist_env: Environment variable whose comma-separated names
            filter auto-discovered platform plugins while
            :attr:`selector_env` is unset (SRT only).
        reserves_builtin_names: Whether a platform entry point named like a
            built-in (any case) is rejected (diffusion), see :attr:`reserved_names`.
        identity_attributes: Attributes every platform class must set to a
            non-empty string before it becomes current (diffusion:
            ``device_name`` and ``device_type``).
        operations: The platform operations of the runtime's contract with
            their status (SRT: the device operations, then SRT's own).
    """

    name: str
    title: str
    platforms_group: str
    plugins_group: str
    selector_env: str
    plugins_env: str
    platform_base: type[object]
    oot_enum: enum.Enum
    base_path: str = ""
    enum_path: str = ""
    current_platform_path: str = ""
    builtins: tuple[BuiltinPlatform, ...] = ()
    probe_order: tuple[str, ...] = ()
    default_builtin: str | None = None
    override_aliases: frozenset[str] = frozenset()
    auto_only_builtins: frozenset[str] = frozenset()
    cpu_engine_env: str | None = None
    cpu_engine_builtin: str | None = None
    auto_allowlist_env: str | None = None
    reserves_builtin_names: bool = False
    identity_attributes: tuple[str, ...] = ()
    operations: tuple[Operation, ...] = ()

    @property
    def reserved_names(self) -> frozenset[str]:
        """The names no platform entry point may have (lower case; empty unless reserved)."""
        if not self.reserves_builtin_names:
            return frozenset()
        return frozenset(platform.key for platform in self.builtins)

    def builtin(self, key: str) -> BuiltinPlatform:
        """Return the built-in platform called *key*.

        Raises:
            KeyError: *key* is not one of :attr:`builtins`.
        """
        for platform in self.builtins:
            if platform.key == key:
                return platform
        raise KeyError(f"{self.title} has no built-in platform {key!r}")


_SRT_BUILTINS = "sglang.runtime.builtin.srt"
_DIFFUSION_BUILTINS = "sglang.runtime.builtin.diffusion"


SRT = RuntimeSpec(
    name="srt",
    title="SRT",
    platforms_group=constants.SRT_PLATFORMS_GROUP,
    plugins_group=constants.SRT_PLUGINS_GROUP,
    selector_env=constants.ENV_PLATFORM,
    plugins_env=constants.ENV_PLUGINS,
    platform_base=SRTPlatform,
    oot_enum=SRTPlatformEnum.OOT,
    base_path="sglang.srt.platforms.interface.SRTPlatform",
    enum_path="sglang.srt.platforms.device_mixin.PlatformEnum",
    current_platform_path="sglang.srt.platforms",
    builtins=(
        BuiltinPlatform("cpu", "cpu", f"{_SRT_BUILTINS}:CpuSRTPlatform", "CPU"),
        BuiltinPlatform("cuda", "cuda", f"{_SRT_BUILTINS}:CudaSRTPlatform", "CUDA"),
        BuiltinPlatform("rocm", "rocm", f"{_SRT_BUILTINS}:RocmSRTPlatform", "ROCm"),
        BuiltinPlatform("xpu", "xpu", f"{_SRT_BUILTINS}:XpuSRTPlatform", "XPU"),
        BuiltinPlatform("base", None, "sglang.sdk.srt:SRTPlatform", "base SRTPlatform"),
    ),
    probe_order=("cuda", "rocm", "xpu"),
    default_builtin="base",
    cpu_engine_env=constants.ENV_USE_CPU_ENGINE,
    cpu_engine_builtin="cpu",
    auto_allowlist_env=constants.ENV_PLUGINS,
    operations=(*DEVICE_OPERATIONS.values(), *SRT_OPERATIONS.values()),
)
"""The SRT (LLM serving) runtime."""

DIFFUSION = RuntimeSpec(
    name="diffusion",
    title="SGLang Diffusion",
    platforms_group=constants.DIFFUSION_PLATFORMS_GROUP,
    plugins_group=constants.DIFFUSION_PLUGINS_GROUP,
    selector_env=constants.ENV_DIFFUSION_PLATFORM_OVERRIDE,
    plugins_env=constants.ENV_PLUGINS,
    platform_base=DiffusionPlatformBase,
    oot_enum=DiffusionPlatformEnum.OOT,
    base_path="sglang.multimodal_gen.runtime.platforms.Platform",
    enum_path="sglang.multimodal_gen.runtime.platforms.PlatformEnum",
    current_platform_path="sglang.multimodal_gen.runtime.platforms",
    builtins=(
        BuiltinPlatform("cpu", "cpu", f"{_DIFFUSION_BUILTINS}:CpuPlatform", "CPU"),
        BuiltinPlatform("cuda", "cuda", f"{_DIFFUSION_BUILTINS}:CudaPlatform", "CUDA"),
        BuiltinPlatform("rocm", "rocm", f"{_DIFFUSION_BUILTINS}:RocmPlatform", "ROCm"),
        BuiltinPlatform("xpu", "xpu", f"{_DIFFUSION_BUILTINS}:XpuPlatform", "XPU"),
        BuiltinPlatform("mps", "mps", f"{_DIFFUSION_BUILTINS}:MpsPlatform", "MPS"),
        BuiltinPlatform("npu", "npu", f"{_DIFFUSION_BUILTINS}:NpuPlatform", "NPU"),
        BuiltinPlatform("musa", "musa", f"{_DIFFUSION_BUILTINS}:MusaPlatform", "MUSA"),
    ),
    probe_order=("mps", "xpu", "rocm", "cuda", "npu", "musa", "cpu"),
    default_builtin="cpu",
    override_aliases=frozenset({"cpu", "cuda", "rocm", "mps", "npu", "musa"}),
    auto_only_builtins=frozenset({"xpu"}),
    reserves_builtin_names=True,
    identity_attributes=("device_name", "device_type"),
    operations=tuple(DIFFUSION_OPERATIONS.values()),
)
"""The diffusion (``sglang.multimodal_gen``) runtime."""


class PerRuntime(Generic[T]):
    """One object per runtime in this process, created on first use (thread-safe).

    The engine keeps its process-wide state (selection gates, plugin
    registries) per :class:`RuntimeSpec` through this one mechanism.

    Args:
        factory: Builds the object for a runtime the first time it is asked for.
    """

    def __init__(self, factory: Callable[[RuntimeSpec], T]) -> None:
        self._factory = factory
        self._items: dict[RuntimeSpec, T] = {}
        self._lock = _thread.allocate_lock()

    def get(self, spec: RuntimeSpec) -> T:
        """Return *spec*'s object, creating it on first use."""
        item = self._items.get(spec)
        if item is None:
            with self._lock:
                item = self._items.get(spec)
                if item is None:
                    item = self._items[spec] = self._factory(spec)
        return item

    def values(self) -> tuple[T, ...]:
        """The objects created so far."""
        with self._lock:
            return tuple(self._items.values())
