"""Offline intersphinx inventories for the Python and PyTorch names these docs link to.

The docs build has no network (CI reaches only the package registries), so
``intersphinx`` cannot download ``objects.inv`` from docs.python.org or
docs.pytorch.org. ``conf.py`` calls :func:`intersphinx_mapping`, which writes,
small inventories holding exactly the names the API reference and guides
refer to, each with its page on the upstream site; the links in the built
docs are the upstream ones. :data:`TARGETS` is the list: when a docstring
starts to mention another standard-library or torch name, add it there
(``python -m sphinx -n`` lists what does not resolve).

With network access, the real inventories are a drop-in replacement: set
``SGLANG_DOCS_ONLINE_INVENTORIES=1`` and intersphinx fetches them.
"""

from __future__ import annotations

import os
import zlib
from pathlib import Path

__all__ = ["INVENTORIES", "TARGETS", "intersphinx_mapping", "inventory_text", "write"]

INVENTORIES = {
    "python": ("Python", "3", "https://docs.python.org/3"),
    "torch": ("PyTorch", "stable", "https://docs.pytorch.org/docs/stable"),
}
"""Inventory name -> (project, version, base URL)."""

_STDLIB_MODULES = [
    "_thread",
    "argparse",
    "ast",
    "contextlib",
    "dataclasses",
    "dis",
    "enum",
    "importlib",
    "inspect",
    "logging",
    "random",
    "re",
    "shutil",
    "threading",
    "tokenize",
    "tomllib",
    "traceback",
    "typing",
]

TARGETS: dict[str, list[tuple[str, str, str]]] = {
    "python": [
        *(
            (f"{name}", "py:module", f"library/{name}.html#module-{name}")
            for name in _STDLIB_MODULES
        ),
        ("importlib.metadata", "py:module", "library/importlib.metadata.html#module-$"),
        ("argparse.ArgumentParser", "py:class", "library/argparse.html#$"),
        ("argparse.Namespace", "py:class", "library/argparse.html#$"),
        ("asyncio.AbstractEventLoop", "py:class", "library/asyncio-eventloop.html#$"),
        ("asyncio.Queue", "py:class", "library/asyncio-queue.html#$"),
        *(
            (f"collections.abc.{name}", "py:class", "library/collections.abc.html#$")
            for name in [
                "AsyncIterator",
                "Callable",
                "Collection",
                "Iterable",
                "Iterator",
                "Mapping",
                "Sequence",
            ]
        ),
        ("contextlib.contextmanager", "py:function", "library/contextlib.html#$"),
        ("contextvars.ContextVar", "py:class", "library/contextvars.html#$"),
        ("enum.Enum", "py:class", "library/enum.html#$"),
        ("functools.partial", "py:function", "library/functools.html#$"),
        ("importlib.import_module", "py:function", "library/importlib.html#$"),
        ("importlib.util.find_spec", "py:function", "library/importlib.html#$"),
        ("itertools.count", "py:function", "library/itertools.html#$"),
        ("logging.Logger", "py:class", "library/logging.html#$"),
        ("multiprocessing.connection.Connection", "py:class", "library/multiprocessing.html#$"),
        ("pathlib.Path", "py:class", "library/pathlib.html#$"),
        ("types.ModuleType", "py:class", "library/types.html#$"),
        ("typing.Annotated", "py:data", "library/typing.html#$"),
        ("typing.Protocol", "py:class", "library/typing.html#$"),
    ],
    "torch": [
        ("torch.Tensor", "py:class", "tensors.html#$"),
        ("torch.device", "py:class", "tensor_attributes.html#$"),
        ("torch.dtype", "py:class", "tensor_attributes.html#$"),
        ("torch.Generator", "py:class", "generated/torch.Generator.html#$"),
        ("torch.nn.Module", "py:class", "generated/torch.nn.Module.html#$"),
        # autodoc names classes by their defining module
        (
            "torch.nn.modules.module.Module",
            "py:class",
            "generated/torch.nn.Module.html#torch.nn.Module",
        ),
        (
            "torch.nn.parameter.Parameter",
            "py:class",
            "generated/torch.nn.parameter.Parameter.html#$",
        ),
        ("torch.library", "py:module", "library.html#module-$"),
        ("torch.distributed", "py:module", "distributed.html#module-$"),
    ],
}
"""Inventory name -> ``(name, domain:role, page#anchor)``; ``$`` in an anchor is the name."""


def inventory_text(inventory: str) -> str:
    """The uncompressed body of *inventory*'s ``objects.inv`` (one line per name)."""
    return "".join(f"{name} {role} 1 {uri} -\n" for name, role, uri in sorted(TARGETS[inventory]))


def write(folder: Path) -> dict[str, Path]:
    """Write every inventory into *folder*; return their paths by inventory name."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for inventory, (project, version, _url) in INVENTORIES.items():
        header = (
            "# Sphinx inventory version 2\n"
            f"# Project: {project}\n# Version: {version}\n"
            "# The remainder of this file is compressed using zlib.\n"
        )
        body = zlib.compress(inventory_text(inventory).encode("utf-8"))
        path = folder / f"{inventory}.inv"
        path.write_bytes(header.encode("utf-8") + body)
        paths[inventory] = path
    return paths


def intersphinx_mapping(folder: Path) -> dict[str, tuple[str, str | None]]:
    """The ``intersphinx_mapping`` of ``conf.py``: the written files, or the real ones online."""
    online = os.environ.get("SGLANG_DOCS_ONLINE_INVENTORIES", "") == "1"
    written = {} if online else write(folder)
    return {
        name: (url, None if online else str(written[name]))
        for name, (_project, _version, url) in INVENTORIES.items()
    }
