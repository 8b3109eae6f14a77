"""Kinds of error found by this stop's reviews (a 100-finding review of a fresh ``core`` scan
docs/reviews/core-findings-2026-12-06-stop35.md; openai-whisper and tianshou), each with a flagged and a clean side:

- a branch that loads another framework's checkpoint into the PyTorch model (``if from_tf:`` in
  ``from_pretrained``: TF -> PyTorch round trip, ``.data =`` pokes) is no port work: a JAX port loads
  its own weights (kind 4, ``encoder_decoder:293``);
- the mode flag read beside an activation-checkpointing flag (kind 2) and the link of a module's
  own bias into its decoder (kind 6) are covered by ML701's and ML720's rule examples.
"""

from __future__ import annotations

from helpers_analysis import package_findings

FROM_TF = '''
# file: pkg/model.py
import torch
import torch.nn as nn


class EncoderDecoder(nn.Module):
    def __init__(self, d: int = 8):
        super().__init__()
        self.proj = nn.Linear(d, d)

    def forward(self, x):
        return self.proj(x)

    @classmethod
    def from_pretrained(cls, path, *args, **kwargs):
        from_tf = kwargs.pop("from_tf", False)
        model = cls()
        if from_tf:
            w = torch.load(path + "/tf.bin")
            model.proj.weight.data = w.contiguous()
            return model
        if kwargs.get("shrink"):
            model.proj.weight.data = model.proj.weight.data[:4]  # expect: ML307
        return model
'''


def _codes_by_line(source: str, catalog) -> dict[int, set[str]]:
    out: dict[int, set[str]] = {}
    for f in package_findings(source, catalog):
        out.setdefault(f.span.line, set()).add(f.code)
    return out


def test_a_foreign_checkpoint_branch_is_no_port_work(catalog) -> None:
    lines = FROM_TF.splitlines()
    got = _codes_by_line(FROM_TF, catalog)
    tf_line = next(i for i, t in enumerate(lines, 1) if "w.contiguous()" in t)
    kept = next(i for i, t in enumerate(lines, 1) if "expect: ML307" in t)
    assert "ML307" not in got.get(tf_line, set())
    assert "ML307" in got.get(kept, set())


def test_cache_hooks_installed_by_host_code_keep_the_decoder_a_redesign(catalog) -> None:
    """openai-whisper review K4: the decoding loop (host code) installs forward hooks whose
    callback replaces each projection's output with the grown cache. The callback runs inside
    every forward, so the registration is judged where the hook runs (ML508 ``anchor = "use"``):
    high, and the decoder is a redesign (it was ``mechanical`` with a host/low finding)."""
    from helpers_engine_v2 import ROOT, scan_package

    project = scan_package(ROOT / "contexts" / "host_installed_cache_hooks", catalog)
    hooks = [f for f in project.findings if f.code == "ML508"]
    assert [(f.span.line, f.severity) for f in hooks] == [(31, "high")]
    units = {m.qualname: m.status for m in project.modules}
    assert units["host_installed_cache_hooks.model.Decoder"] == "redesign"


def test_a_subscripted_generic_base_is_the_module_base(catalog) -> None:
    """tianshou review K1: ``class Net(NetBase[Any])`` with ``NetBase(nn.Module, Generic[T])`` in
    another file is an ``nn.Module`` unit whose forward is traced (it was no unit, its data-
    dependent branch only ``function``)."""
    from helpers_engine_v2 import ROOT, scan_package

    project = scan_package(ROOT / "bindings" / "generic_module_base", catalog)
    units = {m.qualname: m.status for m in project.modules}
    assert units.get("generic_module_base.nets.Net") == "redesign"
    assert {(f.code, f.context) for f in project.findings if f.path.endswith("nets.py")} == {("ML101", "traced")}
