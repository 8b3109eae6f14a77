"""Helpers copied into generated Flax NNX stubs (only those a stub uses, with their dependencies).

This file is read as TEXT by the stub generator (:mod:`migrate_lens.stubs.prelude`), never
imported by the translator, so migrate-lens itself does not need JAX. Each top-level definition
is one helper; the generator copies the source of the ones a stub references, so every stub is a
standalone file that needs only jax, flax, numpy (and einops when the source used it).

Conventions (documented in docs/stubs.md):
- Every stub keeps PyTorch's tensor layout at module boundaries (NCHW for images), so parity
  checks and mixed PyTorch/JAX pipelines compare like with like. Convolutions and GroupNorm run
  channels-last inside :class:`ChannelsFirst`, which moves the channel axis around the layer;
  XLA fuses the transposes.
- ``torch_*`` helpers reproduce PyTorch semantics that have no one-call JAX equivalent; each
  docstring names the difference it covers.
"""

# ruff: noqa: E731  (helpers are copied verbatim into generated code)
from __future__ import annotations

import dataclasses
import difflib
import functools
import inspect
import math
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx


class Buffer(nnx.Variable):  # type: ignore[type-arg]
    """A PyTorch buffer (``register_buffer``): state that is not trained. ``persistent=False``
    buffers are not in the PyTorch state_dict, so the converter does not require them."""


class ChannelsFirst(nnx.Module):
    """Runs a channels-last NNX layer (``nnx.Conv``, ``nnx.ConvTranspose``, ``nnx.GroupNorm``)
    on PyTorch channels-first input ``(N, C, *spatial)`` and returns channels-first output."""

    def __init__(self, layer: nnx.Module) -> None:
        self.layer = layer

    def __call__(self, x: jax.Array) -> jax.Array:
        y = self.layer(jnp.moveaxis(x, 1, -1))
        return jnp.moveaxis(y, -1, 1)

    @property
    def weight(self) -> jax.Array:
        """The PyTorch-layout weight (``OIHW`` for a conv, ``(C,)`` for a norm), for code that reads
        ``conv.weight`` (its dtype, its shape)."""
        kernel = getattr(self.layer, "kernel", None)
        if kernel is None:
            return self.layer.scale[...]
        k = kernel[...]
        return jnp.transpose(k, (k.ndim - 1, k.ndim - 2, *range(k.ndim - 2)))

    @property
    def bias(self) -> Any:
        bias = getattr(self.layer, "bias", None)
        return None if bias is None else bias[...]


class Conv1D(nnx.Module):
    """transformers' ``Conv1D``: a linear layer whose weight is stored ``(in, out)`` (GPT-2).
    Parameters keep the PyTorch names ``weight``/``bias``, so the converter copies them as is."""

    def __init__(self, nf: int, nx: int, *, rngs: nnx.Rngs) -> None:
        self.nf = nf
        self.weight = nnx.Param(jax.random.normal(rngs.params(), (nx, nf)) * 0.02)
        self.bias = nnx.Param(jnp.zeros((nf,)))

    def __call__(self, x: jax.Array) -> jax.Array:
        return x @ self.weight + self.bias


def identity(x: Any, *args: Any, **kwargs: Any) -> Any:
    """``nn.Identity``: returns its first argument, ignores the rest (as PyTorch does)."""
    return x


def gelu_exact(x: jax.Array) -> jax.Array:
    """PyTorch's default GELU (erf form). ``jax.nn.gelu`` defaults to the tanh approximation
    (max diff 4.7e-4 on [-6, 6]; shared/FIELD.md)."""
    return jax.nn.gelu(x, approximate=False)


def gelu_tanh(x: jax.Array) -> jax.Array:
    """GELU, tanh approximation (PyTorch ``approximate='tanh'``, transformers ``gelu_new``)."""
    return jax.nn.gelu(x, approximate=True)


def quick_gelu(x: jax.Array) -> jax.Array:
    """transformers ``quick_gelu``: ``x * sigmoid(1.702 x)``."""
    return x * jax.nn.sigmoid(1.702 * x)


#: transformers' ``ACT2FN`` names -> JAX functions with the same numerics.
ACT2FN = {
    "gelu": gelu_exact,
    "gelu_new": gelu_tanh,
    "gelu_pytorch_tanh": gelu_tanh,
    "gelu_fast": gelu_tanh,
    "quick_gelu": quick_gelu,
    "relu": jax.nn.relu,
    "relu6": jax.nn.relu6,
    "silu": jax.nn.silu,
    "swish": jax.nn.silu,
    "tanh": jnp.tanh,
    "sigmoid": jax.nn.sigmoid,
    "leaky_relu": jax.nn.leaky_relu,
    "linear": identity,
}


#: ``torch.__version__`` in a stub: the PyTorch release whose semantics the stubs reproduce, so
#: version checks (``version.parse(torch.__version__) >= version.parse("2.0")``) take the
#: current-PyTorch branch.
TORCH_VERSION = "2.13.0"


def as_shape(*size: Any) -> tuple[int, ...]:
    """PyTorch size arguments (``f(2, 3)`` or ``f((2, 3))``) as one tuple."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return tuple(size)


def torch_zeros(*size: Any, out: Any = None, dtype: Any = None, layout: Any = None, device: Any = None,
                requires_grad: bool = False, pin_memory: bool = False, memory_format: Any = None) -> jax.Array:
    """``torch.zeros`` with PyTorch's signature, for calls whose arguments bind only at run time
    (``torch.zeros(n, **dd)``); ``dtype`` None is float32, device/layout/grad flags are ignored."""
    return jnp.zeros(as_shape(*size), dtype=jnp.float32 if dtype is None else dtype)


def torch_empty(*size: Any, out: Any = None, dtype: Any = None, layout: Any = None, device: Any = None,
                requires_grad: bool = False, pin_memory: bool = False, memory_format: Any = None) -> jax.Array:
    """``torch.empty`` (as :func:`torch_zeros`): JAX has no uninitialised arrays; PyTorch code fills
    such a tensor in its init or loads it from a checkpoint (``convert_state_dict``)."""
    return torch_zeros(*size, dtype=dtype)


def torch_ones(*size: Any, out: Any = None, dtype: Any = None, layout: Any = None, device: Any = None,
               requires_grad: bool = False, pin_memory: bool = False, memory_format: Any = None) -> jax.Array:
    """``torch.ones`` with PyTorch's signature (see :func:`torch_zeros`)."""
    return jnp.ones(as_shape(*size), dtype=jnp.float32 if dtype is None else dtype)


def torch_full(size: Any, fill_value: Any, *, out: Any = None, dtype: Any = None, layout: Any = None,
               device: Any = None, requires_grad: bool = False, pin_memory: bool = False) -> jax.Array:
    """``torch.full`` with PyTorch's signature; ``dtype`` None follows ``fill_value`` (float32 for
    a float, int32 for an int under JAX's default 32-bit mode, bool for a bool)."""
    return jnp.full(as_shape(size), fill_value, dtype=dtype)


def torch_permute(x: jax.Array, *dims: Any) -> jax.Array:
    """``Tensor.permute(*dims)`` (varargs or one sequence)."""
    return jnp.transpose(x, as_shape(*dims))


def torch_expand(x: jax.Array, *size: Any) -> jax.Array:
    """``Tensor.expand``: ``-1`` keeps a dimension; new leading dimensions may be added."""
    shape = as_shape(*size)
    lead = len(shape) - x.ndim
    full = tuple(x.shape[i - lead] if s == -1 else s for i, s in enumerate(shape))
    return jnp.broadcast_to(x, full)


def torch_squeeze(x: jax.Array, dim: Any = None) -> jax.Array:
    """``Tensor.squeeze``: unlike ``jnp.squeeze`` a dimension whose size is not 1 is kept."""
    if dim is None:
        return jnp.squeeze(x)
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    keep = tuple(d % x.ndim for d in dims if x.shape[d] == 1)
    return jnp.squeeze(x, keep) if keep else x


def torch_flatten(x: jax.Array, start_dim: int = 0, end_dim: int = -1) -> jax.Array:
    """``torch.flatten``: merges dimensions ``start_dim..end_dim`` (inclusive)."""
    if x.ndim == 0:
        return x.reshape(1)
    start, end = start_dim % x.ndim, end_dim % x.ndim
    return x.reshape(x.shape[:start] + (-1,) + x.shape[end + 1 :])


def torch_unflatten(x: jax.Array, dim: int, sizes: Any) -> jax.Array:
    """``Tensor.unflatten``: splits dimension ``dim`` into ``sizes``."""
    d = dim % x.ndim
    return x.reshape(x.shape[:d] + tuple(sizes) + x.shape[d + 1 :])


def torch_chunk(x: jax.Array, chunks: int, dim: int = 0) -> tuple[jax.Array, ...]:
    """``torch.chunk``: pieces of size ``ceil(n / chunks)``, the last one smaller (``jnp.split``
    with a count needs equal pieces)."""
    n = x.shape[dim]
    size = -(-n // chunks)
    return tuple(jnp.split(x, list(range(size, n, size)), axis=dim))


def torch_split(x: jax.Array, split_size_or_sections: Any, dim: int = 0) -> tuple[jax.Array, ...]:
    """``torch.split``: an int is the size of each piece (``jnp.split`` takes a count), a list
    gives the sizes."""
    n = x.shape[dim]
    if isinstance(split_size_or_sections, int):
        cuts = list(range(split_size_or_sections, n, split_size_or_sections))
    else:
        cuts = list(np.cumsum(split_size_or_sections)[:-1])
    return tuple(jnp.split(x, cuts, axis=dim))


def torch_unbind(x: jax.Array, dim: int = 0) -> tuple[jax.Array, ...]:
    """``Tensor.unbind``: the slices along ``dim``."""
    return tuple(jnp.moveaxis(x, dim, 0))


def torch_max(x: jax.Array, dim: Any = None, keepdim: bool = False) -> Any:
    """``torch.max``: no dim -> the maximum; an int dim -> ``(values, indices)``; a tensor ->
    the elementwise maximum."""
    if dim is None:
        return jnp.max(x)
    if not isinstance(dim, int):
        return jnp.maximum(x, dim)
    return jnp.max(x, axis=dim, keepdims=keepdim), jnp.argmax(x, axis=dim, keepdims=keepdim)


def torch_min(x: jax.Array, dim: Any = None, keepdim: bool = False) -> Any:
    """``torch.min``: as :func:`torch_max`."""
    if dim is None:
        return jnp.min(x)
    if not isinstance(dim, int):
        return jnp.minimum(x, dim)
    return jnp.min(x, axis=dim, keepdims=keepdim), jnp.argmin(x, axis=dim, keepdims=keepdim)


def torch_pad(x: jax.Array, pad: Any, mode: str = "constant", value: float = 0.0) -> jax.Array:
    """``F.pad``: ``pad`` lists (before, after) pairs starting from the LAST axis."""
    pairs = [(0, 0)] * x.ndim
    for i in range(len(pad) // 2):
        pairs[x.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    if any(a < 0 or b < 0 for a, b in pairs):
        x = x[tuple(slice(-a if a < 0 else None, b if b < 0 else None) for a, b in pairs)]
        pairs = [(max(a, 0), max(b, 0)) for a, b in pairs]
    jmode = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode]
    if jmode == "constant":
        return jnp.pad(x, pairs, mode="constant", constant_values=value)
    return jnp.pad(x, pairs, mode=jmode)


def value_of(v: Any) -> Any:
    """The array of an ``nnx.Variable`` (lax primitives refuse Variables under a tracer), else ``v``."""
    return v[...] if isinstance(v, nnx.Variable) else v


def torch_linear(x: jax.Array, weight: jax.Array, bias: Any = None) -> jax.Array:
    """``F.linear``: ``x @ weight.T + bias`` with PyTorch's ``(out, in)`` weight."""
    y = x @ jnp.swapaxes(value_of(weight), -1, -2)
    return y if bias is None else y + value_of(bias)


def torch_conv(x: jax.Array, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
               groups: int = 1) -> jax.Array:
    """``F.conv1d/2d/3d`` on channels-first input with PyTorch's ``(out, in/groups, *kernel)``
    weight; ``padding`` an int, a tuple, or ``'same'``/``'valid'``."""
    w = value_of(weight)
    n = w.ndim - 2
    pad = padding.upper() if isinstance(padding, str) else [(p, p) for p in _ntuple(padding, n)]
    spatial = "DHW"[3 - n:]
    y = jax.lax.conv_general_dilated(x, w, _ntuple(stride, n), pad, rhs_dilation=_ntuple(dilation, n),
                                     feature_group_count=groups,
                                     dimension_numbers=("NC" + spatial, "OI" + spatial, "NC" + spatial))
    return y if bias is None else y + value_of(bias).reshape((1, -1) + (1,) * n)


def torch_group_norm(x: jax.Array, num_groups: int, weight: Any = None, bias: Any = None,
                     eps: float = 1e-5) -> jax.Array:
    """``F.group_norm`` on channels-first input (biased variance per group)."""
    b, c = x.shape[0], x.shape[1]
    g = x.reshape((b, num_groups, -1))
    mean = g.mean(axis=-1, keepdims=True)
    var = ((g - mean) ** 2).mean(axis=-1, keepdims=True)
    y = ((g - mean) / jnp.sqrt(var + eps)).reshape(x.shape)
    shape = (1, c) + (1,) * (x.ndim - 2)
    if weight is not None:
        y = y * value_of(weight).reshape(shape)
    if bias is not None:
        y = y + value_of(bias).reshape(shape)
    return y


def _torch_init(rngs: nnx.Rngs, shape: tuple[int, ...], fan_in: int) -> nnx.Param:
    """PyTorch's default weight init: uniform in +-1/sqrt(fan_in), drawn from ``rngs.params``."""
    bound = 1.0 / math.sqrt(max(fan_in, 1))
    return nnx.Param(jax.random.uniform(rngs.params(), shape, jnp.float32, -bound, bound))


class TorchLinear(nnx.Module):
    """Base for subclasses of ``nn.Linear``: PyTorch's attributes and ``(out, in)`` weight
    (``convert_state_dict`` copies it by name), forward ``F.linear``."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device: Any = None,
                 dtype: Any = None, *, rngs: nnx.Rngs) -> None:
        self.in_features, self.out_features = in_features, out_features
        self.weight = _torch_init(rngs, (out_features, in_features), in_features)
        self.bias = _torch_init(rngs, (out_features,), in_features) if bias else nnx.data(None)

    def __call__(self, x: jax.Array) -> jax.Array:
        return torch_linear(x, self.weight, self.bias)


class TorchConv(nnx.Module):
    """Base for subclasses of ``nn.Conv1d/2d/3d`` (``ndim`` set by the stub's class): PyTorch's
    attributes (``stride``, ``padding``, ... as tuples) and OIHW weight, forward ``F.conv``."""

    ndim = 2

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device: Any = None, dtype: Any = None, *, rngs: nnx.Rngs) -> None:
        if padding_mode != "zeros":
            raise NotImplementedError(f"padding_mode={padding_mode!r}: pad with torch_pad first")
        n = self.ndim
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size, self.stride, self.dilation = _ntuple(kernel_size, n), _ntuple(stride, n), _ntuple(dilation, n)
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, n)
        self.padding_mode = padding_mode
        fan_in = in_channels // groups * math.prod(self.kernel_size)
        self.weight = _torch_init(rngs, (out_channels, in_channels // groups, *self.kernel_size), fan_in)
        self.bias = _torch_init(rngs, (out_channels,), fan_in) if bias else nnx.data(None)

    def _conv_forward(self, x: jax.Array, weight: Any, bias: Any) -> jax.Array:
        return torch_conv(x, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def __call__(self, x: jax.Array) -> jax.Array:
        return self._conv_forward(x, self.weight, self.bias)


class TorchLayerNorm(nnx.Module):
    """Base for subclasses of ``nn.LayerNorm``: ``weight``/``bias``/``eps``/``normalized_shape``
    as in PyTorch, forward ``F.layer_norm``."""

    def __init__(self, normalized_shape: Any, eps: float = 1e-5, elementwise_affine: bool = True, bias: bool = True,
                 device: Any = None, dtype: Any = None, *, rngs: nnx.Rngs | None = None) -> None:
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape, self.eps, self.elementwise_affine = shape, eps, elementwise_affine
        self.weight = nnx.Param(jnp.ones(shape)) if elementwise_affine else nnx.data(None)
        self.bias = nnx.Param(jnp.zeros(shape)) if elementwise_affine and bias else nnx.data(None)

    def __call__(self, x: jax.Array) -> jax.Array:
        return torch_layer_norm(x, self.normalized_shape, value_of(self.weight), value_of(self.bias), self.eps)


class TorchGroupNorm(nnx.Module):
    """Base for subclasses of ``nn.GroupNorm`` (channels-first), forward ``F.group_norm``."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True, device: Any = None,
                 dtype: Any = None, *, rngs: nnx.Rngs | None = None) -> None:
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        self.weight = nnx.Param(jnp.ones((num_channels,))) if affine else nnx.data(None)
        self.bias = nnx.Param(jnp.zeros((num_channels,))) if affine else nnx.data(None)

    def __call__(self, x: jax.Array) -> jax.Array:
        return torch_group_norm(x, self.num_groups, self.weight, self.bias, self.eps)


class TorchEmbedding(nnx.Module):
    """Base for subclasses of ``nn.Embedding``: ``weight`` ``(num_embeddings, embedding_dim)``."""

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: Any = None, *args: Any,
                 device: Any = None, dtype: Any = None, rngs: nnx.Rngs, **kwargs: Any) -> None:
        self.num_embeddings, self.embedding_dim, self.padding_idx = num_embeddings, embedding_dim, padding_idx
        self.weight = nnx.Param(jax.random.normal(rngs.params(), (num_embeddings, embedding_dim)))

    def __call__(self, x: jax.Array) -> jax.Array:
        return jnp.take(self.weight[...], x, axis=0)


class TorchBatchNorm(nnx.BatchNorm):
    """``nn.BatchNorm1d/2d/3d`` (``nnx.BatchNorm`` with ``axis=1``) with PyTorch's training
    step: the output is normalised with the biased batch variance, but ``var`` (PyTorch's
    ``running_var``) is updated with the UNBIASED one (``n / (n - 1)``, n = elements per
    channel), where ``nnx.BatchNorm`` stores the biased one; ``mean`` and ``var`` are computed
    in two passes (``nnx.BatchNorm`` defaults to ``E[x^2] - E[x]^2``). In eval mode
    (``use_running_average``) it is ``nnx.BatchNorm``. ``momentum`` is Flax's: ``1 - m`` for
    PyTorch's ``m``."""

    def __call__(self, x: jax.Array, use_running_average: Any = None, *, mask: Any = None) -> jax.Array:
        use_avg = self.use_running_average if use_running_average is None else use_running_average
        if use_avg or mask is not None:
            return super().__call__(x, use_running_average, mask=mask)
        axes = tuple(i for i in range(x.ndim) if i != self.axis % x.ndim)
        shape = [1] * x.ndim
        shape[self.axis % x.ndim] = x.shape[self.axis % x.ndim]
        mean = jnp.mean(x, axis=axes)
        var = jnp.mean(jnp.square(x - mean.reshape(shape)), axis=axes)
        n = math.prod(x.shape[i] for i in axes)
        unbiased = var * (n / max(n - 1, 1))
        m = self.momentum
        self.mean[...] = jax.lax.stop_gradient(m * self.mean[...] + (1 - m) * mean.astype(self.mean[...].dtype))
        self.var[...] = jax.lax.stop_gradient(m * self.var[...] + (1 - m) * unbiased.astype(self.var[...].dtype))
        y = (x - mean.reshape(shape)) * jax.lax.rsqrt(var.reshape(shape) + self.epsilon)
        if self.scale is not None:
            y = y * self.scale[...].reshape(shape)
        if self.bias is not None:
            y = y + self.bias[...].reshape(shape)
        return y


def torch_layer_norm(x: jax.Array, normalized_shape: Any, weight: Any = None, bias: Any = None,
                     eps: float = 1e-5) -> jax.Array:
    """``F.layer_norm`` over the last ``len(normalized_shape)`` axes (biased variance)."""
    n = len(normalized_shape) if isinstance(normalized_shape, (tuple, list)) else 1
    axes = tuple(range(x.ndim - n, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    y = (x - mean) / jnp.sqrt(var + eps)
    if weight is not None:
        y = y * value_of(weight)
    if bias is not None:
        y = y + value_of(bias)
    return y


def torch_normalize(x: jax.Array, p: float = 2.0, dim: int = 1, eps: float = 1e-12) -> jax.Array:
    """``F.normalize``: ``x / max(||x||_p, eps)`` along ``dim``."""
    norm = jnp.sum(jnp.abs(x) ** p, axis=dim, keepdims=True) ** (1.0 / p)
    return x / jnp.maximum(norm, eps)


def torch_sdpa(query: jax.Array, key: jax.Array, value: jax.Array, attn_mask: Any = None,
               dropout_p: float = 0.0, is_causal: bool = False, scale: Any = None,
               enable_gqa: bool = False) -> jax.Array:
    """``F.scaled_dot_product_attention`` in inference form (``(..., L, E)`` layout, boolean mask
    True = attend, float mask added). ``dropout_p`` is ignored: valid for eval only."""
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = (query @ jnp.swapaxes(key, -1, -2)) * scale
    if is_causal:
        lq, lk = query.shape[-2], key.shape[-2]
        scores = jnp.where(jnp.tril(jnp.ones((lq, lk), dtype=bool)), scores, -jnp.inf)
    if attn_mask is not None:
        if attn_mask.dtype == jnp.bool_:
            scores = jnp.where(attn_mask, scores, -jnp.inf)
        else:
            scores = scores + attn_mask
    return jax.nn.softmax(scores, axis=-1) @ value


def _ntuple(v: Any, n: int) -> tuple[Any, ...]:
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


def torch_max_pool(x: jax.Array, kernel_size: Any, stride: Any = None, padding: Any = 0,
                   dilation: Any = 1, ceil_mode: bool = False, ndim: int = 2) -> jax.Array:
    """``nn.MaxPoolNd`` on channels-first input (``-inf`` padding, as PyTorch).
    ``ceil_mode=True`` is not supported (raises ``NotImplementedError``)."""
    if ceil_mode:
        raise NotImplementedError("max pool with ceil_mode=True")
    k = _ntuple(kernel_size, ndim)
    s = _ntuple(kernel_size if stride is None else stride, ndim)
    p = _ntuple(padding, ndim)
    d = _ntuple(dilation, ndim)
    lead = x.ndim - ndim
    return jax.lax.reduce_window(
        x, -jnp.inf, jax.lax.max, (1,) * lead + k, (1,) * lead + s,
        [(0, 0)] * lead + [(q, q) for q in p], window_dilation=(1,) * lead + d)


def torch_avg_pool(x: jax.Array, kernel_size: Any, stride: Any = None, padding: Any = 0,
                   ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: Any = None,
                   ndim: int = 2) -> jax.Array:
    """``nn.AvgPoolNd`` on channels-first input; ``count_include_pad`` as PyTorch (default True)."""
    if ceil_mode or divisor_override is not None:
        raise NotImplementedError("avg pool with ceil_mode or divisor_override")
    k = _ntuple(kernel_size, ndim)
    s = _ntuple(kernel_size if stride is None else stride, ndim)
    p = _ntuple(padding, ndim)
    lead = x.ndim - ndim
    window, strides = (1,) * lead + k, (1,) * lead + s
    pads = [(0, 0)] * lead + [(q, q) for q in p]
    total = jax.lax.reduce_window(x, 0.0, jax.lax.add, window, strides, pads)
    if count_include_pad:
        return total / math.prod(k)
    count = jax.lax.reduce_window(jnp.ones_like(x), 0.0, jax.lax.add, window, strides, pads)
    return total / count


def torch_adaptive_pool(x: jax.Array, output_size: Any, ndim: int = 2, op: str = "avg") -> jax.Array:
    """``nn.AdaptiveAvgPoolNd`` / ``AdaptiveMaxPoolNd`` on channels-first input, for output sizes
    that divide the input (the common 1 and 7); other sizes raise ``NotImplementedError``."""
    out = _ntuple(output_size, ndim)
    spatial = x.shape[x.ndim - ndim :]
    out = tuple(s if o is None else o for o, s in zip(out, spatial))
    if any(s % o for s, o in zip(spatial, out)):
        raise NotImplementedError(f"adaptive pool from {spatial} to {out}: sizes do not divide")
    shape = x.shape[: x.ndim - ndim]
    for s, o in zip(spatial, out):
        shape = shape + (o, s // o)
    y = x.reshape(shape)
    axes = tuple(x.ndim - ndim + 2 * i + 1 for i in range(ndim))
    return y.mean(axis=axes) if op == "avg" else y.max(axis=axes)


def _torch_key(path: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in path)


def _walk_torch_layout(module: Any, prefix: tuple[Any, ...], out: dict[str, tuple[Any, str]]) -> None:
    """Map PyTorch state_dict keys to (NNX variable, transform) for ``module`` and below."""
    if isinstance(module, nnx.Sequential):
        for i, layer in enumerate(module.layers):
            _walk_torch_layout(layer, prefix + (i,), out)
        return
    if type(module).__name__ == "ChannelsFirst":  # by name: each stub file has its own copy of the class
        _walk_torch_layout(module.layer, prefix, out)
        return
    if isinstance(module, (nnx.List, list, tuple)):
        for i, item in enumerate(module):
            _walk_torch_layout(item, prefix + (i,), out)
        return
    if isinstance(module, (nnx.Dict, dict)):
        for k in module:
            _walk_torch_layout(module[k], prefix + (k,), out)
        return
    if not isinstance(module, nnx.Module):
        return
    renames: dict[str, tuple[str, str]] = {}
    if isinstance(module, nnx.Linear):
        renames = {"kernel": ("weight", "linear"), "bias": ("bias", "copy")}
    elif isinstance(module, (nnx.Conv, nnx.ConvTranspose)):
        renames = {"kernel": ("weight", "conv"), "bias": ("bias", "copy")}
    elif isinstance(module, nnx.Embed):
        renames = {"embedding": ("weight", "copy")}
    elif isinstance(module, (nnx.LayerNorm, nnx.RMSNorm, nnx.GroupNorm)):
        renames = {"scale": ("weight", "copy"), "bias": ("bias", "copy")}
    elif isinstance(module, nnx.BatchNorm):
        renames = {"scale": ("weight", "copy"), "bias": ("bias", "copy"),
                   "mean": ("running_mean", "copy"), "var": ("running_var", "copy")}
    for name, value in sorted(vars(module).items(), key=lambda kv: str(kv[0])):
        if name.startswith("_"):
            continue
        if isinstance(value, nnx.Variable):
            torch_name, how = renames.get(name, (name, "copy"))
            persistent = bool(getattr(value, "get_metadata", lambda: {})().get("persistent", True))
            out[_torch_key(prefix + (torch_name,))] = (value, how if persistent else how + "?")
        elif isinstance(value, (nnx.Module, nnx.List, nnx.Dict, list, tuple, dict)):
            _walk_torch_layout(value, prefix + (name,), out)


def convert_state_dict(module: nnx.Module, state_dict: dict[str, Any], *, strict: bool = True) -> list[str]:
    """Load a PyTorch ``state_dict`` (key -> numpy array, so torch is not needed) into ``module``
    in place. Linear weights ``(out, in)`` are transposed to NNX kernels ``(in, out)``; conv
    weights OIHW (and ConvTranspose IOHW) become HWIO (``transpose(2, ..., 1, 0)``); norm
    ``weight`` -> ``scale``; BatchNorm ``running_mean/var`` -> ``mean/var``; ``num_batches_tracked``
    is dropped. Returns the state_dict keys that were not used (an error when ``strict``).

    Raises ``ValueError`` naming the key for a shape mismatch, a missing persistent key, or (when
    ``strict``) an unexpected key.
    """
    layout: dict[str, tuple[Any, str]] = {}
    _walk_torch_layout(module, (), layout)
    unused = sorted(k for k in state_dict if k not in layout and not k.endswith("num_batches_tracked"))
    missing = sorted(k for k, (_, how) in layout.items() if k not in state_dict and not how.endswith("?"))
    if missing:
        near = difflib.get_close_matches(missing[0], unused, n=1, cutoff=0.5)
        hint = f"; the checkpoint has {near[0]!r}" if near else ""
        raise ValueError(f"the stub expects {missing[0]!r}{hint} ({len(missing)} key(s) missing, "
                         f"{len(unused)} unused): the stub's structure differs from the PyTorch module")
    if unused and strict:
        raise ValueError(f"state_dict has {len(unused)} key(s) the stub does not have, first: {unused[0]!r}")
    for key, (var, how) in sorted(layout.items()):
        if key not in state_dict:
            continue
        arr = np.asarray(state_dict[key])
        how = how.rstrip("?")
        if how == "linear":
            arr = arr.T
        elif how == "conv":
            arr = arr.transpose(tuple(range(2, arr.ndim)) + (1, 0))
        expected = tuple(var.get_value().shape)
        if tuple(arr.shape) != expected:
            raise ValueError(f"{key}: PyTorch shape {tuple(np.asarray(state_dict[key]).shape)} "
                             f"({how}) does not fit the NNX variable of shape {expected}")
        # a copy: jnp.asarray may alias the caller's buffer (a live torch tensor's memory on CPU)
        var.set_value(jnp.array(arr, dtype=var.get_value().dtype, copy=True))
    return unused


def torch_state_dict(module: nnx.Module) -> dict[str, Any]:
    """The inverse of :func:`convert_state_dict`: ``module``'s parameters and buffers as a
    PyTorch ``state_dict`` of numpy arrays (Linear kernels transposed back to ``(out, in)``,
    conv kernels to OIHW/IOHW, ``scale`` -> ``weight``, ``mean``/``var`` -> ``running_mean``/
    ``running_var``), so trained JAX state can be compared with (or loaded into) PyTorch.
    ``num_batches_tracked`` is not kept by NNX and is absent."""
    layout: dict[str, tuple[Any, str]] = {}
    _walk_torch_layout(module, (), layout)
    out: dict[str, Any] = {}
    for key, (var, how) in sorted(layout.items()):
        value = var.get_value()
        if value is None:
            continue
        arr = np.asarray(value)
        how = how.rstrip("?")
        if how == "linear":
            arr = arr.T
        elif how == "conv":
            arr = arr.transpose((arr.ndim - 1, arr.ndim - 2) + tuple(range(arr.ndim - 2)))
        out[key] = arr
    return out


class MissingName:
    """Stands in for a name the stub could not translate (a PyTorch-only helper, a class that is
    not a target). Attribute access and indexing return another ``MissingName`` so the module
    still imports; calling it raises ``NotImplementedError`` naming what is missing."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> MissingName:
        if attr.startswith("__"):
            raise AttributeError(attr)
        return MissingName(f"{self._name}.{attr}")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{self._name} is not translated (see the TODO(migrate-lens) above its placeholder)")

    def __getitem__(self, key: Any) -> MissingName:
        return MissingName(f"{self._name}[...]")

    def __repr__(self) -> str:
        return f"MissingName({self._name!r})"


def _cubic_weight(x: Any, a: Any) -> Any:
    """Keys' cubic convolution kernel at distance ``x`` with parameter ``a`` (numpy, float32)."""
    x = np.abs(x)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.where(x <= 1, near, np.where(x < 2, far, np.float32(0.0))).astype(np.float32)


def _resize_taps(n_in: int, n_out: int, mode: str, align_corners: bool, scale: Any,
                 antialias: bool) -> tuple[Any, Any]:
    """Source indices and weights, both ``(n_out, taps)`` numpy arrays, for resizing one axis
    of length ``n_in`` to ``n_out`` with PyTorch's arithmetic (float32, as its CPU kernels):
    the source coordinate is ``dst * (in-1)/(out-1)`` with ``align_corners``, else
    ``(dst + 0.5) * step - 0.5`` where ``step`` is ``1/scale_factor`` when one was given, else
    ``in/out``; linear clamps negative coordinates to 0; cubic takes 4 taps with cubic
    convolution ``A=-0.75`` and indices clamped to the border; nearest takes ``floor(dst*step)``
    (``nearest-exact``: ``floor((dst+0.5)*step)``). ``antialias`` (linear/cubic) uses PyTorch's
    separable filter: support ``step`` times wider when downsampling, cubic with ``A=-0.5``,
    weights normalised per output."""
    f32 = np.float32
    if align_corners:
        step = f32((n_in - 1) / (n_out - 1)) if n_out > 1 else f32(0.0)
    else:
        step = f32(1.0 / scale) if scale is not None and scale > 0 else f32(n_in / n_out)
    dst = np.arange(n_out, dtype=f32)
    if mode in ("nearest", "nearest-exact"):
        src = dst * step if mode == "nearest" else (dst + f32(0.5)) * step
        idx = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
        return idx.astype(np.int32)[:, None], np.ones((n_out, 1), f32)
    cubic = mode == "cubic"
    if antialias:
        half = f32(2.0 if cubic else 1.0)
        support = half * step if step >= 1.0 else half
        invscale = f32(1.0) / step if step >= 1.0 else f32(1.0)
        center = step * (dst + f32(0.5))
        lo = np.maximum((center - support + f32(0.5)).astype(np.int64), 0)
        hi = np.minimum((center + support + f32(0.5)).astype(np.int64), n_in)
        j = lo[:, None] + np.arange(int((hi - lo).max()))[None, :]
        t = (j.astype(f32) - center[:, None] + f32(0.5)) * invscale
        w = _cubic_weight(t, f32(-0.5)) if cubic else np.maximum(f32(0.0), f32(1.0) - np.abs(t))
        w = np.where(j < hi[:, None], w, f32(0.0))
        return np.minimum(j, n_in - 1).astype(np.int32), (w / w.sum(axis=1, keepdims=True)).astype(f32)
    src = dst * step if align_corners else (dst + f32(0.5)) * step - f32(0.5)
    if not cubic:
        src = np.maximum(src, f32(0.0))
        i0 = np.floor(src).astype(np.int64)
        lam = src - i0.astype(f32)
        idx = np.stack([i0, np.minimum(i0 + 1, n_in - 1)], 1)
        return idx.astype(np.int32), np.stack([f32(1.0) - lam, lam], 1).astype(f32)
    i0 = np.floor(src).astype(np.int64)
    t = src - i0.astype(f32)
    a, one, two = f32(-0.75), f32(1.0), f32(2.0)
    w = np.stack([_cubic_weight(t + one, a), _cubic_weight(t, a), _cubic_weight(one - t, a),
                  _cubic_weight(two - t, a)], 1)
    idx = np.clip(i0[:, None] + np.arange(-1, 3)[None, :], 0, n_in - 1)
    return idx.astype(np.int32), w


def torch_interpolate(x: jax.Array, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                      align_corners: Any = None, recompute_scale_factor: Any = None,
                      antialias: bool = False) -> jax.Array:
    """``F.interpolate`` on channels-first input ``(N, C, *spatial)``, exact to PyTorch (within
    float32 rounding) for ``nearest``, ``nearest-exact``, ``linear``/``bilinear``/``trilinear``
    and ``bicubic``, both ``align_corners``, ``antialias`` and ``scale_factor`` (PyTorch maps
    coordinates with ``1/scale_factor`` unless ``recompute_scale_factor``). Separable: per
    spatial axis a gather of the source taps (indices clamped to the border) and a weighted
    sum; taps and weights are computed with numpy from the static shapes (see
    :func:`_resize_taps`). ``jax.image.resize`` is not used: its cubic is Keys ``a=-0.5`` with
    other edge handling (0.32 off on ViT position embeddings) and it has no ``align_corners``.
    ``mode='area'`` raises ``NotImplementedError`` (use ``torch_adaptive_pool``)."""
    kind = {"linear": "linear", "bilinear": "linear", "trilinear": "linear", "bicubic": "cubic",
            "nearest": "nearest", "nearest-exact": "nearest-exact"}.get(mode)
    if kind is None:
        raise NotImplementedError(f"interpolate mode={mode!r}")
    n = x.ndim - 2
    spatial = x.shape[2:]
    if size is not None:
        out, scales = _ntuple(size, n), (None,) * n
    else:
        factors = _ntuple(scale_factor, n)
        out = tuple(int(math.floor(s * f)) for s, f in zip(spatial, factors))
        scales = (None,) * n if recompute_scale_factor else factors
    y = x
    for ax, (n_in, n_out, sc) in enumerate(zip(spatial, out, scales)):
        if n_in == n_out and sc in (None, 1, 1.0) and not (antialias and kind != "nearest"):
            continue
        idx, w = _resize_taps(n_in, int(n_out), kind, bool(align_corners), sc, antialias)
        axis = 2 + ax
        taps = jnp.take(y, jnp.asarray(idx), axis=axis)  # (..., n_out, taps, ...)
        shape = [1] * taps.ndim
        shape[axis], shape[axis + 1] = w.shape
        y = jnp.sum(taps * jnp.asarray(w, dtype=y.dtype).reshape(shape), axis=axis + 1)
    return y


class logging:  # noqa: N801 - stands in for the module name transformers code uses
    """Stand-in for ``transformers.utils.logging``: ``get_logger`` returns a standard-library
    logger whose ``warning_once`` logs like ``warning``."""

    @staticmethod
    def get_logger(name: str) -> Any:
        import logging as std_logging

        log = std_logging.getLogger(name)
        log.warning_once = log.warning  # type: ignore[attr-defined]
        return log


class TorchIdentity(nnx.Module):
    """``nn.Identity`` as a module (not a bare function), so code that later replaces it with a
    layer (``self.summary = nn.Identity(); if ...: self.summary = nn.Linear(...)``) stays valid in
    NNX, where a function attribute would be static."""

    def __call__(self, x: Any, *args: Any, **kwargs: Any) -> Any:
        return x


def apply_chunking_to_forward(forward_fn: Any, chunk_size: int, chunk_dim: int, *input_tensors: Any) -> Any:
    """transformers' ``apply_chunking_to_forward``: ``forward_fn`` on chunks of ``chunk_size``
    along ``chunk_dim`` (all at once when 0), concatenated; same result, less peak memory."""
    if chunk_size == 0:
        return forward_fn(*input_tensors)
    n = input_tensors[0].shape[chunk_dim] // chunk_size
    chunks = zip(*(jnp.split(t, n, axis=chunk_dim) for t in input_tensors))
    return jnp.concatenate([forward_fn(*c) for c in chunks], axis=chunk_dim)


class TorchSequential(nnx.Sequential):
    """``nn.Sequential``: ``nnx.Sequential`` that also iterates, indexes and has a length, as
    PyTorch code often does (``for layer in self.layers``). ``None`` entries are dropped and the
    rest numbered from 0, as the ``Sequential`` helpers of PyTorch libraries do
    (``torch_einops_utils.nn.Sequential``; a torch.nn.Sequential holding None cannot run)."""

    def __init__(self, *layers: Any) -> None:
        super().__init__(*[layer for layer in layers if layer is not None])

    def __iter__(self) -> Any:
        return iter(self.layers)

    def __len__(self) -> int:
        return len(self.layers)

    def __getitem__(self, i: Any) -> Any:
        return self.layers[i]


def rngs_kw(fn: Any, rngs: nnx.Rngs) -> dict[str, Any]:
    """``{"rngs": rngs}`` when calling ``fn`` builds something that takes ``rngs`` (an NNX module
    class, an ``nn_<Layer>`` factory, a ``functools.partial`` of one), else ``{}`` (plain
    functions and classes). For callables only known at run time: ``act_layer(**rngs_kw(...))``."""
    target = fn
    while isinstance(target, functools.partial):
        target = target.func
    if isinstance(target, type):
        if not issubclass(target, nnx.Module) or target.__init__ is object.__init__:
            return {}  # a module without __init__ (an activation class) takes no arguments
        target = target.__init__
    try:
        params = inspect.signature(target).parameters
    except (TypeError, ValueError):
        return {}
    return {"rngs": rngs} if "rngs" in params else {}


def torch_named_modules(module: Any) -> list[tuple[str, Any]]:
    """``module.named_modules()``: ``(dotted path, submodule)`` for ``module`` (path "") and every
    NNX module below it (``nnx.List``/``nnx.Dict`` containers included, as ModuleList/ModuleDict),
    ordered by depth then path (PyTorch: registration order, pre-order)."""
    found = [(".".join(str(p) for p in path), m) for path, m in nnx.iter_modules(module)]
    return sorted(found, key=lambda pm: (pm[0] != "", pm[0].count("."), pm[0]))


def torch_modules(module: Any) -> list[Any]:
    """``module.modules()``: ``module`` and every NNX module below it."""
    return [m for _, m in torch_named_modules(module)]


def torch_named_children(module: Any) -> list[tuple[str, Any]]:
    """``module.named_children()``: the direct submodules (containers' items one level down)."""
    return [(p, m) for p, m in torch_named_modules(module) if p and "." not in p]


def torch_children(module: Any) -> list[Any]:
    """``module.children()``: the direct submodules."""
    return [m for _, m in torch_named_children(module)]


class TorchDevice:
    """Stands in for ``tensor.device``: JAX places arrays itself and a tracer has no device, so
    the stub only keeps the backend name (``.type``) for code that branches on it."""

    def __init__(self) -> None:
        self.type = {"gpu": "cuda"}.get(jax.default_backend(), jax.default_backend())
        self.index = 0

    def __repr__(self) -> str:
        return f"device(type={self.type!r})"


def device_of(x: Any) -> TorchDevice:
    """``x.device`` of PyTorch code (see :class:`TorchDevice`)."""
    return TorchDevice()


def masked_update(x: jax.Array, mask: jax.Array, value: Any, op: str) -> jax.Array:
    """PyTorch's ``x[mask] = value`` (``op="set"``) or ``x[mask] += value`` (``"add"``) for a
    boolean ``mask`` over the leading axes of ``x`` and a ``value`` that broadcasts against the
    selected rows (a scalar, one row): a ``jnp.where`` over all of ``x``, with static shapes, so
    it runs under ``jax.jit`` (``x.at[mask]`` raises NonConcreteBooleanIndexError there). A value
    of one row per selected element (``x[mask] = rows``) has no such form: gather it first."""
    m = jnp.reshape(mask, mask.shape + (1,) * (x.ndim - mask.ndim))
    if op == "set":
        return jnp.where(m, jnp.asarray(value, x.dtype), x)
    return x + jnp.where(m, jnp.asarray(value, x.dtype), jnp.zeros((), x.dtype))


def rng_key(rngs: Any, where: str) -> jax.Array:
    """A fresh PRNG key from ``rngs`` (an ``nnx.Rngs``; its ``dropout`` stream, else ``default``)
    for a random draw in ``where``; a TypeError naming ``where`` when no rngs was passed."""
    if rngs is None:
        raise TypeError(f"{where} draws random numbers: pass rngs=<nnx.Rngs> (the module stores it as self.rngs)")
    return rngs.dropout()


def torch_dropout(x: jax.Array, p: float = 0.5, training: bool = True, rngs: Any = None,
                  where: str = "F.dropout") -> jax.Array:
    """``F.dropout``: identity unless ``training``; else zero each element with probability
    ``p`` (a fresh mask from ``rngs`` on every call) and scale the rest by ``1 / (1 - p)``."""
    if not training or p == 0.0:
        return x
    if p >= 1.0:
        return jnp.zeros_like(x)
    keep = jax.random.bernoulli(rng_key(rngs, where), 1.0 - p, x.shape)
    return jnp.where(keep, x / (1.0 - p), jnp.zeros((), x.dtype))


class ModelOutput(dict):  # type: ignore[type-arg]
    """transformers' ``ModelOutput`` as forward passes use it: a dict of the fields that are not
    None, also read as attributes (a missing field reads None) and by position
    (``outputs[0]``, like ``to_tuple()``). A JAX pytree (its subclasses too), so a stub returning
    one works under ``nnx.jit``. Dataclass subclasses (``@dataclass class XOutput(ModelOutput)``)
    fill the dict after ``__init__``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()
        for key, value in kwargs.items():
            if value is not None:
                self[key] = value

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if value is not None:
                dict.__setitem__(self, f.name, value)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        jax.tree_util.register_pytree_node(cls, _output_flatten, functools.partial(_output_unflatten, cls))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return self.get(name)

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, (int, slice)):
            return self.to_tuple()[key]
        return dict.__getitem__(self, key)

    def to_tuple(self) -> tuple[Any, ...]:
        """The values that are not None, in field order."""
        return tuple(self.values())


def _output_flatten(out: ModelOutput) -> tuple[list[Any], tuple[str, ...]]:
    return list(out.values()), tuple(out.keys())


def _output_unflatten(cls: type, keys: tuple[str, ...], children: Any) -> ModelOutput:
    out = cls.__new__(cls)
    dict.__init__(out, zip(keys, children))
    for key, value in zip(keys, children):
        object.__setattr__(out, key, value)
    return out


jax.tree_util.register_pytree_node(ModelOutput, _output_flatten, functools.partial(_output_unflatten, ModelOutput))


def model_output(name: str) -> type:
    """A ``ModelOutput`` subclass named like a transformers output type (``BaseModelOutput``)."""
    return type(name, (ModelOutput,), {})


class PreTrainedModel(nnx.Module):
    """transformers' ``PreTrainedModel`` as far as forward passes use it: ``config``, ``dtype``,
    ``device`` and ModuleUtilsMixin's mask helpers (same arithmetic: masked positions get
    ``finfo(dtype).min``). Weight init, tying and hub loading are not here: load converted
    PyTorch weights."""

    def __init__(self, config: Any = None, *args: Any, rngs: Any = None, **kwargs: Any) -> None:
        self.config = config

    @property
    def dtype(self) -> Any:
        return jnp.float32

    @property
    def device(self) -> TorchDevice:
        return TorchDevice()

    def warn_if_padding_and_no_attention_mask(self, *args: Any, **kwargs: Any) -> None:
        return None

    def get_extended_attention_mask(self, attention_mask: jax.Array, input_shape: Any, device: Any = None,
                                    dtype: Any = None) -> jax.Array:
        """``(batch, 1, 1|seq, seq)`` additive mask from a 2-D or 3-D 1/0 mask (causal for a
        decoder config)."""
        dtype = dtype or self.dtype
        if attention_mask.ndim == 3:
            ext = attention_mask[:, None, :, :]
        elif attention_mask.ndim == 2:
            ext = attention_mask[:, None, None, :]
            if getattr(self.config, "is_decoder", False):
                seq = input_shape[1]
                causal = jnp.arange(seq)[None, :] <= jnp.arange(seq)[:, None]
                prefix = attention_mask.shape[1] - seq
                if prefix > 0:
                    causal = jnp.concatenate([jnp.ones((seq, prefix), bool), causal], axis=-1)
                ext = causal[None, None, :, :].astype(attention_mask.dtype) * ext
        else:
            raise ValueError(f"wrong shape for attention_mask (shape {attention_mask.shape})")
        ext = ext.astype(dtype)
        return (1.0 - ext) * jnp.finfo(dtype).min

    def invert_attention_mask(self, encoder_attention_mask: jax.Array) -> jax.Array:
        """Additive mask for cross-attention from a 2-D or 3-D 1/0 mask."""
        m = encoder_attention_mask
        ext = m[:, None, :, :] if m.ndim == 3 else m[:, None, None, :]
        ext = ext.astype(self.dtype)
        return (1.0 - ext) * jnp.finfo(self.dtype).min

    def get_head_mask(self, head_mask: Any, num_hidden_layers: int, is_attention_chunked: bool = False) -> Any:
        """``[None] * num_hidden_layers`` without a head mask, else the mask broadcast to
        ``(layers, batch, heads, seq, seq)``."""
        if head_mask is None:
            return [None] * num_hidden_layers
        if head_mask.ndim == 1:
            head_mask = jnp.broadcast_to(head_mask[None, None, :, None, None], (num_hidden_layers, 1, head_mask.shape[0], 1, 1))
        elif head_mask.ndim == 2:
            head_mask = head_mask[:, None, :, None, None]
        head_mask = head_mask.astype(self.dtype)
        return head_mask[..., None] if is_attention_chunked else head_mask


def is_training(module: Any) -> bool:
    """PyTorch's ``module.training`` for a stub module: stubs that read it keep
    ``deterministic`` (``module.eval()`` sets it True); a module without it is in eval mode."""
    return not getattr(module, "deterministic", True)
