"""Contract [CON]: overrides keep the base's signatures; identity is consistent; no extras."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator

from sglang.conformance._clauses import clause
from sglang.conformance._signatures import override_problems, return_problem
from sglang.conformance._target import Target

__all__ = ["TestContract", "contract_names", "overrides"]

_IDENTITY = ("cuda", "rocm", "npu", "cpu", "xpu", "musa", "mps")


def contract_names(base: type) -> list[str]:
    """The public names of the runtime's base class: the contract.

    Names the base only annotates count too: ``api_version``, which each
    platform class declares itself.
    """
    annotated = {name for klass in base.__mro__ for name in vars(klass).get("__annotations__", {})}
    return sorted(name for name in set(dir(base)) | annotated if not name.startswith("_"))


def _unwrap(member: object) -> object:
    return member.__func__ if isinstance(member, classmethod | staticmethod) else member


def overrides(
    cls: type, base: type
) -> Iterator[tuple[str, Callable[..., object], Callable[..., object]]]:
    """``(name, base method, override)`` for every contract method *cls* redefines."""
    for name in contract_names(base):
        theirs = inspect.getattr_static(base, name, None)
        mine = inspect.getattr_static(cls, name, None)
        if mine is theirs:  # an annotated-only name (api_version) is no method either
            continue
        theirs, mine = _unwrap(theirs), _unwrap(mine)
        if inspect.isfunction(theirs) and callable(mine):
            yield name, theirs, mine


def _where(cls: type, name: str) -> str:
    for owner in cls.__mro__:
        if name in vars(owner):
            return f"{owner.__module__}.{owner.__qualname__}.{name}"
    return name


def _problems(
    target: Target,
    platform: object,
    check: Callable[[Callable[..., object], Callable[..., object]], list[str]],
) -> list[str]:
    """*check*'s findings for every override, each prefixed with where it is defined."""
    cls = type(platform)
    return [
        f"{_where(cls, name)} {problem}"
        for name, theirs, mine in overrides(cls, target.spec.platform_base)
        for problem in check(theirs, mine)
    ]


class TestContract:
    """The platform class against its runtime's base class."""

    @clause("CON-01")
    def test_overrides_keep_parameters(
        self, sglang_target: Target, sglang_platform: object
    ) -> None:
        """No base parameter dropped or made required, no new required parameter."""
        problems = _problems(sglang_target, sglang_platform, override_problems)
        assert not problems, "signature drift from the sdk base class:\n" + "\n".join(problems)

    @clause("CON-02")
    def test_overrides_keep_return_types(
        self, sglang_target: Target, sglang_platform: object
    ) -> None:
        """A return annotation that resolves at run time is the base's type or a subtype."""

        def returns(theirs: Callable[..., object], mine: Callable[..., object]) -> list[str]:
            problem = return_problem(theirs, mine)
            return [] if problem is None else [problem]

        problems = _problems(sglang_target, sglang_platform, returns)
        assert not problems, "return types incompatible with the sdk base:\n" + "\n".join(problems)

    @clause("CON-03")
    def test_identity_is_consistent(self, sglang_target: Target, sglang_platform: object) -> None:
        """Each ``is_*`` query agrees with ``_enum``; ``device_type`` and ``device_name`` set."""
        enum = getattr(sglang_platform, "_enum")  # noqa: B009
        wrong = [
            f"is_{name}() is {answer} but _enum is {enum.name}"
            for name in _IDENTITY
            if (answer := getattr(sglang_platform, f"is_{name}")())
            is not (enum.name == name.upper())
        ]
        if sglang_platform.is_out_of_tree() is not (enum is sglang_target.spec.oot_enum):  # type: ignore[attr-defined]
            wrong.append(f"is_out_of_tree() disagrees with _enum {enum.name}")
        alike = enum.name in ("CUDA", "ROCM", "MUSA")
        if sglang_platform.is_cuda_alike() is not alike:  # type: ignore[attr-defined]
            wrong.append(f"is_cuda_alike() disagrees with _enum {enum.name}")
        for attribute in ("device_type", "device_name"):
            value = getattr(sglang_platform, attribute, None)
            if not isinstance(value, str) or not value.strip():
                wrong.append(f"{attribute} is {value!r}, not a non-empty str")
        assert not wrong, "identity queries are inconsistent:\n" + "\n".join(wrong)

    @clause("CON-04")
    def test_no_public_names_outside_the_contract(
        self, sglang_target: Target, sglang_platform: object
    ) -> None:
        """Public names the vendor's classes define are contract names (helpers start ``_``)."""
        base = sglang_target.spec.platform_base
        allowed = set(contract_names(base))
        extra = sorted(
            f"{owner.__module__}.{owner.__qualname__}.{name}"
            for owner in type(sglang_platform).__mro__
            if not owner.__module__.startswith("sglang.") and owner is not object
            for name in vars(owner)
            if not name.startswith("_") and name not in allowed
        )
        assert not extra, (
            "public names outside the platform contract (rename vendor helpers with a leading "
            "underscore):\n" + "\n".join(extra)
        )
