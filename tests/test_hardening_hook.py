"""A committed file's name never becomes an option of the pre-commit gate (issue 18, item 3).

pre-commit runs ``entry + args + file names``. The hook's entry ends option parsing (``--``), so
a file named ``--baseline=evil.py`` is a file to check; the gate's options come from
``[tool.migrate-lens.check]`` in pyproject.toml. These tests run the entry exactly as
``.pre-commit-hooks.yaml`` spells it (through click, in-process)."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest
import yaml  # pre-commit's own dependency (test extra)
from click.testing import CliRunner

import migrate_lens
from migrate_lens.cli import main

REPO = Path(migrate_lens.__file__).resolve().parent.parent
BLOCKING = "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        if x.sum() > 0:\n            x = x * 2\n        return x\n"


def _hook_argv(files: list[str]) -> list[str]:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    (hook,) = [h for h in hooks if h["id"] == "migrate-lens"]
    entry = shlex.split(hook["entry"])
    assert entry[0] == "migrate-lens"
    return entry[1:] + list(hook.get("args", [])) + files


def _run_hook(project: Path, files: list[str]) -> tuple[int, str]:
    runner = CliRunner()
    old = Path.cwd()
    os.chdir(project)
    try:
        result = runner.invoke(main, _hook_argv(files), catch_exceptions=False)
    finally:
        os.chdir(old)
    return result.exit_code, result.output


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    root = tmp_path / "user"
    root.mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "u"\nversion = "0"\n', encoding="utf-8")
    (root / ".git").mkdir()
    (root / "model.py").write_text(BLOCKING, encoding="utf-8")
    return root


def test_file_named_like_baseline_option_cannot_switch_the_gate_off(project: Path) -> None:
    """Repro: ``--baseline=evil.py`` beside a crafted baseline made the hook pass a commit it
    must block."""
    # a crafted baseline (valid JSON baseline holding the finding) named like a Python file
    runner = CliRunner()
    old = Path.cwd()
    os.chdir(project)
    try:
        assert runner.invoke(main, ["baseline", "write", "-o", "evil.py"]).exit_code == 0
    finally:
        os.chdir(old)
    (project / "--baseline=evil.py").write_text("import torch\n", encoding="utf-8")
    code, out = _run_hook(project, ["--baseline=evil.py", "model.py"])
    assert code == 1, out
    assert "model.py:6:" in out


@pytest.mark.parametrize("name", ["--diff=HEAD.py", "-j0.py", "--no-baseline.py", "-h.py", "--help.py",
                                  "--format=json.py", "--fail-on=critical.py"])
def test_option_like_file_names_are_files(project: Path, name: str) -> None:
    (project / name).write_text(BLOCKING, encoding="utf-8")
    code, out = _run_hook(project, [name])
    assert code == 1, out
    assert out.startswith(f"{name}:6:"), out


def test_hook_options_come_from_pyproject(project: Path) -> None:
    code, out = _run_hook(project, ["model.py"])
    assert code == 1, out
    with (project / "pyproject.toml").open("a", encoding="utf-8") as fh:
        fh.write('\n[tool.migrate-lens.check]\nfail-on = "critical"\nformat = "json"\n')
    code, out = _run_hook(project, ["model.py"])
    assert code == 0, out  # ML101 is high, below the configured critical
    assert [f["path"] for f in json.loads(out)["findings"]] == ["model.py"]


def test_hook_args_given_as_file_names_get_a_hint(project: Path) -> None:
    code, out = _run_hook(project, ["--fail-on", "medium", "model.py"])
    assert code == 2
    assert "[tool.migrate-lens.check]" in out and "\n" == out[-1] and out.count("\n") == 1


@pytest.mark.parametrize("table, key", [
    ('fail-on = "severe"', "fail-on"),
    ('format = 3', "format"),
    ('baseline = ["x"]', "baseline"),
    ('color = "red"', "color"),
])
def test_bad_check_table_names_the_key(project: Path, table: str, key: str) -> None:
    with (project / "pyproject.toml").open("a", encoding="utf-8") as fh:
        fh.write(f"\n[tool.migrate-lens.check]\n{table}\n")
    code, out = _run_hook(project, ["model.py"])
    assert code == 2
    assert f"tool.migrate-lens.check.{key}" in out and out.count("\n") == 1


def test_command_line_options_still_win(project: Path) -> None:
    with (project / "pyproject.toml").open("a", encoding="utf-8") as fh:
        fh.write('\n[tool.migrate-lens.check]\nfail-on = "critical"\n')
    runner = CliRunner()
    old = Path.cwd()
    os.chdir(project)
    try:
        assert runner.invoke(main, ["check", "model.py"]).exit_code == 0
        assert runner.invoke(main, ["check", "--fail-on", "high", "model.py"]).exit_code == 1
    finally:
        os.chdir(old)


# --------------------------------------------------------------------------- files the gate cannot read

UNCHECKABLE = {
    "py2.py": b"import torch\nprint 'python 2'\n",
    "undecodable.py": b"import torch\nx = '\xff\xfe'\n",
    "utf16.py": "import torch\n".encode("utf-16"),
    "binary.py": b"import torch\x00\x01\x02\n",
    "deep.py": b"import torch\nx = " + b"(" * 300 + b"1" + b")" * 300 + b"\n",
    "nb.ipynb": b"{not json",
}


@pytest.mark.parametrize("name", sorted(UNCHECKABLE))
@pytest.mark.parametrize("fmt", ["text", "github", "json"])
def test_a_changed_file_that_cannot_be_checked_fails_the_hook(project: Path, name: str, fmt: str) -> None:
    """Repro: the hook exited 0 ("no new findings in 0 files; 1 file skipped") on a staged file
    it could not parse: a Python 2 file, undecodable bytes, nesting too deep, a broken notebook.
    A gate that cannot read a file cannot pass it."""
    (project / name).write_bytes(UNCHECKABLE[name])
    (project / "clean.py").write_text("import torch\n\n\ndef f(x):\n    return x + 1\n", encoding="utf-8")
    (project / "pyproject.toml").open("a", encoding="utf-8").write(f'\n[tool.migrate-lens.check]\nformat = "{fmt}"\n')
    code, out = _run_hook(project, [name, "clean.py"])
    assert code == 1, out
    if fmt == "json":
        doc = json.loads(out)
        assert doc["failed"] is True and doc["summary"]["unchecked"] == 1
        assert [(s["path"], s["blocking"]) for s in doc["skipped"]] == [(name, True)]
    elif fmt == "github":
        assert f"::error file={name},title=not checked::" in out, out
    else:
        assert f"{name}: not checked: " in out and "Failed: 1 file could not be checked" in out, out
        assert "no new findings in 1 file" in out  # the other file was checked


def test_an_excluded_unparsable_file_does_not_fail_the_hook(project: Path) -> None:
    (project / "legacy").mkdir()
    (project / "legacy" / "py2.py").write_bytes(UNCHECKABLE["py2.py"])
    (project / "pyproject.toml").open("a", encoding="utf-8").write('\n[tool.migrate-lens]\nexclude = ["legacy/**"]\n')
    code, out = _run_hook(project, ["legacy/py2.py"])
    assert code == 0, out


def test_a_symbolic_link_is_listed_but_does_not_fail(project: Path) -> None:
    (project / "clean.py").write_text("import torch\n", encoding="utf-8")
    (project / "pkg").mkdir()
    (project / "pkg" / "link.py").symlink_to("../clean.py")
    runner = CliRunner()
    old = Path.cwd()
    os.chdir(project)
    try:
        result = runner.invoke(main, ["check", "--no-baseline", "pkg"])
    finally:
        os.chdir(old)
    assert result.exit_code == 0, result.output
    assert "pkg/link.py: skipped: symbolic link" in result.output


def test_with_diff_only_an_unparsable_file_that_changed_fails(project: Path) -> None:
    import subprocess

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=project, check=True, capture_output=True)

    (project / ".git").rmdir()
    git("init", "-q", ".")
    git("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "0")
    (project / "old.py").write_bytes(UNCHECKABLE["py2.py"])
    git("add", "old.py")
    git("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "-m", "1")
    runner = CliRunner()
    old = Path.cwd()
    os.chdir(project)
    try:
        result = runner.invoke(main, ["check", "--no-baseline", "--diff", "HEAD", "old.py"])
        assert result.exit_code == 0, result.output  # old debt, unchanged since HEAD: listed, not blocking
        assert "old.py: skipped: syntax error" in result.output
        (project / "old.py").write_bytes(UNCHECKABLE["py2.py"] + b"print 'more'\n")
        result = runner.invoke(main, ["check", "--no-baseline", "--diff", "HEAD", "old.py"])
        assert result.exit_code == 1, result.output
        assert "old.py: not checked: syntax error" in result.output
    finally:
        os.chdir(old)


def test_a_worker_that_dies_costs_its_file_only_and_never_hangs_the_hook(tmp_path: Path) -> None:
    """Repro: ``check`` on 6+ files analyzes them in a fork pool; a worker killed on one file (a
    crash in a native parser, the OOM killer; here ``os._exit``) made ``multiprocessing.Pool.map``
    wait forever: the pre-commit hook hung. Now that file is ``not checked: worker crashed`` and
    the others keep their findings. Run in a subprocess so that a regression fails on the
    timeout instead of hanging the test run."""
    import subprocess
    import sys

    for i in range(8):
        (tmp_path / f"m{i}.py").write_text(BLOCKING, encoding="utf-8")
    script = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "import migrate_lens.check as c\n"
        "real = c._check_one\n"
        "def dying(absolute, rel, project):\n"
        "    if rel.endswith('m3.py'):\n"
        "        os._exit(9)\n"
        "    return real(absolute, rel, project)\n"
        "c._check_one = dying\n"
        "res = c.run_check([Path(f'm{i}.py') for i in range(8)], cwd=Path(sys.argv[1]), jobs=2)\n"
        "print(len(res.new), [(s.path, s.reason) for s in res.unchecked])\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True,
                          timeout=120, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "7 [('m3.py', 'worker crashed (exit code 9)')]", proc.stdout
