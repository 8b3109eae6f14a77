"""Jupyter notebooks: the code cells of an ``.ipynb`` as one Python source.

Cells are joined in order, each preceded by a ``# %% [cell N]`` marker line; IPython magics
(``%time``, ``%%bash``) and shell escapes (``!pip``) become ``pass`` lines so they are
skipped, not parse errors, and line numbers stay aligned. :func:`cell_of_line` maps a line of
the joined source back to (cell index, line in cell). Reading uses nbformat.
"""

from __future__ import annotations

import json

import nbformat

MARKER = "# %% [cell {index}]"


class NotebookError(ValueError):
    """The file is not a readable notebook; ``str()`` is the skip reason."""


def notebook_to_source(data: bytes) -> str:
    """Joined code cells of a notebook given as bytes. Raises :class:`NotebookError`."""
    try:
        nb = nbformat.reads(data.decode("utf-8"), as_version=4)
    except UnicodeDecodeError as exc:
        raise NotebookError(f"notebook is not UTF-8 (offset {exc.start})") from None
    except (json.JSONDecodeError, nbformat.reader.NotJSONError) as exc:
        raise NotebookError(f"notebook is not valid JSON ({str(exc).splitlines()[0][:80]})") from None
    except (KeyError, ValueError, AttributeError, TypeError) as exc:
        raise NotebookError(f"unreadable notebook ({type(exc).__name__})") from None
    lines: list[str] = []
    for index, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        lines.append(MARKER.format(index=index))
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(source)
        in_cell_magic = False
        for raw in str(source).splitlines():
            stripped = raw.lstrip()
            if stripped.startswith("%%"):
                in_cell_magic = True
            if in_cell_magic or stripped.startswith(("%", "!")) or stripped.endswith("?"):
                indent = "" if in_cell_magic else raw[: len(raw) - len(stripped)]
                lines.append(f"{indent}pass  # IPython magic or shell escape, skipped")
            else:
                lines.append(raw)
    return "\n".join(lines) + "\n"


def cell_of_line(source: str, line: int) -> tuple[int, int]:
    """(cell index, 1-based line within the cell) of a 1-based ``line`` of the joined source;
    (-1, line) when the line precedes every marker."""
    cell, start = -1, 0
    for n, text in enumerate(source.splitlines()[:line], start=1):
        if text.startswith("# %% [cell ") and n <= line:
            cell = int(text[len("# %% [cell "):-1])
            start = n
    return cell, line - start
