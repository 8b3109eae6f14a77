"""A fast driver for the single traversal, and cheap positions.

libcst's own visitor machinery and its ``PositionProvider`` each cost more than the parse
itself (``../shared/FIELD.md``, Speed: on the smoke tier the parse took 2.4 s, an empty
``CSTVisitor`` pass 2.7 s, ``PositionProvider`` about 3 s, a plain walk over the nodes' dataclass
fields 0.6 s). This module gives the same ``visit_<Node>``/``leave_<Node>`` protocol as
``libcst.CSTVisitor`` (a ``visit_*`` returning False skips the children) with a plain
iterative walk over dataclass fields in source order, skipping whitespace-only fields.

Positions: statement positions come from the stdlib ``ast`` parse of the same text (about 10%
of the libcst parse), matched to libcst statements in document order and checked by type;
an expression's position is found inside its enclosing statement's source text. If the two
trees ever disagree, the file falls back to libcst's ``PositionProvider`` (exact, slower).
Positions follow libcst conventions: 1-based lines, 0-based columns.
"""

from __future__ import annotations

import ast
from typing import Any, Iterator

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

#: Fields that only hold whitespace, punctuation or comments: never visited.
_SKIP_FIELDS = frozenset({
    "lpar", "rpar", "whitespace_before", "whitespace_after", "whitespace_after_func",
    "whitespace_before_args", "whitespace_after_star", "whitespace_after_arg", "whitespace_before_colon",
    "whitespace_after_colon", "whitespace_before_indicator", "whitespace_after_indicator",
    "whitespace_before_equal", "whitespace_after_equal", "whitespace_before_in", "whitespace_after_in",
    "whitespace_before_from", "whitespace_after_from", "whitespace_before_import", "whitespace_after_import",
    "whitespace_after_def", "whitespace_after_class", "whitespace_before_params", "whitespace_after_name",
    "whitespace_after_if", "whitespace_before_else", "whitespace_after_else", "whitespace_before_if",
    "whitespace_after_for", "whitespace_before_for", "whitespace_after_await", "whitespace_after_lambda",
    "whitespace_after_return", "whitespace_after_assert", "whitespace_after_del", "whitespace_after_global",
    "whitespace_after_nonlocal", "whitespace_after_raise", "whitespace_after_with", "whitespace_after_while",
    "whitespace_after_except", "whitespace_after_as", "whitespace_before_as", "whitespace_after_elif",
    "whitespace_after_match", "whitespace_after_case", "whitespace_after_yield", "whitespace_before_value",
    "whitespace_after_cls", "whitespace_after_type", "whitespace_after_exclamation",
    "whitespace_before_expression", "whitespace_after_expression", "whitespace_before_walrus",
    "whitespace_after_walrus", "leading_lines", "lines_after_decorators", "trailing_whitespace",
    "header", "footer", "comma", "semicolon", "equal", "colon", "dot", "operator", "newline", "indent",
    "asynchronous", "left_bracket", "right_bracket", "lbracket", "rbracket", "lbrace", "rbrace",
    "first_line", "empty_lines", "last_line", "whitespace", "default_indent", "default_newline",
    "encoding", "star_tok", "arrow", "start", "end", "prefix", "quote", "whitespace_before_patterns",
})

_FIELDS: dict[type, tuple[str, ...]] = {}

#: libcst statement class -> names of the ``ast`` classes it corresponds to.
_STATEMENT_TYPES: dict[type, tuple[str, ...]] = {
    cst.Assign: ("Assign",), cst.AnnAssign: ("AnnAssign",), cst.AugAssign: ("AugAssign",),
    cst.Expr: ("Expr",), cst.Return: ("Return",), cst.Raise: ("Raise",), cst.Assert: ("Assert",),
    cst.Import: ("Import",), cst.ImportFrom: ("ImportFrom",), cst.Pass: ("Pass",), cst.Break: ("Break",),
    cst.Continue: ("Continue",), cst.Del: ("Delete",), cst.Global: ("Global",), cst.Nonlocal: ("Nonlocal",),
    cst.If: ("If",), cst.For: ("For", "AsyncFor"), cst.While: ("While",), cst.Try: ("Try",),
    cst.With: ("With", "AsyncWith"), cst.FunctionDef: ("FunctionDef", "AsyncFunctionDef"),
    cst.ClassDef: ("ClassDef",), cst.Match: ("Match",),
}
if hasattr(cst, "TryStar"):
    _STATEMENT_TYPES[cst.TryStar] = ("TryStar",)
if hasattr(cst, "TypeAlias"):
    _STATEMENT_TYPES[cst.TypeAlias] = ("TypeAlias",)


def _fields(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = tuple(f for f in cls.__dataclass_fields__ if f not in _SKIP_FIELDS)  # type: ignore[attr-defined]
        _FIELDS[cls] = names
    return names


def _ast_statements(tree: ast.Module) -> list[ast.stmt]:
    """Statements in the order the walk below meets their libcst twins."""
    out: list[ast.stmt] = []

    def block(stmts: list[ast.stmt]) -> None:
        for s in stmts:
            out.append(s)
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.With, ast.AsyncWith)):
                block(s.body)
            elif isinstance(s, (ast.If, ast.For, ast.AsyncFor, ast.While)):
                block(s.body)
                block(s.orelse)
            elif isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
                block(s.body)  # type: ignore[attr-defined]
                for h in s.handlers:  # type: ignore[attr-defined]
                    block(h.body)
                block(s.orelse)  # type: ignore[attr-defined]
                block(s.finalbody)  # type: ignore[attr-defined]
            elif isinstance(s, ast.Match):
                for case in s.cases:
                    block(case.body)

    block(tree.body)
    return out


class Positions:
    """Lazy ``node -> CodeRange`` for the node being visited (a Mapping-like object that the
    visitor reads through ``get_metadata(PositionProvider, node)``)."""

    def __init__(self, module: cst.Module, source: str) -> None:
        self.module = module
        self.source = source
        self.stmt_stack: list[cst.CSTNode] = []
        self.stmt_pos: dict[int, CodeRange] = {}
        self._text: dict[int, str] = {}
        self._fallback: Any = None
        self._origin: dict[int, tuple[int, int]] = {}
        self._elif: set[int] = set()
        self._stmt_text: dict[int, str] = {}
        self._cursor: dict[int, tuple[int, str]] = {}
        try:
            self._ast = _ast_statements(ast.parse(source))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            self._ast = []
            self.fallback()
        self._next = 0

    def fallback(self) -> None:
        """Switch to libcst's exact ``PositionProvider`` (trees disagreed)."""
        if self._fallback is None:
            self._fallback = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)

    def enter_statement(self, node: cst.CSTNode) -> None:
        """Called by the walk when a statement starts; pairs it with its ``ast`` twin."""
        self.stmt_stack.append(node)
        if self._fallback is not None:
            return
        if self._next >= len(self._ast):
            self.fallback()
            return
        twin = self._ast[self._next]
        self._next += 1
        if type(twin).__name__ not in _STATEMENT_TYPES[type(node)]:
            self.fallback()
            return
        self.stmt_pos[id(node)] = CodeRange(
            CodePosition(twin.lineno, twin.col_offset),
            CodePosition(twin.end_lineno or twin.lineno, twin.end_col_offset or 0),
        )
        decorators = getattr(twin, "decorator_list", None)
        if isinstance(node, cst.If) and isinstance(node.orelse, cst.If):
            self._elif.add(id(node.orelse))
        if id(node) in self._elif:
            # libcst prints an `elif` branch alone as `if ...`; ast points at `elif`.
            self._origin[id(node)] = (twin.lineno, twin.col_offset + 2)
        elif decorators:
            first = decorators[0]
            self._origin[id(node)] = (first.lineno, max(first.col_offset - 1, 0))
        else:
            self._origin[id(node)] = (twin.lineno, twin.col_offset)

    def leave_statement(self) -> None:
        self.stmt_stack.pop()

    def _code(self, node: cst.CSTNode) -> str:
        key = id(node)
        text = self._text.get(key)
        if text is None:
            text = self.module.code_for_node(node)
            self._text[key] = text
        return text

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        if self._fallback is not None:
            return self._fallback[node]  # type: ignore[no-any-return]
        own = self.stmt_pos.get(id(node))
        if own is not None:
            return own
        for stmt in reversed(self.stmt_stack):
            if id(stmt) in self.stmt_pos:
                return self._within(stmt, node)
        self.fallback()
        return self._fallback[node]  # type: ignore[no-any-return]

    def _statement_text(self, stmt: cst.CSTNode) -> str:
        """The statement's code from its first decorator or keyword (leading comment and blank
        lines, which libcst attaches to compound statements, removed)."""
        key = id(stmt)
        text = self._stmt_text.get(key)
        if text is None:
            text = self._code(stmt)
            skip = len(getattr(stmt, "leading_lines", ())) if _is_compound(stmt) else 0
            pos = 0
            for _ in range(skip):
                pos = text.index("\n", pos) + 1
            text = text[pos:]
            self._stmt_text[key] = text
        return text

    def _within(self, stmt: cst.CSTNode, node: cst.CSTNode) -> CodeRange:
        """Position of ``node`` found in the text of its innermost statement ``stmt``.

        ``code_for_node`` omits the enclosing block's indentation on continuation lines, so
        every line after the first is shifted by the statement's own column."""
        outer = self._statement_text(stmt)
        inner = self._code(node)
        lead, trail = _paren_margins(node, inner)
        line0, col0 = self._origin[id(stmt)]
        cursor, last_text = self._cursor.get(id(stmt), (0, ""))
        start = cursor + 1 if inner == last_text else cursor
        idx = outer.find(inner, start) if inner else -1
        if idx < 0:
            idx = outer.find(inner) if inner else -1
        if idx < 0:
            return self.stmt_pos[id(stmt)]
        self._cursor[id(stmt)] = (idx, inner)
        # libcst positions exclude a node's own parentheses and a decorator's newline.
        inner = inner[lead:len(inner) - trail] if lead or trail else inner
        idx += lead
        line = line0 + outer.count("\n", 0, idx)
        nl = outer.rfind("\n", 0, idx)
        col = col0 + (idx if nl < 0 else idx - nl - 1)
        n_inner = inner.count("\n")
        if n_inner:
            end_col = col0 + len(inner) - inner.rfind("\n") - 1
        else:
            end_col = col + len(inner)
        return CodeRange(CodePosition(line, col), CodePosition(line + n_inner, end_col))


def _paren_margins(node: cst.CSTNode, text: str) -> tuple[int, int]:
    """Characters to drop at each end of ``text`` (the node's code) so that it matches libcst's
    position convention: without the node's own parentheses, without a trailing newline."""
    lead = trail = 0
    for _ in getattr(node, "lpar", ()):
        i = text.find("(", lead)
        if i < 0:
            break
        lead = i + 1
        while lead < len(text) and text[lead] in " \t\r\n\\":
            lead += 1
    end = len(text)
    while end > lead and text[end - 1] in "\r\n":
        end -= 1
    for _ in getattr(node, "rpar", ()):
        j = text.rfind(")", lead, end)
        if j < 0:
            break
        end = j
        while end > lead and text[end - 1] in " \t\r\n\\":
            end -= 1
    trail = len(text) - end
    return lead, trail


def _is_compound(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.BaseCompoundStatement)


def _children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    for name in _fields(type(node)):
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            yield value
        elif isinstance(value, (tuple, list)):
            for item in value:
                if isinstance(item, cst.CSTNode):
                    yield item


def fast_visit(module: cst.Module, visitor: cst.CSTVisitor, source: str) -> Positions:
    """Run ``visitor``'s ``visit_*``/``leave_*`` methods over ``module`` in source order.

    Provides ``PositionProvider`` metadata to the visitor lazily (see :class:`Positions`).
    Returns the positions object (usable after the walk for statements already seen).
    """
    positions = Positions(module, source)
    visitor.metadata = {PositionProvider: positions}  # type: ignore[assignment]
    visit_cache: dict[type, Any] = {}
    leave_cache: dict[type, Any] = {}
    statement_types = tuple(_STATEMENT_TYPES)
    stack: list[tuple[cst.CSTNode, bool]] = [(module, False)]
    while stack:
        node, leaving = stack.pop()
        cls = type(node)
        if leaving:
            leave = leave_cache[cls]
            if leave is not None:
                leave(node)
            if isinstance(node, statement_types):
                positions.leave_statement()
            continue
        if cls not in visit_cache:
            visit_cache[cls] = getattr(visitor, f"visit_{cls.__name__}", None)
            leave_cache[cls] = getattr(visitor, f"leave_{cls.__name__}", None)
        if isinstance(node, statement_types):
            positions.enter_statement(node)
        visit = visit_cache[cls]
        if visit is not None and visit(node) is False:
            if leave_cache[cls] is not None or isinstance(node, statement_types):
                stack.append((node, True))
            continue
        stack.append((node, True))
        children = list(_children(node))
        for child in reversed(children):
            stack.append((child, False))
    return positions
