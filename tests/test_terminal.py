"""Terminal renderer: prints the summary figures on the console it is given, markup-safe."""

from __future__ import annotations

import importlib.util
import pathlib

from rich.console import Console

from migrate_lens.report import terminal

ROOT = pathlib.Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("report_synthetic", ROOT / "fixtures" / "report" / "synthetic.py")
assert _spec and _spec.loader
synthetic = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(synthetic)


def _text(view: dict, width: int = 160) -> str:
    console = Console(width=width, record=True, color_system=None, force_terminal=False)
    terminal.render(view, console)
    return console.export_text()


def test_summary_table_has_files_findings_effort_risk_time() -> None:
    out = _text(synthetic.sample_view())
    assert "Pilot first" in out
    assert "6 scanned, 2 pre-filtered, 2 skipped" in out
    assert "17 (1 ignored)  critical 1  high 5  medium 6  low 2  info 3" in out
    assert "15 person-days likely, 27 with 90% confidence; 0.4 months likely, 0.7 months with 90% confidence" in out
    assert "57/100" in out
    assert "0.84 s" in out
    assert "2 pure, 4 mechanical, 2 redesign, 1 blocked" in out
    assert "custom-op" in out and "(ML401, ML402)" in out


def test_scanned_strings_are_not_console_markup() -> None:
    out = _text(synthetic.hostile_view(), width=400)
    assert "[bold]b[/bold]" in out


def test_uses_the_given_console_only(capsys) -> None:  # type: ignore[no-untyped-def]
    console = Console(file=open("/dev/null", "w"), width=100)  # noqa: SIM115
    terminal.render(synthetic.sample_view(), console)
    console.file.close()
    assert capsys.readouterr().out == ""
