"""The suite's fixtures and parametrization (registered only with ``--sglang-conformance``).

* ``sglang_runtime``: parametrized over the runtimes under test; a clause
  that does not apply to one gets a skipped case saying so.
* ``sglang_target``: that runtime's :class:`~sglang.conformance._target.Target`.
* ``sglang_platform``: the selected platform; skips when selection rejected
  the plugin (the activation clauses say why) or when the clause needs a
  capability the platform does not declare.
* ``sglang_serve_backend``: parametrized over the serve backends under test.
"""

from __future__ import annotations

import pytest

from sglang.conformance._clauses import clause_of
from sglang.conformance._stash import suite_of
from sglang.conformance._target import Target

__all__ = [
    "pytest_generate_tests",
    "sglang_platform",
    "sglang_suite",
    "sglang_target",
]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize ``sglang_runtime`` and ``sglang_serve_backend``."""
    suite = suite_of(metafunc.config)
    found = clause_of(metafunc.function)
    if "sglang_runtime" in metafunc.fixturenames:
        applies = found.runtimes if found is not None else suite.runtimes
        params = [
            pytest.param(runtime, id=runtime)
            if runtime in applies
            else pytest.param(
                runtime,
                id=runtime,
                marks=pytest.mark.skip(reason=f"the clause does not apply to {runtime}"),
            )
            for runtime in suite.runtimes
        ]
        metafunc.parametrize("sglang_runtime", params, scope="session")
    if "sglang_serve_backend" in metafunc.fixturenames:
        names = suite.serve_backends
        if names:
            params = [pytest.param(name, id=name) for name in names]
        else:
            reason = (
                "no serve backend under test (--sglang-serve-backend NAME, or --sglang-runtime all)"
            )
            params = [pytest.param("", id="none", marks=pytest.mark.skip(reason=reason))]
        metafunc.parametrize("sglang_serve_backend", params, scope="session")


@pytest.fixture(scope="session")
def sglang_suite(request: pytest.FixtureRequest) -> object:
    """The run's :class:`~sglang.conformance._session.Suite`."""
    return suite_of(request.config)


@pytest.fixture
def sglang_target(request: pytest.FixtureRequest, sglang_runtime: str) -> Target:
    """The target of the runtime under test."""
    target: Target = suite_of(request.config).targets[sglang_runtime]
    return target


@pytest.fixture
def sglang_platform(request: pytest.FixtureRequest, sglang_target: Target) -> object:
    """The selected platform, or a skip saying why the clause cannot run on it."""
    if sglang_target.platform is None:
        pytest.skip(f"platform selection rejected the plugin: {sglang_target.error}")
    found = clause_of(getattr(request.node, "function", None))
    capability = found.capability if found is not None else None
    if capability is not None and capability not in sglang_target.capabilities:
        pytest.skip(
            f"the platform does not declare the {capability.value} capability "
            f"(see sglang.sdk.capabilities)"
        )
    return sglang_target.platform
