"""HTML report without a browser: self-contained, escaped, safe JSON embedding, safe charts."""

from __future__ import annotations

import html as htmllib
import importlib.util
import json
import pathlib
import re
from html.parser import HTMLParser

import pytest

from migrate_lens.report import charts, html

ROOT = pathlib.Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("report_synthetic", ROOT / "fixtures" / "report" / "synthetic.py")
assert _spec and _spec.loader
synthetic = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(synthetic)


class _Tags(HTMLParser):
    """Collects start tags with their attributes and the text of <script> elements."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"
        if self._in_script:
            self.scripts.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts[-1] += data


def _parse(text: str) -> _Tags:
    p = _Tags()
    p.feed(text)
    return p


@pytest.fixture(scope="module")
def sample_html() -> str:
    return html.build(synthetic.sample_view())


@pytest.fixture(scope="module")
def hostile_html() -> str:
    return html.build(synthetic.hostile_view())


def test_render_writes_report_html(tmp_path: pathlib.Path) -> None:
    path = html.render(synthetic.sample_view(), tmp_path)
    assert path == tmp_path / "report.html"
    assert path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_self_contained_no_external_resources(sample_html: str) -> None:
    tags = _parse(sample_html).tags
    for tag, attrs in tags:
        assert not (tag == "script" and attrs.get("src")), "external script"
        assert not (tag == "link"), "external stylesheet or font"
        assert not (tag in ("img", "iframe", "source", "video", "audio") and attrs.get("src")), tag
    assert "@import" not in sample_html and "url(http" not in sample_html
    assert "default-src 'none'" in sample_html  # CSP forbids network even if something slipped in


def first_screen_facts(view: dict) -> dict[str, str]:
    """The figures the first screen must show, by ``data-fact`` key, formatted as the page does
    (shared with the browser test)."""
    from migrate_lens.report import summary as sm

    est = view["estimate"]
    roi = est["roi"]
    cur = roi["currency"]
    facts = {
        "effort.p10": sm.fmt_days(est["effort_person_days"]["p10"]),
        "effort.p50": sm.fmt_days(est["effort_person_days"]["p50"]),
        "effort.p90": sm.fmt_days(est["effort_person_days"]["p90"]),
        "code_lines": sm.fmt_num(est["code_lines"]),
        "calendar.p50": sm.fmt_months(est["calendar_months"]["p50"]),
        "calendar.p90": sm.fmt_months(est["calendar_months"]["p90"]),
        "cost.p50": sm.fmt_money(roi["cost"]["p50"], cur),
        "day_rate": sm.fmt_money(est["assumptions"]["day_rate"], cur),  # what the cost is in
    }
    if roi["payback_months"]["mid"] is None:
        facts["breakeven"] = sm.fmt_money(roi["breakeven_monthly_spend"], cur)
    else:
        for k in ("mid", "low", "high"):
            facts[f"payback.{k}"] = sm.fmt_months(roi["payback_months"][k])
        facts["net12.low"] = sm.fmt_money(roi["net_12_months"]["low"], cur)
        facts["net12.high"] = sm.fmt_money(roi["net_12_months"]["high"], cur)
    for b in sm.blockers(view, 3):
        facts[f"blocker.{b.category}"] = sm.fmt_days(b.effort_person_days)
    if view["plan"]["pilot"]:
        facts["pilot.p50"] = sm.fmt_days(view["plan"]["pilot"]["effort_person_days"]["p50"])
    elif view["plan"]["waves"]:
        facts["wave1.p50"] = sm.fmt_days(view["plan"]["waves"][0]["effort_person_days"]["p50"])
    for i, d in enumerate(est["drivers"][:5], 1):
        facts[f"driver.{i}"] = sm.fmt_days(d["effort_person_days"])
    return facts


def test_first_screen_figures_match_view(sample_html: str) -> None:
    import re

    view = synthetic.sample_view()
    est = view["estimate"]
    assert 'data-verdict="pilot-first"' in sample_html
    first = sample_html[sample_html.index('<section id="overview"'):sample_html.index('<section id="charts"')]
    shown = re.findall(r'<span data-fact="([^"]+)"[^>]*>([^<]*)</span>', first)
    keys = [k for k, _ in shown]
    assert len(keys) == len(set(keys)), "a figure appears twice on the first screen"
    assert dict(shown) == first_screen_facts(view)
    assert f'data-score="{est["risk_score"]}"' in first
    assert htmllib.escape(est["decision"]["headline"]) in first
    for st in ("pure", "mechanical", "redesign", "blocked"):
        assert f'<span class="chip status-{st}">{st}</span>' in first  # the legend


def test_no_pilot_points_at_the_first_wave() -> None:
    """A "pilot first" verdict with no pilot unit (none with dependents fits the budget: pykan
    0.2.8's review) still says where to start: wave 1, its first modules and its effort, not a
    bare "No pilot proposed" under a verdict that asks for one."""
    import re

    view = synthetic.sample_view()
    view["plan"]["pilot"] = None
    page = html.build(view)
    start = page[page.index("<h2>Where to start</h2>"):]
    start = start[:start.index("</div>") + 6]
    assert "No pilot proposed" not in page
    assert "start with wave 1" in start
    first = view["plan"]["waves"][0]
    assert f"<code>{htmllib.escape(first['modules'][0])}</code>" in start
    shown = dict(re.findall(r'<span data-fact="([^"]+)"[^>]*>([^<]*)</span>', start))
    assert shown == {"wave1.p50": first_screen_facts(view)["wave1.p50"]}


def test_embedded_json_round_trips_to_the_payload(sample_html: str) -> None:
    parsed = _parse(sample_html)
    data = json.loads(parsed.scripts[0])
    assert data == json.loads(json.dumps(html.payload(synthetic.sample_view())))
    assert len(data["findings"]) == len(synthetic.sample_view()["findings"])


def test_json_for_script_escapes_script_breakers() -> None:
    text = str(html.json_for_script({"k": "</script><!-- & \u2028\u2029 >"}))
    for bad in ("<", ">", "&", "\u2028", "\u2029"):
        assert bad not in text
    assert json.loads(text) == {"k": "</script><!-- & \u2028\u2029 >"}


def test_hostile_strings_are_escaped(hostile_html: str) -> None:
    parsed = _parse(hostile_html)
    assert [t for t, a in parsed.tags if t == "script"] == ["script", "script", "script"]
    assert [a.get("id") for t, a in parsed.tags if t == "img"] == ["graph-print"]  # our print snapshot only
    svg_onload = [a for t, a in parsed.tags if any(k.startswith("on") for k in a)]
    assert svg_onload == []
    assert "</script><script>" not in hostile_html
    assert "&lt;/script&gt;&lt;script&gt;window.__xss=1&lt;/script&gt;" in hostile_html
    # the JSON block still carries the exact hostile strings
    data = json.loads(parsed.scripts[0])
    assert data["findings"][0]["message"].endswith(synthetic.PAYLOAD)
    # javascript: help links are dropped
    assert all(r["help_uri"] == "" for r in data["rules"].values())
    assert "javascript:" not in hostile_html.split('id="ml-data"')[0]


def test_stubs_table_rendered_when_present(hostile_html: str, sample_html: str) -> None:
    assert 'id="stubs"' in hostile_html and 'data-testid="stubs"' in hostile_html
    assert 'id="stubs"' not in sample_html


def test_charts_are_inline_svg_without_scripts(sample_html: str) -> None:
    svgs = re.findall(r"<svg role=\"img\" class=\"chart\"", sample_html)
    assert len(svgs) == 5
    ids = re.findall(r'<clipPath id="([^"]+)"', sample_html)
    assert len(ids) == len(set(ids)), "clip-path ids collide between charts"


def test_chart_labels_with_tex_and_markup_stay_text() -> None:
    svg = str(charts.risk_heatmap(["a$x^2$b</text><script>x</script>"], ["c"], [[3]]))
    assert "<script" not in svg
    assert "a$x^2$b&lt;/text&gt;&lt;script&gt;x&lt;/script&gt;" in svg


def test_unsafe_svg_is_refused() -> None:
    with pytest.raises(charts.UnsafeSvgError):
        charts.check_svg('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')
    with pytest.raises(charts.UnsafeSvgError):
        charts.check_svg('<svg xmlns="http://www.w3.org/2000/svg"><g onload="x()"/></svg>')


def test_output_is_deterministic() -> None:
    assert html.build(synthetic.sample_view()) == html.build(synthetic.sample_view())


def test_safe_url() -> None:
    assert html.safe_url("https://x/rules.md#ml101") == "https://x/rules.md#ml101"
    assert html.safe_url("javascript:alert(1)") == ""
    assert html.safe_url("JaVaScRiPt:alert(1)") == ""


def test_json_for_script_matches_the_standard_library_escaping() -> None:
    """msgspec + our ASCII escaping writes what ``json.dumps(ensure_ascii=True,
    sort_keys=True)`` + the script-data escapes wrote before: same bytes on every string."""
    import json as _json
    import random

    from migrate_lens.report.html import json_for_script

    def stdlib(v: object) -> str:
        t = _json.dumps(v, ensure_ascii=True, sort_keys=True, separators=(",", ":"))
        return t.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")

    rng = random.Random(20261201)
    values: list[object] = [{"m": "ün ✓ 😀 \u2028\u2029 </script> <!-- & \n\t\x01\x1f\x7f \\ \"", "b": [1, 2.5, None, True, {"z": 1, "y": []}]}]
    for top in (0x200, 0x10FFFF):
        for _ in range(200):
            s = "".join(chr(rng.randrange(0, top)) for _ in range(40))
            values.append({"s": s.encode("utf-8", "surrogatepass").decode("utf-8", "ignore"), "n": rng.random()})
    for v in values:
        assert str(json_for_script(v)) == stdlib(v)


def test_json_for_script_writes_scalar_subclasses_as_plain_values() -> None:
    """The page's payload holds what report.json holds: ``torch.__version__`` (a ``str``
    subclass the probe puts in the view) and other ``str``/``int``/``float`` subclasses are
    written as their plain values, as ``json.dumps`` writes them; msgspec alone refused them."""
    import json as _json

    from migrate_lens.report.html import json_for_script

    class Version(str):
        pass

    class Count(int):
        pass

    view = {"torch": Version("2.13.0"), "n": Count(3), "tags": [Version("ü")]}
    assert str(json_for_script(view)) == _json.dumps(view, ensure_ascii=True, sort_keys=True, separators=(",", ":"))
