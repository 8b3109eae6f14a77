"""Writes of state that outlives a call (a mixin of :class:`~.visitor.FileVisitor`):
``self.<attr> = ...`` (:meth:`_self_write`), subscript stores into tensors, tables and
caches (:meth:`_subscript_write`), memo caches recomputed on a key change, caches grown by
concatenation (:meth:`_growth`), ``.data`` writes and random-state draws. Called from the
assignment visits (:mod:`.assignments`) and from calls of mutating methods
(:mod:`.calls`). The helpers only these writes use are here too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Callable

import libcst as cst

from migrate_lens.analysis import kinds as K
from migrate_lens.analysis.bindings import STRING_NODES, is_class_like, merge, names_in_target
from migrate_lens.analysis.bindings import dotted as _dotted
from migrate_lens.analysis.bindings import is_dict_call as _is_dict_call
from migrate_lens.analysis.sites import NOT_LITERAL
from migrate_lens.analysis.values import literal
from migrate_lens.models import InjectionFact, SubmoduleFact
from migrate_lens.analysis.cache_queries import _cache_item_length, _is_cache_length
from migrate_lens.analysis.cst_queries import numpy_value
from migrate_lens.analysis.cst_queries import (
    _alternatives, _arg_texts, _bound_texts, _is_inplace_method, _is_self_attr, _key_attr, _key_comparisons,
    _reads_self_attrs, _rng_module, _root_name, _storage_of,
)
from migrate_lens.analysis.vocabulary import _STATE_NAME
from migrate_lens.analysis.walk import child_nodes

if TYPE_CHECKING:
    from migrate_lens.analysis.scopes import _ClassInfo, _FuncScope

#: Parameter names of mappings, not tensors (a load hook's ``state_dict``, ``**kwargs``, configs,
#: the ``destination`` mapping ``nn.Module._save_to_state_dict`` fills).
_MAPPING_PARAM = re.compile(r"(dict|kwargs|config|cfg|memo|info|meta|logs?|destination)$")


class StateWritesMixin:
    """The visitor's writes of state that outlives a call: ``self`` attributes, subscript
    stores, memo caches, growing caches and random-state draws."""

    def _is_tensor_mapping(self, ann: cst.BaseExpression) -> bool:
        """``ann`` is ``Dict[str, torch.Tensor]`` / ``dict[str, Tensor]`` / ``Mapping[str,
        Tensor]`` (also inside ``Optional[...]``)."""
        if type(ann) is not cst.Subscript:
            return False
        outer = self.qual(ann.value) or (ann.value.value if type(ann.value) is cst.Name else "")
        if outer in ("typing.Optional", "Optional") and len(ann.slice) == 1 and type(ann.slice[0].slice) is cst.Index:
            return self._is_tensor_mapping(ann.slice[0].slice.value)
        if outer not in ("typing.Dict", "dict", "typing.Mapping", "collections.abc.Mapping", "Dict", "Mapping",
                         "typing.MutableMapping") or len(ann.slice) != 2:
            return False
        value = ann.slice[1].slice
        if type(value) is not cst.Index:
            return False
        v = value.value
        name = self.qual(v) or (v.value if type(v) is cst.Name else "")
        return name in K.TENSOR_TYPE_NAMES or name in ("Tensor", "FloatTensor", "LongTensor")

    def _dict_entry_kinds(self, value: cst.BaseExpression) -> dict[str, cst.BaseExpression] | None:
        """Key -> value expression of a dict display with string keys (``{"loss": l, "n": k}``)
        or a ``dict(loss=l, n=k)`` call; None for anything else (a ``**`` entry: unknown keys)."""
        if type(value) is cst.Dict:
            out: dict[str, cst.BaseExpression] = {}
            for el in value.elements:
                if type(el) is not cst.DictElement:
                    return None
                key = literal(el.key)
                if type(key) is not str:
                    return None
                out[key] = el.value
            return out
        if type(value) is cst.Call and type(value.func) is cst.Name and value.func.value == "dict" and \
                self.qual(value.func) == "dict" and all(a.keyword is not None and not a.star for a in value.args):
            return {a.keyword.value: a.value for a in value.args}  # type: ignore[union-attr]
        return None

    def _string_key(self, index: cst.BaseExpression, depth: int = 2, loop_keys: bool = True) -> bool:
        """``index`` is a string: a literal, an f-string, a concatenation with a string literal
        (``prefix + "weight"``), a loop variable over a mapping's keys (``for key in
        sd.keys()``, ``for key, v in sd.items()``; with ``loop_keys``), or a local name last bound to one (``new_key =
        prefix + key; state_dict[new_key] = ...``: a mapping's key, no tensor index)."""
        t = type(index)
        if t in STRING_NODES or t is cst.FormattedString:
            return True
        if t is cst.BinaryOperation and type(index.operator) is cst.Add:
            return self._string_key(index.left, 0, loop_keys) or self._string_key(index.right, 0, loop_keys)
        if t is cst.Name and self.func_stack:
            if loop_keys and index.value in self.func_stack[-1].key_names:
                return True  # `for key in sd.keys(): sd[prefix + key] = ...`: a mapping's key
            if depth > 0:
                bound = self.func_stack[-1].last_value.get(index.value)
                return bound is not None and self._string_key(bound, depth - 1, loop_keys)
        return False

    def _constant_base(self, target: cst.Subscript, vkind: str, mask: bool) -> bool:
        """An item assignment of a static value at a static index into a local tensor built
        from static values only, with only static values written into it so far (``t =
        torch.zeros(n); t[i] = 0.5``): a constant built item by item. Static for certain: no
        kind here rests on an assumption about the function's inputs (``torch.zeros(b,
        lens.max())`` of a parameter only callers type is no constant). Remembers a local that
        takes data instead."""
        base = target.value
        if not self.func_stack or type(base) is not cst.Name:
            return False
        scope = self.func_stack[-1]
        if mask or vkind != K.S:
            scope.data_written.add(base.value)
            return False
        if base.value in scope.data_written:
            return False
        saved = self.values.set_aside()
        try:
            parts = [p for el in target.slice for p in (
                (el.slice.lower, el.slice.upper, el.slice.step) if type(el.slice) is cst.Slice
                else (el.slice.value,)) if p is not None]
            static = all(self.kind(p) == K.S for p in parts) and self._constant_tensor(base)
            return static and not self.values.used and not self.values.assumed_read
        finally:
            self.values.restore(saved)

    def _optimizer_hyperparameter(self, target: cst.Subscript) -> str:
        """The hyperparameter a subscript write sets in an optimizer's parameter group, else "":
        ``g["lr"] = lr`` in ``for g in optimizer.param_groups:``, ``optimizer.param_groups[0]["lr"]
        = lr`` (a hand-written schedule, which optax expresses as a schedule or injected
        hyperparameter)."""
        if len(target.slice) != 1 or type(target.slice[0].slice) is not cst.Index:
            return ""
        key = literal(target.slice[0].slice.value)  # type: ignore[attr-defined]
        if type(key) is not str:
            return ""
        root = target.value
        if type(root) is cst.Name:
            groups = self.func_stack[-1].opt_groups if self.func_stack else self.script_opt_groups
            return key if root.value in groups else ""
        if type(root) is cst.Subscript and type(root.value) is cst.Attribute and \
                root.value.attr.value == "param_groups":
            return key
        return ""

    def _subscript_write(self, stmt: cst.CSTNode, target: cst.Subscript, base: str, vkind: str,
                         aug: bool, value: cst.BaseExpression | None = None) -> None:
        if self.func_stack and type(target.value) is cst.Name and target.value.value == self.func_stack[-1].star_kwargs \
                and len(target.slice) == 1 and type(target.slice[0].slice) is cst.Index:
            key = literal(target.slice[0].slice.value)
            if type(key) is str:
                self.func_stack[-1].kwargs_written.add(key)
        if vkind in K.TENSORISH and _is_self_attr(target.value) and self.func_stack and \
                self.func_stack[-1].cls is not None and base not in K.TENSORISH and not aug and len(target.slice) == 1 \
                and type(target.slice[0].slice) is cst.Index:
            self.func_stack[-1].cls.tensor_entries.add(target.value.attr.value)  # type: ignore[attr-defined]
        mask = self._index_has_mask(target)
        # a select (`x[x < 0] = 0`, `out[m] = inp[m]`): `jnp.where(mask, v, x)` writes it
        # (or a tensor held on self, built before this mask: `h[mask] = self.mask_embed.to(h.dtype)`
        # broadcasts it, `jnp.where(mask[..., None], self.mask_embed, h)`)
        select = vkind == K.S or (value is not None and (
            _same_mask_read(value, target) or bool(_self_table(value))))
        # (a mapping's loop keys index a tensor too when the target is one: `mapping[k] = v` over
        # `dict.items()` with int keys into `torch.zeros(...)`)
        loop_keys = base not in K.TENSORISH or (  # (or a tensor by the module-method assumption alone)
            type(target.value) is cst.Name and bool(self.func_stack) and target.value.value in self.func_stack[-1].assumed)
        keyed = any(type(el.slice) is cst.Index and self._string_key(el.slice.value, loop_keys=loop_keys)
                    for el in target.slice)
        if keyed:
            hyper = self._optimizer_hyperparameter(target)
            if hyper:
                self._site("optimizer-write", stmt, name=hyper, data={"aug": aug})
        root = target.value
        if type(root) is cst.Name and (keyed or (base not in K.TENSORISH and not mask)) and self.func_stack and \
                root.value in self.func_stack[-1].params and not self.func_stack[-1].init_like and \
                _STATE_NAME.search(root.value) is not None:
            # `incremental_state[key] = saved`: an entry written into the caller's decoding cache
            # or state mapping, as `.update(...)` would (a per-call container a parent forward
            # builds and reads back, `features["pair"] = ...`, is trace-time Python, not state)
            # (a mapping parameter otherwise named, `outputs["logits"] = ...`, is most often one its
            # caller builds for the call: a module's call records no flow to prove it, so it is left)
            self._site("argument-write", stmt, name=f"{root.value}[...] = ...",
                       data={"how": "argument", "method": "__setitem__"})
        elif type(root) is cst.Name and (keyed or (base not in K.TENSORISH and not mask)) and self.func_stack and \
                root.value in self.func_stack[-1].state_views and not self.func_stack[-1].init_like:
            # `saved_state = self._get_input_buffer(incremental_state)` then `saved_state["prev_key"]
            # = k`: an entry of the caller's decoding state, reached through a helper (fairseq)
            self._site("argument-write", stmt, name=f"{root.value}[...] = ...",
                       data={"how": "argument", "method": "__setitem__"})
        elif type(root) is cst.Attribute and type(root.value) is cst.Name and self.func_stack and \
                root.value.value in self.func_stack[-1].params and root.value.value not in ("self", "cls", "ctx") \
                and not self.func_stack[-1].init_like and base not in K.TENSORISH and not mask and (
                    _STATE_NAME.search(root.value.value) is not None or _STATE_NAME.search(root.attr.value) is not None):
            # `inference_params.key_value_memory_dict[self.layer_idx] = (conv_state, ssm_state)`:
            # an entry of a cache the caller's object holds (Mamba's decoding state), as
            # `past_key_values.update(...)` writes one
            self._site("argument-write", stmt, name=f"{root.value.value}.{root.attr.value}[...] = ...",
                       data={"how": "argument", "method": "__setitem__"})
        if keyed:
            base = K.U  # `out["logits"] = x`: a tensor takes no string index, the object is a mapping
        elif base == K.U and mask and not self._numpy_base(target.value):
            base = K.T  # only arrays take a boolean-mask index (a NumPy array too: `y[~np.isnan(y)] = 0`)
        self._site("subscript-assign", stmt, receiver=base, data={
            "aug": aug, "mask": mask, "value": vkind, "base_is_self": _is_self_attr(target.value),
            "no_grad": self._no_grad(), "select": select,
            # `t = torch.zeros(n); t[idx] = 0.5` with static values only: a constant built item by
            # item (NumPy's job outside a trace)
            "constant_base": self._constant_base(target, vkind, mask),
        })
        if not mask and not keyed and self.func_stack:
            # under the callers' kinds: `usage[codes] += 1` in a helper whose `usage` a caller
            # hands a tensor (a buffer), an in-place write; `outputs[outside] = inputs[outside]`
            # with `outside` from the helper's parameters, a boolean-mask write (nflows' splines)
            variants: list[tuple[str, str, bool]] = []
            if base == K.U and self.func_stack[-1].symbolic:
                variants += [(req, k, False) for req, k in self._fresh_variants(lambda: self.kind(target.value))[1]
                             if k in K.TENSORISH]
            variants += [(req, K.T, True) for req, held in self._fresh_variants(lambda: self._index_has_mask(target))[1]
                         if held]
            for req, k, masked in variants:
                self._site("subscript-assign", stmt, receiver=k, data={
                    "aug": aug, "mask": masked, "value": vkind, "base_is_self": _is_self_attr(target.value),
                    "no_grad": self._no_grad(), "select": select,
                }, requires=(req,))
        if not mask and any(type(el.slice) is cst.Slice and (el.slice.lower is not None or el.slice.upper is not None)
                            for el in target.slice):
            # `m[i, start[j]:end[j]] = 0` with bounds from tensor values: the written window's
            # length is data-dependent, as for a read (jax: "Slice entries must be static
            # integers", IndexError under jit, checked in jax 0.10)
            held_now, variants = self._fresh_variants(lambda: self._store_window(target))
            if held_now:
                self._site("subscript-read", target, receiver=base, data={"mask": False, "host_bound": True})
            else:
                for req, held in variants:
                    if held:
                        self._site("subscript-read", target, receiver=K.T, data={"mask": False, "host_bound": True},
                                   requires=(req,))
        self._state_write(stmt, target.value, "subscript", vkind)
        self._view_write(stmt, target.value)
        if base in K.TENSORISH or (base == K.U and any(  # an unknown base sliced like an array
                type(el.slice) is cst.Slice or (type(el.slice) is cst.Index and type(el.slice.value) is cst.Ellipsis)
                for el in target.slice)):
            self._arg_write(stmt, target.value, "[...] += " if aug else "[...] = ")

    def _store_window(self, target: cst.Subscript) -> bool:
        """A tensor written through a slice bounded by tensor values (both asked, so that the
        symbolic inputs of each are consulted)."""
        base = self.kind(target.value) in K.TENSORISH
        bound = self._index_has_host_value(target)
        return base and bound

    def _memo_attrs(self, node: cst.If) -> frozenset[str]:
        """The ``self`` attributes the body of ``node`` assigns when its test compares an
        attribute of ``self`` with a static value (``if seq_len != self._seq_len_cached or
        self._cos_cached.device != x.device:``, ``if n > self.max_seq_len_cached:``): a table
        cached on the module and rebuilt when a static key changes (rotary cos/sin tables). A
        test on tensor values, or only against None (``if self.k is None:``, a cache that may
        grow with data), opens none."""
        keyed = any(_key_attr(x) for sides in _key_comparisons(node.test) for x in sides)
        if not keyed:
            return frozenset()
        self._fresh()
        if self.kind(node.test) in K.VALUE_KINDS:
            return frozenset()
        attrs: set[str] = set()
        for stmt in node.body.body:
            if type(stmt) is cst.SimpleStatementLine:
                for small in stmt.body:
                    if type(small) is cst.Assign:
                        for tgt in small.targets:
                            for el in (tgt.target.elements if type(tgt.target) is cst.Tuple else (tgt.target,)):
                                v = el.value if type(el) is cst.Element else el
                                if _is_self_attr(v):
                                    attrs.add(v.attr.value)  # type: ignore[union-attr]
        return frozenset(attrs)

    def _memo_hit(self, node: cst.If) -> frozenset[str]:
        """The ``self`` attributes of a memo cache whose hit ``node`` returns early: its body
        ends in ``return`` of a table on ``self`` (``self.cached_freqs[offset:offset + n]``,
        through slices and ``.detach()``/``.to()``-like calls) and its test compares a key read
        off ``self`` (``self.n``, ``self.t.size(0)``, ``self.cached_len.item()``) with anything
        but None: the table and the keys (rotary-embedding-torch's ``RotaryEmbedding.forward``:
        ``if should_cache and (offset + seq_len) <= self.cached_freqs_seq_len.item(): return
        self.cached_freqs[offset:offset + seq_len].detach()``, then ``self.cached_freqs[:seq_len]
        = freqs.detach()`` further down). Writes to them later in the function are the cache's
        fill (``memo``): a port computes the table in the call. Empty for anything else (a KV
        cache tested only against None, a return of a fresh value)."""
        scope = self.func_stack[-1]
        if scope.cls is None or type(node.body) is not cst.IndentedBlock or not node.body.body:
            return frozenset()
        last = node.body.body[-1]
        if type(last) is not cst.SimpleStatementLine or type(last.body[-1]) is not cst.Return:
            return frozenset()
        table = _self_table(last.body[-1].value)  # type: ignore[attr-defined]
        if not table:
            return frozenset()
        keys: set[str] = set()
        for sides in _key_comparisons(node.test):
            found: list[str] = []
            others: list[cst.BaseExpression] = []
            for x in sides:
                key = _key_attr(x)
                if key:
                    found.append(key)
                else:
                    others.append(x)
            # the key is compared with what the call is asked for (a length, an offset),
            # never with data (`x.sum() > self.threshold`) nor only with other state
            self._fresh()
            if found and others and not any(self.kind(x) in K.TENSORISH or self.kind(x) in K.VALUE_KINDS
                                            for x in others):
                keys.update(found)
        return frozenset({table, *keys}) if keys else frozenset()

    def _is_memo(self, attr: str) -> bool:
        """Whether a write to ``self.<attr>`` here fills a memo cache: in the body of an ``if``
        keyed on a static value (:meth:`_memo_attrs`), or after the cache's early-return hit
        (:meth:`_memo_hit`)."""
        if not self.func_stack:
            return False
        scope = self.func_stack[-1]
        return scope.memo_filler or attr in scope.memo_hits or any(attr in m for m in scope.memo_attrs)

    def _state_write(self, stmt: cst.CSTNode, target: cst.BaseExpression, how: str, vkind: str) -> None:
        """A mutation of ``self.<attr>`` (or of what it holds) outside init code; through its
        ``.data`` too (``self.embed.data.copy_(e)`` writes the buffer's storage)."""
        target = _storage_of(target)
        if how in ("subscript", "container"):
            while type(target) is cst.Subscript:  # `self.state[p]["z"] = v`: an entry of an entry
                target = target.value
        if type(target) is cst.Name and self.func_stack:
            # `k_out = self.k_cache; k_out[:, :, pos] = k_val`: the write goes to the buffer
            target = self.func_stack[-1].self_aliases.get(target.value, target)
        if not _is_self_attr(target) or self.context == "init" or self._constructing():
            return
        assert type(target) is cst.Attribute
        cls = self.func_stack[-1].cls if self.func_stack else None
        attr = target.attr.value
        memo = self._is_memo(attr)
        self._site("self-write", stmt, name=attr, data={
            "how": how, "value": vkind, "aug": how == "aug", "memo": memo,
            "is_buffer": bool(cls and attr in cls.buffers),
            "attr_kind": cls.attr_kinds.get(attr, K.S) if cls else K.U,
            "module_class": bool(cls and cls.is_module),
            "optimizer_class": bool(cls and cls.is_optimizer),
        })

    def _view_write(self, stmt: cst.CSTNode, target: cst.BaseExpression) -> None:
        """An in-place write through a name bound to a view of another tensor (PyTorch
        mutates the base tensor too; a JAX port silently does not). A view written in the
        same expression it is taken (``x.narrow(d, s, n).copy_(r)``, ``x.view(-1)[0] = 1``)
        names its base at the write: the port rewrites it as ``x = x.at[...].set(...)``
        like any in-place write (ML301/ML304), with no second name to fall out of step."""
        if not self.func_stack:
            return
        while type(target) is cst.Subscript:  # `row[:n].copy_(t)`: a slice of a view is one too
            target = target.value
        if type(target) is cst.Name:
            src = self.func_stack[-1].views.get(target.value, "")
            if src:
                self._site("view-write", stmt, name=src)

    def _holds_tensors(self, value: cst.BaseExpression, item: bool = False) -> bool:
        """Whether ``value`` is a Python container of tensors: a list/tuple/dict display with a
        tensor element, a comprehension of tensors, ``list(...)`` of one, a local name bound
        to one (``pyramid = [corr]`` then ``pyramid.append(corr)``), or a ``torch.distributions``
        object built from tensors (``Normal(mean, std)``: its parameters are traced values).
        With ``item``, a tensor itself counts (the argument of ``append``)."""
        t = type(value)
        if item and self.kind(value) in K.TENSORISH:
            return True
        if t is cst.Name:
            return bool(self.func_stack) and value.value in self.func_stack[-1].tensor_lists  # type: ignore[attr-defined]
        if t in (cst.List, cst.Tuple, cst.Set):
            return any(type(e) is not cst.StarredElement and self._holds_tensors(e.value, item=True)
                       for e in value.elements)  # type: ignore[attr-defined]
        if t is cst.Dict:
            return any(type(e) is cst.DictElement and self._holds_tensors(e.value, item=True)
                       for e in value.elements)  # type: ignore[attr-defined]
        if t in (cst.ListComp, cst.GeneratorExp, cst.DictComp):
            return self.values.element_kind(value) in K.TENSORISH  # type: ignore[arg-type]
        if t is cst.Call and type(value.func) is cst.Name and value.func.value in ("list", "tuple") and \
                value.args:  # type: ignore[attr-defined]
            return self._holds_tensors(value.args[0].value)  # type: ignore[attr-defined]
        if t is cst.Call and self.qual(value.func).startswith("torch.distributions.") and any(  # type: ignore[attr-defined]
                self.kind(a.value) in K.TENSORISH for a in value.args):  # type: ignore[attr-defined]
            return True  # `Normal(mean, std)`, `Categorical(logits=l)`: an object holding those tensors
        return False

    def _mentions_cache_length(self, value: cst.BaseExpression) -> bool:
        """Whether ``value`` is computed from a cache's length (``cache.get_seq_length()``, a
        name bound to one, arithmetic on those; either branch of ``a if c else 0``)."""
        names = self.func_stack[-1].cache_lengths if self.func_stack else set()
        stack = [value]
        while stack:
            e = stack.pop()
            t = type(e)
            if t is cst.Name:
                if e.value in names:  # type: ignore[attr-defined]
                    return True
            elif t is cst.Subscript:
                if _cache_item_length(e) or self._grown_length(e):
                    return True
            elif t is cst.Call:
                if _is_cache_length(e) or _cache_item_length(e) or self._grown_length(e):  # type: ignore[arg-type]
                    return True
                if type(e.func) is cst.Name and e.func.value in ("int", "max", "min") :  # type: ignore[attr-defined]
                    stack += [a.value for a in e.args]  # type: ignore[attr-defined]
            elif t is cst.BinaryOperation:
                stack += (e.left, e.right)  # type: ignore[attr-defined]
            elif t is cst.IfExp:
                stack += (e.body, e.orelse)  # type: ignore[attr-defined]
        return False

    def _grown_length(self, node: cst.BaseExpression) -> bool:
        """``k.shape[-2]`` / ``k.size(-2)`` of a local grown from a cache by concatenation
        (:attr:`_FuncScope.cache_grown`: ``k = torch.cat((ck, k), dim=-2)`` with ``ck, cv =
        cache.cached_kv``): the cache's length after this step's tokens."""
        grown = self.func_stack[-1].cache_grown if self.func_stack else None
        if not grown:
            return False
        if type(node) is cst.Subscript and type(node.value) is cst.Attribute and node.value.attr.value == "shape":
            held = node.value.value
        elif type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "size" and node.args:
            held = node.func.value
        else:
            return False
        return type(held) is cst.Name and held.value in grown

    def _grows_cache(self, value: cst.BaseExpression, scope: _FuncScope) -> bool:
        """``value`` is a concatenation with a tensor read out of a cache (``torch.cat((ck, k))``
        with ``ck`` from ``cache.cached_kv``, ``torch.cat([past_key_value[0], k])``): ML017's kind."""
        if type(value) is not cst.Call or self.qual(value.func) not in ("torch.cat", "torch.concat", "torch.concatenate"):
            return False
        texts = _arg_texts(value)
        return any("cache" in t.lower() or t.startswith("past") for t in (*texts, *_bound_texts(texts, scope.last_value)))

    def _arg_write(self, node: cst.CSTNode, target: cst.BaseExpression, how: str, requires: str = "") -> None:
        """Record an in-place write into a parameter as passed (``q.copy_(...)``, ``k[...] = v``,
        ``scores += pad``) outside init code, for :meth:`leave_FunctionDef` (init-named helpers
        such as ``weight_init_(t)`` are left to reachability: only init code reaching them
        makes them init). ``requires``: the hypothesis under which it is one (``p:total=T``: an
        augmented assignment is in place only on a tensor)."""
        if not self.func_stack:
            return
        while type(target) is cst.Call and type(target.func) is cst.Attribute and \
                _is_inplace_method(target.func.attr.value):
            target = target.func.value  # `avg.mul_(d).add_(x)`: the chain's root
        target = _storage_of(target)  # `avg.data.mul_(d)` writes the caller's tensor as well
        scope = self.func_stack[-1]
        if type(target) is not cst.Name or target.value not in scope.params or \
                scope.context == "init" or target.value in ("self", "cls") or _MAPPING_PARAM.search(target.value):
            return
        if scope.arg_writes and scope.arg_writes[-1][1] == target.value and \
                scope.arg_writes[-1][0] == self._line(node):
            return
        scope.arg_writes.append((self._line(node), target.value, how))
        scope.arg_write_nodes.append(node)
        scope.arg_write_requires.append(requires)

    def _growth(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        """``cache[m] = torch.cat([cache[m], out], dim=1).detach()``, ``self.mem =
        torch.cat((self.mem, h))``, ``state.k = torch.cat([state.k, k])``: state that outlives
        the call (an attribute or item of ``self``, of a parameter or of a closure/global
        object) re-assigned to a concatenation of itself with new data grows at every call, a
        new shape per step. Records the concatenation (:attr:`grow_calls`, read by its call
        site as ``data["grows"]``). Casts and copies around the call (``.detach()``,
        ``.to(dtype)``) are looked through. A local rebuilt in a loop of one call is no
        state: its shapes are fixed per trace."""
        if not self.func_stack:
            return
        while type(value) is cst.Call and type(value.func) is cst.Attribute and \
                value.func.attr.value in _GROWTH_PASSTHROUGH:
            value = value.func.value
        if type(value) is not cst.Call or not value.args:
            return
        func = value.func
        leaf = func.attr.value if type(func) is cst.Attribute else func.value if type(func) is cst.Name else ""
        if leaf not in _CONCAT_LEAVES:
            return
        seq = value.args[0].value
        if type(seq) not in (cst.List, cst.Tuple) or self.qual(value.func) not in _CONCAT_CALLS:
            return
        scope = self.func_stack[-1]
        root = _root_name(target)
        if not root or not (root in ("self", "cls") or root in scope.params or root not in scope.env):
            return
        for el in seq.elements:
            item = el.value
            while type(item) is cst.Call and type(item.func) is cst.Attribute and \
                    item.func.attr.value in _GROWTH_PASSTHROUGH:
                item = item.func.value
            if item.deep_equals(target):
                self.grow_calls[id(value)] = _state_text(target)
                return

    def _local_growth(self, name: str, value: cst.Call, scope: _FuncScope) -> None:
        """``idx = torch.cat((idx, idx_next), dim=1)`` in a loop that reads ``idx`` elsewhere
        too (``logits = self(idx[:, -block:])``, ``model(tokens)`` at the top of the next pass):
        a sequence grown by one piece per pass and fed back, as a decoding loop does. Every pass
        hands the model a new shape, so a jitted step compiles once per generated token. Records
        the concatenation (:attr:`local_grow_calls`, read by its call site as
        ``data["grows_local"]``). A local that is only accumulated (``preds = torch.cat([preds,
        p])`` in an evaluation loop, read after the loop) is not recorded: no step sees it grow.
        Source: nanoGPT's ``generate``, Whisper's ``DecodingTask._main_loop``, Hugging Face's
        ``input_ids = torch.cat([input_ids, next_tokens[:, None]], dim=-1)``."""
        while type(value) is cst.Call and type(value.func) is cst.Attribute and \
                value.func.attr.value in _GROWTH_PASSTHROUGH:
            value = value.func.value  # type: ignore[assignment]
        if type(value) is not cst.Call or not value.args:
            return
        func = value.func
        leaf = func.attr.value if type(func) is cst.Attribute else func.value if type(func) is cst.Name else ""
        seq = value.args[0].value
        if leaf not in _CONCAT_LEAVES or type(seq) not in (cst.List, cst.Tuple) or \
                not any(_names(e.value, name) for e in seq.elements) or \
                self.qual(func) not in _CONCAT_CALLS:
            return
        loop = scope.loop_nodes[-1]  # the innermost loop: one pass of it grows the sequence by one piece
        if _name_reads(loop, name) > _name_reads(value, name) + 1 and _name_binds(loop, name) == 1:
            # (read elsewhere than here and this statement's target; bound only here, so each
            # pass starts from the last pass's sequence: `next_token = torch.cat([next_token,
            # next_token])` after `next_token = argmax(...)` duplicates one step's token)
            self.local_grow_calls[id(value)] = name

    def _memo_global(self, test: cst.BaseExpression) -> str:
        """The module-level container ``test`` asks a key's absence from (``if name not in
        T5_CONFIGS:``, ``if "model" not in T5_CONFIGS[name]:``, one side of an ``and``/``or``):
        the body of that ``if`` fills a memo cache; "" for any other test."""
        todo = [test]
        while todo:
            t = todo.pop()
            if type(t) is cst.BooleanOperation:
                todo.extend((t.left, t.right))
            elif type(t) is cst.Comparison and len(t.comparisons) == 1 and \
                    type(t.comparisons[0].operator) is cst.NotIn:
                root = _root_name(t.comparisons[0].comparator)
                if root and self._is_outer_container(root):
                    return root
        return ""

    def _global_memo_requires(self, root: str, value: cst.BaseExpression) -> tuple[str, ...] | None:
        """For a write of ``value`` into the module-level container ``root`` inside an ``if``
        that tests a key's absence from it (:meth:`_memo_global`): a memo cache filled once,
        at the first trace. That is trace-safe for Python objects (a loaded tokenizer or
        model, a dict) and leaks a tracer for an array: None when ``value`` is a tensor or not
        in such an ``if`` (the write is reported), () when it cannot be one (a memo: not
        reported), else the hypotheses under which it is (a helper's return: ``r:<f>@<n>=T``)."""
        scope = self.func_stack[-1] if self.func_stack else None
        if scope is None or root not in scope.memo_globals:
            return None
        self._fresh()
        k = self.kind(value)
        if k in K.TENSORISH or k in K.VALUE_KINDS:
            return None
        used = sorted(key for key in self.values.used if key.startswith("r:"))
        return tuple(f"{key}={K.T}" for key in used)

    def _is_outer_container(self, name: str) -> bool:
        """A module-level global (not shadowed by a local) written from inside a function."""
        if not self.func_stack:
            return False
        scope = self.func_stack[-1]
        return name in self.bindings.globals and name not in scope.env

    def _numpy_base(self, node: cst.BaseExpression) -> bool:
        """A name last bound to a NumPy value in this function (``y = np.array(rows)``): host
        data code's array, which a port keeps in NumPy, not a tensor."""
        if type(node) is not cst.Name or not self.func_stack:
            return False
        held = self.func_stack[-1].last_value.get(node.value)
        return held is not None and numpy_value(held, self.qual)

    def _setattr_layer(self, node: cst.Call) -> None:
        """``setattr(net, child_name, child.fuse())``, ``setattr(model, n, pool)``: a layer written
        into a built model by name (LeViT's BN fusion, NAFNet's pooling swap): the surgery of
        ``model.<n> = layer`` (ML727). The value is a layer: a module-kind value, a layer built
        here, or a method result of one (``child.fuse()``)."""
        found = _layer_setattr(node)
        if found is None:
            return
        receiver, attr, value = found
        self._fresh()
        layer = self.kind(value) == K.M or (
            type(value) is cst.Call and type(value.func) is cst.Attribute and self.kind(value.func.value) == K.M)
        if not layer:
            return
        self._site("attribute-write", node, name=attr, receiver=self.kind(receiver), data={
            "aug": False, "replaces_child": True, "receiver_text": _dotted(receiver)})

    def _replaces_child(self, receiver: cst.BaseExpression, value: cst.BaseExpression) -> bool:
        """``receiver.<attr> = value`` (``value`` a module) writes a layer built here into a
        module built elsewhere (surgery: ``self.encoder_q.fc = nn.Sequential(...)``,
        ``backbone.fc = nn.Identity()``, ``blocks[i].conv1 = TemporalShift(b.conv1, ...)``), not
        a module building its own child (``self.fc = ...``), a container being filled (``down =
        nn.Module(); down.block = ...``, :meth:`_bare_container`) or an existing layer linked into a
        child (``self.encoder.embed_tokens = self.shared``: the value is no construction)."""
        if type(value) is not cst.Call:
            return False
        if type(receiver) is cst.Name:
            if receiver.value in ("self", "cls"):
                return False
            if self.func_stack and type(self.func_stack[-1].last_value.get(receiver.value)) is cst.Call:
                return False
        return not self._bare_container(receiver)

    def _bare_container(self, node: cst.BaseExpression) -> bool:
        """``self.mid`` built in this class's init as a bare ``nn.Module()`` (a namespace its
        layers are written into: VQGAN-style encoders), so ``self.mid.block_1 = ...`` builds it."""
        if not (_is_self_attr(node) and self.func_stack and self.func_stack[-1].cls is not None):
            return False
        ctors = self.func_stack[-1].cls.layer_ctors.get(node.attr.value, ())  # type: ignore[attr-defined]
        return any(ctor == "torch.nn.Module" for ctor, _ in ctors)

    def _data_init(self, target: cst.Attribute, value: cst.BaseExpression, vkind: str) -> bool:
        """``self.<p>.data = <tensor>`` (or ``.data.copy_``'s assignment form) in a method that is
        not init code, with a value that does not read ``self.<p>`` itself: a parameter set from
        what the call computes (Glow/nflows ActNorm's ``self.log_scale.data = -torch.log(std)``
        from the first batch), not a projection of the parameter (``self.w.data =
        self.w.data.clamp(-1, 1)``)."""
        if target.attr.value != "data" or not _is_self_attr(target.value) or vkind not in K.TENSORISH \
                or not self.func_stack or self.func_stack[-1].name == "__init__":
            return False  # (an init-named helper is judged by who reaches it: the rule's contexts)
        param = target.value.attr.value  # type: ignore[attr-defined]
        return not _reads_self_attrs(value, frozenset({param}))

    def _data_write(self, target: cst.Attribute) -> None:
        """``<w>.data = ...`` / ``<w>.data += ...``: the enclosing function rewrites a tensor's
        storage (the summary's weight-surgery evidence)."""
        if target.attr.value == "data" and self.func_stack and self.func_stack[-1].summary is not None:
            self.func_stack[-1].summary.weight_write()

    def _rng_draw(self, func: cst.Attribute, method: str) -> str:
        """``random.<method>`` / ``numpy.random.<method>`` when ``func`` is a method of a Python
        or NumPy random generator held on ``self`` or in a local (:attr:`_ClassInfo.rng_attrs`,
        :attr:`_FuncScope.rng_locals`): a ``random.Random`` instance's methods are what the
        ``random`` module's functions are bound to, a ``Generator``'s / ``RandomState``'s mirror
        ``numpy.random``'s. "" otherwise."""
        recv = func.value
        scope = self.func_stack[-1]
        module = ""
        if type(recv) is cst.Name:
            module = scope.rng_locals.get(recv.value, "") if scope.rng_locals else ""
            if not module and self.rng_globals and recv.value not in scope.env:
                module = self.rng_globals.get(recv.value, "")
        elif _is_self_attr(recv) and scope.cls is not None and scope.cls.rng_attrs:
            module = scope.cls.rng_attrs.get(recv.attr.value, "")  # type: ignore[union-attr]
        return f"{module}.{method}" if module and not method.startswith("_") else ""

    def _note_rng(self, table: dict[str, str], name: str, value: cst.BaseExpression) -> None:
        """Record in ``table`` (a class's :attr:`~_ClassInfo.rng_attrs`, the file's module-level
        generators) that ``name`` holds a random generator when ``value`` builds or names one
        (:func:`_rng_module`): its methods then draw like that module's functions (:meth:`_rng_draw`)."""
        rng = _rng_module(value, self.qual)
        if rng:
            table[name] = rng

    def _same_attr(self, target: cst.Attribute, value: cst.BaseExpression) -> bool:
        """``self.alpha = self.alpha`` or ``self.alpha = cast(Tensor, self.alpha)``
        (``typing.cast`` returns its argument): the attribute is rebound to the object it
        holds, for the type checker; no state changes."""
        while type(value) is cst.Call and self.qual(value.func) in ("typing.cast", "typing_extensions.cast") \
                and len(value.args) == 2:
            value = value.args[1].value
        return type(value) is cst.Attribute and _is_self_attr(value) and value.attr.value == target.attr.value

    def _constructing(self) -> bool:
        """The innermost function is an object's constructor (``__init__`` of a plain class,
        whose context the graph decides): its writes to ``self`` fill a new object, no state."""
        return bool(self.func_stack) and self.func_stack[-1].init_like and self.func_stack[-1].name == "__init__"

    def _self_write(self, stmt: cst.CSTNode, attr: str, vkind: str, aug: bool,
                    value: cst.BaseExpression | None = None) -> None:
        cls = self.func_stack[-1].cls if self.func_stack else None
        ctx = self.context
        if not aug and type(value) is cst.Call:
            value = _built_module(value, self.qual)  # `Policy(...).to(self.device)`: the Policy
        if cls is not None:
            self._note_attr_literal(cls, attr, None if aug else value)
        if not aug and type(value) is cst.Name and vkind not in K.TENSORISH and (
                value.value in self.local_classes or value.value in self.function_classes):
            # `self._output_class = Output` with `class Output(...)` defined in the file (in the
            # method itself, memoized): a class object is trace-time Python, no state a trace loses
            vkind = K.S
        if cls is not None:
            if value is not None and not aug:
                self._note_rng(cls.rng_attrs, attr, value)  # `self._rng = random.Random()`
                if self.func_stack[-1].init_like and _tensor_copies(value):
                    # `self.shadow_params = [p.clone().detach() for p in parameters]`: an EMA's
                    # shadow copies, a list of tensors whose items later code updates in place
                    cls.tensor_lists.add(attr)
            if value is not None and type(value) is cst.Call and not aug:
                built = self.qual(value.func)
                head, _, last = built.rpartition(".")
                if last.startswith("from_") and head.rsplit(".", 1)[-1][:1].isupper():
                    built = head  # `self.model = AutoModelForCausalLM.from_pretrained(name)`: the class
                if built and built.rsplit(".", 1)[-1][:1].isupper():
                    cls.attr_ctor[attr] = built  # `self.distribution = Normal(mean, std)`
            elif type(value) is cst.Name and not aug:
                built = self.func_stack[-1].ctor_of.get(value.value, "")
                if built and built.rsplit(".", 1)[-1][:1].isupper():
                    cls.attr_ctor[attr] = built  # `z = Latent(...); z.setup(...); self.z = z`
            if self.func_stack[-1].init_like or attr not in cls.attr_kinds:
                new_kind = vkind
                if value is not None and type(value) is cst.Call:
                    ctor = self.qual(value.func)
                    if ctor in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
                        new_kind = K.T
                    elif ctor.startswith("torch.nn.Conv") or ctor.startswith("torch.nn.LazyConv"):
                        new_kind = K.M
                        cls.has_conv = True
                    elif ctor.startswith("torch.nn.Adaptive") and value.args and \
                            literal(value.args[0].value) in (1, (1,), (1, 1), (1, 1, 1)):
                        cls.global_pools.add(attr)
                    elif ctor == "torch.nn.Sequential" and value.args and _ends_in_global_pool(value, self.qual):
                        # `nn.Sequential(..., nn.AdaptiveAvgPool2d((1, 1)))` (squeezenet's classifier):
                        # its output is a (N, C, 1, 1) map as well
                        cls.global_pools.add(attr)
                        new_kind = K.M
                    elif ctor.startswith("torch.nn.") and ctor.rsplit(".", 1)[-1][:1].isupper():
                        new_kind = K.M
                    elif ctor and ctor.rsplit(".", 1)[-1][:1].isupper() and not ctor.startswith("torch."):
                        new_kind = K.M
                    self.ctor_attr[id(value)] = attr
                elif value is not None and type(value) in (cst.BooleanOperation, cst.IfExp):
                    # `self.collector = collector or AuxCollector()`: the built default is the slot's
                    for alt in _alternatives(value):
                        if type(alt) is cst.Call:
                            self.ctor_attr[id(alt)] = attr
                            ctor = self.qual(alt.func)
                            if ctor and ctor.rsplit(".", 1)[-1][:1].isupper():
                                new_kind = K.M
                cls.attr_kinds[attr] = new_kind if new_kind != K.U or attr not in cls.attr_kinds else cls.attr_kinds[attr]
            if type(value) is cst.Name and value.value == "None":
                cls.none_attrs.add(attr)
            if value is not None:
                found = self._targets(value)
                if not found and type(value) is cst.Call and value.args and cls.attr_binds and \
                        _is_self_attr(value.args[0].value) and self.bindings.is_partial(value) and \
                        value.args[0].value.attr.value in cls.attr_binds:  # type: ignore[attr-defined]
                    # `self._train_fn = partial(self.kernel_fn, chunk_size=c)`: the other attribute
                    # (what it holds is read below)
                    found = (_dotted(value.args[0].value),)
                if not found and type(value) is cst.Call and self.func_stack[-1].init_like:
                    callee = self.qual(value.func)
                    if callee and not is_class_like(callee) and "()" not in callee and (
                            self.bindings.is_project(callee) or callee.startswith(f"{self.module}.")):
                        # `self.attn_fn = make_attention(scale)`: what the project function returns,
                        # the closure it builds when the graph knows it for a closure factory
                        # (`FileFacts.closure_factories`); anything else resolves to nothing
                        found = (f"{callee}()",)
                if type(value) in (cst.Dict, cst.List, cst.Tuple) or _is_dict_call(value):
                    # `self.pool_fns = {"mean": masked_mean, ...}`, `self.transforms = [time_mask,
                    # freq_mask]`: the callables held; `self.pool_fns[mode](h)` and `for t in
                    # self.transforms: t(x)` call each (key `<attr>[]`)
                    scope = self.func_stack[-1]
                    entries = self.bindings.table_entries(value, scope.env, scope.binds.callables, cls.methods)
                    if entries:
                        cls.attr_binds[f"{attr}[]"] = merge(cls.attr_binds.get(f"{attr}[]", ()), entries)
                closure = self._closure_def(value)
                if not closure and type(value) is cst.Lambda and self.func_stack[-1].init_like:
                    # `self.score = lambda q, k: (q @ k.T).argmax().item()` in __init__: a
                    # closure called from forward with its tensors, not init code
                    closure = self.self_lambdas[id(value)] = f"{self.func_stack[-1].qualname}.{attr}"
                if closure:  # `def post(t): ...; self.post = post` in __init__: forward calls it
                    found = merge(found, (closure,))
                if found and cls.attr_binds and any(f.startswith("self.") and f[5:] in cls.attr_binds for f in found):
                    # `self._train_fn = partial(self.kernel_fn, ...)` (or through a local `fn =
                    # partial(...)`) with `self.kernel_fn = kernel` before it: what that attribute
                    # holds (xLSTM's kernels)
                    found = tuple(dict.fromkeys(t for f in found for t in (
                        cls.attr_binds[f[5:]] if f.startswith("self.") and f[5:] in cls.attr_binds else (f,))))
                if found:
                    cls.attr_binds[attr] = merge(cls.attr_binds.get(attr, ()), found)
                    self._class_refs(value)
                    partial = value if self.bindings.is_partial(value) else None
                    held = cls.attr_partials.setdefault(attr, {})
                    for alt in found:
                        if alt.startswith("torch."):  # (a second binding of the same callable: ambiguous)
                            held[alt] = partial if alt not in held else None
                    if type(value) is cst.Subscript and self.func_stack[-1].init_like and cls.composes and \
                            self._pick_keys(value):
                        self._picked_submodules(cls, attr, value, found)
                if type(value) is cst.Call and not (self.func_stack[-1].init_like and cls.is_module) and \
                        id(value) not in self.unpacked_calls:
                    # (`self.optimizer, self.lr_scheduler = self.configure_optimizers()`: each
                    # attribute holds one returned item, not whatever the method builds)
                    self._held_instance(cls, attr, value)
                elif type(value) in (cst.BooleanOperation, cst.IfExp) and not (self.func_stack[-1].init_like and cls.is_module):
                    # `self.mixer = mixer or CutMixUp()`: the default built there (a caller's own is
                    # an injection the graph joins)
                    for alt in _alternatives(value):
                        if type(alt) is cst.Call:
                            self._held_instance(cls, attr, alt)
                elif type(value) in (cst.List, cst.Tuple):
                    # (in a module's init code too: `self.batch_callbacks = [LossHistory(), ...]` of
                    # plain classes, whose methods the training step runs; a module class in the
                    # list is a submodule as well, its methods the same call targets)
                    self._held_items(cls, attr, [e.value for e in value.elements])
                elif type(value) is cst.Dict:
                    self._held_items(cls, attr, [e.value for e in value.elements if type(e) is cst.DictElement])
                elif type(value) in (cst.ListComp, cst.DictComp):
                    # `self.observers = {n: MinMaxObserver() for n in names}`
                    self._held_items(cls, attr, [value.value if type(value) is cst.DictComp else value.elt])
                if self.func_stack[-1].init_like and type(value) is cst.Attribute and type(value.value) is cst.Name:
                    # `self.text_model = text_model.text_model` with `text_model = CLIPTextModel._from_config(c)`
                    for t in self.func_stack[-1].binds.instances.get(value.value.value, ()):
                        self.injections.append(InjectionFact(kind="member", owner=cls.qualname, attr=attr,
                                                             param=value.attr.value, index=-1, target=t,
                                                             line=self._line(value)))
                if self.func_stack[-1].init_like and type(value) is cst.Call and cls.composes:
                    # `self.scheduler = get_scheduler(name)`: what a project builder function
                    # returns (its ``FunctionFact.builds``, which the graph follows)
                    fname = self.qual(value.func)
                    if fname and not is_class_like(fname) and not fname.startswith(("self.", "torch.")) and (
                            self.bindings.is_project(fname) or fname.startswith(f"{self.module}.")):
                        self.submodules.append(SubmoduleFact(owner=cls.qualname, attr=attr, target=f"{fname}()",
                                                             line=self._line(value)))
                if self.func_stack[-1].init_like and type(value) is cst.Name and cls.composes:
                    # `z = Latent(...); z.setup(...); self.z = z`: the instance built into a local
                    # is the attribute's (its constructor's own fact has no attribute)
                    for t in self.func_stack[-1].binds.instances.get(value.value, ()):
                        if self._is_class_name(t):
                            self.submodules.append(SubmoduleFact(owner=cls.qualname, attr=attr, target=t,
                                                                 line=self._line(value)))
                if self.func_stack[-1].init_like and type(value) is cst.Name and self._may_hold_class(value.value):
                    self._slot(value.value, attr, value)  # `self.corr = corr_block`
                    typed = self.func_stack[-1].binds.typed.get(value.value, ())
                    if cls.composes and self.func_stack[-1].name == "__init__":  # `corr_block: CorrBlock`
                        for t in typed:
                            if not t.startswith("self.") and self._is_class_name(t):
                                self.submodules.append(SubmoduleFact(owner=cls.qualname, attr=attr, target=t,
                                                                     line=self._line(value)))
                elif self.func_stack[-1].init_like and type(value) in (cst.IfExp, cst.BooleanOperation):
                    # `self.processor = processor if processor is not None else AttnProcessor()`,
                    # `self.norm = norm or LayerNorm(d)`: what callers pass lands here too
                    for alt in _alternatives(value):
                        if type(alt) is cst.Name and alt.value in self.func_stack[-1].params and \
                                self._may_hold_class(alt.value):
                            self._slot(alt.value, attr, value)
        if ctx != "init" and not self._constructing():
            # (a random draw kept until the key changes, speechbrain's LiGRU dropout masks, is
            # state: a memo is a function of its key)
            memo = not aug and self._is_memo(attr) and not (value is not None and self._draws(value))
            counter = aug or _reads_self_attr(value, attr)
            if self.func_stack and not aug and value is not None and not counter and not self.func_stack[-1].branches \
                    and not self.func_stack[-1].loops and type(literal(value)) in (int, float, bool):
                # `self.pooling_mult = 1` unconditionally in a method: reset on every call of it
                self.func_stack[-1].resets.add(attr)
            self._site("self-write", stmt, name=attr, requires=(f"k:{attr}=X",) if counter and vkind == K.S else (),
                       data={
                "how": "aug" if aug else "assign", "value": vkind, "aug": aug, "memo": memo,
                "is_buffer": bool(cls and attr in cls.buffers),
                "attr_kind": cls.attr_kinds.get(attr, K.S) if cls else K.U,
                # `self.n = self.n + 1` is a counter like `self.n += 1`
                "counter": counter,
                "placement": not aug and value is not None and _is_placement_of(attr, value),
                # `self.weights = self.get_embedding(n)`, `Cls.get_sinusoid_embeddings(n, d)`: a
                # table built by the class's own code (its kind unknown until the project step)
                "own_method_value": type(value) is cst.Call and type(value.func) is cst.Attribute and
                type(value.func.value) is cst.Name and (value.func.value.value in ("self", "cls") or
                                                          value.func.value.value in self.local_classes),
                "holds_tensors": value is not None and vkind not in K.TENSORISH and self._holds_tensors(value),
                # (a method of an nn.Module subclass: its object is model state a port threads)
                "module_class": bool(cls and cls.is_module),
                "optimizer_class": bool(cls and cls.is_optimizer),
                # a value computed here (`torch.round(-xmin / self.scale)`), not one handed in
                # (`self.device_map = device_map if ... else ...`) or read elsewhere
                "computed": type(value) in _COMPUTED,
                # computed from the module's own attributes only (`self.ab =
                # self.attention_biases[:, self.attention_bias_idxs]`): a cache of the parameters
                "from_self": value is not None and type(value) in _COMPUTED and self._reads_only_self(value),
            })

    def _reads_only_self(self, value: cst.BaseExpression) -> bool:
        """``value`` reads ``self`` and no local name or parameter of the current function
        (module-level names, imports and literals may appear): LeViT's eval-mode bias table,
        a merged LoRA weight."""
        scope = self.func_stack[-1] if self.func_stack else None
        if scope is None:
            return False
        seen_self = False
        stack: list[cst.CSTNode] = [value]
        while stack:
            n = stack.pop()
            t = type(n)
            if t is cst.Name:
                if n.value == "self":  # type: ignore[attr-defined]
                    seen_self = True
                elif n.value in scope.env:  # type: ignore[attr-defined]
                    return False
                continue
            if t is cst.Attribute:
                stack.append(n.value)  # type: ignore[attr-defined]
                continue
            if t is cst.Arg:
                stack.append(n.value)  # type: ignore[attr-defined]
                continue
            if t in (cst.Lambda, cst.ListComp, cst.GeneratorExp, cst.DictComp, cst.SetComp):
                return False
            stack.extend(child_nodes(n))
        return seen_self

    def _note_attr_literal(self, cls: _ClassInfo, attr: str, value: cst.BaseExpression | None) -> None:
        """Keep :attr:`_ClassInfo.attr_literals` for a write of ``self.<attr>``: ``__init__``
        storing a literal or a parameter with a literal default records it; any other write
        (another method, an augmented assignment, a second value) forgets it for good."""
        scope = self.func_stack[-1]
        lit: Any = NOT_LITERAL
        if value is not None and scope.name == "__init__":
            lit = literal(value)
            default = scope.passed_default(value.value) if lit is NOT_LITERAL and type(value) is cst.Name else None
            if default is not None:
                lit = literal(default)
        if lit is NOT_LITERAL or (attr in cls.attr_literals and cls.attr_literals[attr] != lit):
            cls.attr_literals[attr] = NOT_LITERAL
        else:
            cls.attr_literals[attr] = lit

    def _held_items(self, cls: _ClassInfo, attr: str, items: Iterable[cst.BaseExpression]) -> None:
        """``self.logit_filters = [SuppressBlank(...)]`` or ``self.logit_filters.append(
        SuppressTokens(...))`` outside a module's init code: the list holds instances of those
        classes, so ``for f in self.logit_filters: f.apply(...)`` runs their ``apply`` (``held``
        facts: call targets for the graph, no composition edge; the list stays a container)."""
        for v in items:
            if type(v) is not cst.Call:
                continue
            ctor = self.qual(v.func)
            if ctor and not ctor.startswith("torch.") and ctor.rsplit(".", 1)[-1][:1].isupper() and \
                    self._is_class_name(ctor):
                self.injections.append(InjectionFact(kind="held", owner=cls.qualname, attr=attr, param="", index=-1,
                                                     target=ctor, line=self._line(v)))
                cls.held_items[attr] = merge(cls.held_items.get(attr, ()), (ctor,))

    def _held_instance(self, cls: _ClassInfo, attr: str, value: cst.Call) -> None:
        """``self.ema = ModelEMA(model)`` outside a module's init code (a trainer's setup
        method, a plain class's ``__init__``): the attribute holds an instance of that class, so
        ``self.ema.update(...)`` runs ``ModelEMA.update`` (a ``held`` fact: a call target for
        the graph, no composition edge) and is a method call, not a container mutation;
        ``self.criterion = self.init_criterion()`` holds what that factory method builds."""
        func = value.func
        if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self":
            # `self.criterion = self.init_criterion()`: whatever that factory method (or a
            # subclass's override) builds
            self.injections.append(InjectionFact(kind="held", owner=cls.qualname, attr=attr, param=func.attr.value,
                                                 index=-1, target="", line=self._line(value)))
            return
        ctor = self.qual(func)
        if not ctor or ctor.startswith("torch.") or not ctor.rsplit(".", 1)[-1][:1].isupper() or \
                not self._is_class_name(ctor):
            return
        self.injections.append(InjectionFact(kind="held", owner=cls.qualname, attr=attr, param="", index=-1,
                                             target=ctor, line=self._line(value)))
        cls.held.add(attr)


#: Expressions that compute a value where they stand (a call, arithmetic, an index).
_COMPUTED = (cst.Call, cst.BinaryOperation, cst.UnaryOperation, cst.Subscript)


def _reads_self_attr(value: cst.BaseExpression | None, attr: str) -> bool:
    """``value`` is arithmetic with ``self.<attr>`` as a direct operand (``self.n + 1``)."""
    if type(value) is not cst.BinaryOperation:
        return False
    return any(type(o) is cst.Attribute and o.attr.value == attr and _is_self_attr(o)
               for o in (value.left, value.right))


#: Calls that hand back the table they are called on (a copy, a view, another device or dtype).
_SAME_TABLE_METHODS = frozenset({"detach", "clone", "to", "type", "type_as", "float", "half", "contiguous"})


def _self_table(node: cst.BaseExpression | None) -> str:
    """The attribute of ``self`` a tensor expression reads its table from, through attributes,
    items and :data:`_SAME_TABLE_METHODS` calls (``self.cached_freqs[a:b].detach()`` ->
    "cached_freqs", ``self.point_embeddings[0].weight`` -> "point_embeddings",
    ``self.masked_spec_embed.to(h.dtype)``), else "". Such a tensor was built before this call's
    masks (a mask write of it broadcasts it: a select), and a memo's hit returns one."""
    while node is not None:
        t = type(node)
        if _is_self_attr(node):
            return node.attr.value  # type: ignore[attr-defined,no-any-return]
        if t is cst.Attribute or t is cst.Subscript:
            node = node.value  # type: ignore[attr-defined]
        elif t is cst.Call and type(node.func) is cst.Attribute and \
                node.func.attr.value in _SAME_TABLE_METHODS:  # type: ignore[attr-defined]
            node = node.func.value  # type: ignore[attr-defined]
        else:
            return ""
    return ""


def _ends_in_global_pool(seq: cst.Call, qual: Callable[[cst.BaseExpression], str]) -> bool:
    """``nn.Sequential(...)`` whose last layer is a 1x1 adaptive pool (``nn.AdaptiveAvgPool2d((1,
    1))``, possibly followed by activations or dropout, which keep the shape)."""
    for a in reversed(seq.args):
        v = a.value
        if a.star or type(v) is not cst.Call:
            return False
        name = qual(v.func)
        if name.startswith("torch.nn.Adaptive"):
            return bool(v.args) and literal(v.args[0].value) in (1, (1,), (1, 1), (1, 1, 1))
        if name not in _SHAPE_KEEPING_LAYERS:
            return False
    return False


#: Layers whose output has their input's shape (activations, dropout, identity).
_SHAPE_KEEPING_LAYERS = frozenset({"torch.nn.ReLU", "torch.nn.ReLU6", "torch.nn.GELU", "torch.nn.SiLU",
                                   "torch.nn.Dropout", "torch.nn.Identity", "torch.nn.Sigmoid", "torch.nn.Tanh",
                                   "torch.nn.Hardswish", "torch.nn.LeakyReLU"})


def _same_mask_read(value: cst.BaseExpression, target: cst.Subscript, depth: int = 0) -> bool:
    """``value`` is computed elementwise from tensors read through the very index ``target``
    writes through, and from scalars (``outputs[outside] = inputs[outside]``, ``loss[small] =
    width * torch.log1p(diff[small] / c)``): a masked select between same-shaped tensors,
    ``jnp.where(mask, f(x), out)``. Names and other expressions are accepted only as operands
    of arithmetic with such a read (a scalar ``width``; a whole tensor would not broadcast in
    PyTorch either)."""
    if depth > 8:
        return False
    t = type(value)
    if t is cst.Subscript:
        return len(value.slice) == len(target.slice) and all(  # type: ignore[attr-defined]
            a.deep_equals(b) for a, b in zip(value.slice, target.slice))  # type: ignore[attr-defined]
    if t is cst.UnaryOperation:
        return _same_mask_read(value.expression, target, depth + 1)  # type: ignore[attr-defined]
    if t is cst.BinaryOperation:
        sides = (value.left, value.right)  # type: ignore[attr-defined]
        reads = [_same_mask_read(x, target, depth + 1) for x in sides]
        return any(reads) and all(r or _scalar_operand(x) for r, x in zip(reads, sides))
    if t is cst.Call:
        func = value.func  # type: ignore[attr-defined]
        args = [a.value for a in value.args if a.keyword is None]  # type: ignore[attr-defined]
        if type(func) is cst.Attribute and func.attr.value in _ELEMENTWISE:
            if type(func.value) is cst.Name and func.value.value in ("torch", "F", "math"):
                return bool(args) and _same_mask_read(args[0], target, depth + 1) and all(
                    _scalar_operand(x) for x in args[1:])
            return _same_mask_read(func.value, target, depth + 1) and all(_scalar_operand(x) for x in args)
    return False


#: Elementwise torch functions and tensor methods (their result has their input's shape).
_ELEMENTWISE = frozenset({"abs", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sigmoid", "tanh", "relu",
                          "clamp", "clamp_min", "clamp_max", "clip", "pow", "square", "sin", "cos", "neg",
                          "reciprocal", "floor", "ceil", "round", "sign", "softplus", "float", "half", "to",
                          "type_as", "detach", "clone", "log_softmax", "erf"})


def _scalar_operand(node: cst.BaseExpression) -> bool:
    """A literal, a plain name or an attribute (``width``, ``self.eps``, ``cfg.scale``): the
    operand a masked elementwise expression combines its reads with."""
    t = type(node)
    if t is cst.UnaryOperation:
        return _scalar_operand(node.expression)  # type: ignore[attr-defined]
    return t in (cst.Integer, cst.Float, cst.Name, cst.Attribute) or (
        t is cst.BinaryOperation and _scalar_operand(node.left) and _scalar_operand(node.right))  # type: ignore[attr-defined]


#: Concatenations that lengthen an axis (``torch.stack`` adds one: no growth of an input).
_CONCAT_CALLS = frozenset({"torch.cat", "torch.concat", "torch.concatenate", "torch.hstack", "torch.vstack",
                           "torch.column_stack", "torch.row_stack", "torch.dstack"})


_CONCAT_LEAVES = frozenset(n.rsplit(".", 1)[-1] for n in _CONCAT_CALLS)


#: Methods that return the same data cast, moved or cut off from autograd.
_GROWTH_PASSTHROUGH = frozenset({"detach", "contiguous", "to", "float", "half", "bfloat16", "type_as", "clone"})


def _names(node: cst.BaseExpression, name: str) -> bool:
    """``node`` is the name ``name`` or a subscript of it (``input_ids[beam_idx, :]``: the
    surviving beams' sequences, reordered before the new tokens are appended)."""
    if type(node) is cst.Subscript:
        node = node.value
    return type(node) is cst.Name and node.value == name


def _name_binds(node: cst.CSTNode, name: str) -> int:
    """How many statements in ``node`` bind the plain name ``name``: assignments (also to a
    tuple holding it, :func:`~migrate_lens.analysis.bindings.names_in_target`), augmented and
    annotated assignments, ``for`` targets."""
    n = 0
    todo = [node]
    while todo:
        cur = todo.pop()
        t = type(cur)
        targets: list[cst.BaseExpression] = []
        if t is cst.Assign:
            targets = [a.target for a in cur.targets]  # type: ignore[attr-defined]
        elif t in (cst.AugAssign, cst.AnnAssign, cst.For):
            targets = [cur.target]  # type: ignore[attr-defined]
        n += sum(name in names_in_target(tg) for tg in targets)  # (nested tuples and starred items too)
        if t is not cst.Name:
            todo.extend(child_nodes(cur))
    return n


def _name_reads(node: cst.CSTNode, name: str) -> int:
    """How many times the plain name ``name`` occurs in ``node`` (attribute names such as the
    ``idx`` of ``x.idx`` are not names; assignment targets count too)."""
    n = 0
    todo = [node]
    while todo:
        cur = todo.pop()
        t = type(cur)
        if t is cst.Name:
            n += cur.value == name  # type: ignore[attr-defined]
            continue
        if t is cst.Attribute:
            todo.append(cur.value)  # type: ignore[attr-defined]
            continue
        todo.extend(child_nodes(cur))
    return n


def _state_text(node: cst.BaseExpression) -> str:
    """``cache[...]``, ``self.store[...]``, ``state.k``: an attribute/item chain's text, items
    elided; "" for anything else."""
    if type(node) is cst.Subscript:
        base = _state_text(node.value)
        return f"{base}[...]" if base else ""
    if type(node) is cst.Attribute:
        base = _state_text(node.value)
        return f"{base}.{node.attr.value}" if base else ""
    return node.value if type(node) is cst.Name else ""


#: Tensor methods that only move or cast a tensor (device, dtype, memory format).
_PLACEMENT_METHODS = frozenset({"to", "cuda", "cpu", "type", "type_as", "float", "half", "bfloat16",
                                "double", "contiguous"})


def _is_placement_of(attr: str, value: cst.BaseExpression) -> bool:
    """``value`` re-places ``self.<attr>`` itself: ``self.ab.to(x.device)``,
    ``[a.to(dtype=d, device=dev) for a in self.cell_anchors]`` (a chain of
    :data:`_PLACEMENT_METHODS` on the attribute, or on the loop variable of a comprehension over
    it). A JAX port has no device placement or lazy dtype cast to keep: nothing to store."""
    def cast_of(expr: cst.BaseExpression, root: Callable[[cst.BaseExpression], bool]) -> bool:
        seen = False
        while type(expr) is cst.Call and type(expr.func) is cst.Attribute \
                and expr.func.attr.value in _PLACEMENT_METHODS:  # type: ignore[attr-defined]
            expr, seen = expr.func.value, True  # type: ignore[attr-defined]
        return seen and root(expr)

    def is_attr(expr: cst.BaseExpression) -> bool:
        return _is_self_attr(expr) and expr.attr.value == attr  # type: ignore[attr-defined]

    if type(value) in (cst.ListComp, cst.GeneratorExp) and value.for_in.inner_for_in is None \
            and type(value.for_in.target) is cst.Name and is_attr(value.for_in.iter):  # type: ignore[attr-defined]
        var = value.for_in.target.value  # type: ignore[attr-defined]
        return cast_of(value.elt, lambda e: type(e) is cst.Name and e.value == var)  # type: ignore[attr-defined]
    return cast_of(value, is_attr)


#: ``nn.Module`` methods that return the module itself (placement, mode, dtype, in place).
_SELF_RETURNING = frozenset({"to", "cuda", "cpu", "eval", "train", "half", "float", "double", "bfloat16",
                             "requires_grad_", "share_memory", "to_empty", "type", "xpu"})


def _built_module(value: cst.Call, qual: Callable[[cst.BaseExpression], str]) -> cst.Call:
    """The constructor call under a chain of self-returning module methods
    (``GaussianPolicy(n, a).to(self.device)``, ``nn.Linear(4, 4).cuda().eval()``): what the
    attribute holds is that class's instance; ``value`` itself for anything else (a tensor's
    ``torch.zeros(3).to(device)``: no class built)."""
    inner = value
    while type(inner.func) is cst.Attribute and inner.func.attr.value in _SELF_RETURNING and \
            type(inner.func.value) is cst.Call:
        inner = inner.func.value
    if inner is value:
        return value
    built = qual(inner.func)
    return inner if built and built.rsplit(".", 1)[-1][:1].isupper() else value


def _tensor_copies(value: cst.BaseExpression) -> bool:
    """``[p.clone().detach() for p in params]`` (or ``list(...)`` of such a generator): a list
    whose items a tensor-only method makes (:data:`kinds.TORCH_ONLY_METHODS`: a copy, a cast),
    tensors whatever the receiver's known kind."""
    if type(value) is cst.Call and type(value.func) is cst.Name and value.func.value == "list" and value.args:
        value = value.args[0].value
    if type(value) not in (cst.ListComp, cst.GeneratorExp):
        return False
    elt = value.elt  # type: ignore[attr-defined]
    return type(elt) is cst.Call and type(elt.func) is cst.Attribute and elt.func.attr.value in K.TORCH_ONLY_METHODS


def _layer_setattr(node: cst.Call) -> tuple[cst.BaseExpression, str, cst.BaseExpression] | None:
    """``(receiver, attribute name, value)`` of ``setattr(obj, name, value)`` on an object other
    than ``self`` (the name a literal, or the variable that holds it); None otherwise."""
    args = node.args
    if len(args) != 3 or any(a.star or a.keyword is not None for a in args):
        return None
    receiver, key, value = args[0].value, args[1].value, args[2].value
    if type(receiver) not in (cst.Name, cst.Attribute, cst.Subscript) or (
            type(receiver) is cst.Name and receiver.value == "self"):
        return None
    if type(key) is cst.SimpleString:
        attr = key.evaluated_value
    elif type(key) is cst.Name:
        attr = key.value
    else:
        return None
    return (receiver, attr, value) if isinstance(attr, str) and attr.isidentifier() else None
