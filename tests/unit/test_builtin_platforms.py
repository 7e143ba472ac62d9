"""Built-in platforms: probes and fallback order with injected torch-like namespaces,
the real probes on this machine, and the real CPU built-ins of both runtimes.

Accelerators we do not have (CUDA, ROCm, XPU, MPS, NPU, MUSA) are simulated
by torch-like namespaces handed to the probes and to the device operations;
the real probes and the real CPU platforms run against the installed torch.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest
import torch

from sglang.runtime import DIFFUSION, SRT, RuntimeSpec
from sglang.runtime.builtin import diffusion as dbuiltin
from sglang.runtime.builtin import families
from sglang.runtime.builtin import srt as sbuiltin
from sglang.runtime.builtin.families import FAMILIES, ProbeContext, probe_families
from sglang.runtime.builtin.ops import (
    BuiltinDeviceOps,
    host_available_memory,
    host_peak_rss,
    host_total_memory,
)
from sglang.runtime.discovery import EntryPointIndex
from sglang.runtime.selection import PlatformSelectionError, ReportBuilder, select
from sglang.sdk.device import DeviceCapability
from sglang.sdk.device import PlatformEnum as SRTEnum
from sglang.sdk.diffusion import Platform
from sglang.sdk.diffusion import PlatformEnum as DiffusionEnum
from sglang.sdk.srt import SRTPlatform
from tests.support.dists import run_python

# -- fake torch namespaces ---------------------------------------------------------


def fake_torch(
    *,
    cuda: int = 0,
    hip: str | None = None,
    xpu: bool | None = None,
    mps: bool = False,
    npu: bool | None = None,
    musa: bool | None = None,
) -> SimpleNamespace:
    """A torch-like namespace exposing exactly the probed attributes."""
    ns = SimpleNamespace(
        version=SimpleNamespace(hip=hip),
        cuda=SimpleNamespace(device_count=lambda: cuda),
        backends=SimpleNamespace(mps=SimpleNamespace(is_available=lambda: mps)),
    )
    if xpu is not None:
        ns.xpu = SimpleNamespace(is_available=lambda: xpu)
    if npu is not None:
        ns.npu = SimpleNamespace(is_available=lambda: npu)
    if musa is not None:
        ns.musa = SimpleNamespace(is_available=lambda: musa)
    return ns


def context(
    torch_like: object, installed: Iterable[str] = (), imported: list[str] | None = None
) -> ProbeContext:
    extensions = set(installed)
    sink = imported if imported is not None else []

    def find_spec(name: str) -> object | None:
        return object() if name in extensions else None

    def import_module(name: str) -> object:
        sink.append(name)
        return ModuleType(name)

    return ProbeContext(torch_like, find_spec, import_module)


def no_probing() -> ProbeContext:
    raise AssertionError("the hardware must not be probed")


def selected(
    spec: RuntimeSpec,
    probe: Callable[[], ProbeContext],
    environ: dict[str, str] | None = None,
) -> tuple[str, ReportBuilder]:
    report = ReportBuilder(spec)
    result = select(
        spec, report, environ=environ or {}, index=EntryPointIndex(), probe_context=probe
    )
    assert result.dist_name is None
    return type(result.platform).__name__, report


# -- probes ----------------------------------------------------------------------------


def test_cuda_and_rocm_are_told_apart_by_hip_version() -> None:
    cuda = context(fake_torch(cuda=2))
    rocm = context(fake_torch(cuda=2, hip="6.2"))
    assert families.probe_cuda(cuda)
    assert not families.probe_rocm(cuda)
    assert families.probe_rocm(rocm)
    assert not families.probe_cuda(rocm)
    none = context(fake_torch(cuda=0))
    assert not families.probe_cuda(none)
    assert not families.probe_rocm(none)


def test_xpu_needs_the_namespace() -> None:
    assert not families.probe_xpu(context(fake_torch()))  # torch without torch.xpu
    assert not families.probe_xpu(context(fake_torch(xpu=False)))
    assert families.probe_xpu(context(fake_torch(xpu=True)))


@pytest.mark.parametrize(("key", "extension"), [("npu", "torch_npu"), ("musa", "torch_musa")])
def test_extension_is_imported_only_when_installed(key: str, extension: str) -> None:
    probe = FAMILIES[key].probe
    imported: list[str] = []
    present: dict[str, Any] = {key: True}
    absent: dict[str, Any] = {key: False}
    assert not probe(context(fake_torch(**present), installed=(), imported=imported))
    assert imported == []
    assert probe(context(fake_torch(**present), installed=[extension], imported=imported))
    assert imported == [extension]
    assert not probe(context(fake_torch(**absent), installed=[extension]))


def test_probe_families_stops_at_first_and_keeps_errors() -> None:
    def broken(name: str) -> object:
        raise ImportError("libascend missing")

    ctx = ProbeContext(fake_torch(cuda=1), lambda name: object(), broken)
    outcomes = probe_families(["npu", "cuda", "cpu"], ctx)
    assert [o.family for o in outcomes] == ["npu", "cuda"]
    assert outcomes[0].available is False
    assert outcomes[0].error == "ImportError: libascend missing"
    assert outcomes[1].available is True


# -- the SRT fallback chain ------------------------------------------------------------


@pytest.mark.parametrize(
    ("torch_like", "expected"),
    [
        (fake_torch(cuda=1), "CudaSRTPlatform"),
        (fake_torch(cuda=1, hip="6.2"), "RocmSRTPlatform"),
        (fake_torch(xpu=True), "XpuSRTPlatform"),
        (fake_torch(cuda=1, xpu=True), "CudaSRTPlatform"),
        (fake_torch(cuda=1, hip="6.2", xpu=True), "RocmSRTPlatform"),
        (fake_torch(mps=True, npu=True, musa=True), "SRTPlatform"),  # SRT has none of these
        (fake_torch(), "SRTPlatform"),
    ],
)
def test_srt_fallback_chain(torch_like: SimpleNamespace, expected: str) -> None:
    ctx = context(torch_like, installed=["torch_npu", "torch_musa"])
    name, report = selected(SRT, lambda: ctx)
    assert name == expected
    assert report.platform_dist is None


def test_srt_reason_names_the_available_family() -> None:
    _, report = selected(SRT, lambda: context(fake_torch(cuda=1)))
    assert report.reason == "fallback: no plugin activated and CUDA is available"
    assert [p.family for p in report.probes] == ["cuda"]


@pytest.mark.parametrize("flag", ["1", "true", "TRUE", "yes", "on"])
def test_srt_cpu_engine_wins_without_probing(flag: str) -> None:
    name, report = selected(SRT, no_probing, {"SGLANG_USE_CPU_ENGINE": flag})
    assert name == "CpuSRTPlatform"
    assert report.probes == ()


@pytest.mark.parametrize("flag", ["0", "", "false", " Off ", "no"])
def test_srt_cpu_engine_off_probes(flag: str) -> None:
    name, _ = selected(SRT, lambda: context(fake_torch(cuda=4)), {"SGLANG_USE_CPU_ENGINE": flag})
    assert name == "CudaSRTPlatform"


@pytest.mark.parametrize("flag", ["2", "maybe", "y"])
def test_srt_cpu_engine_rejects_what_is_not_a_boolean(flag: str) -> None:
    # once silently "off"; a typo must not quietly probe (and maybe pick) a GPU
    with pytest.raises(PlatformSelectionError, match="is not a boolean"):
        selected(SRT, no_probing, {"SGLANG_USE_CPU_ENGINE": flag})


# -- the diffusion detection order ---------------------------------------------------


EVERYTHING = {"cuda": 1, "xpu": True, "mps": True, "npu": True, "musa": True}


@pytest.mark.parametrize(
    ("available", "expected"),
    [
        (EVERYTHING, "MpsPlatform"),
        ({**EVERYTHING, "mps": False}, "XpuPlatform"),
        ({"cuda": 1, "hip": "6.2", "npu": True, "musa": True}, "RocmPlatform"),
        ({"cuda": 1, "npu": True, "musa": True}, "CudaPlatform"),
        ({"npu": True, "musa": True}, "NpuPlatform"),
        ({"musa": True}, "MusaPlatform"),
        ({}, "CpuPlatform"),
    ],
)
def test_diffusion_detection_order(available: dict[str, Any], expected: str) -> None:
    ctx = context(fake_torch(**available), installed=["torch_npu", "torch_musa"])
    name, _ = selected(DIFFUSION, lambda: ctx)
    assert name == expected


def test_diffusion_probes_in_documented_order() -> None:
    _, report = selected(DIFFUSION, lambda: context(fake_torch()))
    assert [p.family for p in report.probes] == ["mps", "xpu", "rocm", "cuda", "npu", "musa", "cpu"]


def test_broken_probe_counts_as_unavailable_and_warns(caplog: pytest.LogCaptureFixture) -> None:
    def broken(name: str) -> object:
        raise OSError("driver mismatch")

    ctx = ProbeContext(fake_torch(musa=True), lambda name: object(), broken)
    with caplog.at_level(logging.WARNING, logger="sglang.runtime.selection"):
        name, report = selected(DIFFUSION, lambda: ctx)
    assert name == "CpuPlatform"
    npu = next(p for p in report.probes if p.family == "npu")
    assert npu.error == "OSError: driver mismatch"
    assert "platform probe 'npu' failed" in caplog.text


@pytest.mark.parametrize(("spec", "expected"), [(SRT, "SRTPlatform"), (DIFFUSION, "CpuPlatform")])
def test_without_torch_no_accelerator_is_detected_and_a_warning_says_why(
    spec: RuntimeSpec,
    expected: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # torch is an optional extra (sglang[torch]): a missing torch is "no accelerator",
    # the documented last resort, never a raw ModuleNotFoundError out of current_platform
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch -> ModuleNotFoundError
    with caplog.at_level(logging.WARNING, logger="sglang.runtime.selection"):
        name, report = selected(spec, ProbeContext.real)
    assert name == expected
    assert report.reason.endswith("(torch is not installed)")
    assert "torch is not installed" in caplog.text
    assert "pip install 'sglang[torch]'" in caplog.text


def test_a_broken_torch_install_is_not_mistaken_for_a_missing_one(tmp_path: Path) -> None:
    fake = tmp_path / "torch"
    fake.mkdir()
    (fake / "__init__.py").write_text("import torch._C_missing_xyz\n")
    result = run_python(
        """
        from sglang.runtime.builtin.families import ProbeContext
        try:
            ProbeContext.real()
        except ModuleNotFoundError as exc:
            print("RAISED", exc.name)
        """,
        path=[tmp_path],
    ).check()
    assert "RAISED torch._C_missing_xyz" in result.stdout


@pytest.mark.parametrize(
    ("spec", "skip"),
    [
        (SRT, "set SGLANG_USE_CPU_ENGINE=1"),
        (DIFFUSION, "set SGLANG_DIFFUSION_PLATFORM_OVERRIDE to a built-in platform (cpu, cuda,"),
    ],
)
def test_a_torch_that_fails_to_import_aborts_with_an_actionable_error(
    spec: RuntimeSpec, skip: str
) -> None:
    def broken() -> ProbeContext:
        raise OSError("libcudart.so.12: cannot open shared object file")

    with pytest.raises(PlatformSelectionError) as info:
        selected(spec, broken)
    message = str(info.value)
    assert "importing torch failed: OSError: libcudart.so.12" in message
    assert "pip install --force-reinstall torch" in message
    assert skip in message
    assert "Traceback (most recent call last)" in message
    assert isinstance(info.value.__cause__, OSError)


# -- the built-in classes --------------------------------------------------------------

SRT_CLASSES: list[type[sbuiltin.BuiltinSRTPlatform]] = [
    sbuiltin.CpuSRTPlatform,
    sbuiltin.CudaSRTPlatform,
    sbuiltin.RocmSRTPlatform,
    sbuiltin.XpuSRTPlatform,
]
DIFFUSION_CLASSES: list[type[dbuiltin.BuiltinDiffusionPlatform]] = [
    dbuiltin.CpuPlatform,
    dbuiltin.CudaPlatform,
    dbuiltin.RocmPlatform,
    dbuiltin.XpuPlatform,
    dbuiltin.MpsPlatform,
    dbuiltin.NpuPlatform,
    dbuiltin.MusaPlatform,
]


ALL_CLASSES: list[type[BuiltinDeviceOps]] = [*SRT_CLASSES, *DIFFUSION_CLASSES]


@pytest.mark.parametrize("cls", ALL_CLASSES, ids=lambda c: c.__name__)
def test_builtin_identity_comes_from_its_family(cls: type[BuiltinDeviceOps]) -> None:
    family = cls._family
    platform = cls()
    assert platform.device_name == family.key
    assert platform.device_type == family.device_type
    assert platform.get_torch_distributed_backend_str() == family.distributed_backend
    assert platform.get_dispatch_key_name() == family.dispatch_key_name
    enum = SRTEnum if issubclass(cls, SRTPlatform) else DiffusionEnum
    assert cls._enum is enum[family.enum_name]  # type: ignore[attr-defined]
    assert getattr(platform, f"is_{family.key}")()
    assert not platform.is_out_of_tree()  # type: ignore[attr-defined]


def test_runtime_tables_point_at_real_classes() -> None:
    for spec, base in ((SRT, SRTPlatform), (DIFFUSION, Platform)):
        for builtin in spec.builtins:
            module, _, name = builtin.qualname.partition(":")
            cls = getattr(sys.modules.get(module) or __import__(module, fromlist=[name]), name)
            assert issubclass(cls, base)
            if builtin.family is not None:
                assert cls.__dict__["_family"] is FAMILIES[builtin.family]
        for key in spec.probe_order:
            spec.builtin(key)
    assert sorted(DIFFUSION.override_aliases | DIFFUSION.auto_only_builtins) == sorted(
        b.key for b in DIFFUSION.builtins
    )


def test_diffusion_dispatch_keys() -> None:
    assert dbuiltin.CpuPlatform.dispatch_key == "CPU"
    assert dbuiltin.CudaPlatform.dispatch_key == "CUDA"
    assert dbuiltin.NpuPlatform.dispatch_key == "PrivateUse1"
    assert dbuiltin.RocmPlatform().get_dispatch_key_name() == "hip"


# -- accelerator operations against a simulated device --------------------------------


class FakeCudaApi:
    """Just enough of ``torch.cuda`` for the device operations."""

    def __init__(self, capability: tuple[int, int] = (9, 0)) -> None:
        self.capability = capability
        self.calls: list[str] = []

    def get_device_properties(self, index: int) -> SimpleNamespace:
        return SimpleNamespace(total_memory=141 * 2**30, uuid=f"GPU-{index:04d}")

    def mem_get_info(self, index: int) -> tuple[int, int]:
        return 100 * 2**30, 141 * 2**30

    def get_device_name(self, index: int) -> str:
        return "NVIDIA H200"

    def get_device_capability(self, index: int) -> tuple[int, int]:
        return self.capability

    def current_device(self) -> int:
        return 3

    def set_device(self, device: object) -> None:
        self.calls.append(f"set_device {device}")

    def reset_peak_memory_stats(self, device: object) -> None:
        self.calls.append("reset_peak")

    def max_memory_allocated(self, device: object) -> int:
        return 12345

    def empty_cache(self) -> None:
        self.calls.append("empty_cache")

    def synchronize(self) -> None:
        self.calls.append("synchronize")


def with_api(platform: BuiltinDeviceOps, monkeypatch: pytest.MonkeyPatch, api: object) -> None:
    monkeypatch.setattr(
        platform, "_torch", lambda: SimpleNamespace(**{platform._family.namespace or "": api})
    )


@pytest.mark.parametrize("cls", [sbuiltin.CudaSRTPlatform, dbuiltin.CudaPlatform])
def test_cuda_operations(cls: type[BuiltinDeviceOps], monkeypatch: pytest.MonkeyPatch) -> None:
    api = FakeCudaApi()
    platform = cls()
    with_api(platform, monkeypatch, api)
    assert platform.get_device(1) == torch.device("cuda", 1)
    assert platform.get_local_torch_device() == torch.device("cuda", 3)
    assert platform.get_device_name() == "NVIDIA H200"
    assert platform.get_device_uuid(2) == "GPU-0002"
    assert platform.get_device_capability() == DeviceCapability(9, 0)
    assert platform.get_device_total_memory() == 141 * 2**30
    assert platform.get_available_memory() == (100 * 2**30, 141 * 2**30)
    assert platform.get_available_gpu_memory() == 100 * 2**30
    assert platform.get_current_memory_usage() == 12345.0
    assert platform.is_pin_memory_available()
    assert platform.is_pin_memory_available(torch.device("cuda", 1))
    # what torch accepts for a device: a string and an index too
    assert platform.is_pin_memory_available("cuda")
    assert platform.is_pin_memory_available("cuda:1")
    assert platform.is_pin_memory_available(1)
    # pinning is for copies to the accelerator, never for a CPU target
    assert platform.is_pin_memory_available(torch.device("cpu")) is False
    assert platform.is_pin_memory_available("cpu") is False
    assert platform.supports_distributed_device_id()
    platform.set_device(torch.device("cuda", 1))
    platform.empty_cache()
    platform.synchronize()
    assert api.calls == ["reset_peak", "set_device cuda:1", "empty_cache", "synchronize"]


@pytest.mark.parametrize(("capability", "fp8"), [((9, 0), True), ((8, 9), True), ((8, 0), False)])
def test_cuda_fp8_follows_capability(
    capability: tuple[int, int], fp8: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    platform = sbuiltin.CudaSRTPlatform()
    with_api(platform, monkeypatch, FakeCudaApi(capability))
    assert platform.supports_fp8() is fp8
    # the reference runtime's graph runner captures nothing, so no capture is declared
    assert platform.support_cuda_graph() is False
    assert (
        platform.get_default_attention_backend() == "torch_native"
    )  # the one backend the reference runtime registers


def test_mps_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    api = SimpleNamespace(
        recommended_max_memory=lambda: 64 * 2**30,
        driver_allocated_memory=lambda: 4 * 2**30,
        current_allocated_memory=lambda: 2**30,
    )
    platform = dbuiltin.MpsPlatform()
    with_api(platform, monkeypatch, api)
    assert platform.get_device_total_memory() == 64 * 2**30
    assert platform.get_available_gpu_memory() == 60 * 2**30
    assert platform.get_current_memory_usage() == float(2**30)
    assert platform.get_device_capability() is None
    assert not platform.is_pin_memory_available()


def test_npu_imports_its_extension(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch_npu", ModuleType("torch_npu"))
    api = SimpleNamespace(
        get_device_properties=lambda i: SimpleNamespace(total_memory=64 * 2**30),
        get_device_name=lambda i: "Ascend910B",
    )
    platform = dbuiltin.NpuPlatform()
    with_api(platform, monkeypatch, api)
    assert platform.get_device_total_memory() == 64 * 2**30
    assert platform.get_device_name() == "Ascend910B"
    assert platform.get_device_uuid(1) == "npu:1"  # no uuid property: index-based
    assert platform.get_torch_distributed_backend_str() == "hccl"


# -- the real probes and the real CPU built-ins ----------------------------------------


def test_real_probes_agree_with_torch() -> None:
    outcomes = {
        o.family: o for o in probe_families(FAMILIES, ProbeContext.real(), stop_at_first=False)
    }
    assert set(outcomes) == set(FAMILIES)
    assert all(o.error is None for o in outcomes.values())
    assert outcomes["cpu"].available
    has_gpu = torch.cuda.device_count() > 0
    assert outcomes["cuda"].available == (has_gpu and torch.version.hip is None)
    assert outcomes["rocm"].available == (has_gpu and torch.version.hip is not None)
    assert outcomes["mps"].available == torch.backends.mps.is_available()
    xpu = hasattr(torch, "xpu") and torch.xpu.is_available()
    assert outcomes["xpu"].available == xpu


def test_real_probing_initialises_no_cuda_context() -> None:
    result = run_python(
        """
        from sglang.runtime.builtin.families import FAMILIES, ProbeContext, probe_families
        probe_families(FAMILIES, ProbeContext.real(), stop_at_first=False)
        import torch
        print("INITIALIZED", torch.cuda.is_initialized())
        """
    ).check()
    assert "INITIALIZED False" in result.stdout


@pytest.mark.parametrize("cls", [sbuiltin.CpuSRTPlatform, dbuiltin.CpuPlatform])
def test_real_cpu_platform(cls: type[BuiltinDeviceOps]) -> None:
    platform = cls()
    total = platform.get_device_total_memory()
    free, total_again = platform.get_available_memory()
    assert total > 0
    assert total_again == total
    assert 0 < free <= total
    assert platform.get_available_gpu_memory() > 0
    assert platform.get_current_memory_usage() > 0
    assert platform.get_device(0) == torch.device("cpu")
    assert platform.get_device(3) == torch.device("cpu")
    assert platform.get_local_torch_device() == torch.device("cpu")
    assert platform.get_torch_distributed_backend_str() == "gloo"
    assert platform.get_device_capability() is None
    assert platform.is_pin_memory_available() is False
    assert platform.get_device_name()
    assert platform.get_device_uuid() == platform.get_device_uuid()
    assert not platform.supports_distributed_device_id()
    platform.set_device(torch.device("cpu"))
    platform.empty_cache()
    platform.synchronize()
    assert platform.is_cpu()  # type: ignore[attr-defined]
    tensor = torch.ones(4, device=platform.get_device(0))
    assert tensor.device.type == platform.device_type


def test_host_memory_helpers() -> None:
    assert host_total_memory() >= host_available_memory() > 0
    assert host_peak_rss() > 0


def test_base_srt_platform_is_the_last_fallback() -> None:
    name, report = selected(SRT, lambda: context(fake_torch()))
    assert name == "SRTPlatform"
    assert report.reason == "fallback: no plugin activated and none of CUDA, ROCm, XPU is available"


def test_importing_builtins_and_selection_does_not_import_torch() -> None:
    result = run_python(
        """
        import sys
        import sglang.srt.platforms, sglang.multimodal_gen.runtime.platforms
        import sglang.runtime.selection.current, sglang.runtime.selection.engine
        import sglang.runtime.builtin.srt, sglang.runtime.builtin.diffusion
        print("TORCH", "torch" in sys.modules)
        """
    ).check()
    assert "TORCH False" in result.stdout
