"""The error ``sglang serve`` reports in one line, without a traceback."""

from __future__ import annotations

__all__ = ["ServeError"]


class ServeError(Exception):
    """``sglang serve`` cannot go on; the message says what failed and how to fix it.

    Attributes:
        exit_code: The process exit code the command line returns (non-zero).
    """

    def __init__(self, message: str, *, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code
