"""The docs' offline intersphinx inventories load in Sphinx and point at the upstream pages."""

from __future__ import annotations

import importlib.util
import posixpath
from pathlib import Path
from types import ModuleType

from tests.support.dists import REPO_ROOT


def _module() -> ModuleType:
    path = REPO_ROOT / "docs" / "_ext" / "sglang_inventories.py"
    spec = importlib.util.spec_from_file_location("sglang_inventories", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_inventories_load_and_resolve_to_upstream_pages(tmp_path: Path) -> None:
    from sphinx.util.inventory import InventoryFile

    inventories = _module()
    paths = inventories.write(tmp_path)
    assert set(paths) == set(inventories.INVENTORIES) == {"python", "torch"}
    for name, path in paths.items():
        url = inventories.INVENTORIES[name][2]
        with path.open("rb") as stream:
            loaded = InventoryFile.load(stream, url, posixpath.join)
        items = {entry: item for role in loaded.values() for entry, item in role.items()}
        assert len(items) == len(inventories.TARGETS[name])
        for entry, item in items.items():
            assert item.uri.startswith(url + "/"), item.uri
            assert "$" not in item.uri, item.uri
            assert item.uri.endswith((f"#{entry}", f"#module-{entry}", "#torch.nn.Module")), item
    with paths["torch"].open("rb") as stream:
        torch_page = InventoryFile.load(stream, "https://x", posixpath.join)
    assert torch_page["py:class"]["torch.Tensor"].uri == "https://x/tensors.html#torch.Tensor"


def test_the_mapping_uses_the_written_files(tmp_path: Path) -> None:
    mapping = _module().intersphinx_mapping(tmp_path)
    assert mapping["python"] == ("https://docs.python.org/3", str(tmp_path / "python.inv"))
    assert Path(mapping["torch"][1] or "").is_file()
