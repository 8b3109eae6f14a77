"""Terminal summary (rich): what a scan found, what it costs, how risky it is, how long it took.

Prints to the :class:`rich.console.Console` it is given, so the CLI decides colour, width,
``--quiet`` and ``NO_COLOR``. Every string from the view is passed as a :class:`rich.text.Text`
(never parsed as console markup), so ``[bold]`` in scanned identifiers prints literally, and
control characters in them print as escapes (``\\x1b``), never raw.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from migrate_lens.report import summary as _summary
from migrate_lens.safetext import printable

SEVERITY_STYLE: dict[str, str] = {
    "critical": "bold red",
    "high": "red",
    "medium": "yellow",
    "low": "cyan",
    "info": "dim",
}
VERDICT_STYLE: dict[str, str] = {"go": "bold green", "pilot-first": "bold yellow", "not-now": "bold red"}


def _t(text: str, style: str = "") -> Text:
    """A table cell: ``text`` (names, paths, headlines from the scanned tree) as plain text,
    never console markup, with control characters escaped (:func:`migrate_lens.safetext.printable`)."""
    return Text(printable(text), style=style)


def build(view: dict[str, Any]) -> list[Table | Text]:
    """The renderables, in print order: summary table, findings-by-category table, blockers."""
    s = view["summary"]
    est = view["estimate"]
    verdict = est["decision"]["verdict"]
    d = _summary.digest(view)
    fmt, days = _summary.fmt_num, _summary.fmt_days

    head = Table(title="migrate-lens: PyTorch -> JAX assessment", show_header=False, title_justify="left")
    head.add_column("what", style="bold")
    head.add_column("value")
    head.add_row("Decision", _t(_summary.VERDICT_PLAIN.get(verdict, verdict), style=VERDICT_STYLE.get(verdict, "")))
    head.add_row("", _t(est["decision"]["headline"]))
    files = f"{fmt(s['files_scanned'])} scanned, {fmt(s['files_prefiltered'])} pre-filtered, {fmt(s['files_skipped'])} skipped"
    head.add_row("Files", _t(files))
    head.add_row("Lines of code", _t(fmt(s["lines_of_code"])))
    sev = Text()
    for name in reversed(_summary.SEVERITIES):
        n = s["findings_by_severity"][name]
        if n:
            sev.append(f"{name} {fmt(n)}  ", style=SEVERITY_STYLE[name])
    found = _t(f"{fmt(s['findings_total'])} ({fmt(s['findings_ignored'])} ignored)  ")
    head.add_row("Findings", found + sev)
    e, w = est["effort_person_days"], est["calendar_months"]
    months = _summary.fmt_months
    head.add_row("Effort", _t(f"{days(e['p50'])} person-days likely, {days(e['p90'])} with 90% confidence; "
                                f"{months(w['p50'])} likely, {months(w['p90'])} with 90% confidence"))
    head.add_row("Risk", _t(f"{est['risk_score']}/100"))
    roi = est["roi"]
    money = _summary.fmt_money
    if not roi["cost"]["p50"]:
        head.add_row("Payback", _t("n/a (nothing to port)"))
    elif roi["payback_months"]["mid"] is None:
        head.add_row("Payback", _t(f"cost {money(roi['cost']['p50'], roi['currency'])} likely; no monthly spend given: pays "
                                     f"back within {fmt(roi['horizon_months'])} months if the monthly accelerator spend is "
                                     f"at least {money(roi['breakeven_monthly_spend'], roi['currency'])} (break-even)"))
    else:
        head.add_row("Payback", _t(f"{months(roi['payback_months']['mid'])} (horizon {fmt(roi['horizon_months'])} months); "
                                     f"cost {money(roi['cost']['p50'], roi['currency'])} likely"))
    st = d["status_counts"]
    head.add_row("Modules", _t(", ".join(f"{fmt(n)} {k}" for k, n in st.items())))
    if s["rule_errors"]:
        head.add_row("Rule errors", _t(fmt(s["rule_errors"]), style="red"))
    head.add_row("Time", _t(f"{s['duration_s']:.2f} s"))

    cats = Table(title="Where the work is", title_justify="left")
    cats.add_column("kind of work")
    cats.add_column("findings", justify="right")
    cats.add_column("person-days likely", justify="right")
    for row in d["categories"]:
        cats.add_row(_t(row["category"]), fmt(row["count"]), days(row["p50"]))

    out: list[Table | Text] = [head, cats]
    if d["blockers"]:
        blk = Table(title="Top blockers", title_justify="left")
        blk.add_column("#", justify="right")
        blk.add_column("obstacle")
        blk.add_column("where")
        blk.add_column("person-days", justify="right")
        for i, b in enumerate(d["blockers"], 1):
            blk.add_row(str(i), _t(f"{b.plain} ({', '.join(b.rules)})"), _t(f"{_summary.plural(b.count, 'place')}, e.g. {b.example}"), days(b.effort_person_days))
        out.append(blk)
    return out


def render(view: dict[str, Any], console: Console) -> None:
    """Print the summary tables to ``console``. Raises KeyError if ``view`` breaks the contract."""
    for item in build(view):
        console.print(item)
