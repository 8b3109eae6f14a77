"""Record what one forward pass of a user's ``nn.Module`` actually does, at the user's source line.

THIS RUNS THE USER'S CODE. Imported only by ``migrate-lens probe`` (torch is imported here, at
module level: import this module only when probing).

Three layers watch one eager forward pass:

- a ``TorchFunctionMode`` sees each Python-level torch call (``Tensor.item``, ``Tensor.to``,
  ``Tensor.__setitem__``, ``F.dropout``...) with its arguments; it records host reads
  (``.item()``, ``bool(t)``, ``.tolist()``, ``.numpy()``), device transfers and tensor hooks, and
  remembers the storages of the call's tensor arguments;
- a ``TorchDispatchMode`` sees every aten op the call becomes and reads its schema: arguments
  marked written (``alias_info.is_write``) are in-place writes, recorded when the written tensor
  is one the Python-level call was given (so a decomposition's own scratch buffers, such as the
  mask ``aten::dropout`` fills with ``bernoulli_``, are not the user's in-place op), and the
  target is classified as a parameter, a buffer, an example input or a fresh tensor by storage;
  the ``nondeterministic_seeded``, ``dynamic_output_shape`` and ``data_dependent_output`` tags
  give random ops, data-dependent output shapes and host syncs; a namespace other than
  aten/prims is a custom op;
- ``nn.Module`` patches for the length of the pass: ``__setattr__``/``register_buffer``/
  ``register_parameter`` (attributes written during forward), and global forward hooks keeping
  the stack of modules running (to find hooks that fire, and the construction sites of the
  library modules, e.g. ``nn.Dropout``, an op ran in).

Each fact is placed at the innermost Python frame inside ``root`` (the PATH the user gave); a
fact also carries ``also_at``, the lines that constructed the library modules the op ran in
(``self.drop = nn.Dropout(p)``, and the ``nn.Sequential`` holding it), because static rules
flag such modules where they are built.
Construction sites are learned by :func:`construction_sites`, which wraps ``nn.Module.__init__``
while the recipe builds its models.
"""

from __future__ import annotations

import contextlib
import sys
import types
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch.overrides import TorchFunctionMode, resolve_name
from torch.utils._python_dispatch import TorchDispatchMode

#: Python-level tensor methods that read a value on the host.
HOST_READS = frozenset({"item", "tolist", "numpy", "__bool__", "__int__", "__float__", "__index__", "__complex__"})
#: Python-level tensor methods that place a tensor on a device.
DEVICE_METHODS = frozenset({"cuda", "cpu", "pin_memory", "mps", "xpu"})
#: Namespaces of the core op sets; anything else is a custom op.
CORE_NAMESPACES = frozenset({"aten", "prims"})
#: Index ops whose output shape depends on values only when an index is a boolean mask.
_INDEX_OPS = frozenset({"index.Tensor", "index_put.default", "index_put_.default", "_index_put_impl_.default"})
#: aten ops that write arguments their schema does not annotate as written: op name ->
#: (written argument names, the flag argument that must be true). ``native_batch_norm`` updates
#: the running statistics in training (its schema predates ``_native_batch_norm_legit``'s
#: ``Tensor(a!) running_mean``).
_UNANNOTATED_WRITES: dict[str, tuple[tuple[str, ...], str]] = {
    "aten::native_batch_norm": (("running_mean", "running_var"), "training"),
    "aten::cudnn_batch_norm": (("running_mean", "running_var"), "training"),
    "aten::miopen_batch_norm": (("running_mean", "running_var"), "training"),
}
_THIS_FILE = str(Path(__file__).resolve())


@dataclass(frozen=True, slots=True)
class Site:
    """A source line inside the probed root: ``path`` relative POSIX, ``line`` 1-based."""

    path: str
    line: int


@dataclass(frozen=True, slots=True)
class Fact:
    """One runtime event at one source line (see :data:`migrate_lens.probe.kinds.KINDS`).
    ``op`` names what ran (``aten::add_.Tensor``, ``Tensor.item``, a hook's name); ``detail`` the
    target or reason (``buffer 'count'``, a graph-break reason). ``also_at`` holds the
    construction sites of the library modules the op ran in (innermost first), when built from
    the root."""

    kind: str
    site: Site
    op: str
    detail: str = ""
    also_at: tuple[Site, ...] = ()


class Roots:
    """Which source files are inside the probed root, and their relative paths (memoized per
    filename: every recorded op walks the Python stack)."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._memo: dict[str, str | None] = {}

    def rel(self, filename: str) -> str | None:
        """``filename`` relative to the root as POSIX, or None when outside it (or this file)."""
        hit = self._memo.get(filename, "")
        if hit != "":
            return hit
        rel: str | None = None
        if filename and not filename.startswith("<") and filename != _THIS_FILE:
            try:
                path = Path(filename).resolve()
                rel = path.relative_to(self.root).as_posix() if path.is_relative_to(self.root) else None
                if rel == ".":  # root is a single file
                    rel = path.name
            except (OSError, ValueError):
                rel = None
        self._memo[filename] = rel
        return rel

    def site_of(self, frame: types.FrameType | None) -> Site | None:
        """The innermost frame at or above ``frame`` whose file is inside the root."""
        while frame is not None:
            rel = self.rel(frame.f_code.co_filename)
            if rel is not None:
                return Site(rel, frame.f_lineno)
            frame = frame.f_back
        return None

    def site_of_stack(self, frames: list[tuple[str, int]]) -> Site | None:
        """The innermost (last) of ``frames`` (filename, line), outermost first, inside the root."""
        for filename, line in reversed(frames):
            rel = self.rel(filename)
            if rel is not None:
                return Site(rel, line)
        return None

    def class_inside(self, cls: type) -> bool:
        """True when ``cls`` is defined in a file inside the root."""
        module = sys.modules.get(cls.__module__)
        filename = getattr(module, "__file__", None) or ""
        return self.rel(str(filename)) is not None


@contextlib.contextmanager
def construction_sites(roots: Roots, sites: dict[int, Site]) -> Iterator[None]:
    """While active, every ``nn.Module`` constructed records in ``sites`` (by ``id``) the line
    inside the root that built it: the innermost root frame that is not the module's own
    ``__init__`` chain (``self`` is the module). Restores ``nn.Module.__init__`` on exit."""
    original = torch.nn.Module.__init__

    def __init__(self: torch.nn.Module, *args: Any, **kwargs: Any) -> None:
        frame = sys._getframe(1)
        while frame is not None:
            if frame.f_locals.get("self") is not self and roots.rel(frame.f_code.co_filename) is not None:
                sites[id(self)] = Site(roots.rel(frame.f_code.co_filename) or "", frame.f_lineno)
                break
            frame = frame.f_back
        original(self, *args, **kwargs)

    torch.nn.Module.__init__ = __init__  # type: ignore[method-assign]
    try:
        yield
    finally:
        torch.nn.Module.__init__ = original  # type: ignore[method-assign]


def _storage_key(t: Any) -> int:
    try:
        ptr = t.untyped_storage().data_ptr()
    except (RuntimeError, NotImplementedError, AttributeError):
        return 0
    return int(ptr)


def _tensors(value: Any, out: list[torch.Tensor], depth: int = 0) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        out.append(value)
    elif depth < 3 and isinstance(value, (list, tuple)):
        for v in value:
            _tensors(v, out, depth + 1)
    elif depth < 3 and isinstance(value, dict):
        for v in value.values():
            _tensors(v, out, depth + 1)
    return out


def _argument(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any], i: int, a: Any) -> Any:
    return kwargs.get(a.name, a.default_value) if a.kwarg_only or i >= len(args) else args[i]


def _written_arguments(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[tuple[Any, Any]]:
    """(schema argument, value) for each argument the op writes: those annotated ``(a!)`` and
    those of :data:`_UNANNOTATED_WRITES` when its flag argument is true."""
    schema = func._schema
    out = []
    extra = _UNANNOTATED_WRITES.get(schema.name)
    flags = {a.name: _argument(func, args, kwargs, i, a) for i, a in enumerate(schema.arguments)} if extra else {}
    for i, a in enumerate(schema.arguments):
        annotated = a.alias_info is not None and a.alias_info.is_write
        if annotated or (extra and a.name in extra[0] and flags.get(extra[1]) is True):
            out.append((a, _argument(func, args, kwargs, i, a)))
    return out


def _random_disabled(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """True when a ``nondeterministic_seeded`` op draws nothing on this call: a dropout
    probability argument (``dropout_p``, ``p``) of 0, or a ``train`` flag that is False
    (``aten::_scaled_dot_product_*_attention`` and ``aten::native_dropout`` in eval)."""
    for i, a in enumerate(func._schema.arguments):
        if a.name not in ("dropout_p", "p", "train"):
            continue
        value = kwargs.get(a.name, a.default_value) if a.kwarg_only or i >= len(args) else args[i]
        if a.name == "train" and value is False:
            return True
        if a.name != "train" and isinstance(value, (int, float)) and not isinstance(value, bool) and value == 0:
            return True
    return False


def _named_device(value: Any) -> str | None:
    """``value`` as a device the code names (a string such as ``"cuda"``, or an ordinal), else
    None. A ``torch.device`` object or a tensor is taken as following another tensor's device
    (``x.to(y.device)``, ``device=x.device``): device-agnostic code, which the static rules do not
    flag either, looks the same at runtime as a hard-coded ``torch.device("cuda")``."""
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return f"cuda:{value}"
    return None


def _device_arg(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    """The device a ``Tensor.to(...)`` call names (:func:`_named_device`), or None."""
    if kwargs.get("device") is not None:
        return _named_device(kwargs["device"])
    for a in args[1:]:
        if isinstance(a, (str, int, torch.device, torch.Tensor)) and not isinstance(a, bool):
            return _named_device(a)
    return None


@dataclass
class Recorder:
    """Collects :class:`Fact` counts for forward passes of one model.

    ``targets`` maps a storage address to what owns it (``parameter 'w'``, ``buffer 'b'``,
    ``input 0``), set by :meth:`watch`; ``sites`` holds construction sites from
    :func:`construction_sites`. ``facts`` counts each fact; ``lines_run`` counts the root lines
    that issued at least one aten op (a coverage proxy: a static finding on a line that never ran
    was not contradicted by the run). ``outside`` counts events with no frame inside the root."""

    roots: Roots
    sites: dict[int, Site] = field(default_factory=dict)
    facts: Counter[Fact] = field(default_factory=Counter)
    lines_run: set[Site] = field(default_factory=set)
    outside: int = 0
    ops: int = 0
    targets: dict[int, str] = field(default_factory=dict)
    _call_storages: set[int] = field(default_factory=set)
    _call_name: str = ""
    _stack: list[torch.nn.Module] = field(default_factory=list)
    _called: dict[int, torch.nn.Module] = field(default_factory=dict)
    _class_inside: dict[type, bool] = field(default_factory=dict)

    # -- targets -------------------------------------------------------------------------------
    def watch(self, model: torch.nn.Module, inputs: tuple[Any, ...]) -> None:
        """Name the storages of ``model``'s parameters and buffers and of the example ``inputs``."""
        self.targets = {}
        for i, t in enumerate(_tensors(inputs, [])):
            if (k := _storage_key(t)):
                self.targets[k] = f"input {i}"
        for name, b in model.named_buffers():
            if (k := _storage_key(b)):
                self.targets[k] = f"buffer '{name}'"
        for name, p in model.named_parameters():
            if (k := _storage_key(p)):
                self.targets[k] = f"parameter '{name}'"

    def _target(self, t: Any) -> str:
        return self.targets.get(_storage_key(t), "fresh tensor")

    # -- placement -----------------------------------------------------------------------------
    def _inside(self, cls: type) -> bool:
        hit = self._class_inside.get(cls)
        if hit is None:
            hit = self._class_inside[cls] = self.roots.class_inside(cls)
        return hit

    def _library_sites(self) -> tuple[Site, ...]:
        """Construction sites (inside the root) of the library modules (classes outside the root)
        at the top of the running-module stack, innermost first: ``nn.Dropout`` inside an
        ``nn.Sequential`` built in a user module gives both lines."""
        out: list[Site] = []
        for m in reversed(self._stack):
            if self._inside(type(m)):
                break
            site = self.sites.get(id(m))
            if site is not None and site not in out:
                out.append(site)
        return tuple(out)

    def _via(self, frame: types.FrameType) -> str:
        """`` in file:line function`` for a call made by code outside the root (a library helper
        the root called), so a fact placed at the root's call line still says where it ran."""
        if self.roots.rel(frame.f_code.co_filename) is not None:
            return ""
        return f" in {Path(frame.f_code.co_filename).name}:{frame.f_lineno} {frame.f_code.co_name}"

    def _op_definition(self, func: Any) -> tuple[Site, ...]:
        """Where a ``torch.library.custom_op`` was defined, when inside the root (static rules
        flag the registration, the run sees the call)."""
        try:
            from torch._library.custom_ops import OPDEFS

            fn = getattr(OPDEFS.get(func._schema.name), "_init_fn", None)
        except ImportError:
            return ()
        code = getattr(fn, "__code__", None)
        rel = self.roots.rel(code.co_filename) if code is not None else None
        return (Site(rel, code.co_firstlineno),) if rel is not None and code is not None else ()

    def add(self, kind: str, op: str, detail: str = "", frame: types.FrameType | None = None,
            site: Site | None = None, extra: tuple[Site, ...] = ()) -> None:
        """Count one fact placed at ``site`` or at the innermost root frame above ``frame``;
        ``extra`` sites join the library modules' construction sites in ``also_at``."""
        site = site or self.roots.site_of(frame or sys._getframe(1))
        if site is None:
            self.outside += 1
            return
        also = tuple(a for a in (*extra, *self._library_sites()) if a != site)
        self.facts[Fact(kind, site, op, detail, also)] += 1

    # -- the two modes -------------------------------------------------------------------------
    def on_call(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        """A Python-level torch call (TorchFunctionMode): host reads, transfers, tensor hooks."""
        self._call_name = name
        self._call_storages = {_storage_key(t) for t in _tensors((args, kwargs), [])}
        short = name.rpartition(".")[2]
        frame = sys._getframe(2)
        if not name.startswith("torch.Tensor."):
            device = _named_device(kwargs.get("device"))
            # a factory called with a named device, directly from the root (library code
            # creating tensors on a device it was handed is not the user's placement)
            if device is not None and self.roots.rel(frame.f_code.co_filename) is not None:
                self.add("device-transfer", name.removeprefix("torch."), f"created on device {device!r}", frame)
            return
        if short in HOST_READS:
            self.add("host-sync", f"Tensor.{short}", "value read on the host" + self._via(frame), frame)
        elif short in DEVICE_METHODS:
            self.add("device-transfer", f"Tensor.{short}", "", frame)
        elif short == "to" and (device := _device_arg(args, kwargs)) is not None:
            self.add("device-transfer", "Tensor.to", f"device {device!r}", frame)
        elif short == "register_hook":
            self.add("hook", "Tensor.register_hook", "tensor hook registered in forward (runs in backward)", frame)

    def on_op(self, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        """One aten (or custom) op (TorchDispatchMode): schema facts."""
        self.ops += 1
        frame = sys._getframe(2)
        site = self.roots.site_of(frame)
        if site is None:
            self.outside += 1
            return
        self.lines_run.add(site)
        name = f"{func.namespace}::{func._schema.name.partition('::')[2]}.{func._overloadname}"
        if func.namespace not in CORE_NAMESPACES:
            self.add("custom-op", name, f"namespace '{func.namespace}'", site=site, extra=self._op_definition(func))
        tags = set(func.tags)
        if torch.Tag.nondeterministic_seeded in tags and not _random_disabled(func, args, kwargs):
            self.add("random", name, "global PRNG", site=site)
        overload = f"{func._schema.name.partition('::')[2]}.{func._overloadname}"
        if overload in _INDEX_OPS:
            idx = args[1] if len(args) > 1 else kwargs.get("indices", ())
            if any(isinstance(t, torch.Tensor) and t.dtype in (torch.bool, torch.uint8) for t in idx or ()):
                what = "boolean mask assignment" if "put" in overload else "boolean mask indexing"
                self.add("dynamic-shape", name, what, site=site)
        elif torch.Tag.dynamic_output_shape in tags:
            self.add("dynamic-shape", name, "output shape depends on values", site=site)
        if torch.Tag.data_dependent_output in tags and self._call_name.rpartition(".")[2] not in HOST_READS:
            self.add("host-sync", name, f"value read on the host in {self._call_name or 'an op'}", site=site)
        written = _written_arguments(func, args, kwargs)
        if written:
            for a, value in written:
                for t in _tensors(value, []):
                    if _storage_key(t) in self._call_storages:
                        how = "out= argument" if a.kwarg_only and a.name.startswith("out") else "in place"
                        self.add("in-place", name, f"{how} on {self._target(t)}", site=site)

    # -- module-level watching -----------------------------------------------------------------
    def _pre(self, module: torch.nn.Module, args: Any) -> None:
        self._stack.append(module)
        self._called[id(module)] = module

    def _post(self, module: torch.nn.Module, args: Any, output: Any) -> None:
        if self._stack and self._stack[-1] is module:
            self._stack.pop()

    @contextlib.contextmanager
    def active(self) -> Iterator[None]:
        """Record while active: both modes, the module stack, attribute writes."""
        from torch.nn.modules import module as nn_module

        recorder = self
        original_setattr = torch.nn.Module.__setattr__
        original_buffer = torch.nn.Module.register_buffer
        original_param = torch.nn.Module.register_parameter

        def direct_site() -> Site | None:  # the caller of the patched method, when in the root
            frame = sys._getframe(2)
            rel = recorder.roots.rel(frame.f_code.co_filename)
            return Site(rel, frame.f_lineno) if rel is not None else None

        def __setattr__(self: torch.nn.Module, name: str, value: Any) -> None:
            if (site := direct_site()) is not None:
                recorder.add("attr-write", "Module.__setattr__",
                             f"{type(self).__name__}.{name} = {type(value).__name__}", site=site)
            original_setattr(self, name, value)

        def register_buffer(self: torch.nn.Module, name: str, *a: Any, **k: Any) -> None:
            if (site := direct_site()) is not None:
                recorder.add("attr-write", "Module.register_buffer", f"{type(self).__name__}.{name}", site=site)
            original_buffer(self, name, *a, **k)

        def register_parameter(self: torch.nn.Module, name: str, *a: Any, **k: Any) -> None:
            if (site := direct_site()) is not None:
                recorder.add("attr-write", "Module.register_parameter", f"{type(self).__name__}.{name}", site=site)
            original_param(self, name, *a, **k)

        pre = nn_module.register_module_forward_pre_hook(self._pre)
        post = nn_module.register_module_forward_hook(self._post, always_call=True)
        torch.nn.Module.__setattr__ = __setattr__  # type: ignore[method-assign]
        torch.nn.Module.register_buffer = register_buffer  # type: ignore[method-assign]
        torch.nn.Module.register_parameter = register_parameter  # type: ignore[method-assign]
        self._stack.clear()
        try:
            with _FunctionMode(self), _DispatchMode(self):
                yield
        finally:
            torch.nn.Module.__setattr__ = original_setattr  # type: ignore[method-assign]
            torch.nn.Module.register_buffer = original_buffer  # type: ignore[method-assign]
            torch.nn.Module.register_parameter = original_param  # type: ignore[method-assign]
            pre.remove()
            post.remove()
            self._stack.clear()

    def hooks_fired(self, hook_sites: dict[int, Site]) -> None:
        """Count a ``hook`` fact for each forward/forward-pre hook of a module that ran during
        :meth:`active`, at its registration site (``hook_sites``, by hook id) or else at the
        hook function's ``def`` line when that is inside the root. Backward hooks are listed as
        registered (they fire in backward, which the probe does not run)."""
        from torch.nn.modules import module as nn_module

        for module in self._called.values():
            for attr, what in (("_forward_pre_hooks", "forward pre-hook"), ("_forward_hooks", "forward hook"),
                               ("_backward_hooks", "backward hook"), ("_backward_pre_hooks", "backward pre-hook")):
                for hook in getattr(module, attr, {}).values():
                    self._hook_fact(hook, what, type(module).__name__, hook_sites)
        for hooks, what in ((nn_module._global_forward_pre_hooks, "global forward pre-hook"),
                            (nn_module._global_forward_hooks, "global forward hook")):
            for hook in hooks.values():
                if getattr(hook, "__self__", None) is not self:
                    self._hook_fact(hook, what, "every module", hook_sites)
        self._called.clear()

    def _hook_fact(self, hook: Any, what: str, owner: str, hook_sites: dict[int, Site]) -> None:
        name = getattr(hook, "__qualname__", type(hook).__name__)
        site = hook_sites.get(id(hook))
        if site is None:
            code = getattr(getattr(hook, "__func__", hook), "__code__", None)
            rel = self.roots.rel(code.co_filename) if code is not None else None
            site = Site(rel, code.co_firstlineno) if rel is not None and code is not None else None
        if site is None:
            self.outside += 1
            return
        self.facts[Fact("hook", site, name, f"{what} on {owner}")] += 1


@contextlib.contextmanager
def hook_registrations(roots: Roots, sites: dict[int, Site]) -> Iterator[None]:
    """While active, ``register_forward_hook``/``register_forward_pre_hook``/
    ``register_full_backward_hook``/``register_full_backward_pre_hook`` calls made from the root
    record their line in ``sites`` by the hook function's ``id``."""
    names = ("register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
             "register_full_backward_pre_hook", "register_backward_hook")
    originals = {n: getattr(torch.nn.Module, n) for n in names}

    def wrap(original: Any) -> Any:
        def register(self: torch.nn.Module, hook: Any, *a: Any, **k: Any) -> Any:
            site = roots.site_of(sys._getframe(1))
            if site is not None:
                sites[id(hook)] = site
            return original(self, hook, *a, **k)

        return register

    for n, original in originals.items():
        setattr(torch.nn.Module, n, wrap(original))
    try:
        yield
    finally:
        for n, original in originals.items():
            setattr(torch.nn.Module, n, original)


class _FunctionMode(TorchFunctionMode):
    """Python-level torch calls, forwarded to :meth:`Recorder.on_call`."""

    def __init__(self, recorder: Recorder) -> None:
        super().__init__()
        self.recorder = recorder

    def __torch_function__(self, func: Any, types: Any, args: tuple[Any, ...] = (),
                           kwargs: dict[str, Any] | None = None) -> Any:
        kwargs = kwargs or {}
        self.recorder.on_call(resolve_name(func) or getattr(func, "__name__", str(func)), args, kwargs)
        return func(*args, **kwargs)


class _DispatchMode(TorchDispatchMode):
    """aten ops, forwarded to :meth:`Recorder.on_op`."""

    def __init__(self, recorder: Recorder) -> None:
        super().__init__()
        self.recorder = recorder

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple[Any, ...] = (),
                           kwargs: dict[str, Any] | None = None) -> Any:
        kwargs = kwargs or {}
        self.recorder.on_op(func, args, kwargs)
        return func(*args, **kwargs)


def snapshot(model: torch.nn.Module) -> dict[str, tuple[int, torch.Tensor]]:
    """Parameters and buffers by name: (identity, detached copy), to compare after forward."""
    with torch.no_grad():
        state = {f"parameter '{n}'": (id(p), p.detach().clone()) for n, p in model.named_parameters()}
        state.update({f"buffer '{n}'": (id(b), b.detach().clone()) for n, b in model.named_buffers()})
    return state


def state_changes(model: torch.nn.Module, before: dict[str, tuple[int, torch.Tensor]]) -> list[tuple[str, str]]:
    """(name, how) for each parameter/buffer whose value, shape or identity differs from
    ``before`` (:func:`snapshot`), or that appeared during forward; sorted by name."""
    after = {f"parameter '{n}'": p for n, p in model.named_parameters()}
    after.update({f"buffer '{n}'": b for n, b in model.named_buffers()})
    changes = []
    for name, t in after.items():
        if name not in before:
            changes.append((name, "registered during forward"))
            continue
        ident, old = before[name]
        if id(t) != ident:
            changes.append((name, "replaced by a new tensor"))
        elif t.shape != old.shape or not torch.equal(t.detach(), old):
            changes.append((name, "value changed"))
    return sorted(changes)
