"""Jupyter notebooks: the code cells of an ``.ipynb`` as one Python source.

Cells are joined in order, each preceded by a ``# %% [cell N]`` marker line; IPython magics
(``%time``, ``%%bash``, ``x = %timeit -o f()``), shell escapes (``!pip``, ``files = !ls``) and
help lines (``obj?``) become ``pass`` lines so they are skipped, not parse errors, and line
numbers stay aligned; ``%%time``-style cell magics keep their Python body. A cell that still
does not parse is blanked (all ``pass``), so one broken cell never hides the rest. :func:`cell_of_line` maps a line of
the joined source back to (cell index, line in cell). Reading uses nbformat.
"""

from __future__ import annotations

import ast
import re


MARKER = "# %% [cell {index}]"
_MARKER_PREFIX = MARKER.split("{", 1)[0]
_NEWLINE = re.compile(r"\r\n|\r|\n")
#: Cell magics whose body is Python (kept); any other ``%%magic`` cell is skipped whole.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug"})
#: ``obj?`` / ``obj??`` / ``?obj`` help lines.
_HELP = re.compile(r"^\s*(\?{1,2}[\w.]+|[\w.]+\?{1,2})\s*$")
#: ``files = !ls`` / ``t = %timeit -o f()``.
_ASSIGN_MAGIC = re.compile(r"^\s*[\w.]+(\s*,\s*[\w.]+)*\s*=\s*[%!]")


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class NotebookError(ValueError):
    """The file is not a readable notebook; ``str()`` is the skip reason."""


def _upgrade(nb: dict) -> dict:
    """A notebook of format 1-3 converted to format 4 by nbformat (imported here: most scans
    meet no such notebook, and nbformat with jsonschema is ~90 ms to import). Raises
    ``ValueError`` when nbformat refuses it."""
    import nbformat

    try:
        return nbformat.converter.convert(nbformat.from_dict(nb), 4)  # type: ignore[no-any-return]
    except (nbformat.reader.NotJSONError, nbformat.ValidationError) as exc:
        raise ValueError(str(exc)) from None


def _json_kind(value: object) -> str:
    """What a parsed JSON value is, in words (for skip reasons)."""
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "a number",
             float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def notebook_to_source(data: bytes) -> str:
    """Joined code cells of a notebook given as bytes (see :func:`notebook_cells`). Raises
    :class:`NotebookError`."""
    return notebook_cells(data)[0]


def notebook_cells(data: bytes) -> tuple[str, tuple[tuple[int, str], ...]]:
    """Joined code cells of a notebook given as bytes, and ``(cell index, reason)`` of each code
    cell that still did not parse and was blanked (so the caller can say so: never lost
    silently). Raises :class:`NotebookError`.

    Read as JSON without schema validation (formats before v4 are converted with nbformat):
    only the code cells' sources matter here, and a notebook that is slightly off-schema (a
    missing cell id or metadata, say) still has code worth scanning."""
    from migrate_lens.jsonfile import JsonFileError, parse_json

    try:
        nb = parse_json(data)
    except JsonFileError as exc:
        raise NotebookError(f"notebook is {exc}") from None
    if not isinstance(nb, dict):
        raise NotebookError(f"not a notebook (the JSON is {_json_kind(nb)}, not an object)")
    version = nb.get("nbformat", 4)
    if not isinstance(version, int) or isinstance(version, bool):
        raise NotebookError(f"not a notebook (nbformat is {_json_kind(version)}, not an integer)")
    if version < 4:
        try:
            nb = _upgrade(nb)
        except (KeyError, ValueError, AttributeError, TypeError, RecursionError) as exc:
            raise NotebookError(f"notebook of format {version} that nbformat cannot convert ({type(exc).__name__})") from None
    if not isinstance(nb.get("cells", []), list):
        raise NotebookError(f"not a notebook (cells is {_json_kind(nb.get('cells'))}, not a list)")
    lines: list[str] = []
    blanked: list[tuple[int, str]] = []
    for index, cell in enumerate(nb.get("cells", [])):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        lines.append(MARKER.format(index=index))
        source = cell.get("source", "")
        if isinstance(source, list):
            if not all(isinstance(part, str) for part in source):
                raise NotebookError(f"unreadable notebook (cell {index}: source holds a non-text item)")
            source = "".join(source)
        elif not isinstance(source, str):
            raise NotebookError(f"unreadable notebook (cell {index}: source is not text)")
        # JSON may escape lone surrogates (`"\udcff"`), which are not text: the parsers and the
        # UTF-8 reports cannot take them (the cell was blanked as unparsable, silently). Each
        # becomes U+FFFD, one character for one, so positions stay exact.
        source = _LONE_SURROGATE.sub("\ufffd", source)
        cell_lines, problem = _cell_lines(source)
        lines.extend(cell_lines)
        if problem:
            blanked.append((index, problem))
    return "\n".join(lines) + "\n", tuple(blanked)


def _split_lines(text: str) -> list[str]:
    """``text``'s lines split where Python's tokenizer (and so ``ast`` and libcst) splits them:
    ``\n``, ``\r\n``, ``\r``; not at the form feeds or U+2028 that ``str.splitlines`` also
    splits at, which may sit inside a string literal. A final line break ends the last line."""
    parts = _NEWLINE.split(text)
    if parts and parts[-1] == "":
        parts.pop()
    return parts


def _cell_lines(source: str) -> tuple[list[str], str]:
    """One cell as Python lines (same count as the cell): magics, shell escapes and help
    lines become ``pass``; a cell that still does not parse becomes all ``pass`` lines, so one
    broken cell never hides the others, and the second item says why ("" when it parses)."""
    raw_lines = _split_lines(source)
    out: list[str] = []
    skip_rest = False
    for n, raw in enumerate(raw_lines):
        stripped = raw.lstrip()
        indent = raw[: len(raw) - len(stripped)]
        if n == 0 and stripped.startswith("%%"):
            name = stripped[2:].split(None, 1)[0] if len(stripped) > 2 else ""
            skip_rest = name not in PYTHON_CELL_MAGICS
            out.append("pass  # IPython cell magic, skipped")
        elif skip_rest:
            out.append("pass  # body of a non-Python cell magic, skipped")
        elif stripped.startswith(("%", "!")) or _HELP.match(raw) or _ASSIGN_MAGIC.match(raw):
            out.append(f"{indent}pass  # IPython magic or shell escape, skipped")
        elif raw.startswith(_MARKER_PREFIX):
            out.append("#" + raw)  # a comment that looks like a cell marker must not be taken for one
        else:
            out.append(raw)
    try:
        ast.parse("\n".join(out))
    except SyntaxError as exc:
        where = f" at line {exc.lineno}" if exc.lineno else ""
        return ["pass  # cell does not parse, skipped"] * len(out), f"syntax error{where}: {exc.msg}"
    except (ValueError, RecursionError, MemoryError) as exc:
        return ["pass  # cell does not parse, skipped"] * len(out), f"does not parse ({type(exc).__name__})"
    return out, ""


def cell_of_line(source: str, line: int) -> tuple[int, int]:
    """(cell index, 1-based line within the cell) of a 1-based ``line`` of the joined source;
    (-1, line) when the line precedes every marker."""
    cell, start = -1, 0
    for n, text in enumerate(_split_lines(source)[:line], start=1):
        if text.startswith(_MARKER_PREFIX) and text.endswith("]") and text[len(_MARKER_PREFIX):-1].isdigit():
            cell = int(text[len(_MARKER_PREFIX):-1])
            start = n
    return cell, line - start
