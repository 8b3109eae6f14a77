"""The project graph: files, classes and functions as nodes; imports, calls, composition,
inheritance and containment as edges (plain mappings, :attr:`Project.nodes` and
:attr:`Project.edges`; a :class:`networkx.MultiDiGraph` on request), built from the per-file
:class:`~migrate_lens.models.FileFacts`.

On top of the graph this module decides three project-level facts:

- **traced reachability**: which functions run under ``jax.jit`` after the port (every
  ``forward``-like method, hook callbacks, user-marked ``config.traced_entries`` and whatever
  they call, across files). ``traced_only`` findings survive only there;
- **module units**: each ``nn.Module`` (through any inheritance chain, across files), each
  ``autograd.Function`` and each file's remaining code;
- **status propagation**: a unit's status (pure < mechanical < redesign < blocked) is the worst
  porting kind among the findings it reaches through containment, calls, composition and
  inheritance, with the path that explains it.

Name resolution is best effort and never guesses: a reference that points into the project
(a ``self.x`` call, a name under a project package) but cannot be resolved is counted in
``Project.unresolved``; references to other libraries (torch, numpy, stdlib) are external.
"""

from __future__ import annotations

import functools
import re
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from migrate_lens.analysis.kinds import COMMON_METHODS
from migrate_lens.callsites import CallSiteHazard, call_site_hazards
from migrate_lens.catalog import Catalog
from migrate_lens.config import Config
from migrate_lens.fastinit import fast_init, replacer
from migrate_lens.gctools import gc_paused
from migrate_lens.fold import fold_duplicates, fold_table
from migrate_lens.interproc import (flow_kinds, function_contexts, holds, in_host_loop, is_test_function, is_test_path,
                                    reach, recontext, training_roles)
from migrate_lens.models import AUTOGRAD_FUNCTION_BASES, PLAIN_BASE_PREFIXES, PLAIN_BASES, CallSiteFact, ClassFact, FileFacts, Finding, InjectionFact, WrapperFact
from migrate_lens.wrappers import blind, through_member_wrapper, through_wrapper

if TYPE_CHECKING:
    import networkx as nx

#: Rule categories whose hazards exist only while a function is traced: in eager (host) code
#: the same construct runs in JAX as written or with a local change (see :meth:`_Builder.level`).
#: Custom ops, ecosystem dependencies, devices, in-place aliasing and APIs without a JAX
#: counterpart are obstacles in any context and are not among them.
TRACE_ONLY_CATEGORIES = frozenset({"dynamic-control-flow", "data-dependent-shape", "side-effect", "rng", "module-state"})

#: Unit statuses from best to worst; a finding's rule ``porting`` kind maps onto them.
STATUSES: tuple[str, ...] = ("pure", "mechanical", "redesign", "blocked")
_PORTING_TO_STATUS = {"none": 0, "mechanical": 1, "redesign": 2, "blocked": 3}

#: A private (``_helper``), not dunder, method name: :func:`~migrate_lens.interproc.function_contexts`'s helpers
_PRIVATE_NAME = re.compile(r"^_(?!_)\w*$")
#: Private method names that are not forward-pass helpers when nothing in the project calls
#: them: overrides of ``torch.nn.Module``'s own machinery, which torch calls from ``.to()``,
#: ``load_state_dict()`` or ``__call__`` on the host (timm's ``_apply`` clearing a cache), and
#: the host verbs of configuration, weight surgery, checkpoints and generation set-up
#: (``_freeze_parameters``, ``_tie_weights``, ``_prepare_generation_config``,
#: ``_reorder_cache``). (torch's ``_conv_forward``/``_check_input_dim`` are called from its
#: layers' ``forward``: an override of them is a forward-pass helper.)
_HOST_HELPER_NAME = re.compile(
    r"^_(apply|named_members|get_name|replicate_for_data_parallel|call_impl|wrapped_call_impl|slow_forward|"
    r"get_backward_\w+|maybe_warn_\w+|save_to_state_dict|load_from_state_dict|version|"
    r"(freeze|unfreeze|set|enable|disable|tie|untie|resize|prune|fuse|merge|unmerge|load|save|convert|prepare|"
    r"update_model_kwargs|reorder_cache|init|reset|register|backward_compat|from|to|export|print|log|repr|"
    r"make|build|create|setup|check|validate|warn|deprecat)(_\w*)?)$")

#: Edge kinds. ``contains``: file -> top-level class/function, class -> method, function ->
#: nested function. Status flows along every kind except ``import``.
EDGE_KINDS: tuple[str, ...] = ("call", "composition", "contains", "import", "inherits")
_STATUS_EDGES = frozenset({"call", "composition", "contains", "inherits"})

#: ``nn.Module`` API methods a ``self.x(...)`` call may name without being project code.
_NN_MODULE_API = frozenset({
    "add_module", "apply", "bfloat16", "buffers", "children", "cpu", "cuda", "double", "eval",
    "extra_repr", "float", "get_buffer", "get_parameter", "get_submodule", "half", "load_state_dict",
    "modules", "named_buffers", "named_children", "named_modules", "named_parameters", "parameters",
    "register_buffer", "register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
    "register_backward_hook", "register_full_backward_pre_hook", "register_module", "register_parameter",
    "register_load_state_dict_post_hook", "register_state_dict_pre_hook", "requires_grad_", "share_memory",
    "state_dict", "to", "to_empty", "train", "type", "xpu", "zero_grad", "forward", "__call__",
    "_apply", "_get_name", "_register_load_state_dict_pre_hook", "_register_state_dict_hook",
})
#: Bases of the input pipeline's classes: their methods (``__getitem__``, ``__iter__``, a
#: dataset's ``process``) run in the host data loader, never under a trace; a port keeps them
#: on numpy. Any spelling (``torch.utils.data.dataset.Dataset``) matches its leaf under this prefix.
_DATA_PIPELINE_PREFIX = "torch.utils.data."
_DATA_PIPELINE_LEAVES = frozenset({"Dataset", "IterableDataset", "Sampler", "BatchSampler", "DataLoader",
                                   "TensorDataset", "ConcatDataset", "Subset", "DistributedSampler"})

#: At most this many project classes defining a method name for a call of it on an object of
#: unknown class to reach each of them (:meth:`_Builder.by_method_name`)
MAX_METHOD_OWNERS = 3

#: Leaf names of compiled extension modules, by the conventions of ``setup.py`` builds
#: (``CUDAExtension("pkg._C", ...)``: torchvision, detectron2, GroundingDINO, maskrcnn-benchmark;
#: ``pkg._ext``: mmcv; ``pkg.roi_align_cuda``, ``pkg.nms_cpp``)
COMPILED_MODULE = re.compile(r"_C(_\w+)?$|_?ext(_\w+)?$|\w+_(ext|cuda|cpp|kernels?)$")

#: Method names of a model's configuration, called by the user between runs: setters and
#: switches (``set_attn_processor``, ``enable_slicing``, ``disable_gradient_checkpointing``).
_CONFIG_METHOD = re.compile(r"^(set|enable|disable)_\w+$")
_EXTERNAL = "\0external"  # sentinel: resolved to code outside the project
_replace_finding = replacer(Finding)  # dataclasses.replace for findings, without its field walk


@fast_init
@dataclass(frozen=True, slots=True)
class ModuleInfo:
    """One unit of migration work (a row of report.json ``modules``).

    ``kind``: ``nn.Module`` | ``autograd.Function`` | ``file`` (a file's code outside those
    classes; its qualname is the dotted module name). ``status`` is the propagated status
    (:data:`STATUSES`); ``explanation`` the paths that justify a non-pure status, e.g.
    ``"Encoder -> Layer -> Attention: custom-op ML401 at models/attn.py:42"``. ``findings``
    are the unit's own findings (not those of what it reaches). ``depends_on`` are the units it
    needs ported first (composition, calls, inheritance; sorted qualnames). ``lines_of_code``
    are physical lines; ``functions`` the number of functions and methods in its own code;
    ``is_test`` marks test code (see :func:`is_test_path`).
    """

    qualname: str
    path: str
    line: int
    end_line: int
    kind: str
    lines_of_code: int
    status: str
    explanation: tuple[str, ...]
    findings: tuple[Finding, ...]
    depends_on: tuple[str, ...]
    functions: int
    is_test: bool

    @property
    def pure(self) -> bool:
        """``status == "pure"``."""
        return self.status == "pure"


@fast_init
@dataclass(frozen=True, slots=True)
class Node:
    """A node of the project graph (:attr:`Project.nodes`). ``kind``: file | class | function |
    external (a top-level package outside the project); ``path`` and ``line`` (1-based; a file's
    is 1) locate it ("" and 0 for external nodes); ``status`` is the propagated status
    (:data:`STATUSES`, "" for external nodes); ``module_kind``: nn.Module | autograd.Function |
    ""; ``traced``: a traced-reachable function."""

    kind: str
    path: str
    line: int
    status: str
    module_kind: str
    traced: bool


@dataclass(frozen=True)
class Project:
    """The project-level result of :func:`build_project`.

    - ``nodes``: the graph's nodes by dotted name (files by module name, classes, functions;
      external top-level packages such as ``torch``), sorted by name (:class:`Node`);
      ``edges``: source -> its out-edges as sorted ``(target, kind)`` pairs (:data:`EDGE_KINDS`;
      at most one edge per (source, target, kind)), sources sorted. :attr:`graph` is the same
      graph as a :class:`networkx.MultiDiGraph`, built on first use (the scan itself never
      needs networkx);
    - ``findings``: FINAL findings sorted by (path, line, column, code): ``traced_only`` ones
      resolved (kept with ``context="traced"`` when their function is traced-reachable, else
      dropped);
    - ``modules``: units sorted by qualname; ``unresolved``: project references (calls,
      imports, bases, submodule constructors, traced entries) that could not be resolved;
    - ``files``: the input facts (sorted by path); ``traced``: traced-reachable function ids;
    - ``unit_of``: node id -> owning unit qualname; ``external_imports``: top-level external
      package -> sorted ``path:line`` evidence of its imports;
    - ``dropped_traced_only``: how many ``traced_only`` findings were dropped as unreachable;
    - ``call_sites``: the traced call sites of project helpers that hold a hazard failing the
      call under ``jax.jit`` (:func:`migrate_lens.callsites.call_site_hazards`), sorted.
    """

    findings: tuple[Finding, ...]
    modules: tuple[ModuleInfo, ...]
    unresolved: int
    files: tuple[FileFacts, ...] = ()
    traced: frozenset[str] = frozenset()
    unit_of: Mapping[str, str] = field(default_factory=dict)
    external_imports: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    dropped_traced_only: int = 0
    resolved: int = 0
    #: project modules and packages imported but absent from the tree (``fla.ops`` when only ``fla/layers``
    #: and ``fla/models`` were scanned: a sibling distribution sharing the namespace, or a
    #: folder left out of the scan), with how many imports name them; most imported first
    missing_modules: tuple[tuple[str, int], ...] = ()
    nodes: Mapping[str, Node] = field(default_factory=dict)
    edges: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    #: where traced code calls a project helper holding a hazard that makes the call fail
    #: under ``jax.jit`` (:mod:`migrate_lens.callsites`; not counted, not priced)
    call_sites: tuple[CallSiteHazard, ...] = ()

    def module(self, qualname: str) -> ModuleInfo:
        """The unit named ``qualname``. Raises KeyError if there is none."""
        for m in self.modules:
            if m.qualname == qualname:
                return m
        raise KeyError(qualname)

    @cached_property
    def graph(self) -> nx.MultiDiGraph:
        """:attr:`nodes` and :attr:`edges` as a :class:`networkx.MultiDiGraph` (built once, on
        first use): nodes in sorted order with the :class:`Node` fields as attributes, edges
        keyed by their kind with a ``kind`` attribute, in (source, target, kind) order."""
        import networkx as nx

        g: nx.MultiDiGraph = nx.MultiDiGraph()
        g.add_nodes_from((n, {"kind": a.kind, "path": a.path, "line": a.line, "status": a.status,
                              "module_kind": a.module_kind, "traced": a.traced}) for n, a in self.nodes.items())
        add_edge = g.add_edge
        for u, out in self.edges.items():
            for v, k in out:
                add_edge(u, v, k, kind=k)
        return g


def _cython_modules(files: Sequence[FileFacts]) -> set[str]:
    """The modules Cython sources of the tree compile to (``monotonic_align/core.pyx`` beside
    ``monotonic_align/__init__.py`` -> ``<pkg>.monotonic_align.core``, VITS's monotonic
    alignment search): named by the package whose ``__init__.py`` shares their folder (a
    ``.pyx`` outside a package is imported by a name the scan cannot tell)."""
    folders = {f.path.rpartition("/")[0]: f.module for f in files if f.path.endswith("__init__.py")}
    out = set()
    for f in files:
        if f.module.startswith("native:") and f.path.endswith(".pyx"):
            folder, _, name = f.path.rpartition("/")
            package = folders.get(folder)
            if package is not None and name[:-4].isidentifier():
                out.add(f"{package}.{name[:-4]}")
    return out


# ---------------------------------------------------------------------------- resolution
class _Resolver:
    """Dotted-name resolution across the project's modules, following import bindings
    (re-exports through package ``__init__``), star imports, and class members through bases."""

    def __init__(self, files: Sequence[FileFacts]) -> None:
        self.modules: dict[str, FileFacts] = {f.module: f for f in files}
        self.tops = {m.split(".", 1)[0] for m in self.modules}
        self.packages = {f.module for f in files if f.path.endswith("__init__.py")}
        #: compiled extension modules the tree's build files declare (``FileFacts.extension_modules``)
        self.declared_extensions = {m for f in files for m in f.extension_modules} | _cython_modules(files)
        #: member factories (``FileFacts.member_factories``): function qualname -> the object
        #: whose member it returns; ``<f>().op`` stands for ``<object>.op``
        self.factories = {q: holder for f in files for q, holder in f.member_factories}
        #: closure factories (``FileFacts.closure_factories``): function qualname -> the closure it returns
        self.closures = {q: c for f in files for q, c in f.closure_factories}
        #: module-level data names (``FileFacts.module_globals``) as ``<module>.<name>``
        self.variables = {f"{f.module}.{n}" for f in files for n in f.module_globals}
        #: module-level instances of project classes (``FileFacts.module_instances``) -> class
        self.instances = {name: cls for f in files for name, cls in f.module_instances}
        #: every module and package name with source in the tree, and each of their parents
        self.module_paths = {".".join(m.split(".")[:k]) for m in self.modules for k in range(1, m.count(".") + 2)}
        #: the one top-level package every module of the tree lies in ("" when there are several)
        self.root = next(iter(self.tops)) if len(self.tops) == 1 else ""
        self.classes: dict[str, tuple[str, ...]] = {}  # class qualname -> raw bases
        self.functions: set[str] = set()
        #: class members bound to a function in the class body (``FileFacts.method_aliases``)
        self.method_aliases = {member: target for f in files for member, target in f.method_aliases}
        self.bindings: dict[str, dict[str, str]] = defaultdict(dict)  # module -> alias -> dotted
        self.stars: dict[str, list[str]] = defaultdict(list)
        self.guarded: set[tuple[str, str]] = set()  # (module, alias) imported in try/except ImportError
        for f in files:
            for c in f.classes:
                self.classes.setdefault(c.qualname, c.bases)
            for fn in f.functions:
                self.functions.add(fn.qualname)
            for imp in f.imports:
                if imp.name == "*":
                    self.stars[f.module].append(imp.module)
                elif imp.name:
                    target = f"{imp.module}.{imp.name}" if imp.module else imp.name
                    self.bindings[f.module].setdefault(imp.alias, target)
                else:
                    # `import a.b` binds `a`; `import a.b as c` binds `c` to `a.b`.
                    target = imp.module if imp.alias != imp.module.split(".", 1)[0] else imp.alias
                    self.bindings[f.module].setdefault(imp.alias, target)
                if imp.guarded:
                    self.guarded.add((f.module, imp.alias))
            for imp in f.value_aliases:  # `weight_norm = nn.utils.weight_norm` (imports win)
                self.bindings[f.module].setdefault(imp.alias, f"{imp.module}.{imp.name}")
        self._cache: dict[str, str | None] = {}
        self._bases_cache: dict[str, tuple[list[str], int]] = {}
        self._member_cache: dict[tuple[str, str], str | None] = {}
        #: member name -> the classes that define a method (a function) of that name; and the
        #: names of every class member that is a method or a nested class. A lookup of any
        #: other name cannot find project code through any chain of bases (see member()):
        #: most lookups on core (`self.conv1(x)`: a submodule, not a member)
        self.method_owners: dict[str, set[str]] = defaultdict(set)
        self.member_names: set[str] = set()
        for q in (*self.functions, *self.classes):
            head, _, leaf = q.rpartition(".")
            if head in self.classes:
                self.member_names.add(leaf)
                if q in self.functions:
                    self.method_owners[leaf].add(head)
        for q in self.method_aliases:
            head, _, leaf = q.rpartition(".")
            self.member_names.add(leaf)
            self.method_owners[leaf].add(head)
        self._external_reach: dict[str, bool] = {}

    def made_by_factory(self, head: str) -> str | None:
        """For ``<f>()`` (the result of calling a project function ``f``), the dotted name of the
        object whose member ``f`` returns when ``f`` is a member factory (:attr:`factories`);
        None for anything else."""
        return self.factories.get(head[:-2]) if head.endswith("()") else None

    def missing_module(self, dotted: str) -> str:
        """The first module or package of the project's namespace on the way to ``dotted`` (an
        imported module or name) that the tree holds no source for (``fla.ops`` for ``fla.ops.gla.chunk``
        when the tree has ``fla/`` but no ``fla/ops/``); "" when ``dotted`` is outside the
        project or every package on the way exists."""
        if not self.is_projectish(dotted):
            return ""
        parts = dotted.split(".")
        for k in range(2, len(parts) + 1):
            head = ".".join(parts[:k])
            if head not in self.module_paths:
                parent = ".".join(parts[:k - 1])
                # the parent is a folder (a package, or a namespace folder with no module of its
                # own), not a module whose member is missing (`pkg.utils.foo`)
                folder = parent in self.packages or parent not in self.modules
                return head if folder else ""
        return ""

    def is_projectish(self, dotted: str) -> bool:
        """True when ``dotted`` starts with a project top-level package name."""
        return dotted.split(".", 1)[0] in self.tops

    def resolve(self, dotted: str) -> str | None:
        """Node id (module, class or function) for ``dotted``, :data:`_EXTERNAL` for names
        outside the project, ``None`` when it points into the project but cannot be found."""
        hit = self._cache.get(dotted, False)
        if hit is not False:
            return hit  # type: ignore[return-value]
        result = self._resolve(dotted, 0)
        self._cache[dotted] = result
        return result

    def _resolve(self, dotted: str, depth: int) -> str | None:
        if dotted in self.classes or dotted in self.functions or dotted in self.modules:
            return dotted
        if depth > 12 or not dotted:
            return None
        parts = dotted.split(".")
        for i in range(len(parts) - 1, 0, -1):
            mod = ".".join(parts[:i])
            if mod in self.modules:
                return self._in_module(mod, parts[i:], depth)
        # Nested symbol (Class.method / Class.Inner.method) reached by its full qualname prefix.
        for i in range(len(parts) - 1, 0, -1):
            head = ".".join(parts[:i])
            if head in self.classes:
                return self.member(head, parts[i:])
        if self.root and parts[0] != self.root and f"{self.root}.{parts[0]}" in self.module_paths:
            # `from mylib.ops import pick` in a scanned package whose files import each other as
            # from the package's own folder (on sys.path): `<root>.mylib.ops.pick`
            return self._resolve(f"{self.root}.{dotted}", depth + 1)
        return None if self.is_projectish(dotted) else _EXTERNAL

    def _in_module(self, mod: str, rest: list[str], depth: int) -> str | None:
        head = f"{mod}.{rest[0]}"
        if head.endswith("()"):  # a member of what a call returns: `_make_lazy_cuda_func().fwd`
            made = self.made_by_factory(head)
            if made is not None:
                return self._resolve(".".join([made, *rest[1:]]), depth + 1)
            if len(rest) == 1:
                # `self.attn_fn = make_attention(s)`, `@log_output_stats`: what a call of the name
                # returns, the closure of a closure factory (also through an alias); any other
                # name that resolves returns an object the scan does not follow
                base = self._resolve(head[:-2], depth + 1)
                closure = self.closures.get(base) if base is not None else None
                if closure is not None:
                    return self._resolve(closure, depth + 1)
                return None if base is None else _EXTERNAL
            return _EXTERNAL if head[:-2] in self.functions else None  # an object the scan does not follow
        if head in self.classes:
            return self.member(head, rest[1:]) if len(rest) > 1 else head
        if head in self.functions:
            return head if len(rest) == 1 else None
        binding = self.bindings.get(mod, {}).get(rest[0])
        if binding is not None and binding != head:
            found = self._resolve(".".join([binding, *rest[1:]]), depth + 1)
            if found is not None:
                return found
            return None
        for star in self.stars.get(mod, ()):
            if star in self.modules and star != mod and depth < 12:  # (star imports may form a cycle)
                found = self._in_module(star, rest, depth + 1)
                if found is not None and found != _EXTERNAL:
                    return found
        held = self.instances.get(head)
        if held is not None and len(rest) > 1:
            # `AUX_LOSSES.add(...)` with `AUX_LOSSES = AuxLossCollector()`: the class's method
            cls = self._resolve(held, depth + 1)
            if cls is not None and cls in self.classes:
                return self.member(cls, rest[1:])
        if head in self.variables:
            # module-level data (`IS_NPU`, `ACT2FN`, a config dict) or what it holds: found, and
            # no node of the graph (an object the scan does not follow, like a library's)
            return _EXTERNAL
        return None

    def chase(self, dotted: str, found: Callable[[str], bool]) -> str:
        """The first name ``found`` accepts on the way from ``dotted`` through the imports and
        module-level aliases of the project's modules (``dotted`` itself first): ``from .fn
        import clamp_grad`` with ``clamp_grad = ClampGrad.apply`` in ``fn`` reaches
        ``pkg.fn.ClampGrad.apply``; "" when the chain ends (or loops) before one."""
        for _ in range(12):
            if found(dotted):
                return dotted
            parts = dotted.split(".")
            for i in range(len(parts) - 1, 0, -1):
                mod = ".".join(parts[:i])
                if mod in self.modules:
                    binding = self.bindings.get(mod, {}).get(parts[i])
                    if binding is None or binding == f"{mod}.{parts[i]}":
                        return ""
                    dotted = ".".join([binding, *parts[i + 1:]])
                    break
            else:
                return ""
        return ""

    def external_name(self, dotted: str) -> tuple[str, bool]:
        """The name outside the project that ``dotted`` (a name under a project module) is
        bound to through imports and module-level aliases, and whether a ``try``/``except
        ImportError`` import is on the way; ("", False) for project code or unresolvable
        names (``pkg.utils.weight_norm`` -> ``torch.nn.utils.weight_norm``)."""
        return self.follow(dotted)[:2]

    def follow(self, dotted: str) -> tuple[str, bool, str]:
        """:meth:`external_name`, and the project's own compiled extension module the name
        lies in, if any ("" otherwise): a submodule of a project package that has no source
        in the tree, is not a name the package's ``__init__`` binds, and is declared by the
        tree's build (:attr:`declared_extensions`) or named as compiled extensions are
        (:data:`COMPILED_MODULE`: ``pkg._C``, ``pkg._ext``, ``pkg.roi_cuda``), or imported
        under such a name (``from pkg import csrc as _C``).
        ``from . import _C`` then ``_C.nms(boxes, scores, t)`` is a call into native code. A
        call of a member factory (``<f>().op``, :attr:`factories`) is followed to the member
        of the object the factory reads (``getattr(_C, name)``)."""
        guarded = False
        alias = ""  # the local name of the last import followed (`_C` of `from pkg import csrc as _C`)
        for _ in range(12):
            if dotted in self.classes or dotted in self.functions or dotted in self.modules:
                return "", False, ""
            parts = dotted.split(".")
            for i in range(len(parts) - 1, 0, -1):
                mod = ".".join(parts[:i])
                if mod in self.modules:
                    made = self.made_by_factory(f"{mod}.{parts[i]}")
                    if made is not None:  # `_make_lazy_cuda_func("fwd")`: the member `fwd` of what it reads
                        dotted = ".".join([made, *parts[i + 1:]])
                        break
                    binding = self.bindings.get(mod, {}).get(parts[i])
                    if binding is None:
                        sub = f"{mod}.{parts[i]}"
                        compiled = mod in self.packages and sub not in self.module_paths and i + 1 < len(parts) \
                            and (sub in self.declared_extensions or COMPILED_MODULE.match(parts[i]) is not None
                                 or COMPILED_MODULE.match(alias) is not None)
                        return "", False, sub if compiled else ""
                    if binding == f"{mod}.{parts[i]}":
                        return "", False, ""
                    guarded = guarded or (mod, parts[i]) in self.guarded
                    alias = parts[i] if i + 1 < len(parts) else ""
                    dotted = ".".join([binding, *parts[i + 1:]])
                    break
            else:
                return ("", False, "") if self.is_projectish(dotted) else (dotted, guarded, "")
        return "", False, ""

    def member(self, cls: str, rest: Sequence[str], seen: frozenset[str] = frozenset()) -> str | None:
        """``cls.rest[0].rest[1]...`` looked up through the class's project bases (MRO-like,
        depth first). ``None`` if not found; :data:`_EXTERNAL` if an external base could hold it."""
        if not rest:
            return cls
        if rest[0] not in self.member_names:
            # no class of the project has a member of that name: what the walk through the
            # bases below would find is only whether an external base could hold it
            if len(rest) == 1 and rest[0] in _NN_MODULE_API and self.reaches_external_base(cls):
                return _EXTERNAL
            return None
        if len(rest) == 1 and not seen:  # one member name: memoized (core: 64k lookups, 33k distinct)
            key = (cls, rest[0])
            hit = self._member_cache.get(key, False)
            if hit is False:
                hit = self._member_cache[key] = self._member(cls, rest, seen)
            return hit  # type: ignore[return-value]
        return self._member(cls, rest, seen)

    def _member(self, cls: str, rest: Sequence[str], seen: frozenset[str]) -> str | None:
        name = f"{cls}.{rest[0]}"
        if name in self.classes:
            return self.member(name, rest[1:], seen)
        if name in self.functions:
            return name if len(rest) == 1 else None
        if name in self.method_aliases:  # `detect_language = detect_language_function`
            target = self.resolve(self.method_aliases[name])
            return target if len(rest) == 1 and target in self.functions else None
        bases, external = self.bases(cls)
        for b in bases:
            if b in seen:
                continue
            found = self.member(b, rest, seen | {cls})
            if found is not None:
                return found
        return _EXTERNAL if external and len(rest) == 1 and rest[0] in _NN_MODULE_API else None

    def reaches_external_base(self, cls: str) -> bool:
        """True when ``cls`` or a project class among its bases (transitively) has a base
        outside the project (memoized per class)."""
        hit = self._external_reach.get(cls)
        if hit is None:
            seen = {cls}
            todo = [cls]
            hit = False
            while todo and not hit:
                bases, external = self.bases(todo.pop())
                hit = external > 0
                for b in bases:
                    if b not in seen:
                        seen.add(b)
                        todo.append(b)
            self._external_reach[cls] = hit
        return hit

    def bases(self, cls: str) -> tuple[list[str], int]:
        """(project base classes in order, count of external bases) of ``cls``; unresolvable
        project bases are left out (they are counted once, when edges are built)."""
        hit = self._bases_cache.get(cls)
        if hit is not None:
            return hit
        out: list[str] = []
        external = 0
        for raw in self.classes.get(cls, ()):
            r = self.resolve(raw)
            if r == _EXTERNAL:
                external += 1
            elif r is not None and r in self.classes and r != cls:
                out.append(r)
        self._bases_cache[cls] = (out, external)
        return out, external


# ---------------------------------------------------------------------------- algorithms
def dispatch_tables(files: Iterable[FileFacts]) -> dict[str, tuple[str, ...]]:
    """Every file's dispatch tables by dotted name, entries merged in file order: a registry one
    file defines is filled by the files that register into it (``@MODELS.register_module()``)."""
    out: dict[str, tuple[str, ...]] = {}
    registrars: dict[str, str] = {}
    for f in files:
        registrars.update(f.registrars)
        for name, entries in f.dispatch_tables:
            old = out.get(name)
            out[name] = entries if old is None else old + tuple(e for e in entries if e not in old)
    # `@register("X") class C` in one file, `register` a registrar of another (``FileFacts.registrars``):
    # its table holds C, under the key too
    for name in sorted(n for n in out if n.startswith("@")):
        fn, _, key = name[1:].partition("[")
        table = registrars.get(fn)
        if table is not None:
            target = f"{table}[{key}" if key else table
            old = out.get(target, ())
            out[target] = old + tuple(e for e in out[name] if e not in old)
    return out


def strongly_connected(nodes: Iterable[str], adj: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Strongly connected components (Tarjan, iterative), in reverse topological order: a
    component comes after every component it reaches. ``adj`` maps a node to its successors;
    successors missing from ``nodes`` are visited too. Deterministic for sorted inputs."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(adj.get(root, ())))]
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(adj.get(w, ()))))
                    advanced = True
                    break
                if w in on_stack and index[w] < low[v]:
                    low[v] = index[w]
            if advanced:
                continue
            work.pop()
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
            if low[v] == index[v]:
                comp: list[str] = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


def worst_reachable(nodes: Sequence[str], adj: Mapping[str, Sequence[str]], own: Mapping[str, int]) -> dict[str, int]:
    """For each node, the maximum of ``own`` (default 0) over the nodes it reaches through
    ``adj``, itself included; cycles are condensed first, so it is linear in nodes + edges."""
    comp_of: dict[str, int] = {}
    level: list[int] = []
    for i, comp in enumerate(strongly_connected(nodes, adj)):
        best = 0
        for n in comp:
            comp_of[n] = i
        for n in comp:
            best = max(best, own.get(n, 0))
            for w in adj.get(n, ()):
                j = comp_of.get(w, i)
                if j != i and level[j] > best:
                    best = level[j]
        level.append(best)
    return {n: level[comp_of[n]] for n in comp_of}


def _reverse(adj: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """Predecessor lists (in sorted order of the predecessors)."""
    rev: dict[str, list[str]] = defaultdict(list)
    for u in sorted(adj):
        for v in adj[u]:
            rev[v].append(u)
    return rev


def _nearest(rev: Mapping[str, Sequence[str]], sources: Iterable[str]) -> dict[str, str]:
    """For every node that reaches one of ``sources`` (``rev``: predecessor lists), the next
    hop on a shortest path to one (a source maps to itself). Ties break by sorted order."""
    hop: dict[str, str] = {}
    queue: deque[str] = deque()
    for s in sorted(sources):
        hop[s] = s
        queue.append(s)
    while queue:
        v = queue.popleft()
        for u in rev.get(v, ()):
            if u not in hop:
                hop[u] = v
                queue.append(u)
    return hop


def _levels_from_hops(nodes: Iterable[str], hops: Mapping[int, Mapping[str, str]]) -> dict[str, int]:
    """For each of ``nodes``, the highest level whose :func:`_nearest` map holds it (the node
    reaches a finding of that level), else 0: :func:`worst_reachable` over the graph the
    hops were computed on, without a second traversal."""
    levels = dict.fromkeys(nodes, 0)
    for lvl in sorted(hops):  # a higher level overwrites a lower one
        levels.update((n, lvl) for n in hops[lvl] if n in levels)
    return levels


# ---------------------------------------------------------------------------- building
def _by_location(f: Finding) -> tuple[str, int, int, str]:
    return (f.path, f.span.line, f.span.column, f.code)


class _Builder:
    """One build: plain dicts and sets throughout (networkx's import and graph building were
    about a third of the build's time, and nothing in a scan needs them)."""

    def __init__(self, files: tuple[FileFacts, ...], catalog: Catalog, config: Config) -> None:
        self.files = files
        self.catalog = catalog
        self.rules = catalog.by_code()
        self.config = config
        self.res = _Resolver(files)
        self.kind: dict[str, str] = {}
        self.path: dict[str, str] = {}
        self.line: dict[str, int] = {}
        self.module_of: dict[str, str] = {}
        self.parent: dict[str, str] = {}
        self.class_of: dict[str, str] = {}
        self.edges: dict[str, set[tuple[str, str]]] = defaultdict(set)
        self.unresolved = 0
        self.resolved = 0
        self.module_kind: dict[str, str] = {}
        #: classes whose file guessed "nn.Module" from a project base (:meth:`_unseen_module_base`),
        #: and the methods it guessed traced that the project found in no module (:meth:`contexts`)
        self.guessed_modules: set[str] = set()
        self.untraced_guesses: set[str] = set()
        #: (path, line, column, code) of the findings kept in a host sampling loop
        #: (:func:`in_host_loop`, see :meth:`level`)
        self.loop_findings: set[tuple[str, int, int, str]] = set()
        self._open_chain: dict[str, bool] = {}
        self.external_imports: dict[str, list[str]] = defaultdict(list)
        #: project modules and packages the tree imports but holds no source for -> imports of them
        self.missing_modules: Counter[str] = Counter()
        self.submods: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
        #: class -> attribute -> torch module classes it holds (``self.fc = nn.Linear(...)``):
        #: the library submodules that :attr:`submods` keeps only as external
        self.torch_submods: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
        #: (caller, callee as written) of ``self.<attr>(...)`` calls of a torch module held
        #: through a base class in another file: their result is a tensor (filled by calls())
        self.tensor_calls: set[tuple[str, str]] = set()
        self._class_facts: dict[str, dict[str, ClassFact]] = {}  # see class_fact()
        #: classes whose __init__ only hands its arguments to the base's (ClassFact.forwarding_init)
        self.forwarding_inits = {c.qualname for f in files for c in f.classes if c.forwarding_init}
        #: (caller, callee as written) -> resolved project targets (filled by calls())
        self.call_targets: dict[tuple[str, str], list[str]] = {}
        #: `__call__` methods of plain classes that traced code calls on an instance (`self.sampler(x)`)
        self.instance_calls: set[str] = set()
        #: (caller, class) call edges made only by calling an instance held on ``self`` whose
        #: class has no project ``forward``/``__call__`` (``self.mlp(x)`` on a subclass of
        #: ``nn.Sequential``): the instance runs torch's forward, not the class's ``__init__``
        self.instance_only: set[tuple[str, str]] = set()
        #: (caller, class) call edges made by calling the class itself (a constructor)
        self.constructs: set[tuple[str, str]] = set()
        #: caller -> methods a `self.m(...)` call of it may run in a subclass instead (overrides()):
        #: reached by the caller's context and argument kinds, but no `call` edge (a base class's
        #: status does not take its subclasses' overrides)
        self.dispatch: dict[str, set[str]] = defaultdict(set)
        self._subclasses: dict[str, list[str]] | None = None  # see overrides()
        self._overrides: dict[tuple[str, str], list[str]] = {}
        self._labels: dict[str, str] = {}  # see label()
        self._paths: dict[tuple[int, str], tuple[tuple[str, ...], int, Finding]] = {}  # see path_to_finding()

    # -- nodes -----------------------------------------------------------------------------
    def add_edge(self, u: str, v: str, kind: str) -> None:
        if u != v:
            self.edges[u].add((v, kind))

    def nodes(self) -> None:
        kind, path, line, module_of = self.kind, self.path, self.line, self.module_of
        for f in self.files:
            mod = f.module
            if mod in kind:
                continue
            kind[mod] = "file"
            path[mod] = f.path
            line[mod] = 1
            module_of[mod] = mod
            for c in f.classes:
                q = c.qualname
                if q not in kind:
                    kind[q] = "class"
                    path[q] = f.path
                    line[q] = c.line
                    module_of[q] = mod
            for fn in f.functions:
                q = fn.qualname
                if q not in kind:
                    kind[q] = "function"
                    path[q] = f.path
                    line[q] = fn.line
                    module_of[q] = mod
        # (in node order: the parents and edges are maps and sets, their order is never read)
        parents, edges, class_of = self.parent, self.edges, self.class_of
        for node, mod in module_of.items():
            if node == mod:
                continue
            head = node.rsplit(".", 1)[0]
            while head != mod and module_of.get(head) != mod and "." in head:
                head = head.rpartition(".")[0]
            parent = head if module_of.get(head) == mod else mod
            parents[node] = parent
            if parent != node:
                edges[parent].add((node, "contains"))
        for node, head in parents.items():
            if kind[node] != "function":
                continue
            while kind[head] == "function":
                head = parents[head]
            if kind[head] == "class":
                class_of[node] = head

    def module_kinds(self) -> None:
        """nn.Module / autograd.Function through inheritance chains, across files."""
        direct: dict[str, str] = {}
        for f in self.files:
            for c in f.classes:
                if any(b in AUTOGRAD_FUNCTION_BASES for b in c.bases):
                    direct.setdefault(c.qualname, "autograd.Function")
                elif c.is_module:
                    if self._unseen_module_base(c.qualname):
                        direct.setdefault(c.qualname, "nn.Module")
                    else:  # a guess the project can settle: its kind comes through its bases
                        self.guessed_modules.add(c.qualname)
        memo: dict[str, str] = {}
        for cls in sorted(self.res.classes):
            if cls in self.kind:
                self.module_kind[cls] = self._kind_through_bases(cls, frozenset({cls}), direct, memo)

    def _unseen_module_base(self, cls: str, seen: frozenset[str] = frozenset()) -> bool:
        """Whether a base of ``cls``, or of a project base of it, up the whole chain, makes it
        an ``nn.Module`` or may: a torch base, a library class the scan does not see
        (``pl.LightningModule``, ``speechbrain...Sequential``), or a project name that does not
        resolve (transformers' ``PreTrainedModel`` when only ``models/`` is scanned). False when
        every base up the chain is a class of the scan or a plain standard-library one: a file
        guesses "module" for a class that defines ``forward`` over a base it cannot see
        (transformers' ``Pipeline(_ScikitCompat)``), and the project then knows from the chain
        (:meth:`_kind_through_bases`) whether it is one. Memoized in :attr:`_open_chain`."""
        hit = self._open_chain.get(cls)
        if hit is not None:
            return hit
        found = False
        for raw in self.res.classes.get(cls, ()):
            if raw.startswith("torch."):
                found = True
                break
            r = self.res.resolve(raw)
            if r is None or (r == _EXTERNAL and not raw.startswith(PLAIN_BASE_PREFIXES) and raw not in PLAIN_BASES):
                found = True
                break
            if r != _EXTERNAL and r in self.res.classes and r != cls and r not in seen \
                    and self._unseen_module_base(r, seen | {cls}):
                found = True
                break
        self._open_chain[cls] = found
        return found

    def _kind_through_bases(self, cls: str, seen: frozenset[str], direct: Mapping[str, str], memo: dict[str, str]) -> str:
        """``direct[cls]``, else the first module kind found through ``cls``'s project bases
        (depth first, not entering ``seen``), memoized in ``memo``. (A method, not a recursive
        closure: that is a reference cycle holding the builder, and every file's facts with it,
        until the paused cyclic GC runs.)"""
        if cls in memo:
            return memo[cls]
        kind = direct.get(cls, "")
        if not kind:
            for b in self.res.bases(cls)[0]:
                if b not in seen:
                    kind = self._kind_through_bases(b, seen | {cls}, direct, memo)
                    if kind:
                        break
        memo[cls] = kind
        return kind

    # -- edges -----------------------------------------------------------------------------
    def _count(self, r: str | None) -> None:
        if r is None:
            self.unresolved += 1
        elif r != _EXTERNAL:
            self.resolved += 1

    def inheritance(self) -> None:
        for f in self.files:
            for c in f.classes:
                for raw in c.bases:
                    r = self.res.resolve(raw)
                    self._count(r)
                    if r is not None and r != _EXTERNAL and r in self.kind:
                        self.add_edge(c.qualname, r, "inherits")

    def imports(self) -> None:
        res = self.res
        for f in self.files:
            for imp in f.imports:
                if imp.name and imp.name != "*":
                    r = res.resolve(f"{imp.module}.{imp.name}" if imp.module else imp.name)
                    if r is None and imp.module in res.modules:
                        self.unresolved += 1  # the module exists, the name is not visible in it
                        r = imp.module
                    elif r == _EXTERNAL and imp.module in res.modules:
                        self.resolved += 1  # the module's data (`from .utils import IS_NPU`): an import of it
                        r = imp.module
                    else:
                        self._count(r)
                else:
                    r = res.resolve(imp.module)
                    self._count(r)
                if r is None:
                    missing = res.missing_module(imp.module or imp.name)
                    if missing:
                        self.missing_modules[missing] += 1
                    continue
                if r == _EXTERNAL:
                    top = (imp.module or imp.name).split(".", 1)[0]
                    if top and top not in res.modules:
                        if top not in self.kind:
                            self.kind[top] = "external"
                            self.path[top] = ""
                            self.line[top] = 0
                        self.add_edge(f.module, top, "import")
                        self.external_imports[top].append(f"{f.path}:{imp.line}")
                    continue
                target = self.module_of.get(r, r)
                if target in self.kind:
                    self.add_edge(f.module, target, "import")

    def composition(self) -> None:
        """Submodules built in classes' init code. A class the file could not tell is a module
        (its ``nn.Module`` base in another file) composes only once inheritance across files
        makes it one: a plain helper class's init is no composition."""
        direct = {c.qualname for f in self.files for c in f.classes if c.is_module}
        builders = {fn.qualname: fn.builds for f in self.files for fn in f.functions if fn.builds}
        for f in self.files:
            for s in f.submodules:
                if s.owner not in direct and self.module_kind.get(s.owner) != "nn.Module":
                    continue
                if s.target.endswith(("()", "[]")):
                    # `self.scheduler = get_scheduler(name)`: each class the builder returns; every
                    # entry of a table another file defines, built in a loop over it
                    held = self._built_classes(s.target[:-2], builders, 3) if s.target.endswith("()") \
                        else self._table_classes(s.target[:-2])
                    for r in held if s.owner in self.kind else ():
                        self.submods[s.owner][s.attr].append(r)
                        self.add_edge(s.owner, r, "composition")
                    continue
                r = self.res.resolve(s.target)
                self._count(r)
                if r is None:
                    continue
                if r == _EXTERNAL:
                    self.submods[s.owner][s.attr].append(_EXTERNAL)
                    if _is_torch_module_class(s.target):
                        self.torch_submods[s.owner][s.attr].append(s.target)
                elif r in self.res.classes and s.owner in self.kind:
                    self.submods[s.owner][s.attr].append(r)
                    self.add_edge(s.owner, r, "composition")

    def _built_classes(self, name: str, builders: Mapping[str, tuple[str, ...]], depth: int) -> list[str]:
        """The project classes a call of the function ``name`` returns instances of, through
        its ``FunctionFact.builds``: a class, every entry of a table (``SCHEDULERS[name](...)``,
        entries registered in any file), or another builder's (``depth`` builders deep);
        sorted, without duplicates."""
        r = self.res.resolve(name)
        if r is None or r == _EXTERNAL or depth <= 0:
            return []
        if r in self.res.classes:
            return [r]
        out: set[str] = set()
        for built in builders.get(r, ()):
            out.update(self._table_classes(built[:-2]) if built.endswith("[]")
                       else self._built_classes(built, builders, depth - 1))
        return sorted(out)

    def _table_classes(self, table: str) -> list[str]:
        """The project classes a table (any file's, :meth:`table_name`) holds, in its order."""
        out: list[str] = []
        for entry in self.tables.get(self.table_name(table, self.tables), ()):
            r = self.res.resolve(entry)
            if r is not None and r != _EXTERNAL and r in self.res.classes:
                out.append(r)
        return out

    def injections(self) -> None:
        """Constructor injection (:class:`~migrate_lens.models.InjectionFact`): a project class
        passed to a constructor parameter that the constructor stores, calls or passes on (a
        ``slot``) is held by that constructor's class in the slot's attribute (composition:
        ``self.<attr>.<method>(...)`` then resolves to it, its status reaches the holder). Classes
        injected into a slot of a non-module class (a config entry) are what a ``field`` call
        ``<config>.<field>(...)`` in a module's init code builds."""
        slots: dict[str, list[InjectionFact]] = defaultdict(list)
        args: list[InjectionFact] = []
        fields: list[InjectionFact] = []
        args_passed: list[InjectionFact] = []
        methods: list[InjectionFact] = []
        members: list[InjectionFact] = []
        held: list[InjectionFact] = []
        lists = {"arg": args, "field": fields, "pass": args_passed, "method": methods, "member": members,
                 "held": held}
        for f in self.files:
            for j in f.injections:
                (slots[j.owner] if j.kind == "slot" else lists[j.kind]).append(j)
        field_targets: dict[str, set[str]] = defaultdict(set)

        def hold(owner: str, attr: str, target: str) -> None:
            if target in self.res.classes and owner in self.kind and target in self.kind:
                self.submods[owner][attr].append(target)
                self.add_edge(owner, target, "composition")
                if not self.module_kind.get(owner):
                    field_targets[attr].add(target)

        for owner in sorted(slots):
            for j in slots[owner]:
                if j.target:  # a class the constructor binds itself (a default, `block = block or B`)
                    r = self.res.resolve(j.target)
                    if r is not None and r != _EXTERNAL:
                        hold(owner, j.attr, r)
        for j in args:
            callee = self.res.resolve(j.owner)
            target = self.res.resolve(j.target)
            if callee is None or callee == _EXTERNAL or callee not in self.res.classes or target is None or target == _EXTERNAL:
                continue
            for cls in (callee, *self.res.bases(callee)[0]):
                matched = [s for s in slots.get(cls, ()) if not s.target and (
                    s.param == j.param if j.param else (j.index >= 0 and s.index == j.index))]
                for s in matched:
                    hold(cls, s.attr, target)
                if matched:
                    break
        for j in fields:
            for t in sorted(field_targets.get(j.param, ())):
                hold(j.owner, j.attr, t)
        for j in members:  # `self.text_model = CLIPTextModel._from_config(c).text_model`
            r = self.res.resolve(j.target)
            if r is not None and r != _EXTERNAL and r in self.res.classes:
                for t in self.submodule_targets(r, j.param):
                    if t != _EXTERNAL:
                        hold(j.owner, j.attr, t)
        self._held(held)
        # objects handed on (a KV cache built in forward, a meter built by the epoch loop):
        # methods called on the parameter they land in run that class's methods. By keyword:
        # any parameter of that name; by position: that parameter of the resolved callee.
        passed: dict[str, set[str]] = defaultdict(set)
        placed: dict[tuple[str, int], set[str]] = defaultdict(set)
        for j in args_passed:
            r = self.res.resolve(j.target)
            if r is None or r == _EXTERNAL or r not in self.res.classes:
                continue
            if j.param:
                passed[j.param].add(r)
            elif j.index >= 0:
                fn = self._function_called(j.owner, j.attr)
                if fn is not None:
                    placed[(fn, j.index)].add(r)
        for j in methods:
            classes = passed.get(j.attr, set()) | (placed.get((j.owner, j.index), set()) if j.index >= 0 else set())
            for cls in sorted(classes):
                m = self.res.member(cls, [j.param])
                if m is not None and m != _EXTERNAL and m in self.kind and j.owner in self.kind:
                    self.add_edge(j.owner, m, "call")
                    found = self.call_targets.setdefault((j.owner, f"{j.attr}.{j.param}"), [])
                    if m not in found:
                        found.append(m)  # (argument kinds flow into the method too)

    def _function_called(self, caller: str, callee: str) -> str | None:
        """The project function or method ``callee`` (as written in ``caller``: a resolved
        dotted name, or ``self.<m>``) names, or None."""
        if callee.startswith("self."):
            cls = self.class_of.get(caller)
            parts = callee.split(".")[1:]
            r = self.res.member(cls, parts) if cls is not None and len(parts) == 1 else None
        else:
            r = self.res.resolve(callee)
        return r if r is not None and r != _EXTERNAL and self.kind.get(r) == "function" else None

    def _held(self, held: list[InjectionFact]) -> None:
        """``held`` facts: ``self.ema = ModelEMA(model)`` in a setup method holds a ModelEMA;
        ``self.criterion = self.init_criterion()`` holds the project classes that method, or any
        subclass's override of it, constructs (one pass over the calls, only when such a
        factory assignment exists). Call targets only: no composition edge."""
        def keep(owner: str, attr: str, r: str | None) -> None:
            if r is not None and r != _EXTERNAL and r in self.res.classes and owner in self.kind and \
                    r not in self.submods[owner][attr]:
                self.submods[owner][attr].append(r)

        factories: dict[str, list[tuple[str, str]]] = defaultdict(list)  # method -> (owner, attr)
        for j in held:
            if j.target:
                keep(j.owner, j.attr, self.res.resolve(j.target))
                continue
            own = self.res.member(j.owner, [j.param])
            for m in (own, *self.overrides(j.owner, j.param)):
                if m is not None and m != _EXTERNAL:
                    factories[m].append((j.owner, j.attr))
        if not factories:
            return
        for f in self.files:
            for call in f.calls:
                holders = factories.get(call.caller)
                if holders and not call.callee.startswith("self."):
                    r = self.res.resolve(call.callee)
                    for owner, attr in holders:
                        keep(owner, attr, r)

    def project_call_findings(self) -> dict[str, list[Finding]]:
        """Findings, by path, of calls of project names that are aliases of library callables
        (:class:`~migrate_lens.models.CallSiteFact`; see :meth:`_Resolver.external_name`), of
        an entry of a dispatch table another file defines (:meth:`_table_entries`) or of a name
        bound to a project ``autograd.Function``'s ``apply`` (:meth:`applied_function`), with
        the config applied as to per-file findings; the per-file stage could not see them."""
        out: dict[str, list[Finding]] = {}
        index = None

        def match(call: CallSiteFact, name: str, path: str, suppressions: Any, **how: Any) -> list[Finding]:
            # the rule engine imported and indexed on the first match only: it loads libcst
            # (0.3 s), which a rescan served from the cache otherwise never needs
            nonlocal index
            from migrate_lens.analysis.engine import build_index, match_project_call

            if index is None:
                index = build_index(self.catalog.rules)
            return match_project_call(call, name, how.pop("guarded", False), path, index, suppressions, **how)

        # extensions the build declares outside the project's packages (`import MultiScaleDeformableAttention`)
        top_level = {m for m in self.res.declared_extensions if not self.res.is_projectish(m)}
        tables = self.tables
        partials = {name: (target, kw) for f in self.files for name, target, kw in f.library_partials}
        wrappers: dict[str, list[WrapperFact]] = defaultdict(list)
        for f in self.files:
            for w in f.library_wrappers:
                wrappers[w.qualname].append(w)
        for f in self.files:
            found: list[Finding] = []
            built: set[tuple[int, str]] = set()  # (line, torch class) matched for a subclass: once per line
            for call in f.calls_to_project:
                if call.site_kind != "call":
                    # `self.drop_path(x)` of a layer built from a project name (a re-export of
                    # timm's DropPath): the layer's rules, on what the name is bound to
                    name, _, _ = self.res.follow(call.callee)
                    if name:
                        found.extend(match(call, name, f.path, f.suppressions))
                    continue
                wrapped = wrappers.get(self.res.resolve(call.callee) or "") if wrappers and not call.method else None
                if wrapped:
                    # `resize(x, size=s, mode="bilinear", align_corners=True)` of another file's
                    # wrapper of F.interpolate: each library call it makes, with these literals
                    for w in wrapped:
                        if w.member:
                            # `make_norm("LayerNorm", d)` of `getattr(nn, name)(dim)`: the member the
                            # caller names, all of its findings the caller's (the wrapper's own
                            # line holds the dynamic-member finding)
                            picked = through_member_wrapper(w, call.args, call.kwargs)
                            if picked is not None:
                                found.extend(match(replace(call, args=picked[1], kwargs=picked[2]), picked[0],
                                                   f.path, f.suppressions))
                            continue
                        got = through_wrapper(w, call.args, call.kwargs)
                        if got is None:
                            continue
                        # only what the caller's literals cause: the rest is the wrapper's own
                        unknown = blind(w)
                        own = {x.code for x in match(replace(call, args=unknown[0], kwargs=unknown[1]),
                                                     w.callee, f.path, ())}
                        found.extend(x for x in match(replace(call, args=got[0], kwargs=got[1]), w.callee, f.path,
                                                      f.suppressions) if x.code not in own)
                    continue
                part = partials.get(call.callee) if partials and not call.method else None
                if part is not None and call.bound:
                    continue  # `norm_layer(c)` of a default `norm_layer=BN`: matched where it is named
                if part is not None:
                    # `resize(x, size=s)` with `resize = partial(F.interpolate, mode="bilinear",
                    # align_corners=True)` in another file: the callable with the partial's keywords
                    # (the call's own win); a class named as a default (`norm_layer=BN`) likewise
                    own = {kw for kw, _, _ in call.kwargs}
                    merged = replace(call, kwargs=tuple(k for k in part[1] if k[0] not in own) + call.kwargs)
                    found.extend(match(merged, part[0], f.path, f.suppressions, reference=call.reference))
                    continue
                if call.reference:  # `norm_layer=LayerNorm` imported: only the subclass's constructor
                    base = self.ctor_base(call.callee)
                    if base and (call.span.line, base) not in built:
                        built.add((call.span.line, base))
                        found.extend(match(call, base, f.path, f.suppressions, subclass_of=call.callee))
                    continue
                if call.callee.endswith("[]"):
                    # an entry of a dispatch table in another file: a call of each entry (one
                    # finding per rule: `Conv["conv", 3]` may be Conv1d, Conv2d or Conv3d)
                    codes: set[str] = set()
                    for entry in self._table_entries(call.callee[:-2], tables):
                        for x in match(call, entry, f.path, f.suppressions):
                            if x.code not in codes:
                                codes.add(x.code)
                                found.append(x)
                    continue
                applied = self.applied_function(call.callee)
                if applied:
                    # `clamp_grad(x)` with `clamp_grad = ClampGrad.apply` in another file: as `Fn.apply(x)`
                    found.extend(match(call, applied, f.path, f.suppressions, applied=True))
                    continue
                name, guarded, compiled = self.res.follow(call.callee)
                if name or compiled:
                    found.extend(match(call, name or call.callee, f.path, f.suppressions, guarded=guarded,
                                       compiled=bool(compiled)))
                elif not call.method and not call.bound:
                    base = self.ctor_base(call.callee)
                    if base and (call.span.line, base) not in built:  # `LayerNorm(d)`, LayerNorm in another file
                        built.add((call.span.line, base))
                        found.extend(match(call, base, f.path, f.suppressions, subclass_of=call.callee))
            if top_level:
                found.extend(self._declared_extension_calls(f, top_level, match))
            if found:
                from migrate_lens.filters import apply_config

                have = {(x.span.line, x.span.column, x.code) for x in f.findings}
                # a project call's span knows its line, not its column (0): a rule the per-file
                # stage matched on that line is the same call's finding, told again
                # (`pointops_cuda.f(...)` in an autograd Function, re-matched as a compiled extension)
                on_line = {(x.span.line, c) for x in f.findings for c in (x.code, *x.folds)}
                kept, _ = apply_config([x for x in found if (x.span.line, x.span.column, x.code) not in have and not (
                    x.span.column == 0 and (x.span.line, x.code) in on_line)], self.config)
                out[f.path] = kept
        return out

    def ctor_base(self, dotted: str) -> str:
        """The torch class whose constructor builds the project class ``dotted`` (followed
        through imports): the class, or the project bases it inherits ``__init__`` from, has no
        ``__init__`` of its own and subclasses that torch class (open_clip's ``LayerNorm(nn.LayerNorm)``
        overriding ``forward`` only keeps ``nn.LayerNorm``'s eps default); "" otherwise. The
        per-file stage does the same for classes of the calling file (``FileVisitor.ctor_bases``)."""
        from migrate_lens.analysis.bindings import is_class_like

        cls = self.res.resolve(dotted)
        for _ in range(8):
            if not cls or cls not in self.res.classes or (
                    f"{cls}.__init__" in self.res.functions and cls not in self.forwarding_inits):
                return ""
            nxt = None
            for raw in self.res.classes[cls]:
                if raw.startswith("torch.") and is_class_like(raw):
                    return raw
                r = self.res.resolve(raw)
                if r is not None and r in self.res.classes:
                    nxt = r
                    break
            cls = nxt
        return ""

    def applied_function(self, dotted: str) -> str:
        """``<Fn>.apply`` when ``dotted`` is, or is bound to through imports and module-level
        aliases, the ``apply`` of a project ``torch.autograd.Function``; "" otherwise (an
        ``nn.Module.apply``, a plain class's method)."""
        applied = self.res.chase(dotted, lambda d: d.endswith(".apply"))
        if applied and self.module_kind.get(self.res.resolve(applied[: -len(".apply")]) or "") == "autograd.Function":
            return applied
        return ""

    @functools.cached_property
    def tables(self) -> dict[str, tuple[str, ...]]:
        """Every dispatch table of the project, by dotted name (:func:`dispatch_tables`), made
        on first use: read by composition and by the project calls' matching."""
        return dispatch_tables(self.files)

    def table_name(self, table: str, tables: Mapping[str, tuple[str, ...]], every: bool = False) -> str:
        """The name ``tables`` holds the dispatch table ``table`` under, followed through the
        project's imports and aliases (:meth:`_Resolver.chase`); a registry's keyed table
        (``pkg.layers.Norm[batch]``) through its registry's name, the key kept; a key only the
        project knows (``@<config class>.<field>``, :meth:`config_default`) replaced by the
        field's default, and without one, the whole table when ``every`` (the entries a call may
        run) or "" (no entry assumed built)."""
        base, bracket, key = table.partition("[")
        if not bracket:
            return self.res.chase(table, tables.__contains__)
        if key[:1] == "@":  # `ACT2FN[config.hidden_act]`: the key the configuration class's default gives
            value = self.config_default(key[:-1])
            if not value:  # (no default known: every entry may run, or none is assumed built)
                return self.res.chase(base, tables.__contains__) if every else ""
            key = f"{value.lower()}]"
        found = self.res.chase(base, lambda d: f"{d}[{key}" in tables)
        if not found and every and key[:1] != "@":
            # (a key the table's literal does not list: entries added by code the table facts do
            # not key, `ACTS.update(make_more())`: every entry may run)
            return self.res.chase(base, tables.__contains__)
        return found + f"[{key}" if found else ""

    @functools.cached_property
    def _string_defaults(self) -> tuple[dict[tuple[str, str], str], dict[str, tuple[str, ...]]]:
        """(``(class, attribute) -> string default``, ``module -> its declared configuration
        classes``) over the project's files (:attr:`FileFacts.string_defaults`,
        :attr:`FileFacts.config_classes`)."""
        values = {(c, a): v for f in self.files for c, a, v in f.string_defaults}
        declared = {f.module: f.config_classes for f in self.files if f.config_classes}
        return values, declared

    def config_default(self, key: str) -> str:
        """The string a configuration field holds by default, for a deferred table key: ``@<class>.
        <field>`` (a parameter annotated or defaulted with that class) or ``@@<module>.<field>``
        (an unannotated ``config`` of that module: the one configuration class its classes
        declare; when it declares several, the default they agree on). The class is followed
        through imports to its definition, then its project bases in order; "" when no default is
        known (one alternative the configuration picks)."""
        values, declared = self._string_defaults
        if key.startswith("@@"):
            module, _, field = key[2:].rpartition(".")
            found = {self._field_default(values, c, field) for c in declared.get(module, ())} - {""}
            return found.pop() if len(found) == 1 else ""
        cls, _, field = key[1:].rpartition(".")
        return self._field_default(values, cls, field)

    def _field_default(self, values: Mapping[tuple[str, str], str], cls: str, field: str) -> str:
        """The string default of ``field`` in class ``cls`` (a dotted name the project resolves)
        or the nearest of its project bases that sets one; "" if none."""
        r = self.res.resolve(cls)
        seen: set[str] = set()
        todo = [r] if r and r != _EXTERNAL else []
        while todo:
            c = todo.pop(0)
            if c in seen:
                continue
            seen.add(c)
            got = values.get((c, field))
            if got is not None:
                return got
            todo.extend(self.res.bases(c)[0])
        return ""

    def _table_entries(self, table: str, tables: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
        """The library callables a dispatch table holds (``pkg.acts.ACTS`` -> ``torch.relu_``,
        ``torch.nn.functional.gelu``), following the table's name through the project's imports
        and aliases to where it is defined (:meth:`_Resolver.chase`), and each entry to the
        library name it stands for."""
        out: list[str] = []
        for entry in tables.get(self.table_name(table, tables, every=True), ()):
            name = entry if not self.res.is_projectish(entry) else self.res.follow(entry)[0]
            if name and name not in out:
                out.append(name)
        return tuple(out)

    def _declared_extension_calls(self, f: FileFacts, modules: set[str], match: Any) -> list[Finding]:
        """Findings of calls in ``f`` (one per caller and callee: :class:`CallFact`) of a
        function of a compiled extension module in ``modules``, a top-level module the tree's
        build declares (``CUDAExtension("MultiScaleDeformableAttention", ...)`` in setup.py,
        ``import MultiScaleDeformableAttention as MSDA``, ``MSDA.ms_deform_attn_forward(...)``):
        the per-file stage took it for a library it does not know. ``match``: the rule matcher
        of :meth:`project_call_findings`."""
        from migrate_lens.models import Span

        out: list[Finding] = []
        context = {fn.qualname: fn.context for fn in f.functions}
        prefixes = tuple(f"{m}." for m in sorted(modules))  # (a declared name may be dotted: `ops.msda`)
        for call in f.calls:
            if call.callee.startswith(prefixes):
                site = CallSiteFact(callee=call.callee, method="", span=Span(call.line, 0, call.line, 0),
                                    snippet=f"{call.callee}(...)", symbol=call.caller,
                                    context=context.get(call.caller, "function"), args=(), kwargs=(),
                                    star=False, no_grad=False)
                out.extend(match(site, call.callee, f.path, f.suppressions, compiled=True))
        return out

    def by_method_name(self, method: str) -> list[str]:
        """The project methods a call ``<obj>.<method>(...)`` on an object of unknown class may
        run: each of the (at most :data:`MAX_METHOD_OWNERS`) project classes that define a method
        of that name, sorted: ``src_mesh.offset_verts(d)`` in a training step given the mesh,
        ``self.target_net.reset_noise()`` with both the network and its ``NoisyLinear`` layers
        defining it (the visitor records such calls only for names no library object commonly
        has, :data:`~migrate_lens.analysis.kinds.COMMON_METHODS`). [] for a dunder name or a
        name more classes define (a generic one: what runs is not known)."""
        if method.startswith("__"):
            return []
        owners = self.res.method_owners.get(method, ())
        if not owners or len(owners) > MAX_METHOD_OWNERS:
            return []
        return sorted(f"{o}.{method}" for o in owners)

    def held_classes(self, cls: str, attrs: Sequence[str]) -> list[str]:
        """The project classes the attribute chain ``attrs`` of an instance of ``cls`` may hold
        (``["attn", "kv_cache"]``: each class ``self.attn`` holds in its ``kv_cache``), through
        :meth:`submodule_targets`; sorted, without duplicates or outside classes."""
        classes = [cls]
        for attr in attrs:
            classes = sorted({t for c in classes for t in self.submodule_targets(c, attr) if t != _EXTERNAL})
            if not classes:
                break
        return classes

    def submodule_targets(self, cls: str, attr: str, seen: frozenset[str] = frozenset()) -> list[str]:
        found = self.submods.get(cls, {}).get(attr)
        if found:
            return found
        for b in self.res.bases(cls)[0]:
            if b not in seen:
                got = self.submodule_targets(b, attr, seen | {cls})
                if got:
                    return got
        return []

    def torch_submodule(self, cls: str, attr: str, seen: frozenset[str] = frozenset()) -> bool:
        """Whether ``cls`` (or a project base of it, in any file) holds a torch module class
        (``nn.Linear``, ``nn.Dropout``) in ``attr``: ``self.<attr>(x)`` then returns a tensor."""
        if self.torch_submods.get(cls, {}).get(attr):
            return True
        return any(b not in seen and self.torch_submodule(b, attr, seen | {cls}) for b in self.res.bases(cls)[0])

    def forward_of(self, cls: str) -> str:
        """The method a call on an instance of ``cls`` runs (through bases): its ``forward``
        (an ``nn.Module``), else its own ``__call__`` (a plain callable class such as a sampler
        held on ``self``), else the class."""
        for method in ("forward", "__call__"):
            r = self.res.member(cls, [method])
            if r is not None and r != _EXTERNAL and r in self.kind:
                return r
        return cls

    def overrides(self, cls: str, name: str) -> list[str]:
        """The methods other than ``cls``'s own lookup of ``name`` that ``self.name(...)`` in a
        method of ``cls`` may run: for every project subclass of ``cls`` (transitively), the
        method its lookup through its own bases finds (class hierarchy analysis; a mixin's
        sibling base counts as the MRO would have it). The template-method pattern: a base
        ``forward`` calls ``self.compute_loss(...)``, which every subclass overrides; a base
        solver's ``integrate`` calls ``self._advance(t[i])``. Sorted qualnames."""
        key = (cls, name)
        hit = self._overrides.get(key)
        if hit is not None:
            return hit
        owners = self.res.method_owners.get(name)
        own = self.res.member(cls, [name])
        # what a subclass's lookup finds instead is a method `<C>.<name>` of some class C
        # other than the one own belongs to: without another such class there is none
        if not owners or (len(owners) == 1 and own is not None and own != _EXTERNAL
                          and own.rpartition(".")[0] in owners):
            self._overrides[key] = []
            return self._overrides[key]
        if self._subclasses is None:
            direct: dict[str, list[str]] = defaultdict(list)
            for c in sorted(self.res.classes):
                for b in self.res.bases(c)[0]:
                    direct[b].append(c)
            self._subclasses = direct
        found: set[str] = set()
        seen = {cls}
        todo = list(self._subclasses.get(cls, ()))
        while todo:
            sub = todo.pop()
            if sub in seen:
                continue
            seen.add(sub)
            todo.extend(self._subclasses.get(sub, ()))
            m = self.res.member(sub, [name])
            if m is not None and m != _EXTERNAL and m != own and self.kind.get(m) == "function":
                found.add(m)
        out = self._overrides[key] = sorted(found)
        return out

    def calls(self) -> None:
        # (core: 82k calls; the lookups are bound once, the counters kept in locals)
        res = self.res
        kind = self.kind
        class_of = self.class_of
        edges = self.edges
        call_targets = self.call_targets
        instance_calls = self.instance_calls
        member, resolve, modules = res.member, res.resolve, res.modules
        resolved = unresolved = 0
        for f in self.files:
            for call in f.calls:
                caller = call.caller
                if caller not in kind:
                    continue
                callee = call.callee
                if call.passed:
                    self._passed_call(caller, callee)
                    continue
                virtual: list[str] = []  # subclass overrides a `self.m(...)` may run instead
                if callee.startswith("self.") and not call.untyped:
                    cls = class_of.get(caller)
                    if cls is None:
                        continue
                    parts = callee.split(".")[1:]
                    first = parts[0]
                    single = len(parts) == 1
                    targets: list[str] = []
                    if single and first.endswith("*"):
                        # `getattr(self, f"forward_{self.mode}")(x)`: each method of the class (or
                        # of its project bases: a mixin's) whose name starts that way
                        prefix = first[:-1]
                        for name in sorted(n for n in res.member_names if n.startswith(prefix)):
                            t = member(cls, [name])
                            if t is not None and t != _EXTERNAL and kind.get(t) == "function":
                                targets.append(t)
                        resolved += _link_calls(edges, call_targets, kind, caller, callee, targets)
                        continue
                    r = member(cls, [first])
                    if single:
                        virtual = [o for o in self.overrides(cls, first) if o != caller]
                        if virtual:
                            self.dispatch[caller].update(virtual)
                    if r is not None and r != _EXTERNAL and single:
                        targets.append(r)
                    else:
                        subs = self.submodule_targets(cls, first)
                        if single and _EXTERNAL in subs and self.torch_submodule(cls, first):
                            self.tensor_calls.add((caller, callee))
                        if len(parts) == 2 and not subs and r is None and parts[1] not in COMMON_METHODS:
                            # `self.target_net.reset_noise()` with `target_net` a constructor
                            # argument no caller in the project passes: the classes that define
                            # the method (a name no library object commonly has)
                            resolved += _link_calls(edges, call_targets, kind, caller, callee,
                                                    [t for t in self.by_method_name(parts[1]) if t != caller])
                            continue
                        for sub in subs:
                            if sub == _EXTERNAL:
                                continue
                            if single:
                                t = self.forward_of(sub)
                                targets.append(t)
                                if t.endswith(".__call__"):
                                    instance_calls.add(t)
                                elif t == sub:
                                    self.instance_only.add((caller, t))
                                continue
                            if len(parts) > 2:
                                # `self.attn.kv_cache.update(...)`: through what the submodule holds
                                for held in self.held_classes(sub, parts[1:-1]):
                                    m = member(held, parts[-1:])
                                    if m is not None and m != _EXTERNAL:
                                        targets.append(m)
                                continue
                            m = member(sub, parts[1:2])
                            if m is None:
                                unresolved += 1
                            elif m != _EXTERNAL:
                                targets.append(m)
                        if not subs and r is None and single and not virtual:
                            # a self attribute we cannot see (set by a helper, a dict lookup); a
                            # hook only subclasses define (the base never declares it) is resolved
                            unresolved += 1
                        # `self.x.y(...)` where x is no submodule: a tensor or parameter method, external.
                else:
                    r = resolve(callee)
                    if (r is None or r == _EXTERNAL) and call.untyped:
                        owners = self.by_method_name(callee.rsplit(".", 1)[1])
                        if len(owners) > 1:  # each class that defines it may be the one held
                            resolved += _link_calls(edges, call_targets, kind, caller, callee, owners)
                            continue
                        r = owners[0] if owners else r
                    if r is None:
                        if not res.follow(callee)[2]:  # a kernel of the project's compiled extension is found
                            unresolved += 1
                        continue
                    if r == _EXTERNAL:
                        # `Fn.apply(x, ...)` of a project autograd.Function runs its forward (and
                        # its backward in training): status edges, no argument flow (ctx shifts them);
                        # so does a call of a name bound to it (`clamp_grad = ClampGrad.apply`)
                        applied = self.applied_function(callee)
                        fn_cls = resolve(applied[: -len(".apply")]) if applied else None
                        if fn_cls is not None:
                            for m in ("forward", "backward"):
                                t = member(fn_cls, [m])
                                if t is not None and t != _EXTERNAL and t in kind and t != caller:
                                    resolved += 1
                                    edges[caller].add((t, "call"))
                            continue
                    if r == _EXTERNAL or r in modules:
                        continue
                    if callee.endswith(".__call__") and r.endswith(".__call__"):
                        instance_calls.add(r)  # `clip = Clip(); clip(y)`
                    found = call_targets.setdefault((caller, callee), [])
                    if r in kind and r != caller:
                        resolved += 1
                        edges[caller].add((r, "call"))
                        found.append(r)
                        if kind[r] == "class":
                            self.constructs.add((caller, r))
                    continue
                resolved += _link_calls(edges, call_targets, kind, caller, callee, targets)
                found = call_targets[(caller, callee)]
                # argument kinds flow into the overrides too (but no edge: see self.dispatch)
                if virtual:
                    found.extend(o for o in virtual if o not in found)
        self.resolved += resolved
        self.unresolved += unresolved

    def _passed_call(self, caller: str, callee: str) -> None:
        """A function handed as an argument (:attr:`CallFact.passed`): a call edge from
        ``caller`` when ``callee`` is a project function or method, else nothing (a variable, a
        library function: no reference the resolution statistics count)."""
        found: list[str] = []
        if callee.startswith("self."):
            cls = self.class_of.get(caller)
            parts = callee.split(".")[1:]
            if cls is not None and len(parts) == 1:
                found.append(self.res.member(cls, parts) or "")
            elif cls is not None:
                # `self.layers.__iter__` (a loop over a held container), `self.attn.kv_cache.size`
                # (a property of an object a submodule holds): the method of each class the
                # attribute chain may hold that defines it
                for sub in self.held_classes(cls, parts[:-1]):
                    found.append(self.res.member(sub, parts[-1:]) or "")
        else:
            found.append(self.res.resolve(callee) or "")
        for r in found:
            if r and r != caller and self.kind.get(r) == "function":
                self.edges[caller].add((r, "call"))
                self.call_targets.setdefault((caller, callee), []).append(r)

    # -- traced reachability and findings ----------------------------------------------------
    def successors(self, n: str) -> list[str]:
        """The functions ``n`` runs: its call targets (a call to a class runs its ``__init__``;
        a call of an instance held on ``self`` whose forward is torch's, ``self.mlp(x)`` on an
        ``nn.Sequential`` subclass, runs no project method of the class) and the functions
        nested in it (closures defined in traced code run there)."""
        out: list[str] = []
        instance_only = self.instance_only
        for v, k in self.edges.get(n, ()):
            if k == "call":
                if self.kind[v] == "class":
                    if (n, v) in instance_only and (n, v) not in self.constructs:
                        continue
                    init = self.res.member(v, ["__init__"])
                    if init is not None and init != _EXTERNAL and init in self.kind:
                        out.append(init)
                else:
                    out.append(v)
            elif k == "contains" and self.kind[v] == "function":
                out.append(v)
        out.extend(sorted(self.dispatch.get(n, ())))
        return out

    def contexts(self) -> dict[str, str]:
        """The context of every function (:func:`migrate_lens.interproc.function_contexts`):
        traced entries are the files' ``forward``-like methods and hook callbacks, configured
        ``traced-entries`` and inferred training steps (function summaries)."""
        entries: set[str] = set()
        for name in [e for f in self.files for e in f.traced_entries] + list(self.config.traced_entries):
            r = name if name in self.kind else self.res.resolve(name)
            if r is None:
                self.unresolved += 1
            elif r != _EXTERNAL and r in self.kind:
                if self.kind[r] == "class":
                    r = self.forward_of(r)
                if self.kind[r] == "function":
                    entries.add(r)
        guess = {fn.qualname: fn.context for f in self.files for fn in f.functions
                 if self.kind.get(fn.qualname) == "function"}
        for q, c in guess.items():
            # `forward` of a class its file took for a module over a project base that is none
            # (`Pipeline(_ScikitCompat)`): traced only where real traced code reaches it
            if c == "traced" and self.class_of.get(q) in self.guessed_modules \
                    and not self.module_kind.get(self.class_of[q]):
                guess[q] = "function"
                self.untraced_guesses.add(q)
        for f in self.files:  # what a file's `if __name__ == "__main__":` block calls is script code
            for name in f.host_entries:
                r = self.res.resolve(name)
                if r is not None and r != _EXTERNAL and guess.get(r) == "function" \
                        and _DRIVER_NAME.match(r.rsplit(".", 1)[-1]):
                    # a driver (`main()`, `train(cfg)`) runs on the host; a tensor function the
                    # block only demonstrates (`print(peak_centroid(torch.rand(6, 6)))`) is the
                    # code a port jits, judged as any function (traced still wins where forward
                    # reaches either)
                    guess[r] = "host"
        for q, c in guess.items():
            # a model's configuration methods (`attn.set_processor(...)`,
            # `unet.enable_forward_chunking()`, `set_use_memory_efficient_attention_xformers`
            # probing a kernel on random inputs) run once, eagerly, before the traced calls,
            # like the init-named `set_input_size`: init code (traced still wins where forward
            # reaches one; a hook one registers keeps its kind)
            if c == "function" and _CONFIG_METHOD.match(q.rsplit(".", 1)[-1]) \
                    and self.module_kind.get(self.class_of.get(q, "")) == "nn.Module":
                guess[q] = "init"
        pipeline = self.data_pipeline_classes()
        if pipeline:
            for q, c in guess.items():
                if c == "function" and self.class_of.get(q) in pipeline:
                    guess[q] = "host"  # (traced still wins where forward reaches the method)
        for f in self.files:
            test_file = is_test_path(f.path)
            for fn in f.functions:
                # test code (tests/, test_*.py) runs eagerly under pytest, and a batch collation
                # function (`collate_fn`, `pad_collate`, `worker_init_fn`) in the data loader:
                # host code, unless forward reaches it (traced wins)
                if guess.get(fn.qualname) == "function" and (
                        test_file or _COLLATE_NAME.search(fn.qualname.rsplit(".", 1)[-1])):
                    guess[fn.qualname] = "host"
        path_of = {s.qualname: f.path for f in self.files for s in f.summaries if s.role}
        roles = training_roles({s.qualname: s.role for f in self.files for s in f.summaries if s.qualname in guess},
                               path_of.__getitem__)
        succ_memo: dict[str, list[str]] = {}

        def succ(n: str) -> list[str]:
            got = succ_memo.get(n)
            if got is None:
                got = succ_memo[n] = self.successors(n)
            return got

        loop_calls = {s.qualname: s.loop_calls for f in self.files for s in f.summaries if s.loop_calls}
        methods = frozenset(fn.qualname for f in self.files for fn in f.functions if fn.is_method)
        helpers = frozenset(q for q in methods if _PRIVATE_NAME.match(q.rsplit(".", 1)[-1])
                            and not _HOST_HELPER_NAME.match(q.rsplit(".", 1)[-1])
                            and self.module_kind.get(self.class_of.get(q, "")) == "nn.Module")
        return function_contexts(guess, roles, entries, succ, loop_calls, methods, helpers)

    def data_pipeline_classes(self) -> set[str]:
        """Project classes of the host input pipeline: a ``torch.utils.data`` dataset, sampler
        or loader base (:data:`_DATA_PIPELINE_LEAVES`), directly or through project bases in
        any file (PyG's ``InMemoryDataset`` -> its ``Dataset`` -> ``torch.utils.data.Dataset``),
        and no ``nn.Module``. Their methods run in the data loader on the host."""
        direct = {c.qualname for f in self.files for c in f.classes
                  if any(b.startswith(_DATA_PIPELINE_PREFIX) and b.rsplit(".", 1)[-1] in _DATA_PIPELINE_LEAVES
                         for b in c.bases)}
        if not direct:
            return set()
        marked = dict.fromkeys(direct, "data pipeline")
        memo: dict[str, str] = {}  # (the inheritance walk of module_kinds, with these classes marked)
        return {cls for cls in sorted(self.res.classes) if cls in self.kind and not self.module_kind.get(cls)
                and self._kind_through_bases(cls, frozenset({cls}), marked, memo)}

    def inherited_module_methods(self) -> list[str]:
        """Methods that take tensors by the per-file pass's ``nn.Module`` assumption (a method
        of an ``nn.Module`` whose name does not decide its context gets tensor parameters,
        ``FileVisitor._bind_params``) but whose class is an ``nn.Module`` only through a project
        base in another file (``class HardNegativeLoss(BaseMetricLoss)``): the per-file pass
        left their parameters symbolic, and the caller, a method of a module it knows, records
        no argument flows for ``self`` calls. Sorted qualnames."""
        per_file = {c.qualname for f in self.files for c in f.classes if c.is_module}
        out: list[str] = []
        for f in self.files:
            for fn in f.functions:
                if fn.is_method and fn.context == "function":
                    cls = self.class_of.get(fn.qualname)
                    if cls is not None and cls not in per_file and self.module_kind.get(cls) == "nn.Module":
                        out.append(fn.qualname)
        return sorted(out)

    def class_fact(self, f: FileFacts, qualname: str) -> ClassFact:
        """The first of ``f.classes`` named ``qualname`` (an index per file, built on first
        use). Raises KeyError if there is none."""
        index = self._class_facts.get(f.path)
        if index is None:
            index = self._class_facts[f.path] = {}
            for c in f.classes:
                index.setdefault(c.qualname, c)
        return index[qualname]

    def _test_input(self, fd: Finding, node: str, contexts: Mapping[str, str]) -> bool:
        """Whether ``fd``, in a test file (:func:`is_test_path`) or a test function of any file
        (:func:`is_test_function`: a kernel module's ``test_correctness``), is a global-RNG draw or
        seed of test code: ``torch.randn(...)`` making a test's inputs (55 of normflows 1.7.3's 323 findings,
        in its ``*_test.py`` files) is a fixture the port's parity tests redraw, not an obstacle. A draw
        in a test file's function that non-test traced code reaches (a shared helper) stays."""
        rule = self.rules.get(fd.code)
        if rule is None or rule.category != "rng":
            return False
        return contexts.get(node) != "traced" or is_test_function(node)

    def owner_node(self, symbol: str, module: str) -> str:
        """The node of a finding's enclosing symbol (longest dotted prefix that is a project
        node), else the file's module."""
        head = symbol
        while head:
            if self.kind.get(head, "external") != "external":
                return head
            if "." not in head:
                break
            head = head.rsplit(".", 1)[0]
        return module

    def level(self, fd: Finding) -> int:
        """Status level a finding imposes: 0 for info severity, else its rule's porting kind.

        Init code runs once, eagerly, on concrete values, so two kinds of init finding leave
        the status alone: in-place writes (an index table built by ``x[..., 0] += h - 1`` is a
        constant the port computes with NumPy) and weight initializers (``nn.init.*``: the
        converted weights replace them). Host code (module level, scripts, generation glue
        that drives a jitted step) runs eagerly too, so a hazard that exists only under
        tracing (:data:`TRACE_ONLY_CATEGORIES`, failing as ``error`` or ``silent``: a boolean
        mask, a ``.item()``, a global-RNG draw in ``generate``) is a mechanical change there,
        not a redesign (open_clip's ``CoCa`` was redesign through one ``torch.multinomial`` in
        its host-side ``generate``). A data-dependent shape computed in init (``mask.nonzero()``,
        ``heads.to_sparse()`` for a buffer) is a construction-time constant for the same reason:
        mechanical, not a redesign (openai-whisper's ``Whisper`` was redesign, with the package and
        every caller, through one ``to_sparse()`` of its alignment-head mask). Hooks and mode
        overrides set up in init act later, under the trace, and keep their kind. In-place
        updates in host code are mechanical too: eager code rebinds the new array
        (denoising-diffusion-pytorch's simple_diffusion ``GaussianDiffusion`` was redesign through
        one ``img.clamp_(-1., 1.)`` after its sampling loop); a write through a view, which silently
        misses the viewed tensor in eager JAX too, keeps its kind. A trace-only hazard of a host
        sampling loop (:func:`~migrate_lens.interproc.in_host_loop`: a solver's step acceptance, a
        beam search's end test) keeps its kind too: the port compiles such a loop whole
        (``lax.while_loop``, as diffrax and Flax's beam search do). The findings stay in the report."""
        if fd.severity == "info":
            return 0
        rule = self.rules.get(fd.code)
        if fd.context == "init" and rule is not None and (
                rule.category == "in-place-mutation" or fd.message.startswith("torch.nn.init.")):
            return 0
        level = _PORTING_TO_STATUS.get(rule.porting if rule else "mechanical", 1)
        if fd.context == "init" and rule is not None and rule.anchor == "site" \
                and rule.category == "data-dependent-shape":
            return min(level, _PORTING_TO_STATUS["mechanical"])
        if fd.context == "host" and rule is not None and rule.anchor == "site" \
                and rule.category in TRACE_ONLY_CATEGORIES and rule.failure in ("error", "silent") \
                and _by_location(fd) not in self.loop_findings:
            return min(level, _PORTING_TO_STATUS["mechanical"])
        if fd.context == "host" and rule is not None and rule.category == "in-place-mutation" \
                and rule.failure != "silent":
            # eager host code (a sampling loop's `img.clamp_(-1, 1)`) rebinds instead: a rewrite
            # (a write through a view, ML310, still silently misses the viewed tensor there)
            return min(level, _PORTING_TO_STATUS["mechanical"])
        return level

    # -- the whole build -------------------------------------------------------------------
    def build(self) -> Project:
        self.nodes()
        self.module_kinds()
        self.inheritance()
        self.imports()
        self.composition()
        self.injections()
        self.calls()
        contexts = self.contexts()
        traced = {q for q, c in contexts.items() if c == "traced"}
        summaries = {s.qualname: s for f in self.files for s in f.summaries}
        tensor_entries = sorted(q for q in self.instance_calls if q in traced)
        callers: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for (caller, callee), found in self.call_targets.items():
            for t in found:
                callers[t].append((caller, callee))
        # functions a package's __init__ re-exports (public API: interproc._passed)
        public = frozenset(f"{i.module}.{i.name}" for f in self.files if f.path.endswith("__init__.py")
                           for i in f.imports if i.name and i.name != "*")
        kinds = flow_kinds(summaries, lambda caller, callee: self.call_targets.get((caller, callee), ()),
                           tensor_entries, contexts, callers, self.inherited_module_methods(), self.tensor_calls,
                           public)

        # host functions a decoding or sampling loop runs (itself, the helpers it calls)
        loop_roles = [s.qualname for s in summaries.values() if s.role in _LOOP_ROLES]
        loop_host = {q for q in reach(loop_roles, self.successors, frozenset()) if contexts.get(q) == "host"}
        kept: list[Finding] = []
        dropped = 0
        findings_at: dict[str, list[Finding]] = defaultdict(list)
        through_aliases = self.project_call_findings()
        overrides = self.config.severity_overrides()
        absorbs, names, generic = fold_table(self.catalog)
        for f in self.files:
            file_kept: list[tuple[Finding, str]] = []
            decided = False
            test_file = is_test_path(f.path)
            for fd in (*f.findings, *through_aliases.get(f.path, ())):
                node = self.owner_node(fd.symbol, f.module)
                if (test_file or is_test_function(node)) and self._test_input(fd, node, contexts):
                    dropped += 1
                    decided = True
                    continue
                flowed = bool(fd.requires)
                if fd.requires:
                    if not holds(fd, kinds):
                        dropped += 1
                        continue
                    fd = _replace_finding(fd, requires=())
                    decided = True
                if fd.context == "traced" and node in self.untraced_guesses:
                    fd = _replace_finding(fd, context="function")  # (decided below, as a function's)
                if fd.context == "function" and not f.mentions_torch and not flowed \
                        and contexts.get(node, "function") == "function":
                    # a file that never names torch, in code no torch code is known to reach or
                    # hand a tensor to (a NumPy metric's `(pred == y).mean().item()` nobody in
                    # the project calls): its values are Python's or NumPy's, nothing to port
                    dropped += 1
                    decided = True
                    continue
                if fd.context == "function":
                    # recontext takes the severity table's column for the decided context
                    # (Rule.severity_in); a config override still wins
                    decided = True  # (the per-file fold leaves undecided pairs to this one)
                    got = recontext(fd, contexts.get(node, "function"), self.rules.get(fd.code))
                    if got is None and node in loop_host:
                        got = in_host_loop(fd, self.rules.get(fd.code))
                        if got is not None:
                            self.loop_findings.add(_by_location(got))
                    if got is None:
                        dropped += 1
                        continue
                    fd = _replace_finding(got, severity=overrides[got.code]) if got.code in overrides else got
                file_kept.append((fd, node))
            if decided and absorbs and len(file_kept) > 1:
                # a conditional finding that holds now absorbs what shares its site, as the
                # per-file fold could not while it might still be dropped (ML315 over ML301);
                # so do findings whose context is now decided (a traced-only ML211 beside the
                # ecosystem ML1013 of one NMS call: folded in traced code, ML1013 alone in host)
                at = {id(fd): n for fd, n in file_kept}
                file_kept = [(fd, at.get(id(fd)) or self.owner_node(fd.symbol, f.module))
                             for fd in fold_duplicates([fd for fd, _ in file_kept], absorbs, names, generic)]
            for fd, node in file_kept:
                kept.append(fd)
                findings_at[node].append(fd)
        kept.sort(key=_by_location)

        unit_kinds = {c: k for c, k in self.module_kind.items() if k}
        unit_of: dict[str, str] = {}
        for node, mod in self.module_of.items():
            head = node
            owner = mod
            while head != mod:
                if head in unit_kinds:
                    owner = head
                    break
                head = self.parent[head]
            unit_of[node] = owner

        own_level = {n: max(self.level(x) for x in fds) for n, fds in findings_at.items()}
        dep: dict[str, list[str]] = {}
        edges = self.graph_edges()
        # from the sorted (target, kind) pairs: a target's kinds are adjacent, the targets in order
        for u, out in edges.items():
            vs: list[str] = []
            for v, k in out:
                if k in _STATUS_EDGES and not (k == "contains" and v in unit_kinds) and (not vs or vs[-1] != v):
                    vs.append(v)
            if vs:
                dep[u] = vs
        internal = [n for n, k in self.kind.items() if k != "external"]
        rev = _reverse(dep)
        hops = {lvl: _nearest(rev, [n for n, lv in own_level.items() if lv == lvl]) for lvl in (1, 2, 3)}
        status_level = _levels_from_hops(internal, hops)

        files_by_module = {f.module: f for f in self.files}
        own_nodes: dict[str, list[str]] = defaultdict(list)
        own_kinds: Counter[tuple[str, str]] = Counter()  # (unit, node kind) -> nodes of the unit
        kind_of = self.kind
        for node, u in unit_of.items():
            own_nodes[u].append(node)
            own_kinds[(u, kind_of[node])] += 1
        test_path: dict[str, bool] = {}  # is_test_path by file
        # ModuleInfo fields by unit; depends_on needs the full set of units, so it comes last.
        rows: list[dict[str, Any]] = []
        for u in sorted(own_nodes):
            f = files_by_module[self.module_of[u]]
            own = own_nodes[u]
            own_findings = sorted([x for n in own if n in findings_at for x in findings_at[n]], key=_by_location)
            n_funcs = own_kinds[(u, "function")]
            if u in unit_kinds:
                cf = self.class_fact(f, u)
                line, end_line, loc, kind = cf.line, cf.end_line, cf.lines_of_code, unit_kinds[u]
            else:
                has_code = n_funcs > 0 or bool(own_findings) or own_kinds[(u, "class")] > 0
                if not has_code or not (f.mentions_torch or own_findings):
                    continue  # (a helper file that never names torch is porting work only where it has findings)
                inner = sum(c.lines_of_code for c in f.classes if c.qualname in unit_kinds
                            and unit_of.get(self.parent.get(c.qualname, ""), "") == u)
                line, end_line, loc, kind = 1, max(1, f.lines), max(0, f.lines - inner), "file"
            lvl = status_level.get(u, 0)
            expl = self.explain(u, lvl, own, dep, findings_at, hops[lvl]) if lvl else ()
            rows.append(dict(
                qualname=u, path=f.path, line=line, end_line=max(line, end_line), kind=kind, lines_of_code=loc,
                status=STATUSES[lvl], explanation=expl, findings=tuple(own_findings),
                functions=n_funcs, is_test=test_path.get(f.path) if f.path in test_path
                else test_path.setdefault(f.path, is_test_path(f.path)),
            ))
        deps = _unit_deps({r["qualname"] for r in rows}, dep, own_nodes, unit_of, self.module_of, unit_kinds)
        call_sites = call_site_hazards(((f.path, c) for f in self.files for c in f.calls), self.call_targets,
                                       traced, self.kind, findings_at,
                                       {r.code: r.category for r in self.catalog.rules})
        units = [ModuleInfo(**r, depends_on=tuple(sorted(deps.get(r["qualname"], ())))) for r in rows]

        return Project(
            nodes=self.graph_nodes(status_level, traced), edges=edges,
            findings=tuple(kept), modules=tuple(units), unresolved=self.unresolved, files=self.files,
            traced=frozenset(traced), unit_of=unit_of,
            external_imports={k: tuple(sorted(set(v))) for k, v in sorted(self.external_imports.items())},
            missing_modules=tuple(sorted(self.missing_modules.items(), key=lambda kv: (-kv[1], kv[0]))),
            dropped_traced_only=dropped, resolved=self.resolved, call_sites=tuple(call_sites),
        )

    def graph_nodes(self, status_level: Mapping[str, int], traced: set[str]) -> dict[str, Node]:
        """:attr:`Project.nodes`: every node in sorted order."""
        kind, path, line, module_kind = self.kind, self.path, self.line, self.module_kind
        return {n: Node(kind[n], path[n], line[n], STATUSES[status_level[n]] if n in status_level else "",
                        module_kind.get(n, ""), n in traced)
                for n in sorted(kind)}

    def graph_edges(self) -> dict[str, tuple[tuple[str, str], ...]]:
        """:attr:`Project.edges`: sources in sorted order, each with its sorted (target, kind) pairs."""
        return {u: tuple(sorted(self.edges[u])) for u in sorted(self.edges)}

    # -- explanations ------------------------------------------------------------------------
    def label(self, node: str) -> str:
        """Display name: the class for methods, the name inside its module for classes and
        free functions, the dotted module for a file (memoized per node)."""
        hit = self._labels.get(node)
        if hit is None:
            owner = self.class_of.get(node, node)
            mod = self.module_of.get(owner, "")
            hit = owner[len(mod) + 1:] if mod and owner.startswith(mod + ".") else owner
            self._labels[node] = hit
        return hit

    def path_to_finding(self, lvl: int, start: str, hop: Mapping[str, str],
                        findings_at: Mapping[str, list[Finding]]) -> tuple[tuple[str, ...], int, Finding]:
        """The shortest path from ``start`` to a finding of status level ``lvl`` (``hop``: the
        :func:`_nearest` map of that level, which must hold ``start``), as (the labels along
        it, consecutive repeats collapsed; its number of nodes; the first finding by location
        of that level at its end). Memoized per (level, node): the units whose code steps onto
        one path share its tail."""
        memo = self._paths
        walk: list[str] = []
        cur = start
        while (lvl, cur) not in memo and hop[cur] != cur:
            walk.append(cur)
            cur = hop[cur]
        if (lvl, cur) not in memo:  # the end of the path: a node with a finding of this level
            fd = min((x for x in findings_at.get(cur, ()) if self.level(x) == lvl), key=_by_location)
            memo[(lvl, cur)] = ((self.label(cur),), 1, fd)
        labels, count, fd = memo[(lvl, cur)]
        for node in reversed(walk):
            lab = self.label(node)
            if lab != labels[0]:
                labels = (lab, *labels)
            count += 1
            memo[(lvl, node)] = (labels, count, fd)
        return memo[(lvl, start)]

    def explain(self, unit: str, lvl: int, own: list[str], dep: Mapping[str, list[str]],
                findings_at: Mapping[str, list[Finding]], hop: Mapping[str, str]) -> tuple[str, ...]:
        """Lines for ``unit`` at status level ``lvl``: each finding of that level in the unit's
        own code, then one shortest path per first step out of it, as ``"A -> B -> C:
        <category> <code> at <path>:<line>"`` (consecutive repeated labels collapsed). At most
        :data:`MAX_EXPLANATIONS` lines, then ``"+N more"``."""
        unit_label = self.label(unit)

        def text(labels: tuple[str, ...], fd: Finding) -> str:
            """``labels``: of the path after the unit, consecutive repeats collapsed."""
            if labels and labels[0] == unit_label:
                labels = labels[1:]
            rule = self.rules.get(fd.code)
            return (f"{' -> '.join((unit_label, *labels))}: {rule.category if rule else 'other'} {fd.code} "
                    f"at {fd.path}:{fd.span.line}")

        own_set = set(own)
        local = [(fd, n) for n in own for fd in findings_at.get(n, ()) if self.level(fd) == lvl]
        out: list[str] = []
        shown: set[tuple[str, int, int, str]] = set()
        for fd, n in sorted(local, key=lambda p: _by_location(p[0])):
            if _by_location(fd) not in shown:
                shown.add(_by_location(fd))
                out.append(text((self.label(n),), fd))
        # One shortest path per finding reached through a first step out of the unit's own code.
        best: dict[tuple[str, int, int, str], tuple[int, str]] = {}
        for first in sorted({v for n in own for v in dep.get(n, ()) if v not in own_set and v in hop}):
            labels, count, fd = self.path_to_finding(lvl, first, hop, findings_at)
            key = _by_location(fd)
            if key in shown:
                continue
            cand = (1 + count, text(labels, fd))  # the path's nodes: the unit, then first .. end
            if key not in best or cand < best[key]:
                best[key] = cand
        out.extend(t for _, t in sorted(best.values()))
        if len(out) > MAX_EXPLANATIONS:
            out = [*out[:MAX_EXPLANATIONS], f"+{len(out) - MAX_EXPLANATIONS} more"]
        return tuple(out)


#: Explanation lines kept per module (the rest is summarized as ``"+N more"``).
MAX_EXPLANATIONS = 5


def _unit_deps(units: set[str], dep: Mapping[str, list[str]], own_nodes: Mapping[str, list[str]],
               unit_of: Mapping[str, str], module_of: Mapping[str, str],
               unit_kinds: Mapping[str, str]) -> dict[str, set[str]]:
    """Unit -> units it needs first. Nodes of files without a unit are walked through. A
    class's edges to its own file's unit (same-file helper functions) are not dependencies of
    the class on that unit (builder functions usually call the file's classes, and the helpers
    move with the class), but the helpers are walked through: what they call or build is what
    the class needs (open_clip's ``CLIP.__init__`` builds its towers through the same-file
    ``_build_vision_tower``, so ``CLIP`` needs ``VisionTransformer`` first)."""
    out: dict[str, set[str]] = defaultdict(set)
    for u in units:
        seen: set[str] = set()
        stack = [v for n in own_nodes.get(u, ()) for v in dep.get(n, ())]
        while stack:
            v = stack.pop()
            if v in seen:
                continue
            seen.add(v)
            w = unit_of.get(v, "")
            if w == u:
                continue
            if w in units:
                if u in unit_kinds and w == module_of.get(u) and w not in unit_kinds:
                    if v != w:  # a helper function, not the file's module-level code (registries
                        stack.extend(dep.get(v, ()))  # of every class would make them all one cycle)
                    continue
                out[u].add(w)
            else:
                stack.extend(dep.get(v, ()))
    return out


#: Names of batch collation and data-loader worker functions (host code of the input pipeline).
#: names of script entry functions a ``__main__`` block runs: drivers on the host, not the
#: tensor functions a demo block calls on sample inputs
_DRIVER_NAME = re.compile(r"^_?(main|run\w*|cli|app|demo\w*|train\w*|fit\w*|evaluate\w*|eval|test\w*|bench\w*|"
                          r"profile\w*|export\w*|convert\w*|parse_\w+|setup\w*|launch\w*|serve\w*|download\w*|"
                          r"save\w*|load\w*|plot\w*|visuali[sz]e\w*|sample_\w+|generate\w*|"
                          r"worker|spawn\w*|init\w*|get_args|make_parser|build_parser|go)$")
_COLLATE_NAME = re.compile(r"(^|_)collate(_|$|fn$)|^worker_init_fn$")


#: Summary roles of a loop that runs a model step by step on the host (decoding, sampling)
_LOOP_ROLES = frozenset({"sampling-loop"})


def _link_calls(edges: Mapping[str, set[tuple[str, str]]], call_targets: dict[tuple[str, str], list[str]],
                kind: Mapping[str, str], caller: str, callee: str, targets: Iterable[str]) -> int:
    """Record ``caller``'s call of ``callee`` (as written) resolved to ``targets``: a call edge
    and a ``call_targets`` entry per project node other than the caller itself. Returns how many."""
    found = call_targets.setdefault((caller, callee), [])
    n = 0
    for t in targets:
        if t in kind and t != caller:
            n += 1
            edges[caller].add((t, "call"))
            found.append(t)
    return n


def build_project(files: Sequence[FileFacts], catalog: Catalog, config: Config) -> Project:
    """Build the project graph, resolve traced-only findings, find module units and propagate
    their status.

    ``files``: per-file facts, findings already filtered by config (select/ignore/suppressions);
    the first file wins when two share a module name. Returns a :class:`Project`. Never raises
    on unresolvable references: they are counted in ``Project.unresolved``. Linear in the
    facts: a few seconds for 700 files and 20k functions.
    """
    ordered = tuple(sorted(files, key=lambda f: f.path))
    # The build fills long-lived dicts with ~10^6 small objects; the cyclic GC would rescan
    # them many times over (about 40% of the build time) and finds nothing to free.
    with gc_paused():
        return _Builder(ordered, catalog, config).build()


# ---------------------------------------------------------------------------- views
def graph_view(project: Project) -> dict[str, Any]:
    """report.json ``graph``: node-link JSON (nodes by id with kind, status, path; edges by
    (source, target, kind) with ``key`` the index among parallel edges). Deterministic."""
    nodes = [{"id": n, "kind": a.kind, "status": a.status or None, "path": a.path or None}
             for n, a in sorted(project.nodes.items())]
    edges = []
    # Project.edges holds each (source, target, kind) once, sorted: parallel edges (one
    # source and target, several kinds) are adjacent and their index counts up from 0
    for u, out in sorted(project.edges.items()):
        v_prev = None
        index = 0
        for v, kind in out:
            index = index + 1 if v == v_prev else 0
            v_prev = v
            edges.append({"source": u, "target": v, "kind": kind, "key": index})
    return {"directed": True, "multigraph": True, "graph": {}, "nodes": nodes, "edges": edges}


def write_graphml(project: Project, path: Path | str | IO[bytes]) -> None:
    """Write the project graph as GraphML (scalar attributes only: kind, path, line, status,
    module_kind, traced; edges: kind) to ``path`` (or a binary file object); control characters
    in names are written as escapes (:func:`migrate_lens.safetext.printable`: a file name may hold
    any, XML none). Raises OSError if ``path`` cannot be written."""
    import networkx as nx

    from migrate_lens.safetext import printable as p  # XML cannot hold control characters

    out: nx.MultiDiGraph = nx.MultiDiGraph()
    for n, a in sorted(project.nodes.items()):
        out.add_node(p(n), kind=a.kind, path=p(a.path), line=int(a.line), status=a.status,
                     module_kind=a.module_kind, traced=bool(a.traced))
    for u, v, k in sorted((u, v, k) for u, pairs in project.edges.items() for v, k in pairs):
        out.add_edge(p(u), p(v), key=k, kind=k)
    nx.write_graphml(out, path if hasattr(path, "write") else str(path))
    out.clear()  # networkx graphs sit in reference cycles, which a paused GC would keep


def _is_torch_module_class(name: str) -> bool:
    """A torch ``nn`` module class by its resolved name (``torch.nn.Linear``,
    ``torch.nn.modules.conv.Conv2d``): CapWords under ``torch.nn.``, not ``Parameter`` nor a
    container of parameters."""
    leaf = name.rsplit(".", 1)[-1]
    return name.startswith("torch.nn.") and leaf[:1].isupper() and leaf not in ("Parameter", "ParameterList",
                                                                                 "ParameterDict")
