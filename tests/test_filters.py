"""Config applied to findings: select/ignore prefixes, per-path ignores, severity overrides,
ignore-suppressions counted, fixme kept."""

from __future__ import annotations

from migrate_lens.config import Config
from migrate_lens.filters import apply_config
from migrate_lens.models import Finding, Span


def _f(code: str, path: str = "pkg/mod.py", suppressed: str = "") -> Finding:
    return Finding(code=code, severity="high", path=path, span=Span(1, 0, 1, 1), symbol="pkg.mod",
                   context="traced", message="m", snippet="x", suppressed=suppressed)


def test_select_and_ignore_by_prefix() -> None:
    findings = [_f("ML101"), _f("ML201"), _f("ML301")]
    kept, _ = apply_config(findings, Config(select=("ML1", "ML2"), ignore=("ML2",)))
    assert [f.code for f in kept] == ["ML101"]


def test_per_path_ignores_use_gitignore_patterns() -> None:
    findings = [_f("ML501", "tests/test_x.py"), _f("ML501", "pkg/mod.py")]
    kept, _ = apply_config(findings, Config(per_path_ignores=(("tests/**", ("ML5",)),)))
    assert [f.path for f in kept] == ["pkg/mod.py"]


def test_severity_override_and_suppressions() -> None:
    findings = [_f("ML101"), _f("ML102", suppressed="ignore"), _f("ML103", suppressed="fixme")]
    kept, ignored = apply_config(findings, Config(severity=(("ML101", "low"),)))
    assert ignored == 1
    assert [(f.code, f.severity, f.suppressed) for f in kept] == [("ML101", "low", ""), ("ML103", "high", "fixme")]
