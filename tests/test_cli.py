"""The `migrate-lens` command line end to end: outputs, exit codes, one-line errors, determinism,
and that scanned code is never imported or run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from migrate_lens import __version__
from migrate_lens.cli import main

MODEL = '''\
import torch
import torch.nn as nn


class Gate(nn.Module):
    def __init__(self, width: int = 8):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
        if torch.all(keep == 1):
            return self.fc(x)
        return self.fc(x) * keep
'''

EVIL = '''\
import pathlib
pathlib.Path(__file__).with_name("PWNED").write_text("imported!")
import socket
socket.create_connection(("127.0.0.1", 9))
import torch
x = torch.zeros(3)
'''


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (root / "pkg" / "gate.py").write_text(MODEL, encoding="utf-8")
    (root / "pkg" / "evil.py").write_text(EVIL, encoding="utf-8")
    (root / "pkg" / "py2.py").write_text('print "hello"\n', encoding="utf-8")
    return root


def _scan(args: list[str]) -> tuple[int, str]:
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    return result.exit_code, result.output


def test_version() -> None:
    code, out = _scan(["--version"])
    assert code == 0 and __version__ in out


def test_scan_writes_every_format_under_out_only(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    code, output = _scan(["scan", str(project), "--out", str(out), "--format", "json,html,sarif,md",
                          "--no-cache", "--quiet", "--jobs", "1"])
    assert code == 0, output
    assert sorted(p.name for p in out.iterdir()) == ["report.html", "report.json", "report.md", "report.sarif"]
    view = json.loads((out / "report.json").read_text(encoding="utf-8"))
    flagged = {(f["path"], f["line"], f["category"]) for f in view["findings"]}
    assert ("pkg/gate.py", 11, "dynamic-control-flow") in flagged
    assert view["skipped"] == [{"path": "pkg/py2.py", "reason": view["skipped"][0]["reason"]}]
    assert view["skipped"][0]["reason"].startswith("syntax error at line 1")
    assert view["summary"]["files_skipped"] == 1
    gate = next(m for m in view["modules"] if m["qualname"] == "pkg.gate.Gate")
    assert gate["status"] == "redesign" and not gate["pure"]
    # The scanner parsed evil.py but never ran it.
    assert not (project / "pkg" / "PWNED").exists()


def test_fail_on_sets_exit_status(project: Path, tmp_path: Path) -> None:
    args = ["scan", str(project), "--out", str(tmp_path / "o"), "--format", "json", "--no-cache", "--quiet", "-j", "1"]
    assert _scan([*args, "--fail-on", "high"])[0] == 1
    assert _scan([*args, "--fail-on", "critical"])[0] == 0


def test_usage_and_io_errors_exit_2_with_one_line(tmp_path: Path) -> None:
    code, out = _scan(["scan", str(tmp_path / "missing"), "--out", str(tmp_path / "o")])
    assert code == 2
    assert out.strip().startswith("migrate-lens: error:") and len(out.strip().splitlines()) == 1
    code, out = _scan(["scan", str(tmp_path), "--format", "pdf"])
    assert code == 2 and "unknown format pdf" in out


def test_bad_config_is_a_one_line_error(project: Path, tmp_path: Path) -> None:
    (project / "pyproject.toml").write_text("[tool.migrate-lens]\nteam-size = 0\n", encoding="utf-8")
    code, out = _scan(["scan", str(project), "--out", str(tmp_path / "o"), "--no-cache"])
    assert code == 2
    assert "tool.migrate-lens.team-size" in out and len(out.strip().splitlines()) == 1


def test_same_tree_gives_identical_json(project: Path, tmp_path: Path) -> None:
    texts = []
    for i, jobs in enumerate(("1", "2")):
        out = tmp_path / f"o{i}"
        code, output = _scan(["scan", str(project), "--out", str(out), "--format", "json", "--quiet", "-j", jobs,
                              "--cache-dir", str(tmp_path / f"cache{i}")])
        assert code == 0, output
        view = json.loads((out / "report.json").read_text(encoding="utf-8"))
        view["summary"]["duration_s"] = 0
        texts.append(json.dumps(view, indent=2))
    assert texts[0] == texts[1]


def test_warm_cache_gives_the_same_report(project: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    views = []
    for i in range(2):
        out = tmp_path / f"w{i}"
        _scan(["scan", str(project), "--out", str(out), "--format", "json", "--quiet", "-j", "1", "--cache-dir", str(cache)])
        view = json.loads((out / "report.json").read_text(encoding="utf-8"))
        view["summary"]["duration_s"] = 0
        views.append(view)
    assert views[0] == views[1]
    assert any(cache.iterdir())


def test_rules_and_explain() -> None:
    code, out = _scan(["rules"])
    assert code == 0 and "ML101" in out
    code, out = _scan(["explain", "ml101"])
    assert code == 0 and "jnp.where" in out
    code, out = _scan(["explain", "ML999"])
    assert code == 2 and "unknown rule" in out


FORWARD_REF = '''\
import torch.nn as nn


class User(nn.Module):
    def __init__(self):
        super().__init__()
        self.late = Late()

    def forward(self, x):
        return self.late(x)


class Late(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x
        return -x
'''


def test_submodule_defined_later_in_the_file_propagates_its_status(tmp_path: Path) -> None:
    root = tmp_path / "fw"
    (root / "pk").mkdir(parents=True)
    (root / "pk" / "m.py").write_text(FORWARD_REF, encoding="utf-8")
    out = tmp_path / "o"
    code, output = _scan(["scan", str(root), "--out", str(out), "--format", "json", "--no-cache", "-q", "-j", "1"])
    assert code == 0, output
    modules = {m["qualname"]: m for m in json.loads((out / "report.json").read_text(encoding="utf-8"))["modules"]}
    assert modules["pk.m.Late"]["status"] == "redesign"
    assert modules["pk.m.User"]["status"] == "redesign"
    assert modules["pk.m.User"]["explanation"][0].startswith("User -> Late: dynamic-control-flow")


KV_CACHE = """import torch
from torch import nn


class KVCache(nn.Module):
    def __init__(self, b: int, h: int, s: int, d: int):
        super().__init__()
        self.register_buffer("k_cache", torch.zeros(b, h, s, d), persistent=False)
        self.register_buffer("cache_pos", torch.arange(s), persistent=False)

    def update(self, k_val):
        seq_len = k_val.shape[2]
        self.k_cache[:, :, self.cache_pos[:seq_len]] = k_val
        self.cache_pos.add_(seq_len)
        return self.k_cache
"""

ATTN = """from torch import nn

from tune.modules.kv_cache import KVCache


class Attn(nn.Module):
    def __init__(self):
        super().__init__()
        self.k_proj = nn.Linear(8, 8)
        self.kv_cache = KVCache(1, 2, 16, 4)

    def forward(self, x):
        return self.kv_cache.update(self.k_proj(x).view(1, -1, 2, 4).transpose(1, 2))
"""


def test_scanning_a_subpackage_keeps_its_absolute_imports(tmp_path: Path) -> None:
    """torchtune's shape: scanning ``tune/modules`` alone, whose files import each other as
    ``tune.modules.<mod>``: the files are named as Python imports them, so the cache write in
    another file is reached from forward and its holder is not pure."""
    sub = tmp_path / "src" / "tune" / "modules"
    sub.mkdir(parents=True)
    (tmp_path / "src" / "tune" / "__init__.py").write_text("", encoding="utf-8")
    (sub / "__init__.py").write_text("", encoding="utf-8")
    (sub / "kv_cache.py").write_text(KV_CACHE, encoding="utf-8")
    (sub / "attention.py").write_text(ATTN, encoding="utf-8")
    out = tmp_path / "o"
    code, output = _scan(["scan", str(sub), "--out", str(out), "--format", "json", "--no-cache", "-q", "-j", "1"])
    assert code == 0, output
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    modules = {m["qualname"]: m["status"] for m in report["modules"]}
    assert modules["tune.modules.attention.Attn"] == "redesign"
    traced = {(f["path"], f["line"]) for f in report["findings"] if f["context"] == "traced"}
    assert ("kv_cache.py", 14) in traced


def test_config_code_typos_are_refused(project: Path, tmp_path: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.migrate-lens]\nselect = ["XX9"]\n', encoding="utf-8")
    code, out = _scan(["scan", str(project), "--out", str(tmp_path / "o"), "--no-cache", "-q"])
    assert code == 2 and "tool.migrate-lens.select: 'XX9' matches no rule" in out
    (project / "pyproject.toml").write_text('[tool.migrate-lens]\nseverity = { ML999 = "high" }\n', encoding="utf-8")
    code, out = _scan(["scan", str(project), "--out", str(tmp_path / "o"), "--no-cache", "-q"])
    assert code == 2 and "severity.ML999: no such rule" in out


def test_single_file_scan_uses_the_nearest_pyproject(project: Path, tmp_path: Path) -> None:
    (project / "pyproject.toml").write_text("[tool.migrate-lens]\nteam-size = 0\n", encoding="utf-8")
    code, out = _scan(["scan", str(project / "pkg" / "gate.py"), "--out", str(tmp_path / "o"), "--no-cache", "-q"])
    assert code == 2 and "team-size" in out


def test_empty_tree_is_not_a_go(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    out = tmp_path / "o"
    code, output = _scan(["scan", str(empty), "--out", str(out), "--format", "json", "--no-cache", "-q"])
    assert code == 0, output
    decision = json.loads((out / "report.json").read_text(encoding="utf-8"))["estimate"]["decision"]
    assert decision["verdict"] == "not-now"
    assert "nothing to assess" in decision["headline"]
