"""``python -m sglang.bench_serving``: see :mod:`sglang.bench_serving`."""

from sglang.bench_serving.runner import main

raise SystemExit(main())
