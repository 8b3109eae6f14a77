"""Whether a compiled kernel blocks the path that runs: a kernel whose file also holds a pure
PyTorch fallback is a redesign (port the fallback), not a blocker.

Real model files often load a CUDA kernel *and* keep the reference implementation beside it:
``rwkv_linear_attention_cpu`` next to the ``wkv`` kernel (transformers RWKV), the DETA
``multi_scale_deformable_attention`` used under ``disable_custom_kernels``, torchvision's
pure-Python ``_roi_align`` next to ``torch.ops.torchvision.roi_align``. A rule whose file names
a ``fallback`` code (``fallback = "ML413"``) has its findings re-coded to that rule in the
per-file stage when the file defines such a function. What counts as a fallback, from the
file's own function names (:data:`FALLBACK_SUFFIX`): a ``*_cpu`` / ``*_fallback`` /
``*_pytorch`` / ``*_torch`` / ``*_python`` / ``*_naive`` / ``*_reference`` / ``*_ref`` /
``*_native`` / ``*_eager`` function, ``_<op>`` for ``torch.ops.<ns>.<op>``, or the snake-case
name of the extension loaded (``load("MultiScaleDeformableAttention", ...)``) or of the handle one
of its kernels is called on (``MultiScaleDeformableAttention.ms_deform_attn_forward(...)``).

Source: the expert review of the core scan (``shared/reviews/core-findings-review.md``, "Are
the blocked statuses justified?": 4 of 5 critical kernels there have such a fallback).

The other direction, :func:`drop_kernel_routes`: a function that calls an optional kernel
(ML414: imported under an availability check or an ImportError handler, so the file runs
without it) and that its file calls only inside a kernel gate is the fast route entered only
when the kernel is installed (``if is_fast_path_available and "cuda" in ...: return
self.cuda_kernels_forward(...)``, else ``self.torch_forward(...)``; or after ``if not
is_fast_path_available: raise``; the gate tests: ``visitor._kernel_gate``,
``visitor._asserts_kernel``). A port drops that route, so
what else is in it (``if cache_position[0] > 0`` before the kernel's state update, in-place
ops on its inputs, pads for its layout) is no obstacle of the port; its kernel uses stay
reported. Counted on core (main 53de0ed): 45 findings in the ten mamba-family
``cuda_kernels_forward`` methods, each with a ``torch_forward``/``slow_forward`` twin that
holds the same obstacles where the port does follow them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from migrate_lens.models import Finding, FunctionFact, ImportFact

if TYPE_CHECKING:
    from migrate_lens.catalog import Catalog, Rule

#: Function-name endings that mark a pure-PyTorch reference implementation.
FALLBACK_SUFFIX = re.compile(r"_(cpu|fallback|pytorch|torch|python|naive|reference|ref|native|eager)$")
_OP = re.compile(r"torch\.ops\.\w+\.(\w+)")
_EXT_NAME = re.compile(r"""\(\s*(?:name\s*=\s*)?["']([A-Za-z_][A-Za-z0-9_]*)["']""")
#: the handle a kernel is called on: ``MultiScaleDeformableAttention.ms_deform_attn_forward(``
#: (not an ``autograd.Function``'s ``.apply(``: the class names no extension)
_HANDLE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\.(?!apply\s*\()[A-Za-z_][A-Za-z0-9_]*\s*\(")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _snake(name: str) -> str:
    return _CAMEL.sub("_", name).lower()


def fallback_for(snippet: str, leaves: frozenset[str]) -> str:
    """The name of a function among ``leaves`` (this file's function names, last dotted part)
    that is a pure-PyTorch route for the kernel in ``snippet``, or ""."""
    op = _OP.search(snippet)
    if op and f"_{op.group(1)}" in leaves:
        return f"_{op.group(1)}"
    ext = _EXT_NAME.search(snippet) or _HANDLE.search(snippet)
    if ext and _snake(ext.group(1)) in leaves:
        return _snake(ext.group(1))
    for leaf in sorted(leaves):
        if FALLBACK_SUFFIX.search(leaf):
            return leaf
    return ""


_BY_DIGEST: dict[str, tuple[dict[str, "Rule"], frozenset[str]]] = {}


def _fallback_rules(catalog: "Catalog") -> tuple[dict[str, "Rule"], frozenset[str]]:
    hit = _BY_DIGEST.get(catalog.digest)
    if hit is None:
        rules = catalog.by_code()
        hit = _BY_DIGEST[catalog.digest] = (rules, frozenset(c for c, r in rules.items() if r.fallback))
    return hit


def reroute_kernels(findings: Iterable[Finding], functions: Iterable[FunctionFact],
                    catalog: "Catalog") -> list[Finding] | None:
    """``findings`` with each finding of a rule that names a ``fallback`` code re-coded to
    that rule (its message, with the fallback named, and its severity for the context) when
    :func:`fallback_for` finds a route among ``functions`` (this file's). None when no
    finding is of such a rule (nothing to do)."""
    rules, codes = _fallback_rules(catalog)
    items = list(findings)
    if not codes or not any(f.code in codes for f in items):
        return None
    leaves = frozenset(fn.qualname.rsplit(".", 1)[-1] for fn in functions)
    out: list[Finding] = []
    for f in items:
        if f.code in codes:
            target = rules[rules[f.code].fallback]
            route = fallback_for(f.snippet, leaves)
            if route:
                detail = f"{f.snippet.split('(', 1)[0].strip()} (fallback `{route}` in this file)"
                f = replace(f, code=target.code, message=target.message.replace("{detail}", detail),
                            severity=target.severity_in("traced" if f.traced_only else f.context))
        out.append(f)
    return out


def drop_kernel_routes(findings: Iterable[Finding], routes: Iterable[str],
                       catalog: "Catalog") -> list[Finding] | None:
    """``findings`` without those made in a kernel route (``routes``: qualnames of functions
    that call an optional kernel and that their file calls only under a kernel gate,
    ``FileVisitor.kernel_routes``) or in a
    function nested in one, except the findings of ``custom-op`` rules (the kernel uses
    themselves, ML414) whose matcher does not set ``skip_dropped_route``. None when there is
    no route (nothing to do)."""
    routes = tuple(routes)
    if not routes:
        return None
    rules = catalog.by_code()
    prefixes = tuple(r + "." for r in routes)
    keep_all = frozenset(routes)

    def in_route(symbol: str) -> bool:
        return symbol in keep_all or symbol.startswith(prefixes)

    # (a custom-op rule whose matcher sets `skip_dropped_route` notes a use to re-target, ML421:
    # a route the port drops has nothing to re-target, while the kernel's own findings stay)
    return [f for f in findings if not in_route(f.symbol) or
            (f.code in rules and rules[f.code].category == "custom-op"
             and rules[f.code].matcher.param("skip_dropped_route") is not True)]


def fallback_evidence(finding: Finding, imports: Iterable[ImportFact], functions: Iterable[FunctionFact],
                      library: str = "") -> str:
    """How the code at ``finding`` (a custom-op or compiled-library finding) runs without the
    kernel, from its file's facts (``imports``, ``functions``), or "" when nothing shows it:

    - ``"optional import"``: the file imports ``library`` (the top-level package of a
      dependency; "" for a per-site finding, whose construct is not a library) inside ``try: ...
      except ImportError`` (the code has a path for when it is missing; torch itself never is);
    - ``"pure-PyTorch route `name`"``: for a per-site finding (no ``library``),
      :func:`fallback_for` finds a reference implementation among the file's functions (the same
      test that re-codes kernels to ML413);
    - ``"route without the kernel"``: the finding is already ML413 (kernel-with-pytorch-route);
    - ``"optional import"`` too for ML414 (optional-kernel-library: imported under an
      availability check such as ``if is_mamba_ssm_available():`` or an ImportError handler).
    """
    if finding.code == "ML413":
        return "route without the kernel"
    if finding.code == "ML414":
        return "optional import"
    if library and library != "torch" and any(i.guarded and (i.module or "").split(".")[0] == library
                                               for i in imports):
        return "optional import"
    if library:
        # a library's import is not one kernel call: a `*_cpu` function elsewhere in the file
        # (RWKV's wkv fallback beside a bitsandbytes import) says nothing about it
        return ""
    route = fallback_for(finding.snippet, frozenset(fn.qualname.rsplit(".", 1)[-1] for fn in functions))
    return f"pure-PyTorch route `{route}`" if route else ""


def drop_launcher_findings(findings: Iterable[Finding], launchers: Iterable[str],
                           catalog: "Catalog") -> list[Finding] | None:
    """``findings`` without those of rules that mark themselves part of a kernel's port
    (matcher param ``skip_in_kernel_launcher``: memory-layout queries, ML918) made in a function
    that launches a Triton-style kernel (``launchers``, ``FileVisitor.kernel_launchers``) or in a
    function nested in one. Such a function is the kernel's host wrapper: it reads strides and
    pointers only to hand them to the kernel, and a port replaces it with the kernel by one
    ``pallas_call`` (priced by the kernel's own finding, ML408), where no stride exists. Counted
    on mamba_ssm (state-spaces/mamba e9594ce): 1,098 ``.stride()`` findings in its launchers.
    None when nothing is to do."""
    launchers = tuple(launchers)
    if not launchers:
        return None
    codes = frozenset(r.code for r in catalog.rules
                      if dict(r.matcher.params).get("skip_in_kernel_launcher") is True)
    if not codes:
        return None
    keep_all = frozenset(launchers)
    prefixes = tuple(q + "." for q in launchers)
    return [f for f in findings if f.code not in codes or not (f.symbol in keep_all or f.symbol.startswith(prefixes))]
