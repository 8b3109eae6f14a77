"""Parity tests: generated stubs against their PyTorch modules (imports and runs code: verify marker)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytestmark = pytest.mark.verify

for _mod in ("torch", "jax", "flax"):
    if importlib.util.find_spec(_mod) is None:
        pytest.skip(f"{_mod} is not installed", allow_module_level=True)

from migrate_lens.stubs import discover_targets, generate_stubs  # noqa: E402
from migrate_lens.stubs.apimap import ApiRenames  # noqa: E402
from migrate_lens.stubs.verify import InputSpec, compare, make_inputs, parse_input_spec, verify_target  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
SRC = REPO / "fixtures" / "stubs" / "src"


@pytest.fixture(scope="module")
def fixture_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("stubs")
    generate_stubs(SRC, discover_targets(SRC), out, api=ApiRenames())
    return out


CASES = [
    ("tiny/mlp.py", "MLP", dict(dim=16, hidden=32), [InputSpec((2, 5, 16))]),
    ("tiny/mlp.py", "SelfAttention", dict(dim=16, heads=2), [InputSpec((2, 6, 16))]),
    ("tiny/mlp.py", "Stack", dict(dim=16), [InputSpec((2, 6, 16))]),
    ("tiny/convnet.py", "ConvNet", {}, [InputSpec((2, 3, 32, 32))]),
    ("tiny/convnet.py", "Embedder", {}, [InputSpec((2, 7), "int64", 0, 20)]),
]


@pytest.mark.parametrize(("path", "cls", "kwargs", "specs"), CASES, ids=[c[1] for c in CASES])
def test_fixture_stub_matches_pytorch(fixture_dir, path, cls, kwargs, specs):
    res = verify_target(SRC, fixture_dir, path, cls, kwargs=kwargs, inputs=make_inputs(specs, 1), tolerance=1e-5)
    assert res.status == "pass", res.reason
    assert res.runs and res.jit and res.max_abs_error <= 1e-5


def test_untranslatable_module_reports_error_with_reason(fixture_dir):
    res = verify_target(SRC, fixture_dir, "tiny/mlp.py", "Unsupported", inputs=make_inputs([InputSpec((2, 4))], 0))
    assert res.status == "error" and not res.runs
    assert res.reason == "run stub: NotImplementedError: torch.nonzero is not translated (see the TODO(migrate-lens) above its placeholder)"


def test_compare_reports_shape_mismatch():
    import jax.numpy as jnp
    import torch

    abs_err, _, why = compare(torch.zeros(2, 3), jnp.zeros((3, 2)))
    assert why == "output 0: shape PyTorch (2, 3), stub (3, 2)" and abs_err == float("inf")


def test_parse_input_spec():
    assert parse_input_spec("2x3x8x8") == InputSpec((2, 3, 8, 8))
    assert parse_input_spec("2x8:int64:0:99") == InputSpec((2, 8), "int64", 0, 99)
    with pytest.raises(ValueError):
        parse_input_spec("2,3")


@pytest.fixture(scope="module")
def sam_root(tmp_path_factory):
    """A tree holding segment-anything 1.0's source: the installed package (the `verify` extra
    pins segment-anything==1.0) copied without importing it."""
    import importlib.util
    import shutil

    spec = importlib.util.find_spec("segment_anything")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("segment-anything is not installed (the verify extra pins segment-anything==1.0)")
    root = tmp_path_factory.mktemp("samsrc")
    shutil.copytree(Path(list(spec.submodule_search_locations)[0]), root / "segment_anything",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return root


@pytest.fixture(scope="module")
def sam_dir(tmp_path_factory, sam_root):
    out = tmp_path_factory.mktemp("sam")
    targets = [t for t in discover_targets(sam_root)
               if t.path in ("segment_anything/modeling/image_encoder.py", "segment_anything/modeling/common.py")]
    generate_stubs(sam_root, targets, out)
    return out


SAM_CASES = [
    ("ImageEncoderViT", dict(img_size=64, patch_size=16, embed_dim=32, depth=2, num_heads=2, out_chans=16,
                             window_size=2, global_attn_indexes=(1,)), (2, 3, 64, 64)),
    ("Block", dict(dim=32, num_heads=2, window_size=3, use_rel_pos=True, rel_pos_zero_init=False,
                   input_size=(4, 4)), (2, 4, 4, 32)),
    ("Block", dict(dim=32, num_heads=2, window_size=0, input_size=(4, 4)), (2, 4, 4, 32)),
    ("PatchEmbed", dict(in_chans=3, embed_dim=32), (2, 3, 32, 32)),
]


@pytest.mark.parametrize(("cls", "kwargs", "shape"), SAM_CASES,
                         ids=["encoder", "block-window-relpos", "block-global", "patch-embed"])
def test_segment_anything_encoder_parity(sam_root, sam_dir, cls, kwargs, shape):
    res = verify_target(sam_root, sam_dir, "segment_anything/modeling/image_encoder.py", cls, kwargs=kwargs,
                        inputs=make_inputs([InputSpec(shape)], 0), tolerance=1e-5)
    if res.status == "error" and res.reason.startswith("import PyTorch module"):
        pytest.skip(f"segment-anything not importable: {res.reason}")
    assert res.status == "pass", res.reason
    assert res.max_abs_error <= 1e-5 and res.jit
