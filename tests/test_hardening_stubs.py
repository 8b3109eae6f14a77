"""``stubs --report`` reads and writes only inside its roots (issue 18, item 2): module paths in a
report.json are untrusted; one that leaves the source root (``..``, absolute, a symbolic link
out) is refused with a one-line error and nothing is written anywhere."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from migrate_lens.stubs.cli import stubs

REPO = Path(__file__).resolve().parent.parent
SRC = REPO / "fixtures" / "stubs" / "src"


def _tree(tmp_path: Path) -> tuple[Path, Path, Path]:
    src = tmp_path / "work" / "src"
    shutil.copytree(SRC, src)
    victim = tmp_path / "victim"
    victim.mkdir()
    shutil.copy(SRC / "tiny" / "mlp.py", victim / "model.py")
    return src, victim, tmp_path / "work" / "out"


def _files(base: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in base.rglob("*") if p.is_file()}


@pytest.mark.parametrize("bad_path", ["../../victim/model.py", "ABS", "tiny/../../../victim/model.py",
                                      "tiny/./mlp.py\x00.py", "LINK/model.py"])
def test_report_paths_outside_the_root_are_refused(tmp_path: Path, bad_path: str) -> None:
    """Repro: ``"path": "../../../victim/model.py"`` overwrote victim/model.py with a stub; an
    absolute path wrote ``__init__.py`` into every parent up to ``/`` and then looped forever."""
    src, victim, out = _tree(tmp_path)
    if bad_path == "ABS":
        bad_path = str(victim / "model.py")
    if bad_path.startswith("LINK"):
        (src / "link").symlink_to(victim, target_is_directory=True)
        bad_path = bad_path.replace("LINK", "link")
    before = _files(tmp_path)
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"modules": [
        {"qualname": "victim.model.MLP", "path": bad_path, "kind": "nn.Module", "status": "pure"}]}))
    result = CliRunner().invoke(stubs, [str(src), "-o", str(out), "--report", str(report)])
    assert result.exit_code == 2, result.output
    assert "outside" in result.output and result.output.count("\n") == 1
    assert _files(tmp_path) == {**before, report: report.read_bytes()}
    assert not out.exists()


def test_report_paths_inside_the_root_still_work(tmp_path: Path) -> None:
    src, _victim, out = _tree(tmp_path)
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"modules": [
        {"qualname": "tiny.mlp.MLP", "path": "tiny/mlp.py", "kind": "nn.Module", "status": "pure"}]}))
    result = CliRunner().invoke(stubs, [str(src), "-o", str(out), "--report", str(report)])
    assert result.exit_code == 0, result.output
    assert (out / "tiny" / "mlp.py").is_file() and (out / "tiny" / "__init__.py").is_file()


def test_write_stubs_never_leaves_out_dir(tmp_path: Path) -> None:
    from migrate_lens.stubs.generate import StubFile, write_stubs

    out = tmp_path / "out"
    for stub_path in ("../escape.py", str(tmp_path / "abs.py"), "a/../../escape2.py"):
        with pytest.raises(ValueError, match="outside"):
            write_stubs(out, [StubFile(stub_path, stub_path, "x = 1\n", (), (), True, "")])
    assert sorted(p.name for p in tmp_path.rglob("*")) == []


# --------------------------------------------------------------------------- attack pass 2 (helper "attack")

_MODULE = ("import torch\nfrom torch import nn\n\n\nclass Twice(nn.Module):\n"
           "    def forward(self, x):\n        return x * 2\n")


def _hostile_tree(root: Path) -> None:
    import os

    root.mkdir(parents=True)
    (root / "good.py").write_text(_MODULE, encoding="utf-8")
    (root / "deep.py").write_text("import torch\nx = " + "(" * 5000 + "1" + ")" * 5000 + "\n", encoding="utf-8")
    (root / "chain.py").write_text("import torch\ny = 1" + " + 1" * 30000 + "\n", encoding="utf-8")
    (root / "py2.py").write_text("import torch\nprint 'x'\n", encoding="utf-8")
    (root / "utf16.py").write_bytes(_MODULE.encode("utf-16"))
    (root / "loop.py").symlink_to("loop.py")
    os.mkfifo(root / "fifo.py")


def test_discover_reads_files_as_the_scan_does(tmp_path: Path) -> None:
    """Repro: ``stubs --discover`` read every file itself: a FIFO named .py hung it forever, a
    symbolic link loop raised OSError (traceback), 5000 nested parentheses killed it with
    SIGSEGV in libcst's native parser (exit 139, nothing written), and unparsable files vanished
    silently. Each is now a ``not read: PATH: reason`` line and the others are translated."""
    import subprocess
    import sys

    root = tmp_path / "src"
    _hostile_tree(root)
    out = tmp_path / "out"
    # a subprocess: a SIGSEGV or a hang must fail this test, not kill or block the test run
    proc = subprocess.run([sys.executable, "-m", "migrate_lens.cli", "stubs", str(root), "-o", str(out), "--discover"],
                          capture_output=True, text=True, timeout=120, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    reasons = {line.split(": ", 2)[1]: line.split(": ", 2)[2] for line in lines if line.startswith("not read: ")}
    assert set(reasons) == {"deep.py", "chain.py", "py2.py", "utf16.py", "loop.py", "fifo.py"}, proc.stdout
    assert reasons["fifo.py"] == "not a regular file"
    assert reasons["deep.py"].startswith("nesting too deep")
    # (a 120,000-character line: skipped when read, before the nesting is looked at)
    assert reasons["chain.py"].startswith(("nesting too deep", "a line longer than"))
    assert reasons["py2.py"].startswith("syntax error at line 2")
    assert reasons["utf16.py"].startswith("UTF-16-encoded file")
    assert "Too many levels of symbolic links" in reasons["loop.py"]
    assert (out / "good.py").is_file()


def test_stubs_never_overwrite_files_that_are_not_stubs(tmp_path: Path) -> None:
    """Repro: ``migrate-lens stubs SRC -o SRC`` replaced the user's PyTorch files with their
    stubs (silent data loss); ``-o`` naming a file or an unwritable place raised
    NotADirectoryError / FileNotFoundError (traceback)."""
    root = tmp_path / "src"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (root / "pkg" / "m.py").write_text(_MODULE, encoding="utf-8")
    before = {p: p.read_bytes() for p in root.rglob("*.py")}
    result = CliRunner().invoke(stubs, [str(root), "-o", str(root), "--discover"])
    assert result.exit_code == 2 and "exists and is not a migrate-lens stub; nothing written" in result.output, \
        result.output
    assert {p: p.read_bytes() for p in root.rglob("*.py")} == before
    out = tmp_path / "out"
    for _ in range(2):  # a second run replaces its own stubs
        result = CliRunner().invoke(stubs, [str(root), "-o", str(out), "--discover"])
        assert result.exit_code == 0, result.output
    assert (out / "pkg" / "m.py").read_text(encoding="utf-8").startswith('"""Flax NNX stub of pkg/m.py')
    (tmp_path / "afile").write_text("x", encoding="utf-8")
    result = CliRunner().invoke(stubs, [str(root), "-o", str(tmp_path / "afile"), "--discover"])
    assert result.exit_code == 2 and "cannot write stubs to" in result.output and result.output.count("\n") == 1, \
        result.output


def test_a_module_without_init_gets_a_stub_its_callers_can_build(tmp_path: Path) -> None:
    """Repro: ``class Swish(nn.Module)`` with no ``__init__`` became a stub without one, while
    the stub of the module holding it built it as ``Swish(rngs=rngs)``: nnx.Module refused
    ("takes no arguments"), yet the file was reported "ready", 0 TODO."""
    import ast

    root = tmp_path / "src"
    root.mkdir()
    (root / "m.py").write_text(
        "import torch\nfrom torch import nn\n\n\nclass Swish(nn.Module):\n    def forward(self, x):\n"
        "        return x * torch.sigmoid(x)\n\n\nclass Block(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.act = Swish()\n        self.lin = nn.Linear(2, 2)\n\n"
        "    def forward(self, x):\n        return self.act(self.lin(x))\n", encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(stubs, [str(root), "-o", str(out), "--discover"])
    assert result.exit_code == 0, result.output
    stub = (out / "m.py").read_text(encoding="utf-8")
    tree = ast.parse(stub)
    swish = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Swish")
    init = next(n for n in swish.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    assert [a.arg for a in init.args.kwonlyargs] == ["rngs"]
    assert "self.act = Swish(rngs=rngs)" in stub


@pytest.mark.verify
def test_a_module_without_init_verifies(tmp_path: Path) -> None:
    """Both stubs build and match PyTorch. ``verify`` runs in a subprocess: importing jax into
    the test process would make every later fork-based pool warn of deadlocks (JAX's threads)."""
    import subprocess
    import sys

    pytest.importorskip("torch")
    pytest.importorskip("flax")
    root = tmp_path / "src"
    root.mkdir()
    (root / "noinit_verify_mod.py").write_text(
        "import torch\nfrom torch import nn\n\n\nclass Swish(nn.Module):\n    def forward(self, x):\n"
        "        return x * torch.sigmoid(x)\n\n\nclass Block(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.act = Swish()\n        self.lin = nn.Linear(2, 2)\n\n"
        "    def forward(self, x):\n        return self.act(self.lin(x))\n", encoding="utf-8")
    out = tmp_path / "out"
    assert CliRunner().invoke(stubs, [str(root), "-o", str(out), "--discover"]).exit_code == 0
    import os

    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for name in ("Swish", "Block"):
        proc = subprocess.run([sys.executable, "-m", "migrate_lens.cli", "verify", str(root), "--stubs", str(out),
                               "--module", f"noinit_verify_mod.{name}", "--input", "1x2", "--yes"],
                              capture_output=True, text=True, env=env, timeout=600)
        assert proc.returncode == 0 and json.loads(proc.stdout)["status"] == "pass", (name, proc.stdout, proc.stderr)


@pytest.mark.parametrize("spec, message", [
    ("100000x100000x100000", "elements, more than"),
    ("2x3:float99", "dtype 'float99' is not one of"),
    ("2x3:int64:5:5", "needs LOW < HIGH"),
])
def test_verify_input_specs_are_checked_before_anything_runs(spec: str, message: str) -> None:
    """Repro: ``verify --input 100000x100000x100000`` raised numpy's MemoryError and
    ``--input 2x3:float99`` a TypeError (tracebacks)."""
    from migrate_lens.stubs.verify import parse_input_spec

    with pytest.raises(ValueError, match=message):
        parse_input_spec(spec)
    assert parse_input_spec("2x8:int64:0:99").shape == (2, 8)
