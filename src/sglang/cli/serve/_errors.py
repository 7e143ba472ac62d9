"""The error ``sglang serve`` reports in one line, without a traceback."""

from __future__ import annotations

__all__ = ["LOGGER", "ServeError", "configure_logging", "warn"]


class ServeError(Exception):
    """``sglang serve`` cannot go on; the message says what failed and how to fix it.

    Attributes:
        exit_code: The process exit code the command line returns (non-zero).
    """

    def __init__(self, message: str, *, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code


LOGGER = "sglang.cli.serve"
"""The logger that carries ``sglang serve``'s warnings."""


def configure_logging() -> None:
    """Show records as ``WARNING logger: message`` unless the program set up logging."""
    import logging

    if not logging.getLogger().handlers:
        logging.basicConfig(format="%(levelname)s %(name)s: %(message)s")


def warn(message: str) -> None:
    """Log *message* as one WARNING of :data:`LOGGER`.

    :mod:`logging` is imported here, not at module level: the serve help and
    a clean explicit selection never warn and need not pay for it.
    """
    import logging

    configure_logging()
    logging.getLogger(LOGGER).warning("%s", message)
