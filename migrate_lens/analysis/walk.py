"""A fast driver for the single traversal, and cheap exact positions.

libcst's own visitor machinery and its ``PositionProvider`` each cost more than the parse
itself (``../shared/FIELD.md``, Speed: on the smoke tier the parse took 2.4 s, an empty
``CSTVisitor`` pass 2.7 s, ``PositionProvider`` about 3 s, a plain walk over the nodes' dataclass
fields 0.6 s). This module gives the same ``visit_<Node>``/``leave_<Node>`` protocol as
``libcst.CSTVisitor`` (a ``visit_*`` returning False skips the children) with a plain
iterative walk over each node's child fields **in source order** (the order of libcst's own
``_visit_and_replace_children``, table :data:`_CHILD_FIELDS`; a test checks it against libcst),
skipping whitespace and punctuation.

Positions (libcst conventions: 1-based lines, 0-based columns in characters):

* statements: from the stdlib ``ast`` parse of the same text (about 10% of the libcst parse),
  matched to libcst statements in document order and checked by type; ``ast`` byte columns are
  converted to character columns on non-ASCII lines;
* calls, names, attributes, subscripts, comparisons and conditional expressions in a
  simple-statement line or a compound statement's header (most requests: every call's line
  feeds the call graph): paired with their ``ast`` twins by order, no code generated;
* everything else: on the first request inside a *unit* (a simple-statement line, a one-line
  suite, or a compound statement's header without its body), that unit alone is generated with
  libcst's own ``PositionProvidingCodegenState``, started at the unit's real line and with the
  block's real indentation, so every node in it gets the exact ``PositionProvider`` range. The
  generated text is compared with the source at that place; any disagreement (or a tree
  mismatch with ``ast``) switches the file to libcst's ``PositionProvider`` (exact, slower).

Only units holding a requested node are generated, once each, so the cost is at most one
codegen of the file, against ``PositionProvider``'s metadata copy + full codegen.
"""

from __future__ import annotations

import ast
import operator
import re
import warnings
from itertools import accumulate
from types import FunctionType, MethodType
from typing import Any

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider
from libcst.metadata.position_provider import PositionProvidingCodegenState

#: Child fields in source order (libcst's ``_visit_and_replace_children`` order), without
#: whitespace, punctuation, operators and scalar fields. Classes absent here are leaves or use
#: :func:`_dataclass_children` (unknown classes of a newer libcst).
_CHILD_FIELDS: dict[str, tuple[str, ...]] = {
    "AnnAssign": ("target", "annotation", "value"), "Annotation": ("annotation",),
    "Arg": ("keyword", "value"), "AsName": ("name",), "Assert": ("test", "msg"),
    "Assign": ("targets", "value"), "AssignTarget": ("target",), "Attribute": ("value", "attr"),
    "AugAssign": ("target", "value"), "Await": ("expression",), "BinaryOperation": ("left", "right"),
    "BooleanOperation": ("left", "right"), "Call": ("func", "args"),
    "ClassDef": ("decorators", "name", "type_parameters", "bases", "keywords", "body"),
    "CompFor": ("target", "iter", "ifs", "inner_for_in"), "CompIf": ("test",),
    "Comparison": ("left", "comparisons"), "ComparisonTarget": ("comparator",),
    "ConcatenatedString": ("left", "right"), "Decorator": ("decorator",), "Del": ("target",),
    "Dict": ("elements",), "DictComp": ("key", "value", "for_in"), "DictElement": ("key", "value"),
    "Element": ("value",), "Else": ("body",), "ExceptHandler": ("type", "name", "body"),
    "ExceptStarHandler": ("type", "name", "body"), "Expr": ("value",), "Finally": ("body",),
    "For": ("target", "iter", "body", "orelse"), "FormattedString": ("parts",),
    "FormattedStringExpression": ("expression", "format_spec"), "From": ("item",),
    "FunctionDef": ("decorators", "name", "type_parameters", "params", "returns", "body"),
    "GeneratorExp": ("elt", "for_in"), "Global": ("names",), "If": ("test", "body", "orelse"),
    "IfExp": ("body", "test", "orelse"), "Import": ("names",), "ImportAlias": ("name", "asname"),
    "ImportFrom": ("module", "names"), "IndentedBlock": ("body",), "Index": ("value",),
    "Lambda": ("params", "body"), "List": ("elements",), "ListComp": ("elt", "for_in"),
    "Match": ("subject", "cases"), "MatchAs": ("pattern", "name"), "MatchCase": ("pattern", "guard", "body"),
    "MatchClass": ("cls", "patterns", "kwds"), "MatchKeywordElement": ("key", "pattern"),
    "MatchList": ("patterns",), "MatchMapping": ("elements", "rest"), "MatchMappingElement": ("key", "pattern"),
    "MatchOr": ("patterns",), "MatchOrElement": ("pattern",), "MatchSequenceElement": ("value",),
    "MatchSingleton": ("value",), "MatchStar": ("name",), "MatchTuple": ("patterns",), "MatchValue": ("value",),
    "Module": ("body",), "NameItem": ("name",), "NamedExpr": ("target", "value"), "Nonlocal": ("names",),
    "Param": ("name", "annotation", "default"), "ParamSpec": ("name",),
    "Parameters": ("posonly_params", "params", "star_arg", "kwonly_params", "star_kwarg"),
    "Raise": ("exc", "cause"), "Return": ("value",), "Set": ("elements",), "SetComp": ("elt", "for_in"),
    "SimpleStatementLine": ("body",), "SimpleStatementSuite": ("body",), "Slice": ("lower", "upper", "step"),
    "StarredDictElement": ("value",), "StarredElement": ("value",), "Subscript": ("value", "slice"),
    "SubscriptElement": ("slice",), "TemplatedString": ("parts",),
    "TemplatedStringExpression": ("expression", "format_spec"),
    "Try": ("body", "handlers", "orelse", "finalbody"), "TryStar": ("body", "handlers", "orelse", "finalbody"),
    "Tuple": ("elements",), "TypeAlias": ("name", "type_parameters", "value"), "TypeParam": ("param", "default"),
    "TypeParameters": ("params",), "TypeVar": ("name", "bound"), "TypeVarTuple": ("name",),
    "UnaryOperation": ("expression",), "While": ("test", "body", "orelse"), "With": ("items", "body"),
    "WithItem": ("item", "asname"), "Yield": ("value",),
}

#: Fields that only hold whitespace, punctuation, comments or scalars (for unknown classes).
_SKIP_FIELDS = frozenset({
    "__slots__", "lpar", "rpar", "leading_lines", "lines_after_decorators", "trailing_whitespace",
    "header", "footer", "comma", "semicolon", "equal", "colon", "dot", "operator", "newline", "indent",
    "asynchronous", "left_bracket", "right_bracket", "lbracket", "rbracket", "lbrace", "rbrace",
    "first_line", "empty_lines", "last_line", "whitespace", "default_indent", "default_newline",
    "encoding", "star_tok", "arrow", "start", "end", "prefix", "quote", "comment", "star",
    "relative", "conversion", "posonly_ind", "first_colon", "second_colon", "separator",
    "trailing_comma", "has_trailing_newline",
})

#: libcst statement class -> names of the ``ast`` classes it corresponds to. ``except``
#: clauses are anchors too (their header holds expressions).
_STATEMENT_TYPES: dict[type, tuple[str, ...]] = {
    cst.Assign: ("Assign",), cst.AnnAssign: ("AnnAssign",), cst.AugAssign: ("AugAssign",),
    cst.Expr: ("Expr",), cst.Return: ("Return",), cst.Raise: ("Raise",), cst.Assert: ("Assert",),
    cst.Import: ("Import",), cst.ImportFrom: ("ImportFrom",), cst.Pass: ("Pass",), cst.Break: ("Break",),
    cst.Continue: ("Continue",), cst.Del: ("Delete",), cst.Global: ("Global",), cst.Nonlocal: ("Nonlocal",),
    cst.If: ("If",), cst.For: ("For", "AsyncFor"), cst.While: ("While",), cst.Try: ("Try",),
    cst.With: ("With", "AsyncWith"), cst.FunctionDef: ("FunctionDef", "AsyncFunctionDef"),
    cst.ClassDef: ("ClassDef",), cst.Match: ("Match",), cst.ExceptHandler: ("ExceptHandler",),
}
if hasattr(cst, "TryStar"):
    _STATEMENT_TYPES[cst.TryStar] = ("TryStar",)
if hasattr(cst, "ExceptStarHandler"):
    _STATEMENT_TYPES[cst.ExceptStarHandler] = ("ExceptHandler",)
if hasattr(cst, "TypeAlias"):
    _STATEMENT_TYPES[cst.TypeAlias] = ("TypeAlias",)
#: the same correspondence as (libcst class, ``ast`` class) pairs, for one set lookup per
#: statement (the ``ast`` classes of this Python; a name it lacks never comes out of its parser)
_STATEMENT_PAIRS = frozenset((c, getattr(ast, name)) for c, names in _STATEMENT_TYPES.items()
                             for name in names if hasattr(ast, name))

#: ``ast`` fields of a compound statement's header (what they hold is paired without codegen).
_HEADER_AST: dict[str, tuple[str, ...]] = {
    "If": ("test",), "While": ("test",), "For": ("target", "iter"), "AsyncFor": ("target", "iter"),
    "With": ("items",), "AsyncWith": ("items",), "FunctionDef": ("decorator_list", "args", "returns"),
    "AsyncFunctionDef": ("decorator_list", "args", "returns"), "ClassDef": ("decorator_list", "bases", "keywords"),
    "ExceptHandler": ("type",),
}
#: libcst fields holding a compound statement's body (not its header).
_BODY_FIELDS = frozenset({"body", "orelse", "handlers", "finalbody"})

#: Nodes whose code is generated as one unit for positions (see the module docstring).
_LINE_UNITS = (cst.SimpleStatementLine, cst.SimpleStatementSuite)
_NEWLINE = re.compile(r"\r\n|\r|\n")
_PLUS_ONE = (1).__add__
_EMPTY_SUITE = cst.SimpleStatementSuite(
    body=(), leading_whitespace=cst.SimpleWhitespace(""),
    trailing_whitespace=cst.TrailingWhitespace(newline=cst.Newline("\n")),
)
_EMPTY_SUITE_CODE = "pass\n"

_FIELDS: dict[type, tuple[str, ...]] = {}
_IS_NODE: dict[type, bool] = {}


def _fields(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = _CHILD_FIELDS.get(cls.__name__) if cls.__module__.startswith("libcst") else None
        if names is None:
            names = _dataclass_children(cls)
        _FIELDS[cls] = names
    return names


def _dataclass_children(cls: type) -> tuple[str, ...]:
    """Child fields of a class missing from :data:`_CHILD_FIELDS` (leaves give ()): dataclass
    order minus whitespace, punctuation and scalar fields."""
    return tuple(f for f in getattr(cls, "__dataclass_fields__", ())
                 if f not in _SKIP_FIELDS and not f.startswith("whitespace")
                 and not (f == "value" and cls.__name__ in _SCALAR_VALUE))


_SCALAR_VALUE = frozenset({"Name", "Integer", "Float", "Imaginary", "SimpleString", "FormattedStringText",
                           "TemplatedStringText", "NotEqual", "Comment", "Newline", "SimpleWhitespace"})


def _is_node(cls: type) -> bool:
    known = _IS_NODE.get(cls)
    if known is None:
        known = _IS_NODE[cls] = issubclass(cls, cst.CSTNode)
    return known


def _child_getter(cls: type) -> tuple[Any, int]:
    """(getter of ``cls``'s child fields, their number): ``operator.attrgetter`` over
    :func:`_fields` **in reverse order** (one C call per node instead of a getattr loop; the
    walk pushes children last first, so that they pop in source order), built once per class
    for :func:`fast_visit`. The getter is None for leaves."""
    plan = _GETTERS.get(cls)
    if plan is None:
        fields = _fields(cls)
        plan = _GETTERS[cls] = (operator.attrgetter(*fields[::-1]) if fields else None, len(fields))
    return plan


_GETTERS: dict[type, tuple[Any, int]] = {}


def child_nodes(node: cst.CSTNode) -> list[cst.CSTNode]:
    """``node``'s child nodes in source order, without whitespace, punctuation and operator
    nodes (the fields :func:`fast_visit` follows). A cheap stand-in for libcst's ``children``
    property, which re-runs the node's whole visit-and-replace machinery (~30 us a node) to
    collect them; every analysis walk over an expression or a body looks only for
    expressions and statements, which both reach."""
    getter, count = _child_getter(type(node))
    if getter is None:
        return []
    values = (getter(node),) if count == 1 else getter(node)[::-1]
    out: list[cst.CSTNode] = []
    for value in values:
        t = type(value)
        if t is tuple or t is list:
            out.extend(value)
        elif value is not None and _is_node(t):
            out.append(value)
    return out


#: libcst's f-string nodes (t-strings too where libcst has them)
_FSTRINGS = frozenset(c for c in (cst.FormattedString, getattr(cst, "TemplatedString", None)) if c is not None)


#: Expression classes whose positions come from their ``ast`` twins (paired by order inside a
#: unit, see :meth:`Positions._pairs`): libcst class -> ``ast`` class. Each maps one to one
#: (``BooleanOperation`` does not: ``ast`` flattens ``a and b and c`` into one node).
_PAIRED: dict[type, type] = {
    cst.Call: ast.Call, cst.Attribute: ast.Attribute, cst.Name: ast.Name, cst.Subscript: ast.Subscript,
    cst.Comparison: ast.Compare, cst.IfExp: ast.IfExp,
}
_AST_PAIRED: dict[type, type] = {a: c for c, a in _PAIRED.items()}
#: libcst child fields holding a ``Name`` that ``ast`` keeps as a plain string (an attribute's
#: name, a keyword argument's name, a definition's or parameter's name, an ``except ... as``
#: name), left out of the pairing walk; import and ``global`` statements hold only such names.
_PAIR_SKIP: dict[type, frozenset[str]] = {
    cst.Attribute: frozenset({"attr"}), cst.Arg: frozenset({"keyword"}), cst.FunctionDef: frozenset({"name"}),
    cst.ClassDef: frozenset({"name"}), cst.Param: frozenset({"name"}), cst.ExceptHandler: frozenset({"name"}),
}
if hasattr(cst, "ExceptStarHandler"):
    _PAIR_SKIP[cst.ExceptStarHandler] = frozenset({"name"})
_PAIR_OPAQUE = frozenset({cst.Import, cst.ImportFrom, cst.Global, cst.Nonlocal})
_CONSTANT_NAMES = frozenset({"True", "False", "None"})  # ``ast.Constant``, not ``ast.Name``


def _ast_paired(roots: list[Any]) -> dict[type, list[Any]]:
    """The ``ast`` nodes of the :data:`_PAIRED` classes under ``roots`` (nodes, lists of nodes
    or None) outside f-strings, by libcst class, in no particular order (``ast`` positions
    inside f-strings are unreliable before Python 3.12, so what they hold is left to code
    generation). ``ast.walk`` without its per-node generators (this runs for every
    multi-line statement asked for a position): a node's child values are pushed in one
    ``extend`` and told apart when popped (a list is opened, a leaf value or None has an empty
    plan), which visits the same nodes as testing each value before pushing it."""
    out: dict[type, list[Any]] = {}
    todo: list[Any] = list(roots)
    pop, push, extend = todo.pop, todo.append, todo.extend
    plans = _AST_PAIR_PLANS
    while todo:
        n = pop()
        cls = type(n)
        if cls is list:
            extend(n)
            continue
        plan = plans.get(cls)
        if plan is None:
            plan = _ast_pair_plan(cls)
        getter, count, twin = plan
        if twin is not None:
            got = out.get(twin)
            if got is None:
                out[twin] = [n]
            else:
                got.append(n)
        if count == 1:
            push(getter(n))
        elif count:
            extend(getter(n))
    return out


#: per class met by :func:`_ast_paired`: (getter of the child fields to follow, their number,
#: the libcst class it pairs with or None); leaves, non-``ast`` values (None, a str in
#: ``Global.names``, a constant) and f-strings follow no field.
_AST_PAIR_PLANS: dict[type, tuple[Any, int, type | None]] = {}


#: ``ast`` fields that hold only identifiers, constants or flags (the ASDL's ``identifier``,
#: ``constant``, ``string``, ``int``), never a node: :func:`_ast_paired` does not push them
#: (``ctx`` is a node, but never a paired one). A name not listed here is followed and its
#: scalar values dropped when popped, so the table only saves work.
_AST_SCALARS: dict[str, frozenset[str]] = {
    "Name": frozenset({"id", "ctx"}), "Attribute": frozenset({"attr", "ctx"}), "Constant": frozenset({"value", "kind"}),
    "keyword": frozenset({"arg"}), "arg": frozenset({"arg", "type_comment"}), "FormattedValue": frozenset({"conversion"}),
    "comprehension": frozenset({"is_async"}), "Assign": frozenset({"type_comment"}),
    "Import": frozenset({"names"}), "ImportFrom": frozenset({"module", "names", "level"}),  # aliases: names only
    "Global": frozenset({"names"}), "Nonlocal": frozenset({"names"}),
}
_NO_SCALARS = frozenset({"ctx"})


def _ast_pair_plan(cls: type) -> tuple[Any, int, type | None]:
    fields: tuple[str, ...] = ()
    if issubclass(cls, ast.AST) and cls is not ast.JoinedStr:
        skip = _AST_SCALARS.get(cls.__name__, _NO_SCALARS)
        fields = tuple(f for f in cls._fields if f not in skip)
    plan = _AST_PAIR_PLANS[cls] = (operator.attrgetter(*fields) if fields else None, len(fields),
                                   _AST_PAIRED.get(cls))
    return plan


def _cst_paired(roots: list[Any]) -> dict[type, list[Any]]:
    """The libcst nodes of the :data:`_PAIRED` classes under ``roots`` (nodes or sequences of
    nodes) outside f-strings, by class, each list in walk pre-order (source order, outer node
    first); names that ``ast`` keeps as strings (:data:`_PAIR_SKIP`) and ``True``/``False``/
    ``None`` are left out. As in :func:`_ast_paired`, a node's child values are pushed without
    testing them (in reverse, so that they pop in source order) and told apart when popped."""
    out: dict[type, list[Any]] = {}
    todo: list[Any] = list(reversed(roots))
    pop, push, extend = todo.pop, todo.append, todo.extend
    plans = _CST_PAIR_PLANS
    name_cls = cst.Name
    constants = _CONSTANT_NAMES
    while todo:
        n = pop()
        t = type(n)
        if t is tuple or t is list:
            extend(n[::-1])
            continue
        plan = plans.get(t)
        if plan is None:
            plan = _cst_pair_plan(t)
        getter, count, collect = plan
        if collect and (t is not name_cls or n.value not in constants):
            got = out.get(t)
            if got is None:
                out[t] = [n]
            else:
                got.append(n)
        if count == 1:
            push(getter(n))
        elif count:
            extend(getter(n))  # (the fields in reverse: they pop in source order)
    return out


#: per class met by :func:`_cst_paired`: (getter of the child fields the pairing walk follows,
#: in reverse order, their number, is a :data:`_PAIRED` class); values that are not nodes (None, sentinels),
#: leaves, f-strings and :data:`_PAIR_OPAQUE` statements follow no field.
_CST_PAIR_PLANS: dict[type, tuple[Any, int, bool]] = {}


def _cst_pair_plan(cls: type) -> tuple[Any, int, bool]:
    fields: tuple[str, ...] = ()
    if _is_node(cls) and cls not in _FSTRINGS and cls not in _PAIR_OPAQUE:
        skip = _PAIR_SKIP.get(cls, frozenset())
        fields = tuple(f for f in _fields(cls) if f not in skip)
    plan = _CST_PAIR_PLANS[cls] = (operator.attrgetter(*fields[::-1]) if fields else None, len(fields),
                                   cls in _PAIRED)
    return plan


class _UnitPairs:
    """The libcst and ``ast`` nodes of the :data:`_PAIRED` classes in one unit (by libcst
    class; :func:`_cst_paired`, :func:`_ast_paired`), paired one class at a time, on the first
    request of a node of that class (most units are asked for calls only): the libcst nodes
    in walk (pre-)order with the ``ast`` nodes sorted by start, outer first. Both sides'
    positions exclude the node's own parentheses, so the twins' ranges are
    ``PositionProvider``'s. What f-strings hold is left out on both sides (``ast`` positions
    inside f-strings are unreliable before 3.12). A class is left unpaired (its nodes get code
    generation) when the counts differ or a pair's names disagree."""

    __slots__ = ("cst_nodes", "ast_nodes", "twins")

    def __init__(self, cst_nodes: dict[type, list[Any]], ast_nodes: dict[type, list[Any]]) -> None:
        self.cst_nodes = cst_nodes
        self.ast_nodes = ast_nodes
        self.twins: dict[int, Any] = {}  # id(libcst node) -> its ast twin

    def twin(self, node: cst.CSTNode) -> Any:
        """``node``'s ``ast`` twin, or None (not in this unit, or its class unpaired)."""
        got = self.twins.get(id(node))
        if got is None:
            c_nodes = self.cst_nodes.pop(type(node), None)  # its class, not paired yet
            if c_nodes is not None:
                twins = self.ast_nodes.get(type(node), ())
                if len(twins) == len(c_nodes):
                    twins.sort(key=_ast_order)  # type: ignore[attr-defined]
                    if all(_same_node(c, a) for c, a in zip(c_nodes, twins)):
                        self.twins.update((id(c), a) for c, a in zip(c_nodes, twins))
                        got = self.twins.get(id(node))
        return got


#: the pairs of a unit that has none
_NO_PAIRS = _UnitPairs({}, {})


def _same_node(c: Any, a: Any) -> bool:
    """A cheap identity check of a pair: names and attribute names must agree."""
    t = type(c)
    if t is cst.Name:
        return c.value == a.id  # type: ignore[no-any-return]
    if t is cst.Attribute:
        return c.attr.value == a.attr  # type: ignore[no-any-return]
    return True


def _ast_order(a: Any) -> tuple[int, int, int, int]:
    return (a.lineno, a.col_offset, -(a.end_lineno or 0), -(a.end_col_offset or 0))


def _no_validation(self: cst.CSTNode) -> None:
    """Stand-in for ``CSTNode.__post_init__`` while :func:`parse_cst` runs."""


def _node_classes() -> list[type]:
    """Every concrete libcst node class: the slotted dataclasses under ``CSTNode``. (libcst's
    ``add_slots`` replaces each class by a slotted copy; the unslotted originals can linger in
    ``__subclasses__`` and are never instantiated, so they are left out.)"""
    seen: set[type] = set()
    todo = [cst.CSTNode]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in seen:
                seen.add(sub)
                todo.append(sub)
    return sorted((c for c in seen if "__slots__" in c.__dict__ and "__init__" in c.__dict__),
                  key=lambda c: (c.__module__, c.__qualname__))


def _unvalidated_init(cls: type) -> Any:
    """A constructor for one frozen, slotted libcst node class that stores the fields the way
    the dataclass ``__init__`` does (same parameters, order and defaults, default factories
    called per instance) but through each slot's own descriptor and without ``__post_init__``
    (validation, off during :func:`parse_cst` anyway). The generated dataclass ``__init__`` of a
    frozen class sets every field with ``object.__setattr__(self, name, value)``, a lookup by
    name per field; the native parser builds ~10^5 nodes per file through it. ``self`` is
    positional-only: the native parser passes every field by keyword with key strings it has
    just made (never the interned parameter names), so CPython matches each key against the
    parameters by string comparison, one parameter after the other from the first one that is
    not positional-only; leaving ``self`` out of that scan saves one comparison per field
    (7 files of core: the parse's instructions 2.477e9 -> 2.444e9, -1.3%). None when the class
    is not a plain dataclass of slotted fields (a newer libcst with ``init=False``/``kw_only``
    fields or its own ``__init__``): that class keeps its stock constructor."""
    import dataclasses

    stock = cls.__dict__["__init__"]
    if not dataclasses.is_dataclass(cls) or getattr(stock, "__code__", None) is None \
            or stock.__code__.co_filename != "<string>":  # not dataclass-generated
        return None
    fields = dataclasses.fields(cls)
    params: list[str] = []
    body: list[str] = []
    env: dict[str, Any] = {"_MISSING": dataclasses.MISSING}
    for i, f in enumerate(fields):
        slot = getattr(cls, f.name, None)
        if not f.init or f.kw_only or type(slot).__name__ != "member_descriptor":
            return None
        env[f"_set{i}"] = slot.__set__
        if f.default is not dataclasses.MISSING:
            env[f"_default{i}"] = f.default
            params.append(f"{f.name}=_default{i}")
        elif f.default_factory is not dataclasses.MISSING:
            env[f"_factory{i}"] = f.default_factory
            params.append(f"{f.name}=_MISSING")
            body.append(f"    if {f.name} is _MISSING: {f.name} = _factory{i}()")
        else:
            params.append(f.name)
        body.append(f"    _set{i}(self, {f.name})")
    code = f"def __init__(self, /, {', '.join(params)}):\n" + "\n".join(body or ["    pass"]) + "\n"
    exec(code, env)  # noqa: S102 - our own generated constructor, built from libcst's field list
    return env["__init__"]


_FAST_INITS: list[tuple[type, Any, Any]] | None = None
#: whether every node class has an unvalidated constructor (then no node of a parse runs
#: ``__post_init__``, and :func:`parse_cst` leaves ``CSTNode.__post_init__`` alone)
_ALL_FAST = False


def _fast_inits() -> list[tuple[type, Any, Any]]:
    """(class, stock ``__init__``, unvalidated ``__init__``) per libcst node class, built once
    per process (~170 classes, a few ms)."""
    global _FAST_INITS, _ALL_FAST
    if _FAST_INITS is None:
        classes = _node_classes()
        _FAST_INITS = [(c, c.__dict__["__init__"], fast) for c in classes
                       for fast in [_unvalidated_init(c)] if fast is not None]
        _ALL_FAST = len(_FAST_INITS) == len(classes)
    return _FAST_INITS


#: True once :func:`keep_fast_constructors` ran: the unvalidated constructors stay installed
#: for the life of the process and :func:`parse_cst` swaps nothing.
_KEPT = False


def keep_fast_constructors() -> None:
    """Install the :func:`_unvalidated_init` constructors (and, when some class kept its stock
    one, the no-op ``CSTNode.__post_init__``) for the life of this process, so that
    :func:`parse_cst` no longer swaps them in and out around each parse (~1.1 ms per file:
    every assignment to a class's ``__init__`` invalidates its type caches, and those of the
    code that reads its nodes). For a scan's worker processes only (:func:`migrate_lens.worker.
    init_worker`), which build libcst nodes for nothing but analysis: there every node, parsed
    or built by the analysis, skips libcst's validation, and a stock ``libcst.parse_module`` in
    that process would be faster than a clean one's (the parse floor is measured in clean
    processes: ``benchmarks/scan_bench.py``, ``benchmarks/phase_bench.py``). Idempotent."""
    global _KEPT
    if _KEPT:
        return
    for cls, _, fast in _fast_inits():
        cls.__init__ = fast  # type: ignore[misc]
    if not _ALL_FAST:
        cst.CSTNode.__post_init__ = _no_validation  # type: ignore[method-assign]
    _KEPT = True


def parse_cst(source: str) -> cst.Module:
    """``libcst.parse_module(source)`` without libcst's per-node validation, with cheaper node
    constructors. Returns a tree equal (``deep_equals``, same ``code``) to the stock parse's.

    Every node's dataclass ``__post_init__`` re-checks its own invariants (whitespace regexes,
    parenthesis balance); for a tree the native parser has just built from valid source these
    checks cannot fail, yet they are about 15% of the parse's CPU time (1/8 of core, one
    process: 7.6 s against 8.8-10.0 s; cProfile, which inflates Python-level calls, showed
    ``CSTNode.__post_init__`` at 10.2 s of a 25.7 s parse). libcst's own source notes "It might
    make more sense to move validation work into the visitor, which would allow us to avoid
    validating the tree when parsing a file", ``libcst/_nodes/base.py``). The node classes'
    constructors are also swapped for :func:`_unvalidated_init` ones while the parse runs (1/8
    of core, one process: the parse 4.1-4.2 s -> 3.3-3.6 s CPU). The stock constructors are
    restored before returning, so nodes built later (stub generation, codemods) are built and
    validated as usual, and ``libcst.parse_module`` stays the stock parse. Each assignment to a
    class's ``__init__`` invalidates the type caches of the class and its subclasses: swapping
    the ~170 constructors in and out costs ~1.1 ms per file, and swapping
    ``CSTNode.__post_init__`` (the root of every node class) another ~0.5 ms, so it is swapped
    only when some class kept its stock constructor (none in libcst 1.9). (Installing the
    constructors once per process, validating outside a parse, saved the swaps but made the
    stock parse of the same process ~10% faster too: the per-file ratio against it no longer
    measured against stock libcst; a scan's workers do so, :func:`keep_fast_constructors`.)
    Not thread-safe (worker processes are single-threaded).
    Raises what ``libcst.parse_module`` raises (``ParserSyntaxError``, ``RecursionError``)."""
    if _KEPT:
        return cst.parse_module(source)
    inits = _fast_inits()
    # (only a class left with its stock constructor would call __post_init__ during the parse)
    stock = None if _ALL_FAST else cst.CSTNode.__dict__["__post_init__"]
    if stock is not None:
        cst.CSTNode.__post_init__ = _no_validation  # type: ignore[method-assign]
    for cls, _, fast in inits:
        cls.__init__ = fast  # type: ignore[misc]
    try:
        return cst.parse_module(source)
    finally:
        if stock is not None:
            cst.CSTNode.__post_init__ = stock  # type: ignore[method-assign]
        for cls, stock_init, _ in inits:
            cls.__init__ = stock_init  # type: ignore[misc]


_last_ast: tuple[str, ast.Module] | None = None


def forget_ast() -> None:
    """Drop :func:`parse_ast`'s one-entry cache (the last file's ``ast`` tree), so that it is
    freed now rather than rescanned by the cyclic GC while the next file is analyzed."""
    global _last_ast
    _last_ast = None


def parse_ast(source: str) -> ast.Module:
    """``ast.parse(source)`` with a one-entry cache keyed by the string's identity, so the
    worker's depth guard and :class:`Positions` share one parse. Raises what ``ast.parse``
    raises (``SyntaxError``, ``ValueError``, ``RecursionError``, ``MemoryError``)."""
    global _last_ast
    if _last_ast is not None and _last_ast[0] is source:
        return _last_ast[1]
    _last_ast = None
    with warnings.catch_warnings():
        # the scanned code's own SyntaxWarnings / invalid-escape DeprecationWarnings are not ours
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        tree = ast.parse(source)
    _last_ast = (source, tree)
    return tree


def _ast_statements(tree: ast.Module) -> list[ast.AST]:
    """Statements (and ``except`` clauses) in the order the walk meets their libcst twins."""
    out: list[ast.AST] = []
    _ast_block(tree.body, out)
    return out


def _ast_block(stmts: list[ast.stmt], out: list[ast.AST]) -> None:
    # a module-level function, not a recursive closure: a closure that calls itself is a
    # reference cycle, which kept each file's whole ast tree alive until the cyclic GC ran
    for s in stmts:
        out.append(s)
        blocks = _AST_BLOCKS.get(type(s))
        if blocks is None:
            continue  # a simple statement (most): one lookup instead of a chain of isinstance
        for name in blocks:
            if name == "handlers":
                for h in s.handlers:  # type: ignore[attr-defined]
                    out.append(h)
                    _ast_block(h.body, out)
            elif name == "cases":
                for case in s.cases:  # type: ignore[attr-defined]
                    _ast_block(case.body, out)
            else:
                _ast_block(getattr(s, name), out)


#: ``ast`` compound statements -> their fields holding statements (``handlers``: ``except``
#: clauses, each an anchor before its body; ``cases``: ``match`` cases' bodies), in the order
#: the walk meets their libcst twins.
_AST_BLOCKS: dict[type, tuple[str, ...]] = {
    ast.FunctionDef: ("body",), ast.AsyncFunctionDef: ("body",), ast.ClassDef: ("body",),
    ast.With: ("body",), ast.AsyncWith: ("body",),
    ast.If: ("body", "orelse"), ast.For: ("body", "orelse"), ast.AsyncFor: ("body", "orelse"),
    ast.While: ("body", "orelse"),
    ast.Try: ("body", "handlers", "orelse", "finalbody"), ast.Match: ("cases",),
}
if hasattr(ast, "TryStar"):
    _AST_BLOCKS[ast.TryStar] = ("body", "handlers", "orelse", "finalbody")


class _Recorder:
    """Stands in for the metadata provider while one unit is generated."""

    __slots__ = ("_computed",)

    def __init__(self, computed: dict[cst.CSTNode, CodeRange]) -> None:
        self._computed = computed


class _Syntactic:
    """``record_syntactic_position`` as a plain context manager (libcst's is a generator-based
    ``contextmanager``, a large share of codegen time); same semantics."""

    __slots__ = ("state", "node", "start_node", "end_node", "start")

    def __init__(self, state: "_UnitState", node: cst.CSTNode, start_node: cst.CSTNode | None,
                 end_node: cst.CSTNode | None) -> None:
        self.state, self.node, self.start_node, self.end_node = state, node, start_node, end_node

    def __enter__(self) -> None:
        self.start = CodePosition(self.state.line, self.state.column)

    def __exit__(self, *exc: object) -> None:
        state = self.state
        computed = state.provider._computed  # type: ignore[attr-defined]
        start = computed[self.start_node].start if self.start_node is not None else self.start
        end = computed[self.end_node].end if self.end_node is not None else CodePosition(state.line, state.column)
        computed[self.node] = CodeRange(start, end)


class _UnitState(PositionProvidingCodegenState):
    """libcst's position-recording codegen state (same positions), made cheaper: a column
    update without libcst's regex split for tokens without a newline, and a class-based
    ``record_syntactic_position``."""

    def _update_position(self, value: str) -> None:
        if "\n" in value or "\r" in value:
            super()._update_position(value)
        else:
            self.column += len(value)

    def record_syntactic_position(self, node: cst.CSTNode, *, start_node: cst.CSTNode | None = None,
                                  end_node: cst.CSTNode | None = None) -> Any:
        return _Syntactic(self, node, start_node, end_node)


class Positions:
    """Lazy ``node -> CodeRange`` (a Mapping-like object that the visitor reads through
    ``get_metadata(PositionProvider, node)``). Exact: equal to libcst's ``PositionProvider``.

    Covers statements and everything inside them. Pure statement containers (``Module``,
    ``IndentedBlock``, ``Else``, ``Finally``, ``MatchCase``) belong to no unit: asking for one
    switches the file to the exact provider (the visitor never does). ``units_generated``
    counts the units generated; ``fallback_reason`` is "" unless the file fell back.
    """

    def __init__(self, module: cst.Module, source: str) -> None:
        self.module = module
        self.source = source
        self.stmt_pos: dict[int, CodeRange] = {}  # keyed by id(node): CSTNode.__hash__ is Python-level
        self.unit_stack: list[cst.CSTNode] = []
        self.units_generated = 0
        self.fallback_reason = ""
        self._twin: dict[int, Any] = {}
        self._index: dict[int, int] = {}
        self._one_line: dict[int, int] = {}
        self._paired: dict[int, _UnitPairs] = {}
        self._computed: dict[int, CodeRange] = {}
        self._done: set[int] = set()
        self._elif: set[int] = set()
        self._fallback: Any = None
        self._line_starts: list[int] | None = None
        self._ascii = source.isascii()
        try:
            self._ast = _ast_statements(parse_ast(source))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            self._ast = []
            self.fallback("ast could not parse the source")
        self._next = 0

    # -------------------------------------------------------------- fallback
    def fallback(self, reason: str) -> None:
        """Switch to libcst's exact ``PositionProvider`` for the rest of the file."""
        if self._fallback is None:
            self.fallback_reason = reason
            self._fallback = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)

    # -------------------------------------------------------------- source geometry
    def _starts(self) -> list[int]:
        """Offset of each line's first character (lines split at ``\n``, ``\r\n`` and ``\r``)."""
        if self._line_starts is None:
            source = self.source
            if "\r" in source:
                self._line_starts = [0, *(m.end() for m in _NEWLINE.finditer(source))]
            else:  # only "\n" ends lines: a line starts one past the end of the line before it
                lines = source.split("\n")
                lines.pop()
                self._line_starts = list(accumulate(map(_PLUS_ONE, map(len, lines)), initial=0))
        return self._line_starts

    def source_text(self, rng: CodeRange) -> str:
        """The source text between ``rng``'s start and end (libcst's 1-based lines, character
        columns; the lines are split where ``ast`` and libcst split them: ``\n``, ``\r\n``,
        ``\r``). Raises ``IndexError`` for a line outside the source."""
        starts = self._starts()
        if not (0 < rng.start.line <= len(starts) and 0 < rng.end.line <= len(starts)):
            raise IndexError(f"lines {rng.start.line}-{rng.end.line} outside a {len(starts)}-line source")
        return self.source[starts[rng.start.line - 1] + rng.start.column: starts[rng.end.line - 1] + rng.end.column]

    def text_after(self, line: int, end: int) -> str:
        """The source text of the lines after 1-based ``line`` through ``end`` ("" when there
        are none)."""
        starts = self._starts()
        if line >= end or line >= len(starts):
            return ""
        b = starts[end] if end < len(starts) else len(self.source)
        return self.source[starts[line]:b]

    def _line_text(self, line: int) -> str:
        starts = self._starts()
        if not 0 < line <= len(starts):
            return ""
        a = starts[line - 1]
        b = starts[line] if line < len(starts) else len(self.source)
        return self.source[a:b]

    def _col(self, line: int, byte_col: int) -> int:
        """``ast`` columns are UTF-8 byte offsets; libcst's are characters (the same on an
        ASCII line, so in an ASCII source no line is looked at)."""
        if self._ascii:
            return byte_col
        text = self._line_text(line)
        if text.isascii():
            return byte_col
        return len(text.encode("utf-8")[:byte_col].decode("utf-8", "replace"))

    # -------------------------------------------------------------- walk hooks
    def enter_statement(self, node: cst.CSTNode) -> None:
        """Called by the walk when a statement starts; pairs it with its ``ast`` twin."""
        if self._fallback is not None:
            return
        i = self._next
        if i >= len(self._ast):
            self.fallback("more libcst statements than ast statements")
            return
        twin = self._ast[i]
        self._next = i + 1
        cls = type(node)
        if (cls, type(twin)) not in _STATEMENT_PAIRS:
            self.fallback(f"statement mismatch: libcst {cls.__name__} vs ast {type(twin).__name__}")
            return
        key = id(node)
        self._twin[key] = twin  # its CodeRange is made on first request (_statement_range)
        self._index[key] = i
        if cls is cst.If and type(node.orelse) is cst.If:
            self._elif.add(id(node.orelse))

    def leave_statement(self) -> None:
        """Kept for the walk protocol (nothing to undo)."""

    # -------------------------------------------------------------- lookups
    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        if self._fallback is not None:
            return self._fallback[node]  # type: ignore[no-any-return]
        key = id(node)
        own = self.stmt_pos.get(key)
        if own is not None:
            return own
        twin = self._twin.get(key)
        if twin is not None:
            return self._statement_range(key, twin)
        got = self._computed.get(key)
        if got is not None:
            return got
        if type(node) in _PAIRED and self.unit_stack:
            twin = self._pairs(self.unit_stack[-1]).twin(node)
            if twin is not None:
                got = self._computed[key] = self._ast_range(twin)
                return got
        for unit in reversed(self.unit_stack):
            if id(unit) in self._done:
                continue
            if not self._generate(unit):
                break
            got = self._computed.get(key)
            if got is not None:
                return got
        if self._fallback is None:
            self.fallback(f"no unit holds a {type(node).__name__}")
        return self._fallback[node]  # type: ignore[no-any-return]

    def _statement_range(self, key: int, twin: Any) -> CodeRange:
        """A statement's range from its ``ast`` twin, kept in ``stmt_pos``."""
        rng = self.stmt_pos[key] = self._ast_range(twin)
        return rng

    def _ast_range(self, a: Any) -> CodeRange:
        """The range of an ``ast`` node (statement or call) in libcst's convention: ``ast``'s
        UTF-8 byte columns turned into character columns."""
        end = a.end_lineno or a.lineno
        return CodeRange(CodePosition(a.lineno, self._col(a.lineno, a.col_offset)),
                         CodePosition(end, self._col(end, a.end_col_offset or 0)))

    def lines(self, node: cst.CSTNode) -> tuple[int, int]:
        """(first line, last line) of ``node``, 1-based; the same as ``self[node]``'s lines
        but without generating code when ``node`` lies in a statement line that ``ast`` shows
        is one physical line (most lines). Contract (as for ``self[node]``): ``node`` is a
        statement, the node being visited, or a descendant of it."""
        if self._fallback is None:
            key = id(node)
            twin = self._twin.get(key)
            if twin is not None:
                # a statement: its ast twin's lines, as in ``self[node]``, without the columns
                return twin.lineno, twin.end_lineno or twin.lineno
            if self.unit_stack:
                unit = self.unit_stack[-1]
                line = self._single_line(unit)
                if line:
                    return line, line
                if type(node) in _PAIRED and key not in self._computed:
                    # the lines of its ast twin: what ``self[node]`` gives, without the columns
                    twin = self._pairs(unit).twin(node)
                    if twin is not None:
                        return twin.lineno, twin.end_lineno or twin.lineno
                if type(node) is cst.Decorator:
                    got = self._decorator_lines(unit, node)
                    if got is not None:
                        return got
        rng = self[node]
        return rng.start.line, rng.end.line

    def _decorator_lines(self, unit: cst.CSTNode, node: cst.Decorator) -> tuple[int, int] | None:
        """Lines of a decorator of the definition ``unit`` from the ``ast`` twin's
        ``decorator_list`` (its expression's lines; libcst's range starts at the ``@``, which
        the grammar keeps on the expression's first line unless a backslash continues it:
        then, or when anything else disagrees, None and the range is generated). Most position
        requests inside a definition's header are its decorators' lines."""
        twin = self._twin.get(id(unit))
        decorators = getattr(unit, "decorators", None)
        if twin is None or not decorators:
            return None
        listed = getattr(twin, "decorator_list", None)
        if listed is None or len(listed) != len(decorators):
            return None
        for c, a in zip(decorators, listed):
            if c is node:
                # (the text before the expression on its line is only the ``@`` and blanks)
                head = self._line_text(a.lineno).encode("utf-8")[:a.col_offset]
                if head.strip() != b"@":
                    return None
                return a.lineno, a.end_lineno or a.lineno
        return None

    def _pairs(self, unit: cst.CSTNode) -> _UnitPairs:
        """The :data:`_PAIRED` nodes of a unit (a simple-statement line, or a compound
        statement's header) on both sides, to pair with their ``ast`` twins without generating
        code (:class:`_UnitPairs`); collected once per unit."""
        key = id(unit)
        known = self._paired.get(key)
        if known is not None:
            return known
        a_roots: list[Any] = []
        c_roots: list[cst.CSTNode] = []
        if type(unit) is cst.SimpleStatementLine:
            first = self._index.get(id(unit.body[0])) if unit.body else None
            if first is not None and first + len(unit.body) <= len(self._ast):
                a_roots = self._ast[first:first + len(unit.body)]
                c_roots = [unit]
        else:
            twin = self._twin.get(id(unit))
            fields = _HEADER_AST.get(type(twin).__name__) if twin is not None else None
            if fields is not None:
                a_roots = [getattr(twin, f) for f in fields]
                skip = _PAIR_SKIP.get(type(unit), frozenset())
                c_roots = [getattr(unit, f) for f in _fields(type(unit)) if f not in _BODY_FIELDS and f not in skip]
        got = self._paired[key] = _UnitPairs(_cst_paired(c_roots), _ast_paired(a_roots)) if a_roots else _NO_PAIRS
        return got

    def _single_line(self, unit: cst.CSTNode) -> int:
        """The line of a simple-statement line that fits on one physical line, else 0."""
        key = id(unit)
        known = self._one_line.get(key)
        if known is not None:
            return known
        line = 0
        if type(unit) is cst.SimpleStatementLine and unit.body:
            first = self._index.get(id(unit.body[0]))
            if first is not None and first + len(unit.body) <= len(self._ast):
                a, b = self._ast[first], self._ast[first + len(unit.body) - 1]
                if a.lineno == (b.end_lineno or b.lineno):  # type: ignore[attr-defined]
                    line = a.lineno  # type: ignore[attr-defined]
        self._one_line[key] = line
        return line

    def _generate(self, unit: cst.CSTNode) -> bool:
        """Generate ``unit``'s code with position recording at its real place; False (after
        switching to the fallback) if the text differs from the source there."""
        self._done.add(id(unit))
        if isinstance(unit, _LINE_UNITS):
            first = unit.body[0] if unit.body else None
            twin = self._twin.get(id(first)) if first is not None else None
            if twin is None and first is not None and self._next < len(self._ast):
                # the line itself is being visited: its first statement is the next ast one
                peek = self._ast[self._next]
                if type(peek).__name__ in _STATEMENT_TYPES.get(type(first), ()):
                    twin = peek
            if twin is None:
                return True
            line = twin.lineno
            indent = self._indent(line)
            if type(unit) is cst.SimpleStatementLine:
                line -= len(unit.leading_lines)
                col = 0
            else:
                col = self._col(line, twin.col_offset) - len(unit.leading_whitespace.value)
            target, kwargs, suffix = unit, {}, ""
        else:
            twin = self._twin.get(id(unit))
            if twin is None:
                return True
            target, kwargs, suffix, line, indent = self._header(unit, twin)
            col = 0
            if target is None:
                return True
        computed: dict[cst.CSTNode, CodeRange] = {}
        state = _UnitState(default_indent=self.module.default_indent, default_newline=self.module.default_newline,
                           provider=_Recorder(computed), indent_tokens=[indent] if indent else [],
                           line=line, column=col)
        target._codegen(state, **kwargs)
        text = "".join(state.tokens)
        if suffix:
            text = text[: len(text) - len(suffix)] if text.endswith(suffix) else "\0"
        if not self._matches(line, col, text):
            self.fallback(f"generated {type(unit).__name__} differs from the source at line {line}")
            return False
        self.units_generated += 1
        if target is not unit:
            computed.pop(target, None)  # a header copy, not a node of the tree
        self._computed.update((id(k), v) for k, v in computed.items())
        return True

    def _header(self, unit: cst.CSTNode, twin: Any) -> tuple[cst.CSTNode | None, dict[str, Any], str, int, str]:
        """(node to generate, codegen kwargs, generated suffix to drop, first line, block
        indentation) for a compound statement: its header only (body replaced by an empty
        one-line suite); a ``match`` statement whole (its ``case`` patterns are not anchors)."""
        if type(unit) is cst.Match:
            return unit.with_changes(leading_lines=()), {}, "", twin.lineno, self._indent(twin.lineno)
        if isinstance(unit, (cst.Try, getattr(cst, "TryStar", cst.Try))):
            return None, {}, "", 0, ""  # `try:` holds no expression
        changes: dict[str, Any] = {"body": _EMPTY_SUITE, "leading_lines": ()}
        if hasattr(unit, "orelse"):
            changes["orelse"] = None
        line = twin.lineno
        indent = self._indent(line)
        decorators = getattr(unit, "decorators", ())
        if decorators:
            line = twin.decorator_list[0].lineno
            indent = self._indent(line)
            line -= len(decorators[0].leading_lines)
        kwargs = {"is_elif": True} if id(unit) in self._elif else {}
        return unit.with_changes(**changes), kwargs, _EMPTY_SUITE_CODE, line, indent

    def _indent(self, line: int) -> str:
        text = self._line_text(line)
        return text[: len(text) - len(text.lstrip(" \t\f"))]

    def _matches(self, line: int, col: int, text: str) -> bool:
        starts = self._starts()
        if not 0 < line <= len(starts):
            return False
        offset = starts[line - 1] + col
        seg = self.source[offset: offset + len(text)]
        if seg == text:
            return True
        # libcst always ends a statement with a newline, even at an unterminated end of file.
        return offset + len(text) > len(self.source) and text.startswith(seg) and text[len(seg):] in ("\n", "\r\n", "\r")


def _is_header_unit(cls: type) -> bool:
    return issubclass(cls, (cst.BaseCompoundStatement, cst.ExceptHandler)) or cls.__name__ == "ExceptStarHandler"


def fast_visit(module: cst.Module, visitor: cst.CSTVisitor, source: str) -> Positions:
    """Run ``visitor``'s ``visit_*``/``leave_*`` methods over ``module`` in source order.

    Provides ``PositionProvider`` metadata to the visitor lazily (see :class:`Positions`).
    Returns the positions object (usable after the walk).

    An explicit stack instead of libcst's recursive ``visit``: it holds nodes to enter and
    one-element tuples ``(node,)`` to leave (a field's sequence of children is pushed in one
    ``extend``, and ``operator.attrgetter`` reads a node's child fields in one call).

    A child held alone in its field is not pushed when its class is *inert*: no ``visit_``/
    ``leave_`` method of ``visitor``, not a statement nor a position unit, and no child
    fields (``Name``, ``Integer``, ``SimpleString``: 40% of the nodes). Popping one would
    do nothing at all, so skipping it changes no call, order nor position; a class is known
    inert once its first node was popped (values that are not nodes, and None, are skipped
    the same way).
    """
    positions = Positions(module, source)
    visitor.metadata = {PositionProvider: positions}  # type: ignore[assignment]
    # per class: (visit, leave, is statement anchor, is position unit, child-field getter,
    # number of child fields), or _NOT_A_NODE for values that are not libcst nodes
    info: dict[type, Any] = {}
    inert: set[type] = {type(None)}  # single children not worth pushing (see above)
    by_class = _methods_by_class(visitor)
    units = positions.unit_stack
    enter = positions.enter_statement
    stack: list[Any] = [module]
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        node = pop()
        cls = type(node)
        if cls is tuple:  # (node,): leaving it
            node = node[0]
            meta = info[type(node)]
            if meta[1] is not None:
                meta[1](node)
            if meta[3]:
                units.pop()
            continue
        meta = info.get(cls)
        if meta is None:
            meta = info[cls] = _visit_plan(cls, visitor, by_class)
            if meta is _NOT_A_NODE or (meta[0] is None and meta[1] is None and not meta[2] and not meta[3]
                                       and meta[5] == 0):
                inert.add(cls)
        if meta is _NOT_A_NODE:
            continue
        visit, leave, is_stmt, is_unit, getter, count = meta
        if is_stmt:
            enter(node)
        if is_unit:
            units.append(node)
        if leave is not None or is_unit:
            push((node,))
        if visit is not None and visit(node) is False:
            continue
        if count == 1:  # (the getter gives the one field's value)
            value = getter(node)
            t = type(value)
            if t is tuple or t is list:
                extend(value[::-1])
            elif t not in inert:
                push(value)
        elif count:
            # children pushed last first (the getter reads the fields in reverse) so that they
            # pop in source order
            for value in getter(node):
                t = type(value)
                if t is tuple or t is list:
                    extend(value[::-1])
                elif t not in inert:
                    push(value)
    return positions


#: :func:`fast_visit`'s plan for a value that is not a libcst node (a sentinel, a string).
_NOT_A_NODE = object()


def _visit_plan(cls: type, visitor: cst.CSTVisitor, by_class: bool) -> Any:
    """:func:`fast_visit`'s per-class entry: (visit method or None, leave method or None, is a
    statement anchor, is a position unit, getter of the child fields, number of child fields).

    With ``by_class`` (:func:`_methods_by_class`), the entry is built once per (visitor class,
    node class) (:data:`_CLASS_PLANS`) and its plain functions are bound to ``visitor`` here:
    the same methods that looking them up by name on the visitor gives (3.4 -> 0.9 us per node
    class and file; 1% of the analysis). A method that is not a plain function on the class (a
    ``staticmethod``) is looked up on the visitor, as without ``by_class``."""
    if not by_class:
        return _plan(cls, visitor)
    key = (type(visitor), cls)
    plan = _CLASS_PLANS.get(key)
    if plan is None:
        plan = _plan(cls, type(visitor))
        if plan is not _NOT_A_NODE and not all(f is None or type(f) is FunctionType for f in plan[:2]):
            plan = _BY_INSTANCE
        _CLASS_PLANS[key] = plan
    if plan is _BY_INSTANCE:
        return _plan(cls, visitor)
    if plan is _NOT_A_NODE:
        return plan
    visit, leave = plan[0], plan[1]
    return (visit if visit is None else MethodType(visit, visitor),
            leave if leave is None else MethodType(leave, visitor), *plan[2:])


def _methods_by_class(visitor: Any) -> bool:
    """Whether ``visitor``'s ``visit_``/``leave_`` methods are those of its class: no such
    instance attribute, and no ``__getattr__``/``__getattribute__`` of its own to make them."""
    vcls = type(visitor)
    return (getattr(vcls, "__getattr__", None) is None and vcls.__getattribute__ is object.__getattribute__
            and not any(k.startswith(("visit_", "leave_")) for k in getattr(visitor, "__dict__", ())))


def _plan(cls: type, owner: Any) -> Any:
    """:func:`_visit_plan`'s entry with the methods of ``owner``: bound methods of a visitor
    instance, or the attributes of a visitor class."""
    if not _is_node(cls):
        return _NOT_A_NODE
    is_stmt = cls in _STATEMENT_TYPES
    return (_own_method(owner, f"visit_{cls.__name__}"), _own_method(owner, f"leave_{cls.__name__}"),
            is_stmt, cls in _LINE_UNITS or (is_stmt and _is_header_unit(cls)), *_child_getter(cls))


#: (visitor class, node class) -> :func:`_plan` of the visitor class (its plain functions),
#: or _BY_INSTANCE when a method there is not a plain function
_CLASS_PLANS: dict[tuple[type, type], Any] = {}
_BY_INSTANCE = object()


def _own_method(visitor: cst.CSTVisitor, name: str) -> Any:
    """``visitor``'s bound method ``name``, or None when it is only libcst's no-op default
    (``CSTVisitor`` defines ``visit_X``/``leave_X`` for every node class: calling them, and
    pushing a leave marker for every node, was a third of the walk's own time)."""
    bound = getattr(visitor, name, None)
    if bound is None or getattr(bound, "__func__", bound) is getattr(cst.CSTVisitor, name, None):
        return None
    return bound
