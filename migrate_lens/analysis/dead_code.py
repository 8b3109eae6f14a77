"""Unreachable statements: those that follow a ``raise``, ``return``, ``continue`` or ``break``
in the same block. Python never runs them, so neither does a trace: a hazard written there
(``try: raise Exception(); with sdp_kernel(...): out = F.scaled_dot_product_attention(...)``,
a switch some authors use to turn a code path off) is no porting work.

Read from the ``ast`` tree the positions already parse (:func:`~.walk.parse_ast`, cached by
the source string's identity): one pass over the statement lists, no second parse."""

from __future__ import annotations

import ast
from bisect import bisect_right

from migrate_lens.analysis.walk import parse_ast

_TERMINATORS = (ast.Raise, ast.Return, ast.Continue, ast.Break)
_BLOCK_FIELDS = ("body", "orelse", "finalbody")


def unreachable_ranges(source: str) -> list[tuple[int, int]]:
    """Line ranges ``(first, last)`` (1-based, inclusive, sorted, disjoint) of statements that
    follow a terminator in their block; [] when the source does not parse (the caller has
    reported that already) or has none."""
    try:
        tree = parse_ast(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    out: list[tuple[int, int]] = []
    stack: list[list[ast.stmt]] = [tree.body]
    while stack:
        stmts = stack.pop()
        last = len(stmts) - 1
        for i, s in enumerate(stmts):
            if i < last and isinstance(s, _TERMINATORS):
                out.append((stmts[i + 1].lineno, stmts[last].end_lineno or stmts[last].lineno))
                break  # (what follows is dead whole: its inner blocks need no look)
            for name in _BLOCK_FIELDS:
                inner = getattr(s, name, None)
                if inner and type(inner) is list:
                    stack.append(inner)
            for h in getattr(s, "handlers", ()):
                stack.append(h.body)
            for case in getattr(s, "cases", ()):
                stack.append(case.body)
    out.sort()
    return out


def in_ranges(line: int, ranges: list[tuple[int, int]], starts: list[int]) -> bool:
    """Whether ``line`` lies in one of ``ranges`` (disjoint, sorted; ``starts`` their first
    lines)."""
    i = bisect_right(starts, line) - 1
    return i >= 0 and ranges[i][0] <= line <= ranges[i][1]
