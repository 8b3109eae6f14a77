"""Call-site facts computed on demand (:class:`_CallExtras`) and a call's kinds as
first evaluated (:class:`_CallParts`): what :meth:`~.calls.CallsMixin.visit_Call` hands to
a site's lazily decoded data (:data:`_CALL_EXTRAS`), so that the facts no rule asks for
are never computed.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any, Callable

import libcst as cst

from migrate_lens.analysis import kinds as K
from migrate_lens.analysis.bindings import dotted as _dotted
from migrate_lens.analysis.bindings import in_own_package
from migrate_lens.analysis.sites import NOT_LITERAL
from migrate_lens.analysis.values import literal
from migrate_lens.analysis.walk import child_nodes
from migrate_lens.analysis.cst_queries import _arg_texts, _bound_texts, _is_input_device, _is_self_attr
from migrate_lens.analysis.scopes import _fixed_attr

if TYPE_CHECKING:
    from migrate_lens.analysis.scopes import _ClassInfo, _FuncScope
    from migrate_lens.analysis.visitor import FileVisitor

#: Calls that make a tensor from data loaded outside the model (:meth:`_CallExtras.loaded_copy`).
_LOADED_SOURCES = frozenset({"torch.from_numpy", "torch.tensor", "torch.as_tensor", "torch.load",
                             "torch.Tensor", "torch.FloatTensor"})


#: Views and casts a loader applies to what it copies (``w.t()``, ``w.to(p.dtype)``, ``w.view_as(p)``).
_LOADED_VIEWS = frozenset({"to", "t", "T", "float", "half", "view", "view_as", "reshape", "reshape_as",
                           "permute", "transpose", "type", "type_as", "contiguous", "squeeze", "unsqueeze"})


#: Names of weight mappings (``weights[name]``, ``state_dict[k]``, ``ckpt["model"][k]``, ``tf_vars[n]``).
_LOADED_NAME = re.compile(r"(weights?|state_?dict|sd|ckpt|checkpoint|pretrained|params_?dict|vars|arrays?|npz|loaded)$",
                          re.IGNORECASE)


class _CallParts:
    """A call's kinds as first evaluated (:meth:`FileVisitor._call_parts`): ``receiver`` (""
    for a plain function), ``entries`` (keyword or None, expression, kind, literal, inputs
    read) per non-star argument in order, ``result``; each with the symbolic inputs its
    evaluation read. ``stale``: the visitor changed state its kinds read since (a
    ``register_buffer`` call turning ``self.<buf>`` into a tensor), so a variant evaluates
    every part again."""

    __slots__ = ("receiver", "receiver_used", "entries", "result", "result_used", "stale")

    def __init__(self, receiver: str, receiver_used: set[str] | frozenset[str],
                 entries: list[tuple[str | None, cst.BaseExpression, str, Any, set[str] | frozenset[str]]],
                 result: str, result_used: set[str] | frozenset[str]) -> None:
        self.receiver, self.receiver_used, self.entries = receiver, receiver_used, entries
        self.result, self.result_used, self.stale = result, result_used, False


class _CallExtras:
    """A call site's extras that few matchers read, computed on first read
    (:class:`~.sites.LazyData`, table :data:`_CALL_EXTRAS`: data key -> method) from the
    visitor's state at that moment: matchers run inside ``emit``, before the walk moves on, and
    a variant site under a hypothesis (:meth:`FileVisitor._call_variants`) computes its own
    under it. One object per call instead of a closure per key."""

    __slots__ = ("v", "node", "func", "name", "method", "scope")

    def __init__(self, visitor: FileVisitor, node: cst.Call, name: str, method: str, scope: _FuncScope | None) -> None:
        self.v, self.node, self.name, self.method, self.scope = visitor, node, name, method, scope
        self.func = visitor._aliased_calls.get(id(node), node.func) if visitor._aliased_calls else node.func

    def receiver_name(self) -> str:
        func = self.func
        return self.v.qual(func.value) if type(func) is cst.Attribute else ""

    def autograd_functions(self) -> frozenset[str]:
        """Qualnames of this file's ``torch.autograd.Function`` subclasses (what a name bound to
        ``<Fn>.apply`` may call: ``clamp_grad = ClampGrad.apply``, ``self.fn = Fn.apply``)."""
        return frozenset(c.qualname for c in self.v.local_classes.values() if c.is_autograd_function)

    def project_names(self) -> frozenset[str]:
        """The resolved names this file imports from its own project (a ``<X>.apply`` of one
        is the project graph's to check: ``X`` may be no ``torch.autograd.Function``)."""
        return frozenset(self.v.bindings.project_names)

    def own_classes(self) -> frozenset[str]:
        """Qualnames of every class this file defines (a ``<Cls>.apply`` of one that is no
        ``torch.autograd.Function``, ``scale = Scale.apply``, is a plain method)."""
        return frozenset(c.qualname for c in self.v.local_classes.values())

    def device_like_arg(self) -> bool:
        return self.method == "to" and any(
            _mentions_device(self.v, a.value) for a in self.node.args if a.keyword is None)

    def to_follows_input(self) -> bool:
        return self.method == "to" and any(
            type(a.value) is cst.Attribute and a.value.attr.value == "device" and not _is_self_attr(a.value)
            and not _is_settings_attr(a.value)
            for a in self.node.args if a.keyword is None or a.keyword.value == "device")

    def input_global_pool(self) -> bool:
        node, func = self.node, self.func
        return self.v._is_global_pool_result(
            func.value if self.method and self.name[:6] != "torch." else (node.args[0].value if node.args else None))

    def uniform_seq_args(self) -> tuple[str, ...]:
        return tuple((a.keyword.value if a.keyword is not None else str(i))
                     for i, a in enumerate(self.node.args) if _is_uniform_sequence(a.value))

    def ceil_args(self) -> tuple[str, ...]:
        """Keys (keyword, or position as a string) of the arguments written as a ceiling
        division (``int(np.ceil(n / size))``, ``math.ceil(n / size)``, ``-(-n // size)``,
        ``(n + size - 1) // size``): a count chosen so that the last piece comes out short."""
        qual, scope = self.v.qual, self.scope
        bound = scope.last_value if scope is not None else {}
        return tuple((a.keyword.value if a.keyword is not None else str(i))
                     for i, a in enumerate(self.node.args)
                     if _is_ceil_division(bound.get(a.value.value, a.value) if type(a.value) is cst.Name else a.value,
                                          qual))

    def constant_args(self) -> tuple[str, ...]:
        """Keys (keyword, or position as a string) of the arguments that are tensors built only
        from values known at trace time (:meth:`FileVisitor._constant_tensor`:
        ``torch.tensor(self.output_size)``)."""
        return tuple((a.keyword.value if a.keyword is not None else str(i))
                     for i, a in enumerate(self.node.args) if not a.star and self.v._constant_tensor(a.value))

    def input_1d(self) -> bool:
        """The padded tensor (``F.pad``'s first argument) is known to be 1-D (:func:`_is_1d`)."""
        first = next((a.value for a in self.node.args if a.keyword is None or a.keyword.value == "input"), None)
        if first is None or self.node.args[0].star:
            return False
        scope = self.scope
        return _is_1d(first, self.v.qual, scope.last_value if scope is not None else {})

    def receiver_constant(self) -> bool:
        """The tensor read back to the host (a method's receiver, ``t.tolist()``; a builtin's
        argument, ``int(t)``) is built only from values known at trace time
        (:meth:`FileVisitor._constant_tensor`: ``torch.arange(1, len(x.shape))``)."""
        func = self.func
        if type(func) is cst.Attribute:
            target = func.value
        elif self.node.args:
            target = self.node.args[0].value
        else:
            return False
        return self.v._constant_tensor(target)

    def self_default_args(self) -> dict[str, Any]:
        """Keys (keyword, or position as a string) of the arguments that read a plain attribute
        of self whose value init code fixes (:attr:`_ClassInfo.attr_literals`:
        ``align_corners=self.align_corners`` with a constructor default of True), mapped to it."""
        scope = self.scope
        cls = scope.cls if scope is not None else None
        if cls is None or not cls.attr_literals:
            return {}
        out: dict[str, Any] = {}
        for i, a in enumerate(self.node.args):
            lit = _fixed_attr(cls, a)
            if lit is not NOT_LITERAL:
                out[a.keyword.value if a.keyword is not None else str(i)] = lit
        return out

    def param_default_args(self) -> dict[str, Any]:
        """Keys (keyword, or position as a string) of the arguments that pass on a parameter
        of the enclosing function as it came (not rebound), mapped to that parameter's literal
        default (``def pool(x, output_size=1): F.adaptive_avg_pool2d(x, output_size)``)."""
        scope = self.scope
        if scope is None:
            return {}
        out: dict[str, Any] = {}
        for i, a in enumerate(self.node.args):
            v = a.value
            if type(v) is cst.Name and v.value in scope.params and not a.star:
                default = scope.param_meta.get(v.value, (None, None))[1]
                if default is not None and (lit := literal(default)) is not NOT_LITERAL:
                    out[a.keyword.value if a.keyword is not None else str(i)] = lit
        return out

    def size_reported(self) -> bool:
        """A size of this call already reported as a host read or a cache's length
        (:meth:`FileVisitor._shape_uses`: ``torch.arange(lengths.max())``,
        ``torch.arange(past_length, past_length + n)``): one finding per hazard."""
        return id(self.node) in self.v._sized

    def param_init(self) -> frozenset[str]:
        """How the file's classes build the parameter this call's receiver names
        (``module.mask_token.data.zero_()`` -> every ``self.mask_token = nn.Parameter(...)`` of
        the file, :func:`parameter_inits`): {"0"} for ``torch.zeros``, {"1"} for ``torch.ones``,
        {"name:<leaf>"} for a value named ``<leaf>`` (``torch.tensor(cfg.init_value)``,
        ``init_value * torch.ones(d)``), "?" for anything else; empty if none."""
        func = self.func
        if type(func) is not cst.Attribute:
            return frozenset()
        parts = _dotted(func.value).split(".")
        if parts and parts[-1] == "data":
            parts = parts[:-1]
        return self.v.param_inits.get(parts[-1], frozenset()) if len(parts) > 1 else frozenset()

    def assumed_args(self) -> frozenset[str]:
        """Keys (keyword, or position as a string) of the arguments whose tensor kind rests on
        the parameters' assumed kinds alone: built only from parameters as passed (a traced
        entry's unannotated parameters are taken for tensors, a module method's by the
        module-method assumption, :attr:`_FuncScope.assumed`), through names bound to them,
        unpacking, indexing and arithmetic (``height, width = input_dimensions`` then
        ``x.view(b, height, width, c)``: ``input_dimensions`` is most often a tuple of ints)."""
        scope = self.scope
        if scope is None:
            return frozenset()
        return frozenset(a.keyword.value if a.keyword is not None else str(i)
                         for i, a in enumerate(self.node.args)
                         if not a.star and self._param_rooted(a.value, scope, 3))

    def _param_rooted(self, expr: cst.BaseExpression, scope: _FuncScope, depth: int) -> bool:
        """``expr`` reads names, and each is a parameter as passed (not a helper's symbolic
        input, which its callers' kinds decide), an assumed name, or a local last bound to such
        an expression or to a call of ``self.<attr>(...)`` (``depth`` bindings deep), through
        arithmetic, subscripts and displays only."""
        stack = [expr]
        seen = False
        while stack:
            e = stack.pop()
            t = type(e)
            if t is cst.Name:
                name = e.value  # type: ignore[attr-defined]
                if name in scope.params and f"p:{name}" in scope.derived.get(name, ()):
                    return False  # a helper's symbolic input: its callers' kinds decide (verified)
                if name in scope.params or name in scope.assumed:
                    seen = True
                    continue
                bound = scope.last_value.get(name)
                if bound is None or depth <= 0 or not self._param_rooted(bound, scope, depth - 1):
                    return False
                seen = True
            elif t is cst.BinaryOperation:
                stack += (e.left, e.right)  # type: ignore[attr-defined]
            elif t is cst.UnaryOperation:
                stack.append(e.expression)  # type: ignore[attr-defined]
            elif t is cst.Subscript:
                stack.append(e.value)  # type: ignore[attr-defined]
            elif t in (cst.Tuple, cst.List):
                stack += [el.value for el in e.elements]  # type: ignore[attr-defined]
            elif t is cst.Call and _is_self_attr(e.func):  # type: ignore[attr-defined]
                # `gh, gw = self.grid(h, w)`: what a submodule or a held object returns, taken
                # for tensors without its summary (a tuple of ints as often); not a method of the
                # class (`self._get_global_attn_indices(mask)`: its return's kind is its own)
                cls = scope.cls
                attr = e.func.attr.value  # type: ignore[attr-defined]
                if cls is not None and (attr in cls.methods or attr in cls.attr_binds or any(
                        q == f"{cls.qualname}.{attr}" for q, _ in self.v.method_aliases)):
                    return False
                seen = True
            elif t not in (cst.Integer, cst.Float):
                return False
        return seen

    def name_args(self) -> tuple[str, ...]:
        return tuple((a.keyword.value if a.keyword is not None else str(i))
                     for i, a in enumerate(self.node.args) if type(a.value) in (cst.Name, cst.Attribute))

    def arg_item_kinds(self) -> tuple[str, ...]:
        kind = self.v.kind
        return tuple(kind(el.value) for a in self.node.args if a.keyword is None and type(a.value) in (cst.Tuple, cst.List)
                     for el in a.value.elements if type(el) is not cst.StarredElement)

    def constant_star_args(self) -> bool:
        """A value spread into the positional arguments is a tensor built only from values
        known at trace time (``x.permute(*perm)`` with ``perm = torch.cat((torch.tensor([1, 0]),
        torch.arange(2, x.ndim)))``: :meth:`FileVisitor._constant_tensor`)."""
        return any(a.star == "*" and self.v._constant_tensor(a.value) for a in self.node.args)

    def arg_names(self) -> tuple[str, ...]:
        qual = self.v.qual
        return tuple(qual(a.value) for a in self.node.args if a.keyword is None and not a.star)

    def receiver_text(self) -> str:
        func = self.func
        if type(func) is not cst.Attribute:
            return ""
        recv = func.value
        if type(recv) is cst.Call and type(recv.func) is cst.Name and recv.func.value == "super" and not recv.args:
            return "super()"  # `super().generate(...)`: the method of a base class, in its override
        if type(recv) is cst.Subscript and len(recv.slice) == 1 and type(recv.slice[0].slice) is cst.Index and \
                type(recv.slice[0].slice.value) is cst.SimpleString:
            # `state['ema'].update(...)`: an entry named by a literal key reads as `state.ema`
            base, key = _dotted(recv.value), recv.slice[0].slice.value.evaluated_value
            return f"{base}.{key}" if base and isinstance(key, str) and key.isidentifier() else ""
        return _dotted(recv)

    def device_follows_input(self) -> bool:
        scope = self.scope
        return any(a.keyword is not None and a.keyword.value == "device" and (_is_input_device(a.value) or (
            type(a.value) is cst.Name and scope is not None and a.value.value in scope.input_devices))
            for a in self.node.args)

    def message_kinds(self) -> tuple[str, ...]:
        return self.v._message_kinds(self.node)

    def exports_weight(self) -> bool:
        return self.v._exports_weight(self.node, self.method)

    def arg_texts(self) -> tuple[str, ...]:
        """:func:`_arg_texts`, and for a name argument, the dotted source of what it was last
        bound to (``ck, cv = cache.cached_kv`` then ``torch.cat((ck, k))``: ``cache.cached_kv``)."""
        texts = _arg_texts(self.node)
        extra = _bound_texts(texts, self.scope.last_value) if self.scope is not None else ()
        return texts + extra if extra else texts

    def arg0_prefix(self) -> str:
        """The literal start of a string the first positional argument builds: ``"cuda:"`` for
        ``"cuda:" + str(rank)``, ``'cuda:{:d}'.format(rank)`` or ``f"cuda:{rank}"``; "" when the
        argument is no such expression (a plain literal is matched as a literal)."""
        node = self.node
        if not node.args or node.args[0].keyword is not None or node.args[0].star:
            return ""
        v = node.args[0].value
        while type(v) is cst.BinaryOperation and type(v.operator) is cst.Add:
            v = v.left
        if type(v) is cst.Call and type(v.func) is cst.Attribute and v.func.attr.value == "format":
            v = v.func.value
        if type(v) is cst.SimpleString:
            text = v.evaluated_value
            return text.split("{", 1)[0] if isinstance(text, str) else ""
        if type(v) is cst.FormattedString and v.parts and type(v.parts[0]) is cst.FormattedStringText:
            return v.parts[0].value
        return ""

    def arg0_choices(self) -> tuple[str, ...]:
        """The string literals a first argument written as a conditional expression chooses
        between (``"cuda" if use_gpu else "cpu"`` -> ``("cuda", "cpu")``, nested ones too);
        () for any other argument."""
        node = self.node
        if not node.args or node.args[0].keyword is not None or node.args[0].star:
            return ()
        out: list[str] = []
        stack: list[cst.BaseExpression] = [node.args[0].value]
        if type(stack[0]) is not cst.IfExp:
            return ()
        while stack:
            v = stack.pop()
            if type(v) is cst.IfExp:
                stack.extend((v.orelse, v.body))
            elif type(v) is cst.SimpleString and isinstance(v.evaluated_value, str):
                out.append(v.evaluated_value)
        return tuple(out)

    def kwarg_texts(self) -> dict[str, str]:
        """Keyword -> the dotted source of a name or attribute passed by that keyword
        (``requires_grad=self.pos_embed.requires_grad`` -> ``self.pos_embed.requires_grad``)."""
        return {a.keyword.value: _dotted(a.value) for a in self.node.args
                if a.keyword is not None and type(a.value) in (cst.Name, cst.Attribute)}

    def unfold_tiles(self) -> bool:
        """``t.unfold(dim, size, step)`` with size and step written alike (the same literal or
        the same name: ``x.unfold(-1, p, p)``): non-overlapping tiles."""
        got: dict[str, cst.BaseExpression] = {}
        positional = [a.value for a in self.node.args if a.keyword is None and not a.star]
        for key, i in (("size", 1), ("step", 2)):
            kw = next((a.value for a in self.node.args if a.keyword is not None and a.keyword.value == key), None)
            value = kw if kw is not None else positional[i] if len(positional) > i else None
            if value is None:
                return False
            got[key] = value
        size, step = got["size"], got["step"]
        lit = literal(size)
        if lit is not NOT_LITERAL:
            return lit == literal(step)
        return bool(_dotted(size)) and _dotted(size) == _dotted(step)

    def value_args_all_params(self) -> bool:
        scope = self.scope
        return scope is not None and self._params_only(self.node, scope.params)

    def _params_only(self, call: cst.Call, params: Collection[str]) -> bool:
        """Every argument of ``call`` with a value kind is a bare parameter, or a nested
        ``max``/``min`` of such (``max(0, min(s, len(self.gain) - 1))``: a clamp of the
        parameter ``s``, whose kind only the callers know)."""
        for a in call.args:
            v = a.value
            if self.v.kind(v) not in K.VALUE_KINDS or (type(v) is cst.Name and v.value in params):
                continue
            if not (type(v) is cst.Call and type(v.func) is cst.Name and v.func.value in ("max", "min")
                    and self._params_only(v, params)):
                return False
        return True

    def in_parameter(self) -> bool:
        """The call builds an ``nn.Parameter``'s data (``nn.Parameter(torch.full(..., requires_grad=True))``)."""
        return id(self.node) in self.v.parameter_data

    def receiver_fresh(self) -> bool:
        func = self.func
        return type(func) is cst.Attribute and self.v._fresh_tensor(func.value, self.scope)

    def memo_fill(self) -> bool:
        """The call sits in a method that rebuilds a memo table (:attr:`_FuncScope.memo_filler`)."""
        return self.scope is not None and self.scope.memo_filler

    def loaded_copy(self) -> bool:
        """``p.copy_(<loaded data>)``: the copied value comes from outside the model, a
        conversion from NumPy or Python data (``torch.from_numpy(w)``, ``torch.tensor(w)``,
        ``torch.as_tensor``), an entry of a weight mapping (``weights[name]``,
        ``state_dict[k]``, ``ckpt["w"]``), or ``.to``/``.t()``-like views of those: a weight
        loader (converted once, outside the step), not an update computed from the parameters."""
        node = self.node
        if self.method != "copy_" or not node.args or node.args[0].star:
            return False
        value = node.args[0].value
        while type(value) is cst.Call and type(value.func) is cst.Attribute and \
                value.func.attr.value in _LOADED_VIEWS:
            value = value.func.value
        if type(value) is cst.Call:
            name = self.v.qual(value.func)
            return name in _LOADED_SOURCES or name.startswith("numpy.")
        if type(value) is cst.Subscript:
            root = value.value
            while type(root) in (cst.Subscript, cst.Attribute):
                root = root.value  # type: ignore[attr-defined]
            return type(root) is cst.Name and _LOADED_NAME.search(root.value) is not None
        return False

    def arg_ctor(self) -> str:
        """The callee that built the first positional argument (:meth:`FileVisitor._built_by`:
        ``.state_dict`` for ``target.load_state_dict(source.state_dict())`` or for a local
        ``sd = source.state_dict()`` passed on; ``copy.deepcopy``, ``torch.load``)."""
        node = self.node
        first = node.args[0].value if node.args and node.args[0].keyword is None and not node.args[0].star else None
        return self.v._built_by(first, self.scope) if first is not None else ""

    def negated_widths(self) -> bool:
        """A tuple or list argument holds a negated expression (``F.pad(t, (0, 0, amount,
        -amount))``: a shift that crops one side): a negative width unless the name is."""
        for a in self.node.args:
            v = a.value
            if type(v) in (cst.Tuple, cst.List) and any(
                    type(e) is cst.Element and type(e.value) is cst.UnaryOperation and type(e.value.operator) is cst.Minus
                    and literal(e.value) is NOT_LITERAL for e in v.elements):  # type: ignore[attr-defined]
                return True
        return False

    def receiver_conv_output(self) -> bool:
        """The method's receiver is what a convolution held on self returns: ``self.conv(x)``,
        ``self.features(x)`` (an ``nn.Sequential`` of a class that builds convolutions), through an
        activation (``F.relu(...)``, ``.relu()``) or a local last bound to one (a few hops)."""
        func, scope = self.func, self.scope
        if type(func) is not cst.Attribute or scope is None or scope.cls is None or not scope.cls.has_conv:
            return False
        expr: cst.BaseExpression = func.value
        for _ in range(4):
            if type(expr) is cst.Name:
                bound = scope.last_value.get(expr.value)
                if bound is None or bound is expr:
                    return False
                expr = bound
                continue
            if type(expr) is not cst.Call:
                return False
            f = expr.func
            if _is_self_attr(f):
                ctor = scope.cls.attr_ctor.get(f.attr.value, "")  # type: ignore[attr-defined]
                return ctor.startswith(("torch.nn.Conv", "torch.nn.LazyConv")) or ctor == "torch.nn.Sequential"
            name = self.v.qual(f)
            if name in _ACTIVATION_CALLS and expr.args:
                expr = expr.args[0].value
            elif type(f) is cst.Attribute and f.attr.value in _ACTIVATION_METHODS:
                expr = f.value
            else:
                return False
        return False

    def after_conv(self) -> bool:
        """An ``nn.Flatten()`` layer after a conv in one ``nn.Sequential``
        (:meth:`FileVisitor._flatten_layers_after_conv`)."""
        return id(self.node) in self.v.flatten_after_conv

    def defined_method(self) -> bool:
        """``self.<m>(...)`` calls a method the enclosing class (or a base class in its file)
        defines, module or not: a module's own ``log(x)`` helper, not Lightning's ``self.log``."""
        func, scope = self.func, self.scope
        cls = scope.cls if scope is not None else None
        if cls is None or type(func) is not cst.Attribute or not _is_self_attr(func):
            return False
        return _defines_own(self.v, cls, func.attr.value)

    def receiver_defines_method(self) -> bool:
        """The project class that built the receiver (``receiver_ctor``) defines the called
        method itself (or through a base in this file); True when that class is not in this
        file (undecided: taken as the project's own code). False for a class of this file that
        inherits the method from a library base: Tortoise's ``GPT2InferenceModel(GPT2PreTrainedModel)``
        running transformers' ``generate``."""
        ctor = self.receiver_ctor()
        cls = self.v.local_classes.get(ctor.rsplit(".", 1)[-1]) if ctor else None
        if cls is None or cls.qualname != ctor:
            return True
        return _defines_own(self.v, cls, self.method) or _own_package_base(self.v, cls)

    def own_method(self) -> bool:
        """``self.<m>(...)`` calls a method the enclosing class defines itself, and the class
        is no ``nn.Module``: an RL algorithm's ``self.train()`` (``def train(self,
        gradient_steps, batch_size)``), a trainer's ``self.eval()`` loop. Not when the method
        has ``nn.Module``'s own signature for that name (``train(self, mode=True)``,
        ``eval(self)``): an override of the mode switch in a class whose module base the file
        does not show."""
        func, scope = self.func, self.scope
        cls = scope.cls if scope is not None else None
        if cls is None or cls.is_module or type(func) is not cst.Attribute or not _is_self_attr(func):
            return False
        return _defines_own(self.v, cls, func.attr.value)

    def receiver_ctor(self) -> str:
        func, scope = self.func, self.scope
        if type(func) is cst.Attribute and type(func.value) is cst.Call and scope is not None and \
                scope.cls is not None and self.v.qual(func.value.func) == "super":
            # `super().sample(shape)` in a subclass of a torch.distributions class (dreamer's
            # `OneHotDist(td.OneHotCategorical)`): the torch base draws
            return next((b for b in scope.cls.bases if b.startswith("torch.")), "")
        if type(func) is cst.Attribute and _is_self_attr(func.value) and scope is not None and scope.cls is not None:
            # `self.distribution.rsample()` with `self.distribution = Normal(...)` in another
            # method, or `distribution: Normal` in the class body (this class's or a base's)
            return scope.cls.attr_ctor.get(func.value.attr.value, "")  # type: ignore[attr-defined]
        if type(func) is cst.Attribute and type(func.value) is cst.Call and _is_self_attr(func.value.func) and \
                scope is not None and scope.cls is not None:
            # `self.get_dist(stats).sample()`: what the class's method returns (Dreamer's RSSM
            # building a `td.Independent(...)` there)
            built = self.v._method_returns_ctor(scope.cls, func.value.func.attr.value)  # type: ignore[union-attr]
            if built:
                return built
        return ("" if type(func) is not cst.Attribute else
                self.v.qual(func.value.func) if type(func.value) is cst.Call else
                scope.ctor_of.get(func.value.value, "") if type(func.value) is cst.Name and scope is not None else "")

    def input_ctor(self) -> str:
        node, func = self.node, self.func
        return self.v._built_by(
            func.value if type(func) is cst.Attribute and not self.name.startswith("torch.") else
            (node.args[0].value if node.args and node.args[0].keyword is None else None), self.scope)

    def random_args(self) -> tuple[str, ...]:
        scope = self.scope
        return () if scope is None else tuple(
            (a.keyword.value if a.keyword is not None else str(i))
            for i, a in enumerate(self.node.args) if self.v._random_draw(a.value, scope, 3))

    def inherited_self_args(self) -> dict[str, Any]:
        """Arguments passed as ``self.<attr>`` where the enclosing class never sets ``<attr>``
        itself: the value is whatever a base class's constructor stored (fairseq/ESM
        ``LearnedPositionalEmbedding(nn.Embedding)`` forwarding ``self.max_norm`` to
        ``F.embedding``). ``{"args": {key: attr}, "bases": the class's resolved bases,
        "super_init": (positional count, keyword names, splat) of its ``super().__init__(...)``
        call or None}``; empty when there is no such argument."""
        scope = self.scope
        cls = scope.cls if scope is not None else None
        if cls is None:
            return {}
        found = {(a.keyword.value if a.keyword is not None else str(i)): a.value.attr.value  # type: ignore[attr-defined]
                 for i, a in enumerate(self.node.args) if not a.star and _is_self_attr(a.value)}
        if not found:
            return {}
        writes, init = _class_self_writes(cls)
        found = {k: v for k, v in found.items() if v not in writes}
        return {"args": found, "bases": cls.bases, "super_init": init} if found else {}

    def arg_alias(self) -> str:
        node, scope = self.node, self.scope
        return (scope.shared.get(node.args[0].value.value, "")  # type: ignore[attr-defined]
                if scope is not None and node.args and type(node.args[0].value) is cst.Name else "")


#: Call-site data keys computed on first read: key -> the :class:`_CallExtras` method.
_CALL_EXTRAS: dict[str, Callable[[_CallExtras], Any]] = {
    key: getattr(_CallExtras, key) for key in (
        "receiver_name", "device_like_arg", "to_follows_input", "input_global_pool", "uniform_seq_args",
        "name_args", "arg_item_kinds", "arg_names", "receiver_text", "device_follows_input", "message_kinds",
        "exports_weight", "arg_texts", "value_args_all_params", "receiver_fresh", "in_parameter", "receiver_ctor", "input_ctor",
        "random_args", "arg_alias", "own_method", "defined_method", "receiver_defines_method", "arg_ctor", "after_conv", "autograd_functions", "own_classes",
        "project_names", "ceil_args", "inherited_self_args", "input_1d", "param_default_args", "assumed_args", "size_reported", "param_init", "unfold_tiles",
        "receiver_constant", "constant_args", "kwarg_texts", "arg0_prefix", "arg0_choices", "loaded_copy", "memo_fill", "constant_star_args", "self_default_args", "receiver_conv_output", "negated_widths")
}


#: Functions that round a quotient up (``math.ceil(n / size)``).
_CEIL_FUNCS = frozenset({"math.ceil", "numpy.ceil", "torch.ceil", "triton.cdiv"})


#: Elementwise activations a convolution's output goes through before a flatten.
_ACTIVATION_CALLS = frozenset({
    "torch.relu", "torch.nn.functional.relu", "torch.nn.functional.gelu", "torch.nn.functional.silu",
    "torch.nn.functional.leaky_relu", "torch.nn.functional.elu", "torch.sigmoid", "torch.tanh",
    "torch.nn.functional.dropout",
})


_ACTIVATION_METHODS = frozenset({"relu", "sigmoid", "tanh", "contiguous", "float"})


#: Tensor methods (and ``torch.<name>`` functions) that keep a tensor's rank when called
#: without reshaping arguments: a 1-D input gives a 1-D result.
_RANK_KEEPING = frozenset({
    "cumsum", "cumprod", "to", "long", "int", "float", "double", "half", "bool", "clone", "detach",
    "type", "contiguous", "abs", "neg", "exp", "log", "sqrt", "clamp", "clamp_min", "clamp_max",
    "flip", "roll", "cpu", "cuda", "type_as",
})


#: Creation functions whose result is 1-D (a range of numbers).
_ONE_D_FUNCS = frozenset({"torch.arange", "torch.linspace", "torch.logspace", "torch.randperm"})


def _is_1d(expr: cst.BaseExpression, qual: Callable[[cst.BaseExpression], str],
           bound: Mapping[str, cst.BaseExpression], depth: int = 0) -> bool:
    """``expr`` is certainly a 1-D tensor: ``torch.arange(...)``, ``x.flatten()`` /
    ``torch.flatten(x)`` (no start dimension), ``x.view(-1)`` / ``x.reshape(-1)``,
    ``torch.repeat_interleave(n, r)`` without ``dim`` (its input is flattened), a rank-keeping
    method or function of one (``.cumsum(0)``, ``.long()``, ``torch.cumsum(a, dim=0)``), or a
    local whose binding in ``bound`` (the scope's ``last_value``) is one. Sources: the ``torch.repeat_interleave`` and
    ``torch.flatten`` references."""
    if depth > 8:
        return False
    t = type(expr)
    if t is cst.Name:
        value = bound.get(expr.value)  # type: ignore[attr-defined]
        return value is not None and value is not expr and _is_1d(value, qual, bound, depth + 1)
    if t is not cst.Call:
        return False
    func = expr.func  # type: ignore[attr-defined]
    args = expr.args  # type: ignore[attr-defined]
    name = qual(func)
    if name in _ONE_D_FUNCS:
        return True
    if name == "torch.repeat_interleave":
        return not any(a.keyword is not None and a.keyword.value == "dim" for a in args) and len(args) <= 2
    if name == "torch.flatten":
        return len(args) == 1 and args[0].keyword is None
    if name.startswith("torch.") and name[6:] in _RANK_KEEPING and args and args[0].keyword is None:
        return _is_1d(args[0].value, qual, bound, depth + 1)
    if type(func) is not cst.Attribute or name.startswith("torch."):
        return False
    method = func.attr.value
    if method == "flatten":
        return not args
    if method in ("view", "reshape"):
        return len(args) == 1 and literal(args[0].value) in (-1, (-1,))
    if method == "repeat_interleave":
        return not any(a.keyword is not None and a.keyword.value == "dim" for a in args) and len(args) <= 1
    if method in _RANK_KEEPING:
        return _is_1d(func.value, qual, bound, depth + 1)
    return False


def _is_ceil_division(expr: cst.BaseExpression, qual: Callable[[cst.BaseExpression], str]) -> bool:
    """``expr`` rounds a quotient up: a ceiling function (through ``int(...)``), ``-(-a // b)``
    or ``(a + b - 1) // b``."""
    while type(expr) is cst.Call and type(expr.func) is cst.Name and expr.func.value == "int" and \
            len(expr.args) == 1:
        expr = expr.args[0].value
    t = type(expr)
    if t is cst.Call:
        return qual(expr.func) in _CEIL_FUNCS  # type: ignore[attr-defined]
    if t is cst.UnaryOperation and type(expr.operator) is cst.Minus:  # type: ignore[attr-defined]
        inner = expr.expression  # type: ignore[attr-defined]
        return type(inner) is cst.BinaryOperation and type(inner.operator) is cst.FloorDivide and \
            type(inner.left) is cst.UnaryOperation and type(inner.left.operator) is cst.Minus
    if t is cst.BinaryOperation and type(expr.operator) is cst.FloorDivide:  # type: ignore[attr-defined]
        left = expr.left  # type: ignore[attr-defined]
        return type(left) is cst.BinaryOperation and type(left.operator) is cst.Subtract and \
            literal(left.right) == 1 and type(left.left) is cst.BinaryOperation and type(left.left.operator) is cst.Add
    return False


def _class_self_writes(cls: _ClassInfo) -> tuple[frozenset[str], tuple[int, frozenset[str], bool] | None]:
    """The attributes a class's own methods set on ``self`` (assignments, annotated and
    augmented ones, ``setattr(self, "<name>", ...)``; any ``setattr(self, <non-literal>)``
    counts as every attribute: ``"*"``), and its ``__init__``'s base-constructor call
    (``super().__init__(...)`` or ``<Base>.__init__(self, ...)``) as (positional count,
    keyword names, splat), None without one. Cached on the class."""
    if cls.self_writes is not None:
        return cls.self_writes
    writes: set[str] = set()
    init: tuple[int, frozenset[str], bool] | None = None
    init_node = cls.method_nodes.get("__init__")
    for name, fn in cls.method_nodes.items():
        stack: list[cst.CSTNode] = [fn.body]
        while stack:
            n = stack.pop()
            t = type(n)
            if t in (cst.Assign, cst.AnnAssign, cst.AugAssign):
                targets = [x.target for x in n.targets] if t is cst.Assign else [n.target]  # type: ignore[attr-defined]
                while targets:
                    tg = targets.pop()
                    if type(tg) in (cst.Tuple, cst.List):
                        targets.extend(e.value for e in tg.elements)  # type: ignore[attr-defined]
                    elif _is_self_attr(tg):
                        writes.add(tg.attr.value)  # type: ignore[attr-defined]
            elif t is cst.Call:
                func = n.func  # type: ignore[attr-defined]
                if type(func) is cst.Name and func.value == "setattr" and n.args and \
                        type(n.args[0].value) is cst.Name and n.args[0].value.value == "self":  # type: ignore[attr-defined]
                    key = n.args[1].value if len(n.args) > 1 else None  # type: ignore[attr-defined]
                    writes.add(key.evaluated_value if type(key) is cst.SimpleString else "*")  # type: ignore[union-attr]
                elif fn is init_node and type(func) is cst.Attribute and func.attr.value == "__init__":
                    recv = func.value
                    is_super = type(recv) is cst.Call and type(recv.func) is cst.Name and recv.func.value == "super"
                    args = list(n.args)  # type: ignore[attr-defined]
                    if not is_super and args and type(args[0].value) is cst.Name and args[0].value.value == "self":
                        args = args[1:]  # `nn.Embedding.__init__(self, n, d)`
                    elif not is_super:
                        args = None  # type: ignore[assignment]
                    if args is not None:
                        init = (sum(1 for a in args if a.keyword is None and not a.star),
                                frozenset(a.keyword.value for a in args if a.keyword is not None),
                                any(a.star for a in args))
            stack.extend(child_nodes(n))
    result = (frozenset(writes), init)
    cls.self_writes = result
    return result


def _module_signature(fn: cst.FunctionDef) -> bool:
    """``fn`` has ``nn.Module``'s signature for its name: ``train(self, mode=True)`` (one
    more parameter, with a default), ``eval(self)``; other names never."""
    params = fn.params
    rest = [*params.posonly_params, *params.params][1:] + list(params.kwonly_params)
    if fn.name.value == "train":
        return len(rest) == 1 and rest[0].default is not None
    return fn.name.value == "eval" and not rest and params.star_arg is cst.MaybeSentinel.DEFAULT


def _own_package_base(v: FileVisitor, cls: _ClassInfo, depth: int = 0) -> bool:
    """``cls``, or a base of it in this file, subclasses a class of the scanned package that
    this file does not define (``Kosmos2TextForCausalLM(Kosmos2PreTrainedModel)`` inside
    transformers): an inherited method may be the package's own code."""
    for b in cls.bases if depth < 8 else ():
        base = v.local_classes.get(b.rsplit(".", 1)[-1])
        if base is not None and base.qualname == b:
            if _own_package_base(v, base, depth + 1):
                return True
        elif in_own_package(b, v.module):
            return True
    return False


def _defines_own(v: FileVisitor, cls: _ClassInfo, method: str, depth: int = 0) -> bool:
    """``cls`` or one of its base classes in this file defines ``method`` with a signature
    other than ``nn.Module``'s (:func:`_module_signature`)."""
    node = cls.method_nodes.get(method)
    if node is not None:
        return not _module_signature(node)
    for b in cls.bases if depth < 8 else ():
        base = v.local_classes.get(b.rsplit(".", 1)[-1])
        if base is not None and base.qualname == b and _defines_own(v, base, method, depth + 1):
            return True
    return False


def _is_uniform_sequence(node: cst.BaseExpression) -> bool:
    """``(p, p, p, p)`` or ``[p] * 4``: a sequence whose elements are all the same expression."""
    if type(node) is cst.BinaryOperation and type(node.operator) is cst.Multiply:
        seq = node.left if type(node.left) in (cst.Tuple, cst.List) else node.right
        return type(seq) in (cst.Tuple, cst.List) and len(seq.elements) == 1
    return (type(node) in (cst.Tuple, cst.List) and len(node.elements) > 1
            and all(el.value.deep_equals(node.elements[0].value) for el in node.elements))


#: A name that says it holds a device.
_DEVICE_NAME = re.compile(r"device|(^|_)dev(_|$)|(^|_)rank$|(^|_)gpus?(_ids?)?$")


#: Names of the objects that hold a run's settings: ``args.device``, ``cfg.device`` name a
#: device chosen by configuration, not the device of an input (``x.device``)
_SETTINGS_NAME = re.compile(r"^(args|opts?|options|cfg|config|conf|hparams|hps?|params|flags|FLAGS|settings|"
                            r"training_args|train_args|run_args|accelerator)$")


def _is_settings_attr(node: cst.Attribute) -> bool:
    """``args.device``, ``self.args.device``, ``cfg.train.device``: the attribute chain starts
    at (or, after ``self.``, goes through) a settings object (:data:`_SETTINGS_NAME`)."""
    base = node.value
    while type(base) is cst.Attribute:
        if _SETTINGS_NAME.match(base.attr.value):
            return True
        base = base.value
    return type(base) is cst.Name and _SETTINGS_NAME.match(base.value) is not None


def _mentions_device(visitor: FileVisitor, node: cst.BaseExpression) -> bool:
    """An argument that names a device: ``device``/``*_device`` names, ``x.device``, the
    short ``dev`` (``self.dev``: SASRec), a process's GPU index (``self.rank``, ``local_rank``,
    ``args.gpu``: ``.to(rank)`` places on ``cuda:rank``; a dtype is never an int), ``torch.device(...)``, a call of a device-named
    helper (``default_device()``, ``dist_util.dev()``) and a device string built at run time
    (``f"cuda:{rank}"``)."""
    if type(node) is cst.Name:
        return _DEVICE_NAME.search(node.value.lower()) is not None
    if type(node) is cst.Attribute:
        return _DEVICE_NAME.search(node.attr.value.lower()) is not None
    if type(node) is cst.Call:
        func = node.func
        last = func.value if type(func) is cst.Name else func.attr.value if type(func) is cst.Attribute else ""
        return visitor.qual(func) == "torch.device" or (
            not node.args and _DEVICE_NAME.search(last.lower()) is not None)
    if type(node) is cst.FormattedString:
        head = node.parts[0] if node.parts else None
        return type(head) is cst.FormattedStringText and head.value.split(":")[0] in ("cuda", "cpu", "xpu", "mps", "npu")
    return False
