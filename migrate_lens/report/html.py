"""Self-contained HTML report (``report.html``) for a PM and for the engineers doing the port.

One file, no network: CSS, our JavaScript, the vendored cytoscape.js (MIT, from the npm
registry, see ``templates/static/VENDORED.txt``) and matplotlib charts (inline SVG) are inlined.
The page is a Jinja2 template (autoescape on, ``StrictUndefined``); no HTML is built in Python.

Interactive parts (module table, findings browser, dependency graph) read a compact copy of the
view embedded as ``<script type="application/json">``, serialized by :func:`json_for_script`
(``<``, ``>``, ``&``, U+2028/U+2029 escaped, so no string from scanned code can close the
script element), and the JavaScript inserts every value with ``textContent``, never
``innerHTML``.

Scale: the findings browser and module table render a page of rows at a time, and the graph is
shown collapsed by directory (drill down on click), so a scan of ~700 files with thousands of
findings stays responsive.
"""

from __future__ import annotations

import pathlib
import posixpath
import re
import secrets
from operator import itemgetter
from typing import Any

import jinja2
import msgspec
from markupsafe import Markup

from migrate_lens.report import chartset, palette
from migrate_lens.report._files import atomic_write
from migrate_lens.report.json_ import plain_value
from migrate_lens.report import summary as _summary

TEMPLATES = pathlib.Path(__file__).parent / "templates"
STATIC = TEMPLATES / "static"
_SAFE_URL_PREFIXES = ("https://", "http://")


class VendoredAssetError(RuntimeError):
    """A vendored static file cannot be inlined safely (it contains ``</script`` or ``<!--``)."""


#: One character that ``ensure_ascii`` escapes beyond the control characters: DEL and every
#: non-ASCII one (U+2028/U+2029 included), for :func:`json_for_script`.
_NON_ASCII = re.compile(r"[^\x00-\x7e]")


def _ascii_escape(m: re.Match[str]) -> str:
    """``\\uXXXX`` (a surrogate pair above U+FFFF), as ``json.dumps(ensure_ascii=True)`` writes it."""
    code = ord(m.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 | (code >> 10):04x}\\u{0xDC00 | (code & 0x3FF):04x}"


#: sorted keys; a ``str``/``int``/``float`` subclass (``torch.__version__``) as its plain value,
#: as report.json writes it
_PAYLOAD_ENCODER = msgspec.json.Encoder(enc_hook=plain_value, order="sorted")


def json_for_script(value: Any) -> Markup:
    """JSON text safe inside ``<script type="application/json">``: sorted keys, pure ASCII
    (every non-ASCII character, U+2028/U+2029 included, as a ``\\uXXXX`` escape), and ``<``,
    ``>``, ``&`` written as ``\\uXXXX`` escapes (still valid JSON, same value). A NaN or
    infinity is written as ``null`` (``JSON.parse`` refuses ``NaN``).

    Encoded by msgspec (7x the standard library's speed on core's 33 MB payload: 0.07 s against
    0.46 s), then ASCII-escaped as ``json.dumps(..., ensure_ascii=True, sort_keys=True)`` would;
    only the exponent form of some floats differs (``1e-05`` is written ``0.00001``). Pure ASCII
    keeps the payload at one byte per character in memory (a str holding one emoji takes 4
    bytes per character: the payload is most of the report on large trees).

    Source of the escape set: the HTML spec's script-data parsing (``</script``, ``<!--``) and
    JSON/JS line terminators (ECMA-262 U+2028/U+2029).
    """
    return Markup(json_for_script_bytes(value).decode("ascii"))


def json_for_script_bytes(value: Any) -> bytes:
    """:func:`json_for_script`'s text as ASCII bytes (what the page file holds). On core's
    19 MB payload the escapes are made on bytes (7 ms against 22 ms on text) and the page is
    written from these bytes: the text, its markup and its encoded copies (four 19 MB copies)
    are never made."""
    raw = _PAYLOAD_ENCODER.encode(value)
    if not raw.isascii() or b"\x7f" in raw:
        raw = _NON_ASCII.sub(_ascii_escape, raw.decode("utf-8")).encode("ascii")
    return raw.replace(b"<", b"\\u003c").replace(b">", b"\\u003e").replace(b"&", b"\\u0026")


def _inline_script(name: str) -> Markup:
    text = (STATIC / name).read_text(encoding="utf-8")
    low = text.lower()
    if "</script" in low or "<!--" in low:
        raise VendoredAssetError(f"{name} contains '</script' or '<!--' and cannot be inlined")
    return Markup(text)


def script_hash(text: str) -> str:
    """The CSP source expression allowing exactly the inline script ``text``:
    ``'sha256-<base64 of SHA-256 of its UTF-8 bytes>'`` (CSP Level 2, "hash-source")."""
    import base64
    import hashlib

    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def _inline_css(name: str) -> Markup:
    text = (STATIC / name).read_text(encoding="utf-8")
    if "</style" in text.lower():
        raise VendoredAssetError(f"{name} contains '</style'")
    return Markup(text)


def safe_url(url: str) -> str:
    """``url`` if it is an absolute http(s) URL, else ``""`` (rules from user folders could carry
    ``javascript:`` links)."""
    return url if url.lower().startswith(_SAFE_URL_PREFIXES) else ""


def _group_of(node: dict[str, Any]) -> str:
    path = node.get("path")
    return posixpath.dirname(path) if path else ""


#: A third-party package the project uses in fewer edges than this is "small": hidden by default.
SMALL_EXTERNAL_EDGES = 5


def _hidden_by_default(graph: dict[str, Any]) -> list[int]:
    """Per graph node, 1 when the page hides it by default: external nodes of the standard
    library (``sys.stdlib_module_names``) or of a third-party package with fewer than
    :data:`SMALL_EXTERNAL_EDGES` edges into it; else 0."""
    import sys
    from collections import Counter

    nodes = graph["nodes"]
    top = {n["id"]: n["id"].split(".")[0] for n in nodes if n["kind"] == "external"}
    uses = Counter(top[t] for t in map(itemgetter("target"), graph["edges"]) if t in top)
    hidden = {q for q, t in top.items() if t in sys.stdlib_module_names or uses[t] < SMALL_EXTERNAL_EDGES}
    return [int(n["id"] in hidden) for n in nodes]


#: The finding fields the page data copies as they are.
_FINDING_FIELDS = ("code", "category", "severity", "confidence", "porting", "path", "line", "column", "symbol",
                   "context", "message", "snippet", "suppressed")


def payload(view: dict[str, Any]) -> dict[str, Any]:
    """The compact data the page's JavaScript reads (a subset of the view, same values).

    Shapes: ``modules``/``findings`` are lists of dicts; ``rules`` maps code -> rule fields;
    a finding's ``remedy`` is omitted when equal to its rule's (saves size on large scans);
    ``graph.nodes`` are ``[id, kind, status, path, hidden by default (0/1)]`` and ``graph.edges`` are
    ``[source index, target index, kind]``.
    """
    rules = {
        r["code"]: {
            "name": r["name"],
            "category": r["category"],
            "severity": r["severity"],
            "remedy": r["remedy"].strip(),
            "why": r["why"].strip(),
            "help_uri": safe_url(r["help_uri"]),
        }
        for r in view["rules"]
    }
    runtime = view["probe"]["finding_status"] if "probe" in view else None
    module_runtime = view["probe"]["module_status"] if "probe" in view else {}
    findings = []
    fields = _FINDING_FIELDS
    get_fields = itemgetter(*fields)
    stripped: dict[str, str] = {}  # remedy -> stripped (findings of a rule share their remedy)
    for f in view["findings"]:
        # (the payload is encoded with sorted keys: the items' key order is not written)
        item = dict(zip(fields, get_fields(f)))
        item["effort"] = f["effort_hours"]["likely"]
        remedy = f["remedy"]
        text = stripped.get(remedy)
        if text is None:
            text = stripped[remedy] = remedy.strip()
        rule = rules.get(f["code"])
        if rule is None or text != rule["remedy"]:
            item["remedy"] = text
        if runtime and f["fingerprint"] in runtime:  # "confirmed" | "static-only" (docs/probe.md)
            item["runtime"] = runtime[f["fingerprint"]]
        findings.append(item)
    modules = [
        {
            "qualname": m["qualname"],
            "path": m["path"],
            "line": m["line"],
            "kind": m["kind"],
            "status": m["status"],
            "risk": m["risk"],
            "findings": m["findings"],
            "p50": m["effort_person_days"]["p50"],
            "p90": m["effort_person_days"]["p90"],
            "wave": m["wave"],
            "loc": m["lines_of_code"],
            "explanation": m["explanation"],
            **({"runtime": module_runtime[m["qualname"]]} if m["qualname"] in module_runtime else {}),
        }
        for m in view["modules"]
    ]
    nodes = view["graph"]["nodes"]
    index = {n["id"]: i for i, n in enumerate(nodes)}
    gnodes = [[n["id"], n["kind"], n.get("status"), n.get("path"), hidden]
              for n, hidden in zip(nodes, _hidden_by_default(view["graph"]))]
    gedges = [
        [index[u], index[v], k]
        for u, v, k in map(itemgetter("source", "target", "kind"), view["graph"]["edges"])
        if u in index and v in index
    ]
    return {
        "modules": modules,
        "findings": findings,
        "rules": rules,
        "graph": {"nodes": gnodes, "edges": gedges},
        "categories": list(_summary.CATEGORIES),
        "severities": list(_summary.SEVERITIES),
        "statuses": list(_summary.STATUSES),
        "status_colors": palette.STATUS_COLORS,
        "severity_colors": palette.SEVERITY_COLORS,
    }


def source_env() -> jinja2.Environment:
    """The page's Jinja2 environment, compiling its templates from their source."""
    return _make_env(jinja2.FileSystemLoader(TEMPLATES))


def _env() -> jinja2.Environment:
    """The page's environment, serving the templates precompiled into the package when those
    are current (:mod:`migrate_lens.report.precompiled`: ~75 ms a page less), else as
    :func:`source_env`."""
    from migrate_lens.report.precompiled import PrecompiledLoader

    return _make_env(PrecompiledLoader(jinja2.FileSystemLoader(TEMPLATES)))


def _make_env(loader: jinja2.BaseLoader) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=loader,
        autoescape=jinja2.select_autoescape(["html", "html.j2"], default=True),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["num"] = _summary.fmt_num
    env.filters["days"] = _summary.fmt_days
    env.filters["money"] = _summary.fmt_money
    env.filters["months"] = _summary.fmt_months
    env.filters["plural"] = _summary.plural
    env.filters["fallback"] = _summary.fallback_text
    env.filters["safe_url"] = safe_url
    return env


def build(view: dict[str, Any]) -> str:
    """The HTML text of the report. Raises KeyError if ``view`` breaks the contract,
    :class:`VendoredAssetError` if a vendored file cannot be inlined."""
    return _env().get_template("report.html.j2").render(**_context(view))


def _context(view: dict[str, Any], data_json: Markup | None = None) -> dict[str, Any]:
    """The template's variables; ``data_json`` the page data (default: :func:`json_for_script`
    of the payload)."""
    by_qual = {m["qualname"]: m for m in view["modules"]}
    root_name = posixpath.basename(view["root"].rstrip("/")) or view["root"]
    # the one top-level package the units live in names the project better than its folder
    # (`src/segment_anything/...` is segment_anything, not src)
    tops = {str(m.get("qualname", "")).split(".", 1)[0] for m in view.get("modules") or () if isinstance(m, dict)}
    tops.discard("")
    if len(tops) == 1:
        root_name = tops.pop()
    app_js, graph_js = _inline_script("report.js"), _inline_script("cytoscape.min.js")
    if data_json is None:
        data_json = json_for_script(payload(view))  # before the charts: a helper may still be drawing them
    return dict(
        view=view,
        d=_summary.digest(view, top=10),
        by_qual=by_qual,
        root_name=root_name,
        data_json=data_json,
        css=_inline_css("report.css"),
        app_js=app_js,
        graph_js=graph_js,
        # the page runs only these two scripts (no 'unsafe-inline'): anything else that found
        # its way into the markup, from scanned names or a planted chart, is not executed
        script_hashes=Markup(" ".join(script_hash(str(s)) for s in (graph_js, app_js))),
        status_colors=palette.STATUS_COLORS,
        severity_colors=palette.SEVERITY_COLORS,
        category_plain=_summary.CATEGORY_PLAIN,
        charts=chartset.charts_for(view),
    )


def render(view: dict[str, Any], out_dir: pathlib.Path) -> pathlib.Path:
    """Write ``out_dir/report.html`` and return its path. Raises OSError if it cannot be written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "report.html"
    data = json_for_script_bytes(payload(view))  # before the charts: a helper may still be drawing them
    # The template writes a slot, an unguessable token, where the page data goes; the data
    # is written there from its bytes (see json_for_script_bytes)
    slot = f"\0ml-data-{secrets.token_hex(16)}\0"
    chunks = _env().get_template("report.html.j2").generate(**_context(view, data_json=Markup(slot)))
    # streamed (the page is never one string in memory) into a temporary file renamed into
    # place: a failure half-way leaves the previous report, never a truncated one
    placed = 0
    with atomic_write(path, binary=True) as fh:
        for chunk in chunks:
            if slot in chunk:
                parts = chunk.split(slot)
                placed += len(parts) - 1
                fh.write(parts[0].encode("utf-8"))
                for part in parts[1:]:
                    fh.write(data)
                    fh.write(part.encode("utf-8"))
            else:
                fh.write(chunk.encode("utf-8"))
        if placed != 1:
            raise RuntimeError(f"report.html.j2 placed the page data {placed} times, not once")
    return path
