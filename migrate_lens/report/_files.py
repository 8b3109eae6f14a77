"""Writing report files so that a failure never leaves a truncated report behind."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO


@contextmanager
def atomic_write(path: Path) -> Iterator[TextIO]:
    """A UTF-8 text file (``\\n`` newlines) in ``path``'s folder, renamed onto ``path`` when the
    block ends without an exception and deleted otherwise, so readers see either the previous
    file or the complete new one. Raises ``OSError`` when the folder cannot be written."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            yield fh
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # as open() would create it (mkstemp makes 0600)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
