"""Report colours, shared by the charts and the page (kept apart from :mod:`.charts` so
that the page can be built without importing matplotlib when the charts come from the memo)."""

from __future__ import annotations

STATUS_COLORS: dict[str, str] = {
    "pure": "#2e7d32",
    "mechanical": "#1565c0",
    "redesign": "#ef8f00",
    "blocked": "#c62828",
}
SEVERITY_COLORS: dict[str, str] = {
    "info": "#9e9e9e",
    "low": "#4f8fc0",
    "medium": "#e0b000",
    "high": "#ef6c00",
    "critical": "#c62828",
}
RISK_BANDS: tuple[tuple[int, int, str, str], ...] = (
    (0, 34, "#66bb6a", "low"),
    (34, 67, "#ffb300", "medium"),
    (67, 101, "#e53935", "high"),
)
