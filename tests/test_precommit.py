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

The in-place rule is the shipped one that flags ``x.add_(y)`` in ``forward`` (ML301, severity
medium: a mechanical fix, below the default ``--fail-on high``). The user's config is the README's
snippet as written (``rev: main``) with the clone as ``repo:``, and the hook's options are the
README's ``[tool.migrate-lens.check]`` table (``fail-on`` = the rule's severity): the hook's
entry ends option parsing, so ``args:`` would be file names.
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

pytestmark = pytest.mark.slow

REPO = Path(os.environ.get("MIGRATE_LENS_HOOK_REPO", Path(migrate_lens.__file__).resolve().parent.parent))
BIN = Path(sys.executable).parent

CLEAN = """\
import torch
import torch.nn as nn


class Block(nn.Module):
    def forward(self, x, y):
        return x + y
"""
BLOCKED = CLEAN.replace("        return x + y\n", "        x.add_(y)\n        return x\n")

#: (hook clone, user repository, environment, in-place rule code, start of its remedy)
Setup = tuple[Path, Path, dict[str, str], str, str]


def _env(home: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PRE_COMMIT_HOME": str(home),
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "PRE_COMMIT_COLOR": "never",
        "NO_COLOR": "1",
    }


def run(cwd: Path, env: dict[str, str], *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(list(args), check=False, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def inplace_rule() -> tuple[str, str, str]:
    """``(code, first words of the remedy, severity)`` of the shipped rule that flags
    ``x.add_(y)`` in ``forward`` (ML301 today)."""
    catalog = load_catalog()
    facts = analyze_source(BLOCKED, "pkg/block.py", "pkg.block", catalog)
    hits = [f for f in facts.findings if f.span.line == 7]
    if not hits:
        pytest.skip("the shipped catalog has no rule flagging x.add_(y) in forward")
    rule = catalog.by_code()[hits[0].code]
    return rule.code, " ".join(rule.remedy.split()[:4]), hits[0].severity


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Setup:
    """(hook clone, user repo, environment, in-place rule code, remedy start)."""
    if shutil.which("git") is None or not (BIN / "pre-commit").exists():
        pytest.skip("needs git and pre-commit (pip install pre-commit)")
    base = tmp_path_factory.mktemp("precommit")
    env = _env(base / "home")
    hook = base / "hook"
    run(base, env, "git", "clone", "--quiet", str(REPO), str(hook))
    # the README's snippet as written, with this checkout's clone as `repo:`; its `rev: main`
    # must exist there (the clone of a worktree on another branch gets a `main` at its HEAD)
    run(hook, env, "git", "checkout", "-q", "-B", "main")
    user = base / "user"
    user.mkdir()
    run(user, env, "git", "init", "-q", "-b", "main")
    code, remedy, severity = inplace_rule()
    snippet = readme_snippet("yaml")
    assert "rev: main" in snippet
    (user / ".pre-commit-config.yaml").write_text(
        snippet.replace("https://github.com/migrate-lens/migrate-lens", str(hook)), encoding="utf-8")
    options = readme_snippet("toml")
    assert options.startswith("[tool.migrate-lens.check]") and 'fail-on = "medium"' in options
    user_options = options.replace('fail-on = "medium"', f'fail-on = "{severity}"')
    (user / "pyproject.toml").write_text('[project]\nname = "user"\nversion = "0"\n\n' + user_options, encoding="utf-8")
    (user / "pkg").mkdir()
    (user / "pkg" / "block.py").write_text(CLEAN, encoding="utf-8")
    run(user, env, "git", "add", ".")
    run(user, env, "git", "commit", "-qm", "initial (no hook yet)")
    return hook, user, env, code, remedy


def readme_snippet(lang: str) -> str:
    """The first ``lang`` code block of the README's "Pre-commit" section."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Pre-commit"):]
    start = section.index(f"```{lang}\n") + len(lang) + 4
    return section[start:section.index("```", start)]


def commit(user: Path, env: dict[str, str], text: str, message: str) -> subprocess.CompletedProcess[str]:
    (user / "pkg" / "block.py").write_text(text, encoding="utf-8")
    run(user, env, "git", "add", "pkg/block.py")
    return run(user, env, "git", "commit", "-m", message, check=False)


def test_try_repo_blocks_an_in_place_op_in_forward_with_message_and_remedy(setup: Setup) -> None:
    hook, user, env, code, remedy = setup
    (user / "pkg" / "block.py").write_text(BLOCKED, encoding="utf-8")
    (user / "notes.md").write_text("not python\n", encoding="utf-8")
    # try-repo runs the hook with its default arguments (--fail-on high), so the user project
    # raises the in-place rule to that threshold in its config instead.
    pyproject = user / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text(encoding="utf-8") + f'\n[tool.migrate-lens.severity]\n{code} = "high"\n', encoding="utf-8"
    )
    run(user, env, "git", "add", "pkg/block.py", "notes.md", "pyproject.toml")
    proc = run(
        user,
        env,
        str(BIN / "pre-commit"),
        "try-repo",
        str(hook),
        "migrate-lens",
        "--files",
        "pkg/block.py",
        "notes.md",
        check=False,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "migrate-lens (new JAX-hostile PyTorch code)" in out and "Failed" in out
    assert f"pkg/block.py:7:9: {code} " in out
    assert f"    remedy: {remedy}" in out
    run(user, env, "git", "reset", "-q", "--hard", "HEAD")  # also restores pyproject.toml


def test_commits_through_the_installed_hook(setup: Setup) -> None:
    _hook, user, env, code, remedy = setup
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
