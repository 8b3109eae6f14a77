"""Two scans of the same tree, from different working directories, with different ``--jobs``
and cache states, give byte-identical report.json (apart from ``summary.duration_s`` and
``root``) and SARIF."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from migrate_lens.cli import main

#: Real-shaped code shipped with the tests (a layered project, the field cases, the stub
#: fixtures): the same tree on every machine, no corpus needed.
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SOURCES = {"proj": FIXTURES / "projects" / "layered" / "proj", "cases": FIXTURES / "cases",
           "tiny": FIXTURES / "stubs" / "src" / "tiny"}


def _tree(base: Path) -> Path:
    root = base / "project"
    for name, source in SOURCES.items():
        shutil.copytree(source, root / name)
    (root / "extra").mkdir(parents=True, exist_ok=True)
    (root / "extra" / "model.py").write_text(
        "import torch\nfrom torch import nn\n\n\nclass Net(nn.Module):\n    def forward(self, x):\n"
        "        if x.sum() > 0:\n            x.add_(1)\n        return x[: x.argmax().item()]\n", encoding="utf-8")
    (root / "extra" / "broken.py").write_bytes(b"import torch\ndef f(:\n")
    (root / "extra" / "nb.ipynb").write_text(json.dumps({
        "cells": [{"cell_type": "code", "source": "import torch\n%time x = 1\nclass M(torch.nn.Module):\n"
                   "    def forward(self, x):\n        return x.item()\n"}],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")
    return root


def _run(args: list[str], cwd: Path) -> None:
    old = os.getcwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(main, args)
    finally:
        os.chdir(old)
    assert result.exit_code == 0, result.output


def _normalized_json(path: Path) -> str:
    data = json.loads(path.read_text(encoding="utf-8"))
    data["summary"].pop("duration_s", None)
    data.pop("root", None)
    return json.dumps(data, sort_keys=False, indent=1)


def test_reports_are_byte_identical_across_cwd_jobs_and_cache(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    cwd_a, cwd_b = tmp_path / "a", tmp_path / "b" / "deeper"
    cwd_a.mkdir()
    cwd_b.mkdir(parents=True)
    out_a, out_b, out_c = tmp_path / "out_a", tmp_path / "out_b", tmp_path / "out_c"
    fmt = ["--format", "json,sarif", "-q"]
    _run(["scan", str(root), "--out", str(out_a), "-j", "1", "--no-cache", *fmt], cwd_a)
    _run(["scan", os.path.relpath(root, cwd_b), "--out", str(out_b), "-j", "2",
          "--cache-dir", str(tmp_path / "cache"), *fmt], cwd_b)
    # warm cache this time
    _run(["scan", str(root), "--out", str(out_c), "-j", "2", "--cache-dir", str(tmp_path / "cache"), *fmt], cwd_a)
    a = _normalized_json(out_a / "report.json")
    assert '"findings": []' not in a and "extra/broken.py" in a
    assert a == _normalized_json(out_b / "report.json") == _normalized_json(out_c / "report.json")
    sarif = [(o / "report.sarif").read_bytes() for o in (out_a, out_b, out_c)]
    assert sarif[0] == sarif[1] == sarif[2]


def test_raw_json_differs_only_in_duration_and_root(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    outs = [tmp_path / "x", tmp_path / "y"]
    for jobs, out in zip(("1", "2"), outs):
        _run(["scan", str(root), "--out", str(out), "--format", "json", "-q", "--no-cache", "-j", jobs], tmp_path)
    a, b = (json.loads((o / "report.json").read_text(encoding="utf-8")) for o in outs)
    diff = {k for k in a if a[k] != b[k]} | {f"summary.{k}" for k in a["summary"] if a["summary"][k] != b["summary"][k]}
    assert diff <= {"summary", "summary.duration_s"}


_FACTS_DIGEST = r'''
import hashlib, sys
from pathlib import Path
from migrate_lens.cache import encode
from migrate_lens.worker import analyze_bytes
digest = hashlib.sha256()
for p in sys.argv[1:]:
    for f in sorted(Path(p).rglob("*.py")):
        rel = f.relative_to(p).as_posix()
        digest.update(encode(analyze_bytes(f.read_bytes(), rel, rel[:-3].replace("/", "."))))
print(digest.hexdigest())
'''


def test_per_file_facts_do_not_depend_on_the_hash_seed(tmp_path: Path) -> None:
    """Every per-file fact (the cache encoding of a file's outcome) is the same under two string
    hash seeds: nothing is emitted in set or dict-of-set order. (Two constructor injections that
    differed only in position, ``Pair(Mlp, Mlp)``, came out in set order.)"""
    import subprocess
    import sys

    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "wiring.py").write_text(
        "import torch.nn as nn\n\n\nclass Mlp(nn.Module):\n    pass\n\n\n"
        "class Pair(nn.Module):\n    def __init__(self, a, b, c=None):\n        super().__init__()\n"
        "        self.a = a()\n        self.b = b()\n\n\n"
        "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.p = Pair(Mlp, Mlp, Mlp)\n        self.q = Pair(nn.GELU, nn.GELU)\n", encoding="utf-8")
    roots = [str(extra), str(FIXTURES / "engine-v2"), str(FIXTURES / "cases")]
    repo = str(Path(__file__).resolve().parents[1])
    digests = set()
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": repo}
        out = subprocess.run([sys.executable, "-c", _FACTS_DIGEST, *roots], env=env, capture_output=True,
                             text=True, check=True, timeout=600)
        digests.add(out.stdout.strip())
    assert len(digests) == 1, digests
