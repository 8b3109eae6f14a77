"""Per-file size and shape facts for pricing: code lines, and a normalised digest of every class
and function so the project stage can find copies (:mod:`migrate_lens.copies`).

Read from the ``ast`` tree (statements only) and the text the per-file stage already holds (:func:`migrate_lens.analysis.walk.parse_ast`
is shared with the depth guard and the position pairing), so no second parse.

- **Code lines**: non-blank lines that are not only a comment, not part of a string
  statement (docstrings, and bare strings used as comments) and not part of a *data table*: a
  module- or class-level assignment whose value is literal data (constants, containers, names,
  attributes and calls of them, with no name bound to torch), such as timm's ``default_cfgs =
  generate_default_cfgs({...})``, torchvision's weight enums (``IMAGENET1K_V1 = Weights(url=...,
  meta={...})``) and transformers' ``_no_split_modules = [...]``. A table is configuration: it
  carries over to the port as it is, and porting it is not translating code
  (:func:`is_data_value`). Lines inside a multi-line expression count when non-blank.
- **Shape digest** of a class or function: a BLAKE2b digest of its normalised source text
  (:class:`_Shaper`): string literals replaced by one placeholder, comments, whitespace and
  string statements (docstrings) gone, trailing commas before a closing bracket dropped, and
  the model-family name normalised: the family words of the file (its package folder and its
  file stem without ``modeling_``/``modular_``/... prefixes, e.g. ``bart`` in
  ``models/bart/modeling_bart.py``) are replaced by one placeholder in the lower-cased text,
  so ``BartAttention`` in ``modeling_bart.py`` and ``MarianAttention`` in ``modeling_marian.py``
  get the same digest when their code is the same up to the rename and the layout.
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
from itertools import accumulate
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
#: their number, their names), for :func:`is_data_value`
_TOKEN_PLANS: dict[type, tuple[str, Any, int, tuple[str, ...]]] = {}
_Name, _Constant = ast.Name, ast.Constant
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


#: A string literal (triple- or single-quoted; a prefix letter stays in the text as code) or a
#: comment, scanned left to right so that a ``#`` inside a string and a quote inside a comment
#: are read as the tokenizer reads them. One C-level scan per file (:func:`_blank`).
_STRING_OR_COMMENT = re.compile(
    r'''"""(?:[^"\\]|\\[\s\S]|"(?!""))*"""|\'\'\'(?:[^'\\]|\\[\s\S]|'(?!''))*\'\'\''''
    r'''|"(?:[^"\\\n]|\\[\s\S])*"|'(?:[^'\\\n]|\\[\s\S])*'|\#[^\n]*''')
#: a trailing comma before a closing bracket (``f(a, b,)`` and ``f(a, b)`` are the same code)
_TRAILING_COMMA = re.compile(r",([)\]}])")
#: statement-list fields of ``ast`` statements (a compound statement's blocks)
_BLOCKS = ("body", "orelse", "finalbody")


#: a character str.splitlines breaks at but ast does not
_ODD_BREAK = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_AST_LINES = re.compile(r"\r\n|\r|\n")
#: the block mark of a unit's first line (its step from the code before the unit)
_FIRST_MARK = re.compile("^\x01-?\\d+\x01")


def _mark_blocks(out: list[str], starts: dict[int, int]) -> None:
    """Prefix the line of each statement (and decorator) of the normalised file ``out`` with its
    indentation step from the statement before it (``\\x01+1\\x01`` one level in, ``\\x01-2\\x01``
    two out, ``\\x010\\x01`` same; ``starts``: line -> column, from the ``ast``), levels counted
    as the tokenizer's indent stack does (2 or 4 spaces or a tab are one level): a unit's digest
    keeps its block structure (``x = h(x)`` inside or after an ``if`` differ) whatever its own
    depth in the file, while breaks inside brackets and after a backslash do not count."""
    stack = [0]
    n = len(out)
    for line in sorted(starts):
        if line > n:
            break
        width = starts[line]
        before = len(stack)
        while stack[-1] > width:
            stack.pop()
        if stack[-1] < width:
            stack.append(width)
        out[line - 1] = f"\x01{len(stack) - before}\x01{out[line - 1]}"


def _blank(match: re.Match[str]) -> str:
    """A string literal -> ``S`` plus its newlines (lines keep their numbers); a comment -> ""."""
    text = match.group()
    return "" if text[0] == "#" else "S" + "\n" * text.count("\n")


def _string_statement_lines(body: list[ast.stmt], out: set[int], starts: dict[int, int]) -> None:
    """Add to ``out`` the lines of every string statement (a docstring, a bare string used as a
    comment) in ``body`` and the blocks of its compound statements, nested definitions
    included, and to ``starts`` the first line -> column of every other statement and of
    every decorator: a walk over statements only (no expression is visited)."""
    todo: list[Any] = list(body)
    pop, extend = todo.pop, todo.extend
    big = 1 << 30
    while todo:
        node = pop()
        t = type(node)
        if t is ast.Expr and type(node.value) is _Constant and type(node.value.value) is str:
            out.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
            continue
        line = node.lineno
        if node.col_offset < starts.get(line, big):
            starts[line] = node.col_offset  # (`a; b`, `if c: d`: the leftmost)
        if t in _DEFS:
            for d in node.decorator_list:
                if d.col_offset - 1 < starts.get(d.lineno, big):
                    starts[d.lineno] = d.col_offset - 1  # the `@`
        for field in _BLOCKS:
            block = getattr(node, field, None)
            if block and type(block) is list:
                extend(block)
        for part in getattr(node, "handlers", None) or getattr(node, "cases", None) or ():
            extend(part.body)


class _Shaper:
    """One file's shape facts: the code-line count of any line range, and the units' shapes.

    The lines that are not code (blank, comment only, string statements, data tables) are known
    before any unit is measured, so a range's code lines are a difference of prefix sums. A
    unit's digest is read off the file's *normalised text* (:meth:`normalised`), not a walk of
    its ``ast``: strings become ``S``, comments and whitespace go, the model-family words
    become one placeholder (the text is lower-cased first, so ``BartAttention`` and
    ``bart_proj`` both lose their ``bart``), string statements are dropped and a trailing comma
    before a closing bracket is dropped. Two units get the same digest when their code is the
    same token for token up to those; layout (line breaks inside brackets, indentation inside
    them) does not count. (The ``ast`` token walk this replaced gave the same copy families on
    core but for 26 of 41,444 pairs, and cost twice as much: 1.86 s -> 0.9 s for core's 658
    files, one process.)"""

    def __init__(self, source: str, module: str, lines: list[str] | None = None) -> None:
        self.source = source
        self.lines = source.splitlines() if lines is None else lines
        if _ODD_BREAK.search(source):
            # str.splitlines also breaks at form feeds, \x85, \u2028...; ast counts \n, \r\n, \r
            # only: lines as ast numbers them, or every later line is off (code lines, markers)
            self.lines = _AST_LINES.split(source[:-1] if source.endswith("\n") else source)
        self.module = module
        self.words = family_words(module)
        self.noncode: set[int] = set()
        #: lines of string statements (not code, and left out of the digests; data tables are
        #: not code but are part of their class's shape)
        self.strings: set[int] = set()
        #: line -> column of each statement and decorator (:func:`_mark_blocks`)
        self.starts: dict[int, int] = {}
        self.torch: frozenset[str] = frozenset()
        self.shapes: list[UnitShape] = []
        self._prefix: list[int] = []
        self._text: list[str] = []

    def data(self, node: ast.AST) -> None:
        """Mark the lines of ``node`` as not code when it assigns a data table."""
        t = type(node)
        if (t is ast.Assign or (t is ast.AnnAssign and node.value is not None)) \
                and is_data_value(node.value, self.torch):  # type: ignore[attr-defined]
            self.noncode.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))  # type: ignore[attr-defined]

    def not_code(self, body: list[ast.stmt]) -> None:
        """Mark string statements (anywhere) and data tables (module and class level) as not
        code, then count the code lines: a line is code when its text holds something other
        than a comment and it is not marked."""
        _string_statement_lines(body, self.strings, self.starts)
        self.noncode.update(self.strings)
        todo = list(body)
        while todo:
            node = todo.pop()
            self.data(node)
            if type(node) is ast.ClassDef:
                todo.extend(node.body)
        flags = [text[:1] not in _NOT_CODE for text in map(str.lstrip, self.lines)]
        n = len(flags)
        for line in self.noncode:
            if 0 < line <= n:
                flags[line - 1] = False
        self._prefix = list(accumulate(flags, initial=0))

    def code_lines(self, start: int, end: int) -> int:
        """Code lines in 1-based ``start..end`` (clipped to the file)."""
        prefix = self._prefix
        hi = min(end, len(prefix) - 1)
        lo = max(1, start)
        return prefix[hi] - prefix[lo - 1] if hi >= lo else 0

    def normalised(self) -> list[str]:
        """The file's lines (split as ``ast`` counts them: ``\\n``, ``\\r\\n``, ``\\r``) with
        strings as ``S``, comments gone, lower-cased, every family word replaced by
        :data:`_PLACEHOLDER` and string statements blanked. Whitespace stays (removed per unit)."""
        text = self.source
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        text = _STRING_OR_COMMENT.sub(_blank, text).lower()
        for word in self.words:  # (longest first: a word inside a longer one goes with it)
            text = text.replace(word, _PLACEHOLDER)
        out = text.split("\n")
        n = len(out)
        for line in self.strings:
            if line <= n:
                out[line - 1] = ""
        _mark_blocks(out, self.starts)
        return out

    def unit(self, node: Any, qual: str, kind: str) -> None:
        """Record the shape of the class or function ``node`` (and, for a class, of its methods
        and nested classes)."""
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        end = node.end_lineno or node.lineno
        text = _FIRST_MARK.sub("", "".join("".join(self._text[first - 1:end]).split()), 1)
        text = text.replace("\\", "")
        text = _TRAILING_COMMA.sub(r"\1", text)
        digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()
        self.shapes.append(UnitShape(qual, node.lineno, end, self.code_lines(node.lineno, end), digest,
                                     self.marker(node), kind))
        if type(node) is ast.ClassDef:
            for item in node.body:
                if isinstance(item, _DEFS):
                    self.unit(item, f"{qual}.{item.name}", "class" if type(item) is ast.ClassDef else "method")

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

    def visit(self, body: list[ast.stmt], prefix: str) -> None:
        """Shapes of the module-level classes and functions in ``body`` (with their methods and
        nested classes); string statements and data tables marked as not code."""
        self.torch = torch_names(body)
        self.not_code(body)
        units = [node for node in body if isinstance(node, _DEFS)]
        if not units:
            return
        self._text = self.normalised()
        for node in units:
            self.unit(node, f"{prefix}.{node.name}", "class" if type(node) is ast.ClassDef else "function")


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
