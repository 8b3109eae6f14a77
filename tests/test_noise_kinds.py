"""Value kinds behind the false positives and wrong severities of the hand reviews of `core`
(docs/reviews/core-findings-2026-12-01.md): each kind has a flagged and a clean side, so that
fixing the kind cannot hide the real hazard next to it.

- numbers computed at trace time with numpy or torch from static values (``np.ceil(np.log1p(L))
  .astype("int").item()`` of a length, ``torch.tensor(scale).log2()`` of a Python float, one
  tensor's shape wrapped in a tensor) are static; ``.item()`` of a reduction of a tensor, and a
  tensor of many shapes that a port would index, stay tensor data;
- a numpy draw is a host number fixed at trace time: ML607 reports the draw, not a read-back;
- a plain assignment of a static value to ``self`` in forward is configuration (ML709, a
  rewrite), a tensor, a counter or a swapped module is state (ML506);
- a boolean mask flattened (``mask.flatten(1)``) or a global pooling result bound to a local
  and flattened carry no channel-major order (ML906 stays on conv features);
- a ``torch.BoolTensor`` parameter, its rows and ``.to(torch.bool)`` are masks;
- an optional parameter (``trailing_n=None``) as a slice bound is a count, not tensor data.
"""

from __future__ import annotations

from helpers_analysis import findings, lines_of, marked_lines


def _codes_by_line(src: str, catalog) -> dict[int, set[str]]:
    out: dict[int, set[str]] = {}
    for f in findings(src, catalog):
        out.setdefault(f.span.line, set()).update({f.code, *f.folds})
    return out


STATIC_NUMBERS = '''
import numpy as np
import torch
import torch.nn as nn

class ProbSparse(nn.Module):
    def forward(self, q, k, feature, original_size):
        L = k.size(1)
        log_l = np.ceil(np.log1p(L)).astype("int").item()
        u = min(5 * log_l, L)
        w = q.view(2, 3, u, L)
        size = feature.shape[-2:]
        for s1, s2 in zip(size, original_size):
            approx = float(s1) / float(s2)
            scale = 2 ** float(torch.tensor(approx).log2().round())  # expect: ML513
        lvl = -torch.log2(torch.tensor(scale, dtype=torch.float32)).item()
        im_shape = torch.tensor(q.shape[-2:])
        m = max(im_shape)
        if np.random.rand(1).item() < 0.5:  # expect: ML607
            q = q * 2
        bad = q.sum().item()  # expect: ML509
        n = int(torch.tensor(bad))  # expect: ML512
        return w[:, :n], lvl, m  # expect: ML209
'''


def test_numbers_computed_from_static_values_are_static(catalog) -> None:
    found = findings(STATIC_NUMBERS, catalog)
    flagged = {f.span.line for f in found if f.code.startswith(("ML1", "ML2", "ML5", "ML6"))}
    assert flagged == marked_lines(STATIC_NUMBERS)
    by_line = _codes_by_line(STATIC_NUMBERS, catalog)
    assert by_line[19] == {"ML607"}  # the numpy draw is ML607's, not a read-back (ML102)
    # a tensor of a static number read back: jax.jit still traces `jnp.asarray(approx)`, so
    # `float()` of it raises (checked with jax 0.10.2); a mechanical fix, not a data read (ML512)
    assert by_line[15] == {"ML513"}
    assert "ML209" in by_line[23]  # `w[:, :n]` with n read from the tensor


def test_a_tensor_of_many_shapes_stays_tensor_data(catalog) -> None:
    src = '''
import torch
import torch.nn as nn

class Deform(nn.Module):
    def forward(self, value, features):
        spatial_shapes = torch.as_tensor([f.shape[-2:] for f in features], dtype=torch.long)
        return value.split([h * w for h, w in spatial_shapes], dim=1)  # expect
'''
    assert lines_of(findings(src, catalog), "ML208") == marked_lines(src)


STATE_WRITES = '''
import torch
import torch.nn as nn

class Rel(nn.Module):
    def __init__(self):
        super().__init__()
        self.is_causal = False
        self.cached_len = None
        self.step = 0
        self.pe = None

    def forward(self, x, causal_mask=None):
        self.is_causal = causal_mask is not None  # expect: ML709
        n = x.shape[1]
        self.cached_len = n  # expect: ML709
        self.attn_map = None  # expect: ML709
        self.step = self.step + 1  # expect: ML506
        self.pe = torch.sin(x)  # expect: ML506, ML706
        return x
'''


def test_static_self_writes_are_configuration_and_state_writes_stay(catalog) -> None:
    found = findings(STATE_WRITES, catalog)
    for code in ("ML506", "ML709"):
        want = {i for i, line in enumerate(STATE_WRITES.splitlines(), 1) if "# expect" in line and code in line}
        assert lines_of(found, code) == want, code
    assert {f.severity for f in found if f.code == "ML709"} == {"medium"}


FLATTENS = '''
import torch
import torch.nn as nn
import torch.nn.functional as F

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.pool6 = nn.AdaptiveAvgPool2d((6, 6))
        self.fc = nn.Linear(8, 10)

    def forward(self, x, pixel_mask):
        h = self.conv(x)
        mask = F.interpolate(pixel_mask[None].float(), size=h.shape[-2:]).to(torch.bool)[0]
        flat_mask = mask.flatten(1)
        p = self.avgpool(h)
        p = torch.flatten(p, 1)
        q = self.pool6(h)
        q = torch.flatten(q, 1)  # expect
        return self.fc(p), q, flat_mask
'''


def test_flatten_of_masks_and_pooled_maps_is_layout_free(catalog) -> None:
    assert lines_of(findings(FLATTENS, catalog), "ML906") == marked_lines(FLATTENS)


MASKS = '''
import torch
import torch.nn as nn

class Emb(nn.Module):
    def forward(self, pixel_values: torch.FloatTensor, patch_attention_mask: torch.BoolTensor):
        position_ids = torch.full(size=(4, 16), fill_value=0)
        for batch_idx, p_attn_mask in enumerate(patch_attention_mask):
            position_ids[batch_idx][p_attn_mask.view(-1)] = torch.arange(16)  # expect
        position_ids[:, 0] = 1
        return position_ids
'''


def test_bool_tensor_parameters_and_their_rows_are_masks(catalog) -> None:
    found = findings(MASKS, catalog)
    assert lines_of(found, "ML204") == marked_lines(MASKS)
    assert [f.severity for f in found if f.code == "ML204"] == ["high"]


SLICES = '''
import torch.nn as nn

class Head(nn.Module):
    def forward(self, params, trailing_n=None, mask=None):
        out = params
        if trailing_n is not None:
            out = [p[:, -trailing_n:] for p in params]
        n = mask.sum().item()
        return out, params[0][:, :n]  # expect
'''


def test_optional_count_parameter_as_slice_bound_is_no_tensor_value(catalog) -> None:
    assert lines_of(findings(SLICES, catalog), "ML209") == marked_lines(SLICES)


LOOPS = '''
import torch

def lloyd(points, centers, tol: float = 1e-4):
    shift = torch.tensor(float("inf"))
    while shift > tol:  # expect
        updated = points.mean(0) + centers
        shift = (updated - centers).abs().max()
        centers = updated
    n = 0
    while n < 10:
        n += 1
    return centers
'''


def test_while_test_takes_the_kinds_its_body_carries_back(catalog) -> None:
    # a static number before the loop, a tensor after one pass: the test is a tensor condition
    assert lines_of(findings(LOOPS, catalog), "ML101") == marked_lines(LOOPS)


MASK_NAMES = '''
from typing import Optional
import torch
import torch.nn as nn

class SpecAugment(nn.Module):
    def forward(self, hidden_states, mask_time_indices: Optional[torch.FloatTensor] = None, unmasked_channel_indices=None):
        if mask_time_indices is not None:
            hidden_states[mask_time_indices] = 0  # expect
        keep = torch.tensor(hidden_states.sum(-1) > 0, dtype=torch.bool)
        hidden_states[keep] = 1  # expect
        mask = torch.zeros(3, 4, 5, 6)
        mask[:, unmasked_channel_indices, :, :] = 0
        mask_idx = hidden_states.argmax(-1)
        return hidden_states[mask_idx], mask
'''


def test_tensors_named_as_masks_and_bool_dtypes_index_by_mask(catalog) -> None:
    found = findings(MASK_NAMES, catalog)
    # (static values written through the masks: selects, ML218; ML204 is the compacted write)
    assert lines_of(found, "ML218") == marked_lines(MASK_NAMES)
    assert lines_of(found, "ML204") == set()
    assert lines_of(found, "ML203") == set()  # `hidden_states[mask_idx]`: positions, not a mask
    assert lines_of(found, "ML304") == {13} | marked_lines(MASK_NAMES)  # ML218 folds ML304


COUNTS = '''
import torch
import torch.nn as nn

class XL(nn.Module):
    def __init__(self):
        super().__init__()
        self.mem_len = 16

    def _update_mems(self, hids, mems, mlen, qlen):
        end_idx = mlen + max(0, qlen)
        beg_idx = max(0, end_idx - self.mem_len)
        return [h[beg_idx:end_idx] for h in hids]

    def _rescale(self, weight, block_id):
        return weight / (2 ** int(block_id // 6))

    def forward(self, x, mems):
        n = x.sum()
        if max(0, n) > 1:  # expect
            x = x * 2
        return self._update_mems([x], mems, mems[0].size(0), x.size(0)), self._rescale(x, 3)
'''


def test_length_and_id_parameters_are_python_ints(catalog) -> None:
    found = findings(COUNTS, catalog)
    assert {f.span.line for f in found if f.code.startswith("ML1") or f.code in ("ML512", "ML209")} == marked_lines(COUNTS)


PER_LEVEL = '''
import torch
import torch.nn as nn

class Head(nn.Module):
    def forward(self, logits, ctrness):
        logits_per_image = [lg[0] for lg in logits]
        ctr_per_image = [c[0] for c in ctrness]
        for logits_per_level, ctr_per_level in zip(logits_per_image, ctr_per_image):
            scores = torch.sqrt(torch.sigmoid(logits_per_level) * torch.sigmoid(ctr_per_level)).flatten()
            keep = scores > 0.05
            scores = scores[keep]  # expect
        return scores
'''


def test_math_on_elements_of_a_tensor_list_stays_tensor_math(catalog) -> None:
    # the list's elements are not followed (static container), so torch math on them must
    # not pass for math on Python numbers
    assert lines_of(findings(PER_LEVEL, catalog), "ML203") == marked_lines(PER_LEVEL)


OPTIONAL_SHAPES = '''
import torch
import torch.nn as nn

class Anchors(nn.Module):
    def generate_anchors(self, spatial_shapes=None, device="cpu"):
        if spatial_shapes is None:
            spatial_shapes = [[20, 20], [10, 10]]
        anchors = []
        for level, (height, width) in enumerate(spatial_shapes):
            anchors.append(torch.arange(end=height * width, device=device))
        return anchors

    def forward(self, x, shapes):
        out = []
        for h, w in shapes:
            out.append(x[:, : h * w])  # expect
        return out, self.generate_anchors()
'''


def test_iterating_an_optional_parameter_gives_no_host_values(catalog) -> None:
    found = findings(OPTIONAL_SHAPES, catalog)
    assert lines_of(found, "ML208") == set()
    assert lines_of(found, "ML209") == marked_lines(OPTIONAL_SHAPES)


def test_patch_height_and_width_parameters_are_sizes(catalog) -> None:
    src = '''
import torch.nn as nn
import torch.nn.functional as F

class DepthHead(nn.Module):
    def forward(self, hidden_states, patch_height, patch_width):
        h = F.interpolate(hidden_states, (int(patch_height * 14), int(patch_width * 14)), mode="bilinear")
        return h[:, :, : int(h.sum())]  # expect
'''
    found = findings(src, catalog)
    assert {f.span.line for f in found if f.code in ("ML512", "ML209")} == marked_lines(src)


def test_keyword_argument_dicts_are_no_tensors(catalog) -> None:
    src = '''
import torch
import torch.nn as nn

class Gen(nn.Module):
    def _prepare_kwargs(self, inputs_tensor, model_kwargs, guidance_scale=None):
        if "attention_mask" in model_kwargs:
            model_kwargs["attention_mask"] = torch.cat([model_kwargs["attention_mask"]] * 2, dim=0)
        inputs_tensor[:, 0] = 1  # expect
        return model_kwargs

    def forward(self, x):
        return self._prepare_kwargs(x, {})
'''
    assert lines_of(findings(src, catalog), "ML304") == marked_lines(src)


def test_a_module_level_partial_named_as_a_class_keeps_its_arguments(catalog) -> None:
    src = '''
from functools import partial
import torch.nn as nn

_GELU = partial(nn.GELU, approximate='tanh')
_EXACT = partial(nn.GELU)

class Net(nn.Module):
    def __init__(self, act_layer=None, other=None):
        super().__init__()
        act_layer = act_layer or _GELU
        other = other or _EXACT  # expect
        self.act = act_layer()
        self.other = other()
'''
    assert lines_of(findings(src, catalog), "ML902") == marked_lines(src)


SETTER = '''
import torch
import torch.nn as nn

class Head(nn.Module):
    @property
    def end2end(self):
        return getattr(self, "_end2end", False)

    @end2end.setter
    def end2end(self, value):
        if value and getattr(self, "one2one", None) is None:
            print("no one-to-one head")
        self._end2end = value

    def forward(self, x, scale):
        if scale.sum() > 0:  # expect
            x = x * scale
        return x
'''


def test_a_property_setters_value_is_what_assignments_pass(catalog) -> None:
    """A module's property setter runs on attribute assignment (``head.end2end = True``): its
    ``value`` is not a tensor argument of the module, while ``forward``'s stay tensors."""
    found = findings(SETTER, catalog)
    assert {f.span.line for f in found if f.code.startswith("ML1")} == marked_lines(SETTER)
