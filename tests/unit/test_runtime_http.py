"""The shared HTTP pieces (:mod:`sglang.runtime.http`) on a toy app in a real server process.

No runtime is involved: a FastAPI app with one route per piece runs under
:func:`~sglang.runtime.http.serve` inside :func:`~sglang.runtime.http.stop_on_signals`,
and a real client checks the errors, the API key, the events and the
clean return on SIGTERM (the caller's ``finally`` runs).
"""

from __future__ import annotations

import signal
import subprocess
import textwrap
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.http.server import free_port
from tests.support.dists import run_python
from tests.support.isolation import clean_environment, plugin_free_env

APP = """
import sys
from fastapi import FastAPI, Request
from pydantic import BaseModel
from starlette.responses import StreamingResponse
from sglang.runtime.http import (
    SSE_DONE, SSE_MEDIA_TYPE, APIError, ApiKeyMiddleware, install_error_handlers,
    parse_body, serve, sse_event, stop_on_signals,
)

class Body(BaseModel):
    count: int

app = FastAPI()
install_error_handlers(app)

@app.get("/health")
async def health():
    return {"ok": True}

@app.post("/count")
async def count(request: Request):
    body = await parse_body(request, Body)
    if body.count < 0:
        raise APIError(400, "count must not be negative", param="count")
    async def events():
        for i in range(body.count):
            yield sse_event({"i": i})
        yield SSE_DONE
    return StreamingResponse(events(), media_type=SSE_MEDIA_TYPE)

@app.get("/crash")
async def crash():
    raise KeyError("boom")

app.add_middleware(ApiKeyMiddleware, api_key="k")
with stop_on_signals():
    try:
        serve(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
    finally:
        print("cleanup ran", flush=True)
print("returned", flush=True)
"""

KEY = {"Authorization": "Bearer k"}


@pytest.fixture
def toy() -> Iterator[tuple[str, subprocess.Popen[str]]]:
    port = free_port()
    proc = subprocess.Popen(
        [str(clean_environment().python), "-c", textwrap.dedent(APP), str(port)],
        env=plugin_free_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            httpx.get(f"{url}/health")
            break
        except httpx.TransportError:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.1)
    yield url, proc
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def test_errors_key_events_and_sigterm(toy: tuple[str, subprocess.Popen[str]]) -> None:
    url, proc = toy
    assert httpx.get(f"{url}/health").status_code == 200  # open without a key
    missing = httpx.post(f"{url}/count", json={"count": 1})
    assert missing.status_code == 401
    assert missing.json()["error"]["code"] == "invalid_api_key"
    assert (
        httpx.post(
            f"{url}/count", json={"count": 1}, headers={"Authorization": "Bearer x"}
        ).status_code
        == 401
    )
    bad_json = httpx.post(f"{url}/count", content=b"{", headers=KEY)
    assert bad_json.status_code == 400
    assert set(bad_json.json()["error"]) == {"message", "type", "param", "code"}
    bad_field = httpx.post(f"{url}/count", json={"count": "x"}, headers=KEY).json()["error"]
    assert bad_field["param"] == "count"
    assert bad_field["type"] == "invalid_request_error"
    refused = httpx.post(f"{url}/count", json={"count": -1}, headers=KEY)
    assert refused.status_code == 400
    assert refused.json()["error"]["message"] == "count must not be negative"
    crash = httpx.get(f"{url}/crash", headers=KEY)
    assert crash.status_code == 500
    assert crash.json()["error"]["type"] == "server_error"
    assert httpx.get(f"{url}/nowhere", headers=KEY).json()["error"]["type"] == "not_found_error"
    events = httpx.post(f"{url}/count", json={"count": 2}, headers=KEY).text
    assert events == 'data: {"i":0}\n\ndata: {"i":1}\n\ndata: [DONE]\n\n'
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 0, stderr
    assert stdout.splitlines() == ["cleanup ran", "returned"]


def test_the_face_imports_neither_fastapi_nor_uvicorn() -> None:
    code = """
    import sys
    import sglang.runtime.http
    print(sorted(m for m in ("fastapi", "uvicorn", "starlette") if m in sys.modules))
    """
    assert run_python(code).check().stdout.strip() == "[]"


def test_stop_on_signals_outside_the_main_thread_runs_the_block_unchanged() -> None:
    import threading

    from sglang.runtime.http import stop_on_signals

    seen: list[object] = []

    def body() -> None:
        with stop_on_signals():
            seen.append(signal.getsignal(signal.SIGTERM))

    thread = threading.Thread(target=body)
    thread.start()
    thread.join()
    assert seen == [signal.getsignal(signal.SIGTERM)]
