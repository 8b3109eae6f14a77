"""In-place writes through rows of a tensor bound by a ``for`` loop (ML310, write-through-view):
``for t, pad, m in zip(tensors, padded, masks): pad[:n].copy_(t); m[:n] = False`` fills
``padded`` and ``masks`` in PyTorch, because iterating a tensor yields views of its rows; a JAX
port that rebinds ``pad = pad.at[...].set(t)`` leaves ``padded`` as it was, silently
(transformers' ``_pad_images_to_max_in_batch``, found in the seeded core review #32)."""

from __future__ import annotations

from helpers_analysis import findings

_PAD = '''
import torch
from torch import nn


class Loss(nn.Module):
    def pad(self, tensors: list[torch.Tensor], b: int, h: int, w: int):
        padded = torch.zeros((b, h, w))
        masks = torch.ones((b, h, w), dtype=torch.bool)
        for tensor, pad, mask in zip(tensors, padded, masks):
            pad[: tensor.shape[0], : tensor.shape[1]].copy_(tensor)
            mask[: tensor.shape[0], : tensor.shape[1]] = False
        return padded, masks

    def rows(self, x: torch.Tensor):
        out = torch.zeros_like(x)
        for i, row in enumerate(out):
            row.add_(1)
        return out

    def fresh(self, tensors: list[torch.Tensor]):
        total = []
        for tensor in tensors:
            t = tensor.clone()
            t[0] = 0
            total.append(t)
        return total
'''


def test_writes_into_rows_of_a_tensor_are_view_writes(catalog) -> None:
    got = {(f.span.line, f.code) for f in findings(_PAD, catalog)}
    assert {(11, "ML310"), (12, "ML310"), (18, "ML310")} <= got, sorted(got)
    messages = [f.message for f in findings(_PAD, catalog) if f.code == "ML310"]
    assert any("`padded`" in m for m in messages) and any("`masks`" in m for m in messages)


def test_rows_of_a_python_list_and_fresh_copies_are_no_views(catalog) -> None:
    """``for tensor in tensors`` over a list argument, then a write into a clone: no base
    tensor shares the write."""
    got = {(f.span.line, f.code) for f in findings(_PAD, catalog)}
    assert not {c for line, c in got if line >= 21 and c == "ML310"}, sorted(got)
