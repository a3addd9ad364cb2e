"""docs/compatibility.md is what scripts/gen_compatibility.py makes from the package now, and
the generator marks a name present exactly when the mycel module of that path has it."""
import importlib.util
import os
import sys
import types

import pytest

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def _gen():
    spec = importlib.util.spec_from_file_location(
        "gen_compatibility", os.path.join(ROOT, "scripts", "gen_compatibility.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_committed_table_is_current():
    gen = _gen()
    expected = gen.render(gen.check(gen.read_names(gen.NAMES)))
    with open(gen.OUT) as f:
        committed = f.read()
    assert committed == expected, \
        "docs/compatibility.md is stale: run scripts/gen_compatibility.py"


def test_every_listed_name_has_a_row_and_the_totals_add_up():
    gen = _gen()
    groups = gen.read_names(gen.NAMES)
    rows = gen.check(groups)
    modules = [m for m, _ in groups]
    for needed in ("mindspore", "mindspore.ops", "mindspore.nn", "mindspore.dataset",
                   "mindspore.train"):
        assert needed in modules
    text = gen.render(rows)
    n = sum(len(names) for _, names in groups)
    have = sum(p for _, _, names in rows for _, p in names)
    assert "| **total** | | %d | %d |" % (n, have) in text
    for _, names in groups:
        for name in names:
            assert "| `%s` |" % name in text


def test_presence_is_read_from_the_package(tmp_path, monkeypatch):
    # a fake package: pkg has `a`; pkg.sub has `b` but not `c`; pkg.missing does not exist
    pkg = types.ModuleType("fakepkg")
    pkg.__path__ = []
    pkg.a = 1
    sub = types.ModuleType("fakepkg.sub")
    sub.b = 2
    monkeypatch.setitem(sys.modules, "fakepkg", pkg)
    monkeypatch.setitem(sys.modules, "fakepkg.sub", sub)
    names = tmp_path / "names.txt"
    names.write_text("# comment\n[mindspore]\na\nz\n\n[mindspore.sub]\nb\nc\n"
                     "[mindspore.missing]\nd\n")
    gen = _gen()
    rows = gen.check(gen.read_names(str(names)), package="fakepkg")
    assert rows == [("mindspore", "fakepkg", [("a", True), ("z", False)]),
                    ("mindspore.sub", "fakepkg.sub", [("b", True), ("c", False)]),
                    ("mindspore.missing", None, [("d", False)])]
    text = gen.render(rows)
    assert "| **total** | | 5 | 2 | 40% |" in text
    assert "| `mindspore.missing` | (none) | 1 | 0 | 0% |" in text


def test_a_name_before_any_module_is_an_error(tmp_path):
    names = tmp_path / "names.txt"
    names.write_text("orphan\n[mindspore]\nx\n")
    with pytest.raises(ValueError, match="before any"):
        _gen().read_names(str(names))
