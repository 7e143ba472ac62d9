"""The reference SRT runtime's processes: requests, batches, the scheduler, the TP worker.

* :mod:`~sglang.srt.managers.io_struct`: the messages between the engine and
  its scheduler processes;
* :mod:`~sglang.srt.managers.schedule_batch`: one request's state and a batch;
* :mod:`~sglang.srt.managers.tp_worker`: :class:`TpModelWorker`, the model on
  one tensor-parallel rank (a documented hook target);
* :mod:`~sglang.srt.managers.scheduler`: :class:`Scheduler` and
  :func:`run_scheduler_process` (documented hook targets).
"""
