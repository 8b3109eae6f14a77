"""Hazards reached through a call: where traced code enters a project helper that holds one.

A hazard inside a helper (``torch.nonzero`` in ``geometry.radius_graph``) is reported, counted
and priced once, at its own line. Under ``jax.jit`` the port fails where the traced caller
calls the helper: ``edge_index = radius_graph(pos, r)`` in ``forward`` is the line a reader
of the forward path must change (a fixed-size neighbour list, a key handed down, a kernel
replaced), and the place an editor showing SARIF results should mark. This module finds those
call sites from the project graph's resolved calls; the written reports list each one as an
entry pointing at the helper's finding (``report.view.with_call_site_hazards``), with no count
and no effort of its own.

Only hazards that make the *call* fail or change its signature travel: data-dependent
control flow and shapes, custom ops, host side effects and global RNG draws (a PRNG key must
be passed down). An in-place op on the helper's locals, a numerics default or a device call
is the helper's own rewrite. One hop only: ``forward -> a -> b`` marks ``forward``'s call of
``a`` for ``a``'s hazards and ``a``'s call of ``b`` for ``b``'s. Calls of submodules
(``self.block(x)``, a ``forward`` or ``__call__``) are composition, not helper calls: the
submodule's status carries its hazards.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from migrate_lens.models import CallFact, Finding

#: Categories whose hazard inside a helper makes a traced call of it fail under ``jax.jit``
#: (or forces a new argument: a PRNG key), so the call site is where the port changes.
TRAVELLING_CATEGORIES = frozenset({"dynamic-control-flow", "data-dependent-shape", "custom-op", "side-effect", "rng"})

_TRAVELLING_SEVERITIES = frozenset({"medium", "high", "critical"})

#: Callee method names that are a module's own call path (composition, not a helper call).
_MODULE_CALLS = frozenset({"forward", "__call__"})


@dataclass(frozen=True, slots=True)
class CallSiteHazard:
    """Traced ``caller`` calls project function ``callee`` at ``path``:``line`` (1-based; the
    call's first line), and ``finding`` (the callee's own kept finding, context ``traced``) is
    a hazard of a :data:`TRAVELLING_CATEGORIES` category there. ``callee_text`` is the call as
    written (``geometry.radius_graph``, ``self._gather``)."""

    path: str
    line: int
    caller: str
    callee: str
    callee_text: str
    finding: Finding


def call_site_hazards(calls: Iterable[tuple[str, CallFact]], call_targets: Mapping[tuple[str, str], list[str]],
                      traced: frozenset[str] | set[str], kind: Mapping[str, str],
                      findings_at: Mapping[str, list[Finding]], category_of: Mapping[str, str]) -> list[CallSiteHazard]:
    """The call sites of traced functions that enter a project function holding a travelling
    hazard: one per (caller, callee, category), at the caller's first call of the callee and
    for the callee's first finding of that category (by line, then code). ``calls`` yields
    (caller's file path, call); ``call_targets`` maps (caller, callee as written) to the
    resolved project nodes; ``kind`` is each node's kind (only ``function`` targets count);
    ``findings_at`` the final findings by owning node; ``category_of`` a rule code's category.
    Only findings of severity ``medium`` or above travel (a ``low`` one, such as a dropout
    layer's call, changes nothing at the caller under Flax NNX: the layer holds its RNG stream). Sorted by (path, line, callee, code)."""
    first: dict[str, dict[str, Finding]] = {}  # callee -> category -> its first finding

    def travelling(node: str) -> dict[str, Finding]:
        got = first.get(node)
        if got is None:
            got = {}
            for fd in sorted(findings_at.get(node, ()), key=lambda f: (f.span.line, f.span.column, f.code)):
                cat = category_of.get(fd.code, "")
                if cat in TRAVELLING_CATEGORIES and fd.context == "traced" and fd.severity in _TRAVELLING_SEVERITIES \
                        and not fd.suppressed and cat not in got:
                    got[cat] = fd
            first[node] = got
        return got

    seen: dict[tuple[str, str, str], CallSiteHazard] = {}
    for path, call in calls:
        caller = call.caller
        if call.passed or caller not in traced:
            continue
        for target in call_targets.get((caller, call.callee), ()):
            if target == caller or kind.get(target) != "function" or target.rsplit(".", 1)[-1] in _MODULE_CALLS:
                continue
            if target.startswith(caller + "."):
                continue  # a closure of the caller: its hazards are the caller's own lines
            for cat, fd in travelling(target).items():
                key = (caller, target, cat)
                prev = seen.get(key)
                if prev is None or call.line < prev.line:
                    seen[key] = CallSiteHazard(path, call.line, caller, target, call.callee, fd)
    return sorted(seen.values(), key=lambda h: (h.path, h.line, h.callee, h.finding.code))
