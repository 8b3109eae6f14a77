"""Queries on key/value caches: calls of a cache's length (``get_seq_length``), an item
of a cache container (``past_key_values[0][0].shape[-2]``) and cache operands of a
concatenation; used by the state writes that grow a cache and the reads of its length.
"""

from __future__ import annotations

import re

import libcst as cst

from migrate_lens.analysis.bindings import dotted as _dotted

#: Methods of a KV cache object that return its current length (transformers ``Cache``).
_CACHE_LENGTH_METHODS = frozenset({"get_seq_length", "get_usable_length", "get_past_seen_tokens"})


def _is_cache_length(node: cst.Call) -> bool:
    """``past_key_values.get_seq_length()``: a cache's current length, read in the step."""
    return type(node.func) is cst.Attribute and node.func.attr.value in _CACHE_LENGTH_METHODS


#: Names of containers that hold a growing key/value cache (``kv_cache``, ``past_key_values``,
#: ``layer_past``, ``self.cache``); not ``cache_position``/``cache_index`` (positions of the new
#: tokens), nor Transformer-XL's ``mems`` (a window of fixed length, see ML017).
_CACHE_CONTAINER = re.compile(r"^(_?(\w+_)?(kv_?)?caches?|past|past_key_values?|layer_past|past_kv|present)$")


_ITEM_BUILTINS = frozenset({"next", "iter", "list", "tuple"})


def _cache_item_length(node: cst.BaseExpression) -> str:
    """A length read off a tensor *held in* a cache container: ``next(iter(kv_cache.values()))
    .shape[1]`` (whisper), ``past_key_values[0][0].shape[-2]`` (legacy tuple caches),
    ``self.cache["key"].size(1)``: how many tokens the cache holds, which grows every decoding
    step (a growing cache's shape is its length; a fixed-size cache is indexed by an explicit
    position instead). Returns the container's text, "" if ``node`` is no such read. A shape
    read off a tensor named like a cache itself (``k_cache.shape[2]``) is left out: a
    preallocated buffer has a static shape."""
    if type(node) is cst.Subscript and type(node.value) is cst.Attribute and node.value.attr.value == "shape":
        held = node.value.value
    elif type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "size" and node.args:
        held = node.func.value
    else:
        return ""
    # `c[i][0]`, `next(iter(c.values()))`, `list(c.values())[0]`: an item of the container `c`
    item = False
    container = held
    while True:
        t = type(container)
        if t is cst.Subscript:
            container, item = container.value, True
        elif t is cst.Call and type(container.func) is cst.Name and container.func.value in _ITEM_BUILTINS \
                and container.args:
            item = item or container.func.value == "next"
            container = container.args[0].value
        elif t is cst.Call and type(container.func) is cst.Attribute and container.func.attr.value == "values":
            container = container.func.value
        else:
            break
    if not item:
        return ""
    if type(container) is cst.Name:
        leaf = container.value
    elif type(container) is cst.Attribute:
        leaf = container.attr.value
    else:
        return ""
    return _dotted(container) if _CACHE_CONTAINER.match(leaf) else ""


def _cache_operand(e: cst.BaseExpression) -> bool:
    """``use_cache``, ``self.use_cache`` or ``past_key_values is None``: an operand about the
    decoding cache (:meth:`FileVisitor._mode_glue`)."""
    if type(e) is cst.UnaryOperation:
        e = e.expression
    if type(e) is cst.Comparison and len(e.comparisons) == 1:
        e = e.left
    leaf = e.attr.value if type(e) is cst.Attribute else e.value if type(e) is cst.Name else ""
    return leaf in ("use_cache", "past_key_values", "past_key_value")
