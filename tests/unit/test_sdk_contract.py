"""The operation tables agree with the classes and with the seed's tables."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping

import pytest

from sglang.sdk import (
    DEVICE_OPERATIONS,
    DIFFUSION_OPERATIONS,
    SRT_OPERATIONS,
    DeviceMixin,
    DiffusionPlatform,
    Operation,
    OperationStatus,
    SRTPlatform,
)
from sglang.sdk.contract import operation_table
from sglang.sdk.device import PlatformIdentity
from sglang.sdk.protocols import DeviceLike, DiffusionPlatformLike, SRTPlatformLike

ACTIVE = OperationStatus.ACTIVE
PLANNED = OperationStatus.PLANNED
COMPATIBILITY = OperationStatus.COMPATIBILITY

# The seed's "Device Operations" table: method -> status.
SEED_DEVICE: dict[str, OperationStatus] = {
    "get_device": PLANNED,
    "set_device": PLANNED,
    "get_device_name": PLANNED,
    "get_device_uuid": PLANNED,
    "get_device_capability": PLANNED,
    "empty_cache": PLANNED,
    "synchronize": PLANNED,
    "get_device_total_memory": ACTIVE,
    "get_available_memory": PLANNED,
    "get_current_memory_usage": ACTIVE,
    "is_pin_memory_available": ACTIVE,
    "get_torch_distributed_backend_str": PLANNED,
    "get_communicator_class": PLANNED,
    "inference_mode": PLANNED,
    "seed_everything": PLANNED,
    "verify_quantization": PLANNED,
    "get_cpu_architecture": PLANNED,
}

# The seed's capability flags, subsystem factories and lifecycle hooks.
SEED_SRT: set[str] = {
    "support_cuda_graph",
    "support_piecewise_cuda_graph",
    "supports_fp8",
    "get_default_attention_backend",
    "get_graph_runner_cls",
    "get_mha_kv_pool_cls",
    "get_mla_kv_pool_cls",
    "get_dsa_kv_pool_cls",
    "get_paged_allocator_cls",
    "get_quantization_config",
    "get_piecewise_backend_cls",
    "get_compile_backend",
    "get_dispatch_key_name",
    "apply_server_args_defaults",
    "init_backend",
}

# The seed's diffusion platform contract: Active rows and the Compatibility row.
SEED_DIFFUSION: dict[str, OperationStatus] = {
    name: ACTIVE
    for name in [
        "init_backend",
        "apply_server_args_defaults",
        "get_device",
        "set_device",
        "get_local_torch_device",
        "get_device_name",
        "get_device_uuid",
        "get_device_total_memory",
        "get_available_gpu_memory",
        "get_device_capability",
        "get_torch_distributed_backend_str",
        "supports_distributed_device_id",
        "get_all_to_all_communicator_cls",
        "get_cpu_architecture",
        "dispatch_key",
        "get_dispatch_key_name",
        "get_attn_backend_cls_str",
        "verify_model_arch",
        "optimize_vae",
        "get_compile_backend",
        "get_compile_options",
        "inference_mode",
        "seed_everything",
        "enable_dit_layerwise_offload_by_default",
    ]
}
SEED_DIFFUSION["get_device_communicator_cls"] = COMPATIBILITY

IDENTITY_QUERIES = {name for name in vars(PlatformIdentity) if name.startswith("is_")}

TABLES: list[tuple[str, Mapping[str, Operation], type]] = [
    ("device", DEVICE_OPERATIONS, DeviceMixin),
    ("srt", SRT_OPERATIONS, SRTPlatform),
    ("diffusion", DIFFUSION_OPERATIONS, DiffusionPlatform),
]


def public_members(cls: type, stop: type) -> set[str]:
    """Public names defined by *cls* and its bases up to (excluding) *stop*'s MRO."""
    names: set[str] = set()
    for klass in cls.__mro__:
        if klass in stop.__mro__:
            break
        names.update(name for name in vars(klass) if not name.startswith("_"))
    return names


@pytest.mark.parametrize(("label", "table", "cls"), TABLES, ids=[t[0] for t in TABLES])
def test_every_table_entry_is_a_real_attribute(
    label: str, table: Mapping[str, Operation], cls: type
) -> None:
    missing = [name for name in table if not hasattr(cls, name)]
    assert not missing, f"{label} table lists {missing}, which {cls.__name__} lacks"


@pytest.mark.parametrize(("label", "table", "cls"), TABLES, ids=[t[0] for t in TABLES])
def test_table_keys_match_operation_names(
    label: str, table: Mapping[str, Operation], cls: type
) -> None:
    for name, operation in table.items():
        assert operation.name == name
        assert isinstance(operation.status, OperationStatus)
        assert operation.default
        assert operation.summary
        assert operation.area


def test_device_table_is_the_seed_table() -> None:
    statuses = {name: op.status for name, op in DEVICE_OPERATIONS.items()}
    assert statuses == SEED_DEVICE


def test_srt_table_is_the_seed_table() -> None:
    assert set(SRT_OPERATIONS) == SEED_SRT
    assert not set(SRT_OPERATIONS) & set(DEVICE_OPERATIONS)


def test_diffusion_table_is_the_seed_table() -> None:
    statuses = {name: op.status for name, op in DIFFUSION_OPERATIONS.items()}
    undocumented = set(statuses) - set(SEED_DIFFUSION)
    assert statuses == {**SEED_DIFFUSION, **{name: ACTIVE for name in undocumented}}
    # The seed documents get_torch_library_dispatch_key() as the reader of dispatch_key.
    assert undocumented <= {"get_torch_library_dispatch_key"}


def test_every_device_mixin_method_is_tabled() -> None:
    methods = public_members(DeviceMixin, PlatformIdentity) - {"device_name", "device_type"}
    assert methods == set(DEVICE_OPERATIONS)


def test_every_srt_platform_method_is_tabled() -> None:
    assert public_members(SRTPlatform, DeviceMixin) == set(SRT_OPERATIONS)


def test_every_diffusion_platform_member_is_tabled() -> None:
    members = public_members(DiffusionPlatform, PlatformIdentity)
    assert members - {"device_name", "device_type"} == set(DIFFUSION_OPERATIONS)


def test_identity_queries_are_the_seed_queries() -> None:
    assert {
        "is_cuda",
        "is_rocm",
        "is_npu",
        "is_cpu",
        "is_xpu",
        "is_musa",
        "is_cuda_alike",
        "is_out_of_tree",
    } <= IDENTITY_QUERIES


def protocol_members(protocol: type) -> set[str]:
    names: set[str] = set()
    for klass in protocol.__mro__:
        if klass is object or klass.__name__ in {"Protocol", "Generic"}:
            continue
        names.update(name for name in vars(klass) if not name.startswith("_"))
        names.update(getattr(klass, "__annotations__", {}))
    return names


@pytest.mark.parametrize(
    ("protocol", "cls", "tables"),
    [
        (DeviceLike, DeviceMixin, [DEVICE_OPERATIONS]),
        (SRTPlatformLike, SRTPlatform, [DEVICE_OPERATIONS, SRT_OPERATIONS]),
        (DiffusionPlatformLike, DiffusionPlatform, [DIFFUSION_OPERATIONS]),
    ],
    ids=["DeviceLike", "SRTPlatformLike", "DiffusionPlatformLike"],
)
def test_protocols_cover_the_tables_and_exist_on_the_bases(
    protocol: type, cls: type, tables: list[Mapping[str, Operation]]
) -> None:
    members = protocol_members(protocol)
    tabled = set().union(*tables)
    assert tabled <= members, f"{protocol.__name__} lacks {sorted(tabled - members)}"
    absent = sorted(name for name in members if not hasattr(cls, name))
    assert not absent, f"{cls.__name__} lacks protocol members {absent}"


@pytest.mark.parametrize(("label", "table", "cls"), TABLES, ids=[t[0] for t in TABLES])
def test_tabled_methods_are_documented(
    label: str, table: Mapping[str, Operation], cls: type
) -> None:
    for name in table:
        member = inspect.getattr_static(cls, name)
        if callable(member):
            assert inspect.getdoc(member), f"{cls.__name__}.{name} has no docstring"


def test_operation_table_rejects_repeated_names() -> None:
    op = Operation("get_device", PLANNED, "raise NotImplementedError", "device", "device")
    with pytest.raises(ValueError, match="get_device"):
        operation_table(op, op)


def test_operation_tables_are_read_only() -> None:
    table = operation_table(Operation("x", ACTIVE, "pass", "x", "x"))
    with pytest.raises(TypeError):
        table["y"] = Operation("y", ACTIVE, "pass", "y", "y")  # type: ignore[index]


def default_cases() -> list[object]:
    from tests.unit.test_sdk_device import DEVICE_CALLS, VendorDevice
    from tests.unit.test_sdk_diffusion import DIFFUSION_CALLS
    from tests.unit.test_sdk_diffusion import VendorPlatform as VendorDiffusion
    from tests.unit.test_sdk_srt import SRT_CALLS
    from tests.unit.test_sdk_srt import VendorPlatform as VendorSRT

    cases: list[object] = []
    for name, op in DEVICE_OPERATIONS.items():
        call = DEVICE_CALLS[name]
        cases.append(pytest.param(op, lambda c=call: c(VendorDevice()), id=f"device-{name}"))
    for name, op in SRT_OPERATIONS.items():
        call_srt = SRT_CALLS[name]
        cases.append(pytest.param(op, lambda c=call_srt: c(VendorSRT()), id=f"srt-{name}"))
    for name, op in DIFFUSION_OPERATIONS.items():
        call_d = DIFFUSION_CALLS[name]
        cases.append(
            pytest.param(op, lambda c=call_d: c(VendorDiffusion()), id=f"diffusion-{name}")
        )
    return cases


LITERAL_DEFAULTS: dict[str, object] = {
    "pass": None,
    "None": None,
    "False": False,
    '"inductor"': "inductor",
    '"native"': "native",
    '"gloo"': "gloo",
    '"CPU"': "CPU",
    "{}": {},
}


@pytest.mark.parametrize(("operation", "call"), default_cases())
def test_tabled_default_is_the_behaviour(operation: Operation, call: Callable[[], object]) -> None:
    if operation.default == "raise NotImplementedError":
        with pytest.raises(NotImplementedError, match=rf"{operation.name}\(\)"):
            call()
    elif operation.default in LITERAL_DEFAULTS:
        assert call() == LITERAL_DEFAULTS[operation.default]
    else:
        # Descriptive defaults (torch.inference_mode, seeding, CPU detection, the
        # communicator fallback, ...) have behaviour tests of their own.
        call()
