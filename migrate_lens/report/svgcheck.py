"""The allow-list check of an SVG fragment before it is inlined in the HTML report.

Kept apart from :mod:`migrate_lens.report.charts` (which imports matplotlib, about 0.7 s) so
that a memoized chart set (:mod:`migrate_lens.report.chartset`) is checked without loading the
drawing stack: on a warm rescan of ``core`` that import was a sixth of the run.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

_SVG_NS = "{http://www.w3.org/2000/svg}"
_ALLOWED = {
    "svg", "g", "path", "text", "tspan", "defs", "clipPath", "rect", "use", "style", "title", "desc",
    "metadata", "line", "polyline", "polygon", "circle", "ellipse", "image",
}


class UnsafeSvgError(ValueError):
    """A generated SVG contains an element or attribute outside the allow-list."""


def check_svg(svg: str) -> str:
    """``svg`` unchanged if every element is on the allow-list and no attribute is an event
    handler or a ``javascript:`` URL; raises :class:`UnsafeSvgError` otherwise, ``ValueError``
    (``ET.ParseError``) if it is not XML. Applied to fresh drawings and to memoized ones."""
    root = ET.fromstring(svg)
    for el in root.iter():
        tag = el.tag.replace(_SVG_NS, "").split("}")[-1]
        if tag not in _ALLOWED and not el.tag.startswith("{http://www.w3.org/1999/02/22-rdf") and not el.tag.startswith(
            ("{http://purl.org/dc/", "{http://creativecommons.org/")
        ):
            raise UnsafeSvgError(f"unexpected SVG element <{tag}>")
        for attr in el.attrib:
            if attr.lower().startswith("on") or "javascript:" in el.attrib[attr].lower():
                raise UnsafeSvgError(f"unexpected SVG attribute {attr!r} on <{tag}>")
    return svg
