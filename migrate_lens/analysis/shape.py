"""Per-file size and shape facts for pricing: code lines, and a normalised digest of every class
and function so the project stage can find copies (:mod:`migrate_lens.copies`).

Read from the ``ast`` tree the per-file stage already holds (:func:`migrate_lens.analysis.walk.parse_ast`
is shared with the depth guard and the position pairing), so no second parse.

- **Code lines**: non-blank lines that are not only a comment, not part of a string
  statement (docstrings, and bare strings used as comments) and not part of a *data table*: a
  module- or class-level assignment whose value is literal data (constants, containers, names,
  attributes and calls of them, with no name bound to torch), such as timm's ``default_cfgs =
  generate_default_cfgs({...})``, torchvision's weight enums (``IMAGENET1K_V1 = Weights(url=...,
  meta={...})``) and transformers' ``_no_split_modules = [...]``. A table is configuration: it
  carries over to the port as it is, and porting it is not translating code
  (:func:`is_data_value`). Lines inside a multi-line expression count when non-blank.
- **Shape digest** of a class or function: a BLAKE2b digest of its ``ast`` with docstrings
  dropped, every string constant replaced by one placeholder, comments gone (``ast`` has none)
  and the model-family name normalised: in every identifier, the family words of the file
  (its package folder and its file stem without ``modeling_``/``modular_``/... prefixes, e.g.
  ``bart`` in ``models/bart/modeling_bart.py``) are replaced by one placeholder, so
  ``BartAttention`` in ``modeling_bart.py`` and ``MarianAttention`` in ``modeling_marian.py``
  get the same digest when their code is the same up to the rename.
- **Copy marker**: ``# Copied from pkg.mod.Name [with A->B]`` on the line above a definition
  (or above its decorators), the convention of transformers and diffusers, whose CI checks
  that the copy matches its source.
- **Generated file**: a module-level comment ``This file was automatically generated from
  .../modular_x.py`` (transformers' modular converter): the file's path of origin.
"""

from __future__ import annotations

import ast
import hashlib
import operator
import re
from itertools import compress
from typing import Any

from migrate_lens.models import UnitShape

#: File-stem prefixes that name a file's role, not its model family.
_ROLE_PREFIXES = ("modeling_", "modular_", "configuration_", "tokenization_", "image_processing_",
                  "processing_", "feature_extraction_", "convert_", "pipeline_", "scheduling_")
#: Family words shorter than this are not normalised (``nn``, ``io`` would match too much).
MIN_FAMILY_WORD = 3
#: Folder names that are not a family (generic package structure).
_GENERIC = frozenset({"models", "model", "modules", "layers", "src", "lib", "utils", "ops", "nn",
                      "pipelines", "schedulers", "loaders", "transformers", "unets", "autoencoders",
                      "controlnets", "__init__", "common", "base"})
_COPIED = re.compile(r"#\s*Copied from\s+([A-Za-z_][\w.]*)")
_GENERATED = re.compile(r"automatically generated from\s+(\S*modular_\w+\.py)")
_PLACEHOLDER = "\x00F"
#: what a stripped line starts with when it holds no code (nothing, or a comment)
_NOT_CODE = frozenset({"", "#"})
#: Fields that carry no code shape (expression context, type comments, string kind "u").
_SKIP_FIELDS = frozenset({"ctx", "type_comment", "kind"})
_DEFS = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
#: per ``ast`` class: (its name, getter of its fields in order without :data:`_SKIP_FIELDS`,
#: their number, their names), for :meth:`_Shaper.tokens`
_TOKEN_PLANS: dict[type, tuple[str, Any, int, tuple[str, ...]]] = {}
_Name, _Constant, _Attribute = ast.Name, ast.Constant, ast.Attribute
#: the separator of a unit's tokens, and the joined tokens of ``Constant`` leaves (None: no
#: value token; a string: ``S``; others: the ``repr`` follows the separator)
_SEP = "\x01"
_CONSTANT = "Constant"
_CONSTANT_SEP = "Constant" + _SEP
_STRING = "Constant" + _SEP + "S"
#: Expression nodes a data table is made of (no lambda, comprehension, comparison, await...).
_DATA_NODES = (ast.Constant, ast.Dict, ast.List, ast.Tuple, ast.Set, ast.Name, ast.Attribute, ast.Call,
               ast.keyword, ast.UnaryOp, ast.BinOp, ast.Starred, ast.JoinedStr, ast.FormattedValue,
               ast.Subscript, ast.Slice, ast.expr_context, ast.operator, ast.unaryop)


def _token_plan(cls: type) -> tuple[str, Any, int, tuple[str, ...]]:
    """:data:`_TOKEN_PLANS`' entry of ``cls``, made on its first use. (An ``ast.parse`` tree
    sets every field, so one ``attrgetter`` reads them all.)"""
    fields = tuple(f for f in cls._fields if f not in _SKIP_FIELDS)
    plan = _TOKEN_PLANS[cls] = (cls.__name__, operator.attrgetter(*fields) if fields else None, len(fields), fields)
    return plan


def torch_names(body: list[ast.stmt]) -> frozenset[str]:
    """Local names bound to torch by the module-level imports in ``body`` (also inside
    ``try``/``if`` blocks): ``torch``, ``nn`` of ``from torch import nn``, ``F`` of ``import
    torch.nn.functional as F``."""
    out: set[str] = set()
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "torch":
                    out.add((a.asname or a.name).split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            if node.module and node.module.split(".")[0] == "torch" and not node.level:
                out.update(a.asname or a.name for a in node.names)
        elif isinstance(node, (ast.Try, ast.If)):
            stack.extend(node.body)
            stack.extend(node.orelse)
            stack.extend(s for h in getattr(node, "handlers", ()) for s in h.body)
    return frozenset(out)


def is_data_value(value: ast.expr, torch: frozenset[str]) -> bool:
    """True when ``value`` (the right-hand side of a module- or class-level assignment) is
    literal data: made only of :data:`_DATA_NODES` and naming nothing in ``torch`` (the
    module's torch-bound names), so it holds no tensor computation to translate. (Every node
    is tested, in depth-first order from a stack: ``ast.walk``'s generators cost more on the
    large literal tables this reads; the fields left out, ``ctx`` and strings, hold no code.)"""
    todo: list[Any] = [value]
    pop, push, extend = todo.pop, todo.append, todo.extend
    while todo:
        node = pop()
        cls = type(node)
        if cls is list:
            extend(node)
            continue
        if not isinstance(node, ast.AST):
            continue  # None, an identifier, a constant's value
        if not isinstance(node, _DATA_NODES) or (cls is _Name and node.id in torch):
            return False
        _, getter, count, _ = _TOKEN_PLANS.get(cls) or _token_plan(cls)
        if count == 1:
            push(getter(node))
        elif count:
            extend(getter(node))
    return True


def family_words(module: str) -> tuple[str, ...]:
    """The model-family words of dotted ``module`` (lower case, longest first): its file stem
    without a role prefix and its parent package, each also without underscores."""
    parts = module.split(".")
    words: set[str] = set()
    stem = parts[-1]
    for prefix in _ROLE_PREFIXES:
        if stem.startswith(prefix):
            stem = stem[len(prefix):]
            break
    for w in (stem, parts[-2] if len(parts) > 1 else ""):
        w = w.lower()
        if len(w) >= MIN_FAMILY_WORD and w not in _GENERIC:
            words.add(w)
            words.add(w.replace("_", ""))
    return tuple(sorted((w for w in words if len(w) >= MIN_FAMILY_WORD), key=lambda w: (-len(w), w)))


def _docstring_node(body: list[ast.stmt]) -> ast.stmt | None:
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        return body[0]
    return None


class _Shaper:
    """One file's walk: code-line mask, shapes of classes and functions."""

    def __init__(self, source: str, module: str, lines: list[str] | None = None) -> None:
        self.lines = source.splitlines() if lines is None else lines
        #: per line (0-based): it holds text that is not a comment
        self.has_code = [text[:1] not in _NOT_CODE for text in map(str.lstrip, self.lines)]
        self.module = module
        self.words = family_words(module)
        #: the words' case-insensitive alternation, compiled only for an identifier or a word
        #: that is not ASCII (:meth:`_family_sub`)
        self._family: re.Pattern[str] | None = None
        self._ascii_words = all(w.isascii() for w in self.words)
        self.noncode: set[int] = set()
        self.torch: frozenset[str] = frozenset()
        self.shapes: list[UnitShape] = []
        self._names: dict[str, str] = {}
        self._leaves: dict[object, str] = {}  # :meth:`leaf`, :meth:`attribute_leaf`

    def name(self, ident: str) -> str:
        """``ident`` with the family words replaced."""
        hit = self._names.get(ident)
        if hit is None:
            hit = self._family_sub(ident) if self.words else ident
            self._names[ident] = hit
        return hit

    def _family_sub(self, ident: str) -> str:
        """``ident`` with every occurrence of a family word replaced by the placeholder: what
        ``re.sub`` of the words' ``IGNORECASE`` alternation (longest first) gives, without
        compiling one regex per file (a regex compile was 0.65% of the per-file CPU: each
        file has its own words). Scanned left to right, the first word (in :attr:`words`'
        order) matching at a position is replaced and the scan resumes after it, as the
        alternation does. For ASCII text that is ``str.lower`` equality; an identifier or a
        word that is not ASCII (where Unicode case folding differs) takes the regex."""
        words = self.words
        if not ident.isascii() or not self._ascii_words:
            if self._family is None:
                self._family = re.compile("|".join(re.escape(w) for w in words), re.IGNORECASE)
            return self._family.sub(_PLACEHOLDER, ident)
        low = ident.lower()
        for w in words:
            if w in low:
                break
        else:
            return ident  # (most identifiers)
        out: list[str] = []
        start = i = 0
        n = len(low)
        while i < n:
            for w in words:
                if low.startswith(w, i):
                    out.append(ident[start:i])
                    out.append(_PLACEHOLDER)
                    i = start = i + len(w)
                    break
            else:
                i += 1
        out.append(ident[start:])
        return "".join(out)

    def leaf(self, ident: str) -> str:
        """The joined tokens of a ``Name`` node of ``ident`` (kept per identifier)."""
        hit = self._leaves[ident] = f"Name{_SEP}{self.name(ident)}"
        return hit

    def attribute_leaf(self, key: tuple[str, str]) -> str:
        """The joined tokens of an ``Attribute`` node ``value.attr`` whose value is a ``Name``,
        ``key`` = (the name's identifier, ``attr``), kept per key: those of the ``Attribute``
        itself, of its ``Name``, then its normalised ``attr``."""
        hit = self._leaves[key] = f"Attribute{_SEP}Name{_SEP}{self.name(key[0])}{_SEP}{self.name(key[1])}"
        return hit

    def tokens(self, node: ast.AST, out: list[str], qual: str = "", in_class: bool = False) -> None:
        """Append the normalised token stream of ``node`` to ``out``; string statements are
        skipped. When ``qual`` is given, ``node`` is a class or function whose shape is
        recorded (and so are the methods and nested classes of a class), from the same walk.

        The stream: the class name, then per field (:func:`_token_plan`) nothing for None, a
        list as ``[`` items ``]``, an identifier normalised (:meth:`name`), a string constant
        as ``S``, a node's own stream, any other value's ``repr``. The leaves that make up
        half of the nodes are written here instead of by a call of their own, each as one
        element holding its tokens already joined by the separator (a unit's text is
        ``"\x01".join(out)``, so that is the same text): ``Name`` (:meth:`leaf`), ``Constant``
        and an ``Attribute`` of a ``Name`` (``self.conv``, ``torch.cat``)."""
        start = len(out)
        cls = type(node)
        append = out.append
        leaves = self._leaves
        name, getter, count, fields = _TOKEN_PLANS.get(cls) or _token_plan(cls)
        append(name)
        if count:
            is_class = cls is ast.ClassDef
            for field, value in zip(fields, (getter(node),) if count == 1 else getter(node)):
                if value is None:
                    continue
                t = type(value)
                if t is not list:  # one item
                    if t is _Name:
                        hit = leaves.get(value.id)
                        append(hit if hit is not None else self.leaf(value.id))
                    elif t is _Constant:
                        v = value.value
                        append(_CONSTANT if v is None else _STRING if type(v) is str else _CONSTANT_SEP + repr(v))
                    elif t is _Attribute and type(value.value) is _Name:
                        key = (value.value.id, value.attr)
                        hit = leaves.get(key)
                        append(hit if hit is not None else self.attribute_leaf(key))
                    elif t is str:
                        append("S" if field == "value" else self.name(value))
                    elif isinstance(value, ast.AST):
                        self.tokens(value, out)
                    else:
                        append(repr(value))
                    continue
                # a list field: its items between brackets
                append("[")
                class_body = is_class and field == "body"
                for item in value:
                    it = type(item)
                    if it is _Name:
                        hit = leaves.get(item.id)
                        append(hit if hit is not None else self.leaf(item.id))
                    elif it is _Constant:
                        v = item.value
                        append(_CONSTANT if v is None else _STRING if type(v) is str else _CONSTANT_SEP + repr(v))
                    elif it is _Attribute and type(item.value) is _Name:
                        key = (item.value.id, item.attr)
                        hit = leaves.get(key)
                        append(hit if hit is not None else self.attribute_leaf(key))
                    elif it is str:
                        append(self.name(item))
                    elif isinstance(item, ast.AST):
                        if it is ast.Expr and type(item.value) is _Constant and type(item.value.value) is str:
                            # a docstring or a string used as a comment: not code, not shape
                            self.noncode.update(range(item.lineno, (item.end_lineno or item.lineno) + 1))
                            continue
                        if class_body:
                            self.data(item)
                            if qual and isinstance(item, _DEFS):
                                self.tokens(item, out, f"{qual}.{item.name}", True)  # type: ignore[attr-defined]
                                continue
                        self.tokens(item, out)
                    else:
                        append(repr(item))
                append("]")
        if qual:
            text = _SEP.join(out[start:])
            # the enclosing class's stream holds this unit's tokens: as one joined piece, its
            # own join gives the same text without joining them again
            out[start:] = [text]
            digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()
            line = node.lineno  # type: ignore[attr-defined]
            end = node.end_lineno or line  # type: ignore[attr-defined]
            kind = "class" if is_class else ("method" if in_class else "function")
            self.shapes.append(UnitShape(qual, line, end, self.code_lines(line, end), digest, self.marker(node), kind))

    def marker(self, node: ast.AST) -> str:
        """The target of a ``# Copied from`` comment right above ``node`` (or its decorators)."""
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])  # type: ignore[attr-defined]
        i = first - 2
        while i >= 0 and self.lines[i].strip().startswith("#"):
            m = _COPIED.search(self.lines[i])
            if m:
                return m.group(1)
            i -= 1
        return ""

    def code_lines(self, start: int, end: int) -> int:
        """Code lines in 1-based ``start..end``: lines with code text (:attr:`has_code`, read
        once per file) minus those marked as not code (so far: a unit's range is counted once
        its own walk has marked what it holds)."""
        lo = max(1, start)
        return len(set(compress(range(lo, end + 1), self.has_code[lo - 1:end])) - self.noncode)

    def data(self, node: ast.AST) -> None:
        """Mark the lines of ``node`` as not code when it assigns a data table."""
        t = type(node)
        if (t is ast.Assign or (t is ast.AnnAssign and node.value is not None)) \
                and is_data_value(node.value, self.torch):  # type: ignore[attr-defined]
            self.noncode.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))  # type: ignore[attr-defined]

    def visit(self, body: list[ast.stmt], prefix: str) -> None:
        """Shapes of the module-level classes and functions in ``body``; data tables and
        string statements marked as not code."""
        self.torch = torch_names(body)
        for node in body:
            self.data(node)
            if isinstance(node, _DEFS):
                self.tokens(node, [], f"{prefix}.{node.name}")
            elif type(node) is ast.Expr and type(node.value) is ast.Constant and type(node.value.value) is str:
                self.noncode.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))


def shape_facts(tree: ast.Module, source: str, module: str,
                lines: list[str] | None = None) -> tuple[int, tuple[UnitShape, ...], str]:
    """(code lines of the file, shapes of its classes, methods and module-level functions in
    source order, the ``modular_*.py`` it was generated from or ""). ``lines``:
    ``source.splitlines()`` when the caller has them (read only). Never raises for a tree that
    ``ast.parse`` produced."""
    s = _Shaper(source, module, lines)
    s.visit(tree.body, module)
    generated = ""
    for line in s.lines[:40]:
        m = _GENERATED.search(line)
        if m:
            generated = m.group(1).rsplit("/", 1)[-1]
            break
    return s.code_lines(1, len(s.lines)), tuple(sorted(s.shapes, key=lambda u: (u.line, u.qualname))), generated
