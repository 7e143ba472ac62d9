"""The offline Engine end to end: spawned scheduler, continuous batching, transformers agreement.

One engine (one spawned scheduler process on the CPU platform) serves the
module's tests; the cases that need their own process environment (plugins,
a failing platform) run in a fresh interpreter.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import torch

from sglang.sdk.constants import SRT_PLATFORMS_GROUP, SRT_PLUGINS_GROUP
from sglang.srt.entrypoints.engine import Engine
from sglang.testing.make_model import make_model
from tests.srt.reference import hf_greedy
from tests.srt.scheduler_harness import cpu_platform
from tests.support.dists import Dist, Site, run_python
from tests.support.processes import HAS_PROC, wait_gone

GREEDY = {"temperature": 0, "max_new_tokens": 12, "ignore_eos": True}
LOGPROB_TOLERANCE = 1e-3
"""How far the runtime's fp32 logprobs may be from transformers'.

The tokens must be equal; the logprobs come from different kernels (fused
QKV and gate/up projections, paged attention) whose rounding depends on the
CPU: 3e-6 on the development machine, up to 7e-4 seen on one CI run.
Repeating a request in one engine must give the same logprobs bit for
bit, whatever the machine.
"""
PROMPTS = [
    "Hello world",
    "the quick brown fox jumps over the lazy dog",
    "a",
    "Hello Hello Hello",
    "fox fox",
    "over the lazy dog and over the lazy cat, again",
    "dog",
    "world Hello",
]


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_model(tmp_path_factory.mktemp("engine") / "llama", arch="llama")


@pytest.fixture(scope="module")
def engine(model: Path) -> Iterator[Engine]:
    with (
        cpu_platform(),
        Engine(model_path=str(model), max_total_tokens=1024, page_size=4) as running,
    ):
        yield running


def no_request_holds_pages(engine: Engine) -> bool:
    """Whether every KV page is free or only the prefix cache's (evicted on demand)."""
    info = engine.get_server_info()
    free, cached, total = (info[k] for k in ("free_pages", "evictable_pages", "total_pages"))
    assert isinstance(free, int)
    assert isinstance(cached, int)
    return free + cached == total


def test_greedy_tokens_and_logprobs_equal_transformers(engine: Engine, model: Path) -> None:
    from transformers import AutoModelForCausalLM

    hf = AutoModelForCausalLM.from_pretrained(str(model), dtype=torch.float32)
    hf.eval()  # type: ignore[no-untyped-call]
    for prompt in PROMPTS[:3]:
        out = engine.generate(prompt, GREEDY, return_logprob=True)
        ids = engine.tokenizer.encode(prompt)
        expected_ids, expected_logprobs = hf_greedy(hf, ids, GREEDY["max_new_tokens"])
        assert out["output_ids"] == expected_ids
        got = [lp for lp, _, _ in out["meta_info"]["output_token_logprobs"]]
        assert got == pytest.approx(expected_logprobs, abs=LOGPROB_TOLERANCE)
        # The second run reads the prompt's KV from the prefix cache: same tokens, and
        # logprobs equal up to float rounding (a shorter prefill sums in another order).
        again = engine.generate(prompt, GREEDY, return_logprob=True)
        assert again["output_ids"] == out["output_ids"]
        assert again["meta_info"]["cached_tokens"] == (len(ids) - 1) // 4 * 4  # whole pages
        again_lps = [lp for lp, _, _ in again["meta_info"]["output_token_logprobs"]]
        assert again_lps == pytest.approx(got, abs=1e-5)
        assert [t for _, t, _ in out["meta_info"]["output_token_logprobs"]] == expected_ids
        assert out["meta_info"]["prompt_tokens"] == len(ids)
        assert out["meta_info"]["completion_tokens"] == GREEDY["max_new_tokens"]
        assert out["meta_info"]["finish_reason"] == {"type": "length"}


def test_a_batch_of_eight_equals_each_request_alone(engine: Engine) -> None:
    batch = engine.generate(PROMPTS, GREEDY)
    alone = [engine.generate(p, GREEDY) for p in PROMPTS]
    assert [o["output_ids"] for o in batch] == [o["output_ids"] for o in alone]
    assert no_request_holds_pages(engine)


def test_token_ids_in_and_streaming_out(engine: Engine) -> None:
    ids = engine.tokenizer.encode("the quick brown fox")
    whole = engine.generate(input_ids=ids, sampling_params=GREEDY)
    chunks = list(engine.generate(input_ids=ids, sampling_params=GREEDY, stream=True))
    assert [t for c in chunks for t in c["output_ids"]] == whole["output_ids"]
    assert "".join(c["text"] for c in chunks) == whole["text"]
    assert all(c["meta_info"]["finish_reason"] is None for c in chunks[:-1])
    assert chunks[-1]["meta_info"]["finish_reason"] == {"type": "length"}


def test_stop_tokens_and_stop_strings(engine: Engine) -> None:
    free = engine.generate("Hello world", GREEDY)
    token = free["output_ids"][3]
    out = engine.generate("Hello world", {**GREEDY, "stop_token_ids": [token]})
    assert out["output_ids"][-1] == token
    assert out["meta_info"]["finish_reason"] == {"type": "stop", "matched": token}
    text = free["text"]
    if len(text) > 4:
        stop = text[2:4]
        cut = engine.generate("Hello world", {**GREEDY, "stop": [stop]})
        assert cut["meta_info"]["finish_reason"] == {"type": "stop", "matched": stop}
        assert cut["text"] == text[: text.index(stop)]


def test_seeded_sampling_is_reproducible(engine: Engine) -> None:
    params = {"temperature": 1.0, "top_p": 0.9, "max_new_tokens": 8, "seed": 11, "ignore_eos": True}
    first = engine.generate("Hello", params)
    assert engine.generate(["fox", "Hello"], params)[1]["output_ids"] == first["output_ids"]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"sampling_params": {"max_new_tokens": -1}}, "max_new_tokens"),
        ({"sampling_params": {"top_p": 2}}, "top_p"),
        ({"sampling_params": {"bogus": 1}}, "bogus"),
        ({"input_ids": [1] * 5000}, "context length"),
        ({"input_ids": [10**9]}, "input_ids"),
    ],
)
def test_bad_requests_raise_and_disturb_nothing(
    engine: Engine, kwargs: dict[str, Any], field: str
) -> None:
    if "input_ids" not in kwargs:
        kwargs = {"prompt": "Hello", **kwargs}
    with pytest.raises(ValueError, match=field):
        engine.generate(**kwargs)
    assert engine.generate("Hello", {**GREEDY, "max_new_tokens": 2})["output_ids"]


def test_more_requests_than_the_cache_holds_are_queued_not_dropped(model: Path) -> None:
    result = run_python(
        f"""
        from sglang.srt.entrypoints.engine import Engine
        if __name__ == "__main__":
            with Engine(model_path={str(model)!r}, max_total_tokens=48, page_size=4,
                        max_running_requests=3) as engine:
                params = {{"temperature": 0, "max_new_tokens": 10, "ignore_eos": True}}
                prompts = ["Hello world " * 2] * 6
                outs = engine.generate(prompts, params)
                alone = engine.generate(prompts[0], params)
                print("SAME", all(o["output_ids"] == alone["output_ids"] for o in outs))
                info = engine.get_server_info()
                print("FREE", info["free_pages"] + info["evictable_pages"] == info["total_pages"])
        """,
        env={"SGLANG_USE_CPU_ENGINE": "1"},
    ).check()
    assert "SAME True" in result.stdout
    assert "FREE True" in result.stdout


def test_plugin_hooks_run_inside_the_scheduler_process(model: Path, tmp_path: Path) -> None:
    marks = tmp_path / "marks.txt"
    site = Site(tmp_path / "site")
    site.install(
        Dist(
            "engine-hooks",
            entry_points={SRT_PLUGINS_GROUP: {"engine_hooks": "engine_hooks:register"}},
            modules={
                "engine_hooks/__init__.py": f"""
                    import os
                    from sglang.srt.plugins.hook_registry import HookRegistry, HookType

                    def _mark(what):
                        with open({str(marks)!r}, "a") as f:
                            f.write(f"{{what}} {{os.getpid()}}\\n")

                    def _init(original, self, *args, **kwargs):
                        _mark("Scheduler.__init__")
                        return original(self, *args, **kwargs)

                    def _forward(original, self, batch):
                        _mark("forward_batch_generation")
                        return original(self, batch)

                    def register():
                        HookRegistry.register(
                            "sglang.srt.managers.scheduler.Scheduler.__init__", _init,
                            HookType.AROUND)
                        HookRegistry.register(
                            "sglang.srt.managers.tp_worker.TpModelWorker.forward_batch_generation",
                            _forward, HookType.AROUND)
                """
            },
        )
    )
    result = run_python(
        f"""
        import os
        from sglang.srt.entrypoints.engine import Engine
        if __name__ == "__main__":
            with Engine(model_path={str(model)!r}, max_total_tokens=256) as engine:
                engine.generate("Hello", {{"temperature": 0, "max_new_tokens": 3}})
            print("PARENT", os.getpid())
        """,
        path=[site.root],
        env={"SGLANG_USE_CPU_ENGINE": "1", "SGLANG_PLUGINS": "engine_hooks"},
    ).check()
    parent = int(result.stdout.split("PARENT ")[1])
    lines = [line.split() for line in marks.read_text().splitlines()]
    assert {what for what, _ in lines} == {"Scheduler.__init__", "forward_batch_generation"}
    assert {int(pid) for _, pid in lines} != {parent}
    assert parent not in {int(pid) for _, pid in lines}


def test_a_platform_whose_init_backend_fails_fails_the_engine(model: Path, tmp_path: Path) -> None:
    site = Site(tmp_path / "site")
    site.install(
        Dist(
            "broken-backend",
            entry_points={SRT_PLATFORMS_GROUP: {"broken": "broken_backend:activate"}},
            modules={
                "broken_backend/__init__.py": """
                    from sglang.runtime.builtin.srt import CpuSRTPlatform
                    from sglang.srt.platforms.interface import PlatformEnum

                    class Broken(CpuSRTPlatform):
                        _enum = PlatformEnum.OOT
                        device_name = "broken"

                        def init_backend(self):
                            raise RuntimeError("broken firmware on this board")

                    def activate():
                        return "broken_backend:Broken"
                """
            },
        )
    )
    result = run_python(
        f"""
        from sglang.srt.entrypoints.engine import Engine
        if __name__ == "__main__":
            try:
                Engine(model_path={str(model)!r}, max_total_tokens=256)
            except Exception as exc:
                print("ERROR", type(exc).__name__, str(exc).splitlines()[0])
        """,
        path=[site.root],
        env={"SGLANG_PLATFORM": "broken"},
    ).check()
    assert "ERROR WorkerFailedError" in result.stdout
    assert "broken firmware on this board" in result.stdout


@pytest.mark.skipif(torch.cuda.is_available(), reason="a CUDA machine selects the CUDA platform")
def test_the_base_platform_fallback_fails_at_once_with_the_fix(model: Path) -> None:
    result = run_python(
        f"""
        from sglang.srt.entrypoints.engine import Engine
        if __name__ == "__main__":
            try:
                Engine(model_path={str(model)!r})
            except RuntimeError as exc:
                print("ERROR", exc)
        """,
        env={"SGLANG_USE_CPU_ENGINE": "0"},
    ).check()
    assert "does not implement get_mha_kv_pool_cls()" in result.stdout
    assert "SGLANG_USE_CPU_ENGINE=1" in result.stdout


def test_two_tensor_parallel_ranks_give_the_same_tokens(model: Path) -> None:
    result = run_python(
        f"""
        from sglang.srt.entrypoints.engine import Engine
        if __name__ == "__main__":
            params = {{"temperature": 0, "max_new_tokens": 10, "ignore_eos": True}}
            prompts = ["Hello world", "the quick brown fox", "a"]
            outs = {{}}
            for tp in (1, 2):
                with Engine(model_path={str(model)!r}, max_total_tokens=512, tp_size=tp) as e:
                    outs[tp] = [o["output_ids"] for o in e.generate(prompts, params)]
            print("SAME", outs[1] == outs[2])
        """,
        env={"SGLANG_USE_CPU_ENGINE": "1"},
    ).check()
    assert "SAME True" in result.stdout


def test_shutdown_ends_the_output_reader_before_closing_its_connection(
    engine: Engine, model: Path
) -> None:
    # A reader still waiting on a closed connection would read from whatever pipe reuses
    # its file descriptor: the next engine's (its first message, then a garbled one).
    with Engine(model_path=str(model), max_total_tokens=256, page_size=4) as second:
        second.generate("Hello", {"max_new_tokens": 2})
        reader = second._receiver
    assert not reader.is_alive()
    assert all(conn.closed for conn in second._group.connections.values())


def test_importing_the_engine_imports_no_torch() -> None:
    result = run_python(
        """
        import sys
        import sglang
        engine_cls = sglang.Engine
        from sglang.srt.entrypoints.engine import Engine
        assert engine_cls is Engine
        print("TORCH", "torch" in sys.modules)
        """
    ).check()
    assert "TORCH False" in result.stdout


def test_an_abort_ends_the_request_and_frees_its_pages(engine: Engine) -> None:
    params = {"temperature": 0, "max_new_tokens": 200, "ignore_eos": True}
    chunks = []
    for chunk in engine.generate("Hello world", params, stream=True):
        chunks.append(chunk)
        if len(chunks) == 2:
            engine.abort(chunk["meta_info"]["id"])
    assert chunks[-1]["meta_info"]["finish_reason"] == {
        "type": "abort",
        "message": "aborted by the client",
    }
    assert len(chunks) < 200
    assert no_request_holds_pages(engine)
    info = engine.get_server_info()
    assert info["running"] == info["waiting"] == 0


@pytest.mark.skipif(not HAS_PROC, reason="reads process states from /proc")
def test_killing_the_parent_leaves_no_scheduler_behind(model: Path) -> None:
    result = run_python(
        f"""
        import os
        from sglang.srt.entrypoints.engine import Engine
        if __name__ == "__main__":
            engine = Engine(model_path={str(model)!r}, max_total_tokens=256)
            print("CHILDREN", *[p.pid for p in engine._group.processes.values()], flush=True)
            os._exit(0)  # the parent dies without shutting anything down
        """,
        env={"SGLANG_USE_CPU_ENGINE": "1"},
    ).check()
    pids = [int(p) for p in result.stdout.split("CHILDREN")[1].split()]

    assert wait_gone(pids, timeout=10), f"schedulers {pids} outlived their parent"


def test_aborting_a_request_whose_pages_are_shared_leaves_the_others_unchanged(
    engine: Engine,
) -> None:
    system = [(11 * i) % 150 + 3 for i in range(48)]
    prompts = [[*system, 5 + n] for n in range(3)]
    params = {"temperature": 0, "max_new_tokens": 30, "ignore_eos": True}
    engine.flush_cache()
    alone = [engine.generate(input_ids=p, sampling_params=params)["output_ids"] for p in prompts]
    engine.generate(input_ids=[*system, 99], sampling_params={"max_new_tokens": 1})
    streams = [engine.generate(input_ids=p, sampling_params=params, stream=True) for p in prompts]
    got: list[list[int]] = [[], [], []]
    for step in range(30):
        for n, stream in enumerate(streams):
            if n == 1 and step == 3:
                victim = next(stream)
                engine.abort(victim["meta_info"]["id"])
                got[1] += victim["output_ids"]
                continue
            chunk = next(stream, None)
            if chunk is not None:
                got[n] += chunk["output_ids"]
                assert chunk["meta_info"]["cached_tokens"] == 48  # the shared system prompt
    assert got[0] == alone[0]
    assert got[2] == alone[2]
    assert len(got[1]) < 30
    assert no_request_holds_pages(engine)
