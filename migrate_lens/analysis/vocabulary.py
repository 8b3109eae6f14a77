"""Name sets and patterns that several parts of :class:`~.visitor.FileVisitor` share:
traced method names, container constructors, configuration and state parameter names,
cache-key comparison operators, registration methods, tensor-only methods, random generator
constructors, in-place methods that leave a tensor's data alone.
"""

from __future__ import annotations

import re

import libcst as cst

_TRACED_METHODS = frozenset({"forward", "__call__", "_forward", "forward_features", "forward_head"})


_CONTAINER_CTORS = frozenset({
    "torch.nn.Sequential", "torch.nn.ModuleList", "torch.nn.ModuleDict",
    "torch.nn.ParameterList", "torch.nn.ParameterDict",
})


#: Builtins whose iteration yields (tuples of) the elements of their arguments.
_ITER_BUILTINS = frozenset({"zip", "enumerate", "reversed", "sorted", "list", "tuple", "iter", "map", "filter"})


#: parameter names that hold the model's configuration object (transformers, timm, mmcv)
_CONFIG_PARAMS = frozenset({"config", "cfg"})


#: Parameter names of state that outlives one call (a decoding cache, a recurrent state, a
#: memory bank): written in traced code, the caller reads it back across jit boundaries;
#: per-call containers (``features``, ``outputs``, ``names``) are trace-time Python lists/dicts.
_STATE_NAME = re.compile(
    r"cache|past_key|incremental|inference_params|history|(^|_)kv(_|$)|^(rnn_|recurrent_|decoder_|decode_|ssm_|conv_)?"
    r"states?$|(^|_)memory$", re.IGNORECASE)


#: Comparison operators of a cache-key test (``seq_len != self._seq_len_cached``).
_KEY_COMPARE_OPS = (cst.NotEqual, cst.Equal, cst.LessThan, cst.GreaterThan, cst.LessThanEqual,
                    cst.GreaterThanEqual)


#: methods (and decorator factories) of a module-level registry object that register a class or
#: a factory under a key (MONAI's LayerFactory, mmcv/mmdet's Registry)
_REGISTRATIONS = frozenset({"add_factory_class", "add_factory_callable", "factory_function", "add", "register",
                            "register_module", "register_class"})


#: Methods only a tensor (or an array) has, reading its value back or moving it: on a parameter
#: static by its name, anywhere in the function (``length.cpu().numpy()``), they make it a tensor
#: (:meth:`FileVisitor._param_evidence`, :data:`_TENSOR_ONLY_CALL`).
_TENSOR_ONLY_METHODS = frozenset({"item", "tolist", "cpu", "cuda", "numpy", "detach", "nonzero"})


#: Constructors of Python and NumPy random generators -> the module whose functions their
#: methods are (the `random` module's functions are methods of one hidden `random.Random`).
_RNG_CTORS = {
    "random.Random": "random", "random.SystemRandom": "random",
    "numpy.random.default_rng": "numpy.random", "numpy.random.RandomState": "numpy.random",
    "numpy.random.Generator": "numpy.random", "numpy.random.mtrand.RandomState": "numpy.random",
}


_RNG_CTOR_LEAVES = frozenset(n.rsplit(".", 1)[-1] for n in _RNG_CTORS)


#: In-place methods that are not data mutations (metadata flags).
_NOT_DATA_INPLACE = frozenset({"requires_grad_", "share_memory_", "retain_grad_", "train_"})


#: Calls that read a checkpoint or weight file: a function making one is a weight loader
#: (timm's ``_load_weights`` reading a big_vision npz, transformers' ``load_tf_weights_in_*``).
CHECKPOINT_READERS = frozenset({
    "numpy.load", "torch.load", "tensorflow.train.load_variable", "tensorflow.train.list_variables",
    "tensorflow.train.load_checkpoint", "tensorflow.compat.v1.train.load_variable",
    "tensorflow.compat.v1.train.list_variables", "safetensors.torch.load_file", "safetensors.safe_open",
    "safetensors.numpy.load_file", "h5py.File", "scipy.io.loadmat", "flax.serialization.from_bytes",
    "orbax.checkpoint.PyTreeCheckpointer", "jax.numpy.load",
})
