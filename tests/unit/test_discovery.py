"""The entry-point index: one scan, real dist-info folders, importlib parity."""

from __future__ import annotations

import importlib
import importlib.metadata
import subprocess
import sys
import threading
import zipfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest

from sglang.runtime import discovery
from sglang.runtime.discovery import EntryPointIndex, EntryPointRecord
from sglang.sdk.constants import (
    ALL_ENTRY_POINT_GROUPS,
    SERVE_BACKENDS_GROUP,
    SRT_PLATFORMS_GROUP,
    SRT_PLUGINS_GROUP,
)
from tests.support.dists import REPO_ROOT, Dist, Site, run_python
from tests.support.isolation import clean_environment

GROUP = "tests.discovery"  # a group no real distribution declares

View = set[tuple[str, str, str, str]]


def ours(group: str) -> View:
    """(name, value, dist name, dist version) of *group* from our index."""
    return {
        (r.name, r.value, r.dist_name, r.dist_version)
        for r in discovery.entry_point_index().group(group)
    }


def theirs(group: str) -> View:
    """The same view through importlib.metadata, caches cleared first."""
    importlib.invalidate_caches()
    importlib.metadata.MetadataPathFinder().invalidate_caches()
    return {
        (ep.name, ep.value, ep.dist.name, ep.dist.version)
        for ep in importlib.metadata.entry_points(group=group)
        if ep.dist is not None
    }


def write_info(
    root: Path,
    folder: str,
    *,
    metadata: str | None = None,
    entry_points: str | None = None,
    metadata_file: str = "METADATA",
) -> Path:
    """Write a metadata folder by hand, for layouts that :class:`Site` does not make."""
    info = root / folder
    info.mkdir(parents=True)
    if metadata is not None:
        (info / metadata_file).write_text(metadata, encoding="utf-8")
    if entry_points is not None:
        (info / "entry_points.txt").write_text(entry_points, encoding="utf-8")
    return info


@pytest.fixture
def extra_path(tmp_path: Path) -> Iterator[Callable[[Path], None]]:
    """Append folders to ``sys.path`` for one test; refresh the index on both sides."""
    added: list[str] = []

    def add(folder: Path) -> None:
        added.append(str(folder))
        sys.path.append(str(folder))
        discovery.refresh()

    yield add
    for entry in added:
        sys.path.remove(entry)
    discovery.refresh()


class CountingScan:
    """Wraps :func:`discovery.scan` and counts its calls (the real scan still runs)."""

    def __init__(self) -> None:
        self.calls = 0
        self._lock = threading.Lock()
        self._real = discovery.scan

    def __call__(self, path: Iterable[str]) -> EntryPointIndex:
        with self._lock:
            self.calls += 1
        return self._real(path)


# -- records -------------------------------------------------------------------


def test_record_carries_group_name_value_and_distribution(site: Site) -> None:
    site.install(
        Dist(
            "sglang-demo-plugin",
            "1.0.post1+local",
            entry_points={SRT_PLATFORMS_GROUP: {"demo": "demo_pkg.platform:activate"}},
        )
    )
    (record,) = discovery.refresh().group(SRT_PLATFORMS_GROUP)
    assert record == EntryPointRecord(
        group=SRT_PLATFORMS_GROUP,
        name="demo",
        value="demo_pkg.platform:activate",
        dist_name="sglang-demo-plugin",  # as METADATA spells it, not the folder
        dist_version="1.0.post1+local",
    )
    assert record.module == "demo_pkg.platform"
    assert record.attr == "activate"
    assert record.dist == "sglang-demo-plugin 1.0.post1+local"


def test_every_group_of_one_distribution_is_indexed(site: Site) -> None:
    site.install(
        Dist(
            "all-groups",
            entry_points={group: {"x": "all_groups:x"} for group in ALL_ENTRY_POINT_GROUPS},
        )
    )
    index = discovery.refresh()
    for group in ALL_ENTRY_POINT_GROUPS:
        assert [(r.group, r.name, r.dist_name) for r in index.group(group)] == [
            (group, "x", "all-groups")
        ]
        assert group in index.groups()
    assert index.group("no.such.group") == ()


def test_scan_imports_no_plugin_module(tmp_path: Path) -> None:
    site = Site(tmp_path / "site")
    site.install(
        Dist(
            "exploding-plugin",
            entry_points={
                group: {"boom": "exploding_plugin:activate"} for group in ALL_ENTRY_POINT_GROUPS
            },
            modules={"exploding_plugin/__init__.py": "raise RuntimeError('imported!')\n"},
        )
    )
    result = run_python(
        """
        import sys
        metadata_preloaded = "importlib.metadata" in sys.modules  # by a .pth file, say
        from sglang.runtime import discovery
        from sglang.sdk.constants import ALL_ENTRY_POINT_GROUPS

        index = discovery.entry_point_index()
        for group in ALL_ENTRY_POINT_GROUPS:
            (record,) = index.named(group, "boom")
            assert record.dist_name == "exploding-plugin", record
        assert list(index)  # iterating every record imports nothing either
        assert "exploding_plugin" not in sys.modules
        assert "torch" not in sys.modules
        # without zip files on sys.path the scan never imports importlib.metadata
        import os
        archives = [entry for entry in sys.path if os.path.isfile(entry)]
        assert metadata_preloaded or archives or "importlib.metadata" not in sys.modules
        print("ok")
        """,
        path=[site.root],
    ).check()
    assert result.stdout.strip() == "ok"


# -- one scan per process --------------------------------------------------------


def test_one_scan_serves_every_group(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    site.install(Dist("one-scan", entry_points={SRT_PLUGINS_GROUP: {"p": "one_scan:register"}}))
    counting = CountingScan()
    monkeypatch.setattr(discovery, "scan", counting)
    first = discovery.refresh()
    for group in ALL_ENTRY_POINT_GROUPS:
        assert discovery.entry_point_index() is first
        first.group(group)
    assert counting.calls == 1
    assert [r.name for r in first.group(SRT_PLUGINS_GROUP)] == ["p"]
    assert first.group(SRT_PLUGINS_GROUP) is first.group(SRT_PLUGINS_GROUP)


def test_sys_path_change_triggers_a_rescan(tmp_path: Path, site: Site) -> None:
    before = discovery.entry_point_index()
    assert discovery.entry_point_index() is before
    late = Site(tmp_path / "late")
    late.install(Dist("late-plugin", entry_points={GROUP: {"late": "late_plugin:x"}}))
    sys.path.append(str(late.root))
    try:
        after = discovery.entry_point_index()
        assert after is not before
        assert [r.dist_name for r in after.named(GROUP, "late")] == ["late-plugin"]
    finally:
        sys.path.remove(str(late.root))
    assert discovery.entry_point_index().named(GROUP, "late") == ()


def test_install_in_process_needs_refresh(site: Site) -> None:
    before = discovery.entry_point_index()
    site.install(Dist("installed-late", entry_points={GROUP: {"x": "installed_late:x"}}))
    assert discovery.entry_point_index() is before  # sys.path did not change
    assert discovery.entry_point_index().group(GROUP) == ()
    refreshed = discovery.refresh()
    assert refreshed is not before
    assert [r.dist_name for r in refreshed.group(GROUP)] == ["installed-late"]


def test_concurrent_first_calls_scan_once(
    site: Site, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    site.install(Dist("threaded", entry_points={GROUP: {"t": "threaded:x"}}))
    counting = CountingScan()
    monkeypatch.setattr(discovery, "scan", counting)
    fresh = tmp_path / "fresh"  # a new sys.path entry makes the cached index stale
    fresh.mkdir()
    barrier = threading.Barrier(16)
    seen: list[EntryPointIndex] = []
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            barrier.wait()
            seen.append(discovery.entry_point_index())
        except BaseException as exc:  # reported below
            errors.append(exc)

    sys.path.append(str(fresh))
    try:
        threads = [threading.Thread(target=worker) for _ in range(16)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.path.remove(str(fresh))
    assert errors == []
    assert len(seen) == 16
    assert len({id(index) for index in seen}) == 1
    assert counting.calls == 1
    assert [r.name for r in seen[0].group(GROUP)] == ["t"]


# -- duplicates and shadowing ------------------------------------------------------


def test_first_distribution_on_sys_path_shadows_later_copies(
    tmp_path: Path, site: Site, extra_path: Callable[[Path], None]
) -> None:
    site.install(Dist("shadowed", "2.0", entry_points={GROUP: {"new": "shadowed:new"}}))
    old = Site(tmp_path / "old")
    old.install(Dist("Shadowed", "1.0", entry_points={GROUP: {"old": "shadowed:old"}}))
    extra_path(old.root)
    assert ours(GROUP) == theirs(GROUP) == {("new", "shadowed:new", "shadowed", "2.0")}


def test_same_name_from_two_distributions_is_kept_twice(site: Site) -> None:
    site.install(Dist("vendor-a", entry_points={SRT_PLATFORMS_GROUP: {"npu": "vendor_a:go"}}))
    site.install(Dist("vendor-b", entry_points={SRT_PLATFORMS_GROUP: {"npu": "vendor_b:go"}}))
    index = discovery.refresh()
    named = index.named(SRT_PLATFORMS_GROUP, "npu")
    assert sorted(r.dist_name for r in named) == ["vendor-a", "vendor-b"]
    assert ours(SRT_PLATFORMS_GROUP) == theirs(SRT_PLATFORMS_GROUP)


def test_the_same_name_in_two_groups_is_two_records(site: Site) -> None:
    site.install(
        Dist(
            "two-groups",
            entry_points={SRT_PLUGINS_GROUP: {"obs": "m:a"}, SERVE_BACKENDS_GROUP: {"obs": "m:b"}},
        )
    )
    index = discovery.refresh()
    assert [r.value for r in index.named(SRT_PLUGINS_GROUP, "obs")] == ["m:a"]
    assert [r.value for r in index.named(SERVE_BACKENDS_GROUP, "obs")] == ["m:b"]


# -- metadata layouts, compared with importlib.metadata ------------------------------


def test_names_and_versions_come_from_metadata(site: Site) -> None:
    root = site.root
    # folder name escaped and lower-cased, Name spelled differently
    write_info(
        root,
        "zope_interface_ext-5.0.post1+local.dist-info",
        metadata="Metadata-Version: 2.1\nName: Zope.Interface-Ext\nVersion: 5.0.post1+local\n",
        entry_points=f"[{GROUP}]\nzope = zope_ext:hook\n",
    )
    # egg-info folder without a version in its name (develop installs)
    write_info(
        root,
        "legacy_pkg.egg-info",
        metadata="Metadata-Version: 1.1\nName: legacy-pkg\nVersion: 0.9\n",
        metadata_file="PKG-INFO",
        entry_points=f"[{GROUP}]\nlegacy = legacy_pkg:hook\n",
    )
    # egg-info folder whose version part carries the Python tag
    write_info(
        root,
        "tagged-1.2-py3.11.egg-info",
        metadata="Metadata-Version: 1.1\nName: tagged\nVersion: 1.2\n",
        metadata_file="PKG-INFO",
        entry_points=f"[{GROUP}]\ntagged = tagged:hook\n",
    )
    # the headers are case-insensitive and the body is never parsed
    write_info(
        root,
        "bodied-3.0.dist-info",
        metadata="metadata-version: 2.1\nname: bodied\nversion: 3.0\n\nName: not-me\n",
        entry_points=f"[{GROUP}]\nbodied = bodied:hook\n",
    )
    discovery.refresh()
    expected = {
        ("zope", "zope_ext:hook", "Zope.Interface-Ext", "5.0.post1+local"),
        ("legacy", "legacy_pkg:hook", "legacy-pkg", "0.9"),
        ("tagged", "tagged:hook", "tagged", "1.2"),
        ("bodied", "bodied:hook", "bodied", "3.0"),
    }
    assert ours(GROUP) == expected
    assert theirs(GROUP) == expected


def test_missing_metadata_falls_back_to_the_folder_name(site: Site) -> None:
    write_info(site.root, "nameless-2.0.dist-info", entry_points=f"[{GROUP}]\nn = nameless:x\n")
    write_info(
        site.root,
        "versionless.egg-info",
        metadata="Name: versionless\n",
        metadata_file="PKG-INFO",
        entry_points=f"[{GROUP}]\nv = versionless:x\n",
    )
    discovery.refresh()
    # importlib.metadata reports None here; we keep something printable
    assert ours(GROUP) == {
        ("n", "nameless:x", "nameless", "2.0"),
        ("v", "versionless:x", "versionless", "unknown"),
    }


def test_entry_points_txt_comments_extras_and_blank_lines(site: Site) -> None:
    write_info(
        site.root,
        "extras-1.0.dist-info",
        metadata="Name: extras\nVersion: 1.0\n",
        entry_points=(
            "# a comment before any section\n"
            f"\n[{GROUP}]\n"
            "# a comment\n"
            "  spaced   =   extras.mod : attr  \n"
            "with_extra = extras.mod:attr [cuda, rocm]\n"
            "module_only = extras.mod\n"
            "\n[other.group]\nother = extras:other\n"
        ),
    )
    discovery.refresh()
    assert ours(GROUP) == theirs(GROUP)
    index = discovery.entry_point_index()
    (extra,) = index.named(GROUP, "with_extra")
    assert (extra.value, extra.module, extra.attr) == (
        "extras.mod:attr [cuda, rocm]",
        "extras.mod",
        "attr",
    )
    (spaced,) = index.named(GROUP, "spaced")
    assert (spaced.module, spaced.attr) == ("extras.mod", "attr")
    assert [r.value for r in index.group("other.group")] == ["extras:other"]


def test_malformed_lines_are_skipped(site: Site) -> None:
    write_info(
        site.root,
        "sloppy-1.0.dist-info",
        metadata="Name: sloppy\nVersion: 1.0\n",
        entry_points=(
            f"orphan = before:section\n[{GROUP}]\n; ini comment\nno equals sign\nok = s:x\n"
        ),
    )
    discovery.refresh()
    assert ours(GROUP) == {("ok", "s:x", "sloppy", "1.0")}


def test_zip_and_unpacked_egg_on_sys_path(
    tmp_path: Path, site: Site, extra_path: Callable[[Path], None]
) -> None:
    archive = tmp_path / "bundle.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("zipped-1.0.dist-info/METADATA", "Name: zipped\nVersion: 1.0\n")
        bundle.writestr("zipped-1.0.dist-info/entry_points.txt", f"[{GROUP}]\nz = zipped:x\n")
    egg = tmp_path / "unpacked-4.0-py3.11.egg"
    write_info(
        egg,
        "EGG-INFO",
        metadata="Name: unpacked\nVersion: 4.0\n",
        metadata_file="PKG-INFO",
        entry_points=f"[{GROUP}]\nu = unpacked:x\n",
    )
    extra_path(archive)
    extra_path(egg)
    expected = {("z", "zipped:x", "zipped", "1.0"), ("u", "unpacked:x", "unpacked", "4.0")}
    assert ours(GROUP) == expected
    assert theirs(GROUP) == expected


def test_empty_entry_means_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extra_path: Callable[[Path], None]
) -> None:
    here = Site(tmp_path / "here")
    here.install(Dist("in-cwd", entry_points={GROUP: {"cwd": "in_cwd:x"}}))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    missing = tmp_path / "does-not-exist"
    monkeypatch.chdir(here.root)
    monkeypatch.setattr(sys, "path", ["", str(missing), *sys.path])
    assert [r.dist_name for r in discovery.entry_point_index().group(GROUP)] == ["in-cwd"]
    monkeypatch.chdir(elsewhere)  # same sys.path, different meaning of ''
    assert discovery.entry_point_index().group(GROUP) == ()


def test_odd_sys_path_entries_do_not_break_the_scan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    as_path = Site(tmp_path / "as-path")
    as_path.install(Dist("path-object", entry_points={GROUP: {"p": "path_object:x"}}))
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()  # the working directory no longer exists
    monkeypatch.setattr(sys, "path", ["", as_path.root, *sys.path])  # a Path, not a str
    assert [r.dist_name for r in discovery.entry_point_index().group(GROUP)] == ["path-object"]


def test_undecodable_metadata_is_replaced_not_raised(site: Site) -> None:
    info = write_info(site.root, "latin-1.0.dist-info")
    (info / "METADATA").write_bytes(b"Name: latin\nVersion: 1.0\nSummary: caf\xe9\n")
    (info / "entry_points.txt").write_bytes(f"[{GROUP}]\nl = latin:x # caf\xe9\n".encode("latin-1"))
    discovery.refresh()
    (record,) = discovery.entry_point_index().group(GROUP)
    assert (record.dist_name, record.dist_version, record.module) == ("latin", "1.0", "latin")


def test_matches_importlib_metadata_for_the_real_environment() -> None:
    """Every group installed here gives the same (name, value, dist, version) set."""
    discovery.refresh()
    groups = importlib.metadata.entry_points().groups
    assert groups, "the test environment has entry points (console_scripts, pytest11, ...)"
    assert set(discovery.entry_point_index().groups()) == set(groups)
    for group in groups:
        assert ours(group) == theirs(group), group


# -- load() -------------------------------------------------------------------------


def test_load_module_attribute_and_dotted_path(site: Site) -> None:
    site.install(
        Dist(
            "loadable",
            entry_points={
                GROUP: {
                    "attr": "loadable_pkg.mod:activate",
                    "dotted": "loadable_pkg.mod:Outer.inner",
                    "module": "loadable_pkg.mod",
                    "extra": "loadable_pkg.mod:activate [gpu]",
                }
            },
            modules={
                "loadable_pkg/__init__.py": "",
                "loadable_pkg/mod.py": """
                    def activate():
                        return "loadable_pkg.mod.Platform"

                    class Outer:
                        @staticmethod
                        def inner():
                            return "inner"
                """,
            },
        )
    )
    index = discovery.refresh()

    def load(name: str) -> object:
        (record,) = index.named(GROUP, name)
        return record.load()

    loaded = load("module")
    module = sys.modules["loadable_pkg.mod"]
    assert loaded is module
    assert load("attr") is module.activate
    assert load("extra") is module.activate
    assert load("dotted") is module.Outer.inner


def test_load_propagates_import_and_attribute_errors(site: Site) -> None:
    site.install(
        Dist(
            "broken-load",
            entry_points={GROUP: {"gone": "no_such_module:x", "typo": "broken_load:nope"}},
            modules={"broken_load/__init__.py": "present = 1\n"},
        )
    )
    index = discovery.refresh()
    with pytest.raises(ModuleNotFoundError, match="no_such_module"):
        index.named(GROUP, "gone")[0].load()
    with pytest.raises(AttributeError, match="nope"):
        index.named(GROUP, "typo")[0].load()


def test_index_built_from_records() -> None:
    records = [
        EntryPointRecord("g1", "a", "m:a", "d", "1"),
        EntryPointRecord("g2", "b", "m:b", "d", "1"),
        EntryPointRecord("g1", "a", "n:a", "e", "2"),
    ]
    index = EntryPointIndex(records)
    assert index.groups() == ("g1", "g2")
    assert len(index) == 3
    assert list(index) == [records[0], records[2], records[1]]
    assert index.named("g1", "a") == (records[0], records[2])
    assert "3 entry points in 2 groups" in repr(index)


# -- the benchmark keeps running ----------------------------------------------------------


def test_benchmark_quick_mode_runs() -> None:
    """Smoke-runs the benchmark; its timings are printed, never asserted."""
    proc = subprocess.run(
        [
            str(clean_environment().python),
            str(REPO_ROOT / "benchmarks" / "bench_discovery.py"),
            "--quick",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "baseline ms" in proc.stdout
    assert "target:" in proc.stdout
