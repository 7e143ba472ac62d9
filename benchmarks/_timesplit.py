"""Where an engine step spends its time: wall-clock timers around each component.

:func:`time_split` runs a workload through a real
:class:`~sglang.srt.managers.scheduler.Scheduler` (its model worker,
prefix cache and KV pool) in this process, one step at a time, with forward
hooks that time each component of the model. On a CPU every op runs
synchronously, so a timer around a module is the time its ops take. Times
are exclusive: a module's own time leaves out the components inside it.

* ``embedding``: the token embedding;
* ``attention: qkv + o projections``: the fused q/k/v and the output projections;
* ``attention: rotary``: the rotary embedding (and q/k norms where the model has them);
* ``attention: KV write + SDPA``: the attention backend (storing the new keys and
  values in the paged cache, the decode copies, ``scaled_dot_product_attention``);
* ``MLP``: gate/up projection, SiLU-and-mul, down projection;
* ``norms``: the RMSNorms (the residual add is fused into them);
* ``logits``: the LM head over each sequence's last position;
* ``sampling``: choosing the tokens and their log-probabilities;
* ``step setup``: the batch's tensors and the attention backend's metadata;
* ``scheduler``: forming the batch, appending tokens, detokenizing, freeing pages;
* ``other``: the rest (residual glue, indexing, Python between modules, the hooks).
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import torch

__all__ = ["COMPONENTS", "StepSplit", "time_split"]

COMPONENTS = (
    "embedding",
    "attention: qkv + o projections",
    "attention: rotary",
    "attention: KV write + SDPA",
    "MLP",
    "norms",
    "logits",
    "sampling",
    "step setup",
    "scheduler",
    "other",
)
"""The rows of the table, in order."""


@dataclass
class StepSplit:
    """Seconds per component, summed over the steps of one kind.

    Attributes:
        steps: How many steps.
        tokens: How many new tokens they computed.
        sequences: How many sequences they ran, summed over the steps.
        seconds: Each component's time.
    """

    steps: int = 0
    tokens: int = 0
    sequences: int = 0
    seconds: dict[str, float] = field(default_factory=lambda: defaultdict(float))

    @property
    def total(self) -> float:
        """All components together."""
        return sum(self.seconds.values())


class _Timers:
    """A stack of running timers; each one's time excludes the timers started inside it."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self._stack: list[list[Any]] = []  # [component, start, time of inner timers]

    def start(self, component: str) -> None:
        self._stack.append([component, time.perf_counter(), 0.0])

    def stop(self) -> None:
        component, start, inner = self._stack.pop()
        elapsed = time.perf_counter() - start
        self.seconds[component] += elapsed - inner
        if self._stack:
            self._stack[-1][2] += elapsed

    @contextmanager
    def timing(self, component: str) -> Iterator[None]:
        self.start(component)
        try:
            yield
        finally:
            self.stop()

    def wrap(self, owner: object, name: str, component: str) -> None:
        """Replace method *name* of *owner* (an instance) by a timed call of it."""
        method: Callable[..., Any] = getattr(owner, name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            with self.timing(component):
                return method(*args, **kwargs)

        setattr(owner, name, timed)


def _component(module: torch.nn.Module, name: str) -> str | None:
    kind = type(module).__name__
    leaf = name.rsplit(".", 1)[-1]
    if kind == "VocabParallelEmbedding":
        return "embedding"
    if leaf in ("qkv_proj", "o_proj"):
        return "attention: qkv + o projections"
    if kind == "RotaryEmbedding" or leaf in ("q_norm", "k_norm"):
        return "attention: rotary"
    if kind == "RadixAttention":
        return "attention: KV write + SDPA"
    if leaf == "mlp":
        return "MLP"
    if kind == "RMSNorm":
        return "norms"
    return None


def _hook(timers: _Timers, model: torch.nn.Module) -> None:
    for name, module in model.named_modules():
        component = _component(module, name)
        if component is None:
            continue

        def pre(_module: torch.nn.Module, _args: object, component: str = component) -> None:
            timers.start(component)

        def post(_module: torch.nn.Module, _args: object, _out: object) -> None:
            timers.stop()

        module.register_forward_pre_hook(pre)
        module.register_forward_hook(post)


def time_split(
    model_path: str,
    prompts: Sequence[Sequence[int]],
    sampling: dict[str, object],
    **server_args: Any,
) -> dict[str, StepSplit]:
    """Run *prompts* through an in-process scheduler; return the split of prefill and decode steps.

    Select the CPU platform first (``SGLANG_USE_CPU_ENGINE=1``). The keys
    are ``"prefill"`` and ``"decode"``.
    """
    from sglang.srt.managers.io_struct import RequestOutput, TokenizedRequest
    from sglang.srt.managers.scheduler import Scheduler
    from sglang.srt.sampling.sampling_params import SamplingParams
    from sglang.srt.server_args import ServerArgs

    class Local(Scheduler):
        def _send(self, outputs: list[RequestOutput]) -> None:
            pass  # nobody listens: the outputs stay in the requests

    args = ServerArgs(model_path=model_path, **server_args)
    args.check_server_args()
    scheduler = Local(args, 0, None)
    timers = _Timers()
    runner = scheduler.tp_worker.model_runner
    _hook(timers, runner.model)
    timers.wrap(runner.model.lm_head, "compute_logits", "logits")
    timers.wrap(scheduler.tp_worker.sampler, "sample", "sampling")
    timers.wrap(runner, "prepare", "step setup")
    timers.wrap(runner.attn_backend, "init_forward_metadata", "step setup")
    params = SamplingParams.from_dict(sampling)
    for index, ids in enumerate(prompts):
        scheduler.process_input([TokenizedRequest(f"split-{index}", tuple(ids), params)])
    splits = {"prefill": StepSplit(), "decode": StepSplit()}
    while not scheduler.idle:
        before = dict(timers.seconds)
        with timers.timing("other"):
            with timers.timing("scheduler"):
                batch = scheduler.get_next_batch_to_run()
            assert batch is not None
            new_tokens = sum(r.seq.target_len - r.seq.cached_len for r in batch.reqs)
            result = scheduler.run_batch(batch)
            with timers.timing("scheduler"):
                scheduler.process_batch_result(batch, result)
        split = splits["prefill" if batch.is_prefill else "decode"]
        split.steps += 1
        split.tokens += new_tokens
        split.sequences += len(batch.reqs)
        for component, seconds in timers.seconds.items():
            split.seconds[component] += seconds - before.get(component, 0.0)
    return splits
