"""The scanner never imports or runs scanned code, and writes only under ``--out``.

Fixtures whose import would write a file or open a socket prove the first; crafted file names
(``..%2f``, ``../``-looking, newlines, ``<script>``) prove the second.
"""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from migrate_lens.cli import main


def _evil_tree(root: Path, marker: Path, port: int) -> None:
    payload = (
        "import torch\n"
        f"open({str(marker)!r}, 'w').write('imported')\n"
        "import socket\n"
        f"socket.create_connection(('127.0.0.1', {port}), timeout=1).sendall(b'ran')\n"
        "def forward(x):\n    return x.item()\n"
    )
    (root / "pkg").mkdir(parents=True)
    for rel in ("pkg/__init__.py", "pkg/evil.py", "setup.py", "conftest.py", "pkg/__main__.py"):
        (root / rel).write_text(payload, encoding="utf-8")
    (root / "pkg" / "nb.ipynb").write_text(
        '{"cells": [{"cell_type": "code", "source": ' + repr(payload).replace("'", '"') + '}], "nbformat": 4, "nbformat_minor": 5, "metadata": {}}',
        encoding="utf-8")


def _all_files(base: Path) -> set[Path]:
    return {p for p in base.rglob("*") if p.is_file() or p.is_symlink()}


def test_scan_never_imports_or_runs_scanned_code(tmp_path: Path) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.setblocking(False)
    port = server.getsockname()[1]
    marker = tmp_path / "IMPORTED"
    root = tmp_path / "tree"
    _evil_tree(root, marker, port)
    before = set(sys.modules)
    result = CliRunner().invoke(main, ["scan", str(root), "--out", str(tmp_path / "out"), "--format", "json",
                                       "--no-cache", "-j", "2", "-q"])
    assert result.exit_code == 0, result.output
    assert not marker.exists()
    with pytest.raises(BlockingIOError):
        server.accept()  # nobody connected
    server.close()
    assert not any(m == "evil" or m.startswith("pkg") for m in set(sys.modules) - before)
    report = (tmp_path / "out" / "report.json").read_text(encoding="utf-8")
    assert "pkg/evil.py" in report  # it was scanned, statically


MODULE = "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return x.item()\n"
CRAFTED = [
    "..%2f..%2fescape.py",
    "..%2fescape%2f..%2f.py",
    "a\nb.py",
    "<script>alert(1)<%2fscript>.py",
    "quote\"and'apostrophe.py",
    "-rf.py",
    "....py",
    "trailing dot..py",
]


def test_crafted_names_cannot_write_outside_out(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    (root / "sub").mkdir(parents=True)
    for name in CRAFTED:
        (root / "sub" / name).write_text(MODULE, encoding="utf-8")
    out = tmp_path / "out"
    cache = tmp_path / "cache"
    before = _all_files(tmp_path)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(main, ["scan", str(root), "--out", str(out), "--format", "html,json,sarif,md",
                                           "--cache-dir", str(cache), "-j", "2", "-q"])
    finally:
        os.chdir(old)
    assert result.exit_code == 0, result.output
    created = _all_files(tmp_path) - before
    assert created and all(p.is_relative_to(out) or p.is_relative_to(cache) for p in created), sorted(created)
    assert sorted(p.name for p in out.iterdir()) == ["report.html", "report.json", "report.md", "report.sarif"]
    assert list(cwd.iterdir()) == []
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "<script>alert(1)" not in html
    import json
    paths = {f["path"] for f in json.loads((out / "report.json").read_text(encoding="utf-8"))["findings"]}
    assert {f"sub/{n}" for n in CRAFTED} <= paths
