"""Markdown PR comment: the decision and figures of the view, bounded, injection-safe."""

from __future__ import annotations

import importlib.util
import pathlib
import re

from migrate_lens.report import markdown

ROOT = pathlib.Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("report_synthetic", ROOT / "fixtures" / "report" / "synthetic.py")
assert _spec and _spec.loader
synthetic = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(synthetic)


def test_summary_shows_decision_effort_risk_blockers_and_hard_modules(tmp_path: pathlib.Path) -> None:
    view = synthetic.sample_view()
    text = markdown.render(view, tmp_path).read_text(encoding="utf-8")
    assert "**Decision: Pilot first.**" in text
    assert "| 15 likely, 27 with 90% confidence | 0.4 months likely, 0.7 months with 90% confidence | 57/100 | 3.4 months (horizon 24 months) |" in text
    blockers = re.findall(r"^(\d)\. \*\*(.+?)\*\* \(([a-z/-]+): ([A-Z0-9, ]+)\)", text, re.M)
    assert [(b[2], b[3]) for b in blockers] == [
        ("custom-op", "ML401, ML402"), ("data-dependent-shape", "ML201"), ("dynamic-control-flow", "ML101")]
    assert "| `tinyseg.ops.nms.NMSFunction` | blocked | 92 | 7.4 |" in text
    assert "| custom-op | 2 | 3 |" in text and "| base porting | 0 | 6.9 |" in text
    # pure and mechanical modules are not listed as hard
    assert "tinyseg.models.blocks.MLP" not in text


def test_length_is_bounded_for_large_projects() -> None:
    text = markdown.build(synthetic.synthetic_view(n_files=700))
    assert len(text) < 8000
    assert "…and " in text and "more (see report.html)" in text
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert len(rows) == markdown.MAX_ROWS


def test_hostile_strings_cannot_inject_markdown_or_html() -> None:
    text = markdown.build(synthetic.hostile_view())
    # code spans show their content as text (CommonMark 6.1); outside them no raw '<' may remain
    outside = re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", text)
    assert "<" not in outside.replace("<sub>", "").replace("</sub>", "")
    assert "&lt;/script&gt;" in text
    # table rows keep their column count although names contain '|'
    for line in text.splitlines():
        if line.startswith("| `"):
            cells = re.split(r"(?<!\\)\|", line)
            assert len(cells) == 6, line


def test_md_escape_and_code_span() -> None:
    assert markdown.md_escape("a_b*c <x> & [l](u)") == "a\\_b\\*c &lt;x&gt; &amp; \\[l\\](u)"
    assert markdown.md_escape("# title") == "\\# title"
    assert markdown.md_code("a`b|c").text == "``a`b\\|c``"
