"""A renderer that fails half-way leaves the previous report in place, never a truncated one."""

from __future__ import annotations

import json
import math
import os
import pathlib

import pytest

from migrate_lens.report import json_
from migrate_lens.report._files import atomic_write


def test_failed_json_render_keeps_the_previous_report(tmp_path: pathlib.Path) -> None:
    good = {"findings": [{"i": i} for i in range(2000)]}
    path = json_.render(good, tmp_path)
    before = path.read_bytes()
    bad = {"findings": [{"i": i} for i in range(2000)], "estimate": {"cost": math.inf}}
    with pytest.raises(ValueError):
        json_.render(bad, tmp_path)
    assert path.read_bytes() == before
    assert json.loads(before) == good
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]


def test_atomic_write_creates_readable_file(tmp_path: pathlib.Path) -> None:
    target = tmp_path / "out.txt"
    with atomic_write(target) as fh:
        fh.write("ü\n")
    assert target.read_text(encoding="utf-8") == "ü\n"
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask  # the mode open() would give
    assert not list(tmp_path.glob(".*.tmp"))
