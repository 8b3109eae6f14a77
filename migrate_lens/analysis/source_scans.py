"""Scans of a file's text, done by the engine before the walk (regular expressions, no
CST): how the file's classes initialise their ``nn.Parameter`` attributes
(:func:`parameter_inits`) and whether the file may set an embedding's ``padding_idx``
(:func:`sets_padding_idx`); the visitor holds the results.
"""

from __future__ import annotations

import re

_PARAMETER_INIT = re.compile(
    r"self\.(\w+)\s*=\s*(?:nn\.|torch\.nn\.)?Parameter\(\s*([^\n]*)")


_NAMED_VALUE = re.compile(
    r"^torch\.tensor\(\s*([\w.]+)\s*[,)]|^([\w.]+)\s*\*\s*torch\.ones\(|^torch\.ones\([^()]*\)\s*\*\s*([\w.]+)"
    r"|^torch\.full\([^,]+,\s*([\w.]+)\s*[,)]")


def parameter_inits(source: str) -> dict[str, frozenset[str]]:
    """How the file's classes build each ``self.<attr> = nn.Parameter(<value>)`` (on one line),
    by attribute name: "0" (``torch.zeros(...)``), "1" (``torch.ones(...)``), "name:<leaf>" (a
    value named by the dotted name ending in ``<leaf>``: ``torch.tensor(config.init_value)``,
    ``init_value * torch.ones(d)``, ``torch.full(shape, v)``), "?" otherwise. Read from the
    text (no parse): an init fill elsewhere in the file that writes that same value again
    (``module.mask_token.data.zero_()`` in ``_init_weights``) restates the constructor."""
    if "Parameter(" not in source:
        return {}
    out: dict[str, set[str]] = {}
    for m in _PARAMETER_INIT.finditer(source):
        value = m.group(2).strip()
        if value.startswith("torch.zeros("):
            sig = "0"
        elif value.startswith("torch.ones(") and "*" not in value:
            sig = "1"
        else:
            named = _NAMED_VALUE.match(value)
            leaf = next((g for g in named.groups() if g), "") if named else ""
            sig = f"name:{leaf.rsplit('.', 1)[-1]}" if leaf else "?"
        out.setdefault(m.group(1), set()).add(sig)
    return {k: frozenset(v) for k, v in out.items()}


_PADDING_SET = re.compile(r"(?<!\.)\bpadding_idx\s*=(?!=)|\.padding_idx\s*=(?!=)|Embedding\([^\n]*pad")


def sets_padding_idx(source: str) -> bool:
    """Whether the file's text may give an embedding a ``padding_idx``: a ``padding_idx=``
    keyword or assignment, or an ``Embedding(`` call mentioning a pad id on its line, or it
    builds other files' models. When it does not, ``if module.padding_idx is not None:
    module.weight.data[module.padding_idx].zero_()`` in its ``_init_weights`` never runs (HF's
    codegen, bloom, detr)."""
    return "padding_idx" not in source or _PADDING_SET.search(source) is not None or \
        _COMPOSES_MODELS.search(source) is not None


#: a file that builds other files' models (``AutoModel.from_config``, ``from ..llama.modeling_llama
#: import``): its ``_init_weights`` also runs on their embeddings, which may have a ``padding_idx``
_COMPOSES_MODELS = re.compile(r"\bAutoModel|^from \.\.\w+\.modeling_\w+ import", re.MULTILINE)
