"""Sphinx configuration for the sglang plugin-system docs."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

from sglang_inventories import intersphinx_mapping as _inventories  # noqa: E402

from sglang import __version__  # noqa: E402

# Some documented runtime modules select a platform when imported (as upstream's
# do), and a theme dependency (accessible-pygments) configures the root logger at
# INFO: the build selects the CPU platform without probing for hardware, and keeps
# the runtime's records out of its output.
os.environ.setdefault("SGLANG_USE_CPU_ENGINE", "1")
logging.getLogger("sglang").setLevel(logging.WARNING)

project = "sglang plugin system"
author = "SGLang plugin-system maintainers"
release = __version__
version = __version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.intersphinx",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "sglang_docs",
    "sglang_reference_check",
]

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": True}
napoleon_google_docstring = True
napoleon_numpy_docstring = False
nitpicky = False
# Python and PyTorch names link to their upstream docs, from inventories
# written at build time (no network; see docs/_ext/sglang_inventories.py).
intersphinx_mapping = _inventories(ROOT / "docs" / "_build" / "inventories")
exclude_patterns = ["_build"]
html_theme = "furo"
html_title = f"sglang plugin system {__version__}"
html_static_path: list[str] = []
