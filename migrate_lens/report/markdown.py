"""Markdown summary (``report.md``) sized for a pull-request comment.

Sections: decision, effort and risk, top blockers, findings by category, modules that need
redesign or are blocked. Lists are cut at :data:`MAX_ROWS` rows with a "and N more" line, so the
comment stays well under GitHub's 65,536-character limit for any project size.

Every value printed from the view goes through :func:`md_escape` automatically (Jinja2
``finalize``), so identifiers or strings from scanned code cannot inject Markdown or HTML
(GitHub renders inline HTML in comments).
"""

from __future__ import annotations

import pathlib
import re
from typing import Any

import jinja2

from migrate_lens.report import summary as _summary
from migrate_lens.report._files import atomic_write

#: Row cap of every list in the comment.
MAX_ROWS = 10

_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~<>&])")
_LINE_START = re.compile(r"^(?:([#+=-])|(\d+)([.)]))")
_HTML = {"<": "&lt;", ">": "&gt;", "&": "&amp;"}


def md_escape(value: Any) -> str:
    """Text safe inside Markdown paragraphs and table cells: ``<``, ``>``, ``&`` become entities,
    other Markdown punctuation is backslash-escaped, newlines become spaces. Non-strings are
    formatted with ``str`` first (``None`` -> ``""``)."""
    if value is None:
        return ""
    if isinstance(value, _Raw):
        return value.text
    text = " ".join(str(value).split())
    text = _MD_SPECIAL.sub(lambda m: _HTML.get(m.group(1), "\\" + m.group(1)), text)
    # a value at the start of a line or list item must not open a heading, list or quote
    return _LINE_START.sub(lambda m: "\\" + m.group(1) if m.group(1) else m.group(2) + "\\" + m.group(3), text)


def md_code(value: Any) -> "_Raw":
    """``value`` as an inline code span safe in a GFM table cell: a backtick fence longer than
    any backtick run inside, ``|`` escaped (GFM splits cells before parsing code spans)."""
    text = " ".join(str(value).split()).replace("|", "\\|")
    runs = re.findall(r"`+", text)
    fence = "`" * (max((len(r) for r in runs), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return _Raw(f"{fence}{pad}{text}{pad}{fence}")


class _Raw:
    """Markdown written by the template itself (never from the view), exempt from escaping."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(pathlib.Path(__file__).parent / "templates"),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        finalize=md_escape,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["num"] = lambda x, nd=1: _Raw(_summary.fmt_num(x, nd))
    env.filters["days"] = lambda x: _Raw(_summary.fmt_days(x).replace("<", "&lt;"))
    env.filters["code"] = md_code
    env.filters["plural"] = lambda n, word: _Raw(_summary.plural(n, word))
    env.filters["money"] = lambda x, cur="": _Raw(_summary.fmt_money(x, cur))
    env.filters["months"] = lambda x: _Raw(_summary.fmt_months(x))
    return env


def build(view: dict[str, Any]) -> str:
    """The Markdown text of the summary. Raises KeyError if ``view`` breaks the contract."""
    ctx = _summary.digest(view, top=MAX_ROWS)
    return _env().get_template("report.md.j2").render(view=view, d=ctx, max_rows=MAX_ROWS)


def render(view: dict[str, Any], out_dir: pathlib.Path) -> pathlib.Path:
    """Write ``out_dir/report.md`` and return its path. Raises OSError if it cannot be written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "report.md"
    text = build(view)
    with atomic_write(path) as fh:  # a full disk keeps the previous report.md
        fh.write(text)
    return path
