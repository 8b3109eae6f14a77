"""Pure queries on CST expressions and statements that several parts of
:class:`~.visitor.FileVisitor` share: ``self`` chains and storage, root names and
alternatives of an expression, names read, argument texts, in-place methods, random
generator constructors. No visitor state.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Callable

import libcst as cst

from migrate_lens.analysis.bindings import dotted as _dotted
from migrate_lens.analysis.values import literal
from migrate_lens.analysis.walk import child_nodes
from migrate_lens.analysis.vocabulary import _KEY_COMPARE_OPS, _NOT_DATA_INPLACE, _RNG_CTOR_LEAVES, _RNG_CTORS

def _storage_of(node: cst.BaseExpression) -> cst.BaseExpression:
    """The tensor whose storage ``node`` is: ``t.data`` (any depth) shares ``t``'s storage, so an
    in-place write through it mutates ``t``."""
    while type(node) is cst.Attribute and node.attr.value == "data":
        node = node.value
    return node


def _is_self(node: cst.BaseExpression) -> bool:
    return type(node) is cst.Name and node.value == "self"


def _is_self_attr(node: cst.BaseExpression) -> bool:
    return type(node) is cst.Attribute and type(node.value) is cst.Name and node.value.value == "self"


def _size_query_of(node: cst.BaseExpression) -> cst.BaseExpression:
    """The tensor whose static size ``node`` reads (``t.size(0)``, ``t.shape[0]``, ``t.numel()``,
    ``len(t)``), else ``node``: a cache on ``self`` keyed by its own length
    (``if self._future_mask.size(0) < dim:``, ``if max_pos > self.weights.size(0):``)."""
    t = type(node)
    if t is cst.Call:
        func = node.func  # type: ignore[attr-defined]
        if type(func) is cst.Attribute and func.attr.value in ("size", "numel", "dim"):
            return func.value
        if type(func) is cst.Name and func.value == "len" and len(node.args) == 1:  # type: ignore[attr-defined]
            return node.args[0].value  # type: ignore[attr-defined]
    elif t is cst.Subscript and type(node.value) is cst.Attribute and node.value.attr.value == "shape":  # type: ignore[attr-defined]
        return node.value.value  # type: ignore[attr-defined]
    return node


def _key_comparisons(test: cst.BaseExpression) -> Iterator[list[cst.BaseExpression]]:
    """The sides of each comparison in ``test`` (through ``and``/``or``/``not``) that can compare a
    cache key: ordering or (in)equality operators only, and no side a literal None."""
    stack: list[cst.CSTNode] = [test]
    while stack:
        e = stack.pop()
        t = type(e)
        if t is cst.BooleanOperation:
            stack += (e.left, e.right)  # type: ignore[attr-defined]
        elif t is cst.UnaryOperation:
            stack.append(e.expression)  # type: ignore[attr-defined]
        elif t is cst.Comparison:
            sides = [e.left, *(c.comparator for c in e.comparisons)]  # type: ignore[attr-defined]
            if all(type(c.operator) in _KEY_COMPARE_OPS for c in e.comparisons) and \
                    not any(literal(x) is None for x in sides):  # type: ignore[attr-defined]
                yield sides


def _key_attr(node: cst.BaseExpression) -> str:
    """The attribute of ``self`` a cache key reads (``self.max_seq_len_cached``,
    ``self.weights.size(0)``, ``self.cached_len.item()``, ``self._cos_cached.device``), else ""."""
    read = _size_query_of(_host_read_of(node))
    while type(read) is cst.Attribute and not _is_self_attr(read):
        read = read.value  # type: ignore[attr-defined]
    return read.attr.value if _is_self_attr(read) else ""  # type: ignore[attr-defined]


def _host_read_of(node: cst.BaseExpression) -> cst.BaseExpression:
    """The tensor a host read takes its value from (``t.item()``, ``int(t)``), else ``node``."""
    if type(node) is cst.Call:
        func = node.func  # type: ignore[attr-defined]
        if type(func) is cst.Attribute and func.attr.value == "item" and not node.args:  # type: ignore[attr-defined]
            return func.value  # type: ignore[no-any-return]
        if type(func) is cst.Name and func.value in ("int", "float") and len(node.args) == 1:  # type: ignore[attr-defined]
            return node.args[0].value  # type: ignore[attr-defined,no-any-return]
    return node


def _reads_self_attrs(node: cst.CSTNode, attrs: frozenset[str]) -> bool:
    """Whether ``node`` reads ``self.<a>`` for some ``a`` in ``attrs`` anywhere inside."""
    stack: list[Any] = [node]
    while stack:
        n = stack.pop()
        if _is_self_attr(n) and n.attr.value in attrs:
            return True
        stack.extend(child_nodes(n))
    return False


def _alternatives(node: cst.BaseExpression, depth: int = 4) -> list[cst.BaseExpression]:
    """The values ``a or B()`` / ``B() if c else a`` may take (nested a few levels)."""
    if depth and type(node) is cst.BooleanOperation:
        return [*_alternatives(node.left, depth - 1), *_alternatives(node.right, depth - 1)]  # type: ignore[attr-defined]
    if depth and type(node) is cst.IfExp:
        return [*_alternatives(node.body, depth - 1), *_alternatives(node.orelse, depth - 1)]  # type: ignore[attr-defined]
    return [node]


def _root_name(node: cst.BaseExpression) -> str:
    while type(node) in (cst.Subscript, cst.Attribute):
        node = node.value
    return node.value if type(node) is cst.Name else ""


def _small_statements(body: Sequence[cst.BaseStatement]) -> Iterator[cst.BaseSmallStatement | cst.BaseStatement]:
    """The statements of ``body`` at any depth (compound statements' bodies, ``else``,
    ``finally`` and handlers), small statements one by one, not entering nested functions or
    classes (their code runs elsewhere). Compound statements are yielded too."""
    todo: list[cst.BaseStatement | cst.BaseSmallStatement] = list(reversed(body))
    while todo:
        st = todo.pop()
        yield st
        t = type(st)
        if t is cst.SimpleStatementLine:
            todo.extend(reversed(st.body))  # type: ignore[attr-defined]
            continue
        if t in (cst.FunctionDef, cst.ClassDef) or not isinstance(st, cst.BaseCompoundStatement):
            continue
        inner: list[cst.BaseStatement | cst.BaseSmallStatement] = []
        for part in (getattr(st, "body", None), *(h.body for h in getattr(st, "handlers", ())),
                     getattr(st, "orelse", None), getattr(st, "finalbody", None)):
            if part is None:
                continue
            if type(part) in (cst.Else, cst.Finally):
                part = part.body
            if type(part) is cst.If:
                inner.append(part)
            elif type(part) in (cst.IndentedBlock, cst.SimpleStatementSuite):
                inner.extend(part.body)
        todo.extend(reversed(inner))


def _names_read(node: cst.CSTNode) -> list[cst.Name]:
    """The ``Name`` nodes inside ``node`` (an expression: a few dozen nodes at most)."""
    out: list[cst.Name] = []
    stack: list[cst.CSTNode] = [node]
    while stack:
        n = stack.pop()
        if type(n) is cst.Name:
            out.append(n)
        else:
            stack.extend(child_nodes(n))
    return out


def _returned_def(fn: cst.FunctionDef) -> str:
    """The name of a function ``fn`` defines in its own body and returns (``def hook(...): ...;
    return hook``), or ""."""
    if type(fn.body) is not cst.IndentedBlock:
        return ""
    defs = {st.name.value for st in fn.body.body if type(st) is cst.FunctionDef}
    for st in _small_statements(fn.body.body):
        if type(st) is cst.Return and type(st.value) is cst.Name and st.value.value in defs:
            return st.value.value
    return ""


def _rng_module(value: cst.BaseExpression, qual: Callable[[cst.BaseExpression], str]) -> str:
    """The module a value holding a random generator draws like: a generator built by one of
    :data:`_RNG_CTORS` (also as either branch of a conditional, ``random.Random() if rng is None
    else rng``), or the module ``random`` / ``numpy.random`` itself; "" otherwise."""
    if type(value) is cst.IfExp:
        return _rng_module(value.body, qual) or _rng_module(value.orelse, qual)
    if type(value) is cst.BooleanOperation:  # `rng or random.Random()`
        return _rng_module(value.left, qual) or _rng_module(value.right, qual)
    if type(value) is cst.Call:
        func = value.func
        leaf = func.attr.value if type(func) is cst.Attribute else func.value if type(func) is cst.Name else ""
        return _RNG_CTORS.get(qual(func), "") if leaf in _RNG_CTOR_LEAVES else ""  # (resolve only a likely name)
    if type(value) in (cst.Name, cst.Attribute):
        leaf = value.attr.value if type(value) is cst.Attribute else value.value  # type: ignore[union-attr]
        name = qual(value) if leaf == "random" else ""
        return name if name in ("random", "numpy.random") else ""
    return ""


def _reads(text: str, name: str) -> bool:
    """Whether ``name`` occurs in ``text`` as a whole identifier."""
    return name in text and re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text) is not None


def _is_inplace_method(method: str) -> bool:
    return (len(method) > 1 and method.endswith("_") and not method.startswith("_")
            and method not in _NOT_DATA_INPLACE)


#: methods that return their receiver's data cast, copied or detached (same values, same length)
_CAST_METHODS = frozenset({"float", "half", "bfloat16", "double", "to", "type", "type_as", "detach", "clone",
                           "contiguous"})


def _arg_texts(node: cst.Call) -> tuple[str, ...]:
    """Dotted source names of a call's positional arguments and of the elements of list/tuple
    arguments, a subscript read by its base (``[past_key_value[0], key]`` ->
    ``("past_key_value", "key")``) and a cast or copy by what it casts
    (``prev_key_padding_mask.float()`` -> ``prev_key_padding_mask``)."""
    out: list[str] = []
    for a in node.args:
        if a.keyword is not None or a.star:
            continue
        v = a.value
        elems = [el.value for el in v.elements] if type(v) in (cst.List, cst.Tuple) else [v]  # type: ignore[attr-defined]
        for e in elems:
            while type(e) is cst.Call and type(e.func) is cst.Attribute and e.func.attr.value in _CAST_METHODS:
                e = e.func.value
            if type(e) is cst.Subscript:
                e = e.value
            text = _dotted(e) if type(e) in (cst.Name, cst.Attribute) else ""
            if text:
                out.append(text)
    return tuple(out)


def _bound_texts(texts: Sequence[str], last_value: Mapping[str, cst.BaseExpression]) -> tuple[str, ...]:
    """For each plain name in ``texts`` (:func:`_arg_texts`), the dotted source of what it was
    last bound to when that is a name, an attribute or a subscript of one (``ck`` of ``ck, cv =
    cache.cached_kv`` -> ``cache.cached_kv``)."""
    out: list[str] = []
    for text in texts:
        bound = last_value.get(text) if last_value and "." not in text else None
        if type(bound) is cst.Subscript:
            bound = bound.value
        if type(bound) in (cst.Name, cst.Attribute):
            out.append(_dotted(bound))
    return tuple(out)


def _is_input_device(value: cst.BaseExpression) -> bool:
    """``x.device`` of a value that is not ``self``'s (``input_ids.device``), or a ternary
    choosing between two such (``a.device if a is not None else b.device``)."""
    if type(value) is cst.IfExp:
        return _is_input_device(value.body) and _is_input_device(value.orelse)
    return type(value) is cst.Attribute and value.attr.value == "device" and not _is_self_attr(value)


def numpy_value(value: cst.BaseExpression, qual: Callable[[cst.BaseExpression], str]) -> bool:
    """``value`` is computed by NumPy: a ``numpy.*`` call, or a method chain or subscript on
    one (``np.rint(c.data).astype(np.uint8)``, ``np.pad(x, ((0, 1),))[:, 0]``)."""
    while True:
        t = type(value)
        if t is cst.Subscript:
            value = value.value  # type: ignore[attr-defined]
        elif t is cst.Call:
            func = value.func  # type: ignore[attr-defined]
            if qual(func).startswith("numpy."):
                return True
            if type(func) is not cst.Attribute:
                return False
            value = func.value
        else:
            return False
