"""What crosses the spawn boundary: :class:`Payload` and :class:`WorkerSpec`.

A spawned child unpickles its :class:`multiprocessing.Process` arguments
before any of our code runs in it. Everything in a :class:`WorkerSpec` is
therefore a standard-library type, and the runtime's own argument object
(the server arguments) travels as opaque pickled bytes in a
:class:`Payload`, materialised only after the child has initialised its
platform and applied its plugins' hooks. Unpickling the spec imports
nothing of the runtime.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field

__all__ = ["Payload", "WorkerSpec"]


def _resolve(reference: str) -> object:
    """Import the object *reference* (``"pkg.mod:attr"`` or ``"pkg.mod.attr"``) names."""
    from sglang.runtime.resolver import resolve

    return resolve(reference)


@dataclass(frozen=True)
class Payload:
    """An object pickled in the parent and unpickled in the child on request.

    Attributes:
        type_path: ``"pkg.mod:Class"`` of the pickled object. Its module is
            imported first when materialising, and the result must be an
            instance of that class.
        data: The pickled bytes.
    """

    type_path: str
    data: bytes = field(repr=False)

    @classmethod
    def pack(cls, obj: object) -> Payload:
        """Pickle *obj* (whose class must be importable by its module and qualname)."""
        kind = type(obj)
        return cls(f"{kind.__module__}:{kind.__qualname__}", pickle.dumps(obj))

    def materialise(self) -> object:
        """Import :attr:`type_path`, unpickle :attr:`data` and check its type.

        Raises:
            TypeError: The bytes hold something that is not an instance of
                :attr:`type_path`.
        """
        expected = _resolve(self.type_path)
        obj: object = pickle.loads(self.data)
        if not isinstance(expected, type) or not isinstance(obj, expected):
            raise TypeError(
                f"worker payload holds a {type(obj).__module__}.{type(obj).__qualname__}, "
                f"not the {self.type_path} it was declared as"
            )
        return obj


@dataclass(frozen=True)
class WorkerSpec:
    """Everything a spawned worker needs, in standard-library types.

    Attributes:
        name: What the worker is, for messages (``"SRT scheduler rank 0"``).
        target: ``"pkg.mod:function"`` called last as ``target(args, worker)``,
            resolved only after the hooks are applied, so a patched target is
            the one that runs.
        payload: The target's first argument, as opaque bytes.
        steps: ``"pkg.mod:function"`` references called in order, without
            arguments, before the payload is materialised (platform
            initialisation, plugin registration, hook application).
        rank: The worker's rank within its group.
        watched_modules: Module-name prefixes that should not be imported yet
            when the worker starts (runtime modules); the child names every
            one it finds in a WARNING, because classes and registrations made
            while they were imported are beyond what the hooks can reach.
        log_level: The level the worker's ``sglang`` loggers log at, set
            first thing (:func:`sglang.runtime.logs.configure_logging`), as
            the parent's ``--log-level``; ``None`` leaves logging alone.
    """

    name: str
    target: str
    payload: Payload
    steps: tuple[str, ...] = ()
    rank: int = 0
    watched_modules: tuple[str, ...] = ()
    log_level: str | None = None
