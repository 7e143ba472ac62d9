"""``import_required``: a missing runtime piece is named, never a bare traceback."""

from __future__ import annotations

import pytest

from sglang.runtime.optional import MissingComponentError, import_required


def test_returns_the_callable() -> None:
    assert import_required("os.path", "join", "a test", "no hint") is __import__("os").path.join


def test_a_missing_third_party_module_gets_the_hint() -> None:
    with pytest.raises(MissingComponentError) as caught:
        import_required("no_such_pkg_xyz.server", "launch", "the x backend", "pip install x")
    message = str(caught.value)
    assert "the x backend needs no_such_pkg_xyz.server.launch" in message
    assert "'no_such_pkg_xyz' is missing; pip install x" in message


def test_a_missing_sglang_module_says_to_reinstall_sglang() -> None:
    with pytest.raises(MissingComponentError, match="reinstall or upgrade sglang"):
        import_required("sglang.no_such_module", "launch", "the y backend", "pip install y")


def test_a_missing_or_uncallable_attribute() -> None:
    with pytest.raises(MissingComponentError, match="has no 'nope'"):
        import_required("os", "nope", "the z backend", "")
    with pytest.raises(MissingComponentError, match="to be callable"):
        import_required("os", "sep", "the z backend", "")
