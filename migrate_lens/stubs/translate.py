"""Translate one PyTorch source file's nn.Module classes into a Flax NNX stub (source text).

One libcst transform over the file (never imported or run). Target classes, and the module-level
functions and constants they reach, are rewritten; everything else is dropped. ``__init__`` keeps
its Python logic and maps layers to NNX constructors with PyTorch's defaults made explicit
(:data:`~migrate_lens.stubs.tables.LAYERS`); ``forward`` becomes ``__call__`` with its body
translated (:data:`~migrate_lens.stubs.tables.FUNCTIONS`, :data:`~migrate_lens.stubs.tables.METHODS`,
and ``rules/api_map.toml`` renames). Whatever is not translated stays visible as a
``# TODO(migrate-lens MLxxx): why`` comment above its statement, and is counted.

Layout: stubs keep PyTorch's tensor layout at module boundaries (NCHW); convolutions run
channels-last inside ``ChannelsFirst`` (see ``prelude_src.py``). So no channel-index arithmetic
in forward needs rewriting, and parity is checked like for like.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from migrate_lens.stubs import tables as T
from migrate_lens.stubs.apimap import ApiRenames
from migrate_lens.stubs.names import Aliases, dotted, names_in

#: Packages whose imports are dropped from stubs (they import torch).
TORCH_ECOSYSTEM: frozenset[str] = frozenset({
    "torch", "torchvision", "torchaudio", "transformers", "timm", "pytorch_lightning", "lightning", "fairscale",
    "apex", "xformers", "triton", "flash_attn", "accelerate", "safetensors",
})


def is_torch_ecosystem(package: str) -> bool:
    """Whether imports of top-level ``package`` are dropped from stubs: the known PyTorch
    libraries above, and any package named after torch (``torch_einops_utils``, ``torchmetrics``,
    ``pytorch_msssim``): their code runs on torch tensors, not on JAX arrays."""
    return package in TORCH_ECOSYSTEM or "torch" in package.lower()


#: torch.nn containers that PyTorch libraries re-export or re-implement under the same name
#: (``torch_einops_utils.nn.Sequential`` drops None entries, as ``TorchSequential`` does): a name
#: imported from a torch-ecosystem package with one of these last names is translated as torch.nn's.
CONTAINER_ALIASES: frozenset[str] = frozenset({"Sequential", "ModuleList", "ModuleDict", "Identity"})
#: Names from third-party PyTorch code that have a prelude replacement (matched on the imported name).
SHIMS: dict[str, str] = {"ACT2FN": "ACT2FN", "Conv1D": "Conv1D", "logging": "logging",
                         "apply_chunking_to_forward": "apply_chunking_to_forward"}
#: Third-party nn.Module base classes: the stub derives from nnx.Module instead.
MODULE_BASES: frozenset[str] = frozenset({
    "torch.nn.Module", "torch.nn.modules.module.Module", "GradientCheckpointingLayer", "PreTrainedModel",
})
#: Third-party bases with a prelude stand-in (matched by their last name): transformers'
#: PreTrainedModel keeps ``config`` and the mask helpers forward passes call.
BASE_SHIMS: dict[str, str] = {"PreTrainedModel": "PreTrainedModel", "ModelOutput": "ModelOutput"}
_TORCH_CONSTANTS = {"torch.pi": "jnp.pi", "torch.inf": "jnp.inf", "torch.nan": "jnp.nan", "torch.e": "jnp.e"}
#: torch tensor factories called with ``*args``/``**kwargs`` (timm's ``**dd``) -> prelude helpers
#: with PyTorch's signature (``device``/``layout``/``requires_grad`` accepted and ignored).
_STAR_FACTORIES = {"torch.empty": "torch_empty", "torch.zeros": "torch_zeros", "torch.ones": "torch_ones",
                   "torch.full": "torch_full"}
#: ``nn.Module`` methods that walk the module tree -> prelude helpers over the NNX graph.
_MODULE_WALKS = {"modules": "torch_modules", "named_modules": "torch_named_modules", "children": "torch_children",
                 "named_children": "torch_named_children"}
#: PyTorch module attributes with a prelude stand-in (version checks take the current-PyTorch branch).
_TORCH_ATTRS = {"torch.__version__": "TORCH_VERSION", "torch.version.__version__": "TORCH_VERSION"}
_SAFE_DECORATORS = frozenset({"staticmethod", "classmethod", "property", "functools.wraps", "functools.lru_cache",
                              "functools.cached_property", "dataclasses.dataclass", "typing.overload"})
_EMPTY = cst.Module(body=[])
#: Source patterns of PyTorch random draws (a class or helper matching gets an ``nnx.Rngs``).
_RANDOM_RE = re.compile(r"(\brand(?:n|int|perm)?(?:_like)?\s*\(|\.bernoulli_?\s*\(|\bbernoulli\s*\(|"
                        r"\.uniform_\s*\(|\.normal_\s*\(|(?:\bF|functional)\.dropout\s*\()")


def code(node: cst.CSTNode) -> str:
    """Source text of a node."""
    return _EMPTY.code_for_node(node)


def _expr(src: str) -> cst.BaseExpression:
    """Parse generated source; a handler bug raises :class:`ValueError` naming the text."""
    try:
        return cst.parse_expression(src)
    except cst.ParserSyntaxError as exc:
        raise ValueError(f"migrate-lens generated invalid code {src!r}: {exc.message}") from None


@dataclass(frozen=True, slots=True)
class Todo:
    """One untranslated spot: rule ``code`` (``ML0xx`` generic codes: docs/stubs.md), 1-based
    source ``line``, enclosing ``symbol`` (class or function name), and why."""

    code: str
    line: int
    symbol: str
    message: str


@dataclass
class FileContext:
    """What the translator of one file knows about the project.

    ``module`` is the file's dotted name; ``targets`` the class names to translate here;
    ``project_modules`` every dotted module under the root; ``exports`` maps a module to the names
    its stub defines; ``stub_classes`` holds qualified names of all translated classes.
    """

    rel_path: str
    module: str
    is_package: bool
    targets: set[str]
    project_modules: set[str]
    exports: dict[str, set[str]]
    stub_classes: set[str]
    api: ApiRenames = field(default_factory=ApiRenames)
    #: module-level names whose value refers to target classes (``CLASSES = {"eager": Attn}``)
    class_maps: set[str] = field(default_factory=set)
    #: target classes of this file that define ``__init__`` (a base without one runs object.__init__)
    classes_with_init: set[str] = field(default_factory=set)
    #: plain (non-nn.Module) classes copied into the stub: their bases and methods stay Python
    plain_classes: set[str] = field(default_factory=set)
    #: module-level names bound by assignment (``LayerNorm = partial(nn.LayerNorm, eps=1e-6)``)
    top_assigned: set[str] = field(default_factory=set)
    #: names imported from other project files that are layer-building functions there
    #: (:func:`builder_funcs`): calls in ``__init__`` pass ``rngs``
    imported_builders: set[str] = field(default_factory=set)
    #: names imported from other project files that draw random numbers there (:func:`random_funcs`)
    imported_random: set[str] = field(default_factory=set)


class _Translator(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, ctx: FileContext, aliases: Aliases, local_defs: set[str]) -> None:
        super().__init__()
        self.ctx = ctx
        self.aliases = aliases
        self.local_defs = local_defs
        self.todos: list[Todo] = []
        self.helpers: set[str] = set()
        self.factories: set[str] = set()
        self.uses_einops = False
        self._pending: list[list[tuple[str, str]]] = []
        self._skip_names: set[int] = set()
        self._call_funcs: set[int] = set()
        #: torch functions passed first to ``functools.partial`` (translated with the partial's keywords)
        self._partial_funcs: set[int] = set()
        self._stmt_calls: set[int] = set()
        self._class: str = ""
        self._class_uses_training = False
        self._layer_attrs: dict[str, str] = {}
        #: ``self.<attr>`` holding a list of one kind of torch layer (``nn.ModuleList([nn.Embedding(1, d)
        #: for _ in range(4)])``, also through an ``__init__`` local): attr -> layer class name
        self._layer_list_attrs: dict[str, str] = {}
        self._local_layer_lists: dict[str, str] = {}
        self._func_stack: list[str] = []
        self._rngs: str | None = None
        self._module_params: set[str] = set()
        self._local_names: list[set[str]] = []
        self._top: str = ""
        self._class_has_stub_base = False
        self._plain = False
        self._init_locals: set[str] = set()
        self._class_uses_random = False
        #: top-level functions that draw random numbers: they get an ``rngs`` keyword
        self._random_funcs: set[str] = set()
        #: top-level functions that build layers (timm's create_act_layer, _create_attn): they get
        #: an ``rngs`` keyword and pass it on as ``__init__`` does; callers in ``__init__`` pass theirs
        self._builder_funcs: set[str] = set()
        self._class_methods: set[str] = set()
        self._factories_local: set[str] = set()
        self._param_attrs: set[str] = set()
        self._none_attrs: set[str] = set()
        self._assign_targets: set[int] = set()
        self._arg_values: set[int] = set()

    # ----------------------------------------------------------------- bookkeeping
    def _line(self, node: cst.CSTNode) -> int:
        try:
            return self.get_metadata(PositionProvider, node).start.line
        except KeyError:
            return 0

    def todo(self, code_: str, message: str) -> None:
        if self._pending:
            self._pending[-1].append((code_, message))

    def _push(self) -> None:
        self._pending.append([])

    def _pop_attach(self, original: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:
        items = self._pending.pop()
        if not items or not hasattr(updated, "leading_lines"):
            if items and self._pending:
                self._pending[-1].extend(items)
            return updated
        symbol = self._top
        line = self._line(original)
        comments = []
        seen: set[tuple[str, str]] = set()
        for code_, message in items:
            if (code_, message) in seen:
                continue
            seen.add((code_, message))
            self.todos.append(Todo(code_, line, symbol, message))
            text = f"# TODO(migrate-lens {code_}): {message}"
            comments.append(cst.EmptyLine(indent=True, comment=cst.Comment(_one_line(text))))
        return updated.with_changes(leading_lines=[*updated.leading_lines, *comments])  # type: ignore[attr-defined]

    def qualify(self, node: cst.BaseExpression) -> str:
        """Qualified name of an expression (imports, local classes), "" for locals/unknown."""
        if isinstance(node, cst.Name) and self._local_names and any(node.value in s for s in self._local_names):
            return ""
        qual = self.aliases.resolve(node)
        if qual:
            top, _, rest = qual.partition(".")
            last = qual.rsplit(".", 1)[-1]
            if top != "torch" and rest and last in CONTAINER_ALIASES and is_torch_ecosystem(top):
                return f"torch.nn.{last}"
            return qual
        text = dotted(node)
        if text and text.split(".")[0] in self.local_defs:
            return f"{self.ctx.module}.{text}"
        return ""

    # ----------------------------------------------------------------- statements
    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self._push()
        if not self._class and not self._func_stack:
            self._top = top_level_name(node)

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine,
                                  updated: cst.SimpleStatementLine) -> cst.CSTNode:
        body: list[cst.BaseSmallStatement] = []
        for orig_small, small in zip(original.body, updated.body):
            new = self._statement(orig_small, small)
            if new is not None:
                body.append(new)
                extra = self._after(orig_small)
                if extra is not None:
                    body.append(extra)
        result: cst.CSTNode
        if not body:
            items = self._pending[-1] if self._pending else []
            if items:
                result = self._pop_attach(original, cst.SimpleStatementLine(body=[cst.Pass()]))
                return result
            self._pending.pop()
            return cst.RemovalSentinel.REMOVE  # type: ignore[return-value]
        return self._pop_attach(original, updated.with_changes(body=body))

    def _statement(self, orig: cst.BaseSmallStatement, new: cst.BaseSmallStatement) -> cst.BaseSmallStatement | None:
        in_init = (bool(self._func_stack) and self._func_stack[-1] == "__init__" and bool(self._class)
                   and not self._plain)
        if isinstance(orig, cst.Expr) and isinstance(orig.value, cst.Call):
            call = orig.value
            func = call.func
            if (isinstance(func, cst.Attribute) and func.attr.value == "__init__" and isinstance(func.value, cst.Call)
                    and dotted(func.value.func) == "super" and in_init):
                if not self._class_has_stub_base:
                    return None
                call_new = new.value if isinstance(new, cst.Expr) else None
                if isinstance(call_new, cst.Call) and not any(a.keyword and a.keyword.value == "rngs" for a in call_new.args):
                    return new.with_changes(value=call_new.with_changes(args=[*_commas(call_new.args), cst.Arg(
                        keyword=cst.Name("rngs"), value=cst.Name("rngs"),
                        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                              whitespace_after=cst.SimpleWhitespace("")))]))
                return new
            qual = self.qualify(func)
            if qual.startswith("torch.nn.init."):
                self.todo(T.TODO_CONSTRUCT, f"{qual} dropped: NNX initializers differ; load PyTorch weights with "
                          "convert_state_dict")
                return None
            if (in_init and isinstance(func, cst.Attribute) and dotted(func.value) == "self"
                    and func.attr.value in ("post_init", "init_weights") and func.attr.value not in self._class_methods):
                self.todo(T.TODO_EXTERNAL, f"self.{func.attr.value}() (transformers PreTrainedModel weight init and "
                          "tying) dropped: load converted PyTorch weights")
                return None
            if isinstance(func, cst.Attribute) and dotted(func.value) == "self" and func.attr.value in (
                    "register_buffer", "register_parameter"):
                return self._register(func.attr.value, new)
            if isinstance(func, cst.Attribute) and func.attr.value in T.INPLACE and not qual:
                return self._inplace(orig, new)
        if (in_init and isinstance(new, (cst.Assign, cst.AnnAssign)) and isinstance(new.value, cst.Name)
                and new.value.value == "None" and len(getattr(new, "targets", [None])) == 1):
            target_node = new.targets[0].target if isinstance(new, cst.Assign) else new.target
            if isinstance(target_node, cst.Attribute) and dotted(target_node.value) == "self":
                # NNX 0.12 makes an attribute first set to None static; a later Param/Module would be refused.
                return new.with_changes(value=_expr("nnx.data(None)"))
        if isinstance(orig, cst.Assign) and len(orig.targets) == 1:
            target = orig.targets[0].target
            if isinstance(target, cst.Subscript) and isinstance(new, cst.Assign):
                return self._index_update(target, new.targets[0].target, "set", code(new.value))
            if (isinstance(target, cst.Attribute) and dotted(target.value) == "self" and not in_init
                    and self._class and self._func_stack):
                self.todo(T.TODO_STATE, f"assigns self.{target.attr.value} outside __init__: NNX modules keep "
                          "state in nnx.Variable objects; a traced function must not rebind attributes")
        if isinstance(orig, cst.AugAssign) and isinstance(new, cst.AugAssign):
            if isinstance(orig.target, cst.Subscript):
                ops = {cst.AddAssign: ("add", ""), cst.SubtractAssign: ("add", "-"), cst.MultiplyAssign: ("multiply", ""),
                       cst.DivideAssign: ("divide", "")}
                op = ops.get(type(orig.operator))
                if op is not None:
                    return self._index_update(orig.target, new.target, op[0], f"{op[1]}({code(new.value)})")
            if isinstance(orig.target, cst.Attribute) and dotted(orig.target.value) == "self" and not in_init:
                self.todo(T.TODO_STATE, f"updates self.{orig.target.attr.value} in place outside __init__")
        return new

    def _after(self, orig: cst.BaseSmallStatement) -> cst.BaseSmallStatement | None:
        """A statement to add after ``orig``: giving a bias-less nnx layer a bias must also set
        ``use_bias`` (PyTorch just uses whatever ``.bias`` holds; NNX checks the flag)."""
        if isinstance(orig, cst.Assign) and len(orig.targets) == 1:
            t = orig.targets[0].target
            if (isinstance(t, cst.Attribute) and t.attr.value == "bias" and isinstance(t.value, cst.Attribute)
                    and dotted(t.value.value) == "self" and t.value.attr.value in self._layer_attrs):
                owner = dotted(t.value)
                return cst.parse_statement(f"{owner}.use_bias = {owner}.bias is not None\n").body[0]  # type: ignore[attr-defined, no-any-return]
        return None

    def _register(self, kind: str, new: cst.BaseSmallStatement) -> cst.BaseSmallStatement:
        assert isinstance(new, cst.Expr) and isinstance(new.value, cst.Call)
        args = new.value.args
        name_lit = _literal(args[0].value) if args else None
        if not isinstance(name_lit, str) or len(args) < 2:
            self.todo(T.TODO_CONSTRUCT, f"{kind} with a computed name")
            return new
        value = code(args[1].value)
        if kind == "register_buffer":
            persistent = next((code(a.value) for a in args[2:] if a.keyword and a.keyword.value == "persistent"),
                              code(args[2].value) if len(args) > 2 and args[2].keyword is None else "True")
            self.helpers.add("Buffer")
            value = "None" if value == "None" else f"Buffer({value}, persistent={persistent})"
        return cst.parse_statement(f"self.{name_lit} = {value}\n").body[0]  # type: ignore[attr-defined, no-any-return]

    def _inplace(self, orig: cst.Expr, new: cst.BaseSmallStatement) -> cst.BaseSmallStatement:
        """``x.add_(y)`` as a statement: leave_Call already built the out-of-place value."""
        assert isinstance(new, cst.Expr) and isinstance(orig.value, cst.Call)
        assert isinstance(orig.value.func, cst.Attribute)
        receiver = orig.value.func.value
        if not isinstance(receiver, cst.Name):
            self.todo(T.TODO_STATE, f"in-place .{orig.value.func.attr.value}() on {code(receiver)}: JAX arrays are "
                      "immutable; rebind the result explicitly")
            return new
        return cst.parse_statement(f"{receiver.value} = {code(new.value)}\n").body[0]  # type: ignore[attr-defined, no-any-return]

    def _index_update(self, orig_target: cst.Subscript, new_target: cst.BaseAssignTargetExpression, op: str,
                      value: str) -> cst.BaseSmallStatement:
        assert isinstance(new_target, cst.Subscript)
        base = code(new_target.value)
        index = code(new_target)[len(base):].strip()
        if not isinstance(orig_target.value, cst.Name):
            self.todo(T.TODO_STATE, f"index assignment into {base}: JAX arrays are immutable; rebind with "
                      f"{base}.at[...].{op}(...)")
            src = f"{base}{index} = {value}\n" if op == "set" else f"{base}{index} += {value}\n"
            return cst.parse_statement(src).body[0]  # type: ignore[attr-defined, no-any-return]
        sl = orig_target.slice
        if op in ("set", "add") and len(sl) == 1 and isinstance(sl[0].slice, cst.Index) \
                and _is_mask_expr(sl[0].slice.value):
            # `x[labels == -1] = 0.0`: a boolean-mask scatter, static-shaped with jnp.where
            self.helpers.add("masked_update")
            mask = code(new_target.slice[0].slice.value)  # type: ignore[attr-defined]
            src = f"{base} = masked_update({base}, {mask}, {value}, {op!r})\n"
            return cst.parse_statement(src).body[0]  # type: ignore[attr-defined, no-any-return]
        src = f"{base} = {base}.at{index}.{op}({value})\n"
        return cst.parse_statement(src).body[0]  # type: ignore[attr-defined, no-any-return]

    def visit_If(self, node: cst.If) -> None:
        self._push()

    def leave_If(self, original: cst.If, updated: cst.If) -> cst.CSTNode:
        return self._pop_attach(original, _ensure_body(updated))

    def visit_For(self, node: cst.For) -> None:
        self._push()

    def leave_For(self, original: cst.For, updated: cst.For) -> cst.CSTNode:
        return self._pop_attach(original, _ensure_body(updated))

    def visit_While(self, node: cst.While) -> None:
        self._push()

    def leave_While(self, original: cst.While, updated: cst.While) -> cst.CSTNode:
        return self._pop_attach(original, _ensure_body(updated))

    def visit_Try(self, node: cst.Try) -> None:
        self._push()

    def leave_Try(self, original: cst.Try, updated: cst.Try) -> cst.CSTNode:
        return self._pop_attach(original, updated)

    def visit_With(self, node: cst.With) -> None:
        self._push()

    def leave_With(self, original: cst.With, updated: cst.With) -> cst.CSTNode:
        items = []
        for orig_item, item in zip(original.items, updated.items):
            qual = self.qualify(orig_item.item.func) if isinstance(orig_item.item, cst.Call) else ""
            if qual.startswith("torch."):
                self.todo(T.TODO_CONSTRUCT, f"context manager {qual} removed (no JAX equivalent in a traced function"
                          "; use jax.lax.stop_gradient for no_grad)")
                continue
            items.append(item)
        if not items:
            items = [cst.WithItem(item=_expr("contextlib.nullcontext()"))]
            self.helpers.add("__contextlib__")
        return self._pop_attach(original, updated.with_changes(items=items))

    # ----------------------------------------------------------------- scopes
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._push()
        if not self._func_stack and not self._class:
            self._top = node.name.value
            self._class = node.name.value
            class_src = code(node)
            self._class_uses_training = "self.training" in class_src
            self._class_uses_random = bool(_RANDOM_RE.search(class_src)) or any(
                re.search(rf"\b{re.escape(r)}\s*\(", class_src) for r in self._random_funcs)
            self._layer_attrs = {}
            self._layer_list_attrs = {}
            self._local_layer_lists = {}
            self._param_attrs = set()
            self._none_attrs = set()
            self._factories_local = set()
            self._class_has_stub_base = False
            self._class_methods = {s.name.value for s in node.body.body if isinstance(s, cst.FunctionDef)}
            self._plain = node.name.value in self.ctx.plain_classes
            for arg in node.bases:
                q = self.qualify(arg.value)
                if q.startswith("torch.nn.") and q.rsplit(".", 1)[-1] in T.LAYER_BASES:
                    self._class_has_stub_base = True  # the prelude base takes PyTorch's arguments and rngs
                local = isinstance(arg.value, cst.Name) and arg.value.value in self.ctx.targets
                if (local and arg.value.value in self.ctx.classes_with_init) or (
                        not local and q in self.ctx.stub_classes) or q.rsplit(".", 1)[-1] in BASE_SHIMS:
                    self._class_has_stub_base = True
        self._skip_names.add(id(node.name))

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.CSTNode:
        if self._func_stack or self._class != original.name.value:
            return self._pop_attach(original, updated)
        if self._plain:  # a plain Python class (config, dataclass): bases and methods stay
            self._class = ""
            self._plain = False
            bases = []
            for orig_arg, arg in zip(original.bases, updated.bases):
                last = self.qualify(orig_arg.value).rsplit(".", 1)[-1]
                if last in BASE_SHIMS:
                    self.helpers.add(BASE_SHIMS[last])
                    arg = arg.with_changes(value=_expr(BASE_SHIMS[last]))
                bases.append(arg)
            return self._pop_attach(original, updated.with_changes(
                bases=bases, decorators=self._decorators(updated.decorators, original)))
        bases: list[cst.Arg] = []
        for orig_arg, arg in zip(original.bases, updated.bases):
            qual = self.qualify(orig_arg.value)
            last = qual.rsplit(".", 1)[-1]
            if qual.startswith("torch.nn.") and last in T.LAYER_BASES:
                base, ndim = T.LAYER_BASES[last]
                self.helpers.add(base)
                bases.append(cst.Arg(value=_expr(base)))
                if ndim:
                    body = list(updated.body.body)
                    at = 1 if body and _is_docstring(body[0]) else 0
                    body.insert(at, cst.parse_statement(f"ndim = {ndim}  # torch.nn.{last}\n"))
                    updated = updated.with_changes(body=updated.body.with_changes(body=body))
            elif last in BASE_SHIMS and qual.rsplit(".", 1)[0] != self.ctx.module:
                self.helpers.add(BASE_SHIMS[last])
                bases.append(cst.Arg(value=_expr(BASE_SHIMS[last])))
            elif qual in MODULE_BASES or last in MODULE_BASES:
                bases.append(cst.Arg(value=_expr("nnx.Module")))
            elif qual and qual.rsplit(".", 1)[0] == self.ctx.module and last in self.ctx.targets:
                bases.append(arg)
            elif qual in self.ctx.stub_classes:
                bases.append(arg)
            else:
                self.todo(T.TODO_EXTERNAL, f"base class {code(orig_arg.value)} is not translated; dropped")
        if not any(code(b.value) == "nnx.Module" for b in bases) and not bases:
            bases = [cst.Arg(value=_expr("nnx.Module"))]
        seen: set[str] = set()
        unique = []
        for b in bases:
            if code(b.value) not in seen:
                seen.add(code(b.value))
                unique.append(b.with_changes(comma=cst.MaybeSentinel.DEFAULT))
        if all(code(b.value) == "nnx.Module" for b in unique) and not any(
                isinstance(st, cst.FunctionDef) and st.name.value == "__init__" for st in updated.body.body):
            updated = self._with_rngs_init(updated)
        result = updated.with_changes(bases=unique, decorators=self._decorators(updated.decorators, original))
        self._class = ""
        return self._pop_attach(original, result)

    def _with_rngs_init(self, cls: cst.ClassDef) -> cst.ClassDef:
        """``cls`` (an nnx.Module stub whose PyTorch class has no ``__init__``, such as a
        parameter-free activation) with an ``__init__`` taking the ``rngs`` keyword every stub
        takes: its callers' stubs build it as ``Block(rngs=rngs)``, which
        ``nnx.Module.__init__`` refuses ("takes no arguments"); a random draw in its forward
        keeps the key source in ``self.rngs``."""
        keep = "self.rngs = rngs" if self._class_uses_random else "pass"
        init = cst.parse_statement(
            f"def __init__(self, *, rngs: nnx.Rngs | None = None) -> None:  # no parameters in PyTorch\n    {keep}\n")
        body = list(cls.body.body)
        at = 1 if body and _is_docstring(body[0]) else 0
        if at < len(body) and hasattr(body[at], "leading_lines"):  # a blank line before the next method
            body[at] = body[at].with_changes(leading_lines=[cst.EmptyLine(indent=False), *body[at].leading_lines])
        body.insert(at, init)
        return cls.with_changes(body=cls.body.with_changes(body=body))

    def _decorators(self, decorators: tuple[cst.Decorator, ...] | list[cst.Decorator],
                    original: cst.ClassDef | cst.FunctionDef) -> list[cst.Decorator]:
        kept = []
        for dec, orig in zip(decorators, original.decorators):
            target = orig.decorator.func if isinstance(orig.decorator, cst.Call) else orig.decorator
            qual = self.qualify(target) or dotted(target)
            if qual in _SAFE_DECORATORS or dotted(target) in _SAFE_DECORATORS or (
                    not self.qualify(target) and dotted(target) in self.local_defs):
                kept.append(dec)
            else:
                self.todo(T.TODO_EXTERNAL if not qual.startswith("torch") else T.TODO_CONSTRUCT,
                          f"decorator @{code(orig.decorator)} dropped")
        return kept

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._push()
        if not self._func_stack and not self._class:
            self._top = node.name.value
        self._func_stack.append(node.name.value)
        self._skip_names.add(id(node.name))
        params = {p.name.value for p in [*node.params.params, *node.params.kwonly_params, *node.params.posonly_params]}
        for extra in (node.params.star_arg, node.params.star_kwarg):
            if isinstance(extra, cst.Param):
                params.add(extra.name.value)
        self._local_names.append(params)
        if not self._class and len(self._func_stack) == 1 and node.name.value in self._builder_funcs:
            self._rngs = "rngs"
            self._init_locals = set()
            self._module_params = set()
        if node.name.value == "__init__" and self._class and not self._plain and len(self._func_stack) == 1:
            self._rngs = "rngs"
            self._init_locals = set()
            self._module_params = set()
            for p in [*node.params.params, *node.params.kwonly_params]:
                ann = code(p.annotation.annotation) if p.annotation else ""
                default_q = self.aliases.resolve(p.default) if p.default is not None else ""
                if "Module" in ann or (default_q.startswith("torch.nn.") and default_q.split(".")[-1] in T.LAYERS):
                    self._module_params.add(p.name.value)

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.CSTNode:
        name = self._func_stack.pop()
        self._local_names.pop()
        result = _ensure_body(updated)
        in_class_method = bool(self._class) and not self._plain and not self._func_stack
        if in_class_method and name == "forward":
            result = result.with_changes(name=cst.Name("__call__"))
        if in_class_method and name == "__init__":
            result = self._init_signature(result)
            self._rngs = None
        if not self._class and not self._func_stack and name in self._builder_funcs:
            self._rngs = None
        if not self._class and not self._func_stack and (name in self._random_funcs or name in self._builder_funcs):
            names = {p.name.value for p in [*result.params.params, *result.params.kwonly_params]}
            if "rngs" not in names:
                params = result.params
                star = params.star_arg if isinstance(params.star_arg, (cst.Param, cst.ParamStar)) else cst.ParamStar()
                rngs = cst.Param(name=cst.Name("rngs"), default=cst.Name("None"),
                                 equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                       whitespace_after=cst.SimpleWhitespace("")))
                result = result.with_changes(params=params.with_changes(star_arg=star,
                                                                        kwonly_params=[*params.kwonly_params, rngs]))
        result = result.with_changes(decorators=self._decorators(result.decorators, original))
        return self._pop_attach(original, result)

    def _init_signature(self, fn: cst.FunctionDef) -> cst.FunctionDef:
        params = fn.params
        names = {p.name.value for p in [*params.params, *params.kwonly_params]}
        if "rngs" not in names:
            rngs = cst.Param(name=cst.Name("rngs"), annotation=cst.Annotation(_expr("nnx.Rngs")))
            star = params.star_arg
            if not isinstance(star, (cst.Param, cst.ParamStar)):
                star = cst.ParamStar()
            params = params.with_changes(star_arg=star, kwonly_params=[*params.kwonly_params, rngs])
        body = list(fn.body.body)  # type: ignore[attr-defined]
        if self._class_uses_training:
            insert_at = 1 if body and _is_docstring(body[0]) else 0
            body.insert(insert_at, cst.parse_statement(
                "self.deterministic = False  # PyTorch self.training; nnx Module.eval() sets it to True\n"))
        if self._class_uses_random:
            insert_at = 1 if body and _is_docstring(body[0]) else 0
            body.insert(insert_at, cst.parse_statement(
                "self.rngs = rngs  # random draws in forward take fresh keys from here (PyTorch: the global RNG)\n"))
        return fn.with_changes(params=params, body=fn.body.with_changes(body=body))

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._local_names.append({p.name.value for p in node.params.params})

    def leave_Lambda(self, original: cst.Lambda, updated: cst.Lambda) -> cst.BaseExpression:
        self._local_names.pop()
        return updated

    def visit_Param(self, node: cst.Param) -> None:
        self._skip_names.add(id(node.name))

    def visit_Arg(self, node: cst.Arg) -> None:
        self._arg_values.add(id(node.value))
        if node.keyword is not None:
            self._skip_names.add(id(node.keyword))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._skip_names.add(id(node.attr))

    def visit_Expr(self, node: cst.Expr) -> None:
        if isinstance(node.value, cst.Call):
            self._stmt_calls.add(id(node.value))

    def visit_Import(self, node: cst.Import) -> bool:
        return False  # names in (function-local) import statements are module paths, not values

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_Call(self, node: cst.Call) -> None:
        self._call_funcs.add(id(node.func))
        if node.args and node.args[0].keyword is None and not node.args[0].star and \
                self.qualify(node.func) == "functools.partial":
            self._partial_funcs.add(id(node.args[0].value))

    # ----------------------------------------------------------------- expressions
    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        if id(original) in self._skip_names or id(original) in self._call_funcs:
            return updated
        return self._value_ref(original, updated)

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        if dotted(original) == "self.training":
            return _expr("(not self.deterministic)")
        if original.attr.value == "training" and self._func_stack and id(original) not in self._assign_targets:
            # another module's flag (``module.training`` in a helper function)
            self.helpers.add("is_training")
            return _expr(f"is_training({code(updated.value)})")
        if (original.attr.value == "device" and self._func_stack and id(original) not in self._call_funcs
                and id(original) not in self._assign_targets and dotted(original.value) != "self"):
            # tensors carry no device under a tracer; JAX places arrays itself
            self.helpers.add("device_of")
            return _expr(f"device_of({code(updated.value)})")
        held = original.value.value if isinstance(original.value, cst.Subscript) else None
        if original.attr.value == "weight" and isinstance(held, cst.Attribute) and dotted(held.value) == "self" \
                and held.attr.value in self._layer_list_attrs:
            # `self.point_embeddings[0].weight`: a layer of a ModuleList of one layer kind
            renamed = _nnx_weight(self._layer_list_attrs[held.attr.value], code(updated.value))
            if renamed is not None:
                return renamed
        if (isinstance(original.value, cst.Attribute) and dotted(original.value.value) == "self"
                and original.value.attr.value in self._layer_attrs and original.attr.value == "weight"):
            kind = self._layer_attrs[original.value.attr.value]
            renamed = _nnx_weight(kind, code(updated.value))
            if renamed is not None:
                return renamed
            self.todo(T.TODO_LAYOUT, f"{dotted(original)}: NNX {kind} stores 'kernel' in HWIO layout (PyTorch OIHW)")
        if id(original) in self._call_funcs:
            return updated
        if (isinstance(original.value, cst.Name) and original.value.value == "self" and self._func_stack
                and self._func_stack[0] != "__init__" and original.attr.value in self._param_attrs
                and original.attr.value not in self._none_attrs and id(original) in self._arg_values):
            # a Param passed to a function that may not know nnx.Variable (einops): pass the array
            return _expr(f"self.{original.attr.value}[...]")
        return self._value_ref(original, updated)

    def _value_ref(self, original: cst.BaseExpression, updated: cst.BaseExpression) -> cst.BaseExpression:
        qual = self.qualify(original)
        if not qual:
            return updated
        if qual in T.DTYPES:
            return _expr(T.DTYPES[qual])
        if qual in T.ANNOTATION_TYPES:
            return _expr(T.ANNOTATION_TYPES[qual])
        if qual in _TORCH_CONSTANTS:
            return _expr(_TORCH_CONSTANTS[qual])
        if qual in _TORCH_ATTRS:
            self.helpers.add(_TORCH_ATTRS[qual])
            return _expr(_TORCH_ATTRS[qual])
        last = qual.rsplit(".", 1)[-1]
        if qual.startswith("torch.nn.") and last in T.LAYERS and T.LAYERS[last].kind != "container":
            self.factories.add(last)
            return cst.Name(f"nn_{last}")
        if qual in T.FUNCTIONS and id(original) in self._partial_funcs:
            return updated  # translated with the partial's keywords (_partial_of_function)
        if qual in T.FUNCTIONS:
            lam = self._function_value(qual, [])
            if lam is not None:
                return _expr(lam)
        if qual.startswith("torch.") and isinstance(original, cst.Attribute):
            self.todo(T.TODO_UNMAPPED, f"{qual} has no translation")
        return updated

    def _function_value(self, qual: str, keywords: list[str]) -> str | None:
        """A torch function used as a value (``act = F.gelu``, ``partial(F.softmax, dim=-1)``) as
        a lambda of the tensor and ``keywords`` whose body is the table's translation of the call
        ``qual(_x, kw=kw, ...)``; None when the table cannot bind that call."""
        spec = T.FUNCTIONS[qual]
        extra = [k for k in spec.value_kwargs if k not in keywords]
        try:
            bound = T.bind(spec.params, [(None, "_x"), *((k, k) for k in [*keywords, *extra])], spec.varargs)
        except T.Unbindable:
            return None
        src = self._run(spec.handler, bound, qual)
        params = ["_x", *keywords, *(f"{k}=None" for k in extra)]
        return None if src is None else f"(lambda {', '.join(params)}: {src})"

    def _partial_of_function(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression | None:
        """``functools.partial(torch_fn, kw=v, ...)`` -> ``functools.partial(lambda _x, kw: ..., kw=v)``
        (keywords only; None otherwise, and the call is left to the generic path)."""
        fqual = self.qualify(original.args[0].value)
        rest = updated.args[1:]
        if fqual not in T.FUNCTIONS or any(a.keyword is None or a.star for a in rest):
            if fqual in T.FUNCTIONS:
                self.todo(T.TODO_UNMAPPED, f"functools.partial({fqual}, ...) with positional arguments is not translated")
            return None
        lam = self._function_value(fqual, [a.keyword.value for a in rest if a.keyword is not None])
        if lam is None:
            self.todo(T.TODO_UNMAPPED, f"functools.partial({fqual}, ...): keywords the translation does not take")
            return None
        return updated.with_changes(args=[cst.Arg(_expr(lam)), *rest])

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        try:
            return self._leave_call(original, updated)
        except ValueError as exc:  # a table handler produced invalid code: keep the call, say so
            self.todo(T.TODO_CONSTRUCT, f"translator error, call left as is: {exc}")
            return updated

    def _leave_call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        func = original.func
        qual = self.qualify(func)
        if (isinstance(func, cst.Attribute) and func.attr.value in _MODULE_WALKS and not original.args
                and (dotted(func.value) or "").split(".")[0] == "self"):
            # nn.Module.modules() and friends on self or a submodule: the NNX graph walk
            helper = _MODULE_WALKS[func.attr.value]
            self.helpers.add(helper)
            return _expr(f"{helper}({code(updated.func.value)})")
        if any(qual.startswith(attr + ".") for attr in _TORCH_ATTRS):  # torch.__version__.split(".")
            return updated
        if qual == "functools.partial" and original.args and id(original.args[0].value) in self._partial_funcs:
            done = self._partial_of_function(original, updated)
            if done is not None:
                return done
        if qual in ("torch.nn.Sequential", "torch.nn.modules.container.Sequential") and any(a.star for a in updated.args):
            self.helpers.add("TorchSequential")
            return updated.with_changes(func=_expr("TorchSequential"))
        try:
            args = _args(updated)
        except T.Unbindable as exc:
            return self._star_call(original, updated, qual, exc)
        last = qual.rsplit(".", 1)[-1]
        if qual.startswith("torch.nn.") and last in T.LAYERS and not qual.startswith("torch.nn.functional."):
            return self._layer(qual, T.LAYERS[last], args, updated)
        for suffix, spec in T.EXTERNAL_LAYERS.items():
            if qual == suffix or qual.endswith("." + suffix):
                return self._external_layer(suffix, spec, args, updated)
        if qual in T.CONTEXT_FUNCTIONS:
            return updated
        if qual in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
            return self._parameter(args, updated)
        if qual.startswith("torch."):
            return self._function(qual, args, updated)
        if not qual and isinstance(func, cst.Attribute):
            receiver = func.value
            method = func.attr.value
            if isinstance(receiver, cst.Call) and dotted(receiver.func) == "super" and method == "forward":
                return updated.with_changes(func=updated.func.with_changes(attr=cst.Name("__call__")))  # type: ignore[attr-defined]
            non_tensor = isinstance(receiver, cst.Call) and self.qualify(receiver.func) not in ("",) and not \
                self.qualify(receiver.func).startswith("torch.")
            if dotted(receiver) == "self" or isinstance(receiver, (cst.SimpleString, cst.FormattedString)) or non_tensor:
                if method == "forward":
                    return updated.with_changes(func=updated.func.with_changes(attr=cst.Name("__call__")))  # type: ignore[attr-defined]
                return updated
            if (isinstance(receiver, cst.Attribute) and dotted(receiver.value) == "self"
                    and receiver.attr.value in self._layer_attrs):
                return updated
            if method in T.INPLACE:
                if id(original) not in self._stmt_calls and not isinstance(receiver, cst.Call):
                    self.todo(T.TODO_STATE, f"in-place .{method}() used as a value: translated out of place")
                method = T.INPLACE[method]
            if method in T.METHODS:
                assert isinstance(updated.func, cst.Attribute)
                src = self._method(method, code(updated.func.value), updated.args)
                return _expr(src) if src is not None else updated
            row = self.ctx.api.rows.get(f"Tensor.{method}")
            if row is not None and row.jax.startswith(("jnp.", "jax.")):
                try:
                    renamed = self.ctx.api.rename(f"Tensor.{method}", [(None, code(updated.func.value))]  # type: ignore[attr-defined]
                                                  + _args(updated))
                except T.Unbindable:
                    renamed = None
                if renamed is not None:
                    return _expr(renamed)
                self.todo(T.TODO_UNMAPPED, f"Tensor.{method}: {self.ctx.api.note(f'Tensor.{method}')}")
            return updated
        return self._plumb_rngs(original, updated, qual)

    def _plumb_rngs(self, original: cst.Call, updated: cst.Call, qual: str) -> cst.Call:
        """In ``__init__``, pass ``rngs`` on: directly to stub classes and module-typed
        parameters; through ``rngs_kw`` (which checks at run time whether the callee takes
        ``rngs``) to callables only known at run time (parameters such as ``act_layer``, locals
        such as ``layer = A if cfg else B`` or ``functools.partial`` aliases, module-level
        aliases)."""
        func = original.func
        if any(a.keyword is not None and a.keyword.value == "rngs" for a in updated.args):
            return updated
        if isinstance(func, cst.Name) and func.value in self._random_funcs and self._func_stack:
            src = (self._rngs if self._rngs and self._func_stack[-1] == "__init__" else
                   "self.rngs" if self._class and self._class_uses_random else
                   "rngs" if not self._class and self._func_stack[0] in self._random_funcs else "None")
            return updated.with_changes(args=[*_commas(updated.args), cst.Arg(
                keyword=cst.Name("rngs"), value=_expr(src),
                equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                      whitespace_after=cst.SimpleWhitespace("")))])
        if not self._rngs:
            return updated
        if isinstance(func, cst.Name) and (func.value in self._builder_funcs or func.value in self.ctx.imported_builders):
            return updated.with_changes(args=[*_commas(updated.args), cst.Arg(
                keyword=cst.Name("rngs"), value=cst.Name(self._rngs),
                equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                      whitespace_after=cst.SimpleWhitespace("")))])
        is_factory = isinstance(func, cst.Name) and (func.value in self._module_params or func.value in self.ctx.targets
                                                      or func.value in self._factories_local)
        if isinstance(func, cst.Subscript) and isinstance(func.value, cst.Name):
            is_factory = func.value.value in self.ctx.class_maps
        if qual in self.ctx.stub_classes or is_factory:
            return updated.with_changes(args=[*_commas(updated.args), cst.Arg(
                keyword=cst.Name("rngs"), value=cst.Name(self._rngs),
                equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                      whitespace_after=cst.SimpleWhitespace("")))])
        name = func.value if isinstance(func, cst.Name) else ""
        dynamic = bool(name) and name not in _BUILTIN_NAMES and (
            any(name in scope for scope in self._local_names) or name in self._init_locals
            or name in self.ctx.top_assigned)
        if dynamic:
            self.helpers.add("rngs_kw")
            return updated.with_changes(args=[*_commas(updated.args), cst.Arg(
                value=_expr(f"rngs_kw({code(updated.func)}, {self._rngs})"), star="**")])
        return updated

    def _star_call(self, original: cst.Call, updated: cst.Call, qual: str, exc: Exception) -> cst.BaseExpression:
        """A call with ``*args``/``**kwargs``: torch layers go through their ``nn_<Layer>``
        factory (PyTorch's signature, so ``**dd`` binds at run time); tensor methods taking a
        variable shape (``x.view(*shape)``) are translated; any other torch call, and a known
        tensor method that cannot be bound, gets a TODO."""
        func = original.func
        last = qual.rsplit(".", 1)[-1]
        if (qual.startswith("torch.nn.") and not qual.startswith("torch.nn.functional.") and last in T.LAYERS
                and T.LAYERS[last].kind != "container"):
            self.factories.add(last)
            call = updated.with_changes(func=cst.Name(f"nn_{last}"))
            if T.LAYERS[last].kind != "module" or any(a.keyword and a.keyword.value == "rngs" for a in call.args):
                return call
            if self._rngs is None:
                self.todo(T.TODO_CONSTRUCT, f"nn.{last} built outside __init__: pass an nnx.Rngs")
            return call.with_changes(args=[*_commas(call.args), cst.Arg(
                keyword=cst.Name("rngs"), value=_expr(self._rngs or "None"),
                equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                      whitespace_after=cst.SimpleWhitespace("")))])
        if qual in _STAR_FACTORIES:  # torch.empty(*size, **dd): a helper with PyTorch's signature binds at run time
            self.helpers.add(_STAR_FACTORIES[qual])
            return updated.with_changes(func=_expr(_STAR_FACTORIES[qual]))
        if qual.startswith("torch."):
            spec = T.FUNCTIONS.get(qual)
            if spec is not None and spec.varargs and not any(a.star == "**" or a.keyword for a in updated.args):
                src = self._run(spec.handler, T.bind(spec.params, _args_of(updated.args, True), True), qual)
                if src is not None:
                    return _expr(src)
            self.todo(T.TODO_UNMAPPED, f"{qual}: {exc}")
            return updated
        if not qual and isinstance(func, cst.Attribute) and func.attr.value in T.METHODS:
            receiver = func.value
            if not (dotted(receiver) == "self" or (isinstance(receiver, cst.Attribute) and dotted(receiver.value) == "self"
                                                   and receiver.attr.value in self._layer_attrs)):
                spec = T.METHODS[func.attr.value]
                assert isinstance(updated.func, cst.Attribute)
                if spec.varargs and not any(a.star == "**" for a in updated.args):
                    src = self._run(spec.handler, _bound_self(spec, updated.args, code(updated.func.value)),
                                    f"Tensor.{func.attr.value}")
                    if src is not None:
                        return _expr(src)
                self.todo(T.TODO_UNMAPPED, f"Tensor.{func.attr.value}: {exc}: not translated")
            return updated
        return self._plumb_rngs(original, updated, qual)

    def _method(self, method: str, receiver: str, call_args: tuple[cst.Arg, ...] | list[cst.Arg]) -> str | None:
        spec = T.METHODS[method]
        try:
            bound = T.bind(spec.params, _args_of(call_args), spec.varargs)
        except T.Unbindable as exc:
            self.todo(T.TODO_UNMAPPED, f"Tensor.{method}: {exc}")
            return None
        bound.values["self"] = receiver
        self._rng_context(bound)
        return self._run(spec.handler, bound, f"Tensor.{method}")

    def _rng_context(self, bound: T.Bound) -> None:
        """Where a random draw here takes its key: ``rngs`` in ``__init__`` and in random
        helper functions, ``self.rngs`` in the other methods of a module."""
        if not self._func_stack:
            return
        if self._rngs and self._func_stack[-1] == "__init__":
            bound.values["__rngs__"], bound.values["__where__"] = self._rngs, "__init__"
        elif self._class and not self._plain and self._class_uses_random:
            bound.values["__rngs__"] = "self.rngs"
            bound.values["__where__"] = f"{self._class}.{self._func_stack[0]}"
        elif not self._class and self._func_stack[0] in self._random_funcs:
            bound.values["__rngs__"], bound.values["__where__"] = "rngs", self._func_stack[0]

    def _run(self, handler: T.Handler, bound: T.Bound, name: str) -> str | None:
        try:
            src = handler(bound)
        except KeyError as exc:
            self.todo(T.TODO_UNMAPPED, f"{name}: missing argument {exc.args[0]}")
            return None
        for code_, message in bound.todos:
            self.todo(code_, f"{name}: {message}")
        self.helpers |= bound.helpers
        return src

    def _function(self, qual: str, args: list[tuple[str | None, str]], updated: cst.Call) -> cst.BaseExpression:
        spec = T.FUNCTIONS.get(qual)
        if spec is None:
            renamed = self.ctx.api.rename(qual, args)
            if renamed is not None:
                return _expr(renamed)
            note = self.ctx.api.note(qual)
            self.todo(T.TODO_UNMAPPED, f"{qual} has no translation" + (f" ({note})" if note else ""))
            return updated
        try:
            bound = T.bind(spec.params, args, spec.varargs)
        except T.Unbindable as exc:
            self.todo(T.TODO_UNMAPPED, f"{qual}: {exc}")
            return updated
        self._rng_context(bound)
        src = self._run(spec.handler, bound, qual)
        return _expr(src) if src is not None else updated

    def _layer(self, qual: str, spec: T.LayerSpec, args: list[tuple[str | None, str]],
               updated: cst.Call) -> cst.BaseExpression:
        name = qual.rsplit(".", 1)[-1]
        params = tuple(p for p, _ in spec.params)
        try:
            bound = T.bind(params, args, varargs=spec.kind == "container" and name == "Sequential")
        except T.Unbindable as exc:
            self.todo(T.TODO_UNMAPPED, f"nn.{name}: {exc}")
            return updated
        rngs = self._rngs
        if spec.kind == "module" and rngs is None:
            self.todo(T.TODO_CONSTRUCT, f"nn.{name} built outside __init__: pass an nnx.Rngs")
            rngs = "nnx.Rngs(0)"
        try:
            src = spec.handler(bound, rngs or "rngs")
        except KeyError as exc:
            self.todo(T.TODO_UNMAPPED, f"nn.{name}: missing argument {exc.args[0]}")
            return updated
        for code_, message in bound.todos:
            self.todo(code_, f"nn.{name}: {message}")
        self.helpers |= bound.helpers
        return _expr(src)

    def _external_layer(self, key: str, spec: T.LayerSpec, args: list[tuple[str | None, str]],
                        updated: cst.Call) -> cst.BaseExpression:
        if spec.kind == "einops":
            self.uses_einops = True
            fn = "einops.rearrange" if key.endswith("Rearrange") else "einops.reduce"
            pos = [src for kw, src in args if kw is None]
            kws = [f"{kw}={src}" for kw, src in args if kw is not None]
            names = ["pattern", "reduction"][: len(pos)]
            parts = [f"{n}={s}" for n, s in zip(names, pos)] + kws
            return _expr(f"functools.partial({fn}, {', '.join(parts)})")
        try:
            bound = T.bind(tuple(p for p, _ in spec.params), args, False)
        except T.Unbindable as exc:
            self.todo(T.TODO_UNMAPPED, f"{key}: {exc}")
            return updated
        src = spec.handler(bound, self._rngs or "rngs")
        self.helpers |= bound.helpers
        return _expr(src)

    def _parameter(self, args: list[tuple[str | None, str]], updated: cst.Call) -> cst.BaseExpression:
        try:
            bound = T.bind(("data", "requires_grad"), args, False)
        except T.Unbindable as exc:
            self.todo(T.TODO_UNMAPPED, f"nn.Parameter: {exc}")
            return updated
        if bound.lit("requires_grad", True) is not True:
            self.todo(T.TODO_SEMANTICS, "nn.Parameter(requires_grad=False): nnx.Param is trainable; filter it "
                      "out of the optimizer or make it a Buffer")
        return _expr(f"nnx.Param({bound.get('data', 'jnp.zeros(())')})")

    # ----------------------------------------------------------------- assignments in __init__
    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._assign_targets.add(id(node.target))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._assign_targets.add(id(node.target))
        if self._class and self._func_stack and self._func_stack[-1] == "__init__":
            self._record_attr(node.target, node.value)

    def _record_attr(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        if not (isinstance(target, cst.Attribute) and dotted(target.value) == "self") or value is None:
            return
        if isinstance(value, cst.Name) and value.value == "None":
            self._none_attrs.add(target.attr.value)
        elif isinstance(value, cst.Call) and self.qualify(value.func) in ("torch.nn.Parameter",
                                                                            "torch.nn.parameter.Parameter"):
            self._param_attrs.add(target.attr.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        if not self._class and len(self._func_stack) == 1 and self._func_stack[0] in self._builder_funcs:
            for t in node.targets:
                self._init_locals |= set(_target_names(t.target))
            return
        if not (self._class and self._func_stack and self._func_stack[-1] == "__init__"):
            return
        for t in node.targets:
            for n in _target_names(t.target):
                self._init_locals.add(n)
        for t in node.targets:
            self._record_attr(t.target, node.value)
            if isinstance(t.target, cst.Name) and names_in(node.value) & self.ctx.targets:
                self._factories_local.add(t.target.value)
        value = node.value
        if isinstance(value, cst.Call):
            qual = self.qualify(value.func)
            last = qual.rsplit(".", 1)[-1]
            if qual.startswith("torch.nn.") and last in T.LAYERS and T.LAYERS[last].kind == "module":
                for t in node.targets:
                    if isinstance(t.target, cst.Attribute) and dotted(t.target.value) == "self":
                        self._layer_attrs[t.target.attr.value] = last
        kind = self._layer_list_kind(value)
        for t in node.targets:
            if kind and isinstance(t.target, cst.Attribute) and dotted(t.target.value) == "self":
                self._layer_list_attrs[t.target.attr.value] = kind
            elif isinstance(t.target, cst.Name):
                if kind:
                    self._local_layer_lists[t.target.value] = kind
                else:
                    self._local_layer_lists.pop(t.target.value, None)

    def _layer_list_kind(self, value: cst.BaseExpression) -> str:
        """The one torch layer class a list expression holds (``[nn.Embedding(1, d) for _ in
        range(n)]``, ``[nn.Linear(a, b), nn.Linear(b, c)]``, ``nn.ModuleList(...)`` of one, an
        ``__init__`` local bound to one), else ""."""
        if isinstance(value, cst.Name):
            return self._local_layer_lists.get(value.value, "")
        if isinstance(value, cst.Call) and self.qualify(value.func) in ("torch.nn.ModuleList", "list") and value.args:
            return self._layer_list_kind(value.args[0].value)
        elts: list[cst.BaseExpression] = []
        if isinstance(value, cst.ListComp):
            elts = [value.elt]
        elif isinstance(value, (cst.List, cst.Tuple)):
            elts = [e.value for e in value.elements if isinstance(e, cst.Element)]
        kinds = set()
        for e in elts:
            if not isinstance(e, cst.Call):
                return ""
            qual = self.qualify(e.func)
            last = qual.rsplit(".", 1)[-1]
            if not (qual.startswith("torch.nn.") and last in T.LAYERS and T.LAYERS[last].kind == "module"):
                return ""
            kinds.add(last)
        return kinds.pop() if len(kinds) == 1 else ""


def _nnx_weight(kind: str, owner: str) -> cst.BaseExpression | None:
    """``<owner>.weight`` of a torch layer of class ``kind`` as its NNX twin names it
    (``Embed.embedding``, a norm's ``scale``, ``Linear.kernel.T``), None for other layers."""
    if kind == "Embedding":
        return _expr(f"{owner}.embedding")
    if kind in ("LayerNorm", "GroupNorm", "RMSNorm") or kind.startswith("BatchNorm"):
        return _expr(f"{owner}.scale")
    if kind == "Linear":
        return _expr(f"{owner}.kernel.T")
    return None


def _is_mask_expr(expr: cst.BaseExpression) -> bool:
    """A boolean mask written as such: a comparison (``labels == -1``), ``~``/``&``/``|`` of
    masks, or ``torch.isnan``/``isinf``/``logical_*`` calls."""
    if isinstance(expr, cst.Comparison):
        return all(isinstance(c.operator, (cst.Equal, cst.NotEqual, cst.LessThan, cst.LessThanEqual,
                                           cst.GreaterThan, cst.GreaterThanEqual)) for c in expr.comparisons)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.BitInvert):
        return _is_mask_expr(expr.expression)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.BitAnd, cst.BitOr)):
        return _is_mask_expr(expr.left) and _is_mask_expr(expr.right)
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and \
            expr.func.attr.value in ("isnan", "isinf", "logical_not", "logical_and", "logical_or"):
        return True
    return False


def _target_names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for el in target.elements for n in _target_names(el.value)]
    return []


def top_level_names(stmt: cst.CSTNode) -> list[str]:
    """Every name a top-level statement binds, in order: a class, function or assignment, and
    the assignments and definitions inside a top-level ``if``/``try`` (``if ENV: X = 1 else:
    X = 0``)."""
    first = top_level_name(stmt)
    if first:
        return [first]
    out: list[str] = []
    if isinstance(stmt, (cst.If, cst.Try)):
        blocks: list[cst.BaseSuite] = [stmt.body]
        if isinstance(stmt, cst.If):
            orelse = stmt.orelse
            while orelse is not None:
                blocks.append(orelse.body)
                orelse = orelse.orelse if isinstance(orelse, cst.If) else None
        else:
            blocks += [h.body for h in stmt.handlers]
            if stmt.orelse is not None:
                blocks.append(stmt.orelse.body)
        for block in blocks:
            for inner in getattr(block, "body", ()):
                for name in top_level_names(inner):
                    if name not in out:
                        out.append(name)
    return out


def top_level_name(stmt: cst.CSTNode) -> str:
    """The name a top-level statement defines (class, function, first assignment target), or ""."""
    if isinstance(stmt, (cst.ClassDef, cst.FunctionDef)):
        return stmt.name.value
    if isinstance(stmt, cst.SimpleStatementLine):
        for small in stmt.body:
            if isinstance(small, cst.Assign):
                for t in small.targets:
                    if isinstance(t.target, cst.Name):
                        return t.target.value
            if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                return small.target.value
    return ""


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _literal(node: cst.BaseExpression) -> object:
    try:
        return ast.literal_eval(code(node))
    except (ValueError, SyntaxError):
        return _NOT_LITERAL


_NOT_LITERAL = object()


def _is_docstring(stmt: cst.BaseStatement) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)
            and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))


def _ensure_body(node: cst.CSTNodeT) -> cst.CSTNodeT:
    body = getattr(node, "body", None)
    if isinstance(body, cst.IndentedBlock) and not body.body:
        return node.with_changes(body=body.with_changes(body=[cst.SimpleStatementLine(body=[cst.Pass()])]))  # type: ignore[attr-defined, no-any-return]
    return node


def _args_of(call_args: tuple[cst.Arg, ...] | list[cst.Arg], star_ok: bool = False) -> list[tuple[str | None, str]]:
    """(keyword or None, source) pairs; ``*x`` is kept as the positional source ``*x`` when
    ``star_ok`` (a varargs parameter takes it), else :class:`~tables.Unbindable`."""
    out: list[tuple[str | None, str]] = []
    for a in call_args:
        if a.star and not (star_ok and a.star == "*"):
            raise T.Unbindable(f"star argument {a.star}{code(a.value)}")
        out.append((a.keyword.value if a.keyword is not None else None, f"{a.star}{code(a.value)}"))
    return out


def _bound_self(spec: T.Spec, call_args: tuple[cst.Arg, ...] | list[cst.Arg], receiver: str) -> T.Bound:
    bound = T.bind(spec.params, _args_of(call_args, True), spec.varargs)
    bound.values["self"] = receiver
    return bound


#: Python builtins: calls to them never take ``rngs``.
_BUILTIN_NAMES: frozenset[str] = frozenset(dir(__import__("builtins")))


def _args(call: cst.Call) -> list[tuple[str | None, str]]:
    return _args_of(call.args)


def _commas(args: tuple[cst.Arg, ...] | list[cst.Arg]) -> list[cst.Arg]:
    out = list(args)
    if out and out[-1].comma is cst.MaybeSentinel.DEFAULT:
        out[-1] = out[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return out


class _Calls(cst.CSTVisitor):
    """The callees (``Call.func``) and the assigned local names of one function."""

    def __init__(self) -> None:
        self.funcs: list[cst.BaseExpression] = []
        self.assigned: set[str] = set()

    def visit_Call(self, node: cst.Call) -> None:
        self.funcs.append(node.func)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.assigned |= set(_target_names(node.target))


def builder_funcs(module: cst.Module, aliases: Aliases, targets: set[str], stub_classes: set[str],
                  imported: frozenset[str] = frozenset()) -> set[str]:
    """Top-level functions of the file that build layers: they call a torch.nn layer that holds
    parameters, a translated class, a parameter or local variable (``act_layer =
    get_act_layer(name); act_layer(**kwargs)``), another such function of the file, or one of
    ``imported`` (local names of such functions in other files). In the stub they take
    ``rngs=None`` and pass it on; their callers in ``__init__`` pass ``rngs``."""
    funcs = {s.name.value: s for s in module.body if isinstance(s, cst.FunctionDef)}
    direct: set[str] = set()
    callees: dict[str, set[str]] = {}
    for name, fn in funcs.items():
        params = {p.name.value for p in [*fn.params.params, *fn.params.kwonly_params, *fn.params.posonly_params]}
        calls = _Calls()
        fn.body.visit(calls)
        callees[name] = set()
        for f in calls.funcs:
            qual = aliases.resolve(f)
            last = qual.rsplit(".", 1)[-1]
            if isinstance(f, cst.Name) and f.value in funcs:
                callees[name].add(f.value)
            elif ((isinstance(f, cst.Name) and (f.value in params or f.value in calls.assigned or f.value in targets
                                                 or f.value in imported))
                    or (qual.startswith("torch.nn.") and last in T.LAYERS and T.LAYERS[last].kind == "module")
                    or qual in stub_classes):
                direct.add(name)
    builders = set(direct)
    changed = True
    while changed:
        changed = False
        for name, called in callees.items():
            if name not in builders and called & builders:
                builders.add(name)
                changed = True
    return builders


def random_funcs(module: cst.Module, imported: frozenset[str] = frozenset()) -> set[str]:
    """Top-level functions of the file that draw random numbers (:data:`_RANDOM_RE`), or call
    such a function of the file or one of ``imported`` (local names of random functions of other
    files, timm's ``trunc_normal_``): in the stub they take ``rngs=None`` and callers pass theirs."""
    funcs = {s.name.value: code(s) for s in module.body if isinstance(s, cst.FunctionDef)}
    found = {n for n, src in funcs.items() if _RANDOM_RE.search(src)}
    changed = True
    while changed:  # helpers calling a random helper draw too
        changed = False
        for n, src in funcs.items():
            if n not in found and any(re.search(rf"\b{re.escape(r)}\s*\(", src) for r in found | imported):
                found.add(n)
                changed = True
    return found


def run_translator(module: cst.Module, ctx: FileContext, aliases: Aliases,
                   local_defs: set[str]) -> tuple[cst.Module, _Translator]:
    """Apply the translator to a whole parsed file; the caller picks the statements to emit."""
    translator = _Translator(ctx, aliases, local_defs)
    translator._random_funcs = random_funcs(module, frozenset(ctx.imported_random)) | ctx.imported_random
    translator._builder_funcs = builder_funcs(module, aliases, ctx.targets, ctx.stub_classes,
                                              frozenset(ctx.imported_builders))
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    return wrapper.visit(translator), translator
