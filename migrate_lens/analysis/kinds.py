"""What kind of value an expression holds, as far as JAX tracing cares.

A tracer carries shape and dtype but no values, so only *value-dependent* expressions are
hostile to Python control flow. Kinds:

- ``T``: a tensor (value unknown at trace time);
- ``B``: a boolean tensor (a mask: indexing with it gives a data-dependent shape);
- ``H``: a host scalar read out of a tensor (``.item()``, ``int(t)``, ``.tolist()``): it forces
  a device sync and is a concrete value JAX cannot produce under ``jit``;
- ``S``: static at trace time (shapes, dtypes, ``len``, ``is None``, config, literals);
- ``M``: an ``nn.Module`` instance (calling it gives ``T``);
- ``U``: unknown.

The tables below are the engine's knowledge of torch's API surface; they are used by the
visitor, never by rules directly. Source for static tensor attributes and methods: the
PyTorch ``torch.Tensor`` reference (https://pytorch.org/docs/stable/tensors.html).
"""

from __future__ import annotations

import re

T, B, H, S, M, U = "T", "B", "H", "S", "M", "U"
VALUE_KINDS = frozenset({T, B, H})
TENSORISH = frozenset({T, B})

#: Attributes of a tensor that are static under tracing.
STATIC_TENSOR_ATTRS = frozenset({
    "shape", "ndim", "dtype", "device", "is_cuda", "requires_grad", "layout", "is_sparse",
    "is_quantized", "is_meta", "names", "itemsize", "nbytes", "is_leaf", "training",
})
#: Constructor settings a torch layer keeps as plain Python attributes (``nn.Embedding.embedding_dim``,
#: ``nn.Linear.in_features``, ``nn.Conv2d.kernel_size``, ``nn.MultiheadAttention.head_dim``, from the
#: layers' ``__init__`` in torch/nn/modules), and the same spellings a project's own layers use
#: (``self.head.num_classes``, ``block.hidden_size``): ints, tuples, floats and flags, never
#: tensors, whatever the weight-like words inside them (``embedding_dim``, ``scale_factor``).
MODULE_CONFIG_ATTR = re.compile(
    r"^(num_|n_)|(_dim|_dims|_size|_sizes|_features|_channels|_idx|_factor|_heads|_layers|_len|_length"
    r"|_ratio|_rate|_mode|_type|_shape)$|^(in_features|out_features|in_channels|out_channels|kernel_size|"
    r"stride|padding|dilation|groups|eps|momentum|affine|track_running_stats|normalized_shape|"
    r"elementwise_affine|padding_idx|max_norm|norm_type|scale_grad_by_freq|sparse|bidirectional|"
    r"batch_first|proj_size|dropout|p|inplace|embed_dim|kdim|vdim|head_dim|approximate|"
    r"align_corners|ceil_mode|count_include_pad|output_padding|padding_mode|training)$")
#: Module containers whose items are parameters (tensors), not modules.
PARAMETER_CONTAINERS = frozenset({
    "torch.nn.ParameterDict", "torch.nn.ParameterList",
    "torch.nn.modules.container.ParameterDict", "torch.nn.modules.container.ParameterList",
})
#: Attributes of a tensor that are tensors.
TENSOR_ATTRS = frozenset({"T", "mT", "H", "mH", "real", "imag", "data", "grad"})

#: Tensor methods whose result is static (shape/metadata queries).
STATIC_METHODS = frozenset({
    "size", "dim", "ndimension", "numel", "nelement", "stride", "is_contiguous",
    "is_floating_point", "is_complex", "element_size", "get_device", "data_ptr",
    "storage_offset", "is_pinned", "is_shared", "has_names", "dim_order", "is_set_to",
})
#: Tensor methods that read a value back to the host (device sync, concrete value).
HOST_METHODS = frozenset({"item", "tolist", "numpy"})
#: Tensor methods that keep a boolean mask boolean.
MASK_PRESERVING = frozenset({
    "expand", "expand_as", "view", "view_as", "reshape", "reshape_as", "permute", "transpose",
    "unsqueeze", "squeeze", "flatten", "contiguous", "clone", "detach", "any", "all",
    "logical_not", "logical_and", "logical_or", "logical_xor", "repeat", "t", "flip", "roll",
    "to", "cuda", "cpu", "bool", "__invert__",
})
#: Methods of str and dict that ``torch.Tensor`` does not have (checked against torch 2.13's
#: ``dir(torch.Tensor)``): a receiver guessed to be a tensor (a module method's parameter, a
#: submodule's output) that takes one is a string or a mapping (``k.endswith(prefix)`` over a
#: ``state_dict``'s keys, ``out.items()``), so neither it nor the call's result is tensor data.
NON_TENSOR_METHODS = frozenset({
    "endswith", "startswith", "lower", "upper", "strip", "lstrip", "rstrip", "format", "join",
    "keys", "items", "get", "append", "extend", "isdigit", "isalpha", "isupper", "islower",
    "encode", "decode", "splitlines", "setdefault", "popitem", "casefold", "partition",
    "rpartition", "capitalize", "zfill", "ljust", "rjust", "removeprefix", "removesuffix",
    "find", "rfind", "pop", "update", "remove", "insert", "clear",
})
#: Tensor methods that numpy arrays, lists and dicts do not have: a receiver of unknown kind
#: that takes one of these is a tensor (source: the ``torch.Tensor`` reference above).
TORCH_ONLY_METHODS = frozenset({
    "abs", "exp", "log", "log1p", "expm1", "sigmoid", "softmax", "log_softmax", "float", "long",
    "int", "bool", "half", "double", "bfloat16", "unsqueeze", "view", "view_as", "permute",
    "contiguous", "detach", "clone", "expand", "expand_as", "masked_fill", "new_zeros",
    "new_ones", "new_full", "new_empty", "new_tensor", "type_as", "cuda", "gather", "scatter",
    "scatter_add", "index_select", "masked_select", "matmul", "bmm", "norm", "pow", "sqrt",
    "rsqrt", "tanh", "relu", "clamp", "clamp_min", "clamp_max", "reshape_as", "narrow", "chunk",
    "unbind", "flip", "roll", "topk", "eq", "ne", "gt", "ge", "lt", "le", "isnan", "isinf",
    "logical_not", "logical_and", "logical_or", "sin", "cos", "neg", "reciprocal", "sign",
    "floor", "ceil", "trunc", "frac", "lerp", "addmm", "baddbmm", "einsum", "erf", "numel",
    "isfinite", "nan_to_num", "triu", "tril", "masked_scatter", "index_add", "index_fill",
    "unfold", "softplus", "square", "amax", "amin", "logsumexp", "cumprod",
})
#: torch functions returning boolean tensors.
BOOL_FUNCS = frozenset({
    "torch.isnan", "torch.isinf", "torch.isfinite", "torch.isneginf", "torch.isposinf",
    "torch.logical_and", "torch.logical_or", "torch.logical_not", "torch.logical_xor",
    "torch.eq", "torch.ne", "torch.gt", "torch.ge", "torch.lt", "torch.le", "torch.isin",
    "torch.greater", "torch.less", "torch.not_equal", "torch.bernoulli", "torch.isclose",
})
BOOL_METHODS = frozenset({
    "bool", "eq", "ne", "gt", "ge", "lt", "le", "isnan", "isinf", "isfinite", "logical_not",
    "logical_and", "logical_or", "isclose", "isin", "signbit",
})

#: torch functions that never return a tensor value (static queries, config, device/dist APIs).
#: Functions under the :data:`STATIC_TORCH_PREFIXES` namespaces that return tensors (or
#: tuples of them): gradient clipping's total norm, activation checkpointing's output, padded
#: batches, autograd's gradients (PyTorch 2.x signatures).
TENSOR_UTILS = frozenset({
    "torch.nn.utils.clip_grad_norm_", "torch.nn.utils.clip_grad.clip_grad_norm_", "torch.nn.utils.clip_grad_norm",
    "torch.nn.utils.get_total_norm", "torch.nn.utils.parameters_to_vector",
    "torch.nn.utils.rnn.pad_sequence", "torch.nn.utils.rnn.pad_packed_sequence", "torch.nn.utils.rnn.unpad_sequence",
    "torch.utils.checkpoint.checkpoint", "torch.utils.checkpoint.checkpoint_sequential",
    "torch.autograd.grad", "torch.autograd.functional.jacobian", "torch.autograd.functional.hessian",
    "torch.autograd.functional.vjp", "torch.autograd.functional.jvp",
    "torch.func.grad", "torch.func.vmap",
})
STATIC_TORCH_PREFIXES = (
    "torch.jit.", "torch.cuda.", "torch.distributed.", "torch.backends.", "torch.compiler.",
    "torch._dynamo.", "torch.onnx.", "torch.fx.", "torch.utils.", "torch.autograd.",
    "torch.nn.init.calculate_gain", "torch.nn.utils.", "torch.overrides.", "torch.version.",
    "torch.testing.", "torch._C.", "torch.library.", "torch.ops.", "torch.amp.", "torch.profiler.",
    "torch.hub.", "torch.optim.", "torch.mps.", "torch.xpu.", "torch.nn.modules.utils.",
    "torch._utils.", "torch.serialization.", "torch.types.", "torch.nn.common_types.",
    "torch._jit_internal.", "torch.export.", "torch.func.", "torch.multiprocessing.",
    # the legacy loss-reduction enum (`F._Reduction.get_enum(reduction)`: 0, 1 or 2)
    "torch.nn._reduction.", "torch.nn.functional._Reduction.", "torch.nn.modules.loss._Reduction.",
)
STATIC_TORCH = frozenset({
    "torch.is_tensor", "torch.is_floating_point", "torch.is_complex", "torch.numel",
    # Python ints: the global seed (`int(torch.seed() % sys.maxsize)` reads no tensor)
    "torch.seed", "torch.initial_seed", "torch.random.seed", "torch.random.initial_seed",
    "torch.cuda.initial_seed",
    "torch.is_grad_enabled", "torch.is_inference_mode_enabled", "torch.get_default_dtype",
    "torch.are_deterministic_algorithms_enabled", "torch.device", "torch.dtype", "torch.Size",
    "torch.finfo", "torch.iinfo", "torch.is_autocast_enabled", "torch.get_autocast_gpu_dtype",
    "torch.get_autocast_cpu_dtype", "torch.get_autocast_xla_dtype", "torch.get_autocast_ipu_dtype",
    "torch.get_autocast_dtype", "torch.promote_types", "torch.result_type", "torch.can_cast",
    "torch.is_storage", "torch.set_grad_enabled", "torch.no_grad", "torch.enable_grad",
    "torch.inference_mode", "torch.manual_seed", "torch.Generator", "torch.get_rng_state",
    "torch.is_nonzero", "torch.broadcast_shapes", "torch.typename", "torch.compile",
    "torch.load", "torch.save", "torch.set_default_dtype", "torch.autocast",
    "torch.get_num_threads", "torch.set_num_threads", "torch.use_deterministic_algorithms",
    "torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.Tensor",
    "torch.__version__", "torch.float32", "torch.float16", "torch.bfloat16", "torch.float64",
})
#: torch functions that compute a value from their arguments' values (elementwise math,
#: reductions): on static arguments (``torch.log2(torch.tensor(s))`` of a Python number) the
#: result is a number known at trace time, which a port computes with ``math``/``numpy``.
#: Creation functions (``zeros``, ``arange``, random draws) are not listed: their static
#: arguments are sizes, their results tensors.
STATIC_PRESERVING_TORCH = frozenset({
    "torch.log", "torch.log2", "torch.log10", "torch.log1p", "torch.exp", "torch.exp2",
    "torch.sqrt", "torch.rsqrt", "torch.pow", "torch.ceil", "torch.floor", "torch.round",
    "torch.trunc", "torch.abs", "torch.sign", "torch.max", "torch.min", "torch.maximum",
    "torch.minimum", "torch.prod", "torch.sum", "torch.clamp", "torch.div", "torch.floor_divide",
    "torch.remainder", "torch.sin", "torch.cos", "torch.tan", "torch.atan2", "torch.sigmoid",
    "torch.tanh",
})
#: torch functions that wrap Python values in a tensor: of one static number (or one tensor's
#: shape) the result is static; of a container of numbers it is tensor data a port may index.
STATIC_WRAPPING_TORCH = frozenset({"torch.tensor", "torch.as_tensor", "torch.scalar_tensor"})
#: torch functions whose result is a concrete host value computed from tensor values.
#: Checks that are true only while PyTorch's own tracers/exporters run (TorchScript, ONNX,
#: dynamo): the branch they select never runs eagerly, nor in a JAX port.
TRACING_CHECKS = frozenset({
    "torch.jit.is_tracing", "torch.jit.is_scripting", "torch.onnx.is_in_onnx_export",
    "torch.compiler.is_compiling", "torch.compiler.is_dynamo_compiling", "torch._dynamo.is_compiling",
    "transformers.utils.is_torchdynamo_compiling", "transformers.utils.import_utils.is_torchdynamo_compiling",
    "torchvision._is_tracing",
})
#: PyTorch device backends a JAX port does not inherit the workarounds of: a branch taken only
#: on one (``if x.device.type == "mps": x = x.cpu()``, demucs' complex-number detour around
#: torch's MPS backend) works around a gap of that PyTorch backend; XLA compiles the port's one
#: code path for every JAX backend, so the port drops the branch. CPU and CUDA are left out: a
#: ``cuda`` branch is often the real path (a fused kernel, handled as a kernel gate) and a ``cpu``
#: one the path a port tests on.
TORCH_ONLY_BACKENDS = frozenset({"mps", "xpu", "hpu", "npu", "mlu", "xla", "mtia", "ipu", "privateuseone"})
#: Tensor/module attributes true only on one of those backends.
TORCH_ONLY_BACKEND_FLAGS = frozenset({"is_mps", "is_xpu", "is_hpu", "is_xla", "is_ipu", "is_mtia"})
#: Availability checks of those backends (``if torch.backends.mps.is_available(): device = "mps"``).
TORCH_ONLY_BACKEND_CHECKS = frozenset({
    "torch.backends.mps.is_available", "torch.backends.mps.is_built", "torch.mps.is_available",
    "torch.xpu.is_available", "torch.mtia.is_available",
})
HOST_TORCH = frozenset({"torch.equal", "torch.allclose", "torch.is_nonzero"})

#: Builtins whose result is static whatever the argument.
STATIC_BUILTINS = frozenset({
    "len", "isinstance", "issubclass", "hasattr", "callable", "type", "id", "getattr", "str",
    "repr", "range", "enumerate", "zip", "tuple", "list", "dict", "set", "frozenset", "sorted",
})
#: Builtins that turn a tensor into a concrete host value.
#: (`all`/`any` iterate a tensor and take each element's truth value: a host bool read from data)
HOST_BUILTINS = frozenset({"int", "float", "bool", "complex", "all", "any"})
#: Library functions that are a Python cast outside a trace: transformers' ``torch_int(x)`` /
#: ``torch_float(x)`` return ``int(x)`` / ``float(x)`` unless ``torch.jit`` is tracing
#: (``transformers/utils/generic.py``): kinds as :data:`HOST_BUILTINS`
LIBRARY_CASTS = frozenset({
    "transformers.utils.torch_int", "transformers.utils.torch_float",
    "transformers.utils.generic.torch_int", "transformers.utils.generic.torch_float",
})

#: Reductions that give a 0-d tensor of the data when called without a dimension
#: (``lengths.max()``, ``torch.sum(mask)``): used as a size, a slice bound or a ``range`` bound,
#: PyTorch reads the value to the host implicitly (``Tensor.__index__``), as ``.item()`` would.
FULL_REDUCTION_METHODS = frozenset({
    "max", "min", "sum", "amax", "amin", "argmax", "argmin", "count_nonzero", "prod",
})
FULL_REDUCTION_FUNCS = frozenset(f"torch.{m}" for m in FULL_REDUCTION_METHODS)
#: Not a value kind of the visitor: the project level's mark on a call's return value that is
#: such a 0-d reduction (``def longest(l): return l.max()``), so that a caller's
#: ``torch.arange(longest(lengths))`` is a host read (requirement ``"r:<callee>=R"``).
RETURNED_REDUCTION = "R"
#: Not a value kind of the visitor either: the project level's mark on a call's return value
#: whose size depends on the data (``def pick(m): return torch.where(m)``, ``return x[mask]``),
#: so that a caller's ``len(idx)``, ``idx.numel()`` or ``idx.shape[0]`` is a host value
#: (requirement ``"r:<callee>=Z"``; a tuple return is one when every item is).
RETURNED_RAGGED = "Z"
#: Conversions that keep such a 0-d tensor a 0-d tensor (``lengths.max().long()``).
SCALAR_CASTS = frozenset({"long", "int", "to", "type", "clone", "detach"})

#: torch functions and tensor methods whose arguments set an output shape (sizes, lengths,
#: split points): a host value read from tensor data there makes the shape data-dependent.
SHAPE_FUNCS = frozenset({
    "torch.zeros", "torch.ones", "torch.empty", "torch.full", "torch.arange", "torch.linspace",
    "torch.rand", "torch.randn", "torch.randint", "torch.eye", "torch.split", "torch.narrow",
    "torch.tensor_split",
})
SHAPE_METHODS = frozenset({
    "view", "reshape", "expand", "repeat", "narrow", "split", "new_zeros", "new_ones",
    "new_empty", "new_full", "unflatten", "tensor_split", "topk",
})

#: Parameter names that by convention carry flags or sizes, not tensors (``no_`` as in
#: ``no_grad``, ``no_cache``, ``no_recycles``: a flag or a count).
STATIC_PARAM_NAME = re.compile(
    r"^(output_|return_|use_|is_|has_|do_|no_|num_|n_|max_|min_|training$|train$|deterministic$|"
    r"inference|debug|verbose|inplace$|mode$|dim$|axis$|kwargs$|args$|config$|layer_idx$|"
    r"interpolate_pos_encoding$|causal$|is_causal$|head_mask$|bsz$|batch_size$|seq_len$|seqlen$|"
    r"kernel_size$|stride$|padding$|dilation$|groups$|eps$|p$|scale_factor$|size$|shape$|dtype$|"
    r"device$|name$|prefix$|module$|layer$|fn$|func$|callback$|return_dict$|past_key_values_length$|"
    r"height$|width$|channels$|in_channels$|out_channels$|stage$|idx$|level$|step$|i$|j$|k$|"
    r"resolution$|input_resolution$|window$|sizes$|dims$|strides$|length$|offset$|count$|[qkm]len$)|"
    r"(_dim|_size|_len|_length|_idx|_id|_height|_width|_kwargs|_mode|_flag|_type|_name|_rate|_prob|_ratio|_factor|_fn|_config|_cfg|"
    r"_heads|_layers|_channels|_features|_steps|_resolution|_shape|_sizes|_dims|_number|_num)$"
)

#: Type names that mark a parameter as a tensor / as static.
TENSOR_TYPE_NAMES = frozenset({
    "torch.Tensor", "torch.FloatTensor", "torch.LongTensor", "torch.BoolTensor",
    "torch.HalfTensor", "torch.IntTensor", "torch.ByteTensor", "torch.DoubleTensor",
    "torch.nn.Parameter", "torch.nn.parameter.Parameter",
})
STATIC_TYPE_NAMES = frozenset({
    "int", "float", "bool", "str", "bytes", "tuple", "list", "dict", "torch.dtype",
    "torch.device", "torch.Size", "typing.Tuple", "typing.List", "typing.Dict", "typing.Callable",
    "Callable", "typing.Sequence", "typing.Any", "Any",
})
CONTAINER_TYPE_NAMES = frozenset({
    "typing.List", "typing.Tuple", "typing.Dict", "typing.Sequence", "typing.Iterable",
    "list", "tuple", "dict", "typing.Mapping", "collections.abc.Sequence", "Sequence",
    "typing.Callable", "Callable",
})


def torch_call_kind(qualname: str) -> str:
    """Kind of the result of calling the resolved dotted name ``qualname`` (a ``torch.*`` name).

    Classes (CapWords last part) under ``torch.nn`` are module constructors (``M``).
    """
    if qualname in HOST_TORCH:
        return H
    if qualname in TENSOR_UTILS:
        return T
    if qualname in STATIC_TORCH or qualname.startswith(STATIC_TORCH_PREFIXES):
        return S
    if qualname in TENSOR_TYPE_NAMES and qualname.endswith("Tensor"):
        # legacy type constructors build tensors: `torch.FloatTensor(n, d).uniform_()`
        return B if qualname == "torch.BoolTensor" else T
    last = qualname.rsplit(".", 1)[-1]
    if last.startswith("is_"):
        return S  # predicates on types, modes and settings (torch.is_autocast_cpu_enabled, torch.is_tensor)
    if qualname.startswith("torch.nn.") and not qualname.startswith("torch.nn.functional.") and last[:1].isupper():
        return M
    if last[:1].isupper():
        return S  # other torch classes (dtypes, storages, distributions) are not tensor values
    if qualname in BOOL_FUNCS:
        return B
    return T


def join(*kinds: str) -> str:
    """Kind of an arithmetic/comparison combination of operands: value kinds dominate."""
    if H in kinds:
        return H
    if T in kinds or B in kinds:
        return T
    if U in kinds:
        return U
    return S

#: Method names the objects of torch and Python share (tensors, modules, optimizers,
#: schedulers, containers, files, loggers, torch.distributions objects): a call of one on an
#: object of unknown class is most likely theirs, never resolved by name
#: (:meth:`migrate_lens.graph._Builder.by_method_name`; autoformer's `nll(input, target)` calls
#: `input.log_prob(target)` on a distribution, not transfo-xl's adaptive softmax)
COMMON_METHODS = frozenset("""
add add_ all any append apply argmax argmin backward bool buffers children clamp clear clone close contiguous
copy copy_ count cpu cuda decode detach dim double encode eval expand extend fill_ flatten float forward get
half index insert int item items keys load load_state_dict long max mean min modules named_buffers
named_children named_modules named_parameters numel numpy parameters permute pop predict read register_buffer
remove repeat requires_grad_ reset reshape run sample save set setdefault size sort split squeeze
state_dict std step sum tolist to train transpose type unsqueeze update values view write zero_ zero_grad
log info warning error debug format join lower upper strip startswith endswith replace fit transform
log_prob rsample entropy cdf icdf perplexity
""".split())


def split_return_key(key: str) -> tuple[str, str, int]:
    """``(callee, item, site)`` of a return key ``r:<callee>[#<item>][@<site>]`` (the item and
    the site in either order; item "" for the whole return, site 0 when the key has none):
    ``r:pkg.default@3`` -> ``("pkg.default", "", 3)``, ``r:step@2#1`` -> ``("step", "1", 2)``."""
    callee, _, idx = key[2:].partition("#")
    site = ""
    if "@" in callee:
        callee, _, site = callee.partition("@")
    elif "@" in idx:
        idx, _, site = idx.partition("@")
    return callee, idx, int(site) if site.isdigit() else 0
