"""A real :class:`Scheduler` driven in the test process, one step at a time.

The scheduler, its model worker, prefix cache and KV pool are the real ones
(CPU platform); only the connection to the engine is replaced: requests go
in through :meth:`Scheduler.process_input` and the outputs it would send
are recorded. So a test can bound the number of steps, look at the queues
between steps, and count what happened.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from sglang.runtime.plugins import reset_all_for_tests
from sglang.runtime.selection import reset_selection
from sglang.runtime.spec import SRT
from sglang.srt.managers.io_struct import RequestOutput, TokenizedRequest
from sglang.srt.managers.scheduler import Scheduler
from sglang.srt.sampling.sampling_params import SamplingParams
from sglang.srt.server_args import ServerArgs


@dataclass
class Result:
    """What the scheduler sent for one request."""

    ids: list[int] = field(default_factory=list)
    finish: dict[str, object] | None = None
    cached_tokens: int = 0
    first_step: int | None = None


class RecordingScheduler(Scheduler):
    """A scheduler whose outputs are kept in :attr:`results` instead of being sent."""

    def __init__(self, server_args: ServerArgs) -> None:
        super().__init__(server_args, 0, None)
        self.results: dict[str, Result] = {}
        self.steps = 0
        self._rids = 0

    def _send(self, outputs: list[RequestOutput]) -> None:
        for output in outputs:
            result = self.results.setdefault(output.rid, Result())
            if result.first_step is None and output.output_ids:
                result.first_step = self.steps
            result.ids.extend(output.output_ids)
            result.finish = output.finish_reason
            result.cached_tokens = output.cached_tokens

    def submit(self, input_ids: Sequence[int], **params: object) -> str:
        """Queue one request (greedy unless *params* say otherwise); return its id."""
        self._rids += 1
        rid = f"r{self._rids}"
        values: Mapping[str, object] = {"temperature": 0, "ignore_eos": True, **params}
        request = TokenizedRequest(rid, tuple(input_ids), SamplingParams.from_dict(values))
        self.process_input([request])
        return rid

    def step(self) -> bool:
        """Run one scheduling step; return whether there was work."""
        batch = self.get_next_batch_to_run()
        if batch is None:
            return False
        self.process_batch_result(batch, self.run_batch(batch))
        self.steps += 1
        return True

    def run(self, max_steps: int) -> int:
        """Step until idle; fail if that takes more than *max_steps*. Return the steps taken."""
        start = self.steps
        while not self.idle:
            assert self.steps - start < max_steps, f"not idle after {max_steps} steps"
            assert self.step() or self.idle, "work is queued but no batch was formed"
        self.room.check(self.running, self.chunked_req, self.waiting)
        return self.steps - start


@contextmanager
def cpu_platform() -> Iterator[None]:
    """Select the built-in CPU platform for this process, and forget it afterwards."""
    saved = os.environ.get("SGLANG_USE_CPU_ENGINE")
    os.environ["SGLANG_USE_CPU_ENGINE"] = "1"
    reset_selection(SRT)
    reset_all_for_tests()
    try:
        yield
    finally:
        reset_all_for_tests()
        reset_selection(SRT)
        if saved is None:
            os.environ.pop("SGLANG_USE_CPU_ENGINE", None)
        else:
            os.environ["SGLANG_USE_CPU_ENGINE"] = saved


def scheduler(model: Path, **args: object) -> RecordingScheduler:
    """A recording scheduler for *model* (``page_size`` 4 unless given)."""
    server_args = ServerArgs(model_path=str(model), **{"page_size": 4, **args})  # type: ignore[arg-type]
    server_args.check_server_args()
    return RecordingScheduler(server_args)
