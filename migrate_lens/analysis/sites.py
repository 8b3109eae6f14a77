"""Sites: the normalized observations the single traversal hands to matchers.

A site is what a rule can match on (a call, a condition, an assignment, a class base, ...),
with names already resolved and value kinds already inferred (see :mod:`.kinds`). Sites live
only inside one file's analysis; they hold a libcst node for the position and never leave the
worker.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # libcst is not imported at run time: the catalog's validation reads
    import libcst as cst  # this package's matchers without loading the parser

#: Sentinel: an expression that is not a Python literal (:func:`visitor.literal`).
NOT_LITERAL = object()

#: Site kinds the visitor emits; each matcher consumes exactly one of them.
SITE_KINDS = (
    "call", "condition", "subscript-assign", "aug-assign", "subscript-read", "self-write",
    "global-write", "attribute-read", "attribute-write", "class", "import", "decorator",
    "loop", "try", "name-ref", "suppression", "source-file", "view-write", "argument-write",
    "host-state-read", "host-read-use", "cache-length-use",
    "method-def", "argument-inplace", "argument-inplace-returning", "memoized-function", "layer-call",
    "kernel-launch", "optimizer-write", "attribute-delete",
)


class LazyData(dict):  # type: ignore[type-arg]
    """``Site.data`` whose costlier entries are computed on first read.

    ``fns`` maps a key to a function of ``source`` (one table shared by every site of a kind,
    so that a site costs one object, not one closure per key); :meth:`get`, ``[]`` and ``in``
    see those keys as present, compute them once (``fns[key](source)``) and keep the value.
    A call site's extras (argument names, padding uniformity, device hints, ...) are read by
    few matchers and only for a few callees, so most of them are never computed. Matchers
    read ``data`` only through ``get``, ``[]`` and ``in``; a lazy key is never written
    directly (its first read would not see the written value)."""

    __slots__ = ("_source", "_fns")

    def __init__(self, eager: dict[str, Any], source: Any, fns: dict[str, Callable[[Any], Any]]) -> None:
        dict.__init__(self, eager)
        self._source = source
        self._fns = fns

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        value = dict.get(self, key, _ABSENT)
        if value is not _ABSENT:
            return value
        fn = self._fns.get(key)
        if fn is None:
            return default
        value = self[key] = fn(self._source)
        return value

    def __getitem__(self, key: str) -> Any:
        value = dict.get(self, key, _ABSENT)
        if value is not _ABSENT:
            return value
        fn = self._fns.get(key)
        if fn is None:
            raise KeyError(key)
        value = self[key] = fn(self._source)
        return value

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, key) or key in self._fns


_ABSENT = object()


@dataclass(slots=True)
class Site:
    """One observation.

    - ``kind``: one of :data:`SITE_KINDS`;
    - ``node``: the libcst node to report (position and snippet);
    - ``context``: ``traced`` | ``init`` | ``function`` | ``host`` of the enclosing code;
    - ``symbol``: dotted enclosing scope;
    - ``name``: the resolved dotted name (callee, base class, decorator, import, attribute);
    - ``method``: the attribute name for method calls (``x.add_(y)`` -> ``add_``), else "";
    - ``receiver``: the value kind of the method's receiver (``T``, ``B``, ``H``, ``S``, ``M``, ``U``);
    - ``data``: matcher-specific extras (positional arg kinds and literals, keyword literals,
      the condition's construct, whether the index is a boolean mask, ...).
    """

    kind: str
    node: cst.CSTNode
    context: str
    symbol: str
    name: str = ""
    method: str = ""
    receiver: str = ""
    data: dict[str, Any] = field(default_factory=dict)
    #: ``"<key>=<kind>"``: the site holds under that hypothesis on a symbolic input only
    #: (``Finding.requires``)
    requires: tuple[str, ...] = ()
