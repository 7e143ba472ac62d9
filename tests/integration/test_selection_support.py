"""Helpers for the platform-selection tests: real plugin distributions and child runs.

Not a test module (``__test__ = False``): it builds installable platform
plugins (real ``*.dist-info`` with entry points) whose callbacks print
``IMPORTED <package>`` when their module is imported and ``CALLED <name>``
when called, and runs ``current_platform`` in a fresh interpreter,
parsing what the child printed.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from sglang.sdk.constants import DIFFUSION_PLATFORMS_GROUP, SRT_PLATFORMS_GROUP
from tests.support.dists import Dist, PythonResult, Site, run_python

__test__ = False

Runtime = Literal["srt", "diffusion"]

GROUPS: Mapping[Runtime, str] = {"srt": SRT_PLATFORMS_GROUP, "diffusion": DIFFUSION_PLATFORMS_GROUP}
SELECTOR: Mapping[Runtime, str] = {
    "srt": "SGLANG_PLATFORM",
    "diffusion": "SGLANG_DIFFUSION_PLATFORM_OVERRIDE",
}
MODULE: Mapping[Runtime, str] = {
    "srt": "sglang.srt.platforms",
    "diffusion": "sglang.multimodal_gen.runtime.platforms",
}

_CLASS_SOURCE: Mapping[Runtime, str] = {
    "srt": """
        from sglang.srt.platforms.interface import PlatformEnum, SRTPlatform

        class Plat(SRTPlatform):
            _enum = PlatformEnum.OOT
            device_name = {name!r}
            init_calls = 0

            def init_backend(self):
                type(self).init_calls += 1
                print("INIT", {name!r}, flush=True)
    """,
    "diffusion": """
        from sglang.multimodal_gen.runtime.platforms import Platform, PlatformEnum

        class Plat(Platform):
            _enum = PlatformEnum.OOT
            device_name = {name!r}
            init_calls = 0

            def init_backend(self):
                type(self).init_calls += 1
                print("INIT", {name!r}, flush=True)
    """,
}


def plugin(
    dist_name: str,
    name: str,
    *,
    runtime: Runtime = "srt",
    returns: str | None = "default",
    body: str | None = None,
    package: str | None = None,
    platform_source: str | None = None,
    version: str = "1.0",
) -> Dist:
    """A platform plugin distribution with one activation callback.

    Args:
        dist_name: The distribution name.
        name: The entry-point name.
        runtime: Which runtime's group and base class to use.
        returns: A Python expression the callback returns; ``"default"`` is
            the qualname of the package's ``Plat`` class, ``None`` returns None.
        body: Replaces the callback body entirely (indented by the helper).
        package: The import package (default: the dist name with underscores).
        platform_source: Replaces the ``platform.py`` module source.
        version: The distribution version.
    """
    package = package or dist_name.replace("-", "_")
    if returns == "default":
        returns = repr(f"{package}.platform:Plat")
    elif returns is None:
        returns = "None"
    callback_body = textwrap.indent(textwrap.dedent(body or f"return {returns}"), "    ")
    init = (
        f"print('IMPORTED {package}', flush=True)\n\n"
        f"def activate():\n"
        f"    print('CALLED {name}', flush=True)\n"
        f"{callback_body}\n"
    )
    platform = platform_source or _CLASS_SOURCE[runtime].format(name=name)
    return Dist(
        dist_name,
        version,
        entry_points={GROUPS[runtime]: {name: f"{package}:activate"}},
        modules={f"{package}/__init__.py": init, f"{package}/platform.py": platform},
    )


def install(site: Site, *dists: Dist) -> Site:
    """Install *dists* into *site* and return it."""
    for dist in dists:
        site.install(dist)
    return site


def new_site(root: Path, *dists: Dist) -> Site:
    """A fresh :class:`Site` under *root* holding *dists*."""
    return install(Site(root), *dists)


@dataclass(frozen=True)
class Outcome:
    """What a child interpreter's selection produced.

    Attributes:
        platform: ``module.QualName`` of the selected class, or ``None`` on error.
        dist: The selected distribution (``None`` for a built-in or on error).
        error_type: The raised exception's class name, or ``None``.
        error: The raised exception's message, or ``None``.
        is_runtime_error / is_type_error: ``isinstance`` checks done in the child.
        events: The ``IMPORTED``/``CALLED``/``INIT`` lines, in order.
        report: The selection report's fields as JSON-decoded data.
        result: The raw child result.
    """

    platform: str | None
    dist: str | None
    error_type: str | None
    error: str | None
    is_runtime_error: bool
    is_type_error: bool
    events: tuple[str, ...]
    report: Mapping[str, object]
    result: PythonResult

    def called(self) -> list[str]:
        """Entry-point names whose callbacks ran, in order."""
        return [e.split()[1] for e in self.events if e.startswith("CALLED ")]

    def imported(self) -> list[str]:
        """Plugin packages that were imported, in order."""
        return [e.split()[1] for e in self.events if e.startswith("IMPORTED ")]


_RESOLVE = """
import json, sys
from dataclasses import asdict
import {module} as platforms
try:
    platform = platforms.current_platform
except BaseException as exc:
    print("ERROR_TYPE", type(exc).__name__)
    print("IS_RUNTIME_ERROR", isinstance(exc, RuntimeError))
    print("IS_TYPE_ERROR", isinstance(exc, TypeError))
    print("ERROR_BEGIN")
    print(str(exc))
    print("ERROR_END")
else:
    cls = type(platform)
    print("PLATFORM", cls.__module__ + "." + cls.__qualname__)
    print("DIST", platforms.get_selected_platform_dist())
report = platforms.get_selection_report()
data = asdict(report)
data["mode"] = report.mode.value
data["callbacks"] = [dict(c, status=c["status"].value) for c in data["callbacks"]]
data.pop("first_stack")
print("REPORT", json.dumps(data))
{extra}
"""


def resolve(
    runtime: Runtime,
    site: Site | None,
    env: Mapping[str, str] | None = None,
    *,
    extra: str = "",
    path: tuple[Path, ...] = (),
) -> Outcome:
    """Access ``current_platform`` of *runtime* in a fresh interpreter and parse the outcome."""
    code = _RESOLVE.format(module=MODULE[runtime], extra=textwrap.dedent(extra))
    paths = ([site.root] if site is not None else []) + list(path)
    result = run_python(code, path=paths, env=env)
    if result.returncode != 0:
        raise AssertionError(f"child crashed\n{result.stdout}\n{result.stderr}")
    return parse(result)


def parse(result: PythonResult) -> Outcome:
    """Parse the output of :data:`_RESOLVE`."""
    platform = dist = error_type = error = None
    is_runtime = is_type = False
    events: list[str] = []
    report: Mapping[str, object] = {}
    lines = result.stdout.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        head, _, rest = line.partition(" ")
        if head == "PLATFORM":
            platform = rest
        elif head == "DIST":
            dist = None if rest == "None" else rest
        elif head == "ERROR_TYPE":
            error_type = rest
        elif head == "IS_RUNTIME_ERROR":
            is_runtime = rest == "True"
        elif head == "IS_TYPE_ERROR":
            is_type = rest == "True"
        elif line == "ERROR_BEGIN":
            end = lines.index("ERROR_END", i)
            error = "\n".join(lines[i + 1 : end])
            i = end
        elif head == "REPORT":
            report = json.loads(rest)
        elif head in ("IMPORTED", "CALLED", "INIT"):
            events.append(line)
        i += 1
    return Outcome(
        platform, dist, error_type, error, is_runtime, is_type, tuple(events), report, result
    )
