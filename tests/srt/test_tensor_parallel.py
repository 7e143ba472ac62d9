"""TP=2 over real gloo gives the tokens of TP=1: the sharding math holds end to end.

The checkpoint has a single key/value head (replicated on both ranks), tied
embeddings and a vocabulary that needs padding to split.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from sglang.testing.make_model import make_model
from tests.support.dists import REPO_ROOT, run_python


def test_two_ranks_match_one(tmp_path: Path) -> None:
    path = make_model(
        tmp_path / "m", arch="qwen3", num_kv_heads=1, tie_word_embeddings=True, vocab_size=449
    )
    code = f"from tests.srt.tp_worker import main; main({str(path)!r})"
    result = run_python(code, path=[REPO_ROOT], env={"SGLANG_USE_CPU_ENGINE": "1"}, timeout=300)
    line = next(x for x in result.check().stdout.splitlines() if x.startswith("RESULT "))
    out = json.loads(line.removeprefix("RESULT "))
    assert out["exitcodes"] == [0, 0]
    for rank in out["tp2"]:
        assert rank["ids"] == out["tp1_ids"]
        for ours, single in zip(rank["logprobs"], out["tp1_logprobs"], strict=True):
            assert all(math.isclose(a, b, abs_tol=1e-4) for a, b in zip(ours, single, strict=True))


TP_ENGINES = """
import json
from sglang.srt.entrypoints.engine import Engine
system = [(7 * i) % 150 + 3 for i in range(40)]
waves = [[system + [11, 12], system + [21]], [system + [31, 32, 33], system + [11, 12, 13]]]
params = [{{"temperature": 0, "max_new_tokens": 8, "ignore_eos": True}},
          {{"temperature": 0.9, "seed": 5, "max_new_tokens": 8, "ignore_eos": True}}]
def run(tp):
    with Engine(model_path={model!r}, tp_size=tp, max_total_tokens=512, page_size=4) as engine:
        outs = []
        for wave in waves:
            outs += [engine.generate(input_ids=ids, sampling_params=p)
                     for ids, p in zip(wave, params)]
        return [[o["output_ids"], o["meta_info"]["cached_tokens"]] for o in outs]
if __name__ == "__main__":
    print("RESULT " + json.dumps({{"tp2": run(2), "tp1": run(1)}}))
"""


def test_two_ranks_with_the_prefix_cache_match_one(tmp_path: Path) -> None:
    path = make_model(tmp_path / "m", arch="llama")
    result = run_python(
        TP_ENGINES.format(model=str(path)),
        path=[REPO_ROOT],
        env={"SGLANG_USE_CPU_ENGINE": "1"},
        timeout=300,
    )
    line = next(x for x in result.check().stdout.splitlines() if x.startswith("RESULT "))
    out = json.loads(line.removeprefix("RESULT "))
    assert out["tp2"] == out["tp1"]
    assert [cached for _, cached in out["tp1"]][2:] == [40, 40]  # the second wave hits
