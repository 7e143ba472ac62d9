"""The serve-backend plugin API (documented path).

Out-of-tree runtimes import :class:`ServeBackend`,
:class:`ServeBackendDetection` and :class:`ServeRequest` from here; they are
the objects of :mod:`sglang.sdk.serve`.
"""

from sglang.sdk.serve import ServeBackend, ServeBackendDetection, ServeRequest

__all__ = ["ServeBackend", "ServeBackendDetection", "ServeRequest"]
