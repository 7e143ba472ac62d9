"""The spawn bootstrap both runtimes start their workers with.

A runtime describes each worker as a :class:`WorkerSpec` (standard-library
types only, its arguments as an opaque :class:`Payload`) and starts the
workers as a :class:`WorkerGroup`. In each child, :func:`worker_main` runs
the spec's start-up steps (platform initialisation, plugin registration,
hook application) before it materialises the arguments and calls the
possibly hooked target, so that backend initialisation precedes every
plugin import, hook resolution and runtime import.

Importing this package imports neither torch nor any runtime module.
"""

from sglang.runtime.bootstrap.child import FAILED, LOGGER_NAME, READY, Worker, worker_main
from sglang.runtime.bootstrap.launcher import (
    WorkerFailedError,
    WorkerGroup,
    local_rendezvous_address,
)
from sglang.runtime.bootstrap.spec import Payload, WorkerSpec

__all__ = [
    "FAILED",
    "LOGGER_NAME",
    "READY",
    "Payload",
    "Worker",
    "WorkerFailedError",
    "WorkerGroup",
    "WorkerSpec",
    "local_rendezvous_address",
    "worker_main",
]
