"""``migrate-lens check`` and ``baseline write``: the per-file gate (migrate_lens.check, check_cli).

Most tests run against a small catalog of two rules, so that expectations are exact whatever
rules the shipped catalog grows: the shipped ML101 (Python ``if`` on a tensor value) and a
test-only in-place rule (``x.add_(y)``; matcher contexts ``traced`` only, so findings in plain
functions are *traced-only* and need the in-file closure).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

import migrate_lens
import migrate_lens.check as check_mod
from migrate_lens.analysis.engine import analyze_source
from migrate_lens.baseline import DEFAULT_BASELINE_NAME, read_baseline
from migrate_lens.catalog import Catalog, load_catalog, parse_rule
from migrate_lens.check import (
    CheckError,
    changed_lines,
    check_json,
    collect,
    find_project_root,
    make_baseline,
    render_github,
    render_text,
    run_check,
)
from migrate_lens.check_cli import baseline as baseline_cli
from migrate_lens.check_cli import check as check_cli

REPO = Path(migrate_lens.__file__).resolve().parent.parent

INPLACE_RULE_TOML = '''
code = "{code}"
name = "test-only-in-place-method"
category = "in-place-mutation"
severity = "high"
failure = "error"
confidence = "high"
porting = "mechanical"
effort_hours = {{ optimistic = 0.1, likely = 0.25, pessimistic = 1 }}
message = "in-place tensor method {{detail}}: JAX arrays are immutable"
why = "JAX arrays cannot be written in place."
pattern = "`x.add_(y)`"
remedy = """
Use the out-of-place form: `x = x + y`
(or `x.at[i].add(y)` for an indexed update).

Second paragraph, not shown by check.
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


def free_inplace_code(catalog: Catalog) -> str:
    """An ML3xx code the shipped catalog does not use (the test rule must not collide)."""
    used = {r.code for r in catalog.rules}
    return next(f"ML3{n:02d}" for n in range(99, 0, -1) if f"ML3{n:02d}" not in used)


SHIPPED = load_catalog()
INPLACE = free_inplace_code(SHIPPED)
INPLACE_RULE = parse_rule(
    Path(f"{INPLACE}-test-only-in-place-method.toml"), tomllib.loads(INPLACE_RULE_TOML.format(code=INPLACE))
)
CATALOG = Catalog(rules=(SHIPPED.by_code()["ML101"], INPLACE_RULE), api=(), digest="test")
INPLACE_REMEDY = "Use the out-of-place form: `x = x + y` (or `x.at[i].add(y)` for an indexed update)."

BLOCK = """\
import torch
import torch.nn as nn


class Block(nn.Module):
    def forward(self, x, y):
        x.add_(y)
        return x
"""

CLEAN = """\
import torch
import torch.nn as nn


class Block(nn.Module):
    def forward(self, x, y):
        return x + y
"""


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project root (pyproject.toml without settings) as the current directory; the CLI's
    catalog is the two-rule test catalog."""
    write(tmp_path, "pyproject.toml", '[project]\nname = "demo"\n')
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(check_mod, "load_catalog", lambda dirs=(): CATALOG)
    return tmp_path


def codes_lines(result: check_mod.CheckResult) -> list[tuple[str, int, str]]:
    return [(c.display_path, c.finding.span.line, c.finding.code) for c in result.new]


# --------------------------------------------------------------------------- findings


def test_in_place_op_in_forward_is_new_with_position_message_and_remedy(project: Path) -> None:
    write(project, "pkg/block.py", BLOCK)
    result = run_check([Path("pkg/block.py")], catalog=CATALOG)
    assert codes_lines(result) == [("pkg/block.py", 7, INPLACE)]
    found = result.new[0]
    assert found.finding.span.column == 8  # 0-based in the model; printed 1-based
    assert found.finding.message == "in-place tensor method .add_(): JAX arrays are immutable"
    assert found.finding.symbol == "pkg.block.Block.forward"
    assert found.remedy == INPLACE_REMEDY
    assert [c.finding.code for c in result.failing("high")] == [INPLACE]
    assert result.files_checked == 1


def test_clean_code_has_no_findings(project: Path) -> None:
    write(project, "pkg/block.py", CLEAN)
    result = run_check([Path("pkg/block.py")], catalog=CATALOG)
    assert result.new == () and result.failing("info") == ()
    assert result.files_checked == 1


def test_non_python_files_are_ignored(project: Path) -> None:
    write(project, "README.md", "x.add_(y)\n")
    write(project, "notes.txt", BLOCK)
    files, skipped = check_mod.expand_paths([Path("README.md"), Path("notes.txt")], project)
    assert files == [] and skipped == []


def test_directory_argument_uses_discovery_and_gitignore(project: Path) -> None:
    write(project, "pkg/block.py", BLOCK)
    write(project, "build/gen.py", BLOCK)
    write(project, ".gitignore", "build/\n")
    files, _ = check_mod.expand_paths([Path(".")], project)
    assert files == [Path("pkg/block.py")]


def test_missing_path_is_a_check_error(project: Path) -> None:
    with pytest.raises(CheckError, match="nope.py: no such file or directory"):
        check_mod.expand_paths([Path("nope.py")], project)


def test_syntax_error_file_is_skipped_not_fatal(project: Path) -> None:
    write(project, "legacy.py", "import torch\nprint 'python 2'\n")
    write(project, "pkg/block.py", BLOCK)
    result = run_check([Path("legacy.py"), Path("pkg/block.py")], catalog=CATALOG)
    assert [s.path for s in result.skipped] == ["legacy.py"]
    assert result.skipped[0].reason.startswith("syntax error at line 2")
    assert codes_lines(result) == [("pkg/block.py", 7, INPLACE)]


def test_undecodable_file_is_skipped_with_the_scan_reason(project: Path) -> None:
    (project / "bin.py").write_bytes(b"x = 1\x00\n")
    result = run_check([Path("bin.py")], catalog=CATALOG)
    assert [(s.path, s.reason) for s in result.skipped] == [("bin.py", "binary file (NUL byte at offset 5)")]


# --------------------------------------------------------------------------- suppressions and config


def test_ignore_comment_silences_and_is_counted(project: Path) -> None:
    write(project, "m.py", BLOCK.replace("x.add_(y)", f"x.add_(y)  # migrate-lens: ignore[{INPLACE}]"))
    result = run_check([Path("m.py")], catalog=CATALOG)
    assert result.new == () and result.ignored == 1


def test_fixme_comment_is_accepted_debt_not_a_failure(project: Path) -> None:
    write(project, "m.py", BLOCK.replace("x.add_(y)", f"x.add_(y)  # migrate-lens: fixme[{INPLACE}] port in Q3"))
    result = run_check([Path("m.py")], catalog=CATALOG)
    assert result.new == () and result.accepted == 1 and result.ignored == 0


def test_ignore_for_another_code_does_not_silence(project: Path) -> None:
    write(project, "m.py", BLOCK.replace("x.add_(y)", "x.add_(y)  # migrate-lens: ignore[ML101]"))
    assert codes_lines(run_check([Path("m.py")], catalog=CATALOG)) == [("m.py", 7, INPLACE)]


def test_config_ignore_per_path_and_severity_from_nearest_pyproject(project: Path) -> None:
    write(project, "a/pyproject.toml", '[tool.migrate-lens]\nignore = ["ML3"]\n')
    write(project, "a/m.py", BLOCK)
    write(project, "b/pyproject.toml", f'[tool.migrate-lens.severity]\n{INPLACE} = "low"\n')
    write(project, "b/m.py", BLOCK)
    write(project, "c/pyproject.toml", f'[tool.migrate-lens.per-path-ignores]\n"tests/*" = ["{INPLACE}"]\n')
    write(project, "c/tests/m.py", BLOCK)
    write(project, "c/src/m.py", BLOCK)
    result = run_check([Path("a/m.py"), Path("b/m.py"), Path("c/tests/m.py"), Path("c/src/m.py")], catalog=CATALOG)
    assert codes_lines(result) == [("b/m.py", 7, INPLACE), ("c/src/m.py", 7, INPLACE)]
    assert {c.display_path: c.finding.severity for c in result.new} == {"b/m.py": "low", "c/src/m.py": "high"}
    assert [c.display_path for c in result.failing("high")] == ["c/src/m.py"]
    # finding paths are relative to their project (c/), as in scan; module names too (src/ dropped)
    assert result.new[1].finding.path == "src/m.py" and result.new[1].finding.symbol == "m.Block.forward"


def test_config_exclude_skips_explicit_files(project: Path) -> None:
    write(project, "pyproject.toml", '[tool.migrate-lens]\nexclude = ["generated/"]\n')
    write(project, "generated/m.py", BLOCK)
    result = run_check([Path("generated/m.py")], catalog=CATALOG)
    assert result.new == () and result.files_checked == 0


def test_bad_config_raises_config_error(project: Path) -> None:
    from migrate_lens.config import ConfigError

    write(project, "pyproject.toml", '[tool.migrate-lens]\ncolour = "blue"\n')
    write(project, "m.py", BLOCK)
    with pytest.raises(ConfigError, match="colour: unknown key"):
        run_check([Path("m.py")], catalog=CATALOG)


# --------------------------------------------------------------------------- traced-only closure

TRACED = """\
import torch
import torch.nn as nn


def helper(x: torch.Tensor, y):
    x.add_(y)
    return x


def unused(x: torch.Tensor):
    x.mul_(2)


def entry(x: torch.Tensor):
    x.sub_(1)


class Base(nn.Module):
    def _scale(self, x: torch.Tensor):
        x.div_(2)

        def inner(z: torch.Tensor):
            z.clamp_(0)
        return inner(x)


class Block(Base):
    def forward(self, x, y):
        return self._scale(helper(x, y))

    def _unused(self, x: torch.Tensor):
        x.abs_()
"""


def test_traced_only_findings_kept_only_when_reachable_from_forward_in_file(project: Path) -> None:
    facts = analyze_source(TRACED, "pkg/m.py", "pkg.m", CATALOG)
    by_symbol = {f.symbol: f.traced_only for f in facts.findings}
    assert by_symbol == {
        "pkg.m.helper": True,
        "pkg.m.unused": True,
        "pkg.m.entry": True,
        "pkg.m.Base._scale": True,
        "pkg.m.Base._scale.inner": True,
        "pkg.m.Block._unused": True,
    }
    write(project, "pkg/m.py", TRACED)
    result = run_check([Path("pkg/m.py")], catalog=CATALOG)
    # helper: called from forward; Base._scale: self._scale resolved through the in-file base;
    # inner: nested in a reachable function. unused, entry, Block._unused: not reachable here.
    assert [(c.finding.symbol, c.finding.context) for c in result.new] == [
        ("pkg.m.helper", "traced"),
        ("pkg.m.Base._scale", "traced"),
        ("pkg.m.Base._scale.inner", "traced"),
    ]


def test_config_traced_entries_reach_the_check(project: Path) -> None:
    write(project, "pyproject.toml", '[tool.migrate-lens]\ntraced-entries = ["pkg.m.entry"]\n')
    write(project, "pkg/m.py", TRACED)
    result = run_check([Path("pkg/m.py")], catalog=CATALOG)
    assert [c.finding.symbol for c in result.new] == [
        "pkg.m.helper",
        "pkg.m.entry",
        "pkg.m.Base._scale",
        "pkg.m.Base._scale.inner",
    ]


# --------------------------------------------------------------------------- baseline


def test_baseline_forgives_existing_findings_and_survives_code_moving_down(project: Path) -> None:
    write(project, "pkg/block.py", BLOCK)
    out = project / DEFAULT_BASELINE_NAME
    baseline, _ = make_baseline([Path(".")], out, catalog=CATALOG)
    assert [(e.code, e.path, e.symbol, e.count) for e in baseline.entries] == [
        (INPLACE, "pkg/block.py", "pkg.block.Block.forward", 1)
    ]
    assert run_check([Path("pkg/block.py")], baseline=baseline, catalog=CATALOG).new == ()
    # 30 lines of new clean code above the class: the finding moves to line 37, still known
    moved = BLOCK.replace("class Block", "".join(f"CONST_{i} = {i}\n" for i in range(30)) + "\n\nclass Block")
    write(project, "pkg/block.py", moved)
    result = run_check([Path("pkg/block.py")], baseline=baseline, catalog=CATALOG)
    assert result.new == () and result.baselined == 1


def test_baseline_is_count_aware_and_symbol_aware(project: Path) -> None:
    write(project, "pkg/block.py", BLOCK)
    baseline, _ = make_baseline([Path("pkg")], project / DEFAULT_BASELINE_NAME, catalog=CATALOG)
    twice = BLOCK.replace("        x.add_(y)\n", "        x.add_(y)\n        x.add_(y)\n")
    write(project, "pkg/block.py", twice)
    assert codes_lines(run_check([Path("pkg/block.py")], baseline=baseline, catalog=CATALOG)) == [
        ("pkg/block.py", 8, INPLACE)
    ]
    # the same snippet in another module's forward is a different fingerprint: new
    write(project, "pkg/block.py", BLOCK)
    write(project, "pkg/other.py", BLOCK)
    assert codes_lines(run_check([Path("pkg/block.py"), Path("pkg/other.py")], baseline=baseline, catalog=CATALOG)) == [
        ("pkg/other.py", 7, INPLACE)
    ]


def test_baseline_paths_are_relative_to_the_baseline_file_whatever_the_cwd(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(project, "pkg/block.py", BLOCK)
    baseline, _ = make_baseline([Path(".")], project / DEFAULT_BASELINE_NAME, catalog=CATALOG)
    monkeypatch.chdir(project / "pkg")
    result = run_check([Path("block.py")], baseline=baseline, baseline_dir=project, catalog=CATALOG)
    assert result.new == () and result.baselined == 1


def test_baseline_write_cli_is_deterministic_and_check_uses_it_by_default(project: Path) -> None:
    write(project, "pkg/block.py", BLOCK)
    write(
        project,
        "pkg/gate.py",
        """\
        import torch
        import torch.nn as nn


        class Gate(nn.Module):
            def forward(self, x, keep):
                if torch.all(keep == 1):
                    x = x * 2
                return x * keep
        """,
    )
    runner = CliRunner()
    first = runner.invoke(baseline_cli, ["write"])
    assert first.exit_code == 0, first.output
    assert first.output == f"migrate-lens: wrote 2 findings (2 fingerprints) from 2 files to {DEFAULT_BASELINE_NAME}\n"
    text = (project / DEFAULT_BASELINE_NAME).read_text(encoding="utf-8")
    assert runner.invoke(baseline_cli, ["write", "."]).exit_code == 0
    assert (project / DEFAULT_BASELINE_NAME).read_text(encoding="utf-8") == text
    rows = json.loads(text)["findings"]
    assert [(r["path"], r["code"]) for r in rows] == [("pkg/block.py", INPLACE), ("pkg/gate.py", "ML101")]

    clean = runner.invoke(check_cli, ["pkg/block.py", "pkg/gate.py"])
    assert clean.exit_code == 0, clean.output
    assert clean.output == "migrate-lens: no new findings in 2 files; 2 in the baseline.\n"
    ignoring = runner.invoke(check_cli, ["--no-baseline", "pkg/block.py"])
    assert ignoring.exit_code == 1


def test_baseline_write_to_another_directory(project: Path) -> None:
    write(project, "pkg/block.py", BLOCK)
    (project / "ci").mkdir()
    result = CliRunner().invoke(baseline_cli, ["write", "pkg", "-o", "ci/base.json"])
    assert result.exit_code == 0, result.output
    assert [e.path for e in read_baseline(project / "ci" / "base.json").entries] == ["../pkg/block.py"]
    ok = CliRunner().invoke(check_cli, ["--baseline", "ci/base.json", "pkg/block.py"])
    assert ok.exit_code == 0, ok.output


# --------------------------------------------------------------------------- diff mode


def git(root: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True, env=env).stdout


def test_diff_mode_reports_only_findings_on_changed_lines(project: Path) -> None:
    git(project, "init", "-q", "-b", "main")
    write(project, "pkg/block.py", BLOCK)
    git(project, "add", ".")
    git(project, "commit", "-qm", "old debt")
    write(project, "pkg/block.py", BLOCK.replace("        return x\n", "        x.mul_(y)\n        return x\n"))
    write(project, "pkg/new.py", BLOCK)  # untracked: every line is new
    result = run_check([Path("pkg/block.py"), Path("pkg/new.py")], diff_ref="HEAD", catalog=CATALOG)
    assert codes_lines(result) == [("pkg/block.py", 8, INPLACE), ("pkg/new.py", 7, INPLACE)]
    assert result.outside_diff == 1
    changed = changed_lines("HEAD", project)
    assert changed[(project / "pkg/block.py").resolve()] == frozenset({8})
    assert changed[(project / "pkg/new.py").resolve()] is None


def test_diff_mode_errors_are_check_errors(project: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    git(project, "init", "-q", "-b", "main")
    write(project, "m.py", CLEAN)
    with pytest.raises(CheckError, match="git"):
        run_check([Path("m.py")], diff_ref="no-such-ref", catalog=CATALOG)
    result = CliRunner().invoke(check_cli, ["--diff", "no-such-ref", "m.py"])
    assert result.exit_code == 2
    assert "migrate-lens: error: git diff" in result.output


# --------------------------------------------------------------------------- output formats and exit codes


def test_text_format_lines_remedy_and_summary(project: Path) -> None:
    write(project, "pkg/block.py", BLOCK)
    write(project, "README.md", "# demo\n")
    result = CliRunner().invoke(check_cli, ["pkg/block.py", "README.md"])
    assert result.exit_code == 1
    assert result.output == (
        f"pkg/block.py:7:9: {INPLACE} in-place tensor method .add_(): JAX arrays are immutable\n"
        f"    remedy: {INPLACE_REMEDY}\n"
        "migrate-lens: 1 new finding in 1 file (1 at or above high).\n"
    )


def test_github_format_annotations(project: Path) -> None:
    write(project, "pkg/block.py", BLOCK)
    result = CliRunner().invoke(check_cli, ["--format", "github", "pkg/block.py"])
    assert result.exit_code == 1
    first = result.output.splitlines()[0]
    assert first == (
        f"::error file=pkg/block.py,line=7,col=9,endLine=7,endColumn=18,title={INPLACE}::"
        f"in-place tensor method .add_(): JAX arrays are immutable%0ARemedy: {INPLACE_REMEDY}"
    )


def test_github_format_escapes_and_grades_by_fail_on(project: Path) -> None:
    import io
    from dataclasses import replace

    write(project, "we,ird:name.py", BLOCK)
    result = run_check([Path("we,ird:name.py")], catalog=CATALOG)
    out = io.StringIO()
    render_github(
        replace(
            result, new=(replace(result.new[0], finding=replace(result.new[0].finding, message="50% done\nnext")),)
        ),
        "critical",
        out,
    )
    line = out.getvalue().splitlines()[0]
    assert line.startswith("::warning file=we%2Cird%3Aname.py,line=7,")
    assert line.endswith("::50%25 done%0Anext%0ARemedy: " + INPLACE_REMEDY)


def test_json_format(project: Path) -> None:
    write(project, "pkg/block.py", BLOCK)
    result = CliRunner().invoke(check_cli, ["--format", "json", "pkg/block.py"])
    assert result.exit_code == 1
    doc = json.loads(result.output)
    assert doc["failed"] is True and doc["fail_on"] == "high"
    assert doc["summary"] == {
        "files_checked": 1,
        "new": 1,
        "failing": 1,
        "baselined": 0,
        "outside_diff": 0,
        "accepted": 0,
        "ignored": 0,
        "skipped": 0,
        "unchecked": 0,
    }
    (f,) = doc["findings"]
    assert {
        k: f[k]
        for k in (
            "path",
            "line",
            "column",
            "end_line",
            "end_column",
            "code",
            "severity",
            "remedy",
            "symbol",
            "context",
            "snippet",
            "blocking",
        )
    } == {
        "path": "pkg/block.py",
        "line": 7,
        "column": 9,
        "end_line": 7,
        "end_column": 18,
        "code": INPLACE,
        "severity": "high",
        "remedy": INPLACE_REMEDY,
        "symbol": "pkg.block.Block.forward",
        "context": "traced",
        "snippet": "x.add_(y)",
        "blocking": True,
    }
    assert len(f["fingerprint"]) == 64
    assert check_json(run_check([Path("pkg/block.py")], catalog=CATALOG), "high") == doc


def test_fail_on_threshold(project: Path) -> None:
    write(project, "pyproject.toml", f'[tool.migrate-lens.severity]\n{INPLACE} = "medium"\n')
    write(project, "pkg/block.py", BLOCK)
    runner = CliRunner()
    below = runner.invoke(check_cli, ["pkg/block.py"])
    assert below.exit_code == 0
    assert below.output.endswith("migrate-lens: 1 new finding in 1 file (0 at or above high).\n")
    assert runner.invoke(check_cli, ["--fail-on", "medium", "pkg/block.py"]).exit_code == 1
    assert runner.invoke(check_cli, ["--fail-on", "severe", "pkg/block.py"]).exit_code == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope.py"], "nope.py: no such file or directory"),
        (["--baseline", "absent.json", "m.py"], "does not exist"),
        (["--baseline", "bad.json", "--no-baseline", "m.py"], "exclude each other"),
        (["--baseline", "bad.json", "m.py"], "bad.json: not JSON"),
    ],
    ids=["missing-file", "missing-baseline", "both-baseline-flags", "malformed-baseline"],
)
def test_usage_errors_exit_2(project: Path, args: list[str], message: str) -> None:
    write(project, "m.py", CLEAN)
    write(project, "bad.json", "{oops")
    result = CliRunner().invoke(check_cli, args)
    assert result.exit_code == 2
    assert message in result.output


def test_a_file_that_cannot_be_checked_fails_the_gate(project: Path) -> None:
    write(project, "legacy.py", "import torch\nprint 'python 2'\n")
    result = CliRunner().invoke(check_cli, ["legacy.py"])
    assert result.exit_code == 1
    skipped, summary = result.output.splitlines()
    assert skipped.startswith("legacy.py: not checked: syntax error at line 2")
    assert summary == ("migrate-lens: no new findings in 0 files; 1 file skipped. Failed: 1 file could not be "
                       "checked (fix it, or list it under exclude in [tool.migrate-lens] to leave it out on purpose).")


def test_text_render_lists_rule_errors(project: Path) -> None:
    import io
    from dataclasses import replace

    from migrate_lens.models import RuleError

    result = replace(run_check([], catalog=CATALOG), rule_errors=(("m.py", RuleError("ML101", "KeyError: 'x'")),))
    out = io.StringIO()
    render_text(result, "high", out)
    assert out.getvalue().splitlines() == [
        "m.py: rule ML101 failed: KeyError: 'x'",
        "migrate-lens: no new findings in 0 files.",
    ]


# --------------------------------------------------------------------------- project roots


def test_project_root_falls_back_to_the_package_parent(tmp_path: Path) -> None:
    write(tmp_path, "lib/timm/layers/__init__.py", "")
    write(tmp_path, "lib/timm/__init__.py", "")
    write(tmp_path, "lib/timm/layers/block.py", BLOCK)
    if any((p / "pyproject.toml").exists() or (p / ".git").exists() for p in (tmp_path, *tmp_path.parents)):
        pytest.skip("temporary directory lies inside a project")
    assert find_project_root(tmp_path / "lib/timm/layers") == (tmp_path / "lib").resolve()
    collected = collect([tmp_path / "lib/timm/layers/block.py"], cwd=tmp_path, catalog=CATALOG)
    assert [f.symbol for f, *_ in collected.findings] == ["timm.layers.block.Block.forward"]


# --------------------------------------------------------------------------- speed-critical imports


def test_check_imports_no_graph_template_or_report_code(tmp_path: Path) -> None:
    write(tmp_path, "pyproject.toml", "")
    write(tmp_path, "m.py", BLOCK)
    probe = textwrap.dedent("""
        import sys
        from migrate_lens.check_cli import check
        try:
            check(["m.py"])
        except SystemExit:
            pass
        heavy = {"networkx", "jinja2", "rich", "matplotlib", "torch", "jax", "migrate_lens.report",
                 "migrate_lens.pipeline", "migrate_lens.graph", "migrate_lens.estimate"}
        print(sorted(m for m in sys.modules if m in heavy or m.split(".")[0] in heavy))
    """)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, env=env, check=True
    ).stdout
    assert out.splitlines()[-1] == "[]"


def test_check_through_the_main_cli_imports_no_heavy_modules(tmp_path: Path) -> None:
    cli = pytest.importorskip("migrate_lens.cli")
    if "check" not in cli.main.list_commands(None):
        pytest.skip("check is not registered in migrate_lens.cli yet")
    write(tmp_path, "pyproject.toml", "")
    write(tmp_path, "m.py", CLEAN)
    probe = textwrap.dedent("""
        import sys
        from migrate_lens.cli import main
        try:
            main(["check", "m.py"])
        except SystemExit as exc:
            print("exit", exc.code)
        print(sorted(m for m in sys.modules if m.split(".")[0] in {"networkx", "jinja2", "rich", "matplotlib"}))
    """)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, env=env, check=True
    ).stdout
    assert out.splitlines()[-2:] == ["exit 0", "[]"]


def test_files_without_a_marker_get_no_rules_as_in_scan(project: Path) -> None:
    write(project, "pyproject.toml", '[tool.migrate-lens]\nmarkers = ["MARKER"]\n')
    write(project, "plain.py", BLOCK)
    write(project, "marked.py", "# MARKER\n" + BLOCK)
    result = run_check([Path("plain.py"), Path("marked.py")], catalog=CATALOG)
    assert result.files_checked == 2
    assert codes_lines(result) == [("marked.py", 8, INPLACE)]


def test_worker_pool_gives_the_same_result_as_one_process(project: Path) -> None:
    files = []
    for i in range(check_mod.POOL_MIN_FILES + 2):
        text = BLOCK if i % 2 else CLEAN
        files.append(write(project, f"pkg/m{i}.py", text).relative_to(project))
    write(project, "pkg/broken.py", "import torch\nprint 'x'\n")
    files.append(Path("pkg/broken.py"))
    one = run_check(files, catalog=CATALOG, jobs=1)
    pooled = run_check(files, catalog=CATALOG, jobs=2)
    assert pooled == one
    assert [c.display_path for c in one.new] == [f"pkg/m{i}.py" for i in range(1, check_mod.POOL_MIN_FILES + 2, 2)]
    assert [s.path for s in one.skipped] == ["pkg/broken.py"]


def test_pre_commit_hook_definition_runs_check_on_python_files_and_notebooks() -> None:
    yaml = pytest.importorskip("yaml")
    (hook,) = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert hook["id"] == "migrate-lens"
    assert hook["entry"] == "migrate-lens check --"  # file names never become options
    assert hook["language"] == "python" and hook["types_or"] == ["python", "jupyter"]
    assert hook["require_serial"] is True  # one process; check runs its own worker pool


# --------------------------------------------------------------------------- shared per-file analysis


def _notebook(*cells: str) -> str:
    return json.dumps({
        "cells": [{"cell_type": "code", "id": f"c{i}", "metadata": {}, "source": src, "outputs": [],
                   "execution_count": None} for i, src in enumerate(cells)],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
    })


def test_nesting_that_crashes_libcst_is_skipped_not_a_crash(project: Path) -> None:
    # 5000 nested parentheses overflow libcst's native parser stack (SIGSEGV) when handed to it
    write(project, "deep.py", "import torch\nx = " + "(" * 5000 + "1" + ")" * 5000 + "\n")
    write(project, "pkg/block.py", BLOCK)
    proc = subprocess.run([sys.executable, "-m", "migrate_lens.cli", "check", "--fail-on", "medium", "deep.py",
                           "pkg/block.py"], cwd=project, capture_output=True, text=True, check=False)
    assert proc.returncode == 1, proc.stderr  # the new (medium) finding in block.py fails the hook; no signal
    assert "deep.py" in proc.stdout + proc.stderr and "nesting too deep" in proc.stdout + proc.stderr
    result = run_check([Path("deep.py")], catalog=CATALOG, jobs=1)
    assert [(s.path, s.reason.split(" at ")[0]) for s in result.skipped] == [("deep.py", "nesting too deep")]


def test_notebook_code_cells_are_checked(project: Path) -> None:
    write(project, "nb.ipynb", _notebook("import torch\nimport torch.nn as nn\n", BLOCK.split("\n\n\n", 1)[1]))
    result = run_check([Path("nb.ipynb")], catalog=CATALOG, jobs=1)
    assert [(c.display_path, c.finding.code) for c in result.new] == [("nb.ipynb", INPLACE)]
    assert result.new[0].finding.message.startswith("cell 1, line 3: ")
    assert check_mod.expand_paths([Path(".")], project)[0] == [Path("nb.ipynb")]


def test_changed_notebook_keeps_all_its_findings_in_diff_mode(project: Path) -> None:
    git(project, "init", "-q", "-b", "main")
    write(project, "nb.ipynb", _notebook("import torch\nimport torch.nn as nn\n", BLOCK.split("\n\n\n", 1)[1]))
    git(project, "add", ".")
    git(project, "commit", "-qm", "old")
    result = run_check([Path("nb.ipynb")], diff_ref="HEAD", catalog=CATALOG, jobs=1)
    assert result.new == () and result.outside_diff == 1  # unchanged: nothing new
    write(project, "nb.ipynb", _notebook("import torch\nimport torch.nn as nn\n# edited\n",
                                         BLOCK.split("\n\n\n", 1)[1]))
    result = run_check([Path("nb.ipynb")], diff_ref="HEAD", catalog=CATALOG, jobs=1)
    # JSON diff lines do not map to code-cell lines: the changed notebook's findings are kept
    assert [c.finding.code for c in result.new] == [INPLACE]
