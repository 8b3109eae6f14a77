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
