"""The SRT platform contract: :class:`SRTPlatform`.

A platform plugin subclasses :class:`SRTPlatform` (together with its
:class:`~sglang.sdk.device.DeviceMixin` subclass), sets
``_enum = PlatformEnum.OOT`` and overrides the capability flags, subsystem
factories and lifecycle hooks its hardware needs. :data:`SRT_OPERATIONS`
lists them with their defaults.
"""

from __future__ import annotations

from collections.abc import Mapping

from sglang.sdk.contract import Operation, OperationStatus, operation_table
from sglang.sdk.device import DeviceMixin, missing_override

TYPE_CHECKING = False
if TYPE_CHECKING:  # the protocols import typing: keep it off the selection path
    from typing import ClassVar

    from sglang.sdk.constants import SRTPlatformApiVersion
    from sglang.sdk.srt_runtime import (
        GraphRunner,
        MHAKVPool,
        PagedAllocator,
        QuantizationConfig,
    )

__all__ = ["SRT_OPERATIONS", "SRTPlatform"]


class SRTPlatform(DeviceMixin):
    """Base class of every SRT platform, built-in or out of tree.

    Subclasses must be constructible without arguments: the selector
    instantiates the class named by an activation callback with ``cls()``.
    """

    _runtime_title = "SRT"

    api_version: ClassVar[SRTPlatformApiVersion]
    """The SRT platform contract version the class implements, as a literal.

    Declare it in the platform class body, ``api_version: ClassVar[Literal[1]] = 1``
    (:data:`~sglang.sdk.constants.SRTPlatformApiVersion`): this base class
    does not set it, so inheriting never claims a version. A class without it
    is treated as version 1 and reported as undeclared by ``sglang plugins
    check``; selection refuses a version this release does not support.
    """

    # -- Capability flags ----------------------------------------------------

    def support_cuda_graph(self) -> bool:
        """Whether the device supports whole-graph capture (CUDA graphs)."""
        return False

    def support_piecewise_cuda_graph(self) -> bool:
        """Whether the device supports piecewise graphs (torch.compile backend)."""
        return False

    def supports_fp8(self) -> bool:
        """Whether FP8 quantization is supported."""
        return False

    # -- Subsystem factories -------------------------------------------------

    def get_default_attention_backend(self) -> str:
        """Return the name of the default attention backend."""
        raise missing_override(self, "get_default_attention_backend")

    def get_graph_runner_cls(self) -> type[GraphRunner]:
        """Return the graph-runner class."""
        raise missing_override(self, "get_graph_runner_cls")

    def get_mha_kv_pool_cls(self) -> type[MHAKVPool]:
        """Return the MHA KV-cache pool class."""
        raise missing_override(self, "get_mha_kv_pool_cls")

    def get_mla_kv_pool_cls(self) -> type[object]:
        """Return the MLA KV-cache pool class."""
        raise missing_override(self, "get_mla_kv_pool_cls")

    def get_dsa_kv_pool_cls(self) -> type[object]:
        """Return the DSA KV-cache pool class (DeepSeek V3.2)."""
        raise missing_override(self, "get_dsa_kv_pool_cls")

    def get_paged_allocator_cls(self) -> type[PagedAllocator]:
        """Return the paged allocator class."""
        raise missing_override(self, "get_paged_allocator_cls")

    def get_quantization_config(self, quantization: str) -> QuantizationConfig | None:
        """Return the hardware-specific config for *quantization* (``--quantization``).

        Return ``None`` to use the runtime's default config for that name;
        raise if the method is unsupported on this hardware.
        """
        raise missing_override(self, "get_quantization_config")

    def get_piecewise_backend_cls(self) -> type[object]:
        """Return the piecewise compile-backend class."""
        raise missing_override(self, "get_piecewise_backend_cls")

    def get_compile_backend(self, mode: str | None = None) -> str:
        """Return the torch.compile backend name (default ``"inductor"``)."""
        return "inductor"

    def get_dispatch_key_name(self) -> str:
        """Return the fused-op dispatch key name (default ``"native"``)."""
        return "native"

    # -- Lifecycle hooks -----------------------------------------------------

    def apply_server_args_defaults(self, server_args: object) -> None:
        """Set platform defaults on *server_args* (called from ``ServerArgs.__post_init__``)."""

    def init_backend(self) -> None:
        """Initialise the backend once per worker, before the model is built."""


_A = OperationStatus.ACTIVE
_RAISE = "raise NotImplementedError"
_ALWAYS = "always"

SRT_OPERATIONS: Mapping[str, Operation] = operation_table(
    Operation("support_cuda_graph", _A, "False", "device graph capture", "capability", _ALWAYS),
    Operation("support_piecewise_cuda_graph", _A, "False", "piecewise graphs", "capability"),
    Operation("supports_fp8", _A, "False", "FP8 quantization", "capability"),
    Operation(
        "get_default_attention_backend",
        _A,
        _RAISE,
        "attention backend",
        "factory",
        "unless --attention-backend is given",
    ),
    Operation(
        "get_graph_runner_cls",
        _A,
        _RAISE,
        "graph runner class",
        "factory",
        "when support_cuda_graph() is true, unless --disable-cuda-graph is given",
    ),
    Operation("get_mha_kv_pool_cls", _A, _RAISE, "MHA KV pool class", "factory", _ALWAYS),
    Operation("get_mla_kv_pool_cls", _A, _RAISE, "MLA KV pool class", "factory"),
    Operation("get_dsa_kv_pool_cls", _A, _RAISE, "DSA KV pool class", "factory"),
    Operation("get_paged_allocator_cls", _A, _RAISE, "paged allocator class", "factory", _ALWAYS),
    Operation(
        "get_quantization_config",
        _A,
        _RAISE,
        "quantization config",
        "factory",
        "with --quantization",
    ),
    Operation("get_piecewise_backend_cls", _A, _RAISE, "piecewise backend class", "factory"),
    Operation(
        "get_compile_backend",
        _A,
        '"inductor"',
        "compile backend",
        "factory",
        "with --enable-torch-compile",
    ),
    Operation("get_dispatch_key_name", _A, '"native"', "fused-op dispatch key", "factory", _ALWAYS),
    Operation(
        "apply_server_args_defaults",
        _A,
        "pass",
        "platform ServerArgs defaults",
        "lifecycle",
        _ALWAYS,
    ),
    Operation("init_backend", _A, "pass", "one-time backend init per worker", "lifecycle", _ALWAYS),
)
"""Every :class:`SRTPlatform` capability flag, factory and lifecycle hook."""
