"""ServerArgs: flags generated from the fields, platform defaults, validation."""

from __future__ import annotations

import argparse
import pickle
from collections.abc import Iterator
from pathlib import Path

import pytest

from sglang.runtime.selection import reset_selection
from sglang.runtime.spec import SRT
from sglang.sdk.constants import SRT_PLATFORMS_GROUP
from sglang.srt.server_args import ServerArgs, prepare_server_args
from tests.support.dists import Dist, Site, run_python

UPSTREAM_FLAGS = [
    "--model-path",
    "--tp-size",
    "--dtype",
    "--mem-fraction-static",
    "--max-running-requests",
    "--max-total-tokens",
    "--context-length",
    "--page-size",
    "--attention-backend",
    "--random-seed",
    "--nnodes",
    "--node-rank",
    "--dist-init-addr",
    "--disable-cuda-graph",
    "--host",
    "--port",
    "--api-key",
    "--served-model-name",
]


@pytest.fixture(autouse=True)
def _cpu(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Select the CPU platform in-process, and forget it afterwards."""
    monkeypatch.setenv("SGLANG_USE_CPU_ENGINE", "1")
    reset_selection(SRT)
    yield
    reset_selection(SRT)


def test_flags_follow_upstream_names() -> None:
    parser = argparse.ArgumentParser()
    ServerArgs.add_cli_args(parser)
    flags = {option for action in parser._actions for option in action.option_strings}
    assert set(UPSTREAM_FLAGS) <= flags


def test_parsing_types_and_defaults() -> None:
    args = prepare_server_args(
        [
            "--model-path",
            "/m",
            "--tp-size",
            "2",
            "--mem-fraction-static",
            "0.5",
            "--disable-cuda-graph",
            "--dtype",
            "float32",
        ]
    )
    assert args.model_path == "/m"
    assert args.tp_size == 2
    assert args.mem_fraction_static == 0.5
    assert args.disable_cuda_graph is True
    assert args.dtype == "float32"
    assert args.port == 30000
    assert args.host == "127.0.0.1"
    assert args.attention_backend is None  # decided later, from the platform


def test_the_runtime_fills_what_the_platform_left_unset() -> None:
    assert ServerArgs(model_path="/m").mem_fraction_static == 0.88


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"model_path": ""}, "--model-path is required"),
        ({"tp_size": 0}, "--tp-size must be at least 1 (got 0)"),
        ({"nnodes": 2}, "--dist-init-addr is required with --nnodes > 1"),
        ({"node_rank": 1}, "--node-rank must be in [0, --nnodes) (got 1)"),
        (
            {"nnodes": 2, "dist_init_addr": "10.0.0.1:5000", "tp_size": 3},
            "--tp-size must be a multiple of --nnodes",
        ),
        ({"mem_fraction_static": 1.5}, "--mem-fraction-static must be between 0 and 1"),
        ({"max_running_requests": 0}, "--max-running-requests must be at least 1"),
        ({"port": 0}, "--port must be a TCP port"),
        ({"page_size": 0}, "--page-size must be at least 1"),
    ],
)
def test_check_names_the_flag(changes: dict[str, object], message: str) -> None:
    args = ServerArgs(model_path="/m")
    for name, value in changes.items():
        setattr(args, name, value)
    with pytest.raises(
        ValueError, match="^" + message.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")
    ):
        args.check_server_args()


def test_a_valid_multi_node_setup_passes() -> None:
    args = ServerArgs(
        model_path="/m", tp_size=2, nnodes=2, node_rank=1, dist_init_addr="10.0.0.1:5000"
    )
    args.check_server_args()


def test_unpickling_does_not_ask_the_platform_again() -> None:
    args = ServerArgs(model_path="/m")
    args.attention_backend = "chosen-by-the-user"
    copy = pickle.loads(pickle.dumps(args))
    assert copy == args


def test_the_platform_sets_defaults_first(tmp_path: Path) -> None:
    site = Site(tmp_path / "site")
    site.install(
        Dist(
            "opinionated-dist",
            entry_points={SRT_PLATFORMS_GROUP: {"opinionated": "opinionated_dist:activate"}},
            modules={
                "opinionated_dist/__init__.py": """
                    from sglang.srt.platforms.interface import PlatformEnum, SRTPlatform

                    class Plat(SRTPlatform):
                        _enum = PlatformEnum.OOT
                        device_name = "op"

                        def apply_server_args_defaults(self, server_args):
                            if server_args.mem_fraction_static is None:
                                server_args.mem_fraction_static = 0.5
                            if server_args.attention_backend is None:
                                server_args.attention_backend = "op_attn"

                    def activate():
                        return "opinionated_dist:Plat"
                """
            },
        )
    )
    result = run_python(
        """
        from sglang.srt.server_args import ServerArgs
        args = ServerArgs(model_path="/m")
        print(args.mem_fraction_static, args.attention_backend)
        args = ServerArgs(model_path="/m", mem_fraction_static=0.7, attention_backend="mine")
        print(args.mem_fraction_static, args.attention_backend)
        """,
        path=[site.root],
        env={"SGLANG_PLATFORM": "opinionated"},
    ).check()
    assert result.stdout.splitlines() == ["0.5 op_attn", "0.7 mine"]


def test_help_selects_no_platform_and_imports_no_torch() -> None:
    result = run_python(
        """
        import sys
        from sglang.srt.server_args import prepare_server_args
        try:
            prepare_server_args(["--help"])
        except SystemExit as exc:
            print("EXIT", exc.code)
        print("TORCH", "torch" in sys.modules)
        print("SELECTION", "sglang.runtime.selection.engine" in sys.modules)
        """
    ).check()
    assert "--mem-fraction-static" in result.stdout
    assert result.stdout.splitlines()[-3:] == ["EXIT 0", "TORCH False", "SELECTION False"]
