"""``sglang.sdk.constants``: every group, env var and API version, once."""

from __future__ import annotations

import typing

import pytest

import sglang.sdk
from sglang.sdk import constants

GROUPS = {
    "SRT_PLATFORMS_GROUP": "sglang.srt.platforms",
    "SRT_PLUGINS_GROUP": "sglang.srt.plugins",
    "DIFFUSION_PLATFORMS_GROUP": "sglang.multimodal_gen.platforms",
    "DIFFUSION_PLUGINS_GROUP": "sglang.multimodal_gen.plugins",
    "SERVE_BACKENDS_GROUP": "sglang.serve_backends",
}
# Each versioned contract: (current constant, supported set, literal type).
API_VERSIONS = {
    "serve backends": (
        "SERVE_BACKEND_API_VERSION",
        "SUPPORTED_SERVE_BACKEND_API_VERSIONS",
        "ServeBackendApiVersion",
    ),
    "SRT platforms": (
        "SRT_PLATFORM_API_VERSION",
        "SUPPORTED_SRT_PLATFORM_API_VERSIONS",
        "SRTPlatformApiVersion",
    ),
    "diffusion platforms": (
        "DIFFUSION_PLATFORM_API_VERSION",
        "SUPPORTED_DIFFUSION_PLATFORM_API_VERSIONS",
        "DiffusionPlatformApiVersion",
    ),
    "hook signatures": (None, "SUPPORTED_HOOK_API_VERSIONS", "HookApiVersion"),
}
CURRENT = {names[0] for names in API_VERSIONS.values()} - {None}
SUPPORTED = {names[1] for names in API_VERSIONS.values()}
LITERALS = {names[2] for names in API_VERSIONS.values()}
ENV_VARS = {
    "ENV_PLATFORM": "SGLANG_PLATFORM",
    "ENV_DIFFUSION_PLATFORM_OVERRIDE": "SGLANG_DIFFUSION_PLATFORM_OVERRIDE",
    "ENV_PLUGINS": "SGLANG_PLUGINS",
    "ENV_USE_CPU_ENGINE": "SGLANG_USE_CPU_ENGINE",
    "ENV_CHECK_KV_ACCOUNTING": "SGLANG_CHECK_KV_ACCOUNTING",
}


@pytest.mark.parametrize(("name", "value"), sorted({**GROUPS, **ENV_VARS}.items()))
def test_documented_values(name: str, value: str) -> None:
    assert getattr(constants, name) == value


def test_every_constant_has_a_documented_type() -> None:
    for name in constants.__all__:
        value = getattr(constants, name)
        if name in GROUPS or name in ENV_VARS:
            assert type(value) is str, name
        elif name == "ALL_ENTRY_POINT_GROUPS":
            assert type(value) is tuple, name
        elif name in CURRENT:
            assert type(value) is int, name
        elif name in SUPPORTED:
            assert type(value) is frozenset, name
        else:
            assert name in LITERALS, f"undocumented constant {name}"
            assert typing.get_origin(value) is typing.Literal


def test_all_entry_point_groups_is_every_group_once() -> None:
    groups = constants.ALL_ENTRY_POINT_GROUPS
    assert len(set(groups)) == len(groups)
    assert set(groups) == set(GROUPS.values())
    assert all(isinstance(group, str) for group in groups)


def test_env_var_names_are_unique_and_prefixed() -> None:
    values = [getattr(constants, name) for name in ENV_VARS]
    assert len(set(values)) == len(values)
    assert all(value.startswith("SGLANG_") for value in values)


@pytest.mark.parametrize("contract", sorted(API_VERSIONS))
def test_api_versions_agree(contract: str) -> None:
    current_name, supported_name, literal_name = API_VERSIONS[contract]
    supported = getattr(constants, supported_name)
    assert set(typing.get_args(getattr(constants, literal_name))) == set(supported)
    assert all(type(v) is int for v in supported)
    if current_name is not None:
        assert getattr(constants, current_name) in supported


def test_hook_versions_are_those_of_the_documented_targets() -> None:
    from sglang.sdk.targets import HOOK_TARGETS

    accepted = {v for target in HOOK_TARGETS.values() for v in target.versions.supported}
    assert accepted == set(constants.SUPPORTED_HOOK_API_VERSIONS)


def test_every_constant_is_reexported_by_the_sdk() -> None:
    for name in constants.__all__:
        assert name in sglang.sdk.__all__, name
        assert getattr(sglang.sdk, name) is getattr(constants, name)


def test_constants_module_lists_everything_public() -> None:
    public = {
        name
        for name in vars(constants)
        if (not name.startswith("_") and name.isupper()) or name in LITERALS
    }
    assert public == set(constants.__all__)
