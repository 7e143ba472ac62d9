"""One ``--log-level`` for every ``sglang`` logger: :func:`configure_logging`.

The servers call it with their ``--log-level``, and spawned workers call it
before anything else when their :class:`~sglang.runtime.bootstrap.WorkerSpec`
carries a level, so the records of a scheduler process (its batch lines,
its warnings) reach stderr at the same level as the server's own.
"""

from __future__ import annotations

__all__ = ["LOG_FORMAT", "configure_logging"]

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
"""The format of the records when nothing else configured logging."""


def configure_logging(level: str) -> None:
    """Show the ``sglang`` loggers' records at *level* (``"info"``, ``"debug"``, ...) and above.

    A stderr handler in :data:`LOG_FORMAT` is installed on the root logger
    only when the program has none (``sglang serve`` installs its own
    first); the root logger's level is left alone, so other libraries keep
    their defaults.
    """
    import logging

    if not logging.getLogger().handlers:
        logging.basicConfig(format=LOG_FORMAT)
    logging.getLogger("sglang").setLevel(level.upper())
