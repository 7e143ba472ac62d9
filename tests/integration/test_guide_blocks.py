"""Every code block of the documentation is executed, type-checked or parsed.

The blocks and their markers come from :mod:`tests.support.guides`:

* **bash** blocks all carry a marker. ``.. run-by:`` this module: they run
  here, as written, with ``bash`` in a fresh venv; ``.. run-by:`` another
  file: that file exists and runs them (it names the page, or holds every
  command of the block); ``.. not-run:``: the reason says why.
* **python** blocks run in ``tests/unit/test_docs_examples.py``; those
  marked ``run-by`` this module (they need a server or a pytest session)
  run here; those marked ``not-run`` are type-checked here with mypy.
* **toml** and **json** blocks parse; entry-point tables name real groups
  and objects that import; conformance tables and reports name real clauses.
* **text** blocks are program output and diagrams: shown, not run.

What is substituted when a block runs here: ``pip install`` of an example
installs a copy of it offline (``--no-deps --no-build-isolation
--no-index``; for the platform guide's quick start, the package assembled
from the page's files), ``/tmp/tiny-llama`` is a temporary model folder, port
``30000`` a free port, and ``sglang`` and ``pytest`` are console scripts
of the venv (which sees sglang through the plugin-free view).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from sglang.conformance._clauses import CLAUSES, Level
from sglang.sdk.constants import ALL_ENTRY_POINT_GROUPS
from tests.support.dists import REPO_ROOT, run_python
from tests.support.examples import EXAMPLES, console_script
from tests.support.guides import Block, assemble, blocks
from tests.support.isolation import clean_environment, make_venv, plugin_free_env
from tests.support.processes import HAS_PROC, free_port, run_script_in_session

THIS = "tests/integration/test_guide_blocks.py"
LANGUAGES = {"python", "bash", "toml", "json", "text"}
OFFLINE = "python -m pip install --no-deps --no-build-isolation --no-index"
_PIP = re.compile(r"^(\s*)pip install (?:-e )?(?:examples/)?(?P<name>[a-z_]+)/?\s*$", re.M)

pytestmark = [
    pytest.mark.skipif(shutil.which("curl") is None, reason="the guides use curl"),
    pytest.mark.skipif(not HAS_PROC, reason="job control needs a POSIX shell"),
]


def _key(block: Block) -> str:
    """``page: first line`` (without a trailing line continuation)."""
    first = block.code.splitlines()[0].rstrip(" \\")
    return f"{block.page}: {first}"


def _mine(language: str) -> dict[str, Block]:
    """This module's blocks of *language*, by :func:`_key`."""
    return {_key(b): b for b in blocks(language) if b.run_by == THIS}


SHELL = _mine("bash")
PYTHON = _mine("python")


# -- the inventory ---------------------------------------------------------------------


def test_every_block_has_a_known_language_and_a_valid_marker() -> None:
    for block in blocks():
        assert block.language in LANGUAGES, f"{block.id}: unknown language {block.language!r}"
        if block.language == "bash":
            assert block.marker is not None, (
                f"{block.id}: a shell block needs '.. run-by: PATH' or '.. not-run: REASON'"
            )
        if block.not_run is not None:
            assert block.not_run, f"{block.id}: a not-run block must say why"
        if block.run_by is not None and block.run_by != THIS:
            runner = REPO_ROOT / block.run_by
            assert runner.is_file(), f"{block.id}: run-by names a missing file {block.run_by}"
            text = runner.read_text("utf-8")
            commands = [c for c in block.code.splitlines() if c.strip()]
            assert Path(block.page).name in text or all(
                c.split("#")[0].strip() in text for c in commands
            ), f"{block.id}: {block.run_by} neither reads {block.page} nor runs the block"


def test_this_module_runs_every_block_it_is_named_for() -> None:
    assert set(SHELL) == set(SHELL_RUNS), "shell blocks marked run-by this module changed"
    assert set(PYTHON) == set(PYTHON_RUNS), "python blocks marked run-by this module changed"


# -- shell sessions ----------------------------------------------------------------------


def _venv(root: Path) -> Path:
    python = make_venv(root / "venv", clean_environment().view)
    console_script(python.parent, python)
    console_script(python.parent, python, "pytest", "pytest:console_main")
    return python


def _offline(code: str, root: Path) -> str:
    """Replace each ``pip install`` of an example by an offline install of a copy."""

    def install(match: re.Match[str]) -> str:
        source = root / "src" / match["name"]
        if not source.exists():
            shutil.copytree(EXAMPLES / match["name"], source)
        return f"{match[1]}{OFFLINE} {source}"

    return _PIP.sub(install, code)


def _run(code: str, root: Path, *, env: dict[str, str] | None = None) -> str:
    """Run *code* with bash in a venv under *root*; return its stdout (it must succeed)."""
    python = _venv(root)
    work = root / "work"
    work.mkdir(exist_ok=True)
    path = os.pathsep.join([str(python.parent), os.environ["PATH"]])
    result = run_script_in_session(
        "set -m\n" + _offline(code, root),
        env={**plugin_free_env(), **(env or {}), "PATH": path},
        cwd=work,
        timeout=600,
    )
    output = result.stdout[-6000:] + result.stderr[-6000:]
    assert result.returncode == 0, f"--- code\n{code}--- output\n{output}"
    assert "Traceback" not in result.stderr, output
    return result.stdout


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from sglang.testing.make_model import make_model

    return make_model(tmp_path_factory.mktemp("guide-model") / "tiny-llama", arch="llama")


def test_landing_page_quick_start(tmp_path: Path) -> None:
    code = SHELL["index.rst: python -m sglang.testing.make_model /tmp/tiny-llama"].code
    out = _run(code.replace("/tmp/tiny-llama", str(tmp_path / "tiny-llama")), tmp_path)
    assert "'output_ids': [" in out
    assert "'finish_reason': {'type': 'length'}" in out


def test_landing_page_plugins_commands(tmp_path: Path) -> None:
    out = _run(SHELL["index.rst: sglang plugins"].code, tmp_path)
    assert "no plugin installed" in out
    assert "srt platform selection" in out
    assert "diffusion platform selection" in out


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        (
            "guides/discovery.rst: pip install -e examples/demo_platform",
            ["DemoSRTPlatform", "DemoDiffusionPlatform"],
        ),
        (
            "guides/platforms.rst: pip install examples/demo_platform",
            ["DemoSRTPlatform", "DemoDiffusionPlatform"],
        ),
        (
            "guides/platforms.rst: pip install -e examples/my_platform_plugin",
            ["MySRTPlatform", "my-platform-plugin"],
        ),
    ],
    ids=["discovery", "platforms-demo", "platforms-quick-start"],
)
def test_install_and_verify_blocks(tmp_path: Path, key: str, expected: list[str]) -> None:
    page, _, command = key.partition(": ")
    if command.endswith("examples/my_platform_plugin"):  # the quick start, as the page shows it
        assemble(page, "my_platform_plugin", tmp_path / "src" / "my_platform_plugin")
    out = _run(SHELL[key].code, tmp_path)
    for text in expected:
        assert text in out, out


def test_conformance_suite_subclass(tmp_path: Path) -> None:
    """The guide's own test class, in ``tests/test_my_device.py``, run by the guide's command."""
    tests = tmp_path / "work" / "tests"
    tests.mkdir(parents=True)
    (tests / "test_my_device.py").write_text(
        PYTHON["guides/conformance.rst: from sglang.conformance.levels import test_device"].code,
        encoding="utf-8",
    )
    install = "pip install -e examples/demo_platform\n"
    code = SHELL["guides/conformance.rst: pytest --sglang-conformance tests/test_my_device.py"].code
    out = _run(install + code, tmp_path)
    assert re.search(r"test_my_device_reports_at_least_a_gibibyte\[srt\] PASSED|\d+ passed", out)
    assert "DEV-01  passed" in out  # the inherited clauses ran on the demo device too


def _wait_for(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 180
    while True:
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail("the server did not start:\n" + log.read_text())
        time.sleep(0.3)


_SGLANG = "import sys\nfrom sglang.cli.main import main\nsys.exit(main())"
"""``sglang ...``: the console script's function."""


@pytest.fixture
def server(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[int]:
    """A server on a free port with ``--api-key KEY``: the guide's synopsis, optional flags set."""
    port = free_port()
    python = str(clean_environment().python)
    kind = request.param
    if kind == "llm":
        from sglang.testing.make_model import make_model

        target = make_model(tmp_path / "tiny-llama", arch="llama")
        command = [python, "-m", "sglang.launch_server", "--model-path", str(target)]
        env = {"SGLANG_USE_CPU_ENGINE": "1"}
    else:
        from sglang.testing.make_diffusion_model import make_diffusion_model

        target = make_diffusion_model(tmp_path / "tiny-diffusion")
        command = [python, "-c", _SGLANG, "serve", str(target)]
        env = {"SGLANG_DIFFUSION_PLATFORM_OVERRIDE": "cpu"}
    command += ["--port", str(port), "--api-key", "KEY"]
    log = tmp_path / "server.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            command, env={**plugin_free_env(), **env}, stdout=out, stderr=subprocess.STDOUT
        )
        try:
            _wait_for(f"http://127.0.0.1:{port}", proc, log)
            yield port
        finally:
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=60) == 0, log.read_text()


_AUTH = '-H "Authorization: Bearer KEY"'
CURL = {
    f"guides/serving-http.rst: curl http://127.0.0.1:30000/v1/completions {_AUTH}": (
        '"text_completion"'
    ),
    f"guides/serving-http.rst: curl -N http://127.0.0.1:30000/v1/chat/completions {_AUTH}": (
        "data: [DONE]"
    ),
    f"guides/serving-http.rst: curl http://127.0.0.1:30000/generate {_AUTH}": '"output_ids"',
    "guides/serving-http.rst: curl -sf http://127.0.0.1:30000/health_generate && echo healthy": (
        "healthy"
    ),
    f"guides/serving-http.rst: curl http://127.0.0.1:30000/get_server_info {_AUTH}": (
        '"max_total_num_tokens"'
    ),
    f"guides/serving-http.rst: curl http://127.0.0.1:30000/tokenize {_AUTH}"
    """ -d '{"prompt": "Hello"}'""": '"max_model_len"',
    f"guides/serving-http.rst: curl http://127.0.0.1:30000/v1/chat/completions {_AUTH}": (
        '"chat.completion"'
    ),
}
"""The HTTP guide's curl blocks and what each answer holds."""


@pytest.mark.parametrize("server", ["llm"], indirect=True)
def test_http_guide_curl_blocks(server: int) -> None:
    for key, text in CURL.items():
        code = SHELL[key].code.replace("30000", str(server))
        result = subprocess.run(["bash", "-euc", code], capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        assert text in result.stdout, f"{key}: {result.stdout}"
        assert '"error"' not in result.stdout, f"{key}: {result.stdout}"


@pytest.mark.parametrize("server", ["diffusion"], indirect=True)
def test_diffusion_guide_openai_client(server: int) -> None:
    code = PYTHON["guides/diffusion.rst: from openai import OpenAI"].code
    code = code.replace("30000", str(server)) + "\nassert result.data[0].b64_json\n"
    run_python(code, timeout=180).check()


SHELL_RUNS = {
    "index.rst: python -m sglang.testing.make_model /tmp/tiny-llama",
    "index.rst: sglang plugins",
    "guides/discovery.rst: pip install -e examples/demo_platform",
    "guides/platforms.rst: pip install examples/demo_platform",
    "guides/platforms.rst: pip install -e examples/my_platform_plugin",
    "guides/conformance.rst: pytest --sglang-conformance tests/test_my_device.py",
    *CURL,
}
PYTHON_RUNS = {
    "guides/conformance.rst: from sglang.conformance.levels import test_device",
    "guides/diffusion.rst: from openai import OpenAI",
}


# -- type-checked and parsed blocks ------------------------------------------------------


def test_not_run_python_blocks_type_check(tmp_path: Path) -> None:
    files = []
    for number, block in enumerate(b for b in blocks("python") if b.not_run is not None):
        path = tmp_path / f"block_{number}.py"
        path.write_text(f"# {block.id}\n{block.code}", encoding="utf-8")
        files.append(str(path))
    assert files
    paths = [str(p) for p in sorted(EXAMPLES.iterdir()) if p.is_dir()]
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--follow-imports=silent", *files],
        capture_output=True,
        text=True,
        env={**os.environ, "MYPYPATH": os.pathsep.join(paths)},
        cwd=tmp_path,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def _entry_points(data: dict[str, object]) -> dict[str, dict[str, str]]:
    project = data.get("project", {})
    assert isinstance(project, dict)
    found = project.get("entry-points", {})
    assert isinstance(found, dict)
    return found


def test_toml_blocks_parse_and_name_real_things() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    values = []
    for block in blocks("toml"):
        data = tomllib.loads(block.code)
        for group, items in _entry_points(data).items():
            assert group in ALL_ENTRY_POINT_GROUPS, f"{block.id}: unknown group {group!r}"
            values += [(block.id, value) for value in items.values()]
        for table in ("xfail", "skip"):
            for clause_id in data.get(table, {}):
                assert clause_id in CLAUSES, f"{block.id}: unknown clause {clause_id}"
    assert values
    paths = [p for p in sorted(EXAMPLES.iterdir()) if p.is_dir()]
    code = (
        "import importlib, sys\n"
        "for where, value in " + repr(values) + ":\n"
        "    module, _, attr = value.partition(':')\n"
        "    obj = importlib.import_module(module)\n"
        "    for part in filter(None, attr.split('.')):\n"
        "        obj = getattr(obj, part)\n"
    )
    run_python(code, path=paths).check()


def test_json_blocks_parse_and_name_real_clauses() -> None:
    found = blocks("json")
    assert found
    levels = {level.value for level in Level}
    for block in found:
        data = json.loads(block.code)
        for item in data.get("clauses", []):
            assert item["id"] in CLAUSES, f"{block.id}: unknown clause {item['id']}"
            assert item["level"] in levels
            assert item["rule"] == CLAUSES[item["id"]].rule, block.id
