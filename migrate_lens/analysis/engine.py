"""Per-file analysis: parse once with libcst, traverse once, match every rule, return facts.

``analyze_source`` is the unit the process pool runs; it returns plain :class:`FileFacts`
(no CST nodes) so results pickle cheaply and can be cached.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace

import libcst as cst
from libcst.metadata import CodeRange, PositionProvider

from migrate_lens.analysis.bindings import in_own_package
from migrate_lens.analysis.dead_code import in_ranges, unreachable_ranges
from migrate_lens.analysis.matchers import MATCHERS, CallGate, GatePart, call_gate, glob_matcher, names_pass, rule_keywords
from migrate_lens.analysis.routes import drop_kernel_routes, drop_launcher_findings, reroute_kernels
from migrate_lens.analysis.sites import Site
from migrate_lens.analysis.visitor import FileVisitor, parameter_inits, sets_padding_idx
from migrate_lens.analysis.walk import Positions, fast_visit, parse_cst
from migrate_lens.catalog import Catalog, Rule, load_catalog
from migrate_lens.analysis.sites import NOT_LITERAL
from migrate_lens.analysis.values import literal
from migrate_lens.interproc import flow_kinds, function_contexts, holds, recontext, survival_table, training_roles
from migrate_lens.fold import fold_duplicates, fold_table
from migrate_lens.models import NONLITERAL, CallSiteFact, FileFacts, Finding, ImportFact, RuleError, Span, StarBindings, Suppression

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
    #: the call-site rules with their gates (:func:`matchers.call_gate`; None: every call)
    call_gates: tuple[tuple[Rule, CallGate | None], ...] = ()
    #: callees whose *result* some call rule follows: a ``names`` glob ``f().*`` (a call of an
    #: attribute of what ``f`` returned: ``ext = load(...)`` then ``ext.op(x)``) puts ``f`` here,
    #: and the visitor binds names assigned ``f(...)`` to ``f()`` (:attr:`Bindings.handles`)
    result_interest: frozenset[str] = frozenset()
    #: torch module -> the members some call rule names (``torch.nn.functional`` -> ``gelu``,
    #: ``dropout``, ...): what ``getattr(F, name)(x)`` may call (:meth:`FileVisitor._dynamic_member`)
    members: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    _table: _CallTable = field(init=False, compare=False, repr=False)
    #: (site kind, name) -> the rules of :meth:`site_rules` (grows with the distinct names met)
    _named: dict[tuple[str, str], tuple[Rule, ...]] = field(init=False, compare=False, repr=False)
    #: the site kinds whose every rule's matcher requires its ``names`` globs to pass the name
    _name_gated: frozenset[str] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_table", _CallTable(self.call_gates))
        object.__setattr__(self, "_named", {})
        object.__setattr__(self, "_name_gated", frozenset(
            kind for kind, rules in self.by_site.items()
            if kind != "call" and rules and all(MATCHERS[r.matcher.kind].names_required for r in rules)))

    def site_rules(self, site: Site) -> tuple[Rule, ...]:
        """The rules worth running on a site that is not a call: those of its kind, less, for
        a kind whose matchers require the rule's ``names`` globs to pass the site's name
        (:attr:`MatcherSpec.names_required`: imports, class bases, decorators, name
        references), the rules whose globs fail it; memoized per (kind, name). On 1/8 of core
        1,832 import sites tried 8 rules each for 10 findings."""
        kind = site.kind
        if kind not in self._name_gated:
            return self.by_site.get(kind, ())
        key = (kind, site.name)
        hit = self._named.get(key)
        if hit is None:
            # (a rule that also matches an import by the local name it binds, ``aliases``, is
            # tried on every import: ``import cauchy_mult as cauchy_cuda``)
            hit = self._named[key] = tuple(r for r in self.by_site[kind]
                                           if names_pass(r.matcher, site.name) or r.matcher.param("aliases"))
        return hit

    def call_candidates(self, name: str, method: str) -> tuple[Rule, ...]:
        """The call-site rules worth running on a call to ``name`` / ``.method``: rules of the
        generic ``call`` matcher whose ``names``/``methods`` globs can match, plus the rules of
        the specialised call matchers whose gate (:class:`MatcherSpec`) passes, in catalog
        order. Same result as trying them all, much cheaper."""
        table = self._table
        hit = table.memo.get((name, method, 0))
        if hit is None:
            hit = table.candidates(name, method, 0)
        return hit

    def call_site_rules(self, site: Site) -> tuple[Rule, ...]:
        """:meth:`call_candidates` of a call site less the rules whose matcher requires a
        keyword argument the call does not pass (``MatcherSpec.keyword``, or one its own
        parameters require: :func:`matchers.rule_keywords`) or a data entry the site does not
        hold true (``MatcherSpec.flag``): rules that cannot match it. Most call sites lose the
        two rules tried on every call (``recursion``, ``device-argument``), and most ``torch.*``
        calls the rules of ``out=``, ``generator=`` and ``pin_memory=``."""
        table = self._table
        plan = table.plans.get((site.name, site.method))
        if plan is None:
            plan = table.plan(site.name, site.method)
        rules, needs = plan
        if not needs:  # (most calls: no candidate at all, or none with a requirement)
            return rules
        data = site.data
        kwargs = data.get("kwargs") or ()
        missing = 0
        for keyword, flag, bits in needs:
            if not (keyword in kwargs if keyword else data.get(flag)):
                missing |= bits
        return table.without(site.name, site.method, missing)

    def variants_matter(self, name: str, method: str, keywords: Collection[str]) -> bool:
        """Whether a call to ``name`` / ``.method`` passing the keyword arguments ``keywords``
        (a superset of its variants' keywords) needs its variant sites, those it holds only under
        a hypothesis on a symbolic input (``Site.requires``): False when no rule of
        :meth:`call_candidates` can match a variant unless it matches the call's own site.
        A rule whose matcher reads no value kind (``MatcherSpec.reads_kinds``) gives a variant
        the verdict of the call's own site, where an unconditional finding wins over the
        variant's (:func:`_merge_conditional`); a rule whose matcher requires a keyword
        (``MatcherSpec.keyword``, or its own parameters do: :func:`matchers.rule_keywords`)
        the call does not pass matches neither. Valid only when the
        call's own site was emitted before its variants."""
        need = self._table.variant_memo.get((name, method))
        if need is None:
            need = self._table.variant_memo[(name, method)] = _variant_need(self.call_candidates(name, method))
        return need is True or not need.isdisjoint(keywords)


class _CallTable:
    """:meth:`RuleIndex.call_candidates` memoized in three layers (all grow with the distinct
    call names a worker meets): the rules whose name half of the gate passes, per callee name;
    those whose method half passes, per method name; the resulting rule tuple, per (name,
    method). A name no gate's name half can pass (most: ``self.proj``, local helpers) is told
    by one match of the union of every name glob, not one test per rule."""

    __slots__ = ("rules", "always", "name_parts", "method_parts", "name_filter", "method_filter",
                 "by_name", "by_method", "by_mask", "memo", "variant_memo", "needs", "plans")

    def __init__(self, gates: tuple[tuple[Rule, CallGate | None], ...]) -> None:
        self.rules = tuple(rule for rule, _ in gates)
        self.always = 0
        self.name_parts: list[tuple[int, GatePart]] = []
        self.method_parts: list[tuple[int, GatePart]] = []
        for i, (_, gate) in enumerate(gates):
            bit = 1 << i
            if gate is None:
                self.always |= bit
                continue
            if gate.names is not None:
                self.name_parts.append((bit, gate.names))
            if gate.methods is not None:
                self.method_parts.append((bit, gate.methods))
        needs: dict[tuple[str, str], int] = {}
        for i, (rule, _) in enumerate(gates):
            spec = MATCHERS[rule.matcher.kind]
            required = [(k, "") for k in rule_keywords(rule.matcher)]
            if spec.keyword or spec.flag:
                required.append((spec.keyword, spec.flag))
            for need in required:
                needs[need] = needs.get(need, 0) | 1 << i
        #: (keyword, flag, bits of the rules that require them) per distinct requirement
        self.needs = tuple((keyword, flag, bits) for (keyword, flag), bits in needs.items())
        self.name_filter = _union_filter(p for _, p in self.name_parts)
        self.method_filter = _union_filter(p for _, p in self.method_parts)
        self.by_name: dict[str, int] = {}
        self.by_method: dict[str, int] = {}
        self.by_mask: dict[int, tuple[Rule, ...]] = {}
        #: (name, method, bits of the rules whose requirement the site lacks) -> rules
        self.memo: dict[tuple[str, str, int], tuple[Rule, ...]] = {}
        #: (name, method) -> :func:`_variant_need` of its candidates
        self.variant_memo: dict[tuple[str, str], bool | frozenset[str]] = {}
        #: (name, method) -> (its candidates, the :attr:`needs` entries that concern one of them)
        self.plans: dict[tuple[str, str], tuple[tuple[Rule, ...], tuple[tuple[str, str, int], ...]]] = {}

    def plan(self, name: str, method: str) -> tuple[tuple[Rule, ...], tuple[tuple[str, str, int], ...]]:
        """(the rules of a call to ``name`` / ``.method`` whatever its arguments, the
        requirements of :attr:`needs` that some of them have, each with only those rules'
        bits), memoized: a call whose candidates require nothing (more than half of core's
        call sites have no candidate at all) is answered without reading its arguments."""
        rules = self.without(name, method, 0)
        mask = self.mask(name, method)
        needs = tuple((keyword, flag, bits & mask) for keyword, flag, bits in self.needs if bits & mask)
        plan = self.plans[(name, method)] = (rules, needs)
        return plan

    def without(self, name: str, method: str, missing: int) -> tuple[Rule, ...]:
        """The rules of a call to ``name`` / ``.method`` less those of the bits ``missing``."""
        hit = self.memo.get((name, method, missing))
        if hit is None:
            hit = self.candidates(name, method, missing)
        return hit

    def mask(self, name: str, method: str) -> int:
        """The bits of the rules whose gate passes a call to ``name`` / ``.method``."""
        by_name = self.by_name.get(name)
        if by_name is None:
            by_name = self.by_name[name] = _passing(self.name_parts, self.name_filter, name)
        by_method = self.by_method.get(method)
        if by_method is None:
            by_method = self.by_method[method] = _passing(self.method_parts, self.method_filter, method)
        return self.always | by_name | by_method

    def candidates(self, name: str, method: str, missing: int) -> tuple[Rule, ...]:
        """The rules of a call to ``name`` / ``.method``, less those of the bits ``missing``
        (then memoized)."""
        mask = self.mask(name, method) & ~missing
        hit = self.by_mask.get(mask)
        if hit is None:
            hit = self.by_mask[mask] = tuple(rule for i, rule in enumerate(self.rules) if mask >> i & 1)
        self.memo[(name, method, missing)] = hit
        return hit


def _variant_need(rules: tuple[Rule, ...]) -> bool | frozenset[str]:
    """True when one of ``rules`` may match a call's variant site whatever its keywords, else
    the keywords one of which a call must pass for one to (see :meth:`RuleIndex.variants_matter`)."""
    keywords: set[str] = set()
    for rule in rules:
        spec = MATCHERS[rule.matcher.kind]
        if not spec.reads_kinds:
            continue
        keyword = spec.keyword or next(iter(rule_keywords(rule.matcher)), "")
        if not keyword:
            return True
        keywords.add(keyword)
    return frozenset(keywords)


def _union_filter(parts: Iterable[GatePart]) -> Callable[[str], bool]:
    """``value -> bool``: False when no part in ``parts`` can pass ``value`` (one regex of
    all their globs and one set of all their exact strings; a prefilter, never sufficient)."""
    globs: list[str] = []
    exact: set[str] = set()
    for part in parts:
        globs.extend(part.globs)
        exact.update(part.exact)
    match = glob_matcher(tuple(globs))
    frozen = frozenset(exact)
    return lambda value: value in frozen or match(value)


def _passing(parts: list[tuple[int, GatePart]], prefilter: Callable[[str], bool], value: str) -> int:
    """The bits of the parts that pass ``value``."""
    if not prefilter(value):
        return 0
    mask = 0
    for bit, part in parts:
        if part.test(value):
            mask |= bit
    return mask


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
    gates = tuple((rule, call_gate(rule.matcher)) for rule in groups.get("call", ()))
    results = frozenset(n.split("()", 1)[0] for rule in groups.get("call", ()) for n in rule.matcher.param("names") or ()
                        if "()" in n)
    return RuleIndex({k: tuple(v) for k, v in groups.items()}, frozenset(attrs), frozenset(names), gates, results,
                     _library_members(groups.get("call", ())))


#: the obstacles a member picked by name carries into the port: what it computes and how
#: (not the ecosystem, device or extension rules: a name from a config picks an op)
_MEMBER_CATEGORIES = frozenset({"dynamic-control-flow", "data-dependent-shape", "in-place-mutation", "rng",
                                "module-state", "layout/numerics"})

#: libraries whose members looked up by a computed name are matched as any of them
#: (``getattr(F, self.act)(x)``); their modules only, not classes (``torch.Tensor``)
_MEMBER_LIBRARIES = ("torch",)


def _library_members(rules: Iterable[Rule]) -> dict[str, tuple[str, ...]]:
    """Module -> sorted member names, from the literal callee names of the call rules
    (``torch.nn.functional.gelu`` -> ``torch.nn.functional``: ``gelu``). Globs, result
    handles (``f().*``) and members of classes are left out."""
    out: dict[str, set[str]] = defaultdict(set)
    for rule in rules:
        for n in rule.matcher.param("names") or ():
            if any(c in n for c in "*?[()") or "." not in n:
                continue
            holder, member = n.rsplit(".", 1)
            if holder.split(".", 1)[0] in _MEMBER_LIBRARIES and not holder.rsplit(".", 1)[-1][:1].isupper():
                out[holder].add(member)
    return {k: tuple(sorted(v)) for k, v in sorted(out.items())}


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


def _snippet(module: cst.Module, node: cst.CSTNode, positions: Positions, rng: CodeRange) -> str:
    """The finding's evidence: ``node``'s code with whitespace runs collapsed to one space, at
    most 120 characters. For an expression without its own parentheses, or a small statement
    without a semicolon, the code is the source between its positions (``rng``); otherwise (the
    node's code holds parentheses, a semicolon or leading comment lines that its position
    range leaves out) libcst generates it. Both give the same text for the former (checked on
    every finding of the 626k-line core corpus); slicing skips the code generation."""
    if (isinstance(node, cst.BaseExpression) and not node.lpar) or (
            isinstance(node, cst.BaseSmallStatement) and getattr(node, "semicolon", None) is cst.MaybeSentinel.DEFAULT):
        code = positions.source_text(rng)
    else:
        code = module.code_for_node(node)
    return " ".join(code.split())[:120]


def _step_body_traced(findings: list[Finding], tags: Iterable[tuple[int, tuple[str, tuple[int, ...]]]],
                      step_loops: dict[str, dict[int, int]], catalog: Catalog) -> list[Finding]:
    """Findings in the inline training step of a training loop moved from the undecided
    ``function`` context to ``traced``, with the rule's traced severity: once ported, the
    per-batch body (loss, ``backward()``, ``optimizer.step()``) is the one ``jax.jit``-ed step,
    while the loop around it stays on the host. The step ends at its last ``backward()``/
    ``step()``: the logging that follows in the body (``loss.item()``, meters, ``wandb.log``)
    reads the step's results on the host and keeps the function's context. ``tags``: (index in
    ``findings``, (function, open loops)) of the findings made inside loops
    (:meth:`FileVisitor.loop_tag`); ``step_loops``: training loop -> its step loops, each with
    the last line of its step (:attr:`FileVisitor.step_loops`)."""
    rules = catalog.by_code()
    out = list(findings)
    for i, (fn, where) in tags:
        chosen = step_loops.get(fn)
        f = out[i]
        rule = rules.get(f.code)
        if chosen and f.context == "function" and rule is not None and \
                any(f.span.line <= chosen.get(loop, 0) for loop in where):
            out[i] = replace(f, context="traced", traced_only=False, severity=rule.severity_in("traced"))
    return out


def analyze_source(source: str, path: str, module_name: str, catalog: Catalog,
                   index: RuleIndex | None = None, lines: list[str] | None = None,
                   star: StarBindings = (), consts: tuple[tuple[str, str], ...] = ()) -> FileFacts:
    """Analyze one file's text (``lines``: ``source.splitlines()`` when the caller has them,
    shared with :func:`~.shape.shape_facts`).

    ``path`` is relative to the scan root (POSIX separators); ``module_name`` its dotted module.
    Returns :class:`FileFacts` with findings sorted by (line, column, code). Raises
    :class:`ParseFailure` if libcst cannot parse the source (e.g. Python 2 syntax).
    """
    index = index or build_index(catalog.rules)
    try:
        tree = parse_cst(source)
    except cst.ParserSyntaxError as exc:
        raise ParseFailure(f"syntax error at line {exc.raw_line}, column {exc.raw_column}: {exc.message}") from None
    except RecursionError:
        raise ParseFailure("nesting too deep for the parser (RecursionError)") from None
    findings: list[Finding] = []
    tags: list[tuple[int, tuple[str, tuple[int, ...]]]] = []  # findings made inside loops (_step_body_traced)
    arg_writes: list[tuple[int, str, str]] = []  # (index, function, parameter) of argument writes
    errors: dict[str, str] = {}
    visitor: FileVisitor

    def emit(site: Site) -> None:
        for rule in _candidates(site, index):
            _apply(rule, site)

    def probe(site: Site) -> list[str]:
        """The codes of the rules that would match ``site``, no finding made (a call of
        each member a computed name may pick: :meth:`FileVisitor._dynamic_member`)."""
        out = []
        for rule in _candidates(site, index):
            if rule.category not in _MEMBER_CATEGORIES:
                continue
            try:
                if _match(rule, site) is not None:
                    out.append(rule.code)
            except Exception:  # noqa: BLE001 - reported when the rule runs on a real site
                continue
        return out

    def _apply(rule: Rule, site: Site, span: Span | None = None, snippet: str = "") -> None:
        ctx = site.context
        try:
            matched = _match(rule, site)
        except Exception as exc:  # noqa: BLE001 - one rule failing on one file is reported, not fatal
            errors.setdefault(rule.code, f"{type(exc).__name__}: {exc}")
            return
        if matched is None:
            return
        detail, traced_only = matched
        if site.node is not None:
            positions: Positions = visitor.metadata[PositionProvider]  # set by fast_visit
            rng = positions[site.node]
            snippet = _snippet(tree, site.node, positions, rng)
            if span is None:
                span = Span(rng.start.line, rng.start.column, rng.end.line, rng.end.column)
        tag = visitor.loop_tag()
        if tag is not None:
            tags.append((len(findings), tag))
        if site.kind == "argument-write" and site.data.get("param"):
            arg_writes.append((len(findings), site.symbol, site.data["param"]))
        findings.append(Finding(
            code=rule.code,
            severity=rule.severity_in("traced" if traced_only else ctx),
            path=path,
            span=span,
            symbol=site.symbol,
            context=ctx,
            message=rule.message.replace("{detail}", detail),
            snippet=snippet,
            traced_only=traced_only,
            requires=site.requires,
        ))

    visitor = FileVisitor(
        module=module_name,
        is_package=path.endswith("__init__.py"),
        emit=emit,
        attribute_interest=index.attribute_interest,
        name_interest=index.name_interest,
        variant_interest=index.variants_matter,
        result_interest=index.result_interest,
        probe=probe,
        members=index.members,
        star=star,
        consts=consts,
    )
    visitor.param_inits = parameter_inits(source)
    visitor.sets_padding_idx = sets_padding_idx(source)
    try:
        fast_visit(tree, visitor, source)
    except RecursionError:
        raise ParseFailure("nesting too deep to analyze (RecursionError)") from None

    if lines is None:
        lines = source.splitlines()

    def line_snippet(line: int) -> str:
        return " ".join(lines[line - 1].split())[:120] if 0 < line <= len(lines) else ""

    for site, line in visitor.late_sites:  # decided once the file was walked (no node: the line)
        # a site about a whole statement line spans it, so findings on its nodes fold into it
        end = len(lines[line - 1]) if site.data.get("whole_line") and 0 < line <= len(lines) else 0
        for rule in index.by_site.get(site.kind, ()):
            _apply(rule, site, Span(line, 0, line, end), line_snippet(line))
    if visitor.step_loops and tags:
        findings = _step_body_traced(findings, tags, visitor.step_loops, catalog)
    if arg_writes and visitor.returned_params:
        # an argument mutated in place (`features.update({...})`) and returned as a whole
        # (`return features`): the caller receives the update as the function's result, which a
        # functional port returns the same way; a caller that drops the result is ML314's
        returned = visitor.returned_params
        gone = {i for i, fn, param in arg_writes if param in returned.get(fn, ())}
        findings = [f for i, f in enumerate(findings) if i not in gone]
    # every suppression comment holds the marker: a file without it (most) skips the line scan
    suppressions, malformed = parse_suppressions(lines) if "migrate-lens:" in source else ([], [])
    findings = _apply_suppressions(findings, suppressions)
    used = {(f.span.line, f.code) for f in findings if f.suppressed}
    for sup in suppressions:
        for code in sup.codes:
            if (sup.line, code) not in used:
                _meta(index, "unused", f"{sup.kind}[{code}]", sup.line, lines, path, module_name, findings, _apply)
    for line, problem in malformed:
        _meta(index, "malformed", problem, line, lines, path, module_name, findings, _apply)

    project_calls = []
    for start, end, callee, method, data, ctx, symbol in visitor.project_calls:
        project_calls.append(CallSiteFact(
            callee=callee, method=method, span=Span(start, 0, end, 0),
            snippet=line_snippet(start), symbol=symbol, context=ctx,
            args=tuple((k, NONLITERAL if v is NOT_LITERAL else repr(v)) for k, v in data["args"]),
            kwargs=tuple((kw, k, NONLITERAL if v is NOT_LITERAL else repr(v)) for kw, (k, v) in data["kwargs"].items()),
            star=bool(data["star"]), no_grad=bool(data["no_grad"]), reference=bool(data["reference"]),
            bound=bool(data["bound"]), site_kind=data.get("site_kind", "call"),
        ))
    value_aliases = tuple(
        ImportFact(module=t.rsplit(".", 1)[0], name=t.rsplit(".", 1)[-1], alias=name, line=0)
        for name, targets in sorted(visitor.bindings.assigned.items()) for t in targets[:1] if "." in t
    )
    library_partials = _library_partials(visitor, module_name)
    if findings:
        dead = unreachable_ranges(source)  # dead_code.py: after a raise/return in its block
        if dead:
            starts = [a for a, _ in dead]
            findings = [f for f in findings if not in_ranges(f.span.line, dead, starts)]
    unique = _merge_conditional(findings)
    absorbs, names, generic = fold_table(catalog)
    if absorbs:  # one site, one finding (migrate_lens/fold.py)
        unique = {(f.span.line, f.span.column, f.code): f
                  for f in fold_duplicates(unique.values(), absorbs, names, generic, survival_table(catalog))}
    rerouted = reroute_kernels(unique.values(), visitor.functions, catalog)  # routes.py
    if rerouted is not None:
        unique = {(f.span.line, f.span.column, f.code): f for f in rerouted}
    kept = drop_kernel_routes(unique.values(), visitor.kernel_routes(), catalog)  # routes.py
    if kept is not None:
        unique = {(f.span.line, f.span.column, f.code): f for f in kept}
    kept = drop_launcher_findings(unique.values(), visitor.kernel_launchers, catalog)  # routes.py
    if kept is not None:
        unique = {(f.span.line, f.span.column, f.code): f for f in kept}
    ordered = tuple(sorted(unique.values(), key=lambda f: (f.span.line, f.span.column, f.code)))
    submodules = tuple(sorted(set(visitor.submodules), key=lambda s: (s.owner, s.line, s.attr, s.target)))
    facts = FileFacts(
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
        host_entries=tuple(sorted(set(visitor.host_entries))),
        rule_errors=tuple(RuleError(c, m) for c, m in sorted(errors.items())),
        injections=tuple(sorted(set(visitor.injections), key=lambda j: (j.owner, j.line, j.kind, j.param, j.attr, j.target, j.index))),
        value_aliases=value_aliases,
        method_aliases=tuple(sorted(set(visitor.method_aliases))),
        calls_to_project=tuple(project_calls),
        summaries=tuple(sorted(visitor.summaries, key=lambda s: s.qualname)),
        extension_modules=tuple(sorted(set(visitor.extension_modules))),
        module_globals=tuple(sorted(visitor.bindings.globals | visitor.bindings.module_names)),
        library_wrappers=tuple(sorted((w for ws in visitor.library_wrappers.values() for w in ws),
                                      key=lambda w: (w.qualname, w.line, w.callee))),
        module_instances=tuple(sorted((f"{module_name}.{name}", cls)
                                      for name, cls in visitor.bindings.module_instances.items())),
        member_factories=tuple(sorted((f"{module_name}.{name}", holder)
                                      for name, (holder, _, _) in visitor.bindings.factories.items())),
        dispatch_tables=tuple(sorted([*((f"{module_name}.{name}", entries)
                                        for name, entries in visitor.bindings.tables.items()),
                                      *visitor.bindings.foreign_tables.items()])),
        registrars=tuple(sorted(visitor.registrars())),
        closure_factories=tuple(sorted(visitor.closure_factories.items())),
        # (the last value per class and field: an `__init__` default, recorded after the class
        # body's field, is what an instance holds)
        string_defaults=tuple(sorted({(c, a): (c, a, v) for c, a, v in visitor.string_defaults}.values())),
        config_classes=tuple(sorted(visitor.config_classes)),
        library_partials=library_partials,
    )
    # The visitor is the hub of reference cycles that hold the whole CST: visitor -> emit ->
    # (closure) visitor, visitor -> values -> visitor, and call sites kept on the visitor whose
    # lazy extras (``LazyData``) are closures over the visitor. Left in place, every file's tree
    # waited for the cyclic GC, which then traversed all of it: 12% of a worker's time on core
    # for the first cycle (measured with gc.callbacks), and after that cut still ~10% (0.8 s of
    # 1/8 of core, one process; 550k unreachable objects per 30 files, 27k after). Emptying the
    # visitor cuts every cycle through it, so reference counting frees the tree on return.
    visitor.__dict__.clear()
    return facts


def _candidates(site: Site, index: RuleIndex) -> tuple[Rule, ...]:
    """The rules that may match ``site``: call rules by callee name/method, others by site
    kind (and name: :meth:`RuleIndex.site_rules`)."""
    return index.call_site_rules(site) if site.kind == "call" else index.site_rules(site)


def _match(rule: Rule, site: Site) -> tuple[str, bool] | None:
    """``(detail, traced_only)`` when ``rule`` matches ``site`` in its context, else None.

    ``traced_only`` marks a function-context site of a traced-only rule: the project graph keeps
    it only when the function runs under the trace. An ecosystem-dependency rule never matches a
    call into the scanned file's own top-level package (kornia's calls of ``kornia.*`` inside
    kornia). Exceptions of the matcher propagate (each caller decides how a failing rule is
    reported)."""
    m = rule.matcher
    ctx = site.context
    if ctx in m.contexts:
        traced_only = False
    elif ctx == "function" and "traced" in m.contexts:
        traced_only = True
    else:
        return None
    if rule.category == "ecosystem-dependency" and site.kind == "call" and (
            (site.name and in_own_package(site.name, site.symbol)) or
            (site.method and in_own_package(site.data.get("receiver_ctor", ""), site.symbol)
             and site.data.get("receiver_defines_method", True))):
        # a call into the scanned package itself (`kornia.filters.box_kernel(...)` inside
        # kornia; `self.text_decoder.generate(...)` of a class transformers itself defines, unless
        # the class inherits that method from a library base): the code being ported, not a
        # PyTorch-only library it depends on
        return None
    detail = MATCHERS[m.kind].fn(site, m)
    return None if detail is None else (detail, traced_only)


def _library_partials(visitor: FileVisitor, module_name: str) -> tuple[tuple[str, str, tuple[tuple[str, str, str], ...]], ...]:
    """The module-level ``name = partial(<library callable>, kw=...)`` bindings with keyword
    arguments only (``resize = partial(F.interpolate, mode="bilinear", align_corners=True)``),
    as ``(<module>.<name>, callable, ((keyword, kind, literal repr), ...))``, sorted: a call of
    the name in another file is a call of the callable with these keywords (the file's own
    calls take them already, :meth:`Bindings.partial_of`)."""
    bindings = visitor.bindings
    out = []
    for name, call in bindings.partials.items():
        func = call.args[0]
        if func.keyword is not None or func.star or any(a.keyword is None or a.star for a in call.args[1:]):
            continue
        target = bindings.resolve(func.value)
        if not target or target.startswith(f"{module_name}.") or bindings.is_project(target) or \
                bindings.alts.get(name, (target,)) != (target,):
            continue
        kwargs = []
        for a in call.args[1:]:
            v = literal(a.value)
            kwargs.append((a.keyword.value, "S" if v is not NOT_LITERAL else "U",  # type: ignore[union-attr]
                           NONLITERAL if v is NOT_LITERAL else repr(v)))
        out.append((f"{module_name}.{name}", target, tuple(kwargs)))
    return tuple(sorted(out))


def match_project_call(call: CallSiteFact, name: str, guarded: bool, path: str, index: RuleIndex,
                       suppressions: tuple[Suppression, ...] = (), compiled: bool = False,
                       applied: bool = False, subclass_of: str = "", reference: bool = False) -> list[Finding]:
    """Findings of the call rules (and, for a ``guarded`` optional import, the import rules)
    on a call recorded per file (:class:`CallSiteFact`) whose callee the project graph
    resolved to ``name`` (``torch.nn.utils.weight_norm`` through a re-exported alias);
    ``compiled``: ``name`` is a function of one of the project's own compiled extension
    modules (the site's ``compiled_extension`` data); ``applied``: ``name`` is ``<Fn>.apply`` of a
    project ``autograd.Function`` the callee is bound to (``clamp_grad = ClampGrad.apply``,
    imported), matched as the per-file stage matches ``Fn.apply(...)``; ``subclass_of``: the
    project class built (or named) that subclasses the torch class ``name`` without an
    ``__init__`` of its own (the per-file ``data["subclass_of"]``); ``reference``: the class is
    named as a value, not called (``norm_layer=BN``, the per-file ``data["reference"]``). Same contexts,
    severities and suppression comments as the per-file stage."""
    def value(text: str) -> object:
        if text == NONLITERAL:
            return NOT_LITERAL
        try:
            return ast.literal_eval(text)
        except (ValueError, SyntaxError, RecursionError, MemoryError):
            return NOT_LITERAL

    data = {
        "args": tuple((k, value(v)) for k, v in call.args),
        "kwargs": {kw: (k, value(v)) for kw, k, v in call.kwargs},
        "star": call.star, "no_grad": call.no_grad, "result": "U", "project_alias": True, "level": 0,
        "compiled_extension": compiled,
    }
    if subclass_of:
        data["subclass_of"] = subclass_of
    if reference:  # a class named as a value (a parameter default), not called
        data["reference"] = True
    method = call.method
    if applied:
        method = "apply"
        data.update(imported_class=True, receiver_name=name[: -len(".apply")].rsplit(".", 1)[-1])
    sites = [Site(kind=call.site_kind, node=None, context=call.context, symbol=call.symbol, name=name,  # type: ignore[arg-type]
                  method=method, data=data)]
    if guarded:
        sites.append(Site(kind="import", node=None, context=call.context, symbol=call.symbol, name=name,  # type: ignore[arg-type]
                          data={**data, "optional": True, "call": True}))
    by_line = {sup.line: sup for sup in suppressions}
    out: list[Finding] = []
    for site in sites:
        ctx = site.context
        for rule in _candidates(site, index):
            try:
                matched = _match(rule, site)
            except Exception:  # noqa: BLE001 - a rule failing on one site is not fatal
                continue
            if matched is None:
                continue
            detail, traced_only = matched
            fd = Finding(code=rule.code, severity=rule.severity_in("traced" if traced_only else ctx), path=path,
                         span=call.span, symbol=call.symbol, context=ctx, message=rule.message.replace("{detail}", detail),
                         snippet=call.snippet, traced_only=traced_only)
            sup = by_line.get(call.span.line) or by_line.get(call.span.end_line)
            if sup is not None and rule.code in sup.codes:
                fd = replace(fd, suppressed=sup.kind, suppress_reason=sup.reason)
            out.append(fd)
    return out
def _merge_conditional(findings: list[Finding]) -> dict[tuple[int, int, str], Finding]:
    """One finding per (line, column, code): an unconditional one wins over findings that hold
    only under a hypothesis; those merge into one holding under any of their requirements."""
    unique: dict[tuple[int, int, str], Finding] = {}
    for f in findings:
        key = (f.span.line, f.span.column, f.code)
        old = unique.get(key)
        if old is None or not f.requires:
            unique[key] = f
        elif old.requires:
            unique[key] = replace(old, requires=tuple(sorted({*old.requires, *f.requires})))
    return unique


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


def _local_resolver(facts: FileFacts) -> Callable[[str, str], str | None]:
    """Resolve a callee as written in a caller of this file to a function of this file
    (``self.method`` in the caller's class and its in-file bases, module-level functions, a
    local class's ``__init__``), or None."""
    functions = {f.qualname for f in facts.functions}
    classes = {c.qualname: c for c in facts.classes}

    def owner_classes(qualname: str) -> list[str]:
        """The class a method belongs to and its in-file bases (nearest first)."""
        parts = qualname.split(".")
        for i in range(len(parts) - 1, 0, -1):
            prefix = ".".join(parts[:i])
            if prefix in classes:
                out, todo = [], [prefix]
                while todo:
                    c = todo.pop(0)
                    if c in out or c not in classes:
                        continue
                    out.append(c)
                    todo.extend(classes[c].bases)
                return out
        return []

    def resolve(caller: str, callee: str) -> str | None:
        if callee.startswith("self."):
            name = callee[5:]
            if "." in name:
                return None
            for cls in owner_classes(caller):
                if f"{cls}.{name}" in functions:
                    return f"{cls}.{name}"
            return None
        if callee in classes and f"{callee}.__init__" in functions:
            return f"{callee}.__init__"
        return callee if callee in functions else None

    return resolve


def local_contexts(facts: FileFacts) -> dict[str, str]:
    """The context of each function in this file judged from this file alone
    (:func:`migrate_lens.interproc.function_contexts`): traced entries are ``forward``/
    ``__call__`` of nn.Modules, hook callbacks in ``facts.traced_entries`` and inferred
    training steps; calls are followed here (``self.method`` resolved in the caller's class and
    its bases defined in this file, module-level functions, a local class runs its
    ``__init__``), and nested functions run where they are defined. The project graph makes
    the same decision across files."""
    functions = {f.qualname: f for f in facts.functions}
    by_caller: dict[str, list[str]] = defaultdict(list)
    for call in facts.calls:
        by_caller[call.caller].append(call.callee)
    nested: dict[str, list[str]] = defaultdict(list)
    for q in functions:
        head = q.rsplit(".", 1)[0]
        while head and head not in functions and "." in head:
            head = head.rsplit(".", 1)[0]
        if head in functions:
            nested[head].append(q)
    resolve = _local_resolver(facts)

    def succ(q: str) -> list[str]:
        out = [t for t in (resolve(q, c) for c in by_caller.get(q, ())) if t is not None]
        out.extend(nested.get(q, ()))
        return out

    guess = {q: f.context for q, f in functions.items()}
    roles = training_roles({s.qualname: s.role for s in facts.summaries if s.qualname in functions},
                           lambda _: facts.path)
    entries = [q for q in facts.traced_entries if q in functions]
    loop_calls = {s.qualname: s.loop_calls for s in facts.summaries if s.loop_calls}
    methods = frozenset(q for q, f in functions.items() if f.is_method)
    return function_contexts(guess, roles, entries, succ, loop_calls, methods)


def local_traced_closure(facts: FileFacts) -> frozenset[str]:
    """Qualnames of the functions in this file that run under the trace, judged from this file
    alone (:func:`local_contexts`)."""
    return frozenset(q for q, c in local_contexts(facts).items() if c == "traced")


def resolve_traced_only(facts: FileFacts, catalog: Catalog | None = None) -> FileFacts:
    """Decide this file's undecided findings (made in ``function`` context) from the file
    alone: each moves to its function's context (:func:`local_contexts`, then
    :func:`migrate_lens.interproc.recontext`: ``traced_only`` ones kept only in traced code,
    init code takes the rule's init severity, a rule that does not apply in that context drops
    the finding). ``catalog`` gives the rules' contexts (default: the built-in catalog). Used
    by the pre-commit ``check`` and by tests; the project graph makes the same decision with
    cross-file calls."""
    contexts = local_contexts(facts)
    catalog = catalog or load_catalog()
    rules = catalog.by_code()
    resolve = _local_resolver(facts)
    summaries = {s.qualname: s for s in facts.summaries}

    def targets(caller: str, callee: str) -> tuple[str, ...]:
        t = resolve(caller, callee)
        return (t,) if t is not None and t != caller else ()

    callers: dict[str, list[tuple[str, str]]] = {}
    for call in facts.calls:
        for t in targets(call.caller, call.callee):
            callers.setdefault(t, []).append((call.caller, call.callee))
    kinds = flow_kinds(summaries, targets, contexts=contexts, callers=callers)
    kept: list[Finding] = []
    decided = False
    for f in facts.findings:
        if f.requires:
            if not holds(f, kinds):
                continue
            f = replace(f, requires=())
            decided = True
        decided = decided or f.context == "function"  # (a fold the per-file stage left to this)
        got = recontext(f, contexts.get(f.symbol, "function"), rules.get(f.code))
        if got is not None:
            kept.append(got)
    if decided and len(kept) > 1:
        # a conditional finding that holds absorbs what shares its site (ML315 over ML301), and
        # findings whose context is now decided fold as the per-file stage could not, as the
        # project graph does (:meth:`migrate_lens.graph._Builder.build`)
        absorbs, names, generic = fold_table(catalog)
        if absorbs:
            kept = sorted(fold_duplicates(kept, absorbs, names, generic),
                          key=lambda f: (f.span.line, f.span.column, f.code))
    return replace(facts, findings=tuple(kept))


def analyze_native_file(path: str, module_name: str, catalog: Catalog,
                        index: RuleIndex | None = None) -> tuple[Finding, ...]:
    """Findings of the ``source-file`` rules (matcher kind ``source-file``) for one native
    source file (``.cu``, ``.cpp``, ...) found in the scanned tree. ``path`` is relative to
    the scan root (POSIX); the finding points at line 1. Never reads the file."""
    index = index or build_index(catalog.rules)
    site = Site(kind="source-file", node=None, context="host", symbol=module_name, name=path)  # type: ignore[arg-type]
    out: list[Finding] = []
    for rule in index.by_site.get("source-file", ()):
        detail = MATCHERS[rule.matcher.kind].fn(site, rule.matcher)
        if detail is None:
            continue
        out.append(Finding(
            code=rule.code, severity=rule.severity_in("host"), path=path, span=Span(1, 0, 1, 0),
            symbol=module_name, context="host", message=rule.message.replace("{detail}", detail),
            snippet=path,
        ))
    return tuple(out)
