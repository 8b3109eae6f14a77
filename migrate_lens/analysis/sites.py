"""Sites: the normalized observations the single traversal hands to matchers.

A site is what a rule can match on (a call, a condition, an assignment, a class base, ...),
with names already resolved and value kinds already inferred (see :mod:`.kinds`). Sites live
only inside one file's analysis; they hold a libcst node for the position and never leave the
worker.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import libcst as cst

#: Site kinds the visitor emits; each matcher consumes exactly one of them.
SITE_KINDS = (
    "call", "condition", "subscript-assign", "aug-assign", "subscript-read", "self-write",
    "global-write", "attribute-read", "attribute-write", "class", "import", "decorator",
    "loop", "try", "name-ref", "suppression", "source-file", "view-write",
)


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
