"""``sglang.sdk``: the contract plugins are written and type-checked against.

Everything a vendor needs to *declare* a plugin lives here: the platform
base classes and identity enums of both runtimes, the structural protocols
that mypy and pyright check plugins against, the hook types and typed hook
signatures, the serve-backend API, and one constant per entry-point group,
environment variable and API version.

This package imports only the standard library and ``typing_extensions``;
importing it never imports torch.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from sglang.sdk.constants import (
        ALL_ENTRY_POINT_GROUPS,
        DIFFUSION_PLATFORM_API_VERSION,
        DIFFUSION_PLATFORMS_GROUP,
        DIFFUSION_PLUGINS_GROUP,
        ENV_CHECK_KV_ACCOUNTING,
        ENV_DIFFUSION_PLATFORM_OVERRIDE,
        ENV_PLATFORM,
        ENV_PLUGINS,
        ENV_USE_CPU_ENGINE,
        SERVE_BACKEND_API_VERSION,
        SERVE_BACKENDS_GROUP,
        SRT_PLATFORM_API_VERSION,
        SRT_PLATFORMS_GROUP,
        SRT_PLUGINS_GROUP,
        SUPPORTED_DIFFUSION_PLATFORM_API_VERSIONS,
        SUPPORTED_HOOK_API_VERSIONS,
        SUPPORTED_SERVE_BACKEND_API_VERSIONS,
        SUPPORTED_SRT_PLATFORM_API_VERSIONS,
        DiffusionPlatformApiVersion,
        HookApiVersion,
        ServeBackendApiVersion,
        SRTPlatformApiVersion,
    )
    from sglang.sdk.contract import (
        CONTRACT_VERSIONS,
        ContractVersions,
        Operation,
        OperationStatus,
        VersionStatus,
    )
    from sglang.sdk.device import (
        DEVICE_OPERATIONS,
        CpuArchEnum,
        DeviceCapability,
        DeviceMixin,
        PlatformEnum,
    )
    from sglang.sdk.diffusion import DIFFUSION_OPERATIONS
    from sglang.sdk.diffusion import Platform as DiffusionPlatform
    from sglang.sdk.diffusion import PlatformEnum as DiffusionPlatformEnum
    from sglang.sdk.hooks import (
        AfterHook,
        AroundHook,
        BeforeHook,
        BeforeResult,
        ClassmethodTarget,
        HookTarget,
        HookType,
        ReplaceHook,
        hook_target,
    )
    from sglang.sdk.protocols import (
        DeviceLike,
        DiffusionPlatformLike,
        GeneralPluginCallback,
        PlatformActivator,
        PlatformIdentityLike,
        ServeBackendFactory,
        SRTPlatformLike,
    )
    from sglang.sdk.serve import ServeBackend, ServeBackendDetection, ServeRequest
    from sglang.sdk.srt import SRT_OPERATIONS, SRTPlatform
    from sglang.sdk.srt_runtime import (
        AttentionBackend,
        AttentionLayerLike,
        ForwardBatchLike,
        GraphRunner,
        LinearMethod,
        MHAKVPool,
        ModelRunnerLike,
        PagedAllocator,
        QuantizationConfig,
    )
    from sglang.sdk.targets import HOOK_TARGETS, DocumentedTarget, documented_target

# The public names, resolved on first access (PEP 562) so that importing
# one submodule, or this package, does not import every other submodule.
_EXPORTS: dict[str, tuple[str, str]] = {
    name: (module, name)
    for module, names in {
        "sglang.sdk.constants": (
            "ALL_ENTRY_POINT_GROUPS",
            "DIFFUSION_PLATFORM_API_VERSION",
            "DIFFUSION_PLATFORMS_GROUP",
            "DIFFUSION_PLUGINS_GROUP",
            "ENV_CHECK_KV_ACCOUNTING",
            "ENV_DIFFUSION_PLATFORM_OVERRIDE",
            "ENV_PLATFORM",
            "ENV_PLUGINS",
            "ENV_USE_CPU_ENGINE",
            "SERVE_BACKEND_API_VERSION",
            "SERVE_BACKENDS_GROUP",
            "SRT_PLATFORM_API_VERSION",
            "SRT_PLATFORMS_GROUP",
            "SRT_PLUGINS_GROUP",
            "SUPPORTED_DIFFUSION_PLATFORM_API_VERSIONS",
            "SUPPORTED_HOOK_API_VERSIONS",
            "SUPPORTED_SERVE_BACKEND_API_VERSIONS",
            "SUPPORTED_SRT_PLATFORM_API_VERSIONS",
            "DiffusionPlatformApiVersion",
            "HookApiVersion",
            "SRTPlatformApiVersion",
            "ServeBackendApiVersion",
        ),
        "sglang.sdk.contract": (
            "CONTRACT_VERSIONS",
            "ContractVersions",
            "Operation",
            "OperationStatus",
            "VersionStatus",
        ),
        "sglang.sdk.device": (
            "DEVICE_OPERATIONS",
            "CpuArchEnum",
            "DeviceCapability",
            "DeviceMixin",
            "PlatformEnum",
        ),
        "sglang.sdk.diffusion": ("DIFFUSION_OPERATIONS",),
        "sglang.sdk.hooks": (
            "AfterHook",
            "AroundHook",
            "BeforeHook",
            "BeforeResult",
            "ClassmethodTarget",
            "HookTarget",
            "HookType",
            "ReplaceHook",
            "hook_target",
        ),
        "sglang.sdk.protocols": (
            "DeviceLike",
            "DiffusionPlatformLike",
            "GeneralPluginCallback",
            "PlatformActivator",
            "PlatformIdentityLike",
            "ServeBackendFactory",
            "SRTPlatformLike",
        ),
        "sglang.sdk.serve": (
            "ServeBackend",
            "ServeBackendDetection",
            "ServeRequest",
        ),
        "sglang.sdk.srt": (
            "SRT_OPERATIONS",
            "SRTPlatform",
        ),
        "sglang.sdk.srt_runtime": (
            "AttentionBackend",
            "AttentionLayerLike",
            "ForwardBatchLike",
            "GraphRunner",
            "LinearMethod",
            "MHAKVPool",
            "ModelRunnerLike",
            "PagedAllocator",
            "QuantizationConfig",
        ),
        "sglang.sdk.targets": (
            "HOOK_TARGETS",
            "DocumentedTarget",
            "documented_target",
        ),
    }.items()
    for name in names
}
_EXPORTS["DiffusionPlatform"] = ("sglang.sdk.diffusion", "Platform")
_EXPORTS["DiffusionPlatformEnum"] = ("sglang.sdk.diffusion", "PlatformEnum")


def __getattr__(name: str) -> object:
    """Import the submodule that defines *name* on first access."""
    try:
        module_name, attribute = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'sglang.sdk' has no attribute {name!r}") from None
    import importlib

    value = getattr(importlib.import_module(module_name), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


__all__ = [
    "ALL_ENTRY_POINT_GROUPS",
    "CONTRACT_VERSIONS",
    "DEVICE_OPERATIONS",
    "DIFFUSION_OPERATIONS",
    "DIFFUSION_PLATFORMS_GROUP",
    "DIFFUSION_PLATFORM_API_VERSION",
    "DIFFUSION_PLUGINS_GROUP",
    "ENV_CHECK_KV_ACCOUNTING",
    "ENV_DIFFUSION_PLATFORM_OVERRIDE",
    "ENV_PLATFORM",
    "ENV_PLUGINS",
    "ENV_USE_CPU_ENGINE",
    "HOOK_TARGETS",
    "SERVE_BACKENDS_GROUP",
    "SERVE_BACKEND_API_VERSION",
    "SRT_OPERATIONS",
    "SRT_PLATFORMS_GROUP",
    "SRT_PLATFORM_API_VERSION",
    "SRT_PLUGINS_GROUP",
    "SUPPORTED_DIFFUSION_PLATFORM_API_VERSIONS",
    "SUPPORTED_HOOK_API_VERSIONS",
    "SUPPORTED_SERVE_BACKEND_API_VERSIONS",
    "SUPPORTED_SRT_PLATFORM_API_VERSIONS",
    "AfterHook",
    "AroundHook",
    "AttentionBackend",
    "AttentionLayerLike",
    "BeforeHook",
    "BeforeResult",
    "ClassmethodTarget",
    "ContractVersions",
    "CpuArchEnum",
    "DeviceCapability",
    "DeviceLike",
    "DeviceMixin",
    "DiffusionPlatform",
    "DiffusionPlatformApiVersion",
    "DiffusionPlatformEnum",
    "DiffusionPlatformLike",
    "DocumentedTarget",
    "ForwardBatchLike",
    "GeneralPluginCallback",
    "GraphRunner",
    "HookApiVersion",
    "HookTarget",
    "HookType",
    "LinearMethod",
    "MHAKVPool",
    "ModelRunnerLike",
    "Operation",
    "OperationStatus",
    "PagedAllocator",
    "PlatformActivator",
    "PlatformEnum",
    "PlatformIdentityLike",
    "QuantizationConfig",
    "ReplaceHook",
    "SRTPlatform",
    "SRTPlatformApiVersion",
    "SRTPlatformLike",
    "ServeBackend",
    "ServeBackendApiVersion",
    "ServeBackendDetection",
    "ServeBackendFactory",
    "ServeRequest",
    "VersionStatus",
    "documented_target",
    "hook_target",
]
