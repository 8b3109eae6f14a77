"""The HTML report driven in headless Chromium (Debian ``chromium`` + Playwright for Python).

Every test routes all requests: file: URLs pass, anything else is aborted and fails the test
(the report must open offline). Console errors and page errors fail too. Screenshots go to
``test-artifacts/`` (git-ignored) for a person to look at.

Needs: ``apt-get install chromium`` and ``pip install playwright`` (no ``playwright install``:
we launch /usr/bin/chromium). Skipped when either is missing.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import time
from collections.abc import Iterator
from typing import Any

import pytest

from migrate_lens.report import html

pytestmark = pytest.mark.browser

ROOT = pathlib.Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = os.environ.get("MIGRATE_LENS_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
_spec = importlib.util.spec_from_file_location("report_synthetic", ROOT / "fixtures" / "report" / "synthetic.py")
assert _spec and _spec.loader
synthetic = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(synthetic)

sync_api = pytest.importorskip("playwright.sync_api")
if not pathlib.Path(CHROMIUM).exists():
    pytest.skip(f"Chromium not installed ({pathlib.Path(CHROMIUM).name} not found; `make browser` or apt-get install chromium)",
                allow_module_level=True)


class Session:
    """One page on one report file, with every non-file request and console error recorded."""

    def __init__(self, browser: Any, path: pathlib.Path) -> None:
        self.external: list[str] = []
        self.errors: list[str] = []
        self.context = browser.new_context(viewport={"width": 1400, "height": 1000})
        self.page = self.context.new_page()
        self.context.route("**/*", self._route)
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type in ("error", "warning") else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        start = time.perf_counter()
        self.page.goto(path.as_uri())
        self.page.wait_for_selector("html[data-ready='1']", timeout=60_000)
        self.load_s = time.perf_counter() - start

    def _route(self, route: Any) -> None:
        if route.request.url.startswith("file:"):
            route.continue_()
        else:
            self.external.append(route.request.url)
            route.abort()

    def open_graph(self) -> Any:
        """Scroll to the graph (it is laid out lazily) and wait until it is drawn."""
        self.page.locator("#graph").scroll_into_view_if_needed()
        self.page.wait_for_selector("#cy[data-ready='1']", timeout=60_000)
        return self.page.get_by_test_id("graph")

    def check_clean(self) -> None:
        assert self.external == [], f"network requests: {self.external}"
        assert self.errors == [], f"console errors: {self.errors}"

    def shot(self, name: str, selector: str | None = None, full_page: bool = False) -> None:
        ARTIFACTS.mkdir(exist_ok=True)
        target = ARTIFACTS / f"{name}.png"
        if selector:
            self.page.locator(selector).screenshot(path=str(target))
        else:
            self.page.screenshot(path=str(target), full_page=full_page)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def sample_report(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    return html.render(synthetic.sample_view(), tmp_path_factory.mktemp("sample"))


def test_first_screen_matches_view(browser: Any, sample_report: pathlib.Path) -> None:
    from test_report_html import first_screen_facts

    view = synthetic.sample_view()
    est = view["estimate"]
    s = Session(browser, sample_report)
    page = s.page
    assert page.get_by_test_id("verdict").inner_text() == "Pilot first"
    # one number per fact: every figure of the first screen equals report.json, and appears once
    facts = page.eval_on_selector_all(
        "#overview [data-fact]", "els => els.map(e => [e.dataset.fact, e.textContent])")
    keys = [k for k, _ in facts]
    assert len(keys) == len(set(keys)), "a figure appears twice on the first screen"
    assert dict(facts) == first_screen_facts(view)
    assert page.get_by_test_id("risk-score").get_attribute("data-score") == str(est["risk_score"])
    assert "57/100" in page.get_by_test_id("risk-score").inner_text()
    assert "likely" in page.get_by_test_id("kpi-effort").inner_text()
    assert "with 90% confidence" in page.get_by_test_id("kpi-effort").inner_text()
    legend = page.get_by_test_id("status-legend").inner_text()
    assert all(st in legend for st in ("pure", "mechanical", "redesign", "blocked"))
    blockers = page.locator("[data-testid=blockers] .blocker-title").all_inner_texts()
    assert [b.split(" · ")[0] for b in blockers] == [
        "Custom operators (CUDA/C++ kernels, autograd functions)",
        "Array shapes that depend on the data",
        "Python branches and loops that depend on tensor values",
    ]
    # the decision, effort, risk, legend and pilot are all within the first 1000 px
    for testid in ("decision", "kpi-effort", "kpi-risk", "kpi-payback", "status-legend", "pilot"):
        box = page.get_by_test_id(testid).bounding_box()
        assert box is not None and box["y"] < 1000, testid
    s.shot("sample-first-screen")
    s.shot("sample-full", full_page=True)
    s.check_clean()


def test_module_table_filters_and_sorts(browser: Any, sample_report: pathlib.Path) -> None:
    view = synthetic.sample_view()
    s = Session(browser, sample_report)
    page = s.page
    rows = page.locator("#mod-body tr")
    assert rows.count() == len(view["modules"])
    # default sort: risk descending
    assert rows.first.get_attribute("data-qualname") == "tinyseg.ops.nms.NMSFunction"
    page.get_by_test_id("mod-filter-status").select_option("mechanical")
    expected = sorted((m for m in view["modules"] if m["status"] == "mechanical"), key=lambda m: -m["risk"])
    assert rows.count() == len(expected)
    assert [rows.nth(i).get_attribute("data-qualname") for i in range(rows.count())] == [m["qualname"] for m in expected]
    assert page.get_by_test_id("mod-count").inner_text().startswith(f"{len(expected)} of {len(expected)} shown")
    page.get_by_test_id("mod-filter-risk").fill("30")
    assert {rows.nth(i).get_attribute("data-qualname") for i in range(rows.count())} == {
        m["qualname"] for m in expected if m["risk"] >= 30
    }
    page.get_by_test_id("mod-filter-status").select_option("")
    page.get_by_test_id("mod-filter-risk").fill("0")
    page.get_by_test_id("mod-filter-text").fill("encoder")
    assert rows.count() == 2
    page.get_by_test_id("mod-filter-text").fill("")
    page.locator("#mod-table th[data-sort=qualname]").click()
    names = [rows.nth(i).get_attribute("data-qualname") for i in range(rows.count())]
    assert names == sorted(m["qualname"] for m in view["modules"])
    s.shot("sample-modules", "#modules")
    s.check_clean()


def test_graph_renders_and_drills_down(browser: Any, sample_report: pathlib.Path) -> None:
    s = Session(browser, sample_report)
    page = s.page
    cy = s.open_graph()
    assert cy.locator("canvas").count() >= 1
    # root level: models/, ops/, train.py; the external group (torch and torchvision, each with
    # fewer than 5 edges: small) is hidden until asked for
    assert cy.get_attribute("data-nodes") == "3"
    page.get_by_test_id("graph-libs").check()
    assert cy.get_attribute("data-nodes") == "4"
    page.get_by_test_id("graph-libs").uncheck()
    assert cy.get_attribute("data-focus") == ""
    page.fill("#graph-q", "no_such_thing_anywhere")
    page.press("#graph-q", "Enter")
    assert "Nothing matches" in page.get_by_test_id("graph-find-msg").inner_text()
    page.fill("#graph-q", "nmsfunction")  # a short name, any case
    page.press("#graph-q", "Enter")
    assert cy.get_attribute("data-focus") == "ops/nms.py"
    assert "tinyseg.ops.nms.NMSFunction" in page.get_by_test_id("graph-find-msg").inner_text()
    page.fill("#graph-q", "tinyseg.ops.nms.NMSFunction")
    page.press("#graph-q", "Enter")
    assert cy.get_attribute("data-focus") == "ops/nms.py"
    info = page.get_by_test_id("graph-info").inner_text()
    assert "tinyseg.ops.nms.NMSFunction" in info and "blocked" in info
    crumbs = page.get_by_test_id("graph-crumbs").inner_text()
    assert crumbs.split() == ["project", "/", "ops", "/", "nms.py"]
    s.shot("sample-graph-drilled", "#graph")
    page.get_by_test_id("graph-crumbs").get_by_role("button", name="project").click()
    assert cy.get_attribute("data-focus") == ""
    s.check_clean()


def test_findings_browser_filters(browser: Any, sample_report: pathlib.Path) -> None:
    view = synthetic.sample_view()
    s = Session(browser, sample_report)
    page = s.page
    cards = page.locator("#f-list article.finding")
    assert cards.count() == len(view["findings"])
    page.get_by_test_id("f-rule").select_option("ML301")
    assert cards.count() == 2
    assert page.get_by_test_id("f-count").inner_text() == f"2 of {len(view['findings'])} findings"
    first = cards.first.inner_text()
    assert "attn.masked_fill_(pad, 0.0)" in first and "JAX remedy:" in first and "x.at[idx].set(v)" in first
    page.get_by_test_id("f-rule").select_option("")
    page.locator("#cat-chips button[data-cat=device]").click()
    assert {cards.nth(i).get_attribute("data-category") for i in range(cards.count())} == {"device"}
    page.get_by_test_id("f-file").fill("train.py")
    page.get_by_test_id("f-cat").select_option("")
    assert cards.count() == sum(1 for f in view["findings"] if f["path"] == "train.py")
    s.shot("sample-findings", "#findings")
    s.check_clean()


def test_hostile_view_injects_nothing(browser: Any, tmp_path: pathlib.Path) -> None:
    report = html.render(synthetic.hostile_view(), tmp_path)
    s = Session(browser, report)
    page = s.page
    assert page.evaluate("window.__xss") is None
    assert page.evaluate("document.scripts.length") == 3
    assert page.locator("img:not(#graph-print)").count() == 0
    assert page.evaluate("Array.from(document.querySelectorAll('*')).filter(e => Array.from(e.attributes).some(a => a.name.startsWith('on'))).length") == 0
    # the payload shows as text, in server-rendered and in JS-rendered parts
    assert synthetic.PAYLOAD[:60] in page.get_by_test_id("decision").inner_text()
    assert "</script><script>window.__xss=1</script>" in page.locator("#f-list").inner_text()
    assert "window___xss=1" in page.locator("#mod-body").inner_text()
    s.open_graph()
    page.fill("#graph-q", page.evaluate("JSON.parse(document.getElementById('ml-data').textContent).graph.nodes[3][0]"))
    page.press("#graph-q", "Enter")
    assert page.evaluate("window.__xss") is None
    s.shot("hostile-first-screen")
    s.shot("hostile-findings", "#findings")
    s.check_clean()


def test_large_report_loads_and_paginates(browser: Any, tmp_path: pathlib.Path) -> None:
    view = synthetic.synthetic_view(n_files=700)
    start = time.perf_counter()
    report = html.render(view, tmp_path)
    render_s = time.perf_counter() - start
    s = Session(browser, report)
    page = s.page
    size_mb = report.stat().st_size / 1e6
    print(f"\nlarge report: {len(view['findings'])} findings, {len(view['modules'])} modules, "
          f"{len(view['graph']['nodes'])} nodes; {size_mb:.2f} MB; render {render_s:.2f} s; load {s.load_s:.2f} s")
    (ARTIFACTS / "large-report-metrics.json").write_text(json.dumps(
        {"findings": len(view["findings"]), "size_mb": round(size_mb, 2), "render_s": round(render_s, 2), "load_s": round(s.load_s, 2)}))
    assert page.locator("#f-list article.finding").count() == 50
    assert page.locator("#mod-body tr").count() == 100
    page.click("#f-next")
    assert page.locator("#f-page").inner_text().startswith("page 2 of ")
    nodes = int(s.open_graph().get_attribute("data-nodes") or 0)
    assert 0 < nodes < 100, "top graph level must stay collapsed"
    s.shot("large-first-screen")
    s.shot("large-graph", "#graph")
    s.check_clean()


def test_graph_labels_stay_readable_on_a_1000_file_project(browser: Any, tmp_path: pathlib.Path) -> None:
    """A level of hundreds of nodes (transformers/models holds ~370 model folders) opens at a zoom
    whose labels are readable (at least 9 px), riskiest first, and says how to see the rest; a
    small level still fits the box."""
    view = synthetic.synthetic_view(n_files=1000, classes_per_file=1, findings_per_file=2, n_dirs=400)
    s = Session(browser, html.render(view, tmp_path))
    page = s.page
    cy = s.open_graph()
    assert int(cy.get_attribute("data-nodes") or 0) >= 400  # the root wraps models/ only: opened
    assert float(cy.get_attribute("data-label-px") or 0) >= 9
    assert "riskiest first" in page.get_by_test_id("graph-hint").inner_text()
    s.shot("large-graph-models-level", "#graph")
    page.fill("#graph-q", "modeling_0007")  # its folder: a small level (its files and what they import)
    page.press("#graph-q", "Enter")
    assert int(cy.get_attribute("data-nodes") or 0) < 40
    assert float(cy.get_attribute("data-label-px") or 0) >= 9
    s.shot("large-graph-family-level", "#graph")
    s.check_clean()


def test_prints_to_pdf(browser: Any, sample_report: pathlib.Path) -> None:
    s = Session(browser, sample_report)
    s.page.emulate_media(media="print")
    assert s.page.locator("#cy").is_hidden()
    assert s.page.locator(".top").is_hidden()
    ARTIFACTS.mkdir(exist_ok=True)
    pdf = s.page.pdf(path=str(ARTIFACTS / "sample-report.pdf"), format="A4", print_background=True)
    assert pdf[:5] == b"%PDF-" and pdf.count(b"/Type /Page") >= 3
    s.check_clean()
