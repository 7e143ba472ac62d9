"""The registries and protocols of the model stack import without torch.

A platform or plugin module registers op implementations and attention
backends at import time, and a vendor type-checks against the sdk
protocols, so these modules must stay cheap.
"""

from __future__ import annotations

import json

from tests.support.dists import run_python

CHEAP = [
    "sglang.sdk.srt_runtime",
    "sglang.runtime.op_dispatch",
    "sglang.srt.layers.attention",
    "sglang.srt.mem_cache.allocator",
    "sglang.srt.configs",
    "sglang.srt.distributed",
    "sglang.testing",
    "sglang.testing.make_model",
]


def test_model_stack_registries_do_not_import_torch() -> None:
    code = (
        "import importlib, json, sys\n"
        f"heavy = {{}}\nfor name in {CHEAP!r}:\n"
        "    importlib.import_module(name)\n"
        "    heavy[name] = 'torch' in sys.modules\n"
        "print(json.dumps(heavy))\n"
    )
    heavy = json.loads(run_python(code).check().stdout)
    assert heavy == dict.fromkeys(CHEAP, False)
