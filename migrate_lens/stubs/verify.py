"""Opt-in parity check of a generated stub against its PyTorch module.

THIS IMPORTS AND RUNS THE USER'S CODE (the PyTorch module and the generated stub). It is only
run on explicit request (``migrate-lens verify``); the rest of migrate-lens never imports the
code it scans. torch, jax and flax are imported lazily inside the functions.

For one module: build the PyTorch module (eval mode) and its stub with the same constructor
arguments, port the weights through the stub file's own ``convert_state_dict``, run both on the
same random inputs, and compare every output array: max absolute error, and max relative error
defined as ``max|jax - torch| / max|torch|`` (elementwise ratios explode near zero). Then run the
stub under ``nnx.jit`` and compare again. Results are JSON-able dicts for report.json ``stubs``.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
import types
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

#: The report.json ``stubs`` entry keys, in order.
RESULT_KEYS = ("module", "stub_path", "generated", "compiles", "runs", "max_abs_error", "max_rel_error",
               "tolerance", "jit", "status", "reason", "todos")
STUB_PACKAGE = "_migrate_lens_stubs"
WARNING = ("migrate-lens verify IMPORTS AND RUNS the code under test (the PyTorch module and its "
           "generated stub). Run it only on code you trust.")


@dataclass(frozen=True, slots=True)
class VerifyResult:
    """One parity check. Errors are absolute/relative (see module doc); ``status`` is ``pass``
    (eager and jit within ``tolerance``), ``fail`` (ran, but out of tolerance or not under jit)
    or ``error`` (could not build or run; ``reason`` says where)."""

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

    def as_dict(self) -> dict[str, Any]:
        """The report.json ``stubs`` entry."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class InputSpec:
    """A random input: ``shape``; ``dtype`` a numpy dtype name; ints drawn from [low, high)."""

    shape: tuple[int, ...]
    dtype: str = "float32"
    low: int = 0
    high: int = 100


_SPEC = re.compile(r"^(\d+(?:x\d+)*)(?::([a-z0-9]+))?(?::(-?\d+):(-?\d+))?$")


def parse_input_spec(text: str) -> InputSpec:
    """``2x3x64x64`` (float32 normal) or ``2x8:int64:0:100`` (uniform ints in [0, 100)).
    Raises ``ValueError`` for anything else."""
    m = _SPEC.match(text.strip())
    if m is None:
        raise ValueError(f"input spec {text!r}: expected e.g. 2x3x64x64 or 2x8:int64:0:100")
    shape = tuple(int(x) for x in m.group(1).split("x"))
    dtype = m.group(2) or "float32"
    low, high = (int(m.group(3)), int(m.group(4))) if m.group(3) is not None else (0, 100)
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
        return [value.detach().cpu().numpy()]
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
    import numpy as np

    a, b = _leaves_torch(ref), _leaves_jax(got)
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


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:300]


def verify_module(torch_cls: Any, stub_cls: Any, convert: Any, *, args: tuple[Any, ...] = (),
                  kwargs: dict[str, Any] | None = None, inputs: list[Any], input_kwargs: dict[str, Any] | None = None,
                  tolerance: float = 1e-4, seed: int = 0, module: str = "", stub_path: str = "",
                  todos: int = 0) -> VerifyResult:
    """Parity of ``stub_cls`` against ``torch_cls`` (see module doc). ``inputs`` are numpy arrays
    passed positionally to both; ``input_kwargs`` (non-array options such as flags) go to both
    calls; ``convert(stub, state_dict)`` ports the weights. Never raises for a failure of the
    code under test: it becomes ``status="error"`` with the reason."""
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
    except Exception as exc:  # noqa: BLE001 - the code under test may raise anything; reported, not hidden
        return result(False, None, None, False, "error", f"{stage}: {_first_line(exc)}")
    abs_err, rel_err, why = compare(ref, got)
    if why:
        return result(True, None, None, False, "fail", why)
    try:
        jitted = nnx.jit(lambda m, *xs: m(*xs, **input_kwargs))
        got_jit = jitted(sm, *[jnp.asarray(x) for x in inputs])
        jit_abs, _, jit_why = compare(ref, got_jit)
        jit_ok = not jit_why and jit_abs <= tolerance
        jit_reason = jit_why or ("" if jit_ok else f"under nnx.jit max abs error {jit_abs:.3g}")
    except Exception as exc:  # noqa: BLE001 - tracer errors of the code under test are the finding
        jit_ok, jit_reason = False, f"nnx.jit: {_first_line(exc)}"
    if abs_err > tolerance:
        return result(True, abs_err, rel_err, jit_ok, "fail", f"max abs error {abs_err:.3g} > tolerance {tolerance:g}")
    if not jit_ok:
        return result(True, abs_err, rel_err, False, "fail", jit_reason)
    return result(True, abs_err, rel_err, True, "pass", "")


def verify_target(source_root: Path, stub_dir: Path, rel_path: str, class_name: str, *, torch_module: str = "",
                  args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None, inputs: list[Any],
                  input_kwargs: dict[str, Any] | None = None, tolerance: float = 1e-4, seed: int = 0,
                  todos: int | None = None) -> VerifyResult:
    """Load the PyTorch class (``torch_module`` or the file under ``source_root``) and its stub
    (``stub_dir/rel_path``) and run :func:`verify_module`. Import failures become ``error``
    results (``compiles=False`` when the stub itself does not import). ``todos`` defaults to
    the stub file's own count for the class (:func:`stub_todo_count`)."""
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
    except Exception as exc:  # noqa: BLE001 - module-level code of the stub may raise anything
        return VerifyResult(qual, rel_path, True, True, False, None, None, tolerance, False, "error",
                            f"import stub: {_first_line(exc)}", todos)
    try:
        torch_cls = getattr(load_torch_module(source_root, rel_path, dotted), class_name)
    except Exception as exc:  # noqa: BLE001 - importing user code may raise anything
        return VerifyResult(qual, rel_path, True, True, False, None, None, tolerance, False, "error",
                            f"import PyTorch module: {_first_line(exc)}", todos)
    return verify_module(torch_cls, stub_cls, stub_mod.convert_state_dict, args=args, kwargs=kwargs, inputs=inputs,
                         input_kwargs=input_kwargs, tolerance=tolerance, seed=seed, module=qual, stub_path=rel_path,
                         todos=todos)


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
