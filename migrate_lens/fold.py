"""One site, one finding: fold findings that report one construct for one reason.

Two rules often fire on the same expression because one obstacle has two faces:
``F.dropout(x, p, training=self.training)`` is a functional dropout (ML602) *and* reads the
training flag (ML701); ``nn.BatchNorm2d(c)`` carries running statistics (ML703) *and* the
momentum convention (ML904); ``x[mask] = 0`` is a boolean-mask scatter (ML204) *and* a
subscript write (ML304). Reported twice, the site counts twice in effort and risk and the
report cries wolf. A rule declares in its file the codes it absorbs (``folds = ["ML701"]``):
when the absorbing rule and an absorbed one fire on one line and one finding's span lies
within the other's (the same node, or one nested in the other), the absorbed finding is
dropped and named in the kept one's message and ``folds``; the kept one takes the higher
severity of the two.

Runs in the per-file stage (:func:`migrate_lens.analysis.engine.analyze_source`), so cached
facts, the project graph, the estimate and the pre-commit check all see one finding per site.
Only findings with the same suppression state fold (a suppressed finding never hides an
active one), a finding that is kept only if its function is traced (``traced_only``)
never absorbs one that is kept regardless, and a finding whose function's context is still
undecided never absorbs one that the project keeps in more contexts (the project graph folds
that pair once it has decided them).

Source of the pairs: the expert review of the core scan (``shared/reviews/
core-findings-review.md`` section 8.9: 896 co-located duplicates in five pairs) and the
co-occurrence counts of that scan.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from migrate_lens.models import SEVERITIES, Finding, Span

if TYPE_CHECKING:
    from migrate_lens.catalog import Catalog

_TABLES: dict[str, tuple[dict[str, frozenset[str]], dict[str, str], frozenset[str]]] = {}
#: codes of the rules whose findings keep their own severity when they absorb others
#: (``fold_severity = "own"``: an input check absorbs the `.item()` read inside it, which a
#: port drops with the check); filled by :func:`fold_table`
_OWN_SEVERITY: set[str] = set()

#: The matcher kind of the API map's own rules: generic, so any other rule's finding on the
#: same construct absorbs theirs without naming it (the specific rule already shows the map's
#: row in its remedy). The same construct: the call the row names or a larger one holding it;
#: a finding on an argument inside that call (`torch.std(x[:n])`) leaves the row's finding.
GENERIC_MATCHERS = frozenset({"api-map"})


def fold_table(catalog: "Catalog") -> tuple[dict[str, frozenset[str]], dict[str, str], frozenset[str]]:
    """``({absorbing code: absorbed codes}, {code: rule name}, generic codes)`` of
    ``catalog``, built once per catalog digest. Generic codes (:data:`GENERIC_MATCHERS`) are
    absorbed by every other rule, without a mention."""
    hit = _TABLES.get(catalog.digest)
    if hit is None:
        generic = frozenset(r.code for r in catalog.rules if r.matcher.kind in GENERIC_MATCHERS)
        absorbs = {r.code: frozenset(r.folds) | (generic - {r.code}) for r in catalog.rules
                   if r.folds or (generic - {r.code})}
        names = {r.code: r.name for r in catalog.rules}
        _OWN_SEVERITY.update(r.code for r in catalog.rules if r.fold_severity == "own")
        hit = _TABLES[catalog.digest] = (absorbs, names, generic)
    return hit


def _within(inner: Span, outer: Span) -> bool:
    return (inner.line, inner.column) >= (outer.line, outer.column) and \
        (inner.end_line, inner.end_column) <= (outer.end_line, outer.end_column)


def _can_absorb(keep: Finding, drop: Finding, survives: Mapping[str, frozenset[str]] | None) -> bool:
    return (keep.suppressed == drop.suppressed and (drop.traced_only or not keep.traced_only)
            # a conditional finding may be dropped later: it absorbs only what holds under the
            # same hypotheses (an ML315 that holds when a caller loses the update must not take
            # an ML304 that holds when a caller gives the argument)
            and (not keep.requires or keep.requires == drop.requires)
            # an undecided finding that the project drops in a context where the other stays
            # (a trace-only ML211 in host code, beside the ecosystem ML1013 of the same NMS call)
            and (keep.context != "function" or survives is None
                 or survives.get(drop.code, frozenset()) <= survives.get(keep.code, frozenset()))
            and (_within(drop.span, keep.span) or _within(keep.span, drop.span)))


def fold_duplicates(findings: Iterable[Finding], absorbs: Mapping[str, frozenset[str]],
                    names: Mapping[str, str], quiet: frozenset[str] = frozenset(),
                    survives: Mapping[str, frozenset[str]] | None = None) -> list[Finding]:
    """``findings`` (one file's) with every absorbed finding folded into the one that absorbs
    it (see the module docstring). Order is kept; a finding absorbed by several is folded
    into the first; what a folded finding had absorbed moves with it. Findings that would
    absorb each other (a cycle of declarations) fold once. ``quiet`` codes fold without a
    mention (no message, no ``folds`` entry, no severity). ``survives`` (code -> decided
    contexts a ``function``-context finding of it is kept in,
    :func:`migrate_lens.interproc.survival_table`): a finding in ``function`` context absorbs
    only one that survives in no more contexts than it does; the project folds the pair once
    their contexts are decided."""
    items = list(findings)
    if not absorbs or len(items) < 2:
        return items
    by_line: dict[int, list[int]] = defaultdict(list)
    for i, f in enumerate(items):
        by_line[f.span.line].append(i)
    dropped: set[int] = set()
    folded_into: dict[int, list[int]] = defaultdict(list)
    for idxs in by_line.values():
        if len(idxs) < 2:
            continue
        changed = True
        while changed:  # chains fold to the end: ML706 absorbs ML506, which absorbed ML301
            changed = False
            for k in idxs:
                targets = absorbs.get(items[k].code)
                if not targets or k in dropped:
                    continue
                for d in idxs:
                    if d == k or d in dropped or items[d].code not in targets or k in folded_into.get(d, ()):
                        continue
                    if items[d].code in quiet and not _within(items[d].span, items[k].span):
                        # a generic API-table finding names its whole call: a finding on a part
                        # of it (a data-dependent slice passed to `torch.std(x[:n])`) is another
                        # construct and takes nothing from it
                        continue
                    if _can_absorb(items[k], items[d], survives):
                        dropped.add(d)
                        folded_into[k] += [d, *folded_into.pop(d, [])]
                        changed = True
    if not dropped:
        return items
    out: list[Finding] = []
    for i, f in enumerate(items):
        if i in dropped:
            continue
        absorbed = folded_into.get(i)
        codes = sorted({items[d].code for d in absorbed or ()} - quiet)
        if codes:
            # a traced_only finding's severity holds only if its function is traced: a kept
            # finding that stays regardless does not inherit it
            peers = [items[d] for d in absorbed or () if (f.traced_only or not items[d].traced_only) and items[d].code not in quiet]
            worst = f.severity if f.code in _OWN_SEVERITY else \
                max((f, *peers), key=lambda x: SEVERITIES.index(x.severity)).severity
            also = ", ".join(f"{c} {names.get(c, '')}".strip() for c in codes)
            f = replace(f, severity=worst, message=f"{f.message} (also {also}: same construct)",
                        folds=tuple(sorted({*f.folds, *codes})))
        out.append(f)
    return out
