"""Serve backends: a correct one and one whose detector starts a thread."""

from __future__ import annotations

import argparse
import threading
import time

from sglang.sdk.serve import ServeBackend, ServeBackendDetection, ServeRequest


def _run(request: ServeRequest) -> None:
    parser = argparse.ArgumentParser(prog="sglang serve --model-type broken")
    parser.add_argument("--model-path")
    parser.parse_args(list(request.argv))  # --help prints and exits 0
    raise RuntimeError("this test backend serves nothing")


def _detect(request: ServeRequest) -> ServeBackendDetection:
    if request.model_path and request.model_path.endswith("-broken"):
        return ServeBackendDetection.MATCH
    return ServeBackendDetection.NO_MATCH


def _detect_with_thread(request: ServeRequest) -> ServeBackendDetection:
    threading.Thread(target=time.sleep, args=(2,), daemon=True).start()
    return _detect(request)


def good() -> ServeBackend:
    """A backend that honours the contract."""
    return ServeBackend(api_version=1, run=_run, detect=_detect)


def thread_in_detect() -> ServeBackend:
    """Defect (SRV-03): the detector starts a thread."""
    return ServeBackend(api_version=1, run=_run, detect=_detect_with_thread)
