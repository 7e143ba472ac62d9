"""Optional capabilities a platform declares, for the conformance suite and the runtime.

Three capabilities gate parts of the conformance suite
(``pytest --sglang-conformance``): a clause that needs one runs only when
the platform declares it, a declared capability that fails is a failure,
and an undeclared one is skipped with the reason shown. Two are declared
by the existing SRT capability flags; the third by a class attribute::

    from typing import ClassVar
    from sglang.sdk.capabilities import Capability

    class MySRTPlatform(SRTPlatform, MyDeviceMixin):
        _enum = PlatformEnum.OOT
        _capabilities: ClassVar[frozenset[Capability]] = frozenset({Capability.MULTI_DEVICE})

        def supports_fp8(self) -> bool:      # declares Capability.FP8
            return True

:func:`declared_capabilities` reads both. Importing this module imports
neither torch nor anything else of sglang.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from types import MappingProxyType

__all__ = ["CAPABILITIES_ATTRIBUTE", "CAPABILITY_FLAGS", "Capability", "declared_capabilities"]


class Capability(enum.Enum):
    """An optional platform capability."""

    GRAPH_CAPTURE = "graph-capture"
    """Whole-graph capture; declared by ``support_cuda_graph()`` returning ``True``."""

    FP8 = "fp8"
    """FP8 tensors and quantization; declared by ``supports_fp8()`` returning ``True``."""

    MULTI_DEVICE = "multi-device"
    """Two or more tensor-parallel ranks on this machine (several devices, or ranks
    sharing one, as host memory allows); declared in :data:`CAPABILITIES_ATTRIBUTE`."""


CAPABILITY_FLAGS: Mapping[Capability, str] = MappingProxyType(
    {Capability.GRAPH_CAPTURE: "support_cuda_graph", Capability.FP8: "supports_fp8"}
)
"""The capabilities declared by an SRT flag method, and that method's name."""

CAPABILITIES_ATTRIBUTE = "_capabilities"
"""The class attribute (a ``frozenset`` of :class:`Capability`) that declares the others."""


def declared_capabilities(platform: object) -> frozenset[Capability]:
    """Return the capabilities *platform* declares: its flags and its attribute.

    A flag method that is missing, raises or returns anything but ``True``
    declares nothing; the attribute may list any capability.

    Raises:
        TypeError: The attribute is not a set of :class:`Capability` members.
    """
    found: set[Capability] = set()
    for capability, flag in CAPABILITY_FLAGS.items():
        method = getattr(platform, flag, None)
        try:
            if callable(method) and method() is True:
                found.add(capability)
        except Exception:
            continue
    listed: object = getattr(platform, CAPABILITIES_ATTRIBUTE, None)
    if listed is None:
        return frozenset(found)
    items: list[object] = list(listed) if isinstance(listed, frozenset | set) else []  # pyright: ignore[reportUnknownArgumentType]
    if not isinstance(listed, frozenset | set) or not all(
        isinstance(item, Capability) for item in items
    ):
        raise TypeError(
            f"{type(platform).__qualname__}.{CAPABILITIES_ATTRIBUTE} must be a frozenset of "
            f"sglang.sdk.capabilities.Capability members, got {listed!r}"
        )
    found.update(item for item in items if isinstance(item, Capability))
    return frozenset(found)
