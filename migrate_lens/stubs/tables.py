"""Built-in translation tables: torch.nn layers -> NNX constructors, torch functions and tensor
methods -> JAX expressions.

These cover what ``rules/api_map.toml`` rows cannot express as a rename (argument binding,
default changes, structural rewrites such as ``masked_fill -> jnp.where`` or ``F.pad``'s
last-axis-first pairs). Plain renames come from the API map first (see
:mod:`migrate_lens.stubs.apimap`). Every handler receives a :class:`Bound` (the call's arguments
bound to PyTorch's parameter names, as source text) and returns JAX source text; handlers call
:meth:`Bound.todo` for what they cannot translate faithfully, which the translator turns into a
``# TODO(migrate-lens ...)`` comment.

Sources for the defaults and semantic differences: PyTorch 2.13 and Flax 0.12 signatures
(checked here with ``inspect.signature``) and ``shared/FIELD.md`` (GELU, eps, layouts, padding).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Callable

#: TODO codes used by the stub generator when no catalog rule explains the gap (docs/stubs.md).
TODO_UNMAPPED = "ML091"  # a torch API with no translation (neither the API map nor the built-in table)
TODO_CONSTRUCT = "ML092"  # a Python/PyTorch construct the translator does not rewrite
TODO_EXTERNAL = "ML093"  # a name imported from code that gets no stub
TODO_LAYOUT = "ML094"  # PyTorch parameter layout or channel-order arithmetic that NNX does differently
TODO_SEMANTICS = "ML095"  # translated, but the JAX function behaves differently; check it
TODO_RNG = "ML096"  # randomness drawn from PyTorch's global RNG: needs an explicit PRNG key
TODO_STATE = "ML097"  # state mutated in forward (buffers, attributes): needs nnx state handling

TODO_CODES: dict[str, str] = {
    TODO_UNMAPPED: "torch API with no translation (add it to rules/api_map.toml or the built-in table)",
    TODO_CONSTRUCT: "Python/PyTorch construct the translator does not rewrite",
    TODO_EXTERNAL: "name imported from code that gets no stub",
    TODO_LAYOUT: "parameter layout or channel-order arithmetic differs in NNX",
    TODO_SEMANTICS: "translated, but the JAX function behaves differently; check the result",
    TODO_RNG: "randomness from PyTorch's global RNG: needs an explicit PRNG key (nnx.Rngs)",
    TODO_STATE: "state mutated in forward: needs explicit NNX state",
}

_MISSING = object()


class Unbindable(Exception):
    """The call's arguments cannot be bound statically (``*args``/``**kwargs`` or unknown names)."""


@dataclass
class Bound:
    """A call's arguments bound to PyTorch parameter names, as source text.

    ``values`` maps parameter name -> source; ``extra`` holds surplus positional arguments (for
    varargs such as ``view(*shape)``); ``todos`` collects ``(code, message)`` raised by handlers.
    """

    values: dict[str, str]
    extra: list[str] = field(default_factory=list)
    todos: list[tuple[str, str]] = field(default_factory=list)
    helpers: set[str] = field(default_factory=set)

    def __getitem__(self, name: str) -> str:
        return self.values[name]

    def has(self, name: str) -> bool:
        """Whether the call passed ``name``."""
        return name in self.values

    def get(self, name: str, default: str) -> str:
        """Source of ``name`` or ``default``."""
        return self.values.get(name, default)

    def kw(self, name: str, new: str | None = None) -> str:
        """``", new=<value>"`` if ``name`` was passed, else ""."""
        return f", {new or name}={self.values[name]}" if name in self.values else ""

    def lit(self, name: str, default: Any = _MISSING) -> Any:
        """Python value of a literal argument, ``default`` when absent, :data:`_MISSING` when
        not a literal."""
        if name not in self.values:
            return default
        try:
            return ast.literal_eval(self.values[name])
        except (ValueError, SyntaxError):
            return _MISSING

    def todo(self, code: str, message: str) -> None:
        """Record a TODO for the statement being translated."""
        self.todos.append((code, message))

    def use(self, helper: str) -> str:
        """Mark a prelude helper as used and return its name."""
        self.helpers.add(helper)
        return helper

    def varargs(self, first: str) -> str:
        """``first`` plus surplus positionals as one tuple source (``view(a, b)`` -> ``(a, b)``);
        a single sequence argument is passed as is."""
        items = [self.values[first], *self.extra] if first in self.values else list(self.extra)
        if len(items) == 1:
            try:
                value = ast.literal_eval(items[0])
            except (ValueError, SyntaxError):
                value = None
            if isinstance(value, int):
                return f"({items[0]},)"
            return f"{self.use('as_shape')}({items[0]})"
        return "(" + ", ".join(items) + ")"


Handler = Callable[[Bound], str]


@dataclass(frozen=True)
class Spec:
    """PyTorch parameters (in order) and a handler. ``varargs`` lets surplus positionals go to
    :attr:`Bound.extra`."""

    params: tuple[str, ...]
    handler: Handler
    varargs: bool = False
    #: keywords (default None) that the lambda for a value use of the function also takes
    #: (``partial(F.softmax, dim=-1)`` later called with ``dtype=``)
    value_kwargs: tuple[str, ...] = ()


def is_missing(value: Any) -> bool:
    """Whether :meth:`Bound.lit` found no literal."""
    return value is _MISSING


# --------------------------------------------------------------------------------- layers
@dataclass(frozen=True)
class LayerSpec:
    """A torch.nn layer: its constructor parameters with defaults (source text, None for
    required ones) and a handler producing the NNX constructor call (``{rngs}`` is the
    ``nnx.Rngs`` expression). ``kind`` is "module" (holds parameters) or "function"."""

    params: tuple[tuple[str, str | None], ...]
    handler: Callable[[Bound, str], str]
    kind: str = "module"


def _tuple_src(a: Bound, name: str, n: int, default: str) -> str:
    value = a.lit(name, ast.literal_eval(default))
    if isinstance(value, int):
        return "(" + ", ".join([str(value)] * n) + ")"
    if isinstance(value, (tuple, list)):
        return repr(tuple(value))
    return f"{a.use('_ntuple')}({a.get(name, default)}, {n})"


def _padding_src(a: Bound, n: int) -> str:
    value = a.lit("padding", 0)
    if isinstance(value, str):
        if value not in ("same", "valid"):
            a.todo(TODO_UNMAPPED, f"padding={value!r}")
        return repr(value.upper())
    if isinstance(value, int):
        return "[" + ", ".join([f"({value}, {value})"] * n) + "]"
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(f"({p}, {p})" for p in value) + "]"
    src = a["padding"]
    return f"[(p, p) for p in {a.use('_ntuple')}({src}, {n})]"


def _conv(n: int) -> LayerSpec:
    def handler(a: Bound, rngs: str) -> str:
        mode = a.lit("padding_mode", "zeros")
        if mode != "zeros":
            a.todo(TODO_UNMAPPED, f"padding_mode={a['padding_mode']} is not translated (pad with torch_pad first)")
        wrap = a.use("ChannelsFirst")
        return (f"{wrap}(nnx.Conv({a['in_channels']}, {a['out_channels']}, "
                f"kernel_size={_tuple_src(a, 'kernel_size', n, '1')}, strides={_tuple_src(a, 'stride', n, '1')}, "
                f"padding={_padding_src(a, n)}, kernel_dilation={_tuple_src(a, 'dilation', n, '1')}, "
                f"feature_group_count={a.get('groups', '1')}, use_bias={a.get('bias', 'True')}, rngs={rngs}))")
    return LayerSpec((("in_channels", None), ("out_channels", None), ("kernel_size", None), ("stride", "1"),
                      ("padding", "0"), ("dilation", "1"), ("groups", "1"), ("bias", "True"),
                      ("padding_mode", "'zeros'"), ("device", "None"), ("dtype", "None")), handler)


def _conv_transpose(n: int) -> LayerSpec:
    def handler(a: Bound, rngs: str) -> str:
        k, p, op, d = (a.lit(x, dflt) for x, dflt in
                       (("kernel_size", 1), ("padding", 0), ("output_padding", 0), ("dilation", 1)))
        if a.lit("groups", 1) != 1:
            a.todo(TODO_UNMAPPED, "grouped ConvTranspose has no nnx.ConvTranspose argument")
        if all(isinstance(v, int) for v in (k, p, op, d)):
            lo = d * (k - 1) - p
            pad = "[" + ", ".join([f"({lo}, {lo + op})"] * n) + "]"
        else:
            nt = a.use("_ntuple")
            pad = (f"[(dd * (kk - 1) - pp, dd * (kk - 1) - pp + oo) for kk, pp, oo, dd in zip("
                   f"{nt}({a.get('kernel_size', '1')}, {n}), {nt}({a.get('padding', '0')}, {n}), "
                   f"{nt}({a.get('output_padding', '0')}, {n}), {nt}({a.get('dilation', '1')}, {n}))]")
        wrap = a.use("ChannelsFirst")
        return (f"{wrap}(nnx.ConvTranspose({a['in_channels']}, {a['out_channels']}, "
                f"kernel_size={_tuple_src(a, 'kernel_size', n, '1')}, strides={_tuple_src(a, 'stride', n, '1')}, "
                f"padding={pad}, kernel_dilation={_tuple_src(a, 'dilation', n, '1')}, "
                f"use_bias={a.get('bias', 'True')}, transpose_kernel=True, rngs={rngs}))")
    return LayerSpec((("in_channels", None), ("out_channels", None), ("kernel_size", None), ("stride", "1"),
                      ("padding", "0"), ("output_padding", "0"), ("groups", "1"), ("bias", "True"),
                      ("dilation", "1"), ("padding_mode", "'zeros'"), ("device", "None"), ("dtype", "None")),
                     handler)


def _batch_norm(a: Bound, rngs: str) -> str:
    momentum = a.lit("momentum", 0.1)
    if momentum is None:
        a.todo(TODO_SEMANTICS, "momentum=None (cumulative average) has no nnx.BatchNorm equivalent")
        mom = "0.9"
    elif isinstance(momentum, float):
        mom = repr(round(1.0 - momentum, 12))
    else:
        mom = f"1.0 - {a['momentum']}"
    if a.lit("track_running_stats", True) is not True:
        a.todo(TODO_SEMANTICS, "track_running_stats=False: PyTorch uses batch statistics in eval too")
    affine = a.get("affine", "True")
    return (f"{a.use('TorchBatchNorm')}({a['num_features']}, axis=1, momentum={mom}, epsilon={a.get('eps', '1e-05')}, "
            f"use_bias={affine}, use_scale={affine}, rngs={rngs})")


def _layer_norm(a: Bound, rngs: str) -> str:
    shape = a.lit("normalized_shape", 0)
    if isinstance(shape, (tuple, list)) and len(shape) != 1:
        a.todo(TODO_UNMAPPED, "LayerNorm over several trailing axes: set reduction_axes/feature_axes")
    n = a["normalized_shape"]
    if isinstance(shape, (tuple, list)) and len(shape) == 1:
        n = str(shape[0])
    aff = a.get("elementwise_affine", "True")
    bias = a.get("bias", "True")
    use_bias = aff if bias == "True" else f"{aff} and {bias}"
    return f"nnx.LayerNorm({n}, epsilon={a.get('eps', '1e-05')}, use_scale={aff}, use_bias={use_bias}, rngs={rngs})"


def _rms_norm(a: Bound, rngs: str) -> str:
    eps = a.get("eps", "None")
    if eps == "None":
        a.todo(TODO_SEMANTICS, "RMSNorm eps=None means torch.finfo(dtype).eps in PyTorch")
        eps = "1.1920929e-07"
    return (f"nnx.RMSNorm({a['normalized_shape']}, epsilon={eps}, use_scale={a.get('elementwise_affine', 'True')}, "
            f"rngs={rngs})")


def _group_norm(a: Bound, rngs: str) -> str:
    aff = a.get("affine", "True")
    return (f"{a.use('ChannelsFirst')}(nnx.GroupNorm({a['num_channels']}, num_groups={a['num_groups']}, "
            f"epsilon={a.get('eps', '1e-05')}, use_scale={aff}, use_bias={aff}, rngs={rngs}))")


def _embedding(a: Bound, rngs: str) -> str:
    if a.has("max_norm") and a["max_norm"] != "None":
        a.todo(TODO_SEMANTICS, "Embedding max_norm renormalises rows in place at lookup")
    return f"nnx.Embed({a['num_embeddings']}, {a['embedding_dim']}, rngs={rngs})"


def _linear(a: Bound, rngs: str) -> str:
    return f"nnx.Linear({a['in_features']}, {a['out_features']}, use_bias={a.get('bias', 'True')}, rngs={rngs})"


def _dropout(a: Bound, rngs: str) -> str:
    return f"nnx.Dropout({a.get('p', '0.5')}, rngs={rngs})"


def _mha(a: Bound, rngs: str) -> str:
    a.todo(TODO_SEMANTICS, "nn.MultiheadAttention -> nnx.MultiHeadAttention: PyTorch is sequence-first unless "
           "batch_first=True, returns (output, weights), masks with True = ignore (Flax: True = attend), and packs "
           "q/k/v in in_proj_weight (the converter does not split it)")
    return (f"nnx.MultiHeadAttention(num_heads={a['num_heads']}, in_features={a['embed_dim']}, "
            f"dropout_rate={a.get('dropout', '0.0')}, use_bias={a.get('bias', 'True')}, decode=False, rngs={rngs})")


def _fn(src: str) -> Callable[[Bound, str], str]:
    return lambda a, rngs: src


def _partial(fn: str, **kw: tuple[str, str]) -> Callable[[Bound, str], str]:
    def handler(a: Bound, rngs: str) -> str:
        args = [f"{new}={a[old]}" for new, (old, _) in kw.items() if a.has(old)]
        return f"functools.partial({fn}, {', '.join(args)})" if args else fn
    return handler


def _gelu_layer(a: Bound, rngs: str) -> str:
    approx = a.lit("approximate", "none")
    if approx == "tanh":
        return a.use("gelu_tanh")
    if approx != "none":
        a.todo(TODO_SEMANTICS, "GELU approximate is not a literal: gelu_exact assumed")
    return a.use("gelu_exact")


def _pool(kind: str, n: int) -> LayerSpec:
    if kind == "max":
        params = (("kernel_size", None), ("stride", "None"), ("padding", "0"), ("dilation", "1"),
                  ("return_indices", "False"), ("ceil_mode", "False"))
        names = ("kernel_size", "stride", "padding", "dilation", "ceil_mode")
        helper = "torch_max_pool"
    else:
        params = (("kernel_size", None), ("stride", "None"), ("padding", "0"), ("ceil_mode", "False"),
                  ("count_include_pad", "True"), ("divisor_override", "None"))
        names = ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override")
        helper = "torch_avg_pool"

    def handler(a: Bound, rngs: str) -> str:
        if a.lit("return_indices", False) is not False:
            a.todo(TODO_UNMAPPED, "return_indices=True")
        args = "".join(f", {p}={a[p]}" for p in names if a.has(p))
        return f"functools.partial({a.use(helper)}{args}, ndim={n})"
    return LayerSpec(params, handler, "function")


def _adaptive(kind: str, n: int) -> LayerSpec:
    def handler(a: Bound, rngs: str) -> str:
        return f"functools.partial({a.use('torch_adaptive_pool')}, output_size={a['output_size']}, ndim={n}, op='{kind}')"
    return LayerSpec((("output_size", None),), handler, "function")


def _upsample(fixed: str) -> LayerSpec:
    """``nn.Upsample`` (``fixed`` empty) and its fixed-mode aliases as ``torch_interpolate`` partials."""
    names = ("size", "scale_factor") + (() if fixed else ("mode", "align_corners", "recompute_scale_factor"))
    params = tuple((p, "None") for p in names)

    def handler(a: Bound, rngs: str) -> str:
        if a.lit("mode", "nearest") == "area":
            a.todo(TODO_UNMAPPED, "Upsample(mode='area') is adaptive average pooling: use torch_adaptive_pool")
        args = "".join(a.kw(p) for p in names)
        return f"functools.partial({a.use('torch_interpolate')}{args}{fixed})"
    return LayerSpec(params, handler, "function")


def _container(name: str) -> Callable[[Bound, str], str]:
    def handler(a: Bound, rngs: str) -> str:
        if name == "Sequential":
            return f"{a.use('TorchSequential')}(" + ", ".join(a.extra) + ")"
        arg = a.get("modules", "")
        if name == "ModuleList":
            return f"nnx.List(list({arg}))" if arg else "nnx.List([])"
        return f"nnx.Dict(dict({arg}))" if arg else "nnx.Dict({})"
    return handler


_ACT = "function"

LAYERS: dict[str, LayerSpec] = {
    "Linear": LayerSpec((("in_features", None), ("out_features", None), ("bias", "True"),
                         ("device", "None"), ("dtype", "None")), _linear),
    "Conv1d": _conv(1), "Conv2d": _conv(2), "Conv3d": _conv(3),
    "ConvTranspose1d": _conv_transpose(1), "ConvTranspose2d": _conv_transpose(2),
    "ConvTranspose3d": _conv_transpose(3),
    "BatchNorm1d": LayerSpec((("num_features", None), ("eps", "1e-05"), ("momentum", "0.1"), ("affine", "True"),
                              ("track_running_stats", "True"), ("device", "None"), ("dtype", "None")), _batch_norm),
    "LayerNorm": LayerSpec((("normalized_shape", None), ("eps", "1e-05"), ("elementwise_affine", "True"),
                            ("bias", "True"), ("device", "None"), ("dtype", "None")), _layer_norm),
    "RMSNorm": LayerSpec((("normalized_shape", None), ("eps", "None"), ("elementwise_affine", "True"),
                          ("device", "None"), ("dtype", "None")), _rms_norm),
    "GroupNorm": LayerSpec((("num_groups", None), ("num_channels", None), ("eps", "1e-05"), ("affine", "True"),
                            ("device", "None"), ("dtype", "None")), _group_norm),
    "Embedding": LayerSpec((("num_embeddings", None), ("embedding_dim", None), ("padding_idx", "None"),
                            ("max_norm", "None"), ("norm_type", "2.0"), ("scale_grad_by_freq", "False"),
                            ("sparse", "False"), ("_weight", "None"), ("_freeze", "False"), ("device", "None"),
                            ("dtype", "None")), _embedding),
    "Dropout": LayerSpec((("p", "0.5"), ("inplace", "False")), _dropout),
    "MultiheadAttention": LayerSpec((("embed_dim", None), ("num_heads", None), ("dropout", "0.0"), ("bias", "True"),
                                     ("add_bias_kv", "False"), ("add_zero_attn", "False"), ("kdim", "None"),
                                     ("vdim", "None"), ("batch_first", "False"), ("device", "None"),
                                     ("dtype", "None")), _mha),
    "Identity": LayerSpec((), lambda a, r: f"{a.use('TorchIdentity')}()", _ACT),
    "GELU": LayerSpec((("approximate", "'none'"),), _gelu_layer, _ACT),
    "ReLU": LayerSpec((("inplace", "False"),), _fn("jax.nn.relu"), _ACT),
    "ReLU6": LayerSpec((("inplace", "False"),), _fn("jax.nn.relu6"), _ACT),
    "SiLU": LayerSpec((("inplace", "False"),), _fn("jax.nn.silu"), _ACT),
    "Tanh": LayerSpec((), _fn("jnp.tanh"), _ACT),
    "Sigmoid": LayerSpec((), _fn("jax.nn.sigmoid"), _ACT),
    "Hardswish": LayerSpec((("inplace", "False"),), _fn("jax.nn.hard_swish"), _ACT),
    "Hardsigmoid": LayerSpec((("inplace", "False"),), _fn("jax.nn.hard_sigmoid"), _ACT),
    "Softplus": LayerSpec((("beta", "1.0"), ("threshold", "20.0")), _fn("jax.nn.softplus"), _ACT),
    "ELU": LayerSpec((("alpha", "1.0"), ("inplace", "False")), _partial("jax.nn.elu", alpha=("alpha", "1.0")), _ACT),
    "LeakyReLU": LayerSpec((("negative_slope", "0.01"), ("inplace", "False")),
                           lambda a, r: f"functools.partial(jax.nn.leaky_relu, negative_slope={a.get('negative_slope', '0.01')})",
                           _ACT),
    "Softmax": LayerSpec((("dim", "None"),), _partial("jax.nn.softmax", axis=("dim", "None")), _ACT),
    "LogSoftmax": LayerSpec((("dim", "None"),), _partial("jax.nn.log_softmax", axis=("dim", "None")), _ACT),
    "GLU": LayerSpec((("dim", "-1"),), lambda a, r: f"functools.partial(jax.nn.glu, axis={a.get('dim', '-1')})", _ACT),
    "Flatten": LayerSpec((("start_dim", "1"), ("end_dim", "-1")),
                         lambda a, r: (f"functools.partial({a.use('torch_flatten')}, start_dim={a.get('start_dim', '1')}, "
                                       f"end_dim={a.get('end_dim', '-1')})"), _ACT),
    "MaxPool1d": _pool("max", 1), "MaxPool2d": _pool("max", 2), "MaxPool3d": _pool("max", 3),
    "AvgPool1d": _pool("avg", 1), "AvgPool2d": _pool("avg", 2), "AvgPool3d": _pool("avg", 3),
    "AdaptiveAvgPool1d": _adaptive("avg", 1), "AdaptiveAvgPool2d": _adaptive("avg", 2),
    "AdaptiveAvgPool3d": _adaptive("avg", 3), "AdaptiveMaxPool1d": _adaptive("max", 1),
    "AdaptiveMaxPool2d": _adaptive("max", 2), "AdaptiveMaxPool3d": _adaptive("max", 3),
    "Upsample": _upsample(""), "UpsamplingNearest2d": _upsample(", mode='nearest'"),
    "UpsamplingBilinear2d": _upsample(", mode='bilinear', align_corners=True"),
    "Sequential": LayerSpec((), _container("Sequential"), "container"),
    "ModuleList": LayerSpec((("modules", "None"),), _container("ModuleList"), "container"),
    "ModuleDict": LayerSpec((("modules", "None"),), _container("ModuleDict"), "container"),
}
LAYERS["BatchNorm2d"] = LAYERS["BatchNorm3d"] = LAYERS["BatchNorm1d"]

#: Third-party layers with a known translation (matched by qualified-name suffix).
EXTERNAL_LAYERS: dict[str, LayerSpec] = {
    "pytorch_utils.Conv1D": LayerSpec((("nf", None), ("nx", None)),
                                      lambda a, r: f"{a.use('Conv1D')}({a['nf']}, {a['nx']}, rngs={r})"),
    "einops.layers.torch.Rearrange": LayerSpec((("pattern", None),), lambda a, r: "", "einops"),
    "einops.layers.torch.Reduce": LayerSpec((("pattern", None), ("reduction", None)), lambda a, r: "", "einops"),
}


# ------------------------------------------------------------------------ functions/methods
def _kw_axis(a: Bound) -> str:
    return a.kw("dim", "axis") + a.kw("keepdim", "keepdims")


def _reduce(fn: str) -> Spec:
    def handler(a: Bound) -> str:
        if a.has("dtype"):
            a.todo(TODO_UNMAPPED, "dtype= of a reduction is not translated")
        return f"{fn}({a['self']}{_kw_axis(a)})"
    return Spec(("dim", "keepdim", "dtype"), handler)


def _var(fn: str) -> Spec:
    def handler(a: Bound) -> str:
        if a.has("correction"):
            ddof = a["correction"]
        else:
            unbiased = a.lit("unbiased", True)
            ddof = "1" if unbiased is True else "0" if unbiased is False else f"int({a['unbiased']})"
        return f"{fn}({a['self']}{_kw_axis(a)}, ddof={ddof})"
    return Spec(("dim", "unbiased", "keepdim", "correction"), handler)


def _unary(fn: str) -> Spec:
    return Spec((), lambda a: f"{fn}({a['self']})")


def _binary(fn: str, other: str = "other") -> Spec:
    return Spec((other,), lambda a: f"{fn}({a['self']}, {a[other]})")


def _softmax(fn: str) -> Spec:
    def handler(a: Bound) -> str:
        if not a.has("dim"):
            a.todo(TODO_SEMANTICS, "softmax without dim: PyTorch picks an axis implicitly")
        x = a["self"]
        if a.has("dtype") and a.lit("dtype", None) is not None:  # PyTorch casts the input first
            dtype = a["dtype"]
            x = f"({x} if {dtype} is None else {x}.astype({dtype}))" if dtype.isidentifier() else f"{x}.astype({dtype})"
        return f"{fn}({x}{a.kw('dim', 'axis')})"
    return Spec(("dim", "_stacklevel", "dtype"), handler, value_kwargs=("dtype",))


def _to(a: Bound) -> str:
    dtype = a.values.get("dtype") or next((v for v in [a.values.get("device", ""), *a.extra]
                                           if v.startswith("jnp.")), "")
    if dtype:
        return f"{a['self']}.astype({dtype})"
    other = a.values.get("device", "")
    if other and not other.startswith(("'", '"')) and "device" not in other:
        a.todo(TODO_SEMANTICS, f".to({other}): assumed to be a device; if it is a tensor or dtype, use astype")
    return a["self"]


def _size(a: Bound) -> str:
    return f"{a['self']}.shape[{a['dim']}]" if a.has("dim") else f"{a['self']}.shape"


def _view(a: Bound) -> str:
    if a.has("shape") and not a.extra and a["shape"].startswith("jnp."):
        return f"jax.lax.bitcast_convert_type({a['self']}, {a['shape']})"
    return f"{a['self']}.reshape({a.varargs('shape')})"


def _astype(dtype: str) -> Spec:
    return Spec((), lambda a: f"{a['self']}.astype({dtype})")


def _clamp(a: Bound) -> str:
    return f"jnp.clip({a['self']}, {a.get('min', 'None')}, {a.get('max', 'None')})"


def _gelu(a: Bound) -> str:
    approx = a.lit("approximate", "none")
    if approx not in ("none", "tanh"):
        a.todo(TODO_SEMANTICS, "approximate is not a literal; exact GELU assumed")
    return f"jax.nn.gelu({a['self']}, approximate={approx == 'tanh'})"


def _conv_fn(a: Bound) -> str:
    return (f"{a.use('torch_conv')}({a['self']}, {a['weight']}{a.kw('bias')}{a.kw('stride')}{a.kw('padding')}"
            f"{a.kw('dilation')}{a.kw('groups')})")


#: torch.nn layers a project class may subclass -> the prelude base class that keeps PyTorch's
#: attributes and parameter names (and its ``ndim`` for convolutions).
LAYER_BASES: dict[str, tuple[str, int]] = {
    "Linear": ("TorchLinear", 0), "Conv1d": ("TorchConv", 1), "Conv2d": ("TorchConv", 2),
    "Conv3d": ("TorchConv", 3), "LayerNorm": ("TorchLayerNorm", 0), "GroupNorm": ("TorchGroupNorm", 0),
    "Embedding": ("TorchEmbedding", 0),
}


def _pad(a: Bound) -> str:
    return f"{a.use('torch_pad')}({a['self']}, {a['pad']}{a.kw('mode')}{a.kw('value')})"


def _dropout_fn(a: Bound) -> str:
    """``F.dropout(x, p=0.5, training=True)``: PyTorch's default is training=True; the mask is
    drawn from the module's ``nnx.Rngs`` only when training."""
    training = a.lit("training", True)
    if training is False or a.lit("p", 0.5) == 0:
        return a["self"]
    src = a.values.get("__rngs__")
    if not src:
        a.todo(TODO_RNG, "F.dropout with no nnx.Rngs in reach: identity here; pass rngs for training")
        return a["self"]
    return (f"{a.use('torch_dropout')}({a['self']}, {a.get('p', '0.5')}, {a.get('training', 'True')}, {src}, "
            f"{a.get('__where__', repr('forward'))!r})")


def _creation(fn: str) -> Spec:
    def handler(a: Bound) -> str:
        return f"{fn}({a.varargs('size')}{a.kw('dtype')})"
    return Spec(("size", "out", "dtype", "layout", "device", "requires_grad"), handler, varargs=True)


def _arange(a: Bound) -> str:
    args = [a["start"]] if a.has("start") else []
    if a.has("end"):
        args.append(a["end"])
    if a.has("step"):
        args.append(a["step"])
    return f"jnp.arange({', '.join(args)}{a.kw('dtype')})"


def rng_key(a: Bound, stream: str = "dropout") -> str | None:
    """Source of a fresh PRNG key for a random draw, from the ``nnx.Rngs`` the translator put in
    ``__rngs__`` (``rngs`` in ``__init__`` draws from the ``params`` stream; a module method uses
    ``self.rngs``, a helper function its ``rngs`` parameter). None (and a TODO) without one."""
    src = a.values.get("__rngs__")
    if not src:
        a.todo(TODO_RNG, "random draw with no nnx.Rngs in reach: pass a PRNG key and use jax.random")
        return None
    if src == "rngs" and a.values.get("__where__") == "__init__":
        return "rngs.params()"
    return f"{a.use('rng_key')}({src}, {a.get('__where__', repr('forward'))!r})"


_RNG_PARAMS = ("__rngs__", "__where__")


def _random(kind: str) -> Spec:
    def handler(a: Bound) -> str:
        shape = a.varargs("size")
        key = rng_key(a, "params") or "jax.random.key(0)"
        fn = "jax.random.normal" if kind == "normal" else "jax.random.uniform"
        return f"{fn}({key}, {shape}{a.kw('dtype')})"
    return Spec(("size", "generator", "out", "dtype", "layout", "device", "requires_grad", *_RNG_PARAMS),
                handler, varargs=True)


def _random_like(kind: str) -> Spec:
    def handler(a: Bound) -> str:
        key = rng_key(a) or "jax.random.key(0)"
        fn = "jax.random.normal" if kind == "normal" else "jax.random.uniform"
        return f"{fn}({key}, {a['self']}.shape, dtype={a.get('dtype', a['self'] + '.dtype')})"
    return Spec(("self", "dtype", "layout", "device", "requires_grad", "memory_format", *_RNG_PARAMS), handler)


def _bernoulli(a: Bound) -> str:
    """``torch.bernoulli(probs)`` / ``x.bernoulli_(p)`` (a fresh tensor of x's shape)."""
    key = rng_key(a) or "jax.random.key(0)"
    p = a.get("p", a["self"])
    return f"jax.random.bernoulli({key}, {p}, {a['self']}.shape).astype({a['self']}.dtype)"


def _randint(a: Bound) -> str:
    key = rng_key(a) or "jax.random.key(0)"
    low, high = (a["low"], a["high"]) if a.has("high") else ("0", a["low"])
    return f"jax.random.randint({key}, {a['size']}, {low}, {high}{a.kw('dtype')})"


def _uniform_(a: Bound) -> str:
    key = rng_key(a, "params") or "jax.random.key(0)"
    return (f"jax.random.uniform({key}, {a['self']}.shape, {a['self']}.dtype, {a.get('from', '0.0')}, "
            f"{a.get('to', '1.0')})")


def _normal_(a: Bound) -> str:
    key = rng_key(a, "params") or "jax.random.key(0)"
    return f"({a.get('mean', '0.0')} + {a.get('std', '1.0')} * jax.random.normal({key}, {a['self']}.shape, {a['self']}.dtype))"


def _cat(fn: str) -> Spec:
    return Spec(("tensors", "dim"), lambda a: f"{fn}({a['tensors']}, axis={a.get('dim', '0')})")


def _where(a: Bound) -> str:
    if not a.has("input"):
        a.todo(TODO_SEMANTICS, "one-argument torch.where has a data-dependent shape: use jnp.nonzero(size=...)")
        return f"jnp.nonzero({a['condition']})"
    return f"jnp.where({a['condition']}, {a['input']}, {a['other']})"


def _meshgrid(a: Bound) -> str:
    return f"jnp.meshgrid(*{a.varargs('tensors')}, indexing={a.get('indexing', repr('ij'))})"


def _sdpa(a: Bound) -> str:
    dp = a.lit("dropout_p", 0.0)
    if dp not in (0, 0.0):
        a.todo(TODO_RNG, "scaled_dot_product_attention dropout_p is ignored (eval semantics only)")
    args = "".join(f", {k}={a[k]}" for k in ("attn_mask", "is_causal", "scale") if a.has(k))
    return f"{a.use('torch_sdpa')}({a['query']}, {a['key']}, {a['value']}{args})"


def _interpolate(a: Bound) -> str:
    mode = a.lit("mode", "nearest")
    if mode == "area":
        a.todo(TODO_UNMAPPED, "F.interpolate(mode='area') is adaptive average pooling: use torch_adaptive_pool")
    args = "".join(a.kw(k) for k in ("size", "scale_factor", "mode", "align_corners", "recompute_scale_factor",
                                     "antialias"))
    return f"{a.use('torch_interpolate')}({a['self']}{args})"


def _expand(a: Bound) -> str:
    return f"{a.use('torch_expand')}({a['self']}, *{a.varargs('size')})"


def _repeat(a: Bound) -> str:
    return f"jnp.tile({a['self']}, {a.varargs('repeats')})"


def _permute(a: Bound) -> str:
    return f"jnp.transpose({a['self']}, {a.varargs('dims')})"


def _flip(a: Bound) -> str:
    return f"jnp.flip({a['self']}, axis={a.varargs('dims')})"


def _masked_fill(a: Bound) -> str:
    return f"jnp.where({a['mask']}, {a['value']}, {a['self']})"


def _new(fn: str) -> Spec:
    return Spec(("size", "dtype", "device", "requires_grad"),
                lambda a: f"{fn}({a.varargs('size')}, dtype={a.get('dtype', a['self'] + '.dtype')})", varargs=True)


def _chunk(a: Bound) -> str:
    return f"{a.use('torch_chunk')}({a['self']}, {a['chunks']}{a.kw('dim')})"


def _split(a: Bound) -> str:
    return f"{a.use('torch_split')}({a['self']}, {a['split_size_or_sections']}{a.kw('dim')})"


def _max_min(helper: str) -> Spec:
    return Spec(("dim", "keepdim"), lambda a: f"{a.use(helper)}({a['self']}{a.kw('dim')}{a.kw('keepdim')})")


def _item(a: Bound) -> str:
    a.todo(TODO_SEMANTICS, ".item() needs a concrete value: it fails under jit (ConcretizationTypeError)")
    return f"{a['self']}.item()"


def _tolist(a: Bound) -> str:
    a.todo(TODO_SEMANTICS, ".tolist() needs a concrete value: it fails under jit")
    return f"{a['self']}.tolist()"


_IDENT = Spec((), lambda a: a["self"])

#: Tensor methods (``x.view(...)``); ``self`` is the receiver. Most also exist as ``torch.X(input, ...)``.
METHODS: dict[str, Spec] = {
    "view": Spec(("shape",), _view, varargs=True),
    "reshape": Spec(("shape",), lambda a: f"{a['self']}.reshape({a.varargs('shape')})", varargs=True),
    "permute": Spec(("dims",), _permute, varargs=True),
    "transpose": Spec(("dim0", "dim1"), lambda a: f"jnp.swapaxes({a['self']}, {a['dim0']}, {a['dim1']})"),
    "swapaxes": Spec(("axis0", "axis1"), lambda a: f"jnp.swapaxes({a['self']}, {a['axis0']}, {a['axis1']})"),
    "t": Spec((), lambda a: f"{a['self']}.T"),
    "contiguous": Spec(("memory_format",), lambda a: a["self"]),
    "clone": Spec(("memory_format",), lambda a: a["self"]),
    "detach": Spec((), lambda a: f"jax.lax.stop_gradient({a['self']})"),
    "cpu": _IDENT, "cuda": Spec(("device", "non_blocking"), lambda a: a["self"]),
    "to": Spec(("device", "dtype", "non_blocking", "copy", "memory_format"), _to, varargs=True),
    "type_as": Spec(("other",), lambda a: f"{a['self']}.astype({a['other']}.dtype)"),
    "float": _astype("jnp.float32"), "half": _astype("jnp.float16"), "bfloat16": _astype("jnp.bfloat16"),
    "double": _astype("jnp.float64"), "long": _astype("jnp.int32"), "int": _astype("jnp.int32"),
    "bool": _astype("jnp.bool_"),
    "size": Spec(("dim",), _size),
    "dim": Spec((), lambda a: f"{a['self']}.ndim"),
    "numel": Spec((), lambda a: f"{a['self']}.size"),
    "unsqueeze": Spec(("dim",), lambda a: f"jnp.expand_dims({a['self']}, {a['dim']})"),
    "squeeze": Spec(("dim",), lambda a: f"{a.use('torch_squeeze')}({a['self']}{a.kw('dim')})"),
    "flatten": Spec(("start_dim", "end_dim"),
                    lambda a: f"{a.use('torch_flatten')}({a['self']}{a.kw('start_dim')}{a.kw('end_dim')})"),
    "unflatten": Spec(("dim", "sizes"), lambda a: f"{a.use('torch_unflatten')}({a['self']}, {a['dim']}, {a['sizes']})"),
    "expand": Spec(("size",), _expand, varargs=True),
    "expand_as": Spec(("other",), lambda a: f"jnp.broadcast_to({a['self']}, {a['other']}.shape)"),
    "repeat": Spec(("repeats",), _repeat, varargs=True),
    "repeat_interleave": Spec(("repeats", "dim"),
                              lambda a: f"jnp.repeat({a['self']}, {a['repeats']}{a.kw('dim', 'axis')})"),
    "chunk": Spec(("chunks", "dim"), _chunk),
    "split": Spec(("split_size_or_sections", "dim"), _split),
    "unbind": Spec(("dim",), lambda a: f"{a.use('torch_unbind')}({a['self']}{a.kw('dim')})"),
    "masked_fill": Spec(("mask", "value"), _masked_fill),
    "sum": _reduce("jnp.sum"), "mean": _reduce("jnp.mean"), "prod": _reduce("jnp.prod"),
    "amax": _reduce("jnp.max"), "amin": _reduce("jnp.min"), "all": _reduce("jnp.all"), "any": _reduce("jnp.any"),
    "argmax": _reduce("jnp.argmax"), "argmin": _reduce("jnp.argmin"), "logsumexp": _reduce("jax.nn.logsumexp"),
    "std": _var("jnp.std"), "var": _var("jnp.var"),
    "max": _max_min("torch_max"), "min": _max_min("torch_min"),
    "softmax": _softmax("jax.nn.softmax"), "log_softmax": _softmax("jax.nn.log_softmax"),
    "abs": _unary("jnp.abs"), "exp": _unary("jnp.exp"), "log": _unary("jnp.log"), "sqrt": _unary("jnp.sqrt"),
    "rsqrt": _unary("jax.lax.rsqrt"), "sin": _unary("jnp.sin"), "cos": _unary("jnp.cos"), "tanh": _unary("jnp.tanh"),
    "sigmoid": _unary("jax.nn.sigmoid"), "relu": _unary("jax.nn.relu"), "neg": _unary("jnp.negative"),
    "floor": _unary("jnp.floor"), "ceil": _unary("jnp.ceil"), "round": _unary("jnp.round"), "sign": _unary("jnp.sign"),
    "erf": _unary("jax.scipy.special.erf"), "log1p": _unary("jnp.log1p"), "expm1": _unary("jnp.expm1"),
    "reciprocal": _unary("jnp.reciprocal"), "square": _unary("jnp.square"), "isnan": _unary("jnp.isnan"),
    "isinf": _unary("jnp.isinf"), "logical_not": _unary("jnp.logical_not"), "sinh": _unary("jnp.sinh"),
    "add": Spec(("other", "alpha"), lambda a: f"(({a['self']}) + ({a['other']}){' * (' + a['alpha'] + ')' if a.has('alpha') else ''})"),
    "sub": Spec(("other", "alpha"), lambda a: f"(({a['self']}) - ({a['other']}){' * (' + a['alpha'] + ')' if a.has('alpha') else ''})"),
    "mul": _binary("jnp.multiply"), "div": Spec(("other", "rounding_mode"),
                                                lambda a: (f"jnp.floor_divide({a['self']}, {a['other']})"
                                                           if a.lit("rounding_mode", None) == "floor"
                                                           else f"jnp.true_divide({a['self']}, {a['other']})")),
    "pow": _binary("jnp.power", "exponent"), "matmul": _binary("jnp.matmul"), "bmm": _binary("jnp.matmul", "mat2"),
    "mm": _binary("jnp.matmul", "mat2"), "maximum": _binary("jnp.maximum"), "minimum": _binary("jnp.minimum"),
    "eq": _binary("jnp.equal"), "ne": _binary("jnp.not_equal"), "gt": _binary("jnp.greater"),
    "lt": _binary("jnp.less"), "ge": _binary("jnp.greater_equal"), "le": _binary("jnp.less_equal"),
    "logical_and": _binary("jnp.logical_and"), "logical_or": _binary("jnp.logical_or"),
    "clamp": Spec(("min", "max"), _clamp), "clip": Spec(("min", "max"), _clamp),
    "clamp_min": Spec(("min",), lambda a: f"jnp.maximum({a['self']}, {a['min']})"),
    "bernoulli": Spec(("p", "generator", *_RNG_PARAMS), _bernoulli),
    "uniform": Spec(("from", "to", "generator", *_RNG_PARAMS), _uniform_),
    "normal": Spec(("mean", "std", "generator", *_RNG_PARAMS), _normal_),
    "new_zeros": _new("jnp.zeros"), "new_ones": _new("jnp.ones"), "new_empty": _new("jnp.zeros"),
    "new_full": Spec(("size", "fill_value", "dtype"),
                     lambda a: f"jnp.full({a['size']}, {a['fill_value']}, dtype={a.get('dtype', a['self'] + '.dtype')})"),
    "gather": Spec(("dim", "index"), lambda a: f"jnp.take_along_axis({a['self']}, {a['index']}, axis={a['dim']})"),
    "index_select": Spec(("dim", "index"), lambda a: f"jnp.take({a['self']}, {a['index']}, axis={a['dim']})"),
    "cumsum": Spec(("dim", "dtype"), lambda a: f"jnp.cumsum({a['self']}, axis={a['dim']})"),
    "cumprod": Spec(("dim", "dtype"), lambda a: f"jnp.cumprod({a['self']}, axis={a['dim']})"),
    "flip": Spec(("dims",), _flip, varargs=True),
    "roll": Spec(("shifts", "dims"), lambda a: f"jnp.roll({a['self']}, {a['shifts']}{a.kw('dims', 'axis')})"),
    "tril": Spec(("diagonal",), lambda a: f"jnp.tril({a['self']}{a.kw('diagonal', 'k')})"),
    "triu": Spec(("diagonal",), lambda a: f"jnp.triu({a['self']}{a.kw('diagonal', 'k')})"),
    "norm": Spec(("p", "dim", "keepdim", "dtype"),
                 lambda a: f"jnp.linalg.norm({a['self']}{a.kw('p', 'ord')}{_kw_axis(a)})"),
    "item": Spec((), _item),
    "tolist": Spec((), _tolist),
    "type": Spec(("dtype",), lambda a: f"{a['self']}.astype({a['dtype']})"),
    "float_power": _binary("jnp.float_power", "exponent"),
}

#: Tensor methods that mutate in place -> their out-of-place method (``x.add_(y)`` -> ``x = x + y``).
INPLACE: dict[str, str] = {f"{m}_": m for m in (
    "add", "sub", "mul", "div", "pow", "clamp", "masked_fill", "copy", "zero", "fill", "relu", "sigmoid",
    "tanh", "exp", "sqrt", "abs", "neg", "floor", "round", "unsqueeze", "squeeze", "transpose", "t",
    "clamp_min", "clip", "bernoulli", "uniform", "normal")}
METHODS["copy"] = Spec(("src", "non_blocking"), lambda a: f"jnp.broadcast_to({a['src']}, {a['self']}.shape).astype({a['self']}.dtype)")
METHODS["zero"] = Spec((), lambda a: f"jnp.zeros_like({a['self']})")
METHODS["fill"] = Spec(("value",), lambda a: f"jnp.full_like({a['self']}, {a['value']})")

#: torch.* and torch.nn.functional.* functions, keyed by qualified name.
FUNCTIONS: dict[str, Spec] = {
    "torch.cat": _cat("jnp.concatenate"), "torch.concat": _cat("jnp.concatenate"),
    "torch.concatenate": _cat("jnp.concatenate"), "torch.stack": _cat("jnp.stack"),
    "torch.zeros": _creation("jnp.zeros"), "torch.ones": _creation("jnp.ones"), "torch.empty": _creation("jnp.zeros"),
    "torch.full": Spec(("size", "fill_value", "out", "dtype", "layout", "device", "requires_grad"),
                       lambda a: f"jnp.full({a['size']}, {a['fill_value']}{a.kw('dtype')})"),
    "torch.zeros_like": Spec(("self", "dtype"), lambda a: f"jnp.zeros_like({a['self']}{a.kw('dtype')})"),
    "torch.ones_like": Spec(("self", "dtype"), lambda a: f"jnp.ones_like({a['self']}{a.kw('dtype')})"),
    "torch.empty_like": Spec(("self", "dtype"), lambda a: f"jnp.zeros_like({a['self']}{a.kw('dtype')})"),
    "torch.full_like": Spec(("self", "fill_value", "dtype"),
                            lambda a: f"jnp.full_like({a['self']}, {a['fill_value']}{a.kw('dtype')})"),
    "torch.arange": Spec(("start", "end", "step", "out", "dtype", "layout", "device", "requires_grad"), _arange),
    "torch.linspace": Spec(("start", "end", "steps", "out", "dtype", "layout", "device", "requires_grad"),
                           lambda a: f"jnp.linspace({a['start']}, {a['end']}, {a['steps']}{a.kw('dtype')})"),
    "torch.tensor": Spec(("data", "dtype", "device", "requires_grad", "pin_memory"),
                         lambda a: f"jnp.asarray({a['data']}{a.kw('dtype')})"),
    "torch.as_tensor": Spec(("data", "dtype", "device"), lambda a: f"jnp.asarray({a['data']}{a.kw('dtype')})"),
    "torch.Tensor": Spec(("data",), lambda a: f"jnp.asarray({a['data']}, dtype=jnp.float32)"),
    "torch.FloatTensor": Spec(("data",), lambda a: f"jnp.asarray({a['data']}, dtype=jnp.float32)"),
    "torch.LongTensor": Spec(("data",), lambda a: f"jnp.asarray({a['data']}, dtype=jnp.int32)"),
    "torch.from_numpy": Spec(("data",), lambda a: f"jnp.asarray({a['data']})"),
    "torch.randn": _random("normal"), "torch.rand": _random("uniform"),
    "torch.where": Spec(("condition", "input", "other"), _where),
    "torch.einsum": Spec(("equation",), lambda a: f"jnp.einsum({', '.join([a['equation'], *a.extra])})", varargs=True),
    "torch.meshgrid": Spec(("tensors", "indexing"), _meshgrid, varargs=True),
    "torch.outer": Spec(("self", "vec2"), lambda a: f"jnp.outer({a['self']}, {a['vec2']})"),
    "torch.broadcast_to": Spec(("self", "size"), lambda a: f"jnp.broadcast_to({a['self']}, {a['size']})"),
    "torch.finfo": Spec(("type",), lambda a: f"jnp.finfo({a.get('type', 'jnp.float32')})"),
    "torch.iinfo": Spec(("type",), lambda a: f"jnp.iinfo({a['type']})"),
    "torch.is_tensor": Spec(("obj",), lambda a: f"isinstance({a['obj']}, jax.Array)"),
    "torch.is_floating_point": Spec(("self",), lambda a: f"jnp.issubdtype({a['self']}.dtype, jnp.floating)"),
    "torch.jit.is_tracing": Spec((), lambda a: "False"),
    "torch.jit.is_scripting": Spec((), lambda a: "False"),
    "torch.compiler.is_compiling": Spec((), lambda a: "False"),
    "torch.nn.functional.gelu": Spec(("self", "approximate"), _gelu),
    "torch.nn.functional.relu": Spec(("self", "inplace"), lambda a: f"jax.nn.relu({a['self']})"),
    "torch.nn.functional.relu6": Spec(("self", "inplace"), lambda a: f"jax.nn.relu6({a['self']})"),
    "torch.nn.functional.silu": Spec(("self", "inplace"), lambda a: f"jax.nn.silu({a['self']})"),
    "torch.nn.functional.sigmoid": Spec(("self",), lambda a: f"jax.nn.sigmoid({a['self']})"),
    "torch.nn.functional.tanh": Spec(("self",), lambda a: f"jnp.tanh({a['self']})"),
    "torch.nn.functional.hardswish": Spec(("self", "inplace"), lambda a: f"jax.nn.hard_swish({a['self']})"),
    "torch.nn.functional.elu": Spec(("self", "alpha", "inplace"), lambda a: f"jax.nn.elu({a['self']}{a.kw('alpha')})"),
    "torch.nn.functional.leaky_relu": Spec(("self", "negative_slope", "inplace"),
                                           lambda a: f"jax.nn.leaky_relu({a['self']}{a.kw('negative_slope')})"),
    "torch.nn.functional.softplus": Spec(("self", "beta", "threshold"), lambda a: f"jax.nn.softplus({a['self']})"),
    "torch.nn.functional.glu": Spec(("self", "dim"), lambda a: f"jax.nn.glu({a['self']}, axis={a.get('dim', '-1')})"),
    "torch.nn.functional.softmax": Spec(("self", "dim", "_stacklevel", "dtype"), _softmax("jax.nn.softmax").handler,
                                        value_kwargs=("dtype",)),
    "torch.nn.functional.log_softmax": Spec(("self", "dim", "_stacklevel", "dtype"),
                                            _softmax("jax.nn.log_softmax").handler, value_kwargs=("dtype",)),
    "torch.nn.functional.pad": Spec(("self", "pad", "mode", "value"), _pad),
    "torch.nn.functional.linear": Spec(("self", "weight", "bias"),
                                       lambda a: f"{a.use('torch_linear')}({a['self']}, {a['weight']}{a.kw('bias')})"),
    "torch.nn.functional.conv1d": Spec(("self", "weight", "bias", "stride", "padding", "dilation", "groups"),
                                       lambda a: _conv_fn(a)),
    "torch.nn.functional.conv2d": Spec(("self", "weight", "bias", "stride", "padding", "dilation", "groups"),
                                       lambda a: _conv_fn(a)),
    "torch.nn.functional.conv3d": Spec(("self", "weight", "bias", "stride", "padding", "dilation", "groups"),
                                       lambda a: _conv_fn(a)),
    "torch.nn.functional.group_norm": Spec(
        ("self", "num_groups", "weight", "bias", "eps"),
        lambda a: f"{a.use('torch_group_norm')}({a['self']}, {a['num_groups']}{a.kw('weight')}{a.kw('bias')}{a.kw('eps')})"),
    "torch.nn.functional.layer_norm": Spec(
        ("self", "normalized_shape", "weight", "bias", "eps"),
        lambda a: (f"{a.use('torch_layer_norm')}({a['self']}, {a['normalized_shape']}{a.kw('weight')}"
                   f"{a.kw('bias')}{a.kw('eps')})")),
    "torch.nn.functional.normalize": Spec(("self", "p", "dim", "eps"),
                                          lambda a: f"{a.use('torch_normalize')}({a['self']}{a.kw('p')}{a.kw('dim')}{a.kw('eps')})"),
    "torch.nn.functional.dropout": Spec(("self", "p", "training", "inplace", *_RNG_PARAMS), _dropout_fn),
    "torch.rand_like": _random_like("uniform"), "torch.randn_like": _random_like("normal"),
    "torch.bernoulli": Spec(("self", "p", "generator", *_RNG_PARAMS), _bernoulli),
    "torch.randint": Spec(("low", "high", "size", "generator", "out", "dtype", "layout", "device", "requires_grad",
                           *_RNG_PARAMS), _randint),
    "torch.nn.functional.scaled_dot_product_attention": Spec(
        ("query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale", "enable_gqa"), _sdpa),
    "torch.nn.functional.interpolate": Spec(("self", "size", "scale_factor", "mode", "align_corners",
                                             "recompute_scale_factor", "antialias"), _interpolate),
    "torch.nn.functional.upsample": Spec(("self", "size", "scale_factor", "mode", "align_corners"), _interpolate),
    "torch.nn.functional.embedding": Spec(("self", "weight"), lambda a: f"jnp.take({a['weight']}, {a['self']}, axis=0)"),
    "torch.nn.functional.one_hot": Spec(("self", "num_classes"),
                                        lambda a: f"jax.nn.one_hot({a['self']}, {a['num_classes']}, dtype=jnp.int32)"),
}
_BOTH = ("reshape", "permute", "transpose", "swapaxes", "t", "flatten", "unflatten", "unsqueeze", "squeeze",
         "chunk", "split", "unbind", "masked_fill", "sum", "mean", "prod", "amax", "amin", "all", "any", "argmax",
         "argmin", "logsumexp", "std", "var", "max", "min", "softmax", "log_softmax", "abs", "exp", "log", "sqrt",
         "rsqrt", "sin", "cos", "tanh", "sigmoid", "relu", "neg", "floor", "ceil", "round", "sign", "erf", "log1p",
         "expm1", "reciprocal", "square", "isnan", "isinf", "logical_not", "add", "sub", "mul", "div", "pow", "matmul",
         "bmm", "mm", "maximum", "minimum", "eq", "ne", "gt", "lt", "ge", "le", "logical_and", "logical_or", "clamp",
         "clip", "gather", "index_select", "cumsum", "cumprod", "flip", "roll", "tril", "triu", "norm", "detach",
         "repeat_interleave", "sinh")
for _name in _BOTH:
    _m = METHODS[_name]
    FUNCTIONS.setdefault(f"torch.{_name}", Spec(("self", *_m.params), _m.handler, _m.varargs))

#: Context managers / decorators handled by the statement translator (removed with a TODO there).
CONTEXT_FUNCTIONS: frozenset[str] = frozenset({
    "torch.no_grad", "torch.inference_mode", "torch.enable_grad", "torch.autocast", "torch.amp.autocast",
    "torch.cuda.amp.autocast", "torch.set_grad_enabled", "torch.jit.unused", "torch.jit.ignore",
    "torch.compiler.disable", "torch.jit.script", "torch.jit.script_if_tracing", "torch.fx.wrap",
})

#: torch dtypes -> jnp dtypes (int64 becomes int32 unless jax_enable_x64: shared/FIELD.md).
DTYPES: dict[str, str] = {
    "torch.float32": "jnp.float32", "torch.float": "jnp.float32", "torch.float16": "jnp.float16",
    "torch.half": "jnp.float16", "torch.bfloat16": "jnp.bfloat16", "torch.float64": "jnp.float64",
    "torch.double": "jnp.float64", "torch.int64": "jnp.int32", "torch.long": "jnp.int32", "torch.int32": "jnp.int32",
    "torch.int": "jnp.int32", "torch.int16": "jnp.int16", "torch.int8": "jnp.int8", "torch.uint8": "jnp.uint8",
    "torch.bool": "jnp.bool_", "torch.complex64": "jnp.complex64",
}

#: torch type names in annotations -> JAX.
ANNOTATION_TYPES: dict[str, str] = {
    "torch.Tensor": "jax.Array", "torch.FloatTensor": "jax.Array", "torch.LongTensor": "jax.Array",
    "torch.BoolTensor": "jax.Array", "torch.nn.Module": "nnx.Module", "torch.nn.Parameter": "nnx.Param",
    "torch.Size": "tuple", "torch.device": "object", "torch.dtype": "jnp.dtype",
}


def bind(spec_params: tuple[str, ...], args: list[tuple[str | None, str]], varargs: bool) -> Bound:
    """Bind ``(keyword or None, source)`` arguments to ``spec_params`` as PyTorch would. With
    ``varargs``, the first non-``self`` parameter takes the first positional and the rest go to
    :attr:`Bound.extra` (``view(a, b)``). Raises :class:`Unbindable` for an unknown keyword or
    surplus positionals."""
    values: dict[str, str] = {}
    extra: list[str] = []
    positional = [src for kw, src in args if kw is None]
    fixed = len(spec_params)
    if varargs:
        fixed = min(fixed, (2 if spec_params and spec_params[0] == "self" else 1))
    for i, src in enumerate(positional):
        if i < fixed:
            values[spec_params[i]] = src
        elif varargs:
            extra.append(src)
        else:
            raise Unbindable(f"{len(positional)} positional arguments, expected at most {len(spec_params)}")
    for kw, src in args:
        if kw is None:
            continue
        if kw not in spec_params:
            raise Unbindable(f"unknown keyword {kw!r}")
        values[kw] = src
    return Bound(values, extra)
