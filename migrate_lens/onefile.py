"""One file, from bytes to facts: the analysis every consumer of a file shares.

The scan's worker processes (:mod:`migrate_lens.worker`) and the pre-commit ``check``
(:mod:`migrate_lens.check`) both call :func:`analyze_file`, so a file is decoded, pre-filtered,
guarded against parser-crashing nesting and analyzed the same way, and skipped for the same
reasons, whichever command reads it.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace

from migrate_lens.analysis.engine import ParseFailure, RuleIndex, analyze_source
from migrate_lens.analysis.shape import shape_facts
from migrate_lens.analysis.walk import parse_ast
from migrate_lens.cache import file_digest
from migrate_lens.catalog import Catalog
from migrate_lens.discover import decode_source
from migrate_lens.models import FileFacts, FileOutcome, ImportFact, Skipped, StarBindings
from migrate_lens.notebooks import NotebookError, cell_of_line, notebook_cells


class CheapParseError(ValueError):
    """A pre-filtered file that the stdlib parser rejects; ``str()`` is the skip reason."""


def cheap_imports(source: str, module: str, is_package: bool) -> tuple[ImportFact, ...]:
    """Imports of a pre-filtered file, from the stdlib ``ast`` (about 10x faster than libcst).

    Raises :class:`CheapParseError` when the file does not parse, so that it is reported as
    skipped rather than silently counted as clean."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise CheapParseError(f"syntax error at line {exc.lineno}, column {exc.offset}: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise CheapParseError(f"unparsable ({type(exc).__name__})") from None
    out: list[ImportFact] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                out.append(ImportFact(a.name, "", a.asname or a.name.split(".")[0], node.lineno))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".")
                drop = node.level - 1 if is_package else node.level
                prefix = parts[: len(parts) - drop] if drop <= len(parts) else []
                base = ".".join([*prefix, base] if base else prefix)
            for a in node.names:
                out.append(ImportFact(base, a.name, a.asname or a.name, node.lineno, node.level))
    return tuple(sorted(out, key=lambda i: (i.line, i.module, i.name)))


def depth_guard(text: str) -> str:
    """Skip reason when CPython's own parser refuses the nesting (more than 200 nested
    brackets, too many indentation levels, recursion or memory exhausted), else "". Such files
    are never handed to libcst, whose native parser can overflow its stack and kill the worker
    on them (seen: 5000 nested parentheses or lambdas -> SIGSEGV). Other syntax errors are left
    to libcst, which also reads syntax newer than the running CPython."""
    try:
        tree = parse_ast(text)
    except SyntaxError as exc:
        if "too many nested" in (exc.msg or "") or "too many levels of indentation" in (exc.msg or ""):
            return f"nesting too deep at line {exc.lineno}: {exc.msg} (CPython refuses it too)"
        return ""
    except (RecursionError, MemoryError) as exc:
        return f"nesting too deep for the Python parser ({type(exc).__name__})"
    except ValueError:
        return ""
    return _long_boolean_chain(text, tree)


#: Most ``and``/``or`` operators one boolean expression may chain. CPython's ``ast`` keeps
#: ``a and b and ...`` as one flat node, so its parser accepts any length, but libcst's native
#: parser nests one level per operator and overflows its stack on long chains (SIGSEGV at
#: ~8000 operands with an 8 MB stack, libcst 1.x). Real code stays far below; the limit leaves
#: room for smaller thread stacks.
MAX_BOOLEAN_CHAIN = 1000
_BOOLEAN_OPERATOR = re.compile(r"\b(?:and|or)\b")


def _boolean_words_bound(text: str) -> int:
    """An upper bound of the ``and``/``or`` words in ``text`` (:data:`_BOOLEAN_OPERATOR`'s
    matches), from substring counts (a C scan each, several times faster than the regex).
    Every such word is an occurrence of ``and`` or ``or``; an ``or`` right after ``t``, ``s``
    or ``f`` (``torch``, ``tensor``, ``for``: most of them) is inside a word, never a match,
    and those three sets of occurrences are disjoint (one character precedes each), so
    subtracting their counts keeps the bound."""
    bound = text.count("and") + text.count("or")
    if bound > MAX_BOOLEAN_CHAIN:
        bound -= text.count("tor") + text.count("sor") + text.count("for")
    return bound


def _long_boolean_chain(text: str, tree: ast.Module) -> str:
    """Skip reason when one boolean expression of ``tree`` chains more than
    :data:`MAX_BOOLEAN_CHAIN` ``and``/``or`` operators (counting nested ones: ``a or b and c``
    is one chain of two), else "". The ``ast`` walk runs only for a file whose text holds that
    many ``and``/``or`` words at all (counted by the regex only when the cheap upper bound
    :func:`_boolean_words_bound` exceeds the limit: no file of the core corpus)."""
    if _boolean_words_bound(text) <= MAX_BOOLEAN_CHAIN:
        return ""
    count = 0
    for _ in _BOOLEAN_OPERATOR.finditer(text):
        count += 1
        if count > MAX_BOOLEAN_CHAIN:
            break
    else:
        return ""
    chain: dict[int, int] = {}  # id(BoolOp) -> operators in it and its nested BoolOp operands
    # ast.walk is breadth-first (parents before children): folded in reverse, children first
    nodes = [n for n in ast.walk(tree) if isinstance(n, ast.BoolOp)]
    for node in reversed(nodes):
        inner = max((chain[id(v)] for v in node.values if isinstance(v, ast.BoolOp)), default=0)
        chain[id(node)] = len(node.values) - 1 + inner
        if chain[id(node)] > MAX_BOOLEAN_CHAIN:
            return (f"nesting too deep at line {node.lineno}: a boolean expression chains more than "
                    f"{MAX_BOOLEAN_CHAIN} and/or operators (libcst's parser would overflow its stack)")
    return ""


def syntax_reason(text: str, libcst_reason: str) -> str:
    """Skip reason for a file libcst could not parse: CPython's own message and line when
    ``ast`` fails too (libcst's native parser sometimes reports the line after the error),
    else libcst's reason marked as a construct libcst does not support."""
    try:
        parse_ast(text)
    except SyntaxError as exc:
        where = f"line {exc.lineno}" + (f", column {exc.offset}" if exc.offset else "")
        return f"syntax error at {where}: {exc.msg} (not valid Python 3)"
    except (ValueError, RecursionError, MemoryError):
        return libcst_reason
    return f"{libcst_reason} (valid for CPython; not supported by libcst)"


#: The lookup of a member factory (:meth:`migrate_lens.analysis.bindings.Bindings.bind_factory`),
#: a member named by a variable: a lazy kernel table (``def _make_lazy_cuda_func(name): ...
#: getattr(_C, name)(*args)``) need not mention torch, and the files that call its kernels learn
#: them from its facts.
_MEMBER_FACTORY = re.compile(r"getattr\(\s*[\w.]+\s*,\s*[A-Za-z_]\w*\s*\)")


#: A call of a CapWords name (a class: ``Sam(``, ``ImageEncoderViT(``; not a CONSTANT).
_CLASS_CALL = re.compile(r"\b[A-Z][A-Za-z0-9_]*[a-z][A-Za-z0-9_]*\(")


#: A function or method definition: a file that never names torch but defines one is still
#: analyzed, since project code may call it with tensors (a metric meter's ``value.item()``,
#: a tokenizer's ``(ids != 0).sum(-1).tolist()``, a subclass of a project module whose base
#: names torch in another file). Files of re-exports, registries and constants are not.
_DEFINES_FUNCTION = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]", re.M)
#: An import of another deep-learning framework: a file that never names torch but imports one
#: (transformers' ``optimization_tf.py``, ``trainer_tf.py``, a Flax port beside the PyTorch
#: code) is that framework's code, not part of the PyTorch port: import facts only, as before.
_OTHER_FRAMEWORK = re.compile(
    r"^[ \t]*(?:import|from)[ \t]+(?:tensorflow|keras|tf_keras|jax|jaxlib|flax|haiku|optax|paddle|mindspore|mxnet)\b",
    re.M)


def wires_project_classes(text: str, module: str) -> bool:
    """True for a file that imports from its own project (a relative import, or one of its
    top-level package) and calls a class: a builder that wires modules together without
    naming torch (segment-anything's ``build_sam.py`` passes ``ImageEncoderViT(...)`` to
    ``Sam(image_encoder=...)``), or that declares a dataclass (a config whose fields default to
    project classes: ``norm_layer: Callable = partial(RMSNorm, eps=1e-6)``). Such a file passes
    the marker pre-filter: its constructor arguments and field defaults are how the graph learns
    which module holds which."""
    top = re.escape(module.split(".", 1)[0])
    return bool(re.search(rf"^[ \t]*(?:from[ \t]+(?:\.|{top}\b)|import[ \t]+{top}\b)", text, re.M)) \
        and (_CLASS_CALL.search(text) is not None or "@dataclass" in text)


def _unanalyzed(blanked: tuple[tuple[int, str], ...]) -> tuple[str, ...]:
    """:attr:`FileFacts.unanalyzed` phrases of a notebook's blanked cells."""
    return tuple(f"cell {cell}: {why}; not analyzed" for cell, why in blanked)


def analyze_file(data: bytes, rel_path: str, module: str, catalog: Catalog, index: RuleIndex,
                 markers: tuple[str, ...] = ("torch",), star: StarBindings = (),
                 consts: tuple[tuple[str, str], ...] = ()) -> FileOutcome:
    """One file's bytes -> its :class:`FileOutcome`: facts, or skipped with a specific reason.

    ``rel_path`` is POSIX and relative to the scan root (``.ipynb``: a notebook, whose code
    cells are joined and whose findings name their cell and line); ``module`` is its dotted
    module name. Steps: decode (PEP 263) or read the notebook; the marker pre-filter (a file
    that never mentions a marker, looks up no member by a variable name (:data:`_MEMBER_FACTORY`)
    and does not wire project classes together, :func:`wires_project_classes`, gets only
    :func:`cheap_imports` unless it defines a function (:data:`_DEFINES_FUNCTION`) and imports no
    other deep-learning framework (:data:`_OTHER_FRAMEWORK`): then it is analyzed, with
    ``mentions_torch=False``); the nesting guard
    (:func:`depth_guard`); :func:`migrate_lens.analysis.engine.analyze_source`. Never raises
    for bad input (binary, undecodable, syntax error, nesting too deep); ``MemoryError`` is
    left to the caller. Used by the scan's workers and by ``check``, so both skip the same
    files for the same reasons and never hand libcst a file that can crash it.
    """
    digest = file_digest(data)
    notebook = rel_path.endswith(".ipynb")
    blanked: tuple[tuple[int, str], ...] = ()
    if notebook:
        try:
            text, blanked = notebook_cells(data)
        except NotebookError as exc:
            return FileOutcome(rel_path, skipped=Skipped(rel_path, str(exc)))
        reason = ""
    else:
        text, reason = decode_source(data)
    if text is None:
        return FileOutcome(rel_path, skipped=Skipped(rel_path, reason))
    is_package = rel_path.endswith("__init__.py")
    torch_code = not markers or any(m in text for m in markers) or _MEMBER_FACTORY.search(text) is not None \
        or wires_project_classes(text, module) or any(m in t for _, names in star for _, t in names for m in markers)
    if not torch_code and (_DEFINES_FUNCTION.search(text) is None or _OTHER_FRAMEWORK.search(text) is not None):
        try:
            imports = cheap_imports(text, module, is_package)
        except CheapParseError as exc:
            return FileOutcome(rel_path, skipped=Skipped(rel_path, str(exc)))
        facts = FileFacts(path=rel_path, module=module, sha256=digest, lines=text.count("\n") + (0 if text.endswith("\n") or not text else 1),
                          imports=imports, mentions_torch=False, unanalyzed=_unanalyzed(blanked))
        return FileOutcome(rel_path, facts=facts)
    too_deep = depth_guard(text)
    if too_deep:
        return FileOutcome(rel_path, skipped=Skipped(rel_path, too_deep))
    lines = text.splitlines()  # (read by the analysis and the shape facts)
    try:
        facts = analyze_source(text, rel_path, module, catalog, index, lines, star, consts)
    except ParseFailure as exc:
        return FileOutcome(rel_path, skipped=Skipped(rel_path, syntax_reason(text, str(exc))))
    except RecursionError:
        return FileOutcome(rel_path, skipped=Skipped(rel_path, "nesting too deep to analyze (RecursionError)"))
    extra: dict[str, object] = {"sha256": digest}  # (one copy of the facts for all of them)
    if not torch_code:
        extra["mentions_torch"] = False  # analyzed for what project code hands it, not torch code itself
    try:
        code_lines, shapes, generated = shape_facts(parse_ast(text), text, module, lines)
        extra.update(code_lines=code_lines, shapes=shapes, generated_from=generated)
    except (SyntaxError, ValueError, RecursionError):
        pass  # sizes fall back to physical lines
    if blanked:
        extra["unanalyzed"] = _unanalyzed(blanked)
    if notebook:
        extra["findings"] = tuple(
            replace(f, message=f"cell {cell}, line {line}: {f.message}")
            for f in facts.findings for cell, line in [cell_of_line(text, f.span.line)]
        )
    return FileOutcome(rel_path, facts=replace(facts, **extra))  # type: ignore[arg-type]
