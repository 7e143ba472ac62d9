"""The reference runtime reaches devices only through ``current_platform``."""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "sglang"

RUNTIME = [
    SRC / "srt",
    SRC / "multimodal_gen",
    SRC / "runtime" / "op_dispatch",
    SRC / "runtime" / "bootstrap",
]
"""The runtimes and the mechanisms they run on (the built-in platforms may use device modules)."""

DEVICE_MODULE = re.compile(
    r"\btorch\.(cuda|xpu|npu|mps|musa|hip|mtia)\b|\bimport torch_(npu|musa)\b"
)


def test_no_runtime_module_calls_a_device_module_directly() -> None:
    hits = [
        f"{path.relative_to(SRC)}:{number}: {line.strip()}"
        for root in RUNTIME
        for path in sorted(root.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if DEVICE_MODULE.search(line)
    ]
    assert hits == [], "device modules used outside the platform:\n" + "\n".join(hits)


def test_the_check_finds_a_direct_call() -> None:
    assert DEVICE_MODULE.search("x = torch.cuda.device_count()")
    assert DEVICE_MODULE.search("import torch_npu")
    assert not DEVICE_MODULE.search("current_platform.get_device(rank)")
