"""Probe recipe: tiny configs of models from segment-anything, x-transformers and vit-pytorch.

``PROBE_MODEL`` picks one (sam_encoder, sam_prompt, sam_decoder, xt_decoder, xt_encoder, vit,
vit_patch_dropout, vit_cait). The probe puts PATH's parent on ``sys.path``; segment-anything's and
vit-pytorch's package ``__init__`` import torchvision (not installed), so their modules are loaded with a bare parent
package instead.
"""

import importlib
import os
import sys
import types
from pathlib import Path

import torch


def _bare_package(name: str) -> None:
    """Make ``name`` a namespace-like package without running its ``__init__``."""
    if name in sys.modules:
        return
    for entry in sys.path:
        candidate = Path(entry) / name
        if (candidate / "__init__.py").is_file():
            pkg = types.ModuleType(name)
            pkg.__path__ = [str(candidate)]
            sys.modules[name] = pkg
            return
    raise ImportError(name)


def _sam(name):
    _bare_package("segment_anything")  # its __init__ reaches torchvision through utils.transforms
    from segment_anything.modeling.image_encoder import ImageEncoderViT
    from segment_anything.modeling.mask_decoder import MaskDecoder
    from segment_anything.modeling.prompt_encoder import PromptEncoder
    from segment_anything.modeling.transformer import TwoWayTransformer

    if name == "sam_encoder":
        enc = ImageEncoderViT(img_size=64, patch_size=16, embed_dim=32, depth=2, num_heads=2, out_chans=16,
                              use_rel_pos=True, window_size=2, global_attn_indexes=(1,))
        return enc, (torch.randn(1, 3, 64, 64),)
    if name == "sam_prompt":
        enc = PromptEncoder(embed_dim=16, image_embedding_size=(4, 4), input_image_size=(64, 64), mask_in_chans=4)
        coords = torch.rand(2, 3, 2) * 64
        labels = torch.tensor([[1, 0, -1], [1, 1, 0]])
        return enc, ((coords, labels), None, None)
    dec = MaskDecoder(transformer_dim=16, transformer=TwoWayTransformer(depth=1, embedding_dim=16, num_heads=2,
                                                                        mlp_dim=32), iou_head_hidden_dim=16)
    return dec, (torch.randn(1, 16, 4, 4), torch.randn(1, 16, 4, 4), torch.randn(2, 3, 16),
                 torch.randn(2, 16, 4, 4), True)


def _xt(name):
    from x_transformers import Decoder, Encoder, TransformerWrapper

    if name == "xt_decoder":
        model = TransformerWrapper(num_tokens=20, max_seq_len=16, attn_layers=Decoder(dim=16, depth=1, heads=2),
                                   emb_dropout=0.1)
        return model, (torch.randint(0, 20, (2, 8)),)
    model = TransformerWrapper(num_tokens=20, max_seq_len=16,
                               attn_layers=Encoder(dim=16, depth=1, heads=2, rotary_pos_emb=True, attn_dropout=0.1))
    mask = torch.ones(2, 8, dtype=torch.bool)
    mask[1, 5:] = False
    return model, {"x": torch.randint(0, 20, (2, 8)), "mask": mask}


def _vit(name):
    _bare_package("vit_pytorch")
    if name == "vit":
        ViT = importlib.import_module("vit_pytorch.vit").ViT
        return ViT(image_size=32, patch_size=8, num_classes=10, dim=32, depth=1, heads=2, mlp_dim=64,
                   dropout=0.1, emb_dropout=0.1), (torch.randn(2, 3, 32, 32),)
    if name == "vit_patch_dropout":
        ViT = importlib.import_module("vit_pytorch.vit_with_patch_dropout").ViT
        return ViT(image_size=32, patch_size=8, num_classes=10, dim=32, depth=1, heads=2, mlp_dim=64,
                   dim_head=16, patch_dropout=0.25), (torch.randn(2, 3, 32, 32),)
    CaiT = importlib.import_module("vit_pytorch.cait").CaiT
    return CaiT(image_size=32, patch_size=8, num_classes=10, dim=32, depth=2, cls_depth=1, heads=2, mlp_dim=64,
                dim_head=16, dropout=0.1, emb_dropout=0.1, layer_dropout=0.2), (torch.randn(2, 3, 32, 32),)


def examples():
    torch.manual_seed(0)
    name = os.environ.get("PROBE_MODEL", "vit")
    build = _sam if name.startswith("sam") else _xt if name.startswith("xt") else _vit
    model, args = build(name)
    yield name, model, args
