"""Helpers for the plugin-loading tests: real plugin distributions and child runs.

Not a test module (``__test__ = False``). General plugins are real
``*.dist-info`` distributions whose modules print ``IMPORTED <package>
<source>`` at import time and ``CALLED <name> <source>`` from their callback
(``<source>`` is the plugin source the loader set, as ``name/dist/version``),
and register hooks on the real modules in ``tests/hooktargets``. Each test
runs the loader in a fresh interpreter and reads back one JSON line.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from sglang.sdk.constants import (
    DIFFUSION_PLATFORMS_GROUP,
    DIFFUSION_PLUGINS_GROUP,
    SRT_PLATFORMS_GROUP,
    SRT_PLUGINS_GROUP,
)
from tests.support.dists import REPO_ROOT, Dist, PythonResult, Site, run_python

__test__ = False

Runtime = Literal["srt", "diffusion"]

PLUGINS_GROUP: Mapping[Runtime, str] = {
    "srt": SRT_PLUGINS_GROUP,
    "diffusion": DIFFUSION_PLUGINS_GROUP,
}
PLATFORMS_GROUP: Mapping[Runtime, str] = {
    "srt": SRT_PLATFORMS_GROUP,
    "diffusion": DIFFUSION_PLATFORMS_GROUP,
}
REGISTRY_MODULE: Mapping[Runtime, str] = {
    "srt": "sglang.srt.plugins.hook_registry",
    "diffusion": "sglang.multimodal_gen.runtime.platforms.plugins",
}

TARGET = "tests.hooktargets.basic.add"
"""The default hook target: ``add(x, y) -> x + y``."""

_SOURCE_REPR = """
def _src():
    from sglang.runtime.hooks import current_plugin_source
    s = current_plugin_source()
    return "none" if s is None else f"{s.name}/{s.dist_name}/{s.dist_version}"
"""


@dataclass
class Hook:
    """One hook a test plugin registers: ``AROUND`` adding *add* to the result."""

    target: str = TARGET
    add: int = 1
    at_import: bool = False


def general_plugin(
    dist_name: str,
    name: str,
    *,
    runtime: Runtime = "srt",
    hooks: Sequence[Hook] = (Hook(),),
    fail_import: bool = False,
    fail_callback: bool = False,
    callback_extra: str = "",
    package: str | None = None,
    version: str = "1.0",
    extra_entry_points: Mapping[str, Mapping[str, str]] | None = None,
    extra_modules: Mapping[str, str] | None = None,
) -> Dist:
    """A distribution with one general plugin of *runtime* named *name*."""
    package = package or dist_name.replace("-", "_")
    registry = REGISTRY_MODULE[runtime]
    lines = [
        "import sys",
        f"from {registry} import HookRegistry, HookType",
        _SOURCE_REPR,
        f"print('IMPORTED {package}', _src(), flush=True)",
        "",
        "def _around(n):",
        "    def hook(original, *args, **kwargs):",
        "        return original(*args, **kwargs) + n",
        "    return hook",
        "",
    ]
    for hook in hooks:
        if hook.at_import:
            lines.append(
                f"HookRegistry.register({hook.target!r}, _around({hook.add}), HookType.AROUND)"
            )
    if fail_import:
        lines.append(f"raise ImportError('{package} needs a missing dependency')")
    lines += [
        "",
        f"def {_callback(name)}():",
        f"    print('CALLED {name}', _src(), flush=True)",
    ]
    for hook in hooks:
        if not hook.at_import:
            lines.append(
                f"    HookRegistry.register({hook.target!r}, _around({hook.add}), HookType.AROUND)"
            )
    if callback_extra:
        lines += ["    " + line for line in textwrap.dedent(callback_extra).splitlines()]
    if fail_callback:
        lines.append(f"    raise RuntimeError('{name} callback exploded')")
    entry_points: dict[str, dict[str, str]] = {
        PLUGINS_GROUP[runtime]: {name: f"{package}:{_callback(name)}"}
    }
    for group, items in (extra_entry_points or {}).items():
        entry_points.setdefault(group, {}).update(items)
    modules = {f"{package}/__init__.py": "\n".join(lines) + "\n", **(extra_modules or {})}
    return Dist(dist_name, version, entry_points=entry_points, modules=modules)


def _callback(name: str) -> str:
    return f"register_{name.replace('-', '_')}"


_PLATFORM_CLASS: Mapping[Runtime, str] = {
    "srt": """
        from sglang.srt.platforms.interface import PlatformEnum, SRTPlatform

        class Plat{suffix}(SRTPlatform):
            _enum = PlatformEnum.OOT
            device_name = {name!r}
    """,
    "diffusion": """
        from sglang.multimodal_gen.runtime.platforms import Platform, PlatformEnum

        class Plat{suffix}(Platform):
            _enum = PlatformEnum.OOT
            device_name = {name!r}
    """,
}


def _module_hooks(package: str, runtime: Runtime, hooks: Sequence[Hook], *, decorator: bool) -> str:
    """Module-scope code printing ``IMPORTED <package> <source>`` and registering *hooks*.

    With *decorator*, through ``@plugin_hook``; else through ``HookRegistry.register``.
    """
    if not hooks:
        return ""
    lines = [
        f"from {REGISTRY_MODULE[runtime]} import HookRegistry, HookType, plugin_hook",
        _SOURCE_REPR,
        f"print('IMPORTED {package}', _src(), flush=True)",
    ]
    for index, hook in enumerate(hooks):
        lines += [
            f"def _hook_{index}(original, *args, **kwargs):",
            f"    return original(*args, **kwargs) + {hook.add}",
            "",
        ]
        if decorator:
            lines.insert(-3, f"@plugin_hook({hook.target!r}, type=HookType.AROUND)")
        else:
            lines.append(f"HookRegistry.register({hook.target!r}, _hook_{index}, HookType.AROUND)")
    return "\n".join(lines) + "\n"


def platform_dist(
    dist_name: str,
    platforms: Mapping[str, bool],
    *,
    runtime: Runtime = "srt",
    plugin: str | None = None,
    hooks: Sequence[Hook] = (Hook(),),
    fail_import: bool = False,
    fail_callback: bool = False,
    module_hooks: Sequence[Hook] = (),
    class_hooks: Sequence[Hook] = (),
) -> Dist:
    """A platform distribution: one platform per *platforms* name (``True``: activates).

    With *plugin*, it also ships a general plugin of that name (its package is
    ``<dist>_hooks``). *module_hooks* are registered with ``@plugin_hook`` at
    module scope of the platform module (``<dist>/__init__.py``, holding the
    activation callbacks), *class_hooks* with ``HookRegistry.register`` at
    module scope of the platform class module (``<dist>/platform.py``).
    """
    package = dist_name.replace("-", "_")
    activators = [_module_hooks(package, runtime, module_hooks, decorator=True)]
    classes = [_module_hooks(f"{package}.platform", runtime, class_hooks, decorator=False)]
    entry_points: dict[str, dict[str, str]] = {PLATFORMS_GROUP[runtime]: {}}
    for index, (name, active) in enumerate(platforms.items()):
        result = f"'{package}.platform.Plat{index}'" if active else "None"
        activators.append(f"def activate_{index}():\n    return {result}\n")
        classes.append(textwrap.dedent(_PLATFORM_CLASS[runtime]).format(suffix=index, name=name))
        entry_points[PLATFORMS_GROUP[runtime]][name] = f"{package}:activate_{index}"
    modules = {
        f"{package}/__init__.py": "\n".join(activators),
        f"{package}/platform.py": "\n".join(classes),
    }
    if plugin is None:
        return Dist(dist_name, "1.0", entry_points=entry_points, modules=modules)
    return general_plugin(
        dist_name,
        plugin,
        runtime=runtime,
        hooks=hooks,
        fail_import=fail_import,
        fail_callback=fail_callback,
        package=f"{package}_hooks",
        extra_entry_points=entry_points,
        extra_modules=modules,
    )


def new_site(tmp_path: Path, *dists: Dist) -> Site:
    """A site folder with *dists* installed."""
    site = Site(tmp_path / "site")
    for dist in dists:
        site.install(dist)
    return site


@dataclass
class Outcome:
    """What the child reported."""

    result: PythonResult
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def error(self) -> str | None:
        """The loader's exception message, if it raised."""
        error = self.data.get("error")
        return None if error is None else str(error["message"])

    @property
    def error_type(self) -> str | None:
        """The loader's exception type name, if it raised."""
        error = self.data.get("error")
        return None if error is None else str(error["type"])

    @property
    def warnings(self) -> list[str]:
        """Every WARNING on the ``sglang.plugins`` logger."""
        return list(self.data["warnings"])

    @property
    def add(self) -> int:
        """``tests.hooktargets.basic.add(1, 2)`` after loading (3 when unhooked)."""
        return int(self.data["add"])

    def states(self) -> dict[str, str]:
        """Plugin entry-point name -> its loading state."""
        return {o["name"]: o["state"] for o in self.data["outcomes"]}

    def hooks(self) -> list[dict[str, Any]]:
        """Every registered hook of the runtime, as reported."""
        return list(self.data["hooks"])

    def imported(self) -> list[str]:
        """Packages whose module was imported (``IMPORTED`` lines), in order."""
        return [line.split()[1] for line in self._lines("IMPORTED")]

    def called(self) -> list[str]:
        """Plugins whose callback ran (``CALLED`` lines), in order."""
        return [line.split()[1] for line in self._lines("CALLED")]

    def sources(self, marker: str) -> dict[str, str]:
        """Package or plugin -> the plugin source seen at import or in the callback."""
        return {line.split()[1]: line.split()[2] for line in self._lines(marker)}

    def _lines(self, marker: str) -> list[str]:
        return [line for line in self.result.stdout.splitlines() if line.startswith(marker + " ")]


_CHILD = """
import json, logging, sys
warnings = []

class _Capture(logging.Handler):
    def emit(self, record):
        warnings.append(record.getMessage())

_logger = logging.getLogger("sglang.plugins")
_logger.addHandler(_Capture(level=logging.WARNING))
_logger.setLevel(logging.WARNING)
_logger.propagate = False

from sglang.runtime.plugins import runtime_plugins
from sglang.runtime import DIFFUSION, SRT
import {registry} as api

plugins = runtime_plugins({spec})
error = None
try:
{steps}
except Exception as exc:
    error = {{"type": type(exc).__name__, "message": str(exc)}}
{extra}
from tests.hooktargets import basic
out = {{
    "error": error,
    "warnings": warnings,
    "outcomes": [
        {{"name": o.source.name, "dist": o.source.dist_name, "state": o.state.value,
          "required": o.required, "stage": o.stage.value if o.stage else None}}
        for o in plugins.outcomes()
    ],
    "hooks": [
        {{"target": h.target, "type": h.hook_type.name, "status": h.status.value,
          "plugin": h.source.name if h.source else None,
          "dist": h.source.dist_name if h.source else None,
          "version": h.source.dist_version if h.source else None,
          "reason": h.reason}}
        for h in plugins.registry.hooks()
    ],
    "add": basic.add(1, 2),
}}
print("RESULT " + json.dumps(out), flush=True)
"""

STEPS: Mapping[str, str] = {
    "srt": "from sglang.srt.plugins import load_plugins\nload_plugins()",
    "diffusion-load": "api.load_plugins()",
    "diffusion-apply": "api.apply_plugin_hooks()",
    "diffusion": "api.load_plugins()\napi.apply_plugin_hooks()",
}


def run_loader(
    site: Site,
    env: Mapping[str, str] | None = None,
    *,
    runtime: Runtime = "srt",
    steps: str | None = None,
    extra: str = "",
) -> Outcome:
    """Run the plugin loader of *runtime* in a fresh interpreter; parse what it printed."""
    step_code = steps if steps is not None else STEPS[runtime]
    code = _CHILD.format(
        registry=REGISTRY_MODULE[runtime],
        spec="SRT" if runtime == "srt" else "DIFFUSION",
        steps=textwrap.indent(textwrap.dedent(step_code), "    "),
        extra=textwrap.dedent(extra),
    )
    result = run_python(code, path=[site.root, REPO_ROOT], env=env)
    lines = [line for line in result.stdout.splitlines() if line.startswith("RESULT ")]
    if not lines:
        raise AssertionError(f"child printed no RESULT\n{result.stdout}\n{result.stderr}")
    return Outcome(result, json.loads(lines[-1][len("RESULT ") :]))
