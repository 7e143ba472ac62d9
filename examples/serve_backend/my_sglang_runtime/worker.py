"""A worker process of the stand-in runtime: it starts a helper and waits."""

from __future__ import annotations

import subprocess
import sys
import time

__all__ = ["main"]


def main() -> None:
    """Start one helper process, then sleep until terminated."""
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
    while True:
        time.sleep(1)


if __name__ == "__main__":
    main()
