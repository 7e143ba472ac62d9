"""The clause registry: every rule the suite checks, as data.

Each clause has an id ``LEVEL-NN`` (the level's prefix and a number), the
level it belongs to, a one-line rule, the runtimes it applies to and,
where it needs one, the capability the platform must declare. The level
test classes refer to clauses by id (:func:`clause`); the docs render
:data:`CLAUSES`; a self-test checks that both name the same clauses.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TypeVar

from sglang.sdk.capabilities import Capability

__all__ = ["CLAUSES", "Capability", "Clause", "Level", "clause", "clause_of"]

_F = TypeVar("_F", bound=Callable[..., object])

CLAUSE_ATTRIBUTE = "__sglang_clause__"
"""The attribute :func:`clause` sets on a test function: its :class:`Clause`."""


class Level(enum.Enum):
    """The levels of the suite, in the order they build on each other.

    The value is the level's name in the JSON report; :attr:`prefix` is the
    clause-id prefix.
    """

    ACTIVATION = "activation"
    CONTRACT = "contract"
    DEVICE = "device"
    SUBSYSTEMS = "subsystems"
    OPS = "ops"
    LIFECYCLE = "lifecycle"
    END_TO_END = "end-to-end"
    SERVE = "serve"

    @property
    def prefix(self) -> str:
        """The clause-id prefix (``ACT``, ``CON``, ``DEV``, ``SUB``, ``OPS``, ``LIF``, ...)."""
        return _PREFIXES[self]


_PREFIXES: Mapping[Level, str] = MappingProxyType(
    {
        Level.ACTIVATION: "ACT",
        Level.CONTRACT: "CON",
        Level.DEVICE: "DEV",
        Level.SUBSYSTEMS: "SUB",
        Level.OPS: "OPS",
        Level.LIFECYCLE: "LIF",
        Level.END_TO_END: "E2E",
        Level.SERVE: "SRV",
    }
)


BOTH = ("srt", "diffusion")
SRT_ONLY = ("srt",)


@dataclass(frozen=True)
class Clause:
    """One rule of the suite.

    Attributes:
        id: ``LEVEL-NN``, for example ``"ACT-01"``.
        rule: The rule, in one line.
        runtimes: The runtimes it applies to (``"srt"``, ``"diffusion"``);
            empty for serve clauses, which apply to serve backends.
        capability: The capability the platform must declare, if any.
    """

    id: str
    rule: str
    runtimes: tuple[str, ...] = BOTH
    capability: Capability | None = None

    @property
    def level(self) -> Level:
        """The level the id's prefix names."""
        prefix = self.id.split("-", 1)[0]
        for level, known in _PREFIXES.items():
            if known == prefix:
                return level
        raise ValueError(f"clause id {self.id!r} has no known level prefix")


def _table(*clauses: Clause) -> Mapping[str, Clause]:
    table: dict[str, Clause] = {}
    for item in clauses:
        if item.id in table:
            raise ValueError(f"clause {item.id} is listed twice")
        item.level  # noqa: B018 - validates the prefix
        table[item.id] = item
    return MappingProxyType(table)


_FP8, _MULTI, _GRAPHS = Capability.FP8, Capability.MULTI_DEVICE, Capability.GRAPH_CAPTURE

CLAUSES: Mapping[str, Clause] = _table(
    Clause("ACT-01", "the activation callback returns a non-empty str or None"),
    Clause("ACT-02", "the activation callback starts no thread"),
    Clause("ACT-03", "the activation callback imports no torch"),
    Clause("ACT-04", "the activation callback initialises no device context (torch or driver)"),
    Clause("ACT-05", "the activation callback does not touch current_platform"),
    Clause("ACT-06", "importing and calling the activation callback takes less than 1 s"),
    Clause(
        "ACT-07",
        "the qualname names a subclass of the runtime's base, constructible without "
        "arguments, with the runtime's PlatformEnum.OOT",
    ),
    Clause("ACT-08", "platform selection accepts the plugin in this process"),
    Clause(
        "CON-01",
        "every override keeps the base's parameters (none dropped or made required, "
        "no new required one)",
    ),
    Clause("CON-02", "every resolvable return annotation is the base's type or a subtype"),
    Clause("CON-03", "identity queries agree with _enum and device_type"),
    Clause("CON-04", "the platform class adds no public name outside the contract"),
    Clause("DEV-01", "memory figures are sane: total > 0 and total >= current usage"),
    Clause("DEV-02", "get_device_capability returns a DeviceCapability or None"),
    Clause("DEV-03", "every Active query returns the type its sdk signature declares"),
    Clause(
        "DEV-04",
        "a world-size-1 process group initialises with the distributed backend string "
        "on a file store",
    ),
    Clause("DEV-05", "get_device(0) allocates a tensor of device_type that copies back intact"),
    Clause(
        "DEV-06",
        "an FP8 tensor round-trips through the device",
        SRT_ONLY,
        _FP8,
    ),
    Clause("SUB-01", "get_mha_kv_pool_cls returns a class implementing MHAKVPool", SRT_ONLY),
    Clause("SUB-02", "the KV pool stores and returns what was written", SRT_ONLY),
    Clause(
        "SUB-03", "get_paged_allocator_cls returns a class implementing PagedAllocator", SRT_ONLY
    ),
    Clause(
        "SUB-04",
        "the allocator never hands out a page twice and gets every page back",
        SRT_ONLY,
    ),
    Clause("SUB-05", "get_graph_runner_cls returns a class implementing GraphRunner", SRT_ONLY),
    Clause(
        "SUB-06",
        "the default attention backend is registered and implements AttentionBackend",
        SRT_ONLY,
    ),
    Clause(
        "SUB-07",
        "with graph capture declared, the graph runner replays each decode batch it is given "
        "(two per size) with the eager logits",
        SRT_ONLY,
        _GRAPHS,
    ),
    Clause(
        "SUB-08",
        "a prefill that starts after KV pages another sequence wrote, a decode over "
        "shared pages and a decode in a prefill's step give the logits of computing each "
        "sequence alone",
        SRT_ONLY,
    ),
    Clause("OPS-01", "rms_norm as dispatched matches forward_native", SRT_ONLY),
    Clause("OPS-02", "silu_and_mul as dispatched matches forward_native", SRT_ONLY),
    Clause("OPS-03", "rotary_embedding as dispatched matches forward_native", SRT_ONLY),
    Clause("OPS-04", "the diffusion RMSNorm as dispatched matches forward_native", ("diffusion",)),
    Clause("OPS-05", "the diffusion GELU as dispatched matches forward_native", ("diffusion",)),
    Clause("LIF-01", "apply_server_args_defaults leaves the server arguments valid"),
    Clause(
        "LIF-02",
        "init_backend runs exactly once per worker process, before the model is built, "
        "and completes",
    ),
    Clause("LIF-03", "the platform distribution's own general plugins load and apply cleanly"),
    Clause(
        "E2E-01",
        "the reference SRT runtime with sglang serve's default flags (the KV cache sized from "
        "the platform's memory) generates on the device what it generates on the CPU "
        "(greedy, test model)",
        SRT_ONLY,
    ),
    Clause(
        "E2E-02",
        "two tensor-parallel ranks with the platform's distributed backend agree with one",
        SRT_ONLY,
        _MULTI,
    ),
    Clause(
        "E2E-03",
        "a seeded image of the reference diffusion pipeline on the device equals the CPU's",
        ("diffusion",),
    ),
    Clause(
        "E2E-04",
        "the SRT engine generates the same tokens with its prefix cache and chunked prefill "
        "(alternating with decode steps, and mixed with them) as without them, and the "
        "second request of a shared prefix reads it from the cache",
        SRT_ONLY,
    ),
    Clause("SRV-01", "the factory returns a ServeBackend with a supported api_version", ()),
    Clause("SRV-02", "run() with --help exits 0 and starts nothing", ()),
    Clause(
        "SRV-03",
        "detect() on synthetic requests returns a ServeBackendDetection without side "
        "effects (no thread, device or network)",
        (),
    ),
)
"""Every clause of the suite, by id, in report order."""


def clause(clause_id: str) -> Callable[[_F], _F]:
    """Mark a test function as the check of clause *clause_id*.

    Raises:
        KeyError: *clause_id* is not in :data:`CLAUSES`.
    """
    found = CLAUSES[clause_id]

    def mark(function: _F) -> _F:
        setattr(function, CLAUSE_ATTRIBUTE, found)
        return function

    return mark


def clause_of(function: object) -> Clause | None:
    """Return the :class:`Clause` *function* checks, or ``None`` for an unmarked one."""
    found = getattr(function, CLAUSE_ATTRIBUTE, None)
    return found if isinstance(found, Clause) else None
