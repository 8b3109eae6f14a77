"""Discovery: sorted relative paths, .gitignore and include/exclude honoured, tool folders
skipped, links never followed, native sources listed apart; safe reading and decoding."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from migrate_lens.config import Config
from migrate_lens.discover import decode_source, discover, module_name, imported_package, package_name, read_bytes, vendored_roots


def _tree(root: Path, files: list[str]) -> None:
    for rel in files:
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("x = 1\n", encoding="utf-8")


def test_sorted_files_gitignore_and_excluded_dirs(tmp_path: Path) -> None:
    _tree(tmp_path, ["b.py", "a/z.py", "a/b.py", "nb.ipynb", "ops/k.cu", "ops/k.cpp", "README.md",
                     ".venv/x.py", "venv/y.py", "__pycache__/c.py", ".hidden/d.py", "node_modules/e.py",
                     "build/gen.py", "a/skip_me.py", "sub/.gitignore"])
    (tmp_path / ".gitignore").write_text("build/\n*skip_me.py\n", encoding="utf-8")
    (tmp_path / "sub" / "keep.py").write_text("", encoding="utf-8")
    (tmp_path / "sub" / "local.py").write_text("", encoding="utf-8")
    (tmp_path / "sub" / ".gitignore").write_text("local.py\n", encoding="utf-8")
    d = discover(tmp_path, Config())
    assert d.files == ("a/b.py", "a/z.py", "b.py", "nb.ipynb", "sub/keep.py")
    assert d.native_sources == ("ops/k.cpp", "ops/k.cu")
    assert d.skipped == ()


def test_vendored_native_sources_listed_apart(tmp_path: Path) -> None:
    """Native sources of a vendored library (gsplat ships glm and its tests under
    csrc/third_party/) are not the project's kernels; Python files there are still scanned."""
    _tree(tmp_path, ["ops/csrc/rasterize.cu", "ops/csrc/third_party/glm/test/core/a.cpp",
                     "ops/csrc/third_party/glm/test/core/b.cpp", "ops/csrc/third_party/glm/glm/detail/c.cpp",
                     "vendor/cub/scan.cuh", "third_party/tool.py", "ops/external.cu"])
    d = discover(tmp_path, Config())
    assert d.native_sources == ("ops/csrc/rasterize.cu", "ops/external.cu")
    assert d.vendored_native == ("ops/csrc/third_party/glm/glm/detail/c.cpp", "ops/csrc/third_party/glm/test/core/a.cpp",
                                 "ops/csrc/third_party/glm/test/core/b.cpp", "vendor/cub/scan.cuh")
    assert d.files == ("third_party/tool.py",)
    assert vendored_roots(d.vendored_native) == [("ops/csrc/third_party/glm", 3), ("vendor/cub", 1)]


def test_vendored_native_sources_warned_not_priced(tmp_path: Path) -> None:
    from migrate_lens.pipeline import scan

    _tree(tmp_path, ["m.py", "csrc/k.cu", "csrc/third_party/glm/a.cpp"])
    result = scan(tmp_path, Config(), jobs=1, use_cache=False)
    assert {f.path for f in result.files if f.path.endswith((".cu", ".cpp"))} == {"csrc/k.cu"}
    assert any(w.startswith("csrc/third_party/glm: 1 native source file(s) of a vendored library") for w in result.warnings)


def test_include_exclude(tmp_path: Path) -> None:
    _tree(tmp_path, ["src/a.py", "src/tests/t.py", "tools/x.py"])
    d = discover(tmp_path, Config(include=("src/",), exclude=("tests/",)))
    assert d.files == ("src/a.py",)


def test_links_are_reported_not_followed(tmp_path: Path) -> None:
    _tree(tmp_path, ["real/a.py"])
    outside = tmp_path.parent / (tmp_path.name + "_outside")
    _tree(outside, ["o.py"])
    os.symlink("real/a.py", tmp_path / "alias.py")
    os.symlink(outside / "o.py", tmp_path / "out.py")
    os.symlink("self.py", tmp_path / "self.py")
    os.symlink("nowhere.py", tmp_path / "dangling.py")
    os.symlink("real", tmp_path / "realdir")
    d = discover(tmp_path, Config())
    assert d.files == ("real/a.py",)
    assert {s.path: s.reason for s in d.skipped} == {
        "alias.py": "symbolic link (-> real/a.py); its target is scanned at its own path",
        "dangling.py": "broken symbolic link (-> nowhere.py)",
        "out.py": f"symbolic link pointing outside the scanned root (-> {outside / 'o.py'}), not followed",
        "realdir": "symbolic link (-> real); directory not followed; its target is scanned at its own path",
        "self.py": "symbolic link loop (-> self.py)",
    }


def test_single_file_root(tmp_path: Path) -> None:
    _tree(tmp_path, ["m.py", "r.txt"])
    assert discover(tmp_path / "m.py", Config()).files == ("m.py",)
    assert [s.reason for s in discover(tmp_path / "r.txt", Config()).skipped] == ["not a Python file"]
    with pytest.raises(FileNotFoundError):
        discover(tmp_path / "missing", Config())


def test_read_bytes_reasons(tmp_path: Path) -> None:
    (tmp_path / "big.py").write_bytes(b"#" * 101)
    assert read_bytes(tmp_path / "big.py", 100) == (None, "file too large (101 bytes > limit 100; raise max-file-bytes to scan it)")
    assert read_bytes(tmp_path / "big.py", 101) == (b"#" * 101, "")
    assert read_bytes(tmp_path / "gone.py")[1] == "broken symbolic link or file vanished"
    os.mkfifo(tmp_path / "fifo.py")
    assert read_bytes(tmp_path / "fifo.py") == (None, "not a regular file")


@pytest.mark.parametrize("data, text, reason", [
    (b"x = 1\n", "x = 1\n", ""),
    (b"\xef\xbb\xbfx = 1\n", "x = 1\n", ""),
    (b"# coding: latin-1\nx = '\xe9'\n", "# coding: latin-1\nx = '\xe9'\n", ""),
    (b"x = '\xe9'\n", None, "undecodable bytes for encoding utf-8 in the first two lines (no PEP 263 coding line)"),
    (b"x = 1\ny = 2\nz = '\xe9'\n", None, "undecodable bytes for encoding utf-8 at line 3 (byte offset 17)"),
    (b"# coding: nope\n", None, "bad encoding declaration (unknown encoding: nope)"),
    (b"x\x00", None, "binary file (NUL byte at offset 1)"),
])
def test_decode_source(data: bytes, text: str | None, reason: str) -> None:
    assert decode_source(data) == (text, reason)


@pytest.mark.parametrize("rel, pkg, name, expected", [
    ("pkg/sub/mod.py", False, "", "pkg.sub.mod"), ("pkg/__init__.py", False, "", "pkg"),
    ("src/pkg/m.py", False, "", "pkg.m"), ("m.py", True, "root", "root.m"), ("my-pkg/m.py", False, "", "my_pkg.m"),
])
def test_module_name(rel: str, pkg: bool, name: str, expected: str) -> None:
    assert module_name(rel, pkg, name) == expected


def test_package_name_walks_up_the_packages(tmp_path: Path) -> None:
    sub = tmp_path / "src" / "tune" / "modules"
    sub.mkdir(parents=True)
    assert package_name(sub) == ""
    (sub / "__init__.py").write_text("", encoding="utf-8")
    assert package_name(sub) == "modules"
    (sub.parent / "__init__.py").write_text("", encoding="utf-8")
    assert package_name(sub) == "tune.modules"
    assert module_name("kv_cache.py", True, package_name(sub)) == "tune.modules.kv_cache"


def test_package_name_takes_a_parent_only_when_the_files_import_it(tmp_path: Path) -> None:
    """A stray ``__init__.py`` above a repository whose files import ``models.cache`` (break-test,
    stop 33) keeps the name ``models``; a parent folder named as no identifier is no package."""
    sub = tmp_path / "myrepo" / "models"
    sub.mkdir(parents=True)
    (sub / "__init__.py").write_text("", encoding="utf-8")
    (sub.parent / "__init__.py").write_text("", encoding="utf-8")
    assert package_name(sub, [b"from models.cache import KVCache\n"]) == "models"
    assert package_name(sub, [b"import torch\nfrom myrepo.models.cache import KVCache\n"]) == "myrepo.models"
    odd = tmp_path / "my-proj.v2" / "pkg"
    odd.mkdir(parents=True)
    (odd / "__init__.py").write_text("", encoding="utf-8")
    (odd.parent / "__init__.py").write_text("", encoding="utf-8")
    assert package_name(odd) == "pkg"


def test_imported_package_names_a_copied_tree_as_its_files_import_it() -> None:
    """torch_geometric review K1: a copy of ``torch_geometric/nn`` scanned as ``scan_nn/`` is the
    package its files import (``torch_geometric.nn``), not an unknown package whose own imports
    are external libraries."""
    files = [
        ("__init__.py", b"from .conv import GCNConv\n"),
        ("inits.py", b"import torch\n\ndef zeros(t):\n    pass\n"),
        ("conv/__init__.py", b"from torch_geometric.nn.conv.gcn_conv import GCNConv\n"),
        ("conv/gcn_conv.py", b"import torch\nfrom torch_geometric.nn.inits import zeros\n"
                             b"from torch_geometric.utils import scatter\n\nclass GCNConv:\n    pass\n"),
        ("pool/topk.py", b"from torch_geometric.nn.conv import GCNConv\nimport torch_geometric.nn.inits as I\n"
                         b"from torch_geometric.nn.pool.select import select\n"),
        ("pool/select.py", b"def select(x):\n    return x\n"),
    ]
    assert imported_package("scan_nn", files) == "torch_geometric.nn"
    assert imported_package("", files) == "torch_geometric.nn"  # a folder without __init__.py too
    assert module_name("conv/gcn_conv.py", True, imported_package("scan_nn", files)) == \
        "torch_geometric.nn.conv.gcn_conv"


def test_imported_package_keeps_the_name_the_files_use() -> None:
    """The folder's name is kept when some file imports the tree under it, when the tree's own
    modules are imported by their tree-relative names, when too few modules back another
    prefix, and never becomes a standard-library or torch prefix."""
    own = [("a.py", b"from models.b import f\n"), ("b.py", b"from other.pkg.c import g\n"),
           ("c.py", b"from other.pkg.a import h\nfrom other.pkg.b import k\n")]
    assert imported_package("models", own) == "models"
    relative = [("models/a.py", b"from models.b import f\n"), ("models/b.py", b""), ("models/c.py", b""),
                ("x.py", b"from ext.models.a import q\nfrom ext.models.b import r\nfrom ext.models.c import s\n")]
    assert imported_package("", relative) == ""
    few = [("a.py", b"from lib.b import f\n"), ("b.py", b"from lib.c import g\n"), ("c.py", b"")]
    assert imported_package("proj", few) == "proj"
    torchy = [("functional.py", b"import torch.nn.functional as F\n"), ("init.py", b"import torch.nn.init\n"),
              ("utils.py", b"from torch.nn import utils\n"), ("m.py", b"")]
    assert imported_package("mine", torchy) == "mine"
    # a project with its own models/, ops/, utils/ that imports torchvision's (break-test, stop 36):
    # the names it imports are not its folders' definitions, and it imports itself relatively
    shadow = [("__init__.py", b"from .models import Detector\n"),
              ("models/__init__.py", b"from .detector import Detector\n"),
              ("models/detector.py", b"from torchvision.models import resnet50\nfrom ..ops import roi_align\n"
                                     b"class Detector:\n    pass\n"),
              ("ops/__init__.py", b"from torchvision.ops import nms\n\ndef roi_align(x):\n    return x\n"),
              ("utils/__init__.py", b"from torchvision.utils import make_grid\nimport torchvision.models\n"
                                    b"import torchvision.ops\nimport torchvision.utils\n")]
    assert imported_package("det", shadow) == "det"
    tied = [("a.py", b"from p.a import x\nfrom p.b import y\nfrom p.c import z\n"),
            ("b.py", b"from q.a import x\nfrom q.b import y\nfrom q.c import z\n"), ("c.py", b"")]
    assert imported_package("r", tied) == "r"


def test_a_copied_package_scans_as_it_does_in_place(tmp_path: Path) -> None:
    """End to end: the same files scanned in place (``torch_geometric/nn``) and as a copy named
    ``scan_nn`` give the same findings; before, the copy's own imports were graph-library imports
    (ML1020) and its imported helpers went unresolved."""
    from migrate_lens.pipeline import scan

    files = {
        "__init__.py": "from .conv import GCNConv\n",
        "inits.py": "import torch\n\ndef zeros(t):\n    t.data.fill_(0)\n",
        "conv/__init__.py": "from torch_geometric.nn.conv.gcn_conv import GCNConv\n",
        "conv/gcn_conv.py": ("import torch\nfrom torch import nn\nfrom torch_geometric.nn.inits import zeros\n"
                             "from torch_geometric.nn.pool.topk import keep\n\n\n"
                             "class GCNConv(nn.Module):\n    def __init__(self, d):\n        super().__init__()\n"
                             "        self.w = nn.Parameter(torch.empty(d, d))\n\n"
                             "    def forward(self, x):\n        return keep(x @ self.w)\n"),
        "pool/__init__.py": "",
        "pool/topk.py": "import torch\nimport torch_geometric.nn.inits as I\n\ndef keep(x):\n    return x[x > 0]\n",
    }
    reports = []
    for root in (tmp_path / "site" / "torch_geometric" / "nn", tmp_path / "copy" / "scan_nn"):
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
        if "site" in root.parts:
            (root.parent / "__init__.py").write_text("", encoding="utf-8")
        result = scan(root, Config(), jobs=1, use_cache=False)
        reports.append(sorted((f.path, f.span.line, f.code, f.context) for f in result.project.findings))
    assert reports[0] == reports[1]
    assert ("pool/topk.py", 5, "ML203", "traced") in reports[1]
    assert not any(code == "ML1020" for _, _, code, _ in reports[1])
