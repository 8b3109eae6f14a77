"""Writing report files so that a failure never leaves a truncated report behind.

Each file is written to a temporary name beside it and renamed over it only when complete
(:func:`atomic_write`). Inside :func:`output_set` the renames wait until the whole set is
written: a renderer that fails, or a disk that fills up, half-way through a scan's outputs
leaves the previous set as it was (a new report.json beside an old report.html would disagree).
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

#: The open :func:`output_set`: (its folder, its token). A module global, so that a helper child
#: forked inside the set (the JSON/SARIF/Markdown writer) stages its files under the same
#: token, and the parent renames them with its own.
_SET: list[tuple[Path, str]] = []
_STAGED_SUFFIX = ".staged"


def _staged_name(path: Path, token: str) -> Path:
    return path.parent / f".{path.name}.{token}{_STAGED_SUFFIX}"


def _staged_files(folder: Path, token: str) -> list[Path]:
    """Files staged under ``token`` in ``folder`` (by this process or a forked child)."""
    end = f".{token}{_STAGED_SUFFIX}"
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return []
    return sorted(folder / n for n in names if n.startswith(".") and n.endswith(end))


_ORPHAN = re.compile(r"^\..+\.(\d+)-[0-9a-f]{12}" + re.escape(_STAGED_SUFFIX) + "$")


def _drop_orphans(folder: Path) -> None:
    """Delete files staged by a set whose process is gone (killed with SIGKILL mid-set)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        match = _ORPHAN.match(name)
        if match is None:
            continue
        try:
            os.kill(int(match.group(1)), 0)
        except ProcessLookupError:
            (folder / name).unlink(missing_ok=True)
        except (PermissionError, OverflowError, ValueError):
            pass


#: What the first 64 KiB of each output holds: the tool's name (report.html/json/sarif/md), or
#: graph.graphml's node attribute key (networkx writes no comment).
_OUR_MARKS = (b"migrate-lens", b'attr.name="module_kind"')


def written_by_us(path: Path) -> bool:
    """``path`` is an output of an earlier scan (:data:`_OUR_MARKS`), so a new set may replace
    it; a file of the user's that happens to be called ``report.json`` never is."""
    try:
        with path.open("rb") as fh:
            head = fh.read(65536)
    except OSError:
        return False
    return not head or any(mark in head for mark in _OUR_MARKS)


@contextmanager
def output_set(folder: Path) -> Iterator[None]:
    """Write a set of outputs in ``folder`` together: every :func:`atomic_write` into ``folder``
    inside the block is staged (complete files under temporary names) and all of them are
    renamed onto their real names when the block ends without an exception; on an exception
    the staged files are deleted and the previous outputs stay untouched. A real name held by a
    file an earlier scan did not write (:func:`written_by_us`: ``--out .`` in a project with
    its own ``report.json``) stops the set before any rename (``FileExistsError``). Raises what
    the block raises, or ``OSError`` from a rename."""
    token = f"{os.getpid()}-{secrets.token_hex(6)}"
    folder = Path(folder)
    _drop_orphans(folder)
    _SET.append((folder.resolve(), token))
    try:
        yield
    except BaseException:
        for staged in _staged_files(folder, token):
            staged.unlink(missing_ok=True)
        raise
    else:
        staged_files = _staged_files(folder, token)
        try:
            for staged in staged_files:  # every check before the first rename: all or nothing
                real = folder / staged.name[1:-len(f".{token}{_STAGED_SUFFIX}")]
                if (real.exists() or real.is_symlink()) and not written_by_us(real):
                    raise FileExistsError(errno.EEXIST, f"{real} exists and was not written by migrate-lens; "
                                                        "not replaced (choose another --out)")
            for staged in staged_files:
                real = staged.name[1:-len(f".{token}{_STAGED_SUFFIX}")]
                os.replace(staged, folder / real)
        except BaseException:
            for staged in staged_files:
                staged.unlink(missing_ok=True)
            raise
    finally:
        _SET.pop()


@contextmanager
def atomic_write(path: Path, binary: bool = False) -> Iterator[IO[Any]]:
    """A UTF-8 text file (``\\n`` newlines; bytes when ``binary``) in ``path``'s folder, renamed
    onto ``path`` when the block ends without an exception and deleted otherwise, so readers
    see either the previous file or the complete new one. Inside an :func:`output_set` for
    ``path``'s folder the rename waits for the end of the set. The file gets the mode ``open()``
    would give it. Raises ``OSError`` when the folder cannot be written."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        if binary:
            with os.fdopen(fd, "wb") as fh:
                yield fh
        else:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                yield fh
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # as open() would create it (mkstemp makes 0600)
        target = path
        if _SET and _SET[-1][0] == path.parent.resolve():
            target = _staged_name(path, _SET[-1][1])
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
