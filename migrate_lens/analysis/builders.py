"""Layers built by a library's config builders, as the torch layers they construct.

OpenMMLab code (mmdet, mmseg, mmpose, mmpretrain, ...) rarely names a torch layer: it builds
them from config dicts through mmcv's builders and bricks (``build_norm_layer(dict(type='BN'),
c)``, ``build_activation_layer(dict(type='GELU'))``, ``ConvModule(c1, c2, 3, stride=2,
padding=1)``, ``FFN(..., act_cfg=dict(type='GELU'))``) or through mmengine's root registry
(``MODELS.build(dict(type='LN', ...))``, where mmcv registers its layers). The scan never
reads that library (it is not the project), so without this table every such layer is
invisible: a block of BatchNorm, exact GELU and strided convolutions scans as pure.

:func:`built_layers` turns one builder call, with its config arguments as literal dicts, into
the torch constructor calls it makes (name, positional literals, keyword literals), for the
visitor to hand to the rules as call sites. Only what the config spells is used; a config the
file does not spell (a variable) builds nothing known.

Sources (mmcv 2.x, read for this table): ``mmcv/cnn/bricks/norm.py`` (``build_norm_layer``:
abbreviations BN/BN1d/BN2d/BN3d/SyncBN/GN/LN/IN/IN1d/IN2d/IN3d, ``requires_grad`` popped, GN
takes ``num_channels``), ``activation.py`` (``build_activation_layer``: torch activations
registered by name, ``Clamp``, ``HSigmoid``, ``HSwish``; ``GELU`` is ``nn.GELU``),
``conv.py`` (``build_conv_layer``: ``Conv``/``Conv1d``/``Conv2d``/``Conv3d``, None is
``Conv2d``), ``conv_module.py`` (``ConvModule(in_channels, out_channels, kernel_size,
stride=1, padding=0, dilation=1, groups=1, bias='auto', conv_cfg=None, norm_cfg=None,
act_cfg=dict(type='ReLU'), ...)``), ``transformer.py`` (``FFN(embed_dims=256,
feedforward_channels=1024, num_fcs=2, act_cfg=dict(type='ReLU', inplace=True), ffn_drop=0.,
dropout_layer=None, ...)``), ``drop.py`` (``DropPath``, ``build_dropout``: ``Dropout`` and
``DropPath`` by ``drop_prob``).
"""

from __future__ import annotations

from typing import Any

#: norm abbreviations of ``build_norm_layer`` -> torch class
NORMS: dict[str, str] = {
    "BN": "torch.nn.BatchNorm2d", "BN1d": "torch.nn.BatchNorm1d", "BN2d": "torch.nn.BatchNorm2d",
    "BN3d": "torch.nn.BatchNorm3d", "SyncBN": "torch.nn.SyncBatchNorm", "GN": "torch.nn.GroupNorm",
    "LN": "torch.nn.LayerNorm", "IN": "torch.nn.InstanceNorm2d", "IN1d": "torch.nn.InstanceNorm1d",
    "IN2d": "torch.nn.InstanceNorm2d", "IN3d": "torch.nn.InstanceNorm3d",
}
#: activation types of ``build_activation_layer`` -> torch class
ACTIVATIONS: dict[str, str] = {
    name: f"torch.nn.{name}" for name in (
        "ReLU", "LeakyReLU", "PReLU", "RReLU", "ReLU6", "ELU", "Sigmoid", "Tanh", "GELU", "SiLU",
        "Hardsigmoid", "Hardswish", "Softplus", "Mish")
} | {"HSigmoid": "torch.nn.Hardsigmoid", "HSwish": "torch.nn.Hardswish", "Swish": "torch.nn.SiLU"}
#: conv types of ``build_conv_layer`` -> torch class
CONVS: dict[str, str] = {
    "Conv": "torch.nn.Conv2d", "Conv1d": "torch.nn.Conv1d", "Conv2d": "torch.nn.Conv2d",
    "Conv3d": "torch.nn.Conv3d", "deconv": "torch.nn.ConvTranspose2d",
    "ConvTranspose2d": "torch.nn.ConvTranspose2d",
}
#: dropout types of ``build_dropout`` -> the class the rules know (mmcv's DropPath is the
#: stochastic depth of timm's, by the same name)
DROPOUTS: dict[str, str] = {"Dropout": "torch.nn.Dropout", "DropPath": "mmcv.cnn.bricks.drop.DropPath"}
#: every type a library registry (mmengine's root ``MODELS``, which mmcv fills) builds by name
REGISTERED: dict[str, str] = {**CONVS, **ACTIVATIONS, **NORMS, **DROPOUTS}

#: builder functions and classes (resolved names) -> their kind
BUILDERS: dict[str, str] = {}
for _mod in ("mmcv.cnn", "mmcv.cnn.bricks", "mmcv.cnn.bricks.norm", "mmcv.cnn.bricks.activation",
             "mmcv.cnn.bricks.conv", "mmcv.cnn.bricks.drop", "mmcv.cnn.bricks.conv_module",
             "mmcv.cnn.bricks.transformer"):
    BUILDERS.update({f"{_mod}.build_norm_layer": "norm", f"{_mod}.build_activation_layer": "act",
                     f"{_mod}.build_conv_layer": "conv", f"{_mod}.build_dropout": "dropout",
                     f"{_mod}.ConvModule": "conv_module", f"{_mod}.FFN": "ffn"})
#: library registries whose ``build(cfg)`` builds :data:`REGISTERED` layers
LIBRARY_REGISTRIES = frozenset({
    "mmengine.registry.MODELS", "mmengine.MODELS", "mmcv.cnn.MODELS", "mmcv.cnn.bricks.registry.MODELS",
    "mmengine.registry.root.MODELS",
})

#: a torch constructor call: (dotted class, positional literals, keyword literals)
Built = tuple[str, tuple[Any, ...], dict[str, Any]]
#: what a builder's argument is when the file does not spell it as a literal
UNKNOWN = object()


def _typed(cfg: Any, table: dict[str, str], default: str | None = None) -> tuple[str, dict[str, Any]] | None:
    """(torch class, the config's other keys) for a config dict whose ``type`` the table
    knows; None for an unknown type or a config that is not a literal dict."""
    if cfg is None and default is not None:
        return default, {}
    if not isinstance(cfg, dict):
        return None
    kind = cfg.get("type")
    target = table.get(kind) if isinstance(kind, str) else None
    if target is None:
        return None
    return target, {k: v for k, v in cfg.items() if k not in ("type", "requires_grad")}


def _norm(cfg: Any, channels: Any) -> list[Built]:
    got = _typed(cfg, NORMS)
    if got is None:
        return []
    target, rest = got
    if target == "torch.nn.GroupNorm":
        return [(target, (), {**rest, "num_channels": channels})]
    return [(target, (channels,), rest)]


def _act(cfg: Any) -> list[Built]:
    got = _typed(cfg, ACTIVATIONS)
    return [(got[0], (), got[1])] if got is not None else []


def _dropout(cfg: Any) -> list[Built]:
    got = _typed(cfg, DROPOUTS)
    if got is None:
        return []
    target, rest = got
    p = rest.pop("drop_prob", rest.pop("p", UNKNOWN))
    return [(target, (p,), rest)]


def built_layers(kind: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Built]:
    """The torch constructor calls a builder of ``kind`` (:data:`BUILDERS`) makes when called
    with ``args``/``kwargs`` (literals: dicts for configs, :data:`UNKNOWN` for what the file
    does not spell), in the order it makes them; [] when the config is not known. Parameters
    are read by mmcv's names and positions (module docstring)."""
    def arg(i: int, name: str, default: Any = UNKNOWN) -> Any:
        if name in kwargs:
            return kwargs[name]
        return args[i] if i < len(args) else default

    if kind == "norm":
        return _norm(arg(0, "cfg"), arg(1, "num_features"))
    if kind == "act":
        return _act(arg(0, "cfg"))
    if kind == "dropout":
        return _dropout(arg(0, "cfg"))
    if kind == "conv":
        got = _typed(arg(0, "cfg", None), CONVS, default="torch.nn.Conv2d")
        if got is None:
            return []
        rest = {k: v for k, v in kwargs.items() if k != "cfg"}
        return [(got[0], tuple(args[1:]), {**rest, **got[1]})]
    if kind == "conv_module":
        # (mmcv's ConvModule: in_channels, out_channels, kernel_size, stride, padding, dilation,
        # groups, bias, conv_cfg, norm_cfg, act_cfg, ...)
        conv = _typed(arg(8, "conv_cfg", None), CONVS, default="torch.nn.Conv2d")
        out: list[Built] = []
        if conv is not None:
            names = ("in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation", "groups")
            pos = tuple(arg(i, n, d) for i, (n, d) in enumerate(zip(names, (UNKNOWN, UNKNOWN, UNKNOWN, 1, 0, 1, 1))))
            out.append((conv[0], pos, conv[1]))
        norm = arg(9, "norm_cfg", None)
        if norm is not None:
            out += _norm(norm, arg(1, "out_channels"))
        out += _act(arg(10, "act_cfg", {"type": "ReLU"}))
        return out
    if kind == "ffn":
        out = _act(arg(3, "act_cfg", {"type": "ReLU", "inplace": True}))
        drop = arg(4, "ffn_drop", 0.0)
        if drop is UNKNOWN or (isinstance(drop, (int, float)) and drop > 0):
            out.append(("torch.nn.Dropout", (drop,), {}))
        out += _dropout(arg(5, "dropout_layer", None))
        return out
    return []


def registry_build(cfg: Any) -> list[Built]:
    """The layer a library registry's ``build(cfg)`` makes for a literal config (every key but
    ``type`` a keyword); [] for a type the table does not know."""
    got = _typed(cfg, REGISTERED)
    if got is None:
        return []
    target, rest = got
    if target in DROPOUTS.values():
        p = rest.pop("drop_prob", rest.pop("p", UNKNOWN))
        return [(target, (p,), rest)]
    return [(target, (), rest)]
