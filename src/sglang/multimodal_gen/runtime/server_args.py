"""SGLang Diffusion's server arguments: :class:`ServerArgs` and :func:`prepare_server_args`.

Each field's metadata carries its help text, so the command-line flags are
generated from the fields (``--model-path``, ``--sp-degree``, ...).
Constructing a :class:`ServerArgs` does not touch the platform: the
launcher applies the platform's defaults (:meth:`ServerArgs.apply_platform_defaults`)
once, in its own process; workers receive the finished arguments.

Importing this module imports neither torch nor the runtime, so
``sglang serve --model-type diffusion --help`` stays cheap.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sglang.multimodal_gen.configs.pipeline_config import PipelineConfig

__all__ = ["ServerArgs", "prepare_server_args"]


def _flag(default: object, help: str, **extra: Any) -> Any:
    return field(default=default, metadata={"help": help, **extra})


_PARSERS: dict[str, Any] = {"int": int, "float": float, "str": str}


@dataclass
class ServerArgs:
    """Every option of the SGLang Diffusion runtime (one command-line flag each)."""

    model_path: str = _flag("", "Directory of a diffusers-layout model (model_index.json).")
    sp_degree: int = _flag(1, "Sequence-parallel degree: one worker process per rank.")
    attention_backend: str | None = _flag(
        None, "Attention backend, an AttentionBackendEnum name (default: the platform's)."
    )
    enable_torch_compile: bool = _flag(False, "Compile the transformer with torch.compile.")
    dit_layerwise_offload: bool | None = _flag(
        None, "Keep transformer blocks in host memory between uses (default: the platform's)."
    )
    output_path: str | None = _flag(None, "Folder generated PNGs are saved to.")
    dist_init_addr: str | None = _flag(None, "HOST:PORT of the torch.distributed rendezvous.")
    host: str = _flag("127.0.0.1", "Address the HTTP server binds.")
    port: int = _flag(30000, "Port the HTTP server listens on.")
    api_key: str | None = _flag(None, "Require 'Authorization: Bearer KEY' on every endpoint.")
    log_level: str = _flag("info", "Logging level.", choices=("debug", "info", "warning", "error"))
    pipeline_config: PipelineConfig = field(
        default_factory=PipelineConfig, metadata={"help": "", "cli": False}
    )

    def apply_platform_defaults(self) -> None:
        """Let the current platform set its defaults (launcher only, once).

        Calls ``apply_server_args_defaults()``, then fills an unset
        ``dit_layerwise_offload`` from ``enable_dit_layerwise_offload_by_default()``.
        """
        from sglang.multimodal_gen.runtime.platforms import current_platform

        current_platform.apply_server_args_defaults(self)
        if self.dit_layerwise_offload is None:
            self.dit_layerwise_offload = bool(
                current_platform.enable_dit_layerwise_offload_by_default()
            )

    @staticmethod
    def add_cli_args(parser: argparse.ArgumentParser) -> None:
        """Add one ``--flag-name`` per field to *parser*."""
        for item in dataclasses.fields(ServerArgs):
            if item.metadata.get("cli") is False:
                continue
            name = "--" + item.name.replace("_", "-")
            help_text = item.metadata["help"]
            if item.default is False:
                parser.add_argument(name, dest=item.name, action="store_true", help=help_text)
            elif str(item.type).startswith("bool"):
                parser.add_argument(
                    name, dest=item.name, action=argparse.BooleanOptionalAction, help=help_text
                )
            else:
                parse = _PARSERS[str(item.type).split(" | ")[0]]
                choices = item.metadata.get("choices")
                parser.add_argument(
                    name, dest=item.name, type=parse, default=item.default, choices=choices,
                    help=help_text,
                )  # fmt: skip

    def check_server_args(self) -> None:
        """Raise ``ValueError`` naming the flag of the first inconsistent option."""
        rules = (
            ("--model-path", bool(self.model_path), "is required"),
            ("--sp-degree", self.sp_degree >= 1, "must be at least 1"),
            ("--port", 0 < self.port < 65536, "must be a TCP port (1-65535)"),
        )
        for flag, ok, rule in rules:
            if not ok:
                raise ValueError(
                    f"{flag} {rule} (got {getattr(self, flag[2:].replace('-', '_'))!r})"
                )


def prepare_server_args(argv: Sequence[str]) -> ServerArgs:
    """Parse command-line *argv* (without the program name) into a :class:`ServerArgs`.

    ``--help`` prints the flags and exits 0 without importing torch or
    selecting a platform.
    """
    parser = argparse.ArgumentParser(
        prog="sglang serve --model-type diffusion",
        description="Serve a diffusers-layout text-to-image model with SGLang Diffusion.",
    )
    parser.add_argument("model", nargs="?", default=None, help="The model directory.")
    ServerArgs.add_cli_args(parser)
    namespace = vars(parser.parse_args(list(argv)))
    positional = namespace.pop("model")
    if positional is not None:
        namespace["model_path"] = positional
    return ServerArgs(**namespace)
