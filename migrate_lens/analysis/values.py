"""Value kinds: what kind of value an expression holds as far as JAX tracing cares (the
lattice of :mod:`.kinds`: tensor ``T``, boolean mask ``B``, data-dependent host value ``H``,
static ``S``, module ``M``, unknown ``U``), inferred from the current scope's bindings during
the single traversal.

:class:`ValueKinds` reads the names the traversal has bound so far (local variables' kinds,
``self`` attribute kinds, import aliases, local classes and functions) from the visitor it is
given and never walks a subtree twice: an expression's kind is computed from its own node and
its operands'.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import libcst as cst

from migrate_lens.analysis import kinds as K
from migrate_lens.analysis.bindings import BUILTINS as bindings_builtins
from migrate_lens.analysis.bindings import STRING_NODES
from migrate_lens.analysis.bindings import dotted as _dotted
from migrate_lens.analysis.bindings import is_project_callee
from migrate_lens.analysis.bindings import names_in_target
from migrate_lens.analysis.sites import NOT_LITERAL

if TYPE_CHECKING:
    from migrate_lens.analysis.visitor import FileVisitor

_NAME, _ATTRIBUTE, _CALL = cst.Name, cst.Attribute, cst.Call
#: torch functions (and tensor methods) whose result's size depends on the data
_RAGGED_CALLS = frozenset({"torch.nonzero", "torch.argwhere", "torch.masked_select", "torch.unique",
                           "torch.unique_consecutive"})
_RAGGED_METHODS = frozenset({"nonzero", "argwhere", "masked_select", "unique", "unique_consecutive"})
#: tensor methods whose result keeps the receiver's size (a data-dependent size stays one)
_SIZE_KEEPING = frozenset({"float", "double", "half", "bfloat16", "long", "int", "bool", "byte", "to", "type",
                           "detach", "clone", "contiguous", "abs", "exp", "log", "sigmoid", "relu", "sqrt", "neg",
                           "softmax", "log_softmax", "clamp", "clamp_min", "clamp_max", "pow", "square", "cpu",
                           "cuda", "flatten", "view_as", "reshape_as", "type_as", "sort", "argsort", "flip",
                           # reshapes keep the data-dependent element count (`torch.nonzero(m).squeeze(-1)`,
                           # `idx.view(-1)`); a size read of a trailing dim stays static (`_trailing_size`)
                           "squeeze", "unsqueeze", "view", "reshape", "t", "transpose", "permute"})
#: reductions whose result is a ``(values, indices)`` named tuple of tensors
_VALUES_INDICES = frozenset({"max", "min", "topk", "sort", "median", "nanmedian", "mode", "kthvalue", "cummax",
                             "cummin"})


def _named_pair(call: cst.Call, qual: Any) -> bool:
    """``call`` is a reduction returning ``(values, indices)``: a tensor method
    (``x.max(-1)``) or the ``torch`` function (``torch.topk(x, k)``)."""
    func = call.func
    if type(func) is not cst.Attribute or func.attr.value not in _VALUES_INDICES:
        return False
    name = qual(func)
    return not name or name == f"torch.{func.attr.value}" or not name.startswith("torch.")


def _trailing_dim(index: cst.BaseExpression) -> bool:
    """``index`` is a literal dimension other than the first (``-1``, ``1``, ``2``): the size of
    a trailing dimension, which a boolean-mask selection (``logits[mask]``: (selected, vocab))
    or ``nonzero()`` ((selected, ndim)) keeps static; only the first one is data-dependent."""
    if type(index) is cst.UnaryOperation and type(index.operator) is cst.Minus:
        return type(index.expression) is cst.Integer
    # (``int(text, 0)``, not ``evaluated_value``: that runs ``ast.literal_eval``, a parse per call)
    return type(index) is cst.Integer and int(index.value, 0) != 0


#: the type names whose instances are never tensors, in an ``isinstance`` test
_PLAIN_TYPES = frozenset({"int", "float", "bool", "str", "list", "tuple", "dict", "numbers.Number"})


#: Attributes whose presence says a value is an array (``hasattr(ref, "size")``: duck typing).
_ARRAY_ATTRS = frozenset({"size", "shape", "dim", "device", "dtype", "ndim"})


def _non_tensor_names(test: cst.BaseExpression) -> tuple[str, ...]:
    """The names ``test`` shows to hold no tensor when it is true: ``not torch.is_tensor(x)``,
    ``not isinstance(x, torch.Tensor)``, ``not hasattr(x, "size")``, ``isinstance(x, (int,
    float))`` (read by spelling: ``torch.Tensor``/``Tensor`` and the builtin types; through
    ``and``)."""
    t = type(test)
    if t is cst.BooleanOperation and type(test.operator) is cst.And:
        return _non_tensor_names(test.left) + _non_tensor_names(test.right)
    negated = t is cst.UnaryOperation and type(test.operator) is cst.Not
    call = test.expression if negated else test
    if type(call) is not cst.Call or not call.args or type(call.args[0].value) is not cst.Name:
        return ()
    func = call.func
    fname = func.attr.value if type(func) is cst.Attribute else func.value if type(func) is cst.Name else ""
    name = call.args[0].value.value
    if fname == "is_tensor":
        return (name,) if negated else ()
    if fname == "hasattr" and len(call.args) == 2 and type(call.args[1].value) is cst.SimpleString:
        # duck typing: `not hasattr(ref, "size")`
        return (name,) if negated and call.args[1].value.evaluated_value in _ARRAY_ATTRS else ()
    if fname != "isinstance" or len(call.args) != 2:
        return ()
    spec = call.args[1].value
    types = [el.value for el in spec.elements] if type(spec) is cst.Tuple else [spec]
    texts = {_dotted(x) for x in types}
    if negated:
        return (name,) if texts & {"torch.Tensor", "Tensor"} else ()
    return (name,) if texts and texts <= _PLAIN_TYPES else ()


def _restore(env: dict[str, str], saved: dict[str, str | None]) -> None:
    """Put back the kinds ``saved`` held before a temporary binding (None: the name was unbound)."""
    for n, old in saved.items():
        if old is None:
            env.pop(n, None)
        else:
            env[n] = old


def _trailing_size(call: cst.Call) -> bool:
    """``x.size(-1)``, ``x.size(dim=2)``: a trailing dimension's size (:func:`_trailing_dim`)."""
    return len(call.args) == 1 and (call.args[0].keyword is None or call.args[0].keyword.value == "dim") \
        and _trailing_dim(call.args[0].value)


#: methods that read a tensor's size as Python numbers
_SIZE_READS = frozenset({"size", "numel", "nelement"})
#: how many names a data-dependent size is followed back through (``a = x[m]; b = a.float()``)
_RAGGED_DEPTH = 6
#: literal leaves, whose kind is static (:meth:`ValueKinds.kind`)
_STATIC_LEAVES = frozenset({cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString,
                            cst.FormattedString, cst.Ellipsis})
#: the names that are literals (:func:`literal`)
_CONSTANT_NAMES: dict[str, Any] = {"True": True, "False": False, "None": None}


def literal(node: cst.BaseExpression) -> Any:
    """The Python value of a literal expression (numbers, strings, True/False/None, tuples and
    lists of those, unary minus), or :data:`NOT_LITERAL`. (The node's class is read once: most
    arguments are names, attributes and calls.)"""
    t = type(node)
    if t is _NAME:
        return _CONSTANT_NAMES.get(node.value, NOT_LITERAL)
    if t is _ATTRIBUTE or t is _CALL:
        return NOT_LITERAL
    if t is cst.Integer:
        try:
            return int(node.value.replace("_", ""), 0)
        except ValueError:
            return NOT_LITERAL
    if t is cst.Float:
        try:
            return float(node.value.replace("_", ""))
        except ValueError:
            return NOT_LITERAL
    if t is cst.SimpleString:
        text = node.value
        if _PLAIN_STRING(text) is not None:
            return text[1:-1]  # what ast.literal_eval gives, without its parse
        try:
            return node.evaluated_value
        except Exception:  # noqa: BLE001 - libcst raises several types on odd prefixes
            return NOT_LITERAL
    if t is cst.UnaryOperation and type(node.operator) is cst.Minus:
        inner = literal(node.expression)
        if isinstance(inner, (int, float)) and not isinstance(inner, bool):
            return -inner
        return NOT_LITERAL
    if t is cst.Tuple or t is cst.List:
        values = []
        for el in node.elements:
            if type(el) is cst.StarredElement:
                return NOT_LITERAL
            v = literal(el.value)
            if v is NOT_LITERAL:
                return NOT_LITERAL
            values.append(v)
        return tuple(values)
    return NOT_LITERAL



#: A one-line string literal without prefix, escapes or NUL (most arguments: ``"cpu"``,
#: ``'b h n d -> b n (h d)'``): its value is the text between the quotes. ``literal_eval``
#: (libcst's ``evaluated_value``) parses it and leaves four recursive closures behind per call,
#: reference cycles for the cyclic GC.
_PLAIN_STRING = re.compile(r"'[^'\\\n\r\x00]*'|\"[^\"\\\n\r\x00]*\"").fullmatch

#: Hypotheses tried on a symbolic input (a parameter only callers know, a callee's return).
HYPOTHESES = (K.T, K.B, K.H)
#: The derivation of a name bound to a symbolic input itself: its kind is the hypothesis
#: (static too: a static descriptor asks for the inputs taken static, :meth:`ValueKinds.static_descriptor`;
#: other derivations hold only the :data:`HYPOTHESES`, and a name read under a hypothesis
#: its derivation lacks is unknown).
IDENTITY = {K.T: K.T, K.B: K.B, K.H: K.H, K.S: K.S}
#: calls that iterate their argument's elements unchanged (in another order or container)
ITER_SAME = frozenset({"reversed", "sorted", "list", "tuple", "iter", "set", "frozenset"})

#: Attribute names of a boolean mask held by a batch or graph object (``data.train_mask``,
#: ``batch.node_mask``); not ``attention_mask``/``padding_mask``, 0/1 integer tensors as often
_MASK_ATTR = re.compile(r"^(train|val|valid|test|node|edge|label|loss|keep|select|sample)_mask$")

#: ``nn.Module`` (and transformers ``PreTrainedModel``) methods that return one of its layers
_MODULE_GETTERS = frozenset({"get_input_embeddings", "get_output_embeddings", "get_submodule", "get_encoder",
                             "get_decoder"})

#: Attribute names of a layer's parameters (``.weight``, ``.bias``, ``.in_proj_weight``)
_PARAM_ATTR = re.compile(r"^(weight|bias)$|_weight$|_bias$|^weight_")

#: ``nn.Module`` methods that walk a model's layers (``named_*``: ``(name, layer)`` pairs)
_MODULE_WALKS = frozenset({"modules", "children", "named_modules", "named_children"})


_CONTAINERS = (cst.List, cst.Tuple, cst.ListComp, cst.Set, cst.SetComp, cst.Dict, cst.DictComp, cst.GeneratorExp)


def _is_shape(node: cst.BaseExpression) -> bool:
    """``x.shape``, ``x.shape[a:b]`` or ``x.size()``: a tuple of a tensor's static dims."""
    if type(node) is cst.Subscript:
        node = node.value
    if type(node) is cst.Attribute:
        return node.attr.value == "shape"
    return (type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "size"
            and not node.args)


def _is_config_value(node: cst.Attribute) -> bool:
    """``self.config.chunk_size`` / ``cfg.max_len``: an attribute read off a config object."""
    base: cst.BaseExpression = node.value
    while type(base) is cst.Attribute:
        if base.attr.value in ("config", "cfg"):
            return True
        base = base.value
    return type(base) is cst.Name and base.value in ("config", "cfg")


class ValueKinds:
    """Kind inference for one file's traversal. ``visitor`` provides the scope: its
    ``func_stack`` (innermost function's ``env`` of local kinds, ``derived`` kinds of names
    that depend on symbolic inputs, and ``cls`` with ``attr_kinds``/``returns``), ``qual``
    (dotted name resolution) and its module-level name tables (``bindings``:
    :class:`~.bindings.Bindings`, and ``local_classes``).

    Symbolic inputs (``Flow`` keys ``p:<param>``, ``r:<callee>[#i]``) have kind ``U`` unless a
    hypothesis ``hyp = {key: kind, ...}`` is active, under which they (and the names derived
    from them) take that kind; ``used`` collects the keys an evaluation consulted, so that a
    caller can evaluate again under each hypothesis (:meth:`under`).

    *Assumed* names are another kind of input: a module method's parameter taken for a tensor
    only because module methods take tensors (``_FuncScope.assumed``), and the locals computed
    from such parameters alone. They keep their tensor kind; ``assumed_read`` collects the
    parameters an evaluation read through them, and :meth:`assuming_static` evaluates again
    with some of those parameters static (callers that pass ``True`` make ``not flag`` static)."""

    __slots__ = ("v", "hyp", "used", "assumed_read", "static_params", "_entries_open", "ragged_used")

    def __init__(self, visitor: FileVisitor) -> None:
        self.v = visitor
        self.hyp: dict[str, str] | None = None
        self.used: set[str] = set()
        self.assumed_read: set[str] = set()
        #: the assumed parameters taken static (:meth:`assuming_static`), None: none
        self.static_params: frozenset[str] | None = None
        #: ids of dict entries whose kind is being evaluated (an entry that reads itself)
        self._entries_open: set[int] = set()
        #: the callees' return keys (``r:<callee>``) asked whether their value has a
        #: data-dependent size (:meth:`is_ragged`, hypothesis :data:`~.kinds.RETURNED_RAGGED`)
        self.ragged_used: set[str] = set()

    def set_aside(self) -> tuple[set[str], set[str], set[str]]:
        """Start fresh records of the inputs evaluations read (``used``, ``assumed_read``,
        ``ragged_used``) and return the current ones, for :meth:`restore`: a side question
        asked in the middle of a statement leaves the statement's records as they were."""
        saved = self.used, self.assumed_read, self.ragged_used
        self.used, self.assumed_read, self.ragged_used = set(), set(), set()
        return saved

    def restore(self, saved: tuple[set[str], set[str], set[str]]) -> None:
        """Put back the records :meth:`set_aside` returned."""
        self.used, self.assumed_read, self.ragged_used = saved

    def under(self, key: str | dict[str, str], hypothesis: str, fn: Callable[[], Any]) -> Any:
        """``fn()`` evaluated with the symbolic input ``key`` taking kind ``hypothesis`` (or,
        ``key`` a dict, with every input in it taking its kind); ``used`` is left as it was."""
        saved_hyp, saved_used, saved_ragged = self.hyp, self.used, self.ragged_used
        self.hyp, self.used = (dict(key) if isinstance(key, dict) else {key: hypothesis}), set()
        self.ragged_used = set()
        try:
            return fn()
        finally:
            self.hyp, self.used, self.ragged_used = saved_hyp, saved_used, saved_ragged

    def assuming_static(self, params: frozenset[str], fn: Callable[[], Any]) -> Any:
        """``fn()`` evaluated with the assumed parameters ``params`` static: a name assumed
        through them alone has its kind under that hypothesis (static for the parameters
        themselves, :attr:`_FuncScope.assumed`)."""
        saved = self.static_params
        self.static_params = params
        try:
            return fn()
        finally:
            self.static_params = saved

    def static_descriptor(self, node: cst.BaseExpression) -> str:
        """Whether ``node`` is static, as a static descriptor (:attr:`migrate_lens.models.CallFlow.static`):
        "S" when its kind is static with no symbolic input read (a literal, a config
        attribute, a static local; an assumed parameter read does not matter: a static
        expression of a tensor is static of a flag too), the ``&``-joined keys of the inputs
        it reads (``a:<param>`` for assumed parameters, the symbolic ``p:``/``r:`` keys) when
        it is static once they all are, else "". Resets the inputs read (``used``,
        :attr:`assumed_read`), as the visitor's ``_fresh`` does."""
        self.used, self.assumed_read = set(), set()
        k = self.kind(node)
        used, reads = self.used, self.assumed_read
        if k == K.S and not used:
            return "S"
        if not used and not reads:
            return ""
        hyp = {key: K.S for key in used}
        got = self.assuming_static(frozenset(reads), lambda: self.under(hyp, K.S, lambda: self.kind(node)) if hyp
                                   else self.kind(node))
        if got != K.S:
            return ""
        return "&".join(sorted({*used, *(f"a:{p}" for p in reads)}))

    def derive(self, fn: Callable[[], str], used: set[str]) -> dict[str, dict[str, str]]:
        """For each key in ``used``: the kind ``fn()`` has under each hypothesis on it."""
        return {key: {h: self.under(key, h, fn) for h in HYPOTHESES} for key in sorted(used)}

    def iteration_kinds(self, target: cst.BaseExpression, it: cst.BaseExpression) -> dict[str, str]:
        """Kinds of the names a ``for`` target binds when iterating ``it``: ``range`` gives
        static counters (host values when a bound is a value); ``enumerate``/``zip`` pair their
        arguments' elements; iterating a tensor gives rows (tensors) to a name and data-
        dependent host values to a tuple of names (``for h, w in spatial_shapes``: each is a
        number read from tensor data); a module container gives modules."""
        out: dict[str, str] = {}
        self._bind_iteration(target, it, out)
        return out

    def _bind_iteration(self, target: cst.BaseExpression, it: cst.BaseExpression | None, out: dict[str, str]) -> None:
        if it is None:
            for n in names_in_target(target):
                out[n] = K.U
            return
        fname = self.v.qual(it.func) if type(it) is cst.Call else ""
        if fname == "range":
            kinds = [self.kind(a.value) for a in it.args]  # type: ignore[union-attr]
            k = K.H if any(x in K.VALUE_KINDS for x in kinds) else K.S
            for n in names_in_target(target):
                out[n] = k
            return
        if fname in ("enumerate", "zip") and type(target) in (cst.Tuple, cst.List) and not any(
                type(e) is cst.StarredElement for e in target.elements):  # type: ignore[union-attr]
            els = [e.value for e in target.elements]  # type: ignore[union-attr]
            args = [a.value for a in it.args if a.keyword is None and not a.star]  # type: ignore[union-attr]
            if fname == "enumerate" and len(els) == 2 and args:
                for n in names_in_target(els[0]):
                    out[n] = K.S
                self._bind_iteration(els[1], args[0], out)
                return
            if fname == "zip" and len(els) == len(args):
                for el, arg in zip(els, args):
                    self._bind_iteration(el, arg, out)
                return
        if fname == "filter" and type(it) is cst.Call and len(it.args) == 2 and _group_params(it.args[1].value, self.v):
            it = it.args[1].value  # `filter(lambda p: p.grad is not None, group["params"])`
        if _group_params(it, self.v):
            # `for p in group["params"]` over `for group in self.param_groups`: an optimizer's
            # parameters, tensors
            for n in names_in_target(target):
                out[n] = K.T if type(target) is cst.Name else K.U
            return
        if fname in ITER_SAME and type(it) is cst.Call and it.args:
            self._bind_iteration(target, it.args[0].value, out)
            return
        if type(it) is _CALL and type(it.func) is _ATTRIBUTE and it.func.attr.value in _MODULE_WALKS:
            # `for m in model.modules()`, `for name, m in model.named_modules()`: the layers of
            # a model, whatever the model's own kind (an unannotated parameter)
            named = it.func.attr.value.startswith("named_")
            if named and type(target) is cst.Tuple and len(target.elements) == 2:
                for n in names_in_target(target.elements[0].value):
                    out[n] = K.S
                for n in names_in_target(target.elements[1].value):
                    out[n] = K.M
                return
            if not named:
                for n in names_in_target(target):
                    out[n] = K.M
                return
        if fname in ("enumerate", "zip", "map", "filter"):
            k = K.S if all(self.kind(a.value) == K.S for a in it.args) else K.U  # type: ignore[union-attr]
            for n in names_in_target(target):
                out[n] = k
            return
        base = it.value if type(it) is cst.Subscript and all(
            type(e.slice) is cst.Slice for e in it.slice) else it  # type: ignore[union-attr]
        if (type(base) is cst.Name and self.v.func_stack and base.value in self.v.func_stack[-1].tensor_lists) or (
                type(base) is cst.Attribute and type(base.value) is cst.Name and base.value.value == "self" and
                self.v.func_stack and self.v.func_stack[-1].cls is not None and
                base.attr.value in self.v.func_stack[-1].cls.tensor_lists):
            # `for hist in reversed(history[:n])` over the tensors `history.append(indices)`
            # collected: each item is a tensor (a Python list of them is no value itself)
            if type(target) is cst.Name:
                out[target.value] = K.T
            else:
                for n in names_in_target(target):
                    out[n] = K.U
            return
        if type(it) is cst.Name and self.v.func_stack and it.value in self.v.func_stack[-1].optional:
            # `for h, w in spatial_shapes` with `spatial_shapes=None`: a tensor only by guess
            # (a module method's argument), as often a list of Python tuples: no evidence
            for n in names_in_target(target):
                out[n] = K.U
            return
        if type(it) in (cst.Tuple, cst.List) and it.elements and not any(  # type: ignore[union-attr]
                type(e) is cst.StarredElement for e in it.elements):  # type: ignore[union-attr]
            # `for h in (hidden, attn)`: each element in turn
            ks = {self.kind(e.value) for e in it.elements}  # type: ignore[union-attr]
            if ks <= K.TENSORISH and type(target) is cst.Name:
                out[target.value] = K.B if ks == {K.B} else K.T
                return
        k = self.kind(it)
        if k == K.M and self.parameter_container(it):
            k = K.T  # `for p in self.scales` of an `nn.ParameterList`: parameters
        if k in K.TENSORISH:
            if type(target) is cst.Name:
                out[target.value] = k  # rows of a mask are masks
            else:
                for n in names_in_target(target):
                    out[n] = K.H
            return
        k = k if k in (K.M, K.S, K.H) else K.U
        for n in names_in_target(target):
            out[n] = k

    def _reduced_kind(self, node: cst.BaseExpression) -> str:
        """Kind of the first argument of ``sum``/``min``/``max`` as what the reduction returns: a
        comprehension or a literal list/tuple/set of tensors (``sum(F.mse_loss(q, t) for q in
        qs)``, ``max([a, b])``) reduces to a tensor; otherwise the argument's own kind (a list of
        host values stays host, of Python numbers static)."""
        t = type(node)
        if t is cst.ListComp or t is cst.SetComp or t is cst.GeneratorExp:
            k = self.element_kind(node)
        elif t is cst.List or t is cst.Tuple or t is cst.Set:
            k = K.join(*(self.kind(el.value) for el in node.elements if type(el) is not cst.StarredElement))
        elif t is cst.Name and self.v.func_stack and node.value in self.v.func_stack[-1].tensor_lists:
            return K.T  # `y = [norm(t) for t in layers]; y = sum(y) / len(y)` (data2vec's targets)
        else:
            return self.kind(node)
        return K.T if k in K.TENSORISH else self.kind(node)

    def _comprehension_kind(self, node: cst.ListComp | cst.SetComp | cst.GeneratorExp) -> str:
        """A list of host values (``[int(n) for n in lengths]``) is a host value, a list of layers
        (``[m for m in model.modules() if isinstance(m, nn.BatchNorm2d)]``) holds modules; other
        comprehensions are static containers."""
        k = self.element_kind(node)
        return k if k in (K.H, K.M) else K.S

    def element_kind(self, node: cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp) -> str:
        """Kind of one element of a comprehension (a dict comprehension's value), with the
        ``for`` targets bound for the element's evaluation only; ``S`` outside functions."""
        scope = self.v.func_stack[-1] if self.v.func_stack else None
        if scope is None:
            return K.S
        env = scope.env
        assumed = scope.assumed
        saved: dict[str, str | None] = {}
        hidden: dict[str, Any] = {}
        try:
            comp: cst.CompFor | None = node.for_in
            while comp is not None:
                for n, k in self.iteration_kinds(comp.target, comp.iter).items():
                    saved.setdefault(n, env.get(n))
                    env[n] = k
                    if assumed and n in assumed:  # the comprehension's own name, not the parameter
                        hidden.setdefault(n, assumed.pop(n))
                comp = comp.inner_for_in
            elt = self.kind(node.value if type(node) is cst.DictComp else node.elt)
        finally:
            _restore(env, saved)
            assumed.update(hidden)
        return elt

    def with_static(self, names: Iterable[str], fn: Callable[[], Any]) -> Any:
        """``fn()`` evaluated with the locals ``names`` static (a type test has shown they hold no
        tensor: ``not torch.is_tensor(x) and x == 0``), their assumptions and symbolic inputs
        hidden for the evaluation only."""
        scope = self.v.func_stack[-1] if self.v.func_stack else None
        if scope is None:
            return fn()
        env, assumed, derived = scope.env, scope.assumed, scope.derived
        saved = {n: env.get(n) for n in names}
        hidden_a = {n: assumed.pop(n) for n in names if assumed and n in assumed}
        hidden_d = {n: derived.pop(n) for n in names if derived and n in derived}
        try:
            for n in names:
                env[n] = K.S
            return fn()
        finally:
            _restore(env, saved)
            assumed.update(hidden_a)
            derived.update(hidden_d)

    # ------------------------------------------------------------------ value kinds
    def kind(self, node: cst.BaseExpression) -> str:
        """Value kind (see :mod:`.kinds`) of an expression in the current scope. (The node's
        class is read once and tested by identity or set membership, most common first.)"""
        t = type(node)
        if t is _NAME:
            v = self.v
            if v.func_stack:
                scope = v.func_stack[-1]
                env = scope.env
                if node.value in env:
                    assumed = scope.assumed.get(node.value) if scope.assumed else None
                    if assumed is not None:  # (params, kind when they are static)
                        self.assumed_read.update(assumed[0])
                        if self.static_params is not None and assumed[0] <= self.static_params:
                            return assumed[1]
                    derived = scope.derived.get(node.value) if scope.derived else None
                    if derived is not None:
                        self.used.update(derived)
                        if self.hyp is not None:
                            ks = [m.get(self.hyp[k], K.U) for k, m in derived.items() if k in self.hyp]
                            if ks:
                                return ks[0] if len(ks) == 1 else K.join(*ks)
                    return env[node.value]
            if node.value in ("True", "False", "None"):
                return K.S
            if v.bindings.is_bound(node.value) or node.value in v.local_classes:
                return K.S
            if node.value in v.bindings.globals:
                return K.S
            return K.U
        if t is _ATTRIBUTE:
            return self._attribute_kind(node)
        if t is _CALL:
            return self._call_kind(node)
        if t in _STATIC_LEAVES:
            return K.S
        if t is cst.Subscript:
            if type(node.value) is _ATTRIBUTE and node.value.attr.value == "shape" and len(node.slice) == 1 \
                    and type(node.slice[0].slice) is cst.Index and _trailing_dim(node.slice[0].slice.value):
                return K.S  # `x[mask].shape[-1]`: a trailing dimension a selection keeps (static)
            if type(node.value) is _ATTRIBUTE and type(node.value.value) is _NAME and node.value.value.value == "self" \
                    and self.v.func_stack and self.v.func_stack[-1].cls is not None \
                    and node.value.attr.value in self.v.func_stack[-1].cls.tensor_lists:
                return K.T  # `self.key_cache[layer_idx]`: an item of a list of tensors init code filled
            if type(node.value) is _NAME and self.v.func_stack and len(node.slice) == 1:
                scope = self.v.func_stack[-1]
                if node.value.value == scope.star_kwargs:
                    return self._kwarg_kind(node.slice[0].slice)  # `kwargs["attention_mask"]`
                if scope.weight_maps and node.value.value in scope.weight_maps:
                    return K.T  # `averaged_params[name]` of `averaged_params = dict(m.named_parameters())`
                if scope.tensor_maps and node.value.value in scope.tensor_maps and \
                        node.value.value in scope.params and type(node.slice[0].slice) is cst.Index and \
                        type(literal(node.slice[0].slice.value)) is str:
                    return K.T  # `x["encoder_lengths"]` of `x: Dict[str, torch.Tensor]`
                entries = scope.dict_kinds.get(node.value.value) if scope.dict_kinds else None
                if entries is not None and type(node.slice[0].slice) is cst.Index:
                    key = literal(node.slice[0].slice.value)
                    if type(key) is str and key in entries and entries[key] is not node:
                        # `out["n_pos"]` of `out = {"n_pos": (t > 0).sum()}` (an entry written from
                        # itself, `d["a"] = d["a"][:-1]`, is evaluated once: no endless recursion)
                        entry = entries[key]
                        if id(entry) in self._entries_open:
                            return K.U
                        self._entries_open.add(id(entry))
                        try:
                            return self.kind(entry)
                        finally:
                            self._entries_open.discard(id(entry))
                elif type(node.slice[0].slice) is cst.Index and type(key := literal(node.slice[0].slice.value)) is str:
                    got = self._returned_entry(scope, node.value.value, key)
                    if got is not None:
                        return got
            base = self.kind(node.value)
            if base == K.B:
                return K.B
            if base == K.S and type(node.value) is _NAME and self.v.func_stack and len(node.slice) == 1 and \
                    type(node.slice[0].slice) is cst.Index:
                scope = self.v.func_stack[-1]
                if node.value.value in scope.tensor_lists:
                    return K.T  # `feats[0]` of `feats = [a, b]`, of `feats.append(t)`: a tensor
                if scope.unknown_items and node.value.value in scope.unknown_items:
                    return K.U  # `batch["done"]` of `batch = {k: t[1:] for k, t in batch.items()}`
            if base == K.S and type(node.value) is _ATTRIBUTE and type(node.value.value) is _NAME and \
                    node.value.value.value == "self" and self.v.func_stack:
                cls = self.v.func_stack[-1].cls
                if cls is not None and node.value.attr.value in cls.tensor_entries:
                    return K.T  # `self._streaming_state["offset"]`: a dict on self its methods fill with tensors
            if base == K.M and self.parameter_container(node.value):
                return K.T  # `self.logits[adapter]` of an `nn.ParameterDict`: a parameter, not a module
            if base in (K.T, K.H, K.S, K.M):
                return base
            return K.U
        if t is cst.BinaryOperation:
            left, right = self.kind(node.left), self.kind(node.right)
            if type(node.operator) in (cst.BitAnd, cst.BitOr, cst.BitXor) and K.B in (left, right):
                return K.B
            return K.join(left, right)
        if t is cst.UnaryOperation:
            inner = self.kind(node.expression)
            if type(node.operator) is cst.BitInvert and inner in K.TENSORISH:
                return K.B
            if type(node.operator) is cst.Not and inner in K.TENSORISH:
                return K.B
            return inner
        if t is cst.Comparison:
            if any(type(c.operator) in (cst.Is, cst.IsNot, cst.In, cst.NotIn) for c in node.comparisons):
                return K.S
            operands = [node.left, *(c.comparator for c in node.comparisons)]
            if any(type(o) in STRING_NODES or self._is_str_const(o) for o in operands):
                return K.S  # tensors are never compared with strings: config/mode checks
            if any(type(o) is _NAME and o.value == "None" for o in operands):
                # `x == None`: a tensor compared with None is the Python bool False in PyTorch and
                # under jax.jit alike (no elementwise comparison): an identity test spelled badly
                return K.S
            ks = [self.kind(o) for o in operands]
            if K.T in ks or K.B in ks:
                return K.B
            if K.H in ks:
                return K.H
            return K.U if K.U in ks else K.S
        if t is cst.BooleanOperation:
            left = self.kind(node.left)
            narrowed = _non_tensor_names(node.left) if type(node.operator) is cst.And else ()
            if narrowed:  # `not torch.is_tensor(losses) and losses == 0`: a Python number there
                return K.join(left, self.with_static(narrowed, lambda: self.kind(node.right)))
            return K.join(left, self.kind(node.right))
        if t is cst.IfExp:
            if type(node.test) is cst.Call and self.v.qual(node.test.func) in K.TRACING_CHECKS:
                return self.kind(node.orelse)  # `torch.min(t) if torch.jit.is_tracing() else min(r)`: eager runs orelse
            return K.join(self.kind(node.body), self.kind(node.orelse))
        if t is cst.Tuple or t is cst.List or t is cst.Set:
            # a sequence holding a data-dependent number is one (`(n, d)` as a shape)
            for el in node.elements:
                if type(el) is not cst.StarredElement and self.kind(el.value) == K.H:
                    return K.H
            return K.S
        if t is cst.ListComp or t is cst.SetComp or t is cst.GeneratorExp:
            return self._comprehension_kind(node)
        if t is cst.Dict or t is cst.DictComp or t is cst.Lambda:
            return K.S
        return K.U

    def _is_str_const(self, node: cst.BaseExpression) -> bool:
        """A name of an enum-like string constant, however it is spelled: a module-level
        ``EASY = "easy"`` read as ``EASY`` (not shadowed by a local), or a class-body one read
        as ``self.EASY`` / ``cls.EASY`` (the enclosing class's, or a base class's in this file)
        or ``Miner.EASY`` (a class of this file): ``Bindings.str_consts``,
        ``_ClassInfo.str_consts``."""
        v = self.v
        if type(node) is cst.Name:
            name = node.value
            return name in v.bindings.str_consts and not (v.func_stack and name in v.func_stack[-1].env)
        if type(node) is not cst.Attribute or type(node.value) is not cst.Name:
            return False
        owner = node.value.value
        if owner in ("self", "cls"):
            cls = v.func_stack[-1].cls if v.func_stack else None
        else:
            cls = v.local_classes.get(owner)
        return cls is not None and node.attr.value in cls.str_consts

    def is_ragged(self, node: cst.BaseExpression, depth: int = 0,
                  earlier: dict[str, Any] | None = None) -> bool:
        """``node`` is a tensor whose size depends on the data: a boolean-mask selection
        (``x[x > 0]``, ``x[:, keep]``), ``nonzero``/``argwhere``/``masked_select``/``unique``,
        one-argument ``torch.where``, such a tensor under a size-keeping method or arithmetic,
        or a local last bound to one (followed back :data:`_RAGGED_DEPTH` names). Its
        ``.shape``, ``.size()``, ``.numel()`` and ``len()`` are then data-dependent host values,
        not static ones. The mask's kind is read under the current hypothesis, so a helper's
        ``logits[target != ignore_index]`` is ragged when its caller passes a tensor. A name
        read inside its own binding's expression (``logits = logits[valid]; logits =
        logits.float()``) is its binding before that one (``earlier``), not the same again."""
        if depth > _RAGGED_DEPTH:
            return False
        t = type(node)
        if t is _NAME:
            scope = self.v.func_stack[-1] if self.v.func_stack else None
            if scope is None:
                return False
            name = node.value
            src = earlier[name] if earlier is not None and name in earlier else scope.last_value.get(name)
            if src is None:
                return False
            if self.is_ragged(src, depth + 1, {**(earlier or {}), name: scope.prior_value.get((name, id(src)))}):
                return True
            # another branch's binding that reaches here too (`if a: ids = ids[m]` / `else: ...`)
            return any(self.is_ragged(alt, depth + 1, {**(earlier or {}), name: scope.prior_value.get((name, id(alt)))})
                       for alt in scope.alt_values.get((name, id(src)), ()))
        if t is cst.Subscript:
            if self.is_ragged(node.value, depth + 1, earlier) or self._ragged_items(node.value, depth):
                return True
            # a boolean mask, or an index tensor of data-dependent length (`a1[p_idx]` with
            # `p_idx, n_idx = torch.where(a1.unsqueeze(1) == a2)`)
            return any(type(el.slice) is cst.Index and (self.kind(el.slice.value) == K.B or (
                type(el.slice.value) is _NAME and self.is_ragged(el.slice.value, depth + 1, earlier)))
                for el in node.slice)
        if t is _CALL:
            func = node.func
            name = self.v.qual(func)  # the function form first: `torch.unique(x)` is no method of `torch`
            if name in _RAGGED_CALLS:
                return True
            if name == "torch.where":
                return sum(1 for a in node.args if a.keyword is None) == 1
            if type(func) is _ATTRIBUTE:
                m = func.attr.value
                if m in _RAGGED_METHODS:
                    return self.kind(func.value) in K.TENSORISH
                if m in _SIZE_KEEPING:
                    return self.is_ragged(func.value, depth + 1, earlier)
            if is_project_callee(name):
                # what a function the project may define returns: its summary decides
                # (`idx = lmu.get_all_triplets_indices(labels)`, a helper's `torch.where(m)`)
                key = self.return_key(node, name)
                self.ragged_used.add(key)
                return self.hyp is not None and self.hyp.get(key) == K.RETURNED_RAGGED
            return False
        if t is cst.Tuple:  # `return a[m], p[m], n[m]`: a tuple of data-dependent sizes
            return bool(node.elements) and all(
                type(el) is cst.Element and self.is_ragged(el.value, depth + 1, earlier) for el in node.elements)
        if t is cst.BinaryOperation:
            return self.is_ragged(node.left, depth + 1, earlier) or self.is_ragged(node.right, depth + 1, earlier)
        if t is cst.UnaryOperation:
            return self.is_ragged(node.expression, depth + 1, earlier)
        return False

    def _ragged_items(self, node: cst.BaseExpression, depth: int) -> bool:
        """``node`` is a list comprehension of data-dependent-size tensors, or a local last bound
        to one (``idx = [torch.eq(routes, i).nonzero(as_tuple=True)[0] for i in range(E)]``):
        an item of it (``idx[i]``) has a data-dependent size, the list's own length does not."""
        if type(node) is _NAME and self.v.func_stack:
            node = self.v.func_stack[-1].last_value.get(node.value, node)
        return type(node) in (cst.ListComp, cst.GeneratorExp) and self.is_ragged(node.elt, depth + 1)

    def _attribute_kind(self, node: cst.Attribute) -> str:
        attr = node.attr.value
        if type(node.value) is cst.Name and node.value.value == "self":
            cls = self.v.func_stack[-1].cls if self.v.func_stack else None
            if cls is not None:
                if attr == "state" and cls.is_optimizer:
                    return K.T  # an optimizer's per-parameter state: moment tensors (`state["exp_avg"]`)
                return cls.attr_kinds.get(attr, K.S)
            return K.S
        if attr == "shape" and self.is_ragged(node.value):
            return K.H  # the size of a boolean-mask selection: known only from the data
        if attr in K.STATIC_TENSOR_ATTRS:
            return K.S
        resolved = self.v.qual(node)
        if resolved.startswith("torch."):
            return K.S  # dtypes, modules, constants
        if _MASK_ATTR.search(attr):
            # `data.train_mask` of a PyG batch, whatever the batch's kind reads as (a loader's item,
            # `data = data.to(device)`): a node mask (`out[data.train_mask]`)
            return K.B
        base = self.kind(node.value)
        if base == K.U and type(node.value) is _CALL and type(node.value.func) is _ATTRIBUTE and \
                node.value.func.attr.value in _MODULE_GETTERS:
            base = K.M  # `text_encoder.get_input_embeddings().weight`: a layer's parameter
        if base in K.TENSORISH:
            if attr in K.TENSOR_ATTRS:
                return K.T
            if attr in ("values", "indices") and type(node.value) is _CALL and _named_pair(node.value, self.v.qual):
                return K.T  # `logits.max(-1).values`, `torch.topk(s, k).indices`
            return K.U
        if base == K.M:
            known = self._submodule_attr_kind(node)
            if known:
                return known  # `self.scale.scale_factor` of a class in this file: its own kind
            if attr == "num_batches_tracked":
                return K.T  # (the batch-norm layers' buffer, a count held as a tensor)
            if K.MODULE_CONFIG_ATTR.search(attr):
                return K.S  # `e.embedding_dim`, `self.fc.in_features`: the layer's settings
            if re.search(r"weight|bias|running_|scale|embedding|buffer|_param|inv_freq|mask", attr):
                return K.T
            return K.S
        if attr == "grad":
            return K.T  # `.grad` of whatever holds it is a gradient tensor (`[v.grad for v in params]`)
        if attr == "data" and type(node.value) is _ATTRIBUTE and _PARAM_ATTR.search(node.value.attr.value):
            return K.T  # `model.embed.weight.data`: a parameter's storage, whatever holds it
        if base == K.S:
            return K.S
        return K.U

    def _submodule_attr_kind(self, node: cst.Attribute) -> str:
        """The kind of ``self.<sub>.<attr>`` when ``<sub>`` holds an instance of a class defined
        in this file that sets ``<attr>`` (a parameter, a buffer, a plain value); "" otherwise."""
        sub = node.value
        if type(sub) is not _ATTRIBUTE or type(sub.value) is not _NAME or sub.value.value != "self" \
                or not self.v.func_stack:
            return ""
        cls = self.v.func_stack[-1].cls
        ctor = cls.attr_ctor.get(sub.attr.value, "") if cls is not None else ""
        held = self.v.local_classes.get(ctor.rsplit(".", 1)[-1]) if ctor else None
        if held is None or held.qualname != ctor:
            return ""
        if node.attr.value in held.buffers:
            return K.T
        return held.attr_kinds.get(node.attr.value, "")

    def module_call(self, func: cst.BaseExpression) -> bool:
        """``func``, a callee, is a module drawn from a container: a local holding one
        (``for layer in self.layers: layer(x)``) or an item of one (``self.blocks[i](x)``,
        ``self.heads["cls"](x)``)."""
        if type(func) is _NAME:
            return bool(self.v.func_stack) and self.v.func_stack[-1].env.get(func.value) == K.M
        return type(func) is cst.Subscript and self.kind(func.value) == K.M

    def _call_kind(self, node: cst.Call, name: str | None = None, receiver: str = "",
                   receiver_used: Iterable[str] = ()) -> str:
        """Value kind of a call's result. A caller that has just evaluated the callee's name
        (``name``: the visitor's ``qual(node.func)``) or, for a method call, its receiver's kind
        (``receiver``, with the inputs that evaluation read: ``receiver_used``), in the same
        scope and hypothesis, passes them: evaluating them again would give the same values
        and read the same inputs (name resolution and kinds have no other effect)."""
        func = node.func
        if type(func) is _ATTRIBUTE and type(func.value) is _NAME and func.attr.value in ("get", "pop") and \
                node.args and self.v.func_stack and func.value.value == self.v.func_stack[-1].star_kwargs:
            if len(node.args) > 1 and type(literal(node.args[1].value)) is bool and \
                    literal(node.args[0].value) not in self.v.func_stack[-1].kwargs_written:
                return K.S  # `kwargs.get("keep_cache", False)`: a flag, as a parameter with that default
            return self._kwarg_kind(node.args[0])  # `kwargs.get("attention_mask")`
        if type(func) is _ATTRIBUTE and func.attr.value in ("get", "pop") and len(node.args) == 2 and \
                node.args[1].keyword is None and type(node.args[1].value) is _CALL and \
                self.v.qual(node.args[1].value.func).startswith("torch.") and \
                self.kind(node.args[1].value) in K.TENSORISH and self.kind(func.value) not in K.TENSORISH:
            # `weight = batch.get(weight_key, torch.ones(b, n, 1))`: an entry that defaults to a
            # tensor built here is one (pyannote's training step writes into it in place)
            return K.T
        if self.module_call(func):
            return K.T  # `for layer in self.layers: x = layer(x)`, `self.blocks[i](x)`: a held module runs
        if name is None:
            name = self.v.qual(func)
        if name.startswith("self.") and name.count(".") > 1 and type(func) is cst.Attribute:
            # `self.weight.sum()`, `self.running_var.max()`, `self.proj.weight.norm()`: a method
            # of an attribute that holds a tensor (a parameter, a buffer, a submodule's weight)
            # is a tensor method like any other, not a call of the class's own method
            recv = receiver or self.kind(func.value)
            if recv in K.TENSORISH:
                name, receiver = "", recv
        if name:
            if name.startswith("torch."):
                got = K.torch_call_kind(name)
                if got == K.T and any(a.keyword is not None and a.keyword.value == "dtype"
                                      and self.v.qual(a.value) == "torch.bool" for a in node.args):
                    return K.B  # `torch.tensor(m, dtype=torch.bool)`, `torch.zeros(..., dtype=torch.bool)`
                if got == K.T and name in K.STATIC_WRAPPING_TORCH:
                    # `torch.tensor(scale)` of one Python number, `torch.tensor(x.shape[-2:])`:
                    # numbers known at trace time (a container of shapes stays tensor data)
                    first = node.args[0].value if node.args and node.args[0].keyword is None else None
                    if first is not None and self.kind(first) == K.S and (
                            self.is_scalar(first) or _is_shape(first) or self._static_numbers(first)):
                        return K.S
                elif got == K.T and name in K.STATIC_PRESERVING_TORCH and self._static_args(node):
                    return K.S  # `torch.log2(torch.tensor(scale))`: math on static numbers
                return got
            if name.startswith("numpy."):
                # numpy on static values (`np.ceil(np.log1p(L))` of a length) is static; a
                # numpy draw is a host number fixed at trace time (ML607 reports the draw)
                if name.startswith("numpy.random.") or self._static_args(node):
                    return K.S
            if name.startswith("self."):
                cls = self.v.func_stack[-1].cls if self.v.func_stack else None
                attr_kind = cls.attr_kinds.get(name[5:]) if cls else None
                if attr_kind == K.M:
                    return K.T
                if attr_kind in K.TENSORISH:
                    return K.T
                if cls is not None and attr_kind is None and name[5:] in cls.returns:
                    got = self._return_kind(cls.returns[name[5:]])
                    if got != K.U:
                        return got
                if attr_kind is None and "." not in name[5:]:
                    return self._symbolic_return(name, node)
                if attr_kind is None and name.count(".") == 2 and cls is not None and \
                        cls.attr_kinds.get(name[5:].split(".", 1)[0]) not in K.TENSORISH:
                    # `v, k = self.joint.score(f, g).max(0)`: a method of an object the module
                    # holds returns what the project's summary of that method says
                    return self._symbolic_return(name, node)
                return K.U
            if name in K.STATIC_BUILTINS:
                if name == "len" and node.args and self.is_ragged(node.args[0].value):
                    return K.H  # the length of a boolean-mask selection
                return K.S
            if name in K.HOST_BUILTINS or name in K.LIBRARY_CASTS:
                if node.args and self.kind(node.args[0].value) in K.VALUE_KINDS:
                    return K.H
                return K.S
            if name in ("min", "max", "sum", "abs", "round"):
                if not node.args:
                    return K.S
                first = self._reduced_kind(node.args[0].value) if name != "abs" and name != "round" else None
                rest = node.args[1:] if first is not None else node.args
                return K.join(*((first,) if first is not None else ()), *(self.kind(a.value) for a in rest))
            if name.startswith(("math.", "numbers.", "operator.")):
                return K.S
            if name.startswith("einops."):
                return K.T
            leaf = name.rsplit(".", 1)[-1]
            local = self.v.local_classes.get(leaf)
            if local is not None and local.qualname == name:
                return K.M if local.is_module else K.U
            if name == f"{self.v.module}.{leaf}" and leaf in self.v.bindings.func_returns:
                got = self._return_kind(self.v.bindings.func_returns[leaf])
                if got != K.U:
                    return got
            if (leaf[:1].isupper() and not (name == f"{self.v.module}.{leaf}" and leaf in self.v.bindings.functions)) \
                    or name in K.STATIC_BUILTINS or name in bindings_builtins:
                # (a capitalised name is a class by convention, unless this file defines it as a
                # function: TimesNet's `FFT_for_Period(x, k)` returns the periods it reads back)
                return K.U
            return self._symbolic_return(name, node)
        if type(func) is cst.Attribute:
            method = func.attr.value
            if receiver:
                recv = receiver
                self.used.update(receiver_used)
            else:
                recv = self.kind(func.value)
            if recv in K.TENSORISH:
                if method in K.NON_TENSOR_METHODS:
                    return K.U  # the guess was wrong: a str or dict method (`k.endswith(p)`)
                if method in K.STATIC_METHODS:
                    return K.H if self._ragged_size(node, method) else K.S  # `x[mask].numel()`: what it selected
                if method in K.HOST_METHODS:
                    return K.H
                if method in K.BOOL_METHODS:
                    return K.B
                if method in ("to", "type") and any(
                        self.v.qual(a.value) == "torch.bool" for a in node.args
                        if a.keyword is None or a.keyword.value == "dtype"):
                    return K.B  # `.to(torch.bool)` is `.bool()`
                if recv == K.B and method in K.MASK_PRESERVING:
                    return K.B
                return K.T
            if recv == K.H:
                return K.H
            if recv == K.S and (method not in K.HOST_METHODS or self._computed(func.value)):
                # `.item()` of a number computed from static values (`np.ceil(np.log1p(L))
                # .astype("int").item()`) stays static; of a name static only by convention
                # (a parameter called `k`) it is still evidence of a tensor read-back
                return K.S
            if method in K.HOST_METHODS and method != "numpy":
                return K.H
            if recv == K.S:
                return K.S
            if recv == K.U and method in K.STATIC_METHODS:
                # (asked even so: under a hypothesis on the mask's inputs the receiver may be a
                # boolean-mask selection, and the asking records which inputs those are)
                return K.H if self._ragged_size(node, method) else K.S
            if recv == K.U and method in K.TORCH_ONLY_METHODS:
                return K.B if method in K.BOOL_METHODS else K.T
            if recv == K.M:
                return K.T if method in ("forward", "__call__") else K.U
        return K.U

    def _computed(self, node: cst.BaseExpression) -> bool:
        """The method chain ``node`` starts at a numpy/torch/math function call
        (``np.ceil(np.log1p(L)).astype("int")``, ``torch.log2(torch.tensor(s))``), not at a name
        (``k.sum()`` with a parameter static only by its name): its static kind was computed
        from static arguments rather than assumed."""
        while True:
            if type(node) is cst.Subscript:
                node = node.value
            elif type(node) is cst.Call:
                if self.v.qual(node.func).startswith(("numpy.", "torch.", "math.")):
                    return True
                if type(node.func) is not cst.Attribute:
                    return False
                node = node.func.value
            else:
                return False

    def _ragged_size(self, call: cst.Call, method: str) -> bool:
        """``call`` (a method ``method`` of an attribute) reads the data-dependent first size of
        a boolean-mask selection (:meth:`is_ragged`): ``.numel()``, ``.size()``, ``.size(0)``,
        not a trailing dimension's ``.size(-1)``."""
        return method in _SIZE_READS and not _trailing_size(call) and self.is_ragged(call.func.value)  # type: ignore[attr-defined]

    def parameter_container(self, node: cst.BaseExpression) -> bool:
        """``self.<attr>`` built as an ``nn.ParameterDict``/``nn.ParameterList`` (in this class
        or a base class of this file), or a local name bound to one (``pd = self.<attr>``): a
        module whose items are tensors (parameters), where a ``ModuleDict``'s items are modules."""
        if not self.v.func_stack:
            return False
        scope = self.v.func_stack[-1]
        if type(node) is cst.Name:
            return scope.ctor_of.get(node.value, "") in K.PARAMETER_CONTAINERS
        if type(node) is not cst.Attribute or type(node.value) is not cst.Name or node.value.value != "self":
            return False
        return scope.cls is not None and scope.cls.attr_ctor.get(node.attr.value) in K.PARAMETER_CONTAINERS

    def _unseen_self_attr(self, node: cst.BaseExpression) -> bool:
        """``self.<attr>`` for an attribute this class never assigned (set by a base class or
        a registered buffer elsewhere): static only by default, so ``self.steps.item()`` stays
        a read-back."""
        if type(node) is not cst.Attribute or type(node.value) is not cst.Name or node.value.value != "self":
            return False
        cls = self.v.func_stack[-1].cls if self.v.func_stack else None
        return cls is None or node.attr.value not in cls.attr_kinds

    def _static_args(self, node: cst.Call) -> bool:
        """The call has positional arguments, each a number computed at trace time (a Python
        number, a shape: ``x.shape``, ``space.shape[1:]``, ``x.size()``, or a chain starting
        at ``torch.tensor(...)`` / a numpy or math call on static values), and static options
        (``dtype=``, ``dim=``). A name that is static only because the engine does not follow
        its contents (an element of a list of tensors, a parameter static by its name) is not
        enough: ``torch.sigmoid(logits_per_level)`` stays a tensor. So
        ``np.argmin(observation_space.shape).item()`` and ``np.prod(x.shape[1:])`` are static
        (numbers read from shapes, known at trace time)."""
        pos = [a for a in node.args if a.keyword is None]
        return bool(pos) and all(
            a.star == "" and self.kind(a.value) == K.S
            and (a.keyword is not None or self.is_scalar(a.value) or _is_shape(a.value) or self._computed(a.value))
            for a in node.args)

    def _static_numbers(self, node: cst.BaseExpression) -> bool:
        """``node`` holds numbers known at trace time: a literal list/tuple of such items
        (``[h, w]`` unpacked from ``x.shape``, ``[input_shape[0], self.config.chunk_size]``,
        ``(h // p, w // p)``) or a local last bound to a shape (``size = x.shape[-2:]``). An
        item is a number (:meth:`is_scalar`), a local or a config attribute of static kind (not
        a ``for`` target, whose kind is only a guess), or arithmetic on items; none starred."""
        scope = self.v.func_stack[-1] if self.v.func_stack else None
        if type(node) is cst.Name:
            last = scope.last_value.get(node.value) if scope is not None else None
            return last is not None and _is_shape(last) and self.kind(node) == K.S
        if type(node) not in (cst.List, cst.Tuple) or not node.elements:
            return False
        return all(type(el) is not cst.StarredElement and self._static_item(el.value, scope) for el in node.elements)

    def _static_item(self, item: cst.BaseExpression, scope: Any, depth: int = 0) -> bool:
        if depth > 4 or self.kind(item) != K.S:
            return False
        t = type(item)
        if t is cst.BinaryOperation:
            return self._static_item(item.left, scope, depth + 1) and self._static_item(item.right, scope, depth + 1)
        if t is cst.UnaryOperation:
            return self._static_item(item.expression, scope, depth + 1)
        if self.is_scalar(item):
            return True
        if t is cst.Name:
            return scope is not None and item.value in scope.env and item.value not in scope.iter_names
        return t is cst.Attribute and _is_config_value(item)

    def is_scalar(self, node: cst.BaseExpression) -> bool:
        """``node`` is syntactically one Python number: a numeric literal, arithmetic on
        numbers, ``float``/``int``/``round``/``abs``/``len``/``math.*`` of something,
        ``torch.tensor`` of one, ``x.size(i)`` / ``x.numel()``, an element ``a[i]`` (not a
        slice), or a local bound to such an expression. Its kind is
        asked separately (a number read from a tensor is a host value, not static)."""
        t = type(node)
        if t in (cst.Integer, cst.Float):
            return True
        if t is cst.UnaryOperation:
            return self.is_scalar(node.expression)
        if t is cst.BinaryOperation:
            # one operand a number and the other no container (`[0] * n` is a list)
            return (self.is_scalar(node.left) or self.is_scalar(node.right)) and not any(
                type(o) in _CONTAINERS or _is_shape(o) for o in (node.left, node.right))
        if t is cst.Call:
            name = self.v.qual(node.func)
            if name in K.STATIC_WRAPPING_TORCH:
                return bool(node.args) and self.is_scalar(node.args[0].value)  # `torch.tensor(0.5)`
            if type(node.func) is cst.Attribute and (
                    node.func.attr.value == "size" and len(node.args) == 1
                    or node.func.attr.value in ("numel", "dim", "ndimension", "nelement") and not node.args):
                return True  # `x.size(1)`, `x.numel()`: one number
            return name in ("float", "int", "round", "abs", "len") or name.startswith("math.")
        if t is cst.Subscript:
            return len(node.slice) == 1 and type(node.slice[0].slice) is cst.Index
        if t is cst.Name and self.v.func_stack:
            return node.value in self.v.func_stack[-1].scalars
        return False

    def _returned_entry(self, scope: Any, name: str, key: str) -> str | None:
        """Kind of ``name[key]`` when ``name`` is bound to a call of a function the project may
        define (``stats = match_stats(x, t); stats["n_pos"]``): the symbolic input
        ``r:<callee>#<key>`` (its kind comes from the callee's ``FunctionSummary.ret_keys``); None
        otherwise."""
        bound = scope.last_value.get(name)
        if type(bound) is not cst.Call or not key.isidentifier():
            return None
        callee = self.v.qual(bound.func)
        if not callee or callee.startswith("torch.") or "#" in callee:
            return None
        saved, saved_hyp = self.used, self.hyp
        self.used, self.hyp = set(), None
        try:
            self.kind(bound)
            symbolic = self.return_key(bound, callee) in self.used
        finally:
            self.used, self.hyp = saved, saved_hyp
        return self._symbolic_return(f"{callee}#{key}", bound) if symbolic else None

    def _kwarg_kind(self, key: cst.CSTNode) -> str:
        """Kind of one entry of the current function's ``**kwargs`` (``kwargs["mask"]``,
        ``kwargs.get("mask")``, ``key`` the index or first argument): the kind an unannotated
        parameter of that name gets in traced code (a tensor, unless the name says flag or size:
        ``output_attentions``, ``num_items_in_batch``, :data:`~.kinds.STATIC_PARAM_NAME`);
        unknown for a key that is no string literal or outside traced code (the callers decide)."""
        if type(key) is cst.Index:
            key = key.value
        if type(key) is cst.Arg:
            key = key.value
        name = literal(key)
        if type(name) is not str or not name.isidentifier():
            return K.U
        if K.STATIC_PARAM_NAME.search(name):
            return K.S
        return K.T if self.v.func_stack[-1].guess == "traced" else K.U

    def call_site(self, node: cst.CSTNode) -> int:
        """The call-site number of the call ``node`` in the current function (1, 2, ... in
        the order first asked; 0 outside a function): what its return key and its
        :attr:`~migrate_lens.models.CallFlow.site` share."""
        if not self.v.func_stack:
            return 0
        sites = self.v.func_stack[-1].call_sites
        got = sites.get(id(node))
        if got is None:
            got = sites[id(node)] = len(sites) + 1
        return got

    def return_key(self, node: cst.CSTNode, name: str) -> str:
        """The symbolic input of what the call ``node`` of ``name`` (a function the project may
        define; ``<callee>#<item>`` for one returned item or entry) returns:
        ``r:<name>@<site>``, one per call site, so that the project step gives each call the
        return its own arguments make (``n = default(n, 1)`` beside ``u = default(u, unet)``:
        a pass-through helper returns a number at the first call, a tensor at the second);
        ``r:<name>`` outside a function."""
        site = self.call_site(node)
        return f"r:{name}@{site}" if site else "r:" + name

    def _symbolic_return(self, name: str, node: cst.CSTNode) -> str:
        """The return value of a call ``node`` to ``name``, a function the project may define:
        the symbolic input :meth:`return_key` (its kind comes from the callee's summary)."""
        key = self.return_key(node, name)
        self.used.add(key)
        if self.hyp is not None and key in self.hyp:
            got = self.hyp[key]
            return K.T if got == K.RETURNED_RAGGED else got  # (a tensor whose size depends on data)
        return K.U

    def _return_kind(self, annotation: cst.Annotation) -> str:
        """Kind of a call to a local function from its return annotation (``-> torch.Tensor``
        is a tensor; other annotations say nothing about values)."""
        return K.T if self._annotation_kind(annotation) in K.TENSORISH else K.U

    def _annotation_kind(self, annotation: cst.Annotation | None) -> str:
        if annotation is None:
            return K.U
        names: list[str] = []
        container = False
        stack: list[cst.CSTNode] = [annotation.annotation]
        while stack:
            n = stack.pop()
            if type(n) in (cst.Name, cst.Attribute):
                names.append(self.v.qual(n) or (n.value if type(n) is cst.Name else n.attr.value))
            elif type(n) is cst.Subscript:
                outer = self.v.qual(n.value) or (n.value.value if type(n.value) is cst.Name else "")
                if outer in K.CONTAINER_TYPE_NAMES:
                    container = True
                    continue
                stack.append(n.value)
                for el in n.slice:
                    if type(el.slice) is cst.Index:
                        stack.append(el.slice.value)
            elif type(n) is cst.BinaryOperation:
                stack.extend((n.left, n.right))
            elif type(n) is cst.SimpleString:
                text = n.value.strip("'\"")
                names.append("torch.Tensor" if text.endswith("Tensor") else text)
        if names and all(x in ("torch.BoolTensor", "BoolTensor", "None", "Optional", "typing.Optional")
                         for x in names) and any(x.endswith("BoolTensor") for x in names):
            return K.B  # `mask: torch.BoolTensor`: indexing with it selects by data
        if any(x in K.TENSOR_TYPE_NAMES or x in ("Tensor", "FloatTensor", "LongTensor", "BoolTensor") for x in names):
            return K.T
        if container:
            return K.S
        if names and all(x in K.STATIC_TYPE_NAMES or x in ("None", "Optional", "typing.Optional", "typing.Union", "Union") for x in names):
            return K.S
        return K.U


def _group_params(node: cst.BaseExpression, v: Any) -> bool:
    """``group["params"]`` of a loop name over an optimizer's ``param_groups`` (or
    ``opt.param_groups[i]["params"]``): the list of parameters the group updates."""
    if type(node) is not cst.Subscript or len(node.slice) != 1 or type(node.slice[0].slice) is not cst.Index or \
            literal(node.slice[0].slice.value) != "params":
        return False
    root = node.value
    if type(root) is cst.Name:
        return bool(v.func_stack) and root.value in v.func_stack[-1].opt_groups
    return type(root) is cst.Subscript and type(root.value) is cst.Attribute and root.value.attr.value == "param_groups"


def tensor_tested_name(test: cst.BaseExpression) -> str:
    """The local name a one-call ``test`` asks to be a tensor (``isinstance(ref, torch.Tensor)``,
    ``torch.is_tensor(ref)``, ``hasattr(ref, "size")``: the names :func:`_non_tensor_names` reads
    from its negation), "" for any other test."""
    if type(test) is not cst.Call:
        return ""
    names = _non_tensor_names(cst.UnaryOperation(operator=cst.Not(), expression=test))
    return names[0] if len(names) == 1 else ""
