"""Device [DEV]: every Active operation returns the right type and sane values."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from sglang.conformance._clauses import clause
from sglang.conformance._signatures import conforms, resolved_return
from sglang.conformance._target import Target
from sglang.sdk.contract import Operation, OperationStatus

__all__ = ["TestDevice", "active_queries"]

_SIDE_EFFECTS = frozenset(
    {"init_backend", "apply_server_args_defaults", "seed_everything", "empty_cache", "synchronize"}
)


def _tables(runtime: str) -> Mapping[str, Operation]:
    if runtime == "srt":
        from sglang.sdk.device import DEVICE_OPERATIONS
        from sglang.sdk.srt import SRT_OPERATIONS

        return {**DEVICE_OPERATIONS, **SRT_OPERATIONS}
    from sglang.sdk.diffusion import DIFFUSION_OPERATIONS

    return DIFFUSION_OPERATIONS


def _no_arguments(function: Callable[..., object]) -> bool:
    import inspect

    params = list(inspect.signature(function).parameters.values())[1:]
    return all(
        p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params
    )


def active_queries(target: Target) -> list[str]:
    """The Active operations of *target*'s runtime that take no required argument."""
    base = target.spec.platform_base
    names = []
    for name, operation in _tables(target.runtime).items():
        member = getattr(base, name, None)
        active = operation.status is OperationStatus.ACTIVE and name not in _SIDE_EFFECTS
        if active and (not callable(member) or _no_arguments(member)):
            names.append(name)
    return names


def _call(platform: Any, name: str) -> Any:
    try:
        return getattr(platform, name)()
    except NotImplementedError as exc:
        pytest.skip(f"{name}() is not implemented: {exc}")


class TestDevice:
    """The device operations of the selected platform, called for real."""

    @clause("DEV-01")
    def test_memory_figures_are_sane(self, sglang_target: Target, sglang_platform: Any) -> None:
        """Total memory is positive and covers the current usage (and the free memory)."""
        total = _call(sglang_platform, "get_device_total_memory")
        assert total > 0, f"get_device_total_memory() returned {total!r}; it must be > 0 bytes"
        if sglang_target.runtime == "srt":
            usage = _call(sglang_platform, "get_current_memory_usage")
            assert 0 <= usage <= total, (
                f"get_current_memory_usage() = {usage!r} bytes is not within [0, total = {total}]"
            )
            try:
                free, reported = sglang_platform.get_available_memory(0)
            except NotImplementedError:
                return
            assert 0 <= free <= reported, f"get_available_memory() = {(free, reported)!r}"
            assert reported == total, (
                f"get_available_memory() reports total {reported} but "
                f"get_device_total_memory() says {total}"
            )
        else:
            free = _call(sglang_platform, "get_available_gpu_memory")
            assert 0 <= free <= total, (
                f"get_available_gpu_memory() = {free!r} bytes is not within [0, total = {total}]"
            )

    @clause("DEV-02")
    def test_capability(self, sglang_platform: Any) -> None:
        """``get_device_capability()`` is a ``DeviceCapability`` of ints >= 0, or ``None``."""
        from sglang.sdk.device import DeviceCapability

        capability = _call(sglang_platform, "get_device_capability")
        if capability is None:
            return
        assert isinstance(capability, DeviceCapability), (
            f"get_device_capability() returned {capability!r}; return "
            f"sglang.sdk.DeviceCapability(major, minor) or None"
        )
        assert all(isinstance(v, int) and v >= 0 for v in capability), capability

    @clause("DEV-03")
    def test_active_queries_return_declared_types(
        self, sglang_target: Target, sglang_platform: Any
    ) -> None:
        """Each Active query's result conforms to the return annotation of the sdk base."""
        base = sglang_target.spec.platform_base
        wrong = []
        for name in active_queries(sglang_target):
            member = getattr(base, name)
            if not callable(member):
                value = getattr(sglang_platform, name)
                if not isinstance(value, type(member)):
                    wrong.append(f"{name} is {value!r}, not a {type(member).__name__}")
                continue
            known, annotation = resolved_return(member)
            try:
                value = getattr(sglang_platform, name)()
            except NotImplementedError:
                continue  # not offered: the clauses that need it say so
            if known and not conforms(value, annotation):
                wrong.append(f"{name}() returned {value!r}, not {annotation!r}")
        assert not wrong, "Active operations return the wrong type:\n" + "\n".join(wrong)

    @clause("DEV-04")
    def test_process_group(self, sglang_platform: Any) -> None:
        """A world-size-1 group initialises with the backend string and all-reduces."""
        import torch
        import torch.distributed as dist

        backend = _call(sglang_platform, "get_torch_distributed_backend_str")
        assert isinstance(backend, str), f"backend string {backend!r}"
        assert backend, "get_torch_distributed_backend_str() returned an empty string"
        if dist.is_initialized():
            pytest.skip("torch.distributed is already initialised in this process")
        device = sglang_platform.get_device(0)
        sglang_platform.set_device(device)
        with tempfile.NamedTemporaryFile(prefix="sglang-conformance-store-") as handle:
            store = getattr(dist, "FileStore")(handle.name, 1)  # noqa: B009 - not re-exported
            dist.init_process_group(backend, store=store, rank=0, world_size=1)
            try:
                tensor = torch.ones(4, device=device)
                dist.all_reduce(tensor)
                assert tensor.cpu().tolist() == [1.0] * 4
            finally:
                dist.destroy_process_group()

    @clause("DEV-05")
    def test_get_device_allocates(self, sglang_platform: Any) -> None:
        """``get_device(0)`` is of ``device_type`` and holds a tensor that copies back intact."""
        import torch

        try:
            device = sglang_platform.get_device(0)
        except NotImplementedError as exc:
            pytest.skip(f"get_device() is not implemented: {exc}")
        assert isinstance(device, torch.device), f"get_device(0) returned {device!r}"
        assert device.type == sglang_platform.device_type, (
            f"get_device(0) is a {device.type!r} device but device_type is "
            f"{sglang_platform.device_type!r}"
        )
        source = torch.arange(64, dtype=torch.float32)
        on_device = source.to(device)
        assert on_device.device.type == device.type
        assert torch.equal((on_device * 2).cpu(), source * 2)

    @clause("DEV-06")
    def test_fp8_round_trip(self, sglang_platform: Any) -> None:
        """A declared FP8 capability holds an ``float8_e4m3fn`` tensor that converts back."""
        import torch

        device = sglang_platform.get_device(0)
        source = torch.linspace(-4, 4, 33)
        expected = source.to(torch.float8_e4m3fn).to(torch.float32)
        back = source.to(device).to(torch.float8_e4m3fn).to(torch.float32).cpu()
        assert torch.equal(back, expected)
