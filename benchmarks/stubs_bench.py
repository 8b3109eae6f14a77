"""End-to-end stub benchmark on real model code, through the documented default path.

THIS IMPORTS AND RUNS third-party model code (segment-anything, vit-pytorch, x-transformers,
timm, transformers).

For each suite it runs ``migrate-lens stubs PATH -o DIR --json`` exactly as a user would (the
scan pipeline picks the targets; no ``--discover``, no hand edits), then verifies every class
that has a recipe below (tiny constructor arguments and inputs, built in code, no hub
downloads): the PyTorch class is imported from the installed package, its weights are ported
with the stub's own ``convert_state_dict``, and both run in eval mode on the same input, eagerly
and under ``nnx.jit``. One row per class:

found (the command listed the class), generated (the stub defines it), imports (the stub file
imports), runs, max abs diff, within 1e-5, jit, TODOs (the stub's TODO comments for the class).

The PyTorch packages come from the pinned wheels of the corpus (``/work/corpus/wheels``); they
need not be in the venv: ``pip install --no-deps --target .bench_deps <wheels> "huggingface-hub<1.0"
"tokenizers>=0.22,<=0.23.0" safetensors regex requests urllib3 idna certifi charset_normalizer tqdm
einx loguru torch-einops-utils frozendict`` (transformers 4.57.6 refuses newer huggingface-hub and
tokenizers) and put ``.bench_deps`` on ``PYTHONPATH``. torchvision's binary wheel does not load
beside torch 2.13 CPU; timm only needs its ``FrozenBatchNorm2d`` name at import time and
segment-anything's package ``__init__`` imports its mask generator (torchvision NMS), so a
stand-in module is registered when torchvision cannot be imported (no class of this benchmark
uses it).

Usage: PYTHONPATH=.:.bench_deps HF_HUB_OFFLINE=1 python benchmarks/stubs_bench.py [--json out.json]
       [--suite timm] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import types
import warnings
from pathlib import Path
from typing import Any, Callable

os.environ.setdefault("HF_HUB_OFFLINE", "1")
warnings.filterwarnings("ignore")

from migrate_lens.stubs.verify import (  # noqa: E402
    InputSpec, load_stub_module, make_inputs, stub_todo_count, verify_module)

SMOKE = Path(os.environ.get("MIGRATE_LENS_SMOKE", "/work/corpus/smoke"))
CORE = Path(os.environ.get("MIGRATE_LENS_CORE", "/work/corpus/core"))
TOLERANCE = 1e-5

F = InputSpec
#: recipe: () -> (args, kwargs) for the constructor, the inputs, and keyword inputs
Recipe = tuple[Callable[[], tuple[tuple[Any, ...], dict[str, Any]]], list[InputSpec], dict[str, Any]]


def _kw(**kwargs: Any) -> Callable[[], tuple[tuple[Any, ...], dict[str, Any]]]:
    return lambda: ((), kwargs)


def _cfg(factory: Callable[[], Any], *extra: Any) -> Callable[[], tuple[tuple[Any, ...], dict[str, Any]]]:
    return lambda: ((factory(), *extra), {})


def _sam() -> dict[str, Recipe]:
    enc = dict(img_size=64, patch_size=16, embed_dim=32, depth=2, num_heads=2, out_chans=16, window_size=2,
               global_attn_indexes=(1,))
    return {
        "modeling/image_encoder.py:ImageEncoderViT": (_kw(**enc), [F((2, 3, 64, 64))], {}),
        "modeling/image_encoder.py:Block": (_kw(dim=32, num_heads=2, window_size=3, use_rel_pos=True,
                                                rel_pos_zero_init=False, input_size=(4, 4)), [F((2, 4, 4, 32))], {}),
        "modeling/image_encoder.py:PatchEmbed": (_kw(in_chans=3, embed_dim=32), [F((2, 3, 32, 32))], {}),
        "modeling/common.py:MLPBlock": (_kw(embedding_dim=32, mlp_dim=64), [F((2, 5, 32))], {}),
        "modeling/common.py:LayerNorm2d": (_kw(num_channels=16), [F((2, 16, 4, 4))], {}),
        "modeling/transformer.py:Attention": (_kw(embedding_dim=32, num_heads=2, downsample_rate=2),
                                              [F((2, 5, 32)), F((2, 7, 32)), F((2, 7, 32))], {}),
        "modeling/transformer.py:TwoWayTransformer": (_kw(depth=2, embedding_dim=32, num_heads=2, mlp_dim=64),
                                                      [F((2, 32, 4, 4)), F((2, 32, 4, 4)), F((2, 5, 32))], {}),
        "modeling/mask_decoder.py:MLP": (_kw(input_dim=32, hidden_dim=16, output_dim=8, num_layers=3,
                                             sigmoid_output=True), [F((2, 5, 32))], {}),
    }


def _vit() -> dict[str, Recipe]:
    vit = dict(image_size=32, patch_size=8, num_classes=10, dim=32, depth=2, heads=2, mlp_dim=64, dim_head=16)
    return {
        "vit.py:ViT": (_kw(**vit), [F((2, 3, 32, 32))], {}),
        "vit.py:Attention": (_kw(dim=32, heads=2, dim_head=16), [F((2, 5, 32))], {}),
        "simple_vit.py:SimpleViT": (_kw(**{k: v for k, v in vit.items()}), [F((2, 3, 32, 32))], {}),
        "cait.py:CaiT": (_kw(image_size=32, patch_size=8, num_classes=10, dim=32, depth=2, cls_depth=1, heads=2,
                             mlp_dim=64, dim_head=16), [F((2, 3, 32, 32))], {}),
        "deepvit.py:DeepViT": (_kw(**vit), [F((2, 3, 32, 32))], {}),
        "cvt.py:CvT": (_kw(num_classes=10, s1_emb_dim=16, s2_emb_dim=32, s3_emb_dim=32, s1_heads=1, s2_heads=2,
                           s3_heads=2, s3_depth=1), [F((2, 3, 32, 32))], {}),
    }


def _xt() -> dict[str, Recipe]:
    return {
        "x_transformers.py:FeedForward": (_kw(dim=32, mult=2, glu=True), [F((2, 5, 32))], {}),
        "x_transformers.py:Attention": (_kw(dim=32, heads=2, dim_head=16), [F((2, 5, 32))], {}),
        "x_transformers.py:RMSNorm": (_kw(dim=32), [F((2, 5, 32))], {}),
        "x_transformers.py:ScaleNorm": (_kw(dim=32), [F((2, 5, 32))], {}),
        "x_transformers.py:AbsolutePositionalEmbedding": (_kw(dim=32, max_seq_len=16), [F((2, 5, 32))], {}),
        "x_transformers.py:Encoder": (_kw(dim=32, depth=2, heads=2, attn_dim_head=16), [F((2, 5, 32))], {}),
    }


def _timm() -> dict[str, Recipe]:
    return {
        "layers/mlp.py:Mlp": (_kw(in_features=16, hidden_features=32), [F((2, 5, 16))], {}),
        "layers/mlp.py:GluMlp": (_kw(in_features=16, hidden_features=32), [F((2, 5, 16))], {}),
        "layers/mlp.py:SwiGLU": (_kw(in_features=16, hidden_features=32), [F((2, 5, 16))], {}),
        "layers/attention.py:Attention": (_kw(dim=32, num_heads=2, qkv_bias=True), [F((2, 5, 32))], {}),
        "layers/patch_embed.py:PatchEmbed": (_kw(img_size=32, patch_size=8, in_chans=3, embed_dim=32),
                                             [F((2, 3, 32, 32))], {}),
        "layers/layer_scale.py:LayerScale": (_kw(dim=16, init_values=0.1), [F((2, 5, 16))], {}),
        "layers/norm.py:LayerNorm2d": (_kw(num_channels=16), [F((2, 16, 4, 4))], {}),
        "layers/drop.py:DropPath": (_kw(drop_prob=0.1), [F((2, 5, 16))], {}),
        "layers/squeeze_excite.py:SEModule": (_kw(channels=16), [F((2, 16, 4, 4))], {}),
        "models/vision_transformer.py:Block": (_kw(dim=32, num_heads=2, init_values=0.1, drop_path=0.1),
                                               [F((2, 5, 32))], {}),
        "models/vision_transformer.py:VisionTransformer": (
            _kw(img_size=32, patch_size=8, embed_dim=32, depth=2, num_heads=2, num_classes=10), [F((2, 3, 32, 32))],
            {}),
        "models/convnext.py:ConvNeXtBlock": (_kw(in_chs=16, drop_path=0.1), [F((2, 16, 8, 8))], {}),
        "models/resnet.py:BasicBlock": (_kw(inplanes=16, planes=16), [F((2, 16, 8, 8))], {}),
    }


def _hf(name: str, **kwargs: Any) -> Callable[[], Any]:
    def build() -> Any:
        import transformers

        return getattr(transformers, name)(**kwargs)
    return build


def _bert() -> dict[str, Recipe]:
    cfg = _hf("BertConfig", vocab_size=99, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
              intermediate_size=37, max_position_embeddings=64, attn_implementation="eager")
    h, ids = F((2, 8, 32)), F((2, 8), "int64", 0, 99)
    return {
        "modeling_bert.py:BertEmbeddings": (_cfg(cfg), [ids], {}),
        "modeling_bert.py:BertSelfAttention": (_cfg(cfg), [h], {}),
        "modeling_bert.py:BertLayer": (_cfg(cfg), [h], {}),
        "modeling_bert.py:BertEncoder": (_cfg(cfg), [h], {}),
        "modeling_bert.py:BertModel": (_cfg(cfg), [ids], {}),
    }


def _gpt2() -> dict[str, Recipe]:
    cfg = _hf("GPT2Config", vocab_size=99, n_embd=32, n_layer=2, n_head=4, n_positions=64,
              attn_implementation="eager")
    return {
        "modeling_gpt2.py:GPT2MLP": (lambda: ((128, cfg()), {}), [F((2, 8, 32))], {}),
        "modeling_gpt2.py:GPT2Block": (_cfg(cfg), [F((2, 8, 32))], {}),
        "modeling_gpt2.py:GPT2Model": (_cfg(cfg), [F((2, 8), "int64", 0, 99)], {}),
    }


def _resnet() -> dict[str, Recipe]:
    cfg = _hf("ResNetConfig", num_channels=3, embedding_size=8, hidden_sizes=[8, 16], depths=[1, 1],
              layer_type="basic", hidden_act="relu")
    return {
        "modeling_resnet.py:ResNetBottleNeckLayer": (lambda: ((8, 16), dict(stride=2)), [F((2, 8, 8, 8))], {}),
        "modeling_resnet.py:ResNetModel": (_cfg(cfg), [F((2, 3, 32, 32))], {}),
    }


def _hf_vit() -> dict[str, Recipe]:
    cfg = _hf("ViTConfig", hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=37,
              image_size=32, patch_size=8, attn_implementation="eager")
    return {
        "modeling_vit.py:ViTEmbeddings": (_cfg(cfg), [F((2, 3, 32, 32))], {}),
        "modeling_vit.py:ViTLayer": (_cfg(cfg), [F((2, 17, 32))], {}),
        "modeling_vit.py:ViTModel": (_cfg(cfg), [F((2, 3, 32, 32))], {}),
    }


def _convnext() -> dict[str, Recipe]:
    cfg = _hf("ConvNextConfig", num_channels=3, hidden_sizes=[8, 16], depths=[1, 1], num_stages=2, patch_size=4,
              drop_path_rate=0.1)
    return {
        "modeling_convnext.py:ConvNextLayer": (lambda: ((cfg(), 8), dict(drop_path=0.1)), [F((2, 8, 8, 8))], {}),
        "modeling_convnext.py:ConvNextModel": (_cfg(cfg), [F((2, 3, 32, 32))], {}),
    }


def _llama() -> dict[str, Recipe]:
    cfg = _hf("LlamaConfig", vocab_size=99, hidden_size=32, intermediate_size=48, num_hidden_layers=2,
              num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64, attn_implementation="eager")
    return {
        "modeling_llama.py:LlamaRMSNorm": (lambda: ((32,), {}), [F((2, 8, 32))], {}),
        "modeling_llama.py:LlamaMLP": (_cfg(cfg), [F((2, 8, 32))], {}),
    }


#: (label, PATH given to `migrate-lens stubs`, installed package the PyTorch classes come from, recipes)
SUITES: list[tuple[str, Path, str, Callable[[], dict[str, Recipe]]]] = [
    ("segment-anything", SMOKE / "segment_anything", "segment_anything", _sam),
    ("vit-pytorch", SMOKE / "vit_pytorch", "vit_pytorch", _vit),
    ("x-transformers", SMOKE / "x_transformers", "x_transformers", _xt),
    ("timm", CORE / "timm", "timm", _timm),
    ("transformers BERT", CORE / "transformers/models/bert", "transformers.models.bert", _bert),
    ("transformers GPT-2", CORE / "transformers/models/gpt2", "transformers.models.gpt2", _gpt2),
    ("transformers ResNet", CORE / "transformers/models/resnet", "transformers.models.resnet", _resnet),
    ("transformers ViT", CORE / "transformers/models/vit", "transformers.models.vit", _hf_vit),
    ("transformers ConvNext", CORE / "transformers/models/convnext", "transformers.models.convnext", _convnext),
    ("transformers Llama", CORE / "transformers/models/llama", "transformers.models.llama", _llama),
]


class _StandInFinder:
    """Meta path finder that makes every ``torchvision.*`` module a stand-in whose attributes
    are placeholder classes (they raise when instantiated)."""

    @staticmethod
    def find_spec(name: str, path: Any = None, target: Any = None) -> Any:
        import importlib.machinery

        if name != "torchvision" and not name.startswith("torchvision."):
            return None
        return importlib.machinery.ModuleSpec(name, _StandInFinder, is_package=True)  # type: ignore[arg-type]

    @staticmethod
    def create_module(spec: Any) -> types.ModuleType:
        import torch

        module = types.ModuleType(spec.name)
        module.__path__ = []  # type: ignore[attr-defined]

        def __getattr__(attr: str) -> Any:
            if attr.startswith("__"):
                raise AttributeError(attr)

            class _Meta(type(torch.nn.Module)):  # type: ignore[misc]
                def __getattr__(cls, item: str) -> Any:  # InterpolationMode.NEAREST and the like
                    if item.startswith("__"):
                        raise AttributeError(item)
                    return item

            class Missing(torch.nn.Module, metaclass=_Meta):
                def __init__(self, *args: Any, **kwargs: Any) -> None:
                    raise RuntimeError(f"torchvision stand-in: {spec.name}.{attr} is not available")
            return Missing
        module.__getattr__ = __getattr__  # type: ignore[attr-defined]
        return module

    @staticmethod
    def exec_module(module: types.ModuleType) -> None:
        return None


def _torchvision_stand_in() -> None:
    """Register the torchvision stand-in when the real one cannot load (see module doc)."""
    try:
        import torchvision  # noqa: F401
        return
    except Exception:  # noqa: BLE001 - a broken binary raises RuntimeError, not ImportError
        for name in [m for m in sys.modules if m == "torchvision" or m.startswith("torchvision.")]:
            del sys.modules[name]
    sys.meta_path.insert(0, _StandInFinder)  # type: ignore[arg-type]


def _generate(path: Path, out: Path) -> dict[str, Any]:
    """Run the documented command; returns {"files": [...], "error": str}."""
    cmd = [sys.executable, "-c", "from migrate_lens.cli import main; main()", "stubs", str(path), "-o", str(out), "--json"]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    try:
        data = json.loads(proc.stdout)
    except json.JSONDecodeError:
        return {"files": [], "error": (proc.stderr or proc.stdout).strip().splitlines()[-1:]}
    return {"files": data["files"] if isinstance(data, dict) else data, "error": ""}


def _torch_class(package: str, rel: str, name: str) -> Any:
    import importlib

    dotted = package + "." + ".".join(Path(rel).with_suffix("").parts)
    return getattr(importlib.import_module(dotted), name)


def run(out: Path, suites: list[tuple[str, Path, str, Callable[[], dict[str, Recipe]]]]) -> list[dict[str, Any]]:
    """Generate and verify every suite; one row per recipe."""
    rows: list[dict[str, Any]] = []
    for label, path, package, recipes_fn in suites:
        stub_dir = out / label.replace(" ", "_")
        if package in ("timm", "vit_pytorch", "segment_anything"):
            _torchvision_stand_in()
        gen = _generate(path, stub_dir)
        listed = {(f["stub_path"], m["module"].rsplit(".", 1)[-1]): (f, m) for f in gen["files"] for m in f["modules"]}
        for key, (build, specs, input_kwargs) in recipes_fn().items():
            rel, name = key.split(":")
            row: dict[str, Any] = {"suite": label, "module": key, "found": (rel, name) in listed, "generated": False,
                                   "imports": False, "runs": False, "max_abs_error": None, "within": False,
                                   "jit": False, "todos": None, "status": "error", "reason": ""}
            rows.append(row)
            if not row["found"]:
                row["reason"] = gen["error"] or "not listed by `migrate-lens stubs`"
                continue
            f, m = listed[(rel, name)]
            row["generated"] = bool(m["generated"])
            try:
                row["todos"] = stub_todo_count((stub_dir / rel).read_text(encoding="utf-8"), name)
                stub = load_stub_module(stub_dir, rel)
                stub_cls = getattr(stub, name)
                row["imports"] = True
            except Exception as exc:  # noqa: BLE001 - the generated code is what is measured
                row["reason"] = f"import stub: {type(exc).__name__}: {exc}"[:200]
                continue
            try:
                args, kwargs = build()
                torch_cls = _torch_class(package, rel, name)
            except Exception as exc:  # noqa: BLE001
                row["status"], row["reason"] = "skipped", f"PyTorch side: {type(exc).__name__}: {exc}"[:200]
                continue
            res = verify_module(torch_cls, stub_cls, stub.convert_state_dict, args=args, kwargs=kwargs,
                                inputs=make_inputs(specs, 0), input_kwargs=input_kwargs, tolerance=TOLERANCE,
                                module=key, stub_path=rel, todos=row["todos"])
            row.update(runs=res.runs, max_abs_error=res.max_abs_error, jit=res.jit, status=res.status,
                       reason=res.reason,
                       within=res.max_abs_error is not None and res.max_abs_error <= TOLERANCE)
    return rows


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.1e}"
    return str(v)


COLUMNS = ["suite", "module", "found", "generated", "imports", "runs", "max_abs_error", "within", "jit", "todos",
           "reason"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="Also write the rows as JSON here.")
    parser.add_argument("--out", type=Path, help="Keep the generated stubs here (default: a temp dir).")
    parser.add_argument("--suite", action="append", help="Only these suites (repeatable), e.g. 'timm'.")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: run one suite, print its rows as JSON
    ns = parser.parse_args()
    if ns.one:
        print(json.dumps(run(ns.out, [s for s in SUITES if s[0] == ns.one]), default=str))
        return
    suites = [s for s in SUITES if not ns.suite or s[0] in ns.suite]
    print("NOTE: this benchmark IMPORTS AND RUNS third-party model code.", file=sys.stderr)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, *_ in suites:  # one process per suite: third-party imports do not leak across
            proc = subprocess.run([sys.executable, __file__, "--one", label, "--out", str(ns.out or Path(tmp))],
                                  capture_output=True, text=True, check=False)
            try:
                rows += json.loads(proc.stdout.strip().splitlines()[-1])
            except (json.JSONDecodeError, IndexError):
                tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
                rows.append({"suite": label, "module": "*", "found": False, "generated": False, "imports": False,
                             "runs": False, "max_abs_error": None, "within": False, "jit": False, "todos": None,
                             "status": "error", "reason": f"suite crashed: {tail}"[:200]})
    table = [[_fmt(r.get(c)) for c in COLUMNS] for r in rows]
    widths = [max(len(c), *(len(row[i][:90]) for row in table)) for i, c in enumerate(COLUMNS)]
    print(" | ".join(c.ljust(w) for c, w in zip(COLUMNS, widths)))
    print("-+-".join("-" * w for w in widths))
    for row in table:
        print(" | ".join(v[:90].ljust(w) for v, w in zip(row, widths)))
    print()
    libs = {r["suite"].split()[0] for r in rows}
    good = sum(r["within"] and r["jit"] for r in rows)
    print(f"{len(rows)} classes from {len(libs)} libraries: found {sum(r['found'] for r in rows)}, generated "
          f"{sum(r['generated'] for r in rows)}, imports {sum(r['imports'] for r in rows)}, runs "
          f"{sum(bool(r['runs']) for r in rows)}, within {TOLERANCE:g} {sum(r['within'] for r in rows)}, "
          f"within and jit {good} ({100 * good / max(len(rows), 1):.0f}%)")
    if ns.json:
        ns.json.write_text(json.dumps(rows, indent=2, sort_keys=True, default=str))


if __name__ == "__main__":
    main()
