"""Fail the docs build when a public name is missing from the API reference.

Every module under ``src/sglang`` whose dotted path has no component
starting with ``_`` is public; every name in its ``__all__`` must be
findable in the reference: documented under that path, or the same object
documented under another path (a documented import path re-exports the
sdk's objects, for example). A missing name is a Sphinx warning, which
``-W`` turns into a failed build.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

SRC = Path(__file__).resolve().parents[2] / "src"


def public_modules(src: Path = SRC) -> Iterator[str]:
    """The dotted names of the public modules under *src*/``sglang``."""
    for path in sorted((src / "sglang").rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if not any(part.startswith("_") for part in parts):
            yield ".".join(parts)


def _resolve(fullname: str) -> object | None:
    """The object a documented dotted name refers to, or ``None``."""
    parts = fullname.split(".")
    for split in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        try:
            for attr in parts[split:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return None
        return obj
    return None


def _is_value(obj: object) -> bool:
    """Constants (numbers, strings, frozensets, ...) match by name and value, not identity."""
    return not (callable(obj) or isinstance(obj, type) or hasattr(obj, "__module__"))


def _documented_as(
    name: str, obj: object, documented: dict[str, object], identities: set[int]
) -> bool:
    """Whether *obj*, public as *name*, is documented under any path."""
    if not _is_value(obj):
        return id(obj) in identities
    return any(
        full.rsplit(".", 1)[-1] == name and value == obj for full, value in documented.items()
    )


def check_reference(app: Sphinx, exception: BaseException | None) -> None:
    """Warn about each public name that the reference does not document."""
    if exception is not None or app.builder.format != "html":
        return
    names = app.env.get_domain("py").objects  # type: ignore[attr-defined]
    documented = {name: _resolve(name) for name in names}
    identities = {id(obj) for obj in documented.values() if obj is not None}
    for module_name in public_modules():
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", ()):
            fullname = f"{module_name}.{name}"
            if name.startswith("_") or fullname in documented:
                continue
            if _documented_as(name, getattr(module, name, None), documented, identities):
                continue
            logger.warning(
                "%s is public (in %s.__all__) but not in the API reference; "
                "document it in docs/reference/ (automodule, autoclass, ...)",
                fullname,
                module_name,
            )


def setup(app: Sphinx) -> dict[str, object]:
    """Run the check after every HTML build, incremental ones included."""
    app.connect("build-finished", check_reference)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
