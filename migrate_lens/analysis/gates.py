"""Tests of the conditions that gate a block (used by :mod:`.control_flow` and the
visitor's other parts): optional-kernel and backend gates, availability and
export-only or eager-only tests, flag constants, ``__main__`` guards, exits from a body,
handlers that always re-raise and bodies that only report.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Callable

import libcst as cst

from migrate_lens.analysis import kinds as K
from migrate_lens.analysis.bindings import dotted as _dotted
from migrate_lens.analysis.values import literal
from migrate_lens.analysis.walk import child_nodes
from migrate_lens.analysis.cst_queries import _small_statements

if TYPE_CHECKING:
    from migrate_lens.analysis.visitor import FileVisitor

#: An ``if`` test that checks an optional library is installed: ``is_flash_attn_2_available()``,
#: ``is_mamba_ssm_available()``, ``has_apex``, ``_HAS_FUSED_ATTN``, PyG's ``typing.WITH_SPLINE`` (an import under it
#: is optional).
_AVAILABILITY_TEST = re.compile(r"^(_?is_\w*_available|_?(has|HAS)_\w+|\w*_AVAILABLE|_?WITH_[A-Z0-9_]+)$")


def _always_raises(handler: cst.ExceptHandler) -> bool:
    """``handler``'s body ends with ``raise`` and returns nowhere: it only reports the error
    (PyG's ``_index_select_safe`` reads ``index.min().item()`` for a better message, then
    re-raises). Under ``jax.jit`` the failure it handles is never raised (an out-of-range gather
    clamps), so no port runs it; nothing it does is a porting obstacle."""
    body = handler.body
    if type(body) is not cst.IndentedBlock or not body.body:
        return False
    last = body.body[-1]
    if type(last) is not cst.SimpleStatementLine or type(last.body[-1]) is not cst.Raise:
        return False
    return not any(type(st) is cst.Return for st in _small_statements(body.body))


def _kernel_gate(visitor: FileVisitor, test: cst.BaseExpression) -> bool:
    """``test`` holds only when an optional kernel is installed: an availability test
    (:func:`_is_availability_test`: ``is_fast_path_available``, ``has_apex``) or a name imported
    under a guard, tested for truth or ``is not None``, as the whole test or as one term of an
    ``and`` (never negated, never under ``or``)."""
    t = type(test)
    if t is cst.BooleanOperation:
        return type(test.operator) is cst.And and (  # type: ignore[attr-defined]
            _kernel_gate(visitor, test.left) or _kernel_gate(visitor, test.right))  # type: ignore[attr-defined]
    if t is cst.Comparison:
        comps = test.comparisons  # type: ignore[attr-defined]
        if len(comps) != 1 or type(comps[0].operator) is not cst.IsNot or \
                type(comps[0].comparator) is not cst.Name or comps[0].comparator.value != "None":
            return False
        test = test.left  # type: ignore[attr-defined]
        t = type(test)
    elif t is not cst.UnaryOperation and _is_availability_test(test):
        return True
    if t is cst.Name or t is cst.Attribute:
        return bool(visitor.bindings.guarded) and bool(visitor.bindings.guarded_import(visitor.qual(test)))
    return False


def _asserts_kernel(visitor: FileVisitor, body: cst.BaseSuite) -> bool:
    """``body`` (of an ``if`` on a config flag: ``if self.use_fast_kernels:``) raises unless an
    optional kernel is installed: one of its statements is ``if not <kernel gate> [or ...]:``
    whose body raises (jamba's "Fast Mamba kernels are not available" check), so the rest of it
    runs only with the kernel."""
    if type(body) is not cst.IndentedBlock:
        return False
    for st in body.body:
        if type(st) is not cst.If or st.orelse is not None or _exit_kind(st.body) != "raise":
            continue
        terms = [st.test]
        while terms:
            t = terms.pop()
            if type(t) is cst.BooleanOperation and type(t.operator) is cst.Or:
                terms.extend((t.left, t.right))
            elif type(t) is cst.UnaryOperation and type(t.operator) is cst.Not and _kernel_gate(visitor, t.expression):
                return True
    return False


def _is_availability_test(test: cst.BaseExpression) -> bool:
    """``test`` checks that an optional library is installed (:data:`_AVAILABILITY_TEST`:
    ``is_causal_conv1d_available()``, ``has_apex``), possibly negated or joined with ``and``."""
    t = type(test)
    if t is cst.BooleanOperation:
        return _is_availability_test(test.left) or _is_availability_test(test.right)  # type: ignore[attr-defined]
    if t is cst.Call:
        test = test.func  # type: ignore[attr-defined]
        t = type(test)
    if t is cst.Attribute:
        return bool(_AVAILABILITY_TEST.match(test.attr.value))  # type: ignore[attr-defined]
    return t is cst.Name and bool(_AVAILABILITY_TEST.match(test.value))  # type: ignore[attr-defined]


def _backend_test(visitor: FileVisitor, t: cst.BaseExpression, alias: bool = True) -> int:
    """1 when ``t`` is true only on a PyTorch backend whose workarounds a JAX port drops
    (``kinds.TORCH_ONLY_BACKENDS``: ``x.device.type == "mps"``, ``device.type in ("mps",
    "xpu")``, ``x.is_mps``, ``torch.backends.mps.is_available()``), -1 when it is false only
    there (``x.device.type != "mps"``), else 0. With ``alias``, a local name last bound to such a
    test (``is_mps = z.device.type == "mps"``; ``if is_mps:``) counts as the test."""
    tt = type(t)
    if tt is cst.Name:
        if alias and visitor.func_stack:
            bound = visitor.func_stack[-1].last_value.get(t.value)  # type: ignore[attr-defined]
            if bound is not None:
                return _backend_test(visitor, bound, alias=False)
        return 0
    if tt is cst.Attribute:
        return 1 if t.attr.value in K.TORCH_ONLY_BACKEND_FLAGS else 0  # type: ignore[attr-defined]
    if tt is cst.Call:
        return 1 if visitor.qual(t.func) in K.TORCH_ONLY_BACKEND_CHECKS else 0  # type: ignore[attr-defined]
    if tt is not cst.Comparison or len(t.comparisons) != 1:  # type: ignore[attr-defined]
        return 0
    left, comp = t.left, t.comparisons[0]  # type: ignore[attr-defined]
    if not (type(left) is cst.Attribute and left.attr.value == "type"):
        return 0  # `<device>.type`: `x.device.type`, `self.device.type`, `device.type`
    right, op = comp.comparator, type(comp.operator)
    if op in (cst.Equal, cst.NotEqual):
        names = [right]
    elif op in (cst.In, cst.NotIn) and type(right) in (cst.Tuple, cst.List, cst.Set):
        names = [el.value for el in right.elements]  # type: ignore[attr-defined]
    else:
        return 0
    if not names or not all(type(n) is cst.SimpleString and n.evaluated_value in K.TORCH_ONLY_BACKENDS
                            for n in names):  # type: ignore[attr-defined]
        return 0
    return 1 if op in (cst.Equal, cst.In) else -1


def _export_only_test(visitor: FileVisitor, test: cst.BaseExpression) -> str:
    """Which branch of an ``if`` on ``test`` only PyTorch's exporters run: "body" for
    ``torch.jit.is_scripting()`` (also ``or``-ed with another such check, or ``and``-ed with
    anything), "orelse" for ``not`` of one, else "". Eager PyTorch, and so the code a port
    follows, takes the other branch (``kinds.TRACING_CHECKS``). A test true only on a PyTorch
    backend a port does not inherit the workarounds of (:func:`_backend_test`: the MPS detour
    ``if x.device.type == "mps": x = x.cpu()``) selects a dead branch the same way, and so does a
    flag that loads another framework's weights into PyTorch (``if from_tf:``,
    :data:`_FOREIGN_WEIGHTS`)."""
    def check(t: cst.BaseExpression) -> bool:
        if type(t) is cst.Call:
            return visitor.qual(t.func) in K.TRACING_CHECKS or _backend_test(visitor, t) == 1
        if visitor.constants and _flag_constant(visitor, t) in _FALSY:
            return True
        if (type(t) is cst.Name and _FOREIGN_WEIGHTS.match(t.value)) or \
                (type(t) is cst.Attribute and _FOREIGN_WEIGHTS.match(t.attr.value)):
            return True
        if type(t) is cst.BooleanOperation:
            if type(t.operator) is cst.Or:
                return check(t.left) and check(t.right)
            return check(t.left) or check(t.right)
        return _backend_test(visitor, t) == 1
    if check(test):
        return "body"
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not and check(test.expression):
        return "orelse"
    if _backend_test(visitor, test) == -1:
        return "orelse"
    if visitor.constants and _flag_constant(visitor, test) in ("True", "1"):
        return "orelse"
    return ""


def _eager_only_test(visitor: FileVisitor, test: cst.BaseExpression) -> bool:
    """``if not is_compiling(): ...`` (also ``and``-ed with anything), without an ``else``:
    work only the eager run does (input checks, validation shortcuts) that a compiled graph
    skips, as a jitted port does: the branch is dead for the port. Any function of that name
    (``torch.compiler.is_compiling``, transformers' ``is_torchdynamo_compiling``, a project's
    own wrapper: kornia's ``kornia.core.utils.is_compiling``)."""
    operands = [test]
    while type(operands[-1]) is cst.BooleanOperation and type(operands[-1].operator) is cst.And:  # type: ignore[attr-defined]
        last = operands.pop()
        operands += (last.left, last.right)  # type: ignore[attr-defined]
    for t in operands:
        if type(t) is cst.UnaryOperation and type(t.operator) is cst.Not and type(t.expression) is cst.Call:
            name = visitor.qual(t.expression.func) or _dotted(t.expression.func)
            if name.rsplit(".", 1)[-1] in _COMPILE_CHECKS:
                return True
    return False


_COMPILE_CHECKS = frozenset({"is_compiling", "is_dynamo_compiling", "is_torchdynamo_compiling"})


#: literals of a flag constant that is off
_FALSY = frozenset({"False", "None", "0"})


#: A flag that loads another framework's checkpoint into the PyTorch model (`if from_tf:` in
#: `from_pretrained`, the TF -> PyTorch round trip; `from_flax`): a JAX port loads its own weights
#: and carries none of that branch (:func:`_export_only_test`).
_FOREIGN_WEIGHTS = re.compile(r"^(from|load)_(tf|tensorflow|keras|flax)(_checkpoint|_weights)?$")


def _flag_constant(visitor: FileVisitor, t: cst.BaseExpression) -> str:
    """The literal of the project flag constant ``t`` names (``flags.DEBUG``, ``DEBUG``
    imported or defined at module level: :attr:`FileVisitor.constants`), "" for anything else."""
    if type(t) is cst.Name:
        name = visitor.qual(t) or (f"{visitor.module}.{t.value}" if t.value in visitor.bindings.globals else "")
    elif type(t) is cst.Attribute:
        name = visitor.qual(t)
    else:
        return ""
    return visitor.constants.get(name, "")


def _is_main_guard(node: cst.If) -> bool:
    test = node.test
    if type(test) is cst.Comparison and type(test.left) is cst.Name and test.left.value == "__name__":
        return True
    return False


def _exit_kind(body: cst.BaseSuite) -> str:
    """"raise" if the branch raises, "return" if it returns/breaks/continues, else ""."""
    if type(body) is cst.IndentedBlock:
        smalls = [s for stmt in body.body if type(stmt) is cst.SimpleStatementLine for s in stmt.body]
    else:
        smalls = list(body.body)
    if any(type(s) is cst.Raise for s in smalls):
        # `if mask.sum() == 0: if allow_empty: return zeros; raise ...`: the branch also
        # returns a value of its own, a computation the condition chooses
        return "return" if type(body) is cst.IndentedBlock and _nested_exit(body.body) else "raise"
    if any(type(s) in (cst.Return, cst.Break, cst.Continue) for s in smalls):
        return "return"
    return ""


def _nested_exit(stmts: Sequence[cst.BaseStatement], loop: bool = False) -> bool:
    """Whether a compound statement among ``stmts`` (nested blocks, not nested definitions)
    holds a ``return``, or a ``break``/``continue`` of the enclosing loop (``loop``: inside
    a loop of its own, those stay in it)."""
    for stmt in stmts:
        t = type(stmt)
        if t is cst.SimpleStatementLine:
            if any(type(s) is cst.Return or (not loop and type(s) in (cst.Break, cst.Continue)) for s in stmt.body):
                return True
            continue
        if t in (cst.FunctionDef, cst.ClassDef):
            continue
        inner = loop or t in (cst.For, cst.While)
        blocks = [getattr(stmt, "body", None), getattr(stmt, "orelse", None), getattr(stmt, "finalbody", None)]
        blocks += list(getattr(stmt, "handlers", ()) or ()) + list(getattr(stmt, "cases", ()) or ())
        for b in blocks:
            if type(b) is cst.If:  # an elif
                if _nested_exit([b], inner):
                    return True
                continue
            while b is not None and not isinstance(b, cst.BaseSuite):
                b = getattr(b, "body", None)  # an else/except/finally/elif/case clause -> its block
            if b is None:
                continue
            if type(b) is cst.IndentedBlock:
                if _nested_exit(b.body, inner):
                    return True
            elif any(type(s) is cst.Return or (not inner and type(s) in (cst.Break, cst.Continue)) for s in b.body):
                return True
    return False


#: Receivers whose calls only report (``warnings.warn``, ``logger.warning``, ``self.log.info``)
_REPORTERS = frozenset({"warnings", "logging", "logger", "log", "_logger", "LOGGER", "_LOGGER", "LOG", "_log"})


#: the reporting methods of a logger (``logging.Logger``; transformers' ``warning_once``) and of
#: the ``logging`` module: ``log.append(x)`` on a list named ``log`` is no report
_LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log",
                          "warning_once", "info_once", "warning_advice"})


#: what ``warnings`` reports with
_WARN_FUNCS = frozenset({"warn", "warn_explicit"})


def _drops_tested(body: cst.BaseSuite, test: cst.BaseExpression) -> bool:
    """Whether a branch only sets to ``None`` names its test reads: ``if not padding_mask.any():
    padding_mask = None`` (fairseq/ESM encoders), ``if mask is not None and mask.all(): mask =
    None``. Such a branch drops an optional input when the data shows it changes nothing."""
    stmts = body.body if type(body) is cst.IndentedBlock else (body,)
    dropped: set[str] = set()
    for stmt in stmts:
        if type(stmt) is not cst.SimpleStatementLine and type(stmt) is not cst.SimpleStatementSuite:
            return False
        for small in stmt.body:  # type: ignore[union-attr]
            if type(small) is not cst.Assign or literal(small.value) is not None or small.value is None:
                return False
            if type(small.value) is not cst.Name or small.value.value != "None":
                return False
            for t in small.targets:
                if type(t.target) is not cst.Name:
                    return False
                dropped.add(t.target.value)
    if not dropped:
        return False
    read: set[str] = set()
    stack: list[cst.CSTNode] = [test]
    while stack:
        n = stack.pop()
        if type(n) is cst.Name:
            read.add(n.value)
        elif type(n) is cst.Attribute:
            stack.append(n.value)
        else:
            stack.extend(child_nodes(n))
    return dropped <= read


def _reports_only(body: cst.BaseSuite, qual: Callable[[cst.BaseExpression], str] | None = None) -> bool:
    """Whether a branch only reports: every statement a call of ``warnings.warn``/``warn``, of
    a logger's reporting method (``logger.warning``, ``logging.info``, ``self.logger.error``,
    or a name ``qual`` resolves to ``logging.Logger``) or ``pass`` (the body of an input check
    that warns instead of raising). Other methods of a receiver named so (``log.append(x)``)
    do work, not reporting."""
    stmts = body.body if type(body) is cst.IndentedBlock else (body,)
    found = False
    for stmt in stmts:
        if type(stmt) is not cst.SimpleStatementLine and type(stmt) is not cst.SimpleStatementSuite:
            return False
        for small in stmt.body:  # type: ignore[union-attr]
            if type(small) is cst.Pass:
                continue
            if type(small) is not cst.Expr or type(small.value) is not cst.Call:
                return False
            func = small.value.func
            if type(func) is cst.Name:
                if func.value != "warn":
                    return False
            elif type(func) is cst.Attribute:
                recv = func.value
                method = func.attr.value
                name = recv.value if type(recv) is cst.Name else (
                    recv.attr.value if type(recv) is cst.Attribute else "")
                if name == "warnings":
                    if method not in _WARN_FUNCS:
                        return False
                elif method not in _LOG_METHODS:
                    return False
                elif name not in _REPORTERS:
                    # `_LOG_X = logging.getLogger(__name__)`: a logger by its binding
                    resolved = qual(func) if qual is not None else ""
                    if not resolved.startswith("logging."):
                        return False
            else:
                return False
            found = True
    return found


def _is_type_test(test: cst.BaseExpression) -> bool:
    """``test`` checks a value's Python type: an ``isinstance``/``issubclass`` call or a
    ``type(x) is ...`` comparison, alone or under ``not``/``and``/``or``."""
    stack = [test]
    while stack:
        n = stack.pop()
        t = type(n)
        if t is cst.Call:
            if type(n.func) is cst.Name and n.func.value in ("isinstance", "issubclass"):  # type: ignore[attr-defined]
                return True
        elif t is cst.UnaryOperation:
            stack.append(n.expression)  # type: ignore[attr-defined]
        elif t is cst.BooleanOperation:
            stack.extend((n.left, n.right))  # type: ignore[attr-defined]
        elif t is cst.Comparison:
            left = n.left  # type: ignore[attr-defined]
            if type(left) is cst.Call and type(left.func) is cst.Name and left.func.value == "type":
                return True
    return False


def _tests_padding_idx(test: cst.BaseExpression) -> bool:
    """``<x>.padding_idx is not None``."""
    return type(test) is cst.Comparison and type(test.left) is cst.Attribute and \
        test.left.attr.value == "padding_idx" and len(test.comparisons) == 1 and \
        type(test.comparisons[0].operator) is cst.IsNot and type(test.comparisons[0].comparator) is cst.Name and \
        test.comparisons[0].comparator.value == "None"
