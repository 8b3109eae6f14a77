"""Opt-in parity check of a generated stub against its PyTorch module.

THIS IMPORTS AND RUNS THE USER'S CODE (the PyTorch module and the generated stub). It is only
run on explicit request (``migrate-lens verify``); the rest of migrate-lens never imports the
code it scans. torch, jax and flax are imported lazily inside the functions.

For one module: build the PyTorch module (eval mode) and its stub with the same constructor
arguments, port the weights through the stub file's own ``convert_state_dict``, run both on the
same random inputs, and compare every output array: max absolute error, and max relative error
defined as ``max|jax - torch| / max|torch|`` (elementwise ratios explode near zero). Then run the
stub under ``nnx.jit`` and compare again. Results are JSON-able dicts for report.json ``stubs``.

Two opt-in checks are reported apart from the eval-mode verdict (``train`` and ``bf16`` keys):

- ``train``: one training-mode step on both sides (see :func:`check_train_step`). Where
  PyTorch's training forward is random (calls with different seeds differ: dropout,
  drop_path; up to ``TRAIN_DRAWS`` calls, as a draw can repeat by chance), the stub's draws must differ between calls too, eagerly and under ``nnx.jit``
  (a frozen PRNG key gives the same mask every call). Where it is deterministic (BatchNorm with
  batch statistics), the stub's training output must match PyTorch's and its buffers after the
  step (BatchNorm ``running_mean``/``running_var``, read back through the stub's
  ``torch_state_dict``) must agree with PyTorch's within ``tolerance``.
- ``bf16``: the stub run with its floating parameters, buffers and inputs cast to bfloat16
  (see :func:`check_bf16`), compared with the float32 PyTorch output by relative error
  ``max|err| / max|ref|``; PyTorch's own bfloat16 error is measured too, and the check passes
  when the stub's error is within ``max(bf16_tolerance, 2 x PyTorch's)``. bfloat16 keeps 8
  significant bits (relative step 2^-8 = 3.9e-3), so a float32 tolerance would mean nothing.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
import types
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

#: The report.json ``stubs`` entry keys, in order.
RESULT_KEYS = ("module", "stub_path", "generated", "compiles", "runs", "max_abs_error", "max_rel_error",
               "tolerance", "jit", "status", "reason", "todos", "train", "bf16")
#: Default relative tolerance of the bf16 run (error over max|reference|, see the module doc).
BF16_TOLERANCE = 2e-2
STUB_PACKAGE = "_migrate_lens_stubs"
#: What the code under test may raise that verify reports instead of dying: any exception and
#: ``SystemExit`` (a module calling ``sys.exit()`` at import); ``KeyboardInterrupt`` still stops it.
USER_CODE_ERRORS: tuple[type[BaseException], ...] = (Exception, SystemExit)
WARNING = ("migrate-lens verify IMPORTS AND RUNS the code under test (the PyTorch module and its "
           "generated stub). Run it only on code you trust.")


@dataclass(frozen=True, slots=True)
class VerifyResult:
    """One parity check. Errors are absolute/relative (see module doc); ``status`` is ``pass``
    (eager and jit within ``tolerance``), ``fail`` (ran, but out of tolerance or not under jit)
    or ``error`` (could not build or run; ``reason`` says where). ``train`` and ``bf16`` hold
    the opt-in checks' results (dicts with their own ``status``), ``None`` when not asked."""

    module: str
    stub_path: str
    generated: bool
    compiles: bool
    runs: bool
    max_abs_error: float | None
    max_rel_error: float | None
    tolerance: float
    jit: bool
    status: str
    reason: str
    todos: int
    train: dict[str, Any] | None = None
    bf16: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        """The report.json ``stubs`` entry."""
        return asdict(self)

    @property
    def passed(self) -> bool:
        """Eval-mode status ``pass`` and every opt-in check that ran passed."""
        return self.status == "pass" and all(c is None or c.get("status") == "pass" for c in (self.train, self.bf16))


@dataclass(frozen=True, slots=True)
class InputSpec:
    """A random input: ``shape``; ``dtype`` a numpy dtype name; ints drawn from [low, high)."""

    shape: tuple[int, ...]
    dtype: str = "float32"
    low: int = 0
    high: int = 100


_SPEC = re.compile(r"^(\d+(?:x\d+)*)(?::([a-z0-9]+))?(?::(-?\d+):(-?\d+))?$")


#: The dtypes an ``--input`` spec may name (numpy's names; no bfloat16: use ``--bf16``).
INPUT_DTYPES = ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool")
#: Most elements one ``--input`` may have (2**28: 1 GiB of float32).
MAX_INPUT_ELEMENTS = 1 << 28


def parse_input_spec(text: str) -> InputSpec:
    """``2x3x64x64`` (float32 normal) or ``2x8:int64:0:100`` (uniform ints in [0, 100)).
    Raises ``ValueError`` for anything else."""
    m = _SPEC.match(text.strip())
    if m is None:
        raise ValueError(f"input spec {text!r}: expected e.g. 2x3x64x64 or 2x8:int64:0:100")
    shape = tuple(int(x) for x in m.group(1).split("x"))
    dtype = m.group(2) or "float32"
    low, high = (int(m.group(3)), int(m.group(4))) if m.group(3) is not None else (0, 100)
    if dtype not in INPUT_DTYPES:
        raise ValueError(f"input spec {text!r}: dtype {dtype!r} is not one of {', '.join(INPUT_DTYPES)}")
    elements = 1
    for n in shape:
        elements *= n
    if elements > MAX_INPUT_ELEMENTS:
        raise ValueError(f"input spec {text!r}: {elements} elements, more than {MAX_INPUT_ELEMENTS} "
                         "(verify runs small example inputs)")
    if low >= high and (dtype.startswith(("int", "uint"))):
        raise ValueError(f"input spec {text!r}: the integer range needs LOW < HIGH")
    return InputSpec(shape, dtype, low, high)


def make_inputs(specs: list[InputSpec], seed: int) -> list[Any]:
    """Numpy arrays for ``specs``: floats standard normal, ints uniform, from ``seed``."""
    import numpy as np

    rng = np.random.default_rng(seed)
    out = []
    for s in specs:
        if s.dtype.startswith("int") or s.dtype.startswith("uint"):
            out.append(rng.integers(s.low, s.high, size=s.shape).astype(s.dtype))
        elif s.dtype == "bool":
            out.append(rng.integers(0, 2, size=s.shape).astype(bool))
        else:
            out.append(rng.standard_normal(s.shape).astype(s.dtype))
    return out


def import_file_module(root: Path, rel_path: str, name: str) -> types.ModuleType:
    """Import ``root/rel_path`` as module ``name`` WITHOUT running its parent packages'
    ``__init__.py`` (parents become bare namespace modules), so a package whose ``__init__``
    imports something unavailable (torchvision) still gives its leaf modules. Raises
    ``ImportError`` when the file cannot be loaded."""
    path = root / rel_path
    parts = name.split(".")
    for i in range(1, len(parts)):
        pkg = ".".join(parts[:i])
        if pkg not in sys.modules:
            mod = types.ModuleType(pkg)
            mod.__path__ = [str(root.joinpath(*parts[1:i]) if pkg.startswith(STUB_PACKAGE) else root.joinpath(*parts[:i]))]
            sys.modules[pkg] = mod
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def load_torch_module(root: Path, rel_path: str, dotted: str) -> types.ModuleType:
    """The PyTorch-side module: ``importlib.import_module(dotted)`` when importable (an installed
    package), else the file under ``root`` without its package ``__init__`` chain."""
    try:
        return importlib.import_module(dotted)
    except ImportError:
        return import_file_module(root, rel_path, dotted)


def load_stub_module(stub_dir: Path, stub_path: str) -> types.ModuleType:
    """The generated stub, imported as ``_migrate_lens_stubs.<dotted path>`` so its names never
    clash with the PyTorch side and its relative imports reach sibling stubs."""
    dotted = ".".join(Path(stub_path).with_suffix("").parts)
    return import_file_module(stub_dir, stub_path, f"{STUB_PACKAGE}.{dotted}")


def _leaves_torch(value: Any) -> list[Any]:
    import torch

    if isinstance(value, torch.Tensor):
        value = value.detach().cpu()
        return [(value.float() if value.dtype in (torch.bfloat16, torch.float16) else value).numpy()]
    if isinstance(value, dict):
        return [x for k in value for x in _leaves_torch(value[k]) if value[k] is not None]
    if isinstance(value, (tuple, list)):
        return [x for v in value if v is not None for x in _leaves_torch(v)]
    return []


def _leaves_jax(value: Any) -> list[Any]:
    import jax
    import numpy as np

    if isinstance(value, jax.Array):
        return [np.asarray(value)]
    if isinstance(value, dict):
        return [x for k in value for x in _leaves_jax(value[k]) if value[k] is not None]
    if isinstance(value, (tuple, list)):
        return [x for v in value if v is not None for x in _leaves_jax(v)]
    return []


def compare(ref: Any, got: Any) -> tuple[float, float, str]:
    """Max abs and relative error between two output trees (torch reference, JAX result), and a
    reason when their structure or shapes differ ("" otherwise)."""
    return _compare_leaves(_leaves_torch(ref), _leaves_jax(got))


def _compare_leaves(a: list[Any], b: list[Any]) -> tuple[float, float, str]:
    import numpy as np

    if len(a) != len(b):
        return float("inf"), float("inf"), f"output count differs: PyTorch {len(a)}, stub {len(b)}"
    worst_abs, worst_ref = 0.0, 0.0
    for i, (x, y) in enumerate(zip(a, b)):
        if x.shape != y.shape:
            return float("inf"), float("inf"), f"output {i}: shape PyTorch {x.shape}, stub {y.shape}"
        if x.size == 0:
            continue
        diff = np.abs(x.astype(np.float64) - y.astype(np.float64))
        worst_abs = max(worst_abs, float(np.nanmax(diff)) if not np.isnan(diff).all() else float("inf"))
        if np.isnan(diff).any():
            return float("inf"), float("inf"), f"output {i}: NaN mismatch"
        worst_ref = max(worst_ref, float(np.abs(x).max()))
    return worst_abs, worst_abs / max(worst_ref, 1e-30), ""


def _max_diff_leaves(xs: list[Any], ys: list[Any]) -> float:
    """Max abs difference between two lists of numpy leaves (inf when their count or shapes
    differ; 0.0 when every leaf is empty)."""
    import numpy as np

    if len(xs) != len(ys) or any(x.shape != y.shape for x, y in zip(xs, ys)):
        return float("inf")
    return max([float(np.abs(x.astype(np.float64) - y.astype(np.float64)).max()) for x, y in zip(xs, ys) if x.size]
               or [0.0])


def _max_diff_torch(a: Any, b: Any) -> float:
    """Max abs difference between two PyTorch output trees (inf when their structure differs)."""
    return _max_diff_leaves(_leaves_torch(a), _leaves_torch(b))


def _max_diff_jax(a: Any, b: Any) -> float:
    """Max abs difference between two stub output trees (inf when their structure differs)."""
    return _max_diff_leaves(_leaves_jax(a), _leaves_jax(b))


#: Training-mode calls compared before a forward is called deterministic (PyTorch's, with a new
#: seed per call) or a stub's draws are called frozen. A draw can repeat by chance: DropPath(0.1)
#: on a batch of 2 keeps every sample with probability 0.81 per call, so two calls agree 81% of
#: the time and 32 calls all agree with probability 0.81**31 = 0.15%.
TRAIN_DRAWS = 32


def _draws_differ(first: Any, call: Any, calls: int) -> bool:
    """True when one of up to ``calls`` more stub outputs ``call()`` differs from ``first``
    (stops at the first difference)."""
    return any(_max_diff_jax(first, call()) > 0 for _ in range(calls))


def check_train_step(tm: Any, sm: Any, inputs: list[Any], input_kwargs: dict[str, Any], *, export: Any,
                     tolerance: float, seed: int = 0) -> dict[str, Any]:
    """One training-mode step of the PyTorch module ``tm`` and of the stub ``sm`` (weights
    already ported; neither is changed: the stub is cloned, the PyTorch state restored). See the
    module doc for the criteria. ``export(stub)`` returns the stub's state as a PyTorch
    state_dict (the stub file's ``torch_state_dict``). Returns ``{status, random,
    max_abs_error, stats_max_abs_error, stats_compared, draws_differ, jit_draws_differ,
    reason}``; never raises for a failure of the code under test (``status="error"``)."""
    import copy

    import jax.numpy as jnp
    import numpy as np
    import torch
    from flax import nnx

    out: dict[str, Any] = {"status": "error", "random": None, "max_abs_error": None, "stats_max_abs_error": None,
                           "stats_compared": 0, "draws_differ": None, "jit_draws_differ": None, "reason": ""}
    stage = "PyTorch training step"
    try:
        tt = copy.deepcopy(tm).train()
        xs = [torch.from_numpy(x) for x in inputs]
        with torch.no_grad():
            torch.manual_seed(seed)
            ref1 = tt(*xs, **input_kwargs)
            buffers = {k: v.detach().cpu().numpy().copy() for k, v in tt.state_dict().items()
                       if k in dict(tt.named_buffers()) and not k.endswith("num_batches_tracked")}
            random = False
            for k in range(1, TRAIN_DRAWS):
                torch.manual_seed(seed + k)
                if _max_diff_torch(ref1, tt(*xs, **input_kwargs)) > 0:
                    random = True
                    break
        out["random"] = random
        stage = "stub training step"
        se = nnx.clone(sm)
        se.train()
        js = [jnp.asarray(x) for x in inputs]
        got1 = se(*js, **input_kwargs)
        state = export(se)
        # random: the stub must draw anew (up to TRAIN_DRAWS calls); deterministic: one more
        # call must agree with the first
        calls = TRAIN_DRAWS - 1 if random else 1
        out["draws_differ"] = _draws_differ(got1, lambda: se(*js, **input_kwargs), calls)
        stage = "stub training step under nnx.jit"
        sj = nnx.clone(sm)
        sj.train()
        step = nnx.jit(lambda m, *a: m(*a, **input_kwargs))
        jit1 = step(sj, *js)
        out["jit_draws_differ"] = _draws_differ(jit1, lambda: step(sj, *js), calls)
    except USER_CODE_ERRORS as exc:  # noqa: BLE001 - the code under test may raise anything
        out["reason"] = f"{stage}: {_first_line(exc)}"
        return out
    if random:
        if not out["draws_differ"] or not out["jit_draws_differ"]:
            where = "eagerly" if not out["draws_differ"] else "under nnx.jit"
            out.update(status="fail", reason=f"PyTorch's training forward is random but the stub's draws are the "
                                             f"same on every call {where} (a fixed PRNG key?)")
            return out
        _, _, why = compare(ref1, got1)
        out.update(status="fail" if why else "pass",
                   reason=why or "random in training mode: outputs and statistics depend on the draws, not compared")
        return out
    abs_err, _, why = compare(ref1, got1)
    jit_err, _, jit_why = compare(ref1, jit1)
    out["max_abs_error"] = None if why else max(abs_err, jit_err if not jit_why else float("inf"))
    missing = sorted(k for k in buffers if k not in state)
    worst = 0.0
    for key, value in buffers.items():
        if key in state and np.shape(state[key]) == value.shape and value.size:
            worst = max(worst, float(np.abs(np.asarray(state[key], np.float64) - value.astype(np.float64)).max()))
        elif key in state:
            worst = float("inf")
    out["stats_compared"] = len(buffers) - len(missing)
    out["stats_max_abs_error"] = worst if buffers else None
    problems = [p for p in (
        why or jit_why,
        f"training output max abs error {out['max_abs_error']:.3g} > {tolerance:g}"
        if out["max_abs_error"] is not None and out["max_abs_error"] > tolerance else "",
        "PyTorch's training forward is deterministic but the stub's differs between calls" if out["draws_differ"] else "",
        f"buffers after one step max abs error {worst:.3g} > {tolerance:g}" if worst > tolerance else "",
        f"the stub has no {missing[0]!r} buffer" if missing else "") if p]
    out.update(status="fail" if problems else "pass", reason="; ".join(problems))
    return out


def check_bf16(tm: Any, sm: Any, inputs: list[Any], input_kwargs: dict[str, Any], ref: Any, *,
               bf16_tolerance: float = BF16_TOLERANCE) -> dict[str, Any]:
    """The stub ``sm`` (weights ported) run with its floating state and inputs in bfloat16,
    against ``ref``, the PyTorch module's float32 output (module doc). PyTorch's own bfloat16
    run of ``tm`` gives the baseline (``None`` when PyTorch cannot run it in bfloat16 on this
    device). Returns ``{status, max_rel_error, max_abs_error, torch_max_rel_error, tolerance,
    output_dtypes, reason}``; never raises for a failure of the code under test."""
    import copy

    import jax
    import jax.numpy as jnp
    import numpy as np
    import torch
    from flax import nnx

    out: dict[str, Any] = {"status": "error", "max_rel_error": None, "max_abs_error": None,
                           "torch_max_rel_error": None, "tolerance": bf16_tolerance, "output_dtypes": [], "reason": ""}
    try:
        sb = nnx.clone(sm)
        state = nnx.state(sb)
        nnx.update(sb, jax.tree.map(lambda a: a.astype(jnp.bfloat16) if jnp.issubdtype(a.dtype, jnp.floating) else a,
                                    state))
        js = [jnp.asarray(x, jnp.bfloat16) if np.issubdtype(x.dtype, np.floating) else jnp.asarray(x) for x in inputs]
        got = nnx.jit(lambda m, *a: m(*a, **input_kwargs))(sb, *js)
    except USER_CODE_ERRORS as exc:  # noqa: BLE001 - the code under test may raise anything
        out["reason"] = f"stub in bfloat16: {_first_line(exc)}"
        return out
    leaves = _leaves_jax(got)
    out["output_dtypes"] = sorted({str(x.dtype) for x in leaves})
    abs_err, rel_err, why = _compare_leaves(_leaves_torch(ref), leaves)
    if why:
        out.update(status="fail", reason=why)
        return out
    out.update(max_abs_error=abs_err, max_rel_error=rel_err)
    try:
        tb = copy.deepcopy(tm).to(torch.bfloat16).eval()
        with torch.no_grad():
            tref = tb(*[torch.from_numpy(x).to(torch.bfloat16) if np.issubdtype(x.dtype, np.floating)
                        else torch.from_numpy(x) for x in inputs], **input_kwargs)
        _, t_rel, t_why = _compare_leaves(_leaves_torch(ref), _leaves_torch(tref))
        out["torch_max_rel_error"] = None if t_why else t_rel
    except USER_CODE_ERRORS:  # noqa: BLE001 - a CPU kernel without bfloat16 support: no baseline
        out["torch_max_rel_error"] = None
    tol = max(bf16_tolerance, 2 * (out["torch_max_rel_error"] or 0.0))
    out["tolerance"] = tol
    if rel_err > tol:
        out.update(status="fail", reason=f"bfloat16 max rel error {rel_err:.3g} > {tol:.3g}")
    elif "float32" in out["output_dtypes"] or "float64" in out["output_dtypes"]:
        out.update(status="pass", reason="some outputs are not bfloat16: the stub promotes to float32 somewhere")
    else:
        out.update(status="pass")
    return out


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:300]


def verify_module(torch_cls: Any, stub_cls: Any, convert: Any, *, args: tuple[Any, ...] = (),
                  kwargs: dict[str, Any] | None = None, inputs: list[Any], input_kwargs: dict[str, Any] | None = None,
                  tolerance: float = 1e-4, seed: int = 0, module: str = "", stub_path: str = "",
                  todos: int = 0, train: bool = False, bf16: bool = False, bf16_tolerance: float = BF16_TOLERANCE,
                  export: Any = None) -> VerifyResult:
    """Parity of ``stub_cls`` against ``torch_cls`` (see module doc). ``inputs`` are numpy arrays
    passed positionally to both; ``input_kwargs`` (non-array options such as flags) go to both
    calls; ``convert(stub, state_dict)`` ports the weights. ``train`` / ``bf16`` add the opt-in
    checks (:func:`check_train_step`, which reads the stub's buffers through ``export``, the stub
    file's ``torch_state_dict``; :func:`check_bf16`), reported in the result's ``train`` /
    ``bf16`` fields, not in ``status``. Never raises for a failure of the code under test: it
    becomes ``status="error"`` with the reason."""
    res, built = _verify_eval(torch_cls, stub_cls, convert, args=args, kwargs=kwargs, inputs=inputs,
                       input_kwargs=input_kwargs, tolerance=tolerance, seed=seed, module=module, stub_path=stub_path,
                       todos=todos)
    if not (train or bf16):
        return res
    if built is None:
        skipped = {"status": "error", "reason": f"eval-mode check did not run: {res.reason}"}
        return replace(res, train=dict(skipped) if train else None, bf16=dict(skipped) if bf16 else None)
    tm, sm, ref = built
    input_kwargs = dict(input_kwargs or {})
    train_res = bf16_res = None
    if train:
        if export is None:
            train_res = {"status": "error", "reason": "no torch_state_dict in the stub file (regenerate it)"}
        else:
            train_res = check_train_step(tm, sm, inputs, input_kwargs, export=export, tolerance=tolerance, seed=seed)
    if bf16:
        bf16_res = check_bf16(tm, sm, inputs, input_kwargs, ref, bf16_tolerance=bf16_tolerance)
    return replace(res, train=train_res, bf16=bf16_res)


def _verify_eval(torch_cls: Any, stub_cls: Any, convert: Any, *, args: tuple[Any, ...], kwargs: dict[str, Any] | None,
                 inputs: list[Any], input_kwargs: dict[str, Any] | None, tolerance: float, seed: int, module: str,
                 stub_path: str, todos: int) -> tuple[VerifyResult, tuple[Any, Any, Any] | None]:
    """The eval-mode parity check of :func:`verify_module`, and the (PyTorch module, stub,
    PyTorch output) it built when both ran (``None`` otherwise) for the opt-in checks."""
    import jax.numpy as jnp
    import torch
    from flax import nnx

    kwargs = dict(kwargs or {})
    input_kwargs = dict(input_kwargs or {})

    def result(runs: bool, abs_err: float | None, rel_err: float | None, jit: bool, status: str,
               reason: str) -> VerifyResult:
        return VerifyResult(module, stub_path, True, True, runs, abs_err, rel_err, tolerance, jit, status, reason,
                            todos)

    stage = "build PyTorch module"
    try:
        torch.manual_seed(seed)
        tm = torch_cls(*args, **kwargs).eval()
        stage = "build stub"
        sm = stub_cls(*args, **kwargs, rngs=nnx.Rngs(seed))
        sm.eval()
        stage = "convert weights"
        convert(sm, {k: v.detach().cpu().numpy() for k, v in tm.state_dict().items()})
        stage = "run PyTorch module"
        with torch.no_grad():
            ref = tm(*[torch.from_numpy(x) for x in inputs], **input_kwargs)
        stage = "run stub"
        got = sm(*[jnp.asarray(x) for x in inputs], **input_kwargs)
    except USER_CODE_ERRORS as exc:  # noqa: BLE001 - the code under test may raise anything; reported, not hidden
        return result(False, None, None, False, "error", f"{stage}: {_first_line(exc)}"), None
    built = (tm, sm, ref)
    abs_err, rel_err, why = compare(ref, got)
    if why:
        return result(True, None, None, False, "fail", why), built
    try:
        jitted = nnx.jit(lambda m, *xs: m(*xs, **input_kwargs))
        got_jit = jitted(sm, *[jnp.asarray(x) for x in inputs])
        jit_abs, _, jit_why = compare(ref, got_jit)
        jit_ok = not jit_why and jit_abs <= tolerance
        jit_reason = jit_why or ("" if jit_ok else f"under nnx.jit max abs error {jit_abs:.3g}")
    except USER_CODE_ERRORS as exc:  # noqa: BLE001 - tracer errors of the code under test are the finding
        jit_ok, jit_reason = False, f"nnx.jit: {_first_line(exc)}"
    if abs_err > tolerance:
        return (result(True, abs_err, rel_err, jit_ok, "fail", f"max abs error {abs_err:.3g} > tolerance {tolerance:g}"),
                built)
    if not jit_ok:
        return result(True, abs_err, rel_err, False, "fail", jit_reason), built
    return result(True, abs_err, rel_err, True, "pass", ""), built


def verify_target(source_root: Path, stub_dir: Path, rel_path: str, class_name: str, *, torch_module: str = "",
                  args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None, inputs: list[Any],
                  input_kwargs: dict[str, Any] | None = None, tolerance: float = 1e-4, seed: int = 0,
                  todos: int | None = None, train: bool = False, bf16: bool = False,
                  bf16_tolerance: float = BF16_TOLERANCE) -> VerifyResult:
    """Load the PyTorch class (``torch_module`` or the file under ``source_root``) and its stub
    (``stub_dir/rel_path``) and run :func:`verify_module`. Import failures become ``error``
    results (``compiles=False`` when the stub itself does not import). ``todos`` defaults to
    the stub file's own count for the class (:func:`stub_todo_count`); ``train``/``bf16`` as
    in :func:`verify_module`."""
    from migrate_lens.stubs.names import module_name

    if todos is None:
        try:
            todos = stub_todo_count((stub_dir / rel_path).read_text(encoding="utf-8"), class_name)
        except (OSError, UnicodeDecodeError, SyntaxError):
            todos = 0

    dotted = torch_module or module_name(rel_path)
    qual = f"{dotted}.{class_name}"
    try:
        stub_mod = load_stub_module(stub_dir, rel_path)
        stub_cls = getattr(stub_mod, class_name)
    except (ImportError, SyntaxError, AttributeError) as exc:
        return VerifyResult(qual, rel_path, (stub_dir / rel_path).exists(), isinstance(exc, AttributeError), False,
                            None, None, tolerance, False, "error", f"import stub: {_first_line(exc)}", todos)
    except USER_CODE_ERRORS as exc:  # noqa: BLE001 - module-level code of the stub may raise anything
        return VerifyResult(qual, rel_path, True, True, False, None, None, tolerance, False, "error",
                            f"import stub: {_first_line(exc)}", todos)
    try:
        torch_cls = getattr(load_torch_module(source_root, rel_path, dotted), class_name)
    except USER_CODE_ERRORS as exc:  # noqa: BLE001 - importing user code may raise anything
        return VerifyResult(qual, rel_path, True, True, False, None, None, tolerance, False, "error",
                            f"import PyTorch module: {_first_line(exc)}", todos)
    return verify_module(torch_cls, stub_cls, stub_mod.convert_state_dict, args=args, kwargs=kwargs, inputs=inputs,
                         input_kwargs=input_kwargs, tolerance=tolerance, seed=seed, module=qual, stub_path=rel_path,
                         todos=todos, train=train, bf16=bf16, bf16_tolerance=bf16_tolerance,
                         export=getattr(stub_mod, "torch_state_dict", None))


_TODO_MARK = "# TODO(migrate-lens "


def stub_todo_count(stub_source: str, class_name: str) -> int:
    """TODO comments that concern ``class_name`` in a generated stub file: those inside the
    class (and above its statements), those of stub base classes defined in the same file, and
    the ``MissingName`` placeholders the class refers to. Read from the file itself, so it counts
    what a reader sees (hand edits included). ``0`` when the class is not in the file."""
    import ast

    tree = ast.parse(stub_source)
    lines = stub_source.splitlines()
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    placeholders: dict[str, int] = {}
    for n in tree.body:
        if (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name)
                and n.value.func.id == "MissingName"):
            above = n.lineno - 2
            placeholders[n.targets[0].id] = int(0 <= above < len(lines) and _TODO_MARK in lines[above])
    seen: set[str] = set()
    names: set[str] = set()
    total = 0
    todo = [class_name]
    while todo:
        name = todo.pop()
        node = classes.get(name)
        if node is None or name in seen:
            continue
        seen.add(name)
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        first = start - 1
        while first > 0 and lines[first - 1].lstrip().startswith(_TODO_MARK):
            first -= 1
        total += sum(_TODO_MARK in line for line in lines[first:node.end_lineno])
        names |= {x.id for x in ast.walk(node) if isinstance(x, ast.Name)}
        todo.extend(x.id for x in node.bases if isinstance(x, ast.Name))
    return total + sum(placeholders[n] for n in names if n in placeholders)
