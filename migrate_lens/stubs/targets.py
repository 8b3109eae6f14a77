"""Which nn.Module classes get a Flax NNX stub.

Two sources, same output (:class:`StubTarget` rows sorted by path then qualname):

- :func:`select_targets` reads a report.json dict (``docs/report-json.md``): ``modules`` entries
  with ``kind == "nn.Module"`` and ``status`` ``pure`` or ``mechanical``; this is the product path,
  where the project graph decided what is safe to translate.
- :func:`discover_targets` is a self-contained fallback that finds ``nn.Module`` subclasses with
  libcst (status ``"unknown"``): every class whose base resolves to ``torch.nn.Module``, to a
  known third-party ``nn.Module`` base, or (transitively) to another such class under the root.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import libcst as cst

from migrate_lens.stubs.names import Aliases, module_name

#: Statuses of the project graph whose modules get a stub (docs/report-json.md). ``redesign``
#: modules (BatchNorm state, dropout and drop_path randomness, config-static branches, ...) are
#: translated too: every construct the translator cannot rewrite is a TODO at its line, and the
#: command prints the graph's reason next to them. ``blocked`` modules are listed, not translated.
TRANSLATABLE_STATUSES: frozenset[str] = frozenset({"pure", "mechanical", "redesign"})

_TORCH_MODULE_BASES = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module"})
#: Third-party classes known to subclass nn.Module, matched by their last name when the import
#: reaches above the scanned root (transformers' ``from ...modeling_utils import PreTrainedModel``).
KNOWN_MODULE_BASES: frozenset[str] = frozenset({"GradientCheckpointingLayer", "PreTrainedModel"})
_SKIP_DIRS = frozenset({".git", ".hg", ".venv", "venv", "__pycache__", "node_modules", ".tox", "build", "dist"})


@dataclass(frozen=True, slots=True)
class StubTarget:
    """One nn.Module class to translate. ``path`` is POSIX, relative to the scanned root;
    ``qualname`` is dotted (``segment_anything.modeling.image_encoder.Block``); ``status`` is the
    project graph's verdict (pure | mechanical | redesign | blocked) or ``unknown``; ``reason``
    the graph's first explanation line ("" when none)."""

    path: str
    qualname: str
    status: str
    reason: str = ""

    @property
    def class_name(self) -> str:
        """The class's own name (last part of ``qualname``)."""
        return self.qualname.rsplit(".", 1)[-1]


def select_targets(report: dict[str, Any]) -> list[StubTarget]:
    """Targets from a report.json dict: ``modules`` with kind ``nn.Module`` and a status in
    :data:`TRANSLATABLE_STATUSES`, sorted by (path, qualname); ``reason`` is the graph's first
    explanation line. Raises ``KeyError`` if ``modules`` is missing and ``ValueError`` if an
    entry lacks ``path``/``qualname``/``status``."""
    out: list[StubTarget] = []
    for i, entry in enumerate(report["modules"]):
        if entry.get("kind") != "nn.Module" or entry.get("status") not in TRANSLATABLE_STATUSES:
            continue
        try:
            out.append(StubTarget(str(entry["path"]), str(entry["qualname"]), str(entry["status"]),
                                  _reason(entry)))
        except KeyError as exc:
            raise ValueError(f"report modules[{i}]: missing key {exc.args[0]!r}") from None
    return sorted(out, key=lambda t: (t.path, t.qualname))


def not_selected(report: dict[str, Any]) -> list[StubTarget]:
    """The report's nn.Modules that :func:`select_targets` leaves out (status ``blocked`` or
    unknown), with the graph's reason, sorted by (path, qualname)."""
    out = [StubTarget(str(e.get("path", "")), str(e.get("qualname", "")), str(e.get("status", "")), _reason(e))
           for e in report.get("modules", []) if e.get("kind") == "nn.Module"
           and e.get("status") not in TRANSLATABLE_STATUSES]
    return sorted(out, key=lambda t: (t.path, t.qualname))


def module_classes(report: dict[str, Any]) -> set[str]:
    """Qualified names of every nn.Module class the report knows (any status): a stub never
    copies such a class as plain Python code."""
    return {str(e["qualname"]) for e in report.get("modules", []) if e.get("kind") == "nn.Module" and "qualname" in e}


def _reason(entry: dict[str, Any]) -> str:
    expl = entry.get("explanation") or []
    return str(expl[0]) if isinstance(expl, list) and expl else ""


def iter_python_files(root: Path) -> list[Path]:
    """Python files under ``root`` (or ``root`` itself if it is a file), sorted, skipping VCS,
    virtualenv and build folders and names that are not UTF-8."""
    if root.is_file():
        return [root]
    from migrate_lens.safetext import is_utf8_name

    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        # names that are not UTF-8 cannot be module names nor written to a report: not stubbed
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.startswith(".") and is_utf8_name(d))
        found.extend(Path(dirpath) / f for f in filenames if f.endswith(".py") and is_utf8_name(f))
    return sorted(found)


def _is_torch_layer(qualname: str) -> bool:
    """``torch.nn.LayerNorm``, ``torch.nn.Conv2d``...: a class of ``torch.nn`` (subclasses of
    torch layers are modules too)."""
    head, _, last = qualname.rpartition(".")
    return head in ("torch.nn", "torch.nn.modules") and last[:1].isupper() and last not in ("Parameter",)


def read_module(path: Path) -> tuple[cst.Module | None, str]:
    """``path`` parsed by libcst, read the way the scan reads a file, or ``(None, reason)``:
    :func:`migrate_lens.discover.read_bytes` (a FIFO is never opened, so it cannot hang the run;
    a symbolic link loop, an unreadable or oversized file give their reason),
    :func:`migrate_lens.discover.decode_source` (PEP 263, UTF-16 and binary files refused) and
    :func:`migrate_lens.onefile.depth_guard` before libcst (whose native parser dies with
    SIGSEGV on a few thousand nested brackets, killing the whole command)."""
    from migrate_lens.analysis.walk import forget_ast
    from migrate_lens.discover import decode_source, read_bytes
    from migrate_lens.onefile import depth_guard, syntax_reason

    data, reason = read_bytes(path)
    if data is None:
        return None, reason
    text, reason = decode_source(data)
    if text is None:
        return None, reason
    try:
        too_deep = depth_guard(text)
    finally:
        forget_ast()
    if too_deep:
        return None, too_deep
    try:
        return cst.parse_module(text), ""
    except cst.ParserSyntaxError as exc:
        return None, syntax_reason(text, str(exc).splitlines()[0])
    except (RecursionError, MemoryError) as exc:
        return None, f"nesting too deep to parse ({type(exc).__name__})"


def discover_targets(root: Path | str, skipped: list[tuple[str, str]] | None = None) -> list[StubTarget]:
    """Every top-level nn.Module subclass under ``root`` (status ``unknown``), sorted by (path,
    qualname). A file that cannot be read or parsed (:func:`read_module`) is left out, and
    ``(path, reason)`` appended to ``skipped`` when given."""
    root = Path(root)
    base_dir = root.parent if root.is_file() else root
    classes: dict[str, tuple[str, list[str]]] = {}  # qualname -> (path, resolved bases)
    for file in iter_python_files(root):
        rel = file.relative_to(base_dir).as_posix()
        module, reason = read_module(file)
        if module is None:
            if skipped is not None:
                skipped.append((rel, reason))
            continue
        current = module_name(rel)
        aliases = Aliases(module, current, rel.endswith("__init__.py"))
        local = {s.name.value for s in module.body if isinstance(s, cst.ClassDef)}
        for stmt in module.body:
            if not isinstance(stmt, cst.ClassDef):
                continue
            bases: list[str] = []
            for arg in stmt.bases:
                name = aliases.resolve(arg.value)
                if not name and isinstance(arg.value, cst.Name) and arg.value.value in local:
                    name = f"{current}.{arg.value.value}"
                if name:
                    bases.append(name)
            classes[f"{current}.{stmt.name.value}"] = (rel, bases)
    modules: set[str] = set()
    changed = True
    while changed:
        changed = False
        for qual, (_, bases) in classes.items():
            if qual in modules:
                continue
            if any(b in _TORCH_MODULE_BASES or b in modules or b.rsplit(".", 1)[-1] in KNOWN_MODULE_BASES
                   or _is_torch_layer(b) for b in bases):
                modules.add(qual)
                changed = True
    return sorted((StubTarget(classes[q][0], q, "unknown") for q in modules), key=lambda t: (t.path, t.qualname))
