"""Runtime fact kinds and the static finding categories each can confirm.

A runtime fact (:mod:`migrate_lens.probe.record`) has one ``kind``; the cross-check
(:mod:`migrate_lens.probe.crosscheck`) confirms a static finding at the same source line when the
finding's category (``migrate_lens.models.CATEGORIES``, the rule catalog's vocabulary) is one the
kind can show. The first category listed is the kind's own: a runtime-only fact is reported in it.

No torch import here: the scan merges probe results (``scan --probe-results``) without torch.
"""

from __future__ import annotations

#: kind -> (what it is, in one phrase; the categories it confirms, its own first).
KINDS: dict[str, tuple[str, tuple[str, ...]]] = {
    # an aten op whose schema writes an argument that the Python-level call was given
    "in-place": ("in-place write to a tensor (aten schema marks the argument written)",
                 ("in-place-mutation", "module-state", "data-dependent-shape")),
    # nondeterministic_seeded tag (bernoulli, rand*, dropout in train mode, multinomial...)
    "random": ("op drawing from the global PRNG (nondeterministic_seeded)", ("rng",)),
    # dynamic_output_shape tag (nonzero, unique, masked_select...) or boolean-mask indexing
    "dynamic-shape": ("output shape depends on tensor values", ("data-dependent-shape", "dynamic-control-flow")),
    # aten::_local_scalar_dense or a Python-level host read (.item(), bool(t), .tolist(), .numpy())
    "host-sync": ("tensor value read on the host (device sync; a tracer has no value)",
                  ("side-effect", "dynamic-control-flow", "data-dependent-shape")),
    # an op outside the aten/prims namespaces (torch.library, torch.ops.<ns>, C++ extensions)
    "custom-op": ("op outside the aten/prims namespaces", ("custom-op",)),
    # Tensor.to(device)/.cuda()/.cpu()/.pin_memory(), and factories given device= by user code
    "device-transfer": ("explicit device placement or transfer", ("device",)),
    # torch._dynamo.explain: a graph break with its reason
    "graph-break": ("torch._dynamo graph break", ("dynamic-control-flow", "side-effect", "data-dependent-shape",
                                                  "custom-op", "rng", "module-state", "in-place-mutation", "other")),
    # torch.export.export(strict=False) failed on a guard on a data-dependent value
    "export-guard": ("torch.export guard on a data-dependent value", ("dynamic-control-flow", "data-dependent-shape",
                                                                      "side-effect")),
    # a parameter or buffer whose value or identity changed across the forward pass
    "state-write": ("parameter or buffer changed by the forward pass", ("module-state", "in-place-mutation")),
    # Module.__setattr__ / register_buffer / register_parameter called during forward
    "attr-write": ("module attribute written during forward", ("side-effect", "module-state")),
    # a module hook (forward / forward-pre / backward) that ran, or a tensor hook registered in forward
    "hook": ("hook that fired during forward", ("side-effect",)),
}

#: Static categories the probe can observe at all (layout/numerics, ecosystem-dependency and
#: other are not runtime events: their findings are neither confirmed nor contradicted).
OBSERVABLE_CATEGORIES: frozenset[str] = frozenset(c for _, cats in KINDS.values() for c in cats if c != "other")


def categories(kind: str) -> tuple[str, ...]:
    """Categories a fact of ``kind`` confirms, its own first. Raises KeyError for an unknown kind."""
    return KINDS[kind][1]


def graph_break_category(reason: str) -> str:
    """The static category a dynamo graph-break ``reason`` (its text) falls in."""
    low = reason.lower()
    if "dynamic shape operator" in low or "nonzero" in low or "data-dependent output shape" in low:
        return "data-dependent-shape"
    if any(w in low for w in ("print", "logging", "logger", "warnings.warn", ".item", "tolist", "numpy", "time.",
                              "builtin")):
        return "side-effect"
    if "generic_jump" in low or "data-dependent" in low or "data dependent" in low or "jump" in low:
        return "dynamic-control-flow"
    if "custom op" in low or "torch.ops" in low or "autograd.function" in low:
        return "custom-op"
    if "random" in low or "rng" in low:
        return "rng"
    return "other"
