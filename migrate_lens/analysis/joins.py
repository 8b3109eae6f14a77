"""Joins of what alternative paths give: branch kinds, derived kinds, flows and
function summaries (a summary's flows joined over its returns, forward plans), static
descriptors and item lists; used when a function's summary is closed and when a call's
flow is built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from migrate_lens.analysis import kinds as K
from migrate_lens.analysis.values import HYPOTHESES
from migrate_lens.models import Flow, FunctionSummary

if TYPE_CHECKING:
    from migrate_lens.analysis.scopes import _FuncScope

def _join_items(acc: list[list[Any]] | None, items: list[Any], first: bool) -> list[list[Any]]:
    """Per tuple item, what a function's ``return`` statements give (``items``: this one's, in
    order), while every ``return`` so far returns a tuple of the same length; ``[]`` once one
    does not. ``acc`` is None before the first ``return`` (``first``) and is extended in place."""
    if acc is None and first:
        return [[x] for x in items]
    if acc is not None and len(acc) == len(items):
        for a, x in zip(acc, items):
            a.append(x)
        return acc
    return []


def _join_branches(a: str, b: str) -> str:
    """The kind of a name after an ``if``/``else`` that gave it kind ``a`` in one branch and
    ``b`` in the other: a data-dependent host value in either is one; a tensor (a mask or
    not) in either is a tensor; else a module, unknown, static."""
    if a == b:
        return a
    pair = (a, b)
    if K.H in pair:
        return K.H
    if a in K.TENSORISH and b in K.TENSORISH:
        return K.T
    for k in (K.B, K.T, K.M, K.U):
        if k in pair:
            return k
    return K.S


def _join_derived(da: dict[str, dict[str, str]] | None, ka: str,
                  db: dict[str, dict[str, str]] | None, kb: str) -> dict[str, dict[str, str]]:
    """Derived kinds joined like :func:`_join_branches` (a side without a derivation for a
    key keeps its plain kind ``ka``/``kb`` under every hypothesis)."""
    out: dict[str, dict[str, str]] = {}
    for key in sorted({*(da or {}), *(db or {})}):
        ma, mb = (da or {}).get(key), (db or {}).get(key)
        out[key] = {h: _join_branches(ma[h] if ma else ka, mb[h] if mb else kb) for h in HYPOTHESES}
    return out


def _join_flows(flows: list[Flow]) -> Flow | None:
    """One flow for several ``return`` values: the joined kind, every dependency."""
    kinds = [f.kind for f in flows if f.kind]
    deps = sorted({d for f in flows for d in f.deps})
    if not kinds and not deps:
        return None
    kind = ""
    for k in kinds:
        kind = k if not kind else _join_branches(kind, k)
    return Flow(kind, tuple(deps))


def _with_flows(summary: FunctionSummary | None, scope: _FuncScope) -> FunctionSummary | None:
    """``summary`` (the role, or None) completed with the function's value flows: its
    parameters when one is symbolic, its return flows, its calls' argument flows; None when
    the function has nothing to say."""
    ret = _join_flows(scope.ret_flows)
    items: tuple[Flow, ...] = ()
    if scope.ret_items:
        joined = [_join_flows(acc) for acc in scope.ret_items]
        if any(j is not None for j in joined):
            items = tuple(j if j is not None else Flow() for j in joined)
    mutated = tuple(sorted({p for _, p, _ in scope.arg_writes})) if scope.returns_value else ()
    assumed = tuple(sorted(scope.assumed_refs))
    named = scope.symbolic or mutated or assumed or scope.guard_used or any("p:" in r for r in scope.ret_reduced)
    params = tuple(scope.param_order) if named else ()
    kwonly = tuple(scope.kwonly_order) if named else ()
    calls = tuple(scope.call_flows)
    static_ret = _join_static(scope.ret_static)
    static_items = tuple(_join_static(acc) for acc in scope.ret_static_items or ())
    if not any(static_items):
        static_items = ()
    ret_reduced = tuple(sorted(scope.ret_reduced))
    ret_ragged = ("*",) if "*" in scope.ret_ragged else tuple(sorted(scope.ret_ragged))
    ret_keys = tuple((k, j) for k, acc in sorted(scope.ret_keys.items()) if (j := _join_flows(acc)) is not None)
    resets = tuple(sorted(scope.resets))
    if summary is None and ret is None and not items and not params and not kwonly and not calls and not static_ret and \
            not static_items and not scope.forwards and not ret_reduced and not ret_keys and not resets and not ret_ragged:
        return None
    defaults = tuple(sorted(scope.static_defaults)) if assumed or scope.symbolic else ()
    base = summary or FunctionSummary(scope.qualname)
    return FunctionSummary(base.qualname, base.role, base.loop_calls, params, ret, items, calls,
                           mutated, tuple(sorted(scope.returned)) if mutated else (),
                           assumed, defaults, static_ret, static_items, forwards=_forward_plan(scope),
                           kwonly=kwonly, ret_reduced=ret_reduced, ret_keys=ret_keys, resets=resets,
                           ret_ragged=ret_ragged)


def _forward_plan(scope: _FuncScope) -> tuple[str, ...]:
    """``FunctionSummary.forwards`` of a forwarding wrapper: what its calls of its first
    parameter pass on (:func:`_forwards`) and its named parameters they do not pass (``-name``:
    the wrapper's own, as ``enabled`` in ``maybe_checkpoint(fn, x, enabled=False)``), with the
    number of its positional parameters after the first (``@n``); () for any other function."""
    if not scope.forwards:
        return ()
    passed = scope.forwards
    fwd = max((int(d[1:]) for d in passed if d[:1] == "#"), default=0)
    order = scope.param_order
    own = {f"-{p}" for p in scope.params if p != order[0] and f"={p}" not in passed and p not in order[1:fwd + 1]}
    keep = {d for d in passed if d[:1] != "#"}
    return tuple(sorted({f"@{len(order) - 1}", f"#{fwd}", *keep, *(f"+{p}" for p in order[1:fwd + 1]), *own}))


def _forwards(node: cst.Call, scope: _FuncScope) -> set[str] | None:
    """When ``node``, a call of the function's first parameter, passes it the parameters after
    it as they came (``fn(*args, **kwargs)``, ``fn(x)`` in ``def run(fn, x)``, ``fn(x,
    scale=scale)``: a forwarding wrapper, ``FunctionSummary.forwards``): what it passes on,
    ``#n`` (the first n positional parameters after ``fn``, in order), ``*`` (the ``*args``
    after them), ``**`` and ``=name`` (a parameter passed by its own name); else None."""
    fdef = scope.node
    if fdef is None or not node.args:
        return None
    params = fdef.params
    star = params.star_arg.name.value if type(params.star_arg) is cst.Param else ""
    kwstar = params.star_kwarg.name.value if params.star_kwarg is not None else ""
    order = scope.param_order
    pos = 1
    out: set[str] = set()
    for a in node.args:
        v = a.value
        if type(v) is not cst.Name:
            return None
        if a.star == "*":
            if v.value != star:
                return None
            out.add("*")
        elif a.star == "**":
            if v.value != kwstar:
                return None
            out.add("**")
        elif a.keyword is not None:
            if a.keyword.value != v.value or v.value not in scope.params or v.value == order[0]:
                return None
            out.add(f"={v.value}")
        else:
            if pos >= len(order) or order[pos] != v.value or "*" in out:
                return None  # (`fn(*args, x)`: the positions are not those of the caller)
            pos += 1
    out.add(f"#{pos - 1}")
    return out


def _join_static(descriptors: list[str]) -> str:
    """One static descriptor for several ``return`` values: "" unless each is static (or
    static given inputs: their keys joined)."""
    if not descriptors or "" in descriptors:
        return ""
    keys = sorted({k for d in descriptors if d != "S" for k in d.split("&")})
    return "&".join(keys) if keys else "S"
