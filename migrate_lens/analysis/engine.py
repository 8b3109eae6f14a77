"""Per-file analysis: parse once with libcst, traverse once, match every rule, return facts.

``analyze_source`` is the unit the process pool runs; it returns plain :class:`FileFacts`
(no CST nodes) so results pickle cheaply and can be cached.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import PositionProvider

from migrate_lens.analysis.matchers import MATCHERS
from migrate_lens.analysis.sites import Site
from migrate_lens.analysis.visitor import FileVisitor
from migrate_lens.analysis.walk import fast_visit
from migrate_lens.catalog import Catalog, Rule
from migrate_lens.models import FileFacts, Finding, RuleError, Span, Suppression

#: ``# migrate-lens: ignore[ML101, ML301]`` or ``# migrate-lens: fixme[ML101] reason``.
SUPPRESSION_RE = re.compile(r"#\s*migrate-lens:\s*(?P<kind>ignore|fixme)\b(?:\[(?P<codes>[^\]]*)\])?\s*(?P<reason>.*)$")
_CODE_IN_LIST = re.compile(r"^ML\d{3,4}$")


class ParseFailure(Exception):
    """The source is not valid Python 3 for libcst; ``str()`` is a one-line reason."""


@dataclass(frozen=True, slots=True)
class RuleIndex:
    """Rules grouped by the site kind their matcher reads, plus the attribute and dotted
    names the visitor must report as sites. Built once per catalog."""

    by_site: dict[str, tuple[Rule, ...]]
    attribute_interest: frozenset[str]
    name_interest: frozenset[str]


def build_index(rules: tuple[Rule, ...]) -> RuleIndex:
    """Group ``rules`` by site kind (see :data:`MATCHERS`)."""
    groups: dict[str, list[Rule]] = defaultdict(list)
    attrs: set[str] = set()
    names: set[str] = set()
    for rule in rules:
        spec = MATCHERS[rule.matcher.kind]
        groups[spec.site_kind].append(rule)
        if spec.site_kind in ("attribute-read", "attribute-write"):
            attrs.update(rule.matcher.param("names") or ())
        if spec.site_kind == "name-ref":
            names.update(rule.matcher.param("names") or ())
    return RuleIndex({k: tuple(v) for k, v in groups.items()}, frozenset(attrs), frozenset(names))


def parse_suppressions(lines: list[str]) -> tuple[list[Suppression], list[tuple[int, str]]]:
    """Suppression comments by line, and malformed ones as ``(line, problem)``.

    A bare ``ignore`` without codes is refused (malformed): it would hide future rules too.
    """
    good: list[Suppression] = []
    bad: list[tuple[int, str]] = []
    for lineno, text in enumerate(lines, start=1):
        if "migrate-lens:" not in text:
            continue
        m = SUPPRESSION_RE.search(text)
        if m is None:
            bad.append((lineno, "unrecognized migrate-lens comment"))
            continue
        raw = m.group("codes")
        codes = tuple(c.strip() for c in (raw or "").split(",") if c.strip())
        if not codes:
            bad.append((lineno, f"bare {m.group('kind')} without [CODE]"))
            continue
        if any(not _CODE_IN_LIST.match(c) for c in codes):
            bad.append((lineno, f"malformed code list [{raw}]"))
            continue
        good.append(Suppression(line=lineno, kind=m.group("kind"), codes=codes, reason=m.group("reason").strip()))
    return good, bad


def _snippet(module: cst.Module, node: cst.CSTNode) -> str:
    text = " ".join(module.code_for_node(node).split())
    return text[:120]


def analyze_source(source: str, path: str, module_name: str, catalog: Catalog,
                   index: RuleIndex | None = None) -> FileFacts:
    """Analyze one file's text.

    ``path`` is relative to the scan root (POSIX separators); ``module_name`` its dotted module.
    Returns :class:`FileFacts` with findings sorted by (line, column, code). Raises
    :class:`ParseFailure` if libcst cannot parse the source (e.g. Python 2 syntax).
    """
    index = index or build_index(catalog.rules)
    try:
        tree = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        raise ParseFailure(f"syntax error at line {exc.raw_line}, column {exc.raw_column}: {exc.message}") from None
    except RecursionError:
        raise ParseFailure("nesting too deep for the parser (RecursionError)") from None
    findings: list[Finding] = []
    errors: dict[str, str] = {}
    visitor: FileVisitor

    def emit(site: Site) -> None:
        for rule in index.by_site.get(site.kind, ()):
            _apply(rule, site)

    def _apply(rule: Rule, site: Site, span: Span | None = None) -> None:
        m = rule.matcher
        ctx = site.context
        if ctx in m.contexts:
            traced_only = False
        elif ctx == "function" and "traced" in m.contexts:
            traced_only = True
        else:
            return
        try:
            detail = MATCHERS[m.kind].fn(site, m)
        except Exception as exc:  # noqa: BLE001 - one rule failing on one file is reported, not fatal
            errors.setdefault(rule.code, f"{type(exc).__name__}: {exc}")
            return
        if detail is None:
            return
        if span is None:
            rng = visitor.get_metadata(PositionProvider, site.node)
            span = Span(rng.start.line, rng.start.column, rng.end.line, rng.end.column)
        findings.append(Finding(
            code=rule.code,
            severity=rule.init_severity if ctx == "init" else rule.severity,
            path=path,
            span=span,
            symbol=site.symbol,
            context=ctx,
            message=rule.message.replace("{detail}", detail),
            snippet=_snippet(tree, site.node) if site.node is not None else "",
            traced_only=traced_only,
        ))

    visitor = FileVisitor(
        module=module_name,
        is_package=path.endswith("__init__.py"),
        emit=emit,
        attribute_interest=index.attribute_interest,
        name_interest=index.name_interest,
    )
    try:
        fast_visit(tree, visitor, source)
    except RecursionError:
        raise ParseFailure("nesting too deep to analyze (RecursionError)") from None

    lines = source.splitlines()
    suppressions, malformed = parse_suppressions(lines)
    findings = _apply_suppressions(findings, suppressions)
    used = {(f.span.line, f.code) for f in findings if f.suppressed}
    for sup in suppressions:
        for code in sup.codes:
            if (sup.line, code) not in used:
                _meta(index, "unused", f"{sup.kind}[{code}]", sup.line, lines, path, module_name, findings, _apply)
    for line, problem in malformed:
        _meta(index, "malformed", problem, line, lines, path, module_name, findings, _apply)

    unique = {(f.span.line, f.span.column, f.code): f for f in findings}
    ordered = tuple(sorted(unique.values(), key=lambda f: (f.span.line, f.span.column, f.code)))
    submodules = tuple(sorted(set(visitor.submodules), key=lambda s: (s.owner, s.line, s.attr, s.target)))
    return FileFacts(
        path=path,
        module=module_name,
        sha256="",
        lines=len(lines),
        findings=ordered,
        imports=tuple(visitor.imports),
        calls=tuple(sorted(set(visitor.calls), key=lambda c: (c.caller, c.line, c.callee))),
        classes=tuple(sorted(visitor.classes, key=lambda c: c.line)),
        functions=tuple(sorted(visitor.functions, key=lambda f: (f.line, f.qualname))),
        submodules=submodules,
        suppressions=tuple(suppressions),
        traced_entries=tuple(sorted(set(visitor.traced_entries))),
        rule_errors=tuple(RuleError(c, m) for c, m in sorted(errors.items())),
    )


def _apply_suppressions(findings: list[Finding], suppressions: list[Suppression]) -> list[Finding]:
    from dataclasses import replace

    by_line = {s.line: s for s in suppressions}
    out = []
    for f in findings:
        sup = by_line.get(f.span.line) or by_line.get(f.span.end_line)
        if sup is not None and f.code in sup.codes:
            f = replace(f, suppressed=sup.kind, suppress_reason=sup.reason)
        out.append(f)
    return out


def _meta(index: RuleIndex, problem: str, detail: str, line: int, lines: list[str], path: str,
          module_name: str, findings: list[Finding], apply) -> None:  # type: ignore[no-untyped-def]
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    col = text.find("#")
    site = Site(kind="suppression", node=None, context="host", symbol=module_name,  # type: ignore[arg-type]
                name=detail, data={"problem": problem})
    span = Span(line, max(col, 0), line, len(text))
    for rule in index.by_site.get("suppression", ()):
        apply(rule, site, span)
