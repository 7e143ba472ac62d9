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
        elif name == "SERVE_BACKEND_API_VERSION":
            assert type(value) is int, name
        elif name == "SUPPORTED_SERVE_BACKEND_API_VERSIONS":
            assert type(value) is frozenset, name
        else:
            assert name == "ServeBackendApiVersion", f"undocumented constant {name}"
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


def test_api_versions_agree() -> None:
    literal_versions = set(typing.get_args(constants.ServeBackendApiVersion))
    assert literal_versions == set(constants.SUPPORTED_SERVE_BACKEND_API_VERSIONS)
    assert constants.SERVE_BACKEND_API_VERSION in constants.SUPPORTED_SERVE_BACKEND_API_VERSIONS
    assert all(type(v) is int for v in constants.SUPPORTED_SERVE_BACKEND_API_VERSIONS)


def test_every_constant_is_reexported_by_the_sdk() -> None:
    for name in constants.__all__:
        assert name in sglang.sdk.__all__, name
        assert getattr(sglang.sdk, name) is getattr(constants, name)


def test_constants_module_lists_everything_public() -> None:
    public = {
        name
        for name in vars(constants)
        if (not name.startswith("_") and name.isupper()) or name == "ServeBackendApiVersion"
    }
    assert public == set(constants.__all__)
