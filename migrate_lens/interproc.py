"""Project-level combination of per-function summaries: the context each function runs in
after the port, decided by reachability over the call graph rather than by its name.

Works on compact facts only (function qualnames, their name-suggested context, the roles of
:mod:`migrate_lens.analysis.summaries`, and a successor function over resolved call and
nesting edges); never on CST nodes. Used by the project graph (across files) and by the
per-file resolution of :func:`migrate_lens.analysis.engine.resolve_traced_only` (one file).

One function gets one context for all rules:

- ``traced``: reachable from a traced entry (``forward``-like methods, hook callbacks,
  configured ``traced-entries``, inferred training steps, and what training loops call),
  whatever the function's name (an ``_init_*`` helper that ``forward`` calls is traced);
- ``host``: generation glue and training loops (they drive a jitted step) and what only they
  reach;
- ``init``: reachable from init code (constructors, init-named helpers) and from no traced or
  host code, or init-named and called from nowhere seen;
- otherwise the name-suggested context (``function``: callers unknown).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from migrate_lens.models import Finding

if TYPE_CHECKING:
    from migrate_lens.catalog import Rule

HOST_ROLES = frozenset({"generation", "train-loop"})
#: Obstacle categories that exist only under a trace (Python control flow on tracers, shapes
#: from values, host reads and Python side effects, state written between traced calls).
TRACE_ONLY_CATEGORIES = frozenset({"dynamic-control-flow", "data-dependent-shape", "side-effect", "module-state", "device"})


def _reach(seeds: Iterable[str], succ: Callable[[str], Iterable[str]], stop: set[str] | frozenset[str]) -> set[str]:
    """Functions reachable from ``seeds`` (included) through ``succ`` without entering ``stop``."""
    seen: set[str] = set()
    queue = deque(sorted(s for s in seeds if s not in stop))
    while queue:
        n = queue.popleft()
        if n in seen:
            continue
        seen.add(n)
        for v in succ(n):
            if v not in seen and v not in stop:
                queue.append(v)
    return seen


def _leaf(qualname: str) -> str:
    """The called name of a function node (a class's name for its ``__init__``)."""
    parts = qualname.rsplit(".", 2)
    return parts[-2] if parts[-1] == "__init__" and len(parts) > 1 else parts[-1]


def function_contexts(guess: Mapping[str, str], roles: Mapping[str, str], entries: Iterable[str],
                      succ: Callable[[str], Iterable[str]],
                      loop_calls: Mapping[str, frozenset[str]] | None = None) -> dict[str, str]:
    """The context of every function in ``guess`` (qualname -> name-suggested context, the
    ``FunctionFact.context``), see the module docstring.

    ``roles``: qualname -> summary role; ``entries``: traced entries besides ``traced``-guessed
    functions and ``train-step`` roles; ``succ(q)``: the functions ``q`` calls or defines
    (resolved project nodes); ``loop_calls``: for training loops, the names they call inside
    their loops (``FunctionSummary.loop_calls``). Deterministic for equal inputs."""
    loop_calls = loop_calls or {}
    host_glue = {q for q, r in roles.items() if r in HOST_ROLES}
    seeds = {q for q, c in guess.items() if c == "traced"}
    seeds.update(entries)
    seeds.update(q for q, r in roles.items() if r == "train-step")
    for q, r in roles.items():
        if r == "train-loop":  # the loop stays on the host; what it calls in the loop is the step
            inside = loop_calls.get(q, frozenset())
            seeds.update(v for v in succ(q) if _leaf(v) in inside)
    traced = _reach(seeds, succ, host_glue)
    host = _reach(host_glue | {q for q, c in guess.items() if c == "host"}, succ, traced)
    init = _reach((q for q, c in guess.items() if c == "init"), succ, traced | host)
    out = dict(guess)
    for q in init:
        out[q] = "init"
    for q in host:
        out[q] = "host"
    for q in traced:
        out[q] = "traced"
    return out


def recontext(fd: Finding, ctx: str, rule: Rule | None) -> Finding | None:
    """A finding made in undecided (``function``) context, given the context ``ctx`` its
    function runs in: moved to that context (``init`` findings take the rule's
    ``init_severity``), or None when the rule does not apply there (a traced-only rule in code
    that never runs under the trace, a tensor-branch rule in init or host code; host glue keeps
    the rules that also apply to init code, which runs eagerly too). Findings
    already in a decided context are returned unchanged."""
    if fd.context != "function":
        return fd
    if ctx == "function":
        return None if fd.traced_only else fd
    allowed = rule.matcher.contexts if rule is not None else ("traced", "function")
    # host glue runs eagerly on arrays every call: what matters outside a trace (global RNG
    # state, in-place updates, ecosystem...) still applies to it, trace-only obstacles do not
    if ctx not in allowed and not (ctx == "host" and rule is not None and rule.category not in TRACE_ONLY_CATEGORIES):
        return None
    severity = rule.init_severity if ctx == "init" and rule is not None else fd.severity
    return replace(fd, context=ctx, traced_only=False, severity=severity)
