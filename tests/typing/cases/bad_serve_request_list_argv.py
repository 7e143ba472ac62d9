"""ServeRequest.argv is an immutable tuple of strings."""

from __future__ import annotations

from sglang.cli.serve_backends import ServeRequest

from_list = ServeRequest(argv=["--model-path", "org/model"])  # expect-error
from_ints = ServeRequest(argv=("--tp", 2))  # expect-error
request = ServeRequest(argv=("--model-path", "org/model"))
request.argv = ("--model-path", "other")  # expect-error
