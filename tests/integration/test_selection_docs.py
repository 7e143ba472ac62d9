"""The platform guide shows every selection error verbatim; this keeps it true.

``docs/guides/platforms.rst`` holds one ``.. code-block:: text`` with
``:name: error-<id>`` per error. Each scenario below reproduces that error
for real (real dist-info plugins, a fresh interpreter) and every line the
guide shows must occur in the real ``"ExcType: message"`` text (a line
``...`` stands for omitted traceback frames). Every scenario must be
documented and every documented error must have a scenario.

To print the real messages (for updating the guide)::

    python -m tests.integration.test_selection_docs
"""

from __future__ import annotations

import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.integration.test_selection_support import MODULE, Runtime, new_site, plugin
from tests.support.dists import REPO_ROOT, Dist, run_python

GUIDE = REPO_ROOT / "docs" / "guides" / "platforms.rst"

DEMO = {"package": "sglang_demo_platform", "version": "0.1.0"}

SRT_CLASS = """
from sglang.srt.platforms.interface import PlatformEnum, SRTPlatform

class DemoSRTPlatform(SRTPlatform):
    _enum = PlatformEnum.{enum}
{body}
"""

DIFFUSION_CLASS = """
from sglang.multimodal_gen.runtime.platforms import Platform, PlatformEnum

class DemoDiffusionPlatform(Platform):
    _enum = PlatformEnum.OOT
"""


def demo(
    *,
    runtime: Runtime = "srt",
    returns: str | None = "default",
    body: str | None = None,
    enum: str = "OOT",
    class_body: str = "    pass",
    dist_name: str = "sglang-demo-platform",
    name: str = "demo",
) -> Dist:
    """The demo plugin, in a variant that fails in one particular way."""
    if returns == "default":
        returns = repr(
            "sglang_demo_platform.platform:DemoSRTPlatform"
            if runtime == "srt"
            else "sglang_demo_platform.platform:DemoDiffusionPlatform"
        )
    source = SRT_CLASS.format(enum=enum, body=class_body) if runtime == "srt" else DIFFUSION_CLASS
    package = DEMO["package"] if dist_name == "sglang-demo-platform" else None
    version = DEMO["version"] if dist_name == "sglang-demo-platform" else "1.0"
    return plugin(
        dist_name,
        name,
        runtime=runtime,
        returns=returns,
        body=body,
        package=package,
        platform_source=source,
        version=version,
    )


@dataclass
class Scenario:
    """One way to make selection fail."""

    dists: list[Dist]
    env: dict[str, str] = field(default_factory=dict[str, str])
    runtime: Runtime = "srt"
    action: str = "platforms.current_platform"


SCENARIOS: dict[str, Scenario] = {
    "not-found": Scenario([demo()], {"SGLANG_PLATFORM": "kunlun"}),
    "not-found-diffusion-xpu": Scenario(
        [demo(runtime="diffusion")], {"SGLANG_DIFFUSION_PLATFORM_OVERRIDE": "xpu"}, "diffusion"
    ),
    "reserved-name": Scenario([demo(runtime="diffusion", name="cuda")], runtime="diffusion"),
    "empty-identity": Scenario(
        [
            plugin(
                "sglang-demo-platform",
                "demo",
                runtime="diffusion",
                returns="'sglang_demo_platform.platform:DemoDiffusionPlatform'",
                package="sglang_demo_platform",
                platform_source=DIFFUSION_CLASS
                + '    device_name = "demo"\n    device_type = ""\n',
                version="0.1.0",
            )
        ],
        runtime="diffusion",
    ),
    "bad-flag": Scenario([], {"SGLANG_USE_CPU_ENGINE": "maybe"}),
    "hardware-unavailable": Scenario([demo(returns=None)], {"SGLANG_PLATFORM": "demo"}),
    "duplicate-name": Scenario([demo(), demo(dist_name="demo-fork")]),
    "many-activated": Scenario(
        [demo(), demo(dist_name="sglang-kunlun", name="kunlun", returns="'sglang_kunlun:P'")]
    ),
    "callback-raised": Scenario(
        [demo(body="raise RuntimeError('demo driver not loaded')")], {"SGLANG_PLATFORM": "demo"}
    ),
    "callback-import-failed": Scenario(
        [
            Dist(
                "sglang-demo-platform",
                "0.1.0",
                entry_points={"sglang.srt.platforms": {"demo": "sglang_demo_platform:activate"}},
                modules={"sglang_demo_platform/__init__.py": "import demo_runtime\n"},
            )
        ]
    ),
    "not-callable": Scenario(
        [
            Dist(
                "sglang-demo-platform",
                "0.1.0",
                entry_points={"sglang.srt.platforms": {"demo": "sglang_demo_platform:PLATFORM"}},
                modules={"sglang_demo_platform/__init__.py": "PLATFORM = 'x'\n"},
            )
        ]
    ),
    "bad-result": Scenario([demo(returns="42")]),
    "class-import-failed": Scenario(
        [demo(returns="'sglang_demo_platform.missing:DemoSRTPlatform'")]
    ),
    "not-a-class": Scenario([demo(returns="'sglang_demo_platform:activate'")]),
    "not-subclass": Scenario(
        [demo(returns="'sglang_demo_platform.diffusion:DemoDiffusionPlatform'")]
    ),
    "wrong-enum": Scenario([demo(enum="CUDA")]),
    "unsupported-version": Scenario([demo(class_body="    api_version = 2")]),
    "needs-arguments": Scenario(
        [demo(class_body="    def __init__(self, device_id):\n        self.device_id = device_id")]
    ),
    "construction-failed": Scenario(
        [demo(class_body="    def __init__(self):\n        raise OSError('/dev/demo0 not found')")]
    ),
    "reentrant": Scenario(
        [
            demo(
                body=(
                    "from sglang.srt.platforms import current_platform\n"
                    "return 'sglang_demo_platform.platform:DemoSRTPlatform'"
                )
            )
        ]
    ),
    "probe-failed": Scenario(
        [
            Dist(
                "torch",
                "2.13.0",
                modules={
                    "torch/__init__.py": (
                        "raise OSError('libcudart.so.12: cannot open shared object file')\n"
                    )
                },
            )
        ]
    ),
    "init-failed": Scenario(
        [
            demo(
                class_body=(
                    "    def init_backend(self):\n"
                    "        raise RuntimeError('demo firmware missing')"
                )
            )
        ],
        action="platforms.initialize_current_platform()",
    ),
}

# the not-subclass scenario needs a diffusion class next to the SRT one
SCENARIOS["not-subclass"].dists[0].modules = {
    **SCENARIOS["not-subclass"].dists[0].modules,
    "sglang_demo_platform/diffusion.py": DIFFUSION_CLASS,
}


def real_message(name: str, root: Path) -> str:
    """Run scenario *name* in a fresh interpreter; return ``"ExcType: message"``."""
    scenario = SCENARIOS[name]
    site = new_site(root / name, *scenario.dists)
    result = run_python(
        f"""
        import {MODULE[scenario.runtime]} as platforms
        try:
            {scenario.action}
        except Exception as exc:
            print("MESSAGE_BEGIN")
            print(f"{{type(exc).__name__}}: {{exc}}")
        else:
            raise SystemExit("no error")
        """,
        path=[site.root],
        env=scenario.env,
    ).check()
    return result.stdout.partition("MESSAGE_BEGIN\n")[2].rstrip("\n")


def documented_errors() -> dict[str, list[str]]:
    """Map each ``error-<id>`` code block of the guide to its lines (dedented)."""
    text = GUIDE.read_text(encoding="utf-8")
    blocks: dict[str, list[str]] = {}
    pattern = re.compile(
        r"^\.\. code-block:: text\n   :name: error-([\w-]+)\n\n((?:   .*\n|\n)+)", re.MULTILINE
    )
    for match in pattern.finditer(text):
        body = [line[3:] for line in match.group(2).splitlines()]
        blocks[match.group(1)] = [line for line in body if line.strip()]
    return blocks


def test_every_error_is_documented_and_every_documented_error_is_real() -> None:
    assert sorted(documented_errors()) == sorted(SCENARIOS)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_documented_message_is_verbatim(name: str, tmp_path: Path) -> None:
    shown = documented_errors()[name]
    real = real_message(name, tmp_path)
    assert shown, f"error-{name} shows nothing"
    assert real.startswith(shown[0]), f"first line differs:\n{shown[0]}\n{real}"
    for line in shown:
        if line.strip() == "...":
            continue
        assert line in real, f"error-{name}: {line!r} not in the real message:\n{real}"


if __name__ == "__main__":  # pragma: no cover - prints the messages for the guide
    with tempfile.TemporaryDirectory() as tmp:
        for key in sys.argv[1:] or sorted(SCENARIOS):
            print(f"== error-{key}\n{real_message(key, Path(tmp))}\n")


def documented_builtins() -> list[list[str]]:
    """The rows of the guide's ``builtin-platforms`` table (header excluded)."""
    text = GUIDE.read_text(encoding="utf-8")
    start = text.index("   :name: builtin-platforms")
    end = text.index("\n\n", text.index("   * - ", start))  # the rows are contiguous
    rows: list[list[str]] = []
    for line in text[start:end].splitlines():
        if line.startswith("   * - "):
            rows.append([line[7:].strip()])
        elif line.startswith("     - ") and rows:
            rows[-1].append(line[7:].strip())
    return rows[1:]


def test_builtin_table_matches_the_runtime_tables() -> None:
    from sglang.runtime.builtin.families import FAMILIES
    from sglang.runtime.spec import DIFFUSION, SRT

    def class_of(spec_builtins: dict[str, str], key: str) -> str:
        qualname = spec_builtins.get(key)
        return "(none)" if qualname is None else f"``{qualname.rpartition(':')[2]}``"

    srt = {b.key: b.qualname for b in SRT.builtins if b.family is not None}
    diffusion = {b.key: b.qualname for b in DIFFUSION.builtins}
    expected = [
        [
            key,
            class_of(srt, key),
            class_of(diffusion, key),
            family.device_type,
            family.distributed_backend,
            family.dispatch_key,
            family.dispatch_key_name,
        ]
        for key, family in FAMILIES.items()
    ]
    assert documented_builtins() == expected
