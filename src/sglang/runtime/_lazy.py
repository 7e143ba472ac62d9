"""Package faces whose public names load on first access (PEP 562).

A face lists its names once per defining module; importing the face, or
one of its submodules, then costs nothing more, and the first access to a
name imports only the module that defines it.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

__all__ = ["lazy_exports"]


def lazy_exports(
    namespace: dict[str, object], exports: Mapping[str, tuple[str, ...]]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """Return a face's ``__getattr__`` and ``__dir__``.

    Args:
        namespace: The face's ``globals()``; a loaded name is cached there.
        exports: Defining module -> the names the face takes from it.
    """
    where = {name: module for module, names in exports.items() for name in names}
    package = str(namespace["__name__"])

    def __getattr__(name: str) -> object:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        __import__(module)
        value = getattr(sys.modules[module], name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(where))

    return __getattr__, __dir__
