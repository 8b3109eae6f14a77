"""Project-level combination of per-function summaries: the context each function runs in
after the port, decided by reachability over the call graph rather than by its name, and the
value kinds that flow through calls (:func:`flow_kinds`, :func:`holds`).

Works on compact facts only (function qualnames, their name-suggested context, the roles of
:mod:`migrate_lens.analysis.summaries`, and a successor function over resolved call and
nesting edges); never on CST nodes. Used by the project graph (across files) and by the
per-file resolution of :func:`migrate_lens.analysis.engine.resolve_traced_only` (one file).

One function gets one context for all rules:

- ``traced``: reachable from a traced entry (``forward``-like methods, hook callbacks,
  configured ``traced-entries``, inferred training steps, and what training loops call),
  whatever the function's name (an ``_init_*`` helper that ``forward`` calls is traced);
- ``host``: generation glue, decoding loops and training loops (they drive a jitted step) and
  what only they reach (a decoding loop found by what it calls, ``decode-loop``, that traced
  code reaches stays traced; what calls a ``decode-loop`` outside traced and init code is host
  too);
- ``init``: reachable from init code (constructors, init-named helpers) and from no traced or
  host code, or init-named and called from nowhere seen;
- otherwise the name-suggested context (``function``: callers unknown).
"""

from __future__ import annotations

import functools

import dataclasses
import re
from collections import defaultdict, deque
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from migrate_lens.analysis.kinds import RETURNED_RAGGED, RETURNED_REDUCTION, STATIC_PARAM_NAME, split_return_key
from migrate_lens.fastinit import replacer
from migrate_lens.models import CallFlow, Finding, Flow, FunctionSummary

_replace_finding = replacer(Finding)  # dataclasses.replace for findings, without its field walk

if TYPE_CHECKING:
    from migrate_lens.catalog import Rule

HOST_ROLES = frozenset({"generation", "train-loop", "decode-loop", "sampling-loop", "plotting", "placement", "draw",
                        "data-pipeline"})
#: Host roles inferred from what a loop calls rather than from a name or a training call: a
#: function of this role that traced code reaches is traced (it does not stop reachability).
WEAK_HOST_ROLES = frozenset({"decode-loop", "sampling-loop", "draw"})
#: Summary roles of training code: a jitted step, or the loop that drives one.
TRAINING_ROLES = frozenset({"train-step", "train-loop"})
#: Names that are init code whatever calls them (constructors, state-dict hooks); other
#: init-named helpers (``_init_*``, ``reset_*``) are init code only when init code alone calls them.
PROPER_INIT = frozenset({"__init__", "__post_init__", "__setstate__", "_load_from_state_dict",
                         "_save_to_state_dict", "load_state_dict", "extra_repr"})
_TEST_PATH = re.compile(r"(^|/)(tests?/|test_[^/]*\.py$|[^/]*_test\.py$|conftest\.py$)")
_TEST_FUNCTION = re.compile(r"^test(_|[A-Z0-9]|$)")


def is_test_path(path: str) -> bool:
    """True for test code: files under a ``tests/``/``test/`` folder, ``test_*.py``,
    ``*_test.py`` and ``conftest.py`` (pytest's discovery conventions)."""
    return bool(_TEST_PATH.search(path))


def is_test_function(qualname: str) -> bool:
    """True when ``qualname``'s last part is named as pytest and unittest name tests
    (``test_grad``, ``testForward``)."""
    return _TEST_FUNCTION.match(qualname.rsplit(".", 1)[-1]) is not None


def training_roles(roles: Mapping[str, str], path_of: Callable[[str], str]) -> dict[str, str]:
    """``roles`` (qualname -> summary role) without the training roles of test code: a
    function in a test file (:func:`is_test_path`, ``path_of(qualname)``) or named as pytest
    names tests (``test_*``). A test that calls ``loss.backward()`` to compare gradients with a
    reference (mamba_ssm's ``test_mamba_inner_fn``) checks a kernel; it is no training step a
    port jits, and what it prints or draws is test code, not traced code."""
    return {q: r for q, r in roles.items()
            if r not in TRAINING_ROLES or not (is_test_function(q) or is_test_path(path_of(q)))}
#: Obstacle categories that exist only under a trace (Python control flow on tracers, shapes
#: from values, host reads and Python side effects, state written between traced calls).
TRACE_ONLY_CATEGORIES = frozenset({"dynamic-control-flow", "data-dependent-shape", "side-effect", "module-state", "device"})


def reach(seeds: Iterable[str], succ: Callable[[str], Iterable[str]], stop: set[str] | frozenset[str]) -> set[str]:
    """Functions reachable from ``seeds`` (included) through ``succ`` without entering ``stop``."""
    seen: set[str] = set()
    queue = deque(sorted(s for s in seeds if s not in stop))
    while queue:
        n = queue.popleft()
        if n in seen:
            continue
        seen.add(n)
        for v in succ(n):
            if v not in seen and v not in stop:
                queue.append(v)
    return seen


def _leaf(qualname: str) -> str:
    """The called name of a function node (a class's name for its ``__init__``)."""
    parts = qualname.rsplit(".", 2)
    return parts[-2] if parts[-1] == "__init__" and len(parts) > 1 else parts[-1]


def function_contexts(guess: Mapping[str, str], roles: Mapping[str, str], entries: Iterable[str],
                      succ: Callable[[str], Iterable[str]],
                      loop_calls: Mapping[str, Iterable[str]] | None = None,
                      methods: Collection[str] = (), helpers: Collection[str] = ()) -> dict[str, str]:
    """The context of every function in ``guess`` (qualname -> name-suggested context, the
    ``FunctionFact.context``), see the module docstring.

    ``roles``: qualname -> summary role; ``entries``: traced entries besides ``traced``-guessed
    functions and ``train-step`` roles; ``succ(q)``: the functions ``q`` calls or defines
    (resolved project nodes); ``loop_calls``: for training loops, the names they call inside
    their step loops, for other functions outside traced code the names they call in any loop
    (``FunctionSummary.loop_calls``: one that calls a ``train-step`` function there is host); ``methods``: the qualnames that are methods
    (for lazy initializers, see below); ``helpers``: private methods of ``nn.Module`` classes
    (``_complete_kv``, ``_attn``): one that nothing in the project calls and that no other
    context claims is traced code (see :func:`_orphan_helpers`). Deterministic for equal inputs."""
    loop_calls = loop_calls or {}
    host_glue = {q for q, r in roles.items() if r in HOST_ROLES}
    seeds = {q for q, c in guess.items() if c == "traced"}
    seeds.update(entries)
    seeds.update(q for q, r in roles.items() if r == "train-step")

    def in_loops(q: str) -> list[str]:
        """The functions ``q`` calls inside its loops (:attr:`FunctionSummary.loop_calls`)."""
        inside = frozenset(loop_calls.get(q, ()))
        return [v for v in succ(q) if _leaf(v) in inside] if inside else []

    for q in sorted(loop_calls):
        role = roles.get(q, "")
        called = in_loops(q) if role == "train-loop" or not role else []
        # a loop that calls a training step of its own (speechbrain's `_fit_train`: `loss =
        # self.fit_batch(batch)`): that call is the step, and what the loop calls besides it (a
        # running average of the returned loss, a progress bar, a profiler) runs on the host
        # around it; a loop without one in a training loop is the step itself
        steps = [v for v in called if roles.get(v) == "train-step"]
        if role == "train-loop":  # the loop stays on the host; what it calls in the loop is the step
            seeds.update(steps or called)
        elif steps and guess.get(q, "function") != "traced":
            host_glue.add(q)
    weak = {q for q in host_glue if roles.get(q) in WEAK_HOST_ROLES}
    traced = reach(seeds, succ, host_glue - weak)
    host_seeds = host_glue | {q for q, c in guess.items() if c == "host"}
    drivers = {q for q in weak if roles[q] != "draw"} | {q for q, r in roles.items() if r == "train-loop"}
    if drivers:
        # what calls a decoding loop drives it from the host too (whisper's `DecodingTask.run`
        # around `_main_loop`, `decode()` around `run`), and so does what calls a training
        # loop (a trainer's `train()` running `while self.steps < n: self.train_step()`),
        # unless the trace reaches it
        callers: dict[str, set[str]] = defaultdict(set)
        for q in sorted(guess):
            for v in succ(q):
                callers[v].add(q)
        host_seeds |= {q for q in reach(drivers, lambda n: sorted(callers.get(n, ())), traced)
                       if guess.get(q, "function") == "function"}
    host = reach(host_seeds, succ, traced)
    # weight surgery (an adapter merge, a BatchNorm fold) is eager weight editing like the
    # init-named `fuse()`/`reparameterize()`, unless forward reaches it: unlike generation glue
    # it does not stop the traced reachability (peft's forward calls `self.unmerge()` when the
    # adapters are disabled: that one stays traced)
    surgery = {q for q, r in roles.items() if r == "weight-surgery"}
    init_seeds = surgery.union(q for q, c in guess.items() if c == "init")
    init = reach(init_seeds, succ, traced | host)
    # a method that is init code by its name only (`_init_step_index`, `reset_cache`, not
    # `__init__`) and that an undecided method of its own class calls is a lazy initializer
    # of that method: it runs on the first call of every run (a scheduler's `step()` finding
    # its index with `.nonzero()`), not once on concrete values; it keeps its caller's
    # undecided context. (An init-named function other code calls, a model builder's
    # `load_pretrained`, stays init code.)
    named = {q for q in init_seeds - surgery if q in methods and q.rsplit(".", 1)[-1] not in PROPER_INIT}
    lazy: set[str] = set()
    if named:
        callers: dict[str, set[str]] = defaultdict(set)
        for q in sorted(guess):
            for v in succ(q):
                callers[v].add(q)
        while True:
            decided = init | traced | host
            more = {q for q in named - lazy
                    if any(c != q and c not in decided and c in methods and c.rsplit(".", 1)[0] == q.rsplit(".", 1)[0]
                           for c in callers.get(q, ()))}
            if not more:
                break
            lazy |= more
            init = reach(init_seeds - lazy, succ, traced | host)
    out = dict(guess)
    for q in lazy:
        out[q] = "function"  # (init, host or traced below where that code reaches it too)
    orphans = _orphan_helpers(guess, helpers, succ, init | host | traced | lazy)
    if orphans:
        traced |= reach(orphans, succ, host | init | host_glue)
    for q in init:
        out[q] = "init"
    for q in host:
        out[q] = "host"
    for q in traced:
        out[q] = "traced"
    return out


def _orphan_helpers(guess: Mapping[str, str], helpers: Collection[str], succ: Callable[[str], Iterable[str]],
                    decided: Collection[str]) -> set[str]:
    """The private ``nn.Module`` methods of ``helpers`` that nothing in ``guess`` calls and no
    context claims (undecided by reachability). A private method is the module's own helper:
    when the scanned tree never calls it, its caller is outside the tree (the forward of a
    subclass in another package, or code the scan was not given: an excerpt of a model whose
    ``forward`` calls ``self._complete_kv(k, v)``), so it is judged as the forward pass it
    serves rather than dropped as unknown. Public methods stay undecided: an uncalled public
    method is API (``reset_classifier``, ``get_streaming_state``) that a user may call from
    anywhere."""
    pending = [q for q in helpers if guess.get(q) == "function" and q not in decided]
    if not pending:
        return set()
    called: set[str] = set()
    for q in sorted(guess):
        for v in succ(q):
            if v != q:
                called.add(v)
    return {q for q in pending if q not in called}


def applies_in(rule: Rule | None, ctx: str) -> bool:
    """Whether a finding of ``rule`` made in undecided (``function``) context is kept once its
    function's context turns out to be ``ctx`` (``traced``, ``init`` or ``host``), as
    :func:`recontext` decides: the rule's own contexts, and host glue keeps what is not a
    trace-only obstacle, unless the rule itself applies to traced code alone (its contexts are
    ``traced`` only: a NumPy draw in a replay buffer's ``sample()`` that a training loop calls
    is fixed at trace time only inside ``jax.jit``; on the host it stays NumPy)."""
    allowed = rule.matcher.contexts if rule is not None else ("traced", "function")
    return ctx in allowed or (ctx == "host" and rule is not None and rule.category not in TRACE_ONLY_CATEGORIES
                              and tuple(allowed) != ("traced",))


_SURVIVAL: dict[str, dict[str, frozenset[str]]] = {}


def survival_table(catalog: Any) -> dict[str, frozenset[str]]:
    """Rule code -> the decided contexts (``traced``, ``init``, ``host``) in which a finding
    of it made in ``function`` context survives (:func:`applies_in`), built once per catalog
    digest. For the per-file fold (:func:`migrate_lens.fold.fold_duplicates`): a finding that
    the project may still drop where the other is kept must not absorb it."""
    hit = _SURVIVAL.get(catalog.digest)
    if hit is None:
        hit = _SURVIVAL[catalog.digest] = {
            r.code: frozenset(c for c in ("traced", "init", "host") if applies_in(r, c)) for r in catalog.rules}
    return hit


def recontext(fd: Finding, ctx: str, rule: Rule | None) -> Finding | None:
    """A finding made in undecided (``function``) context, given the context ``ctx`` its
    function runs in: moved to that context with the rule's severity there (the severity
    table, :meth:`migrate_lens.catalog.Rule.severity_in`), or None when the rule does not apply there (a traced-only rule in code
    that never runs under the trace, a tensor-branch rule in init or host code; host glue keeps
    the rules that also apply to init code, which runs eagerly too). Findings
    already in a decided context are returned unchanged."""
    if fd.context != "function":
        return fd
    if ctx == "function":
        return None if fd.traced_only else fd
    # host glue runs eagerly on arrays every call: what matters outside a trace (global RNG
    # state, in-place updates, ecosystem...) still applies to it, trace-only obstacles do not
    if not applies_in(rule, ctx):
        return None
    severity = rule.severity_in(ctx) if rule is not None else fd.severity  # the one severity table
    return _replace_finding(fd, context=ctx, traced_only=False, severity=severity)


#: Categories of trace-only hazards that a decoding or sampling loop run on the host still
#: reports (:func:`in_host_loop`): a tensor test, a data-dependent size, a host read-back.
LOOP_CATEGORIES = frozenset({"dynamic-control-flow", "data-dependent-shape", "side-effect"})

#: side-effect rules that read a device value back to the host (`.item()`, `int(t)`, `.numpy()`)
_HOST_READ_RULES = ("host-", "numpy-conversion")

_IN_HOST_LOOP = (" [in a decoding or sampling loop run on the host: it works there, one device sync per step; "
                 "compiling the whole loop (lax.while_loop / lax.scan, as Flax's beam search and JAX samplers "
                 "do) needs it rewritten]")


def in_host_loop(fd: Finding, rule: Rule | None) -> Finding | None:
    """A trace-only finding made in undecided context whose function turned out to be host
    code run by a decoding or sampling loop (the loop itself or a helper it calls): kept at
    severity ``low`` in ``host`` context when its category is one of :data:`LOOP_CATEGORIES`
    (`if sigmas[i + 1] > 0`, `.item()` of the beam's end test; of the side effects, the host
    read-backs only), with a note that the loop works
    eagerly and what compiling it needs; None otherwise. A JAX port usually compiles such a
    loop whole (``lax.while_loop``), so these are its porting work, not a host script's."""
    if rule is None or rule.category not in LOOP_CATEGORIES or fd.context != "function":
        return None
    if rule.category == "side-effect" and not rule.name.startswith(_HOST_READ_RULES):
        return None  # (a print, a file write or a logger stays on the host beside a compiled loop)
    return _replace_finding(fd, context="host", traced_only=False, severity="low", message=fd.message + _IN_HOST_LOOP)


#: Parameter names of a training step that hold its settings, not arrays: a jitted step closes
#: over them or takes them as static arguments (nanoGPT's ``grad_clip`` and
#: ``gradient_accumulation_steps``, ``lr``, ``weight_decay``, ``log_interval``), besides the
#: flag- and size-like names of :data:`~migrate_lens.analysis.kinds.STATIC_PARAM_NAME`.
TRAINING_SETTING_NAME = re.compile(
    r"(^|_)(clip|clip_\w+|grad_clip|max_norm|max_grad_norm|lr|learning_rate|weight_decay|momentum|epochs?|accum\w*|"
    r"warmup\w*|log_\w+|print_\w+|eval_\w+|save_\w+|interval|every|iters?|iterations?|steps?)$")


def flow_kinds(summaries: Mapping[str, FunctionSummary],
               targets: Callable[[str, str], Iterable[str]],
               tensor_entries: Iterable[str] = (),
               contexts: Mapping[str, str] | None = None,
               callers: Mapping[str, Sequence[tuple[str, str]]] | None = None,
               assumed_entries: Iterable[str] = (),
               tensor_calls: Collection[tuple[str, str]] = (),
               public: Collection[str] = ()) -> Callable[[str, str], frozenset[str]]:
    """Combine the functions' value flows (``FunctionSummary``: parameters, returns, calls'
    argument flows) into the kinds each symbolic input can take, as a function
    ``kinds(function, key)``: for ``p:<param>`` the kinds its callers pass (a helper in another
    file called with a tensor from ``forward`` gets a tensor), for ``r:<callee>[#i]`` the kinds
    the callee's ``return`` (its ``i``-th tuple item) has; a training step's parameters are
    tensors, as ``forward``'s are, and so are those of ``tensor_entries`` (the ``__call__`` of a
    plain callable object that traced code calls as ``self.sampler(x)``: a module's ``forward``
    in all but name). ``targets(caller, callee)`` resolves
    a callee as written in the caller to project functions. A fixed point over sets of kinds
    (``T``, ``B``, ``H``): monotone, so it ends; on compact summaries only. ``u:<param>`` keys
    (:func:`_lost_updates`) count callers outside init code (``contexts``: function -> context).

    ``a:<param>`` keys (a module method's parameter taken for a tensor by assumption) are ``T``
    unless :func:`static_inputs` proves the parameter static from ``callers`` (function ->
    the ``(caller, callee as written)`` calls resolved to it); so are the parameters of
    ``assumed_entries`` (methods of a class that is an ``nn.Module`` through a base in another
    file, symbolic in their file). Without ``callers`` nothing is proven static.
    ``tensor_calls``: ``(caller, callee)`` pairs whose result is a tensor whatever the project
    defines (``self.fc(x)`` of a torch module a base class in another file holds).
    """
    return _FlowKinds(summaries, targets, tensor_entries, contexts or {}, callers, assumed_entries,
                      tensor_calls, public).kinds


def static_inputs(summaries: Mapping[str, FunctionSummary],
                  targets: Callable[[str, str], Sequence[str]],
                  callers: Mapping[str, Sequence[tuple[str, str]]],
                  entries: Iterable[str] = ()) -> frozenset[tuple[str, str]]:
    """``(function, parameter)`` pairs proven static: every call resolved to the function
    (``callers``; at least one) is a ``self.<m>(...)`` call whose flow gives the argument a
    static descriptor (:attr:`~migrate_lens.models.CallFlow.static`) that holds, or omits it
    for a static default (``FunctionSummary.defaults``), with nothing spread (``*args``, a
    method handed on or aliased) and no reference of the method without a call in its file
    (``FunctionSummary.escapes``). A descriptor holds when it is "S" or when each input it
    names is static: a caller's parameter proven so (``a:``/``p:``), or a call's returned
    item whose every resolved target returns a static descriptor that holds (``r:``).

    Candidates are the summaries' ``assumed`` parameters, the parameters of ``entries``
    (methods assumed to take tensors, :func:`flow_kinds`) and the caller parameters that
    descriptors name. The greatest fixed point (a flag a method passes on to itself or to
    another method is static when its outside callers pass static values), on compact
    summaries only; deterministic (the largest set closed under the rule is unique)."""
    return _StaticInputs(summaries, targets, callers, entries).solve()


class _StaticInputs:
    """The fixed point of :func:`static_inputs`."""

    def __init__(self, summaries: Mapping[str, FunctionSummary], targets: Callable[[str, str], Sequence[str]],
                 callers: Mapping[str, Sequence[tuple[str, str]]], entries: Iterable[str]) -> None:
        self.summaries = summaries
        self.targets = targets
        self.callers = callers
        self.static: set[tuple[str, str]] = set()
        self.active: set[tuple[str, str]] = set()
        cands: set[tuple[str, str]] = set()
        for fn in entries:
            s = summaries.get(fn)
            if s is not None:
                cands.update((fn, p) for p in s.named)
        for fn, s in summaries.items():
            cands.update((fn, p) for p in s.assumed)
            for c in s.calls:
                for d in (*c.static, *(d for _, d in c.static_kw)):
                    cands.update(_input_params(fn, d))
            for d in (s.static_ret, *s.static_items):
                cands.update(_input_params(fn, d))
        self.cands = cands

    def solve(self) -> frozenset[tuple[str, str]]:
        static = self.static = set(self.cands)
        changed = True
        while changed:
            changed = False
            for c in sorted(static):
                if not self.proven(*c):
                    static.discard(c)
                    changed = True
        return frozenset(static)

    def proven(self, fn: str, param: str) -> bool:
        s = self.summaries.get(fn)
        sites = self.callers.get(fn, ())
        if s is None or not sites or s.escapes:
            return False
        i = s.params.index(param) if param in s.params else -1
        for caller, written in sites:
            cs = self.summaries.get(caller)
            if cs is None or not written.startswith("self."):
                return False
            flows = [c for c in cs.calls if c.callee == written]
            if not flows:
                return False
            for c in flows:
                d = c.static[i] if 0 <= i < len(c.static) else next((d for k, d in c.static_kw if k == param), None)
                if d is None:
                    if c.spread or param not in s.defaults:
                        return False
                elif not self.holds(caller, d):
                    return False
        return True

    def holds(self, fn: str, descriptor: str) -> bool:
        """Whether the static descriptor ``descriptor`` of function ``fn`` holds."""
        if descriptor == "S":
            return True
        if not descriptor:
            return False
        for key in descriptor.split("&"):
            head = key[:2]
            if head in ("a:", "p:"):
                if (fn, key[2:]) not in self.static:
                    return False
            elif head != "r:" or not self.returns_static(fn, key):
                return False
        return True

    def returns_static(self, fn: str, key: str) -> bool:
        callee, idx, _ = split_return_key(key)
        if idx and not idx.isdigit():
            return False  # (a dict entry read by key: never proven static)
        i = int(idx) if idx.isdigit() else -1
        found = [t for t in self.targets(fn, callee) if t in self.summaries]
        if not found or (fn, key) in self.active:
            return False  # (a recursive return: not proven)
        self.active.add((fn, key))
        try:
            for t in found:
                s = self.summaries[t]
                d = s.static_ret if i < 0 else (s.static_items[i] if i < len(s.static_items) else "")
                if not self.holds(t, d):
                    return False
            return True
        finally:
            self.active.discard((fn, key))


def _input_params(fn: str, descriptor: str) -> Iterator[tuple[str, str]]:
    """The ``(function, parameter)`` inputs a static descriptor of ``fn`` names."""
    if descriptor and descriptor != "S":
        for key in descriptor.split("&"):
            if key[:2] in ("a:", "p:"):
                yield fn, key[2:]


class _FlowKinds:
    """The fixed point of :func:`flow_kinds`. A class, not closures calling each other: those
    form a reference cycle (each closure's cell holds the others) that kept the summaries and
    whatever ``targets`` holds (the project graph's builder, every file's facts) alive until
    the cyclic GC ran, which a scan pauses."""

    def __init__(self, summaries: Mapping[str, FunctionSummary], targets: Callable[[str, str], Iterable[str]],
                 tensor_entries: Iterable[str], contexts: Mapping[str, str],
                 callers: Mapping[str, Sequence[tuple[str, str]]] | None = None,
                 assumed_entries: Iterable[str] = (),
                 tensor_calls: Collection[tuple[str, str]] = (), public: Collection[str] = ()) -> None:
        self.summaries = summaries
        #: functions a package's ``__init__`` re-exports: public API, called with anything
        self.public = public
        self.targets = targets
        self.tensor_calls = tensor_calls
        self.callers: Mapping[str, Sequence[tuple[str, str]]] = callers or {}
        self.contexts = contexts
        self._resets: dict[tuple[str, str], list[str]] | None = None
        self.param: dict[tuple[str, str], set[str]] = defaultdict(set)
        self.ret: dict[tuple[str, int | str], set[str]] = defaultdict(set)  # (int: tuple item, str: dict key)
        self.memo: dict[tuple[str, str], tuple[str, ...]] = {}
        assumed_entries = sorted(assumed_entries)
        #: (function, parameter) pairs proven static (:func:`static_inputs`)
        self.static = static_inputs(summaries, self.resolved, callers, assumed_entries) if callers is not None \
            else frozenset()
        for fn, s in summaries.items():
            if s.role in ("train-step", "sampling-loop"):  # a jitted step's inputs are arrays, like forward's
                # (and a decoding loop's: what it hands the model step by step)
                for p in s.named:  # (but its settings: the clip norm, the accumulation count)
                    if not (STATIC_PARAM_NAME.search(p) or TRAINING_SETTING_NAME.search(p)):
                        self.param[(fn, p)].add("T")
        for fn in tensor_entries:
            for p in summaries[fn].named if fn in summaries else ():
                self.param[(fn, p)].add("T")
        for fn in assumed_entries:  # tensors as a module method's parameters are, unless proven flags
            for p in summaries[fn].named if fn in summaries else ():
                if (fn, p) not in self.static:
                    self.param[(fn, p)].add("T")
        self.active: set[tuple[str, str]] = set()
        self.known: dict[tuple[str, str], set[str]] = {}  # key_kinds of one function's evaluation
        #: function -> the functions whose evaluation read its return kinds (see _solve)
        self.ret_readers: dict[str, set[str]] = defaultdict(set)
        self.lost = _lost_updates(summaries, self.resolved, contexts)
        self._solve()

    def resolved(self, caller: str, callee: str) -> tuple[str, ...]:
        got = self.memo.get((caller, callee))
        if got is None:
            got = self.memo[(caller, callee)] = tuple(t for t in self.targets(caller, callee) if t in self.summaries)
        return got

    def forwarder(self, fn: str, via: str) -> bool:
        """Whether the wrapper ``via`` (as written in ``fn``) resolves to a function that calls
        its first parameter with the others (``FunctionSummary.forwards``)."""
        return any(self.summaries[w].forwards for w in self.resolved(fn, via))

    def through(self, fn: str, c: CallFlow) -> CallFlow | None:
        """The flow ``c`` recorded through the wrapper ``c.via`` (``apply(f, x, bias=b)`` as
        ``f(x, bias=b)``) trimmed to what the wrapper passes on: an argument it keeps for itself
        (``def run(fn, x, bias=None): return fn(x)``), or that lands in a ``*rest`` it does not
        pass, reaches nothing. None when ``via`` resolves to no forwarding function."""
        plan = next((self.summaries[w].forwards for w in self.resolved(fn, c.via) if self.summaries[w].forwards), ())
        if not plan:
            return None
        marks = set(plan)
        npos = next(int(d[1:]) for d in plan if d[:1] == "@")
        fwd = next(int(d[1:]) for d in plan if d[:1] == "#")
        args = c.args[:fwd] + (c.args[npos:] if "*" in marks else ())
        keep = [(k, f) for k, f in zip(c.keywords, c.kwargs)
                if f"={k}" in marks or ("**" in marks and f"-{k}" not in marks and f"+{k}" not in marks)]
        return dataclasses.replace(c, args=tuple(args), keywords=tuple(k for k, _ in keep), kwargs=tuple(f for _, f in keep))

    def ret_flow(self, t: str, i: int | str) -> Flow | None:
        s = self.summaries[t]
        if isinstance(i, str):  # a returned dict's entry
            return next((f for k, f in s.ret_keys if k == i), None)
        if 0 <= i < len(s.ret_items):
            return s.ret_items[i]
        return s.ret

    def arg_kinds(self, fn: str, callee: str, t: str, pname: str, site: int = 0) -> set[str]:
        """Kinds ``fn`` passes for ``t``'s parameter ``pname`` in its calls of ``callee``: at the
        call site ``site`` only (:attr:`CallFlow.site`), or at every one when 0."""
        params = self.summaries[t].params
        idx = params.index(pname) if pname in params else -1
        out: set[str] = set()
        for c in self.summaries[fn].calls if fn in self.summaries else ():
            if c.callee != callee or c.via or (site and c.site != site):
                # (a call through a wrapper returns the wrapper's result)
                continue
            if 0 <= idx < len(c.args):
                out |= self.value(fn, c.args[idx])
            for kw, f in zip(c.keywords, c.kwargs):
                if kw == pname:
                    out |= self.value(fn, f)
        return out

    def key_kinds(self, fn: str, key: str) -> set[str]:
        if key.startswith("p:"):
            return self.param.get((fn, key[2:]), set())
        if key.startswith("a:"):
            return set() if (fn, key[2:]) in self.static else _TENSOR
        if key.startswith("u:"):
            return {"L"} if (fn, key[2:]) in self.lost else set()
        if key.startswith("o:"):
            return {"X"} if self._outside(fn, key[2:]) else set()
        if key.startswith("g:"):
            return {"P"} if self._passed(fn, key[2:]) else set()
        if key.startswith("n:"):
            return {"T"} if self._omitted(fn, key[2:]) else set()
        if key.startswith("k:"):
            return set() if self._reset_per_call(fn, key[2:]) else {"X"}
        got = self.known.get((fn, key))
        if got is None:
            got = self.known[(fn, key)] = self._ret_kinds(fn, key)
        return got

    def _ret_kinds(self, fn: str, key: str) -> set[str]:
        callee, idx, site = split_return_key(key)
        i: int | str = int(idx) if idx.isdigit() else (idx or -1)
        out: set[str] = {"T"} if (fn, callee) in self.tensor_calls and not isinstance(i, str) else set()
        active = self.active
        inner = (fn, key) not in active  # a recursive chain takes the callee's return as is
        active.add((fn, key))
        try:
            for t in self.resolved(fn, callee):
                self.ret_readers[t].add(fn)
                got = self.ret.get((t, i))
                if isinstance(i, str):
                    out |= got or set()
                else:
                    out |= got if got is not None else self.ret.get((t, -1), set())
                flow = self.ret_flow(t, i)
                # what the callee returns from its parameters, with this call's arguments
                for key2, h, k in flow.deps if flow is not None and inner else ():
                    if k not in out and key2.startswith("p:") and h in self.arg_kinds(fn, callee, t, key2[2:], site):
                        out.add(k)
                if i == -1 and inner and RETURNED_REDUCTION not in out and self._reduced(fn, callee, t, site):
                    out.add(RETURNED_REDUCTION)
                if i == -1 and inner and RETURNED_RAGGED not in out and \
                        self._holds_any(fn, callee, t, self.summaries[t].ret_ragged, site):
                    out.add(RETURNED_RAGGED)
        finally:
            if inner:
                active.discard((fn, key))
        return out

    def _reset_per_call(self, fn: str, attr: str) -> bool:
        """Whether a traced method of ``fn``'s class sets ``self.<attr>`` to a literal
        unconditionally (``FunctionSummary.resets``): a counter on it in ``fn`` then restarts on
        every traced call (funnel's ``self.pooling_mult = 1`` in ``init_attention_inputs``, then
        ``*= 2`` per block), trace-time Python rather than state carried between steps."""
        if self._resets is None:
            index: dict[tuple[str, str], list[str]] = defaultdict(list)
            for q, s in self.summaries.items():
                for a in s.resets:
                    index[(q.rsplit(".", 1)[0], a)].append(q)
            self._resets = index
        cls = fn.rsplit(".", 1)[0]
        return any(self.contexts.get(q) == "traced" for q in self._resets.get((cls, attr), ()))

    def _outside(self, fn: str, param: str) -> bool:
        """Whether ``fn``'s parameter ``param`` may hold an object from outside the call that
        reaches it: True unless every call resolved to ``fn`` passes, there, a container its
        caller built in that call (``CallFlow.local``: ``feats = []; collect(feats, x)``), which
        an append changes as trace-time Python. No known caller: True."""
        sites = self.callers.get(fn, ())
        s = self.summaries.get(fn)
        if not sites or s is None or s.escapes:
            return True
        idx = s.params.index(param) if param in s.params else -1
        for caller, written in sites:
            cs = self.summaries.get(caller)
            flows = [c for c in cs.calls if c.callee == written and not c.via] if cs is not None else []
            if not flows:
                return True
            for c in flows:
                if c.spread or not ((0 <= idx and idx in c.local) or param in c.local_kw):
                    return True
        return False

    def _passed(self, fn: str, param: str) -> bool:
        """Whether some call may give ``fn``'s optional parameter ``param`` (default None) a
        value: a call resolved to ``fn`` that passes it by position or keyword, spreads its
        arguments, or whose arguments were not recorded; also True when ``fn`` has no known
        caller or is handed on as a value (a public function, a callback). False only when
        every known call leaves it out: code under ``if param is not None:`` never runs in this
        project (a fallback's mask branch no caller reaches). A function a package's
        ``__init__`` re-exports is public API: its users may give anything."""
        sites = self.callers.get(fn, ())
        s = self.summaries.get(fn)
        if not sites or s is None or s.escapes or fn in self.public:
            return True
        idx = s.params.index(param) if param in s.params else -1
        for c in s.calls:  # its own recursive calls (`pyramid(x, mask, depth + 1)`)
            if (c.callee == fn or fn in self.resolved(fn, c.callee)) and (
                    c.spread or c.via or param in c.keywords or 0 <= idx < len(c.args)):
                return True
        for caller, written in sites:
            cs = self.summaries.get(caller)
            flows = [c for c in cs.calls if c.callee == written] if cs is not None else []
            if not flows:
                return True
            for c in flows:
                if c.spread or c.via or (not c.args and not c.keywords) or param in c.keywords or \
                        0 <= idx < len(c.args):
                    return True
        return False

    def _omitted(self, fn: str, param: str, seen: set[tuple[str, str]] | None = None) -> bool:
        """Whether some call may leave ``fn``'s optional parameter ``param`` (default None) None:
        a call resolved to ``fn`` that leaves it out, passes ``None``, passes an optional
        parameter of its own that its callers may leave None, or whose arguments are not all
        listed (spread, through a wrapper, not recorded); also True when ``fn`` has no known
        caller, is handed on as a value or is public API. False only when every known call gives
        it a value: code under ``if param is None:`` (a size read from data: ``dim_size =
        int(index.max()) + 1``) never runs in this project."""
        if seen is None:  # (a top-level question: the answer is kept, sites ask it again)
            hit = self._omitted_memo.get((fn, param))
            if hit is None:
                hit = self._omitted_memo[(fn, param)] = self._omitted(fn, param, set())
            return hit
        sites = self.callers.get(fn, ())
        s = self.summaries.get(fn)
        if not sites or s is None or s.escapes or fn in self.public or fn.rsplit(".", 1)[-1] in self._super_called:
            return True  # (`super().reduce(x, index)` in a subclass: a caller the graph does not list)
        if (fn, param) in seen:
            return False  # (a cycle of pass-throughs adds no caller that leaves it out)
        if len(seen) > 64:
            return True  # (a chain that deep: taken as leaving it out rather than followed further)
        seen.add((fn, param))
        idx = s.params.index(param) if param in s.params else -1

        def left_none(c: CallFlow, caller: str) -> bool:
            if c.spread or c.via:
                return True
            head = c.callee.rsplit(".", 2)
            if len(head) >= 2 and head[-2][:1].isupper() and not c.callee.startswith("self."):
                return True  # `Aggregation.reduce(self, x, index, None)`: `self` passed by hand
            # (a `self.<m>(...)` flow lists its arguments by their static descriptors)
            given_kw = param in c.keywords or any(k == param for k, _ in c.static_kw)
            slot = param if given_kw else (str(idx) if 0 <= idx < max(len(c.args), len(c.static)) else "")
            if not slot:
                return True  # left out (or not recorded)
            for n in c.nones:
                k, _, src = n.partition("=")
                if k == slot:
                    return not src or self._omitted(caller, src, seen)
            return False

        for c in s.calls:  # its own recursive calls
            if (c.callee == fn or fn in self.resolved(fn, c.callee)) and left_none(c, fn):
                return True
        for caller, written in sites:
            cs = self.summaries.get(caller)
            flows = [c for c in cs.calls if c.callee == written] if cs is not None else []
            if not flows or any(left_none(c, caller) for c in flows):
                return True
        return False

    @functools.cached_property
    def _omitted_memo(self) -> dict[tuple[str, str], bool]:
        """:meth:`_omitted`'s answers to top-level questions, by (function, parameter)."""
        return {}

    @functools.cached_property
    def _super_called(self) -> frozenset[str]:
        """Method names some function calls through ``super().<name>(...)``."""
        return frozenset(c.callee.rsplit(".", 1)[-1] for s in self.summaries.values() for c in s.calls
                         if c.callee.startswith("super()."))

    def _reduced(self, fn: str, callee: str, t: str, site: int = 0) -> bool:
        """Whether ``t`` (``callee`` as ``fn`` calls it) returns a 0-d reduction of data with
        ``fn``'s arguments (:attr:`FunctionSummary.ret_reduced`): an alternative whose every
        requirement holds, a parameter's by the kinds ``fn`` passes for it, another input's
        (``r:<other>=R``, a helper returning a helper's reduction) by ``t``'s own kinds."""
        return self._holds_any(fn, callee, t, self.summaries[t].ret_reduced, site)

    def _holds_any(self, fn: str, callee: str, t: str, alternatives: Sequence[str], site: int = 0) -> bool:
        """Whether one of ``alternatives`` (``"*"``, or ``&``-joined ``"<key>=<kind>"``
        requirements on ``t``'s inputs) holds for ``t`` called by ``fn`` as ``callee``: a
        parameter's requirement by the kinds ``fn`` passes (at call site ``site`` only, when
        given), another input's by ``t``'s own."""
        for alt in alternatives:
            if alt == "*":
                return True
            ok = True
            for part in alt.split("&"):
                key, _, h = part.rpartition("=")
                got = self.arg_kinds(fn, callee, t, key[2:], site) if key.startswith("p:") else self.key_kinds(t, key)
                if h not in got:
                    ok = False
                    break
            if ok:
                return True
        return False

    def value(self, fn: str, flow: Flow, own_params: bool = True) -> set[str]:
        out = {flow.kind} if flow.kind else set()
        for key, h, k in flow.deps:
            if k not in out and (own_params or not key.startswith("p:")) and h in self.key_kinds(fn, key):
                out.add(k)
        return out

    @staticmethod
    def _add(table: dict[Any, set[str]], key: Any, kinds: Collection[str]) -> bool:
        have = table[key]
        if kinds <= have:
            return False
        have |= kinds
        return True

    def _solve(self) -> None:
        """The least fixed point, by a worklist: every function is evaluated once (in sorted
        order), then again only when what its evaluation reads has grown: the kinds passed to
        its parameters (written by its callers' evaluations) or the return kinds of a function
        it read them from (:attr:`ret_readers`). An evaluation reads and writes nothing else
        (its ``known`` entries are its own), and every evaluation is monotone in the tables, so
        this ends on the same tables as evaluating every function until none changes (what
        this did until 0.1: 4 passes over core's 11.4k summaries, 45.6k evaluations, the last
        pass to see nothing change) in fewer evaluations (37.1k on core)."""
        summaries, add, value, param, ret = self.summaries, self._add, self.value, self.param, self.ret
        queue = deque(sorted(summaries))
        queued = set(queue)
        while queue:
            fn = queue.popleft()
            queued.discard(fn)
            self.known.clear()
            s = summaries[fn]
            traced_fn = self.contexts.get(fn) == "traced"
            grew: set[str] = set()  # functions whose inputs this evaluation grew
            # a return's kinds apart from its parameters (those are taken per call site)
            returns = add(ret, (fn, -1), value(fn, s.ret, own_params=False)) if s.ret is not None else False
            for i, item in enumerate(s.ret_items):
                returns |= add(ret, (fn, i), value(fn, item, own_params=False))
            for k, item in s.ret_keys:
                returns |= add(ret, (fn, k), value(fn, item, own_params=False))
            if returns:
                grew |= self.ret_readers.get(fn, set())
            for c in s.calls:
                splat = c.splat and traced_fn and not c.via  # (a wrapper's plan says what it passes)
                if c.via:
                    c = self.through(fn, c)  # type: ignore[assignment]
                    if c is None:
                        continue
                for t in self.resolved(fn, c.callee):
                    params = summaries[t].params
                    named = summaries[t].named
                    if not named:
                        continue
                    for i, f in enumerate(c.args):
                        if i < len(params) and add(param, (t, params[i]), value(fn, f)):
                            grew.add(t)
                    if splat:
                        # `self.assigner.get_assignments(*args)` from traced code: what the splat
                        # fills is not listed; the parameters it may reach take tensors there
                        for p in params[len(c.args):]:
                            if p not in c.keywords and add(param, (t, p), _TENSOR):
                                grew.add(t)
                    spread = "**" in named  # (the values of its `**kwargs` it iterates: `p:**`)
                    for kw, f in zip(c.keywords, c.kwargs):
                        if kw in named:
                            if add(param, (t, kw), value(fn, f)):
                                grew.add(t)
                        elif spread and add(param, (t, "**"), value(fn, f)):
                            grew.add(t)
            for g in sorted(grew - queued):
                queue.append(g)
                queued.add(g)
        self.known.clear()

    def kinds(self, fn: str, key: str) -> frozenset[str]:
        return frozenset(self.key_kinds(fn, key))


_TENSOR = frozenset({"T"})


def _lost_updates(summaries: Mapping[str, FunctionSummary],
                  resolved: Callable[[str, str], tuple[str, ...]],
                  contexts: Mapping[str, str]) -> set[tuple[str, str]]:
    """``(function, parameter)`` pairs whose in-place update some caller loses in a functional
    port: the function writes into the parameter and returns a value (``mutated``), and a
    call passes an object the caller still holds (``CallFlow.held``) while keeping none of the
    result that returns the parameter (a call statement, ``out, _ = f(buf, x)`` dropping its
    item, or a function that does not return it at all). Key ``u:<parameter>`` (kind ``L``).
    Callers in init code are left out (``trunc_normal_(self.pos_embed, std=.02)`` in
    ``__init__``: a port sets the initial value with an initializer, nothing is lost later)."""
    out: set[tuple[str, str]] = set()
    for fn in sorted(summaries):
        if contexts.get(fn) == "init":
            continue
        for c in summaries[fn].calls:
            if not (c.held or c.held_kw):
                continue
            kept = None if c.use in ("", "-") else set(c.use.split(","))
            for t in resolved(fn, c.callee):
                s = summaries[t]
                for p in s.mutated:
                    idx = s.params.index(p) if p in s.params else -1
                    if not ((0 <= idx and idx in c.held) or p in c.held_kw):
                        continue
                    back = [i for q, i in s.returned if q == p]
                    if c.use == "-" or not back or (
                            kept is not None and all(i >= 0 and str(i) not in kept for i in back)):
                        out.add((t, p))
    return out


def holds(fd: Finding, kinds: Callable[[str, str], frozenset[str]]) -> bool:
    """Whether a finding made under hypotheses (``Finding.requires``: alternatives, each
    ``"<key>=<kind>"`` conditions joined by ``&``, on its function's symbolic inputs) holds given ``kinds`` (:func:`flow_kinds`);
    True for unconditional findings."""
    if not fd.requires:
        return True
    for req in fd.requires:
        if all(part.rpartition("=")[2] in kinds(fd.symbol, part.rpartition("=")[0]) for part in req.split("&")):
            return True
    return False
