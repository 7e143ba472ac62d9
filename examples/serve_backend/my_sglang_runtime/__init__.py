"""An example out-of-tree runtime, served by ``sglang serve --model-type my_runtime``.

:mod:`my_sglang_runtime.sglang_backend` holds the serve-backend factories
(cheap to import: no accelerator, no weights), :mod:`my_sglang_runtime.runtime`
the stand-in runtime and :mod:`my_sglang_runtime.cli` the ``my-runtime``
compatibility command.
"""

__all__ = ["CONFIG_FILE"]

CONFIG_FILE = "my_runtime.json"
"""The file that marks a model directory this runtime serves."""
