"""``sglang serve`` argument normalisation: the documented cases and hypothesis properties."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sglang.cli.serve import ServeError, normalize_argv

CASES = [
    # (input, backend argv, model path, model type)
    (["org/model"], ["--model-path", "org/model"], "org/model", "auto"),
    (
        ["org/model", "--model-type", "my_runtime", "--pipeline-parallel", "2"],
        ["--model-path", "org/model", "--pipeline-parallel", "2"],
        "org/model",
        "my_runtime",
    ),
    (["--model-type=x", "m"], ["--model-path", "m"], "m", "x"),
    (["--model-type", "a", "--model-type=b", "m"], ["--model-path", "m"], "m", "b"),
    (["--tp", "2", "m"], ["--tp", "2", "m"], None, "auto"),
    (["--x", "--model-path", "p", "--y"], ["--x", "--model-path", "p", "--y"], "p", "auto"),
    (["m", "--model-path=p"], ["m", "--model-path=p"], "p", "auto"),
    (
        ["--model-path", "p", "--model-path", "q"],
        ["--model-path", "p", "--model-path", "q"],
        "q",
        "auto",
    ),
    (["--", "--model-type", "x"], ["--", "--model-type", "x"], None, "auto"),
    (
        ["m", "--", "--model-type=x", "--model-path", "z"],
        ["--model-path", "m", "--", "--model-type=x", "--model-path", "z"],
        "m",
        "auto",
    ),
    (["--model-type", "t", "--", "m"], ["--", "m"], None, "t"),
    ([], [], None, "auto"),
    (["--config", "c.yaml"], ["--config", "c.yaml"], None, "auto"),
]


@pytest.mark.parametrize(("argv", "expected", "path", "model_type"), CASES)
def test_documented_cases(
    argv: list[str], expected: list[str], path: str | None, model_type: str
) -> None:
    result = normalize_argv(argv)
    assert list(result.argv) == expected
    assert result.model_path == path
    assert result.model_type == model_type
    assert result.explicit == any(t.startswith("--model-type") for t in argv[: _cut(argv)])


def _cut(argv: list[str]) -> int:
    return argv.index("--") if "--" in argv else len(argv)


@pytest.mark.parametrize(
    ("argv", "help"),
    [(["--help"], True), (["-h", "m"], True), (["m", "--", "--help"], False), (["m"], False)],
)
def test_help_is_seen_only_before_the_separator(argv: list[str], help: bool) -> None:
    assert normalize_argv(argv).help is help


@pytest.mark.parametrize("argv", [["--model-type"], ["--model-type="], ["--model-type", "-x"]])
def test_a_model_type_without_value_is_an_error(argv: list[str]) -> None:
    with pytest.raises(ServeError, match="--model-type needs a backend name"):
        normalize_argv(argv)


# -- properties ---------------------------------------------------------------------------

PLAIN = st.sampled_from(["org/model", "/models/x", "2", "--tp", "-v", "--flag=1", "--config"])
MODEL_PATH = st.sampled_from([["--model-path", "p"], ["--model-path=q"]])
MODEL_TYPE = st.sampled_from(
    [["--model-type", "alpha"], ["--model-type=beta"], ["--model-type", "g"]]
)
CHUNK = st.one_of(PLAIN.map(lambda t: [t]), MODEL_PATH, MODEL_TYPE)
TAIL = st.lists(st.one_of(PLAIN, st.sampled_from(["--model-type", "--model-path", "x", "--"])))


def _flatten(chunks: list[list[str]]) -> list[str]:
    return [token for chunk in chunks for token in chunk]


@given(st.lists(CHUNK, max_size=8), st.one_of(st.none(), TAIL))
def test_backend_argv_is_the_input_minus_model_type_plus_the_model_path(
    chunks: list[list[str]], tail: list[str] | None
) -> None:
    head = _flatten(chunks)
    argv = head + ([] if tail is None else ["--", *tail])
    result = normalize_argv(argv)
    kept = _flatten([c for c in chunks if not c[0].startswith("--model-type")])
    rest = kept + ([] if tail is None else ["--", *tail])
    types = [c[-1].split("=")[-1] for c in chunks if c[0].startswith("--model-type")]
    assert result.model_type == (types[-1] if types else "auto")
    has_path = any(c[0].startswith("--model-path") for c in chunks)
    if not has_path and rest and not rest[0].startswith("-"):
        assert list(result.argv) == ["--model-path", rest[0], *rest[1:]]
        assert result.model_path == rest[0]
    else:
        assert list(result.argv) == rest
    if has_path:
        last = [c for c in chunks if c[0].startswith("--model-path")][-1]
        assert result.model_path == last[-1].split("=")[-1]
    # what follows "--" is passed on untouched
    if tail is not None:
        assert list(result.argv[len(result.argv) - len(tail) - 1 :]) == ["--", *tail]


@given(st.lists(CHUNK, max_size=8), st.one_of(st.none(), TAIL))
def test_normalising_twice_changes_nothing(chunks: list[list[str]], tail: list[str] | None) -> None:
    argv = _flatten(chunks) + ([] if tail is None else ["--", *tail])
    once = normalize_argv(argv)
    twice = normalize_argv(once.argv)
    assert twice.argv == once.argv
    assert twice.model_path == once.model_path
