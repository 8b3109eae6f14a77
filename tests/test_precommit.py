"""The real pre-commit framework running the ``migrate-lens`` hook of ``.pre-commit-hooks.yaml``.

Slow (pre-commit builds a virtualenv and pip-installs the package from the hook repository's
committed HEAD, which needs hatchling from the package index): marked ``slow``. The hook
repository is this checkout (``MIGRATE_LENS_HOOK_REPO`` overrides it), cloned so that pre-commit
sees exactly its HEAD.

Scenario, in one temporary git repository (the "user" project): ``pre-commit try-repo`` on a
staged ``x.add_(y)`` in ``forward`` fails with the message and the remedy; then, with the hook
installed (``pre-commit install``) real ``git commit``s: clean code passes, an in-place op is
blocked, a baseline written by the installed ``migrate-lens baseline write`` lets existing
findings pass, code moving down the file stays baselined, a suppression comment works.

The in-place rule comes from the shipped catalog when it has one that flags ``x.add_(y)`` in
``forward``; otherwise the user project adds a test rule through ``rule-dirs``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import migrate_lens
from migrate_lens.analysis.engine import analyze_source
from migrate_lens.catalog import load_catalog
from migrate_lens.models import severity_rank

pytestmark = pytest.mark.slow

REPO = Path(os.environ.get("MIGRATE_LENS_HOOK_REPO", Path(migrate_lens.__file__).resolve().parent.parent))
BIN = Path(sys.executable).parent

CLEAN = '''\
import torch
import torch.nn as nn


class Block(nn.Module):
    def forward(self, x, y):
        return x + y
'''
BLOCKED = CLEAN.replace("        return x + y\n", "        x.add_(y)\n        return x\n")

TEST_RULE = '''\
code = "{code}"
name = "test-only-in-place-method"
category = "in-place-mutation"
severity = "high"
confidence = "high"
porting = "mechanical"
effort_hours = {{ optimistic = 0.1, likely = 0.25, pessimistic = 1 }}
message = "in-place tensor method {{detail}}: JAX arrays are immutable"
why = "JAX arrays cannot be written in place."
pattern = "`x.add_(y)`"
remedy = """
Use the out-of-place form: `x = x + y`.
"""
[matcher]
kind = "call"
contexts = ["traced"]
params = {{ methods = ["*_"], exclude = ["__*"] }}
[examples]
flagged = ["""
import torch.nn as nn
class M(nn.Module):
    def forward(self, x, y):
        x.add_(y)
        return x
"""]
clean = ["""
import torch.nn as nn
class M(nn.Module):
    def forward(self, x, y):
        return x + y
"""]
'''


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "PRE_COMMIT_HOME": str(home), "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
            "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@example.com", "PRE_COMMIT_COLOR": "never", "NO_COLOR": "1"}


def run(cwd: Path, env: dict[str, str], *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(list(args), cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def inplace_rule() -> tuple[str, str, str | None]:
    """``(code, remedy first words, rule TOML to add or None)`` for the in-place rule."""
    catalog = load_catalog()
    facts = analyze_source(BLOCKED, "pkg/block.py", "pkg.block", catalog)
    hits = [f for f in facts.findings if f.span.line == 7 and severity_rank(f.severity) >= severity_rank("high")]
    if hits:
        code = hits[0].code
        return code, catalog.by_code()[code].remedy.split()[0], None
    used = {r.code for r in catalog.rules}
    code = next(f"ML3{n:02d}" for n in range(99, 0, -1) if f"ML3{n:02d}" not in used)
    return code, "Use the out-of-place form", TEST_RULE.format(code=code)


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str], str, str]:
    if shutil.which("git") is None or not (BIN / "pre-commit").exists():
        pytest.skip("needs git and pre-commit (pip install pre-commit)")
    base = tmp_path_factory.mktemp("precommit")
    env = _env(base / "home")
    hook = base / "hook"
    run(base, env, "git", "clone", "--quiet", str(REPO), str(hook))
    rev = run(hook, env, "git", "rev-parse", "HEAD").stdout.strip()
    user = base / "user"
    user.mkdir()
    run(user, env, "git", "init", "-q", "-b", "main")
    code, remedy, rule_toml = inplace_rule()
    pyproject = '[project]\nname = "user"\nversion = "0"\n'
    if rule_toml is not None:
        (user / "lint_rules").mkdir()
        (user / "lint_rules" / f"{code}-test-only-in-place-method.toml").write_text(rule_toml, encoding="utf-8")
        pyproject += '\n[tool.migrate-lens]\nrule-dirs = ["lint_rules"]\n'
    (user / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    (user / ".pre-commit-config.yaml").write_text(textwrap.dedent(f"""\
        repos:
        -   repo: {hook}
            rev: {rev}
            hooks:
            -   id: migrate-lens
        """), encoding="utf-8")
    (user / "pkg").mkdir()
    (user / "pkg" / "block.py").write_text(CLEAN, encoding="utf-8")
    run(user, env, "git", "add", ".")
    run(user, env, "git", "commit", "-qm", "initial (no hook yet)")
    return hook, user, env, code, remedy


def commit(user: Path, env: dict[str, str], text: str, message: str) -> subprocess.CompletedProcess[str]:
    (user / "pkg" / "block.py").write_text(text, encoding="utf-8")
    run(user, env, "git", "add", "pkg/block.py")
    return run(user, env, "git", "commit", "-m", message, check=False)


def test_try_repo_blocks_an_in_place_op_in_forward_with_message_and_remedy(setup) -> None:  # type: ignore[no-untyped-def]
    hook, user, env, code, remedy = setup
    (user / "pkg" / "block.py").write_text(BLOCKED, encoding="utf-8")
    (user / "notes.md").write_text("not python\n", encoding="utf-8")
    run(user, env, "git", "add", "pkg/block.py", "notes.md")
    proc = run(user, env, str(BIN / "pre-commit"), "try-repo", str(hook), "migrate-lens",
               "--files", "pkg/block.py", "notes.md", check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "migrate-lens (new JAX-hostile PyTorch code)" in out and "Failed" in out
    assert f"pkg/block.py:7:9: {code} " in out
    assert f"    remedy: {remedy}" in out
    run(user, env, "git", "reset", "-q", "--hard", "HEAD")


def test_commits_through_the_installed_hook(setup) -> None:  # type: ignore[no-untyped-def]
    hook, user, env, code, remedy = setup
    run(user, env, str(BIN / "pre-commit"), "install")

    ok = commit(user, env, CLEAN.replace("return x + y", "return x * y + 1"), "clean change")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "Passed" in ok.stdout + ok.stderr

    blocked = commit(user, env, BLOCKED, "in-place op")
    out = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0, out
    assert f"pkg/block.py:7:9: {code} " in out and f"    remedy: {remedy}" in out

    # Accept today's debt: baseline written by the migrate-lens the hook installed.
    (exe,) = (env_dir / "bin" / "migrate-lens" for env_dir in Path(env["PRE_COMMIT_HOME"]).glob("repo*/py_env-*"))
    written = run(user, env, str(exe), "baseline", "write")
    assert written.stdout.startswith("migrate-lens: wrote "), written.stdout
    run(user, env, "git", "add", ".migrate-lens-baseline.json")
    baselined = commit(user, env, BLOCKED, "in-place op, baselined")
    assert baselined.returncode == 0, baselined.stdout + baselined.stderr

    # Code moving down the file (new lines above) keeps its identity.
    moved = BLOCKED.replace("class Block", "SCALE = 2\nOFFSET = 1\n\n\ndef helper(x):\n    return x\n\n\nclass Block")
    moved_commit = commit(user, env, moved, "move block down")
    assert moved_commit.returncode == 0, moved_commit.stdout + moved_commit.stderr

    # A second, new in-place op is blocked; with a suppression comment it passes.
    extra = moved.replace("        return x\n", "        x.mul_(y)\n        return x\n")
    again = commit(user, env, extra, "second in-place op")
    assert again.returncode != 0 and f"{code} " in again.stdout + again.stderr
    suppressed = extra.replace("x.mul_(y)", f"x.mul_(y)  # migrate-lens: ignore[{code}]")
    fine = commit(user, env, suppressed, "second in-place op, suppressed")
    assert fine.returncode == 0, fine.stdout + fine.stderr
