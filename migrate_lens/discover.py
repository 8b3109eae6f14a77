"""Discover the files to scan and read them safely.

Every ``.py`` (and ``.ipynb``) under the root, honouring ``.gitignore`` files (pathspec's
gitignore semantics) and ``[tool.migrate-lens]`` include/exclude. Symbolic links are never
followed: a link is reported in ``skipped`` with what it points to. Native sources
(``.cu``, ``.cuh``, ``.cpp``, ...) are listed separately for the custom-op rules. Results
are sorted by POSIX relative path.

Nothing here imports or executes scanned code.
"""

from __future__ import annotations

import codecs
import errno
import io
import keyword
import os
import re
import stat
import sys
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import pathspec

from migrate_lens.config import Config
from migrate_lens.models import Skipped
from migrate_lens.safetext import is_utf8_name, printable

PYTHON_SUFFIXES = (".py", ".ipynb")
NATIVE_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".hip", ".metal", ".pyx")
#: Folder names that hold a vendored third-party library (``csrc/third_party/glm``): native
#: sources under one are not the project's kernels (gsplat 1.5.3 ships 240 glm test sources there).
VENDORED_DIRS = frozenset({"third_party", "third-party", "thirdparty", "3rdparty", "3rd_party", "vendor", "vendored",
                           "external", "externals", "extern"})
#: Directories never scanned (tool caches, virtual environments, VCS metadata).
ALWAYS_EXCLUDED_DIRS = frozenset({
    ".git", ".hg", ".svn", "__pycache__", ".tox", ".nox", ".venv", "venv", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", "node_modules", "site-packages", ".ipynb_checkpoints",
})


@dataclass(frozen=True, slots=True)
class Discovery:
    """Result of :func:`discover`: files to analyze and native sources (relative POSIX paths),
    and files not analyzed with their reason."""

    files: tuple[str, ...]
    native_sources: tuple[str, ...]
    skipped: tuple[Skipped, ...]
    #: native sources under a vendored library's folder (:data:`VENDORED_DIRS`): a dependency
    #: compiled into the project's extension (glm, cutlass, cub), not kernels the port rewrites
    vendored_native: tuple[str, ...] = ()


def _gitignore(dirpath: Path) -> pathspec.PathSpec | None:
    gi = dirpath / ".gitignore"
    try:
        if gi.is_file() and not gi.is_symlink():
            return pathspec.GitIgnoreSpec.from_lines(_valid_patterns(gi.read_text(encoding="utf-8", errors="replace")))
    except OSError:
        return None
    return None


def _valid_patterns(text: str) -> list[str]:
    r"""The lines of a ``.gitignore`` that pathspec can compile: an invalid line (``!`` alone,
    a trailing lone ``\``) is dropped, as git gives it no effect, instead of aborting discovery."""
    lines = text.splitlines()
    try:
        pathspec.GitIgnoreSpec.from_lines(lines)
        return lines
    except Exception:  # noqa: BLE001 - pathspec raises several types for bad patterns
        pass
    kept = []
    for line in lines:
        try:
            pathspec.GitIgnoreSpec.from_lines([line])
        except Exception:  # noqa: BLE001
            continue
        kept.append(line)
    return kept


def _link_reason(path: Path, root: Path) -> str:
    try:
        target = printable(os.readlink(path))
    except OSError as exc:
        return f"symbolic link, unreadable ({exc.strerror})"
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return f"symbolic link loop (-> {target})"
        return f"broken symbolic link (-> {target})"
    try:
        real = Path(os.path.realpath(path))
    except OSError as exc:
        return f"symbolic link, unresolvable ({_strerror(exc)})"
    if not real.is_relative_to(root):
        return f"symbolic link pointing outside the scanned root (-> {target}), not followed"
    return f"symbolic link (-> {target}); its target is scanned at its own path"


#: Starts of the skip reasons for a path that holds no Python code of its own: a symbolic link
#: (never followed; its target, when inside the root, is a file of its own), a FIFO or device,
#: a file that vanished between listing and reading, a non-Python file given as the root.
#: Every other skip leaves code unread.
_NO_CODE_REASONS: tuple[str, ...] = ("symbolic link", "broken symbolic link", "not a regular file", "not a Python file")


def holds_unread_code(reason: str) -> bool:
    """Whether a skip with this ``reason`` (one this module or the per-file analysis gave)
    left Python code unanalyzed: True for syntax errors, undecodable or binary bytes, size
    limits, unreadable files and folders, names that are not UTF-8, timeouts, crashes; False
    for symbolic links, non-regular files and files that vanished. ``check`` fails on the first kind."""
    return not reason.startswith(_NO_CODE_REASONS)


def discover(root: Path, config: Config) -> Discovery:
    """Walk ``root`` (a directory or a single file).

    Raises ``FileNotFoundError`` if ``root`` does not exist, ``NotADirectoryError`` never (a
    single file is scanned alone).
    """
    root = root.resolve()
    if not root.exists():
        raise FileNotFoundError(f"{root}: no such file or directory")
    if root.is_file():
        name = root.name
        if name.endswith(PYTHON_SUFFIXES):
            return Discovery(files=(name,), native_sources=(), skipped=())
        return Discovery(files=(), native_sources=(), skipped=(Skipped(name, "not a Python file"),))
    include = pathspec.GitIgnoreSpec.from_lines(config.include) if config.include else None
    exclude = pathspec.GitIgnoreSpec.from_lines(config.exclude) if config.exclude else None
    specs: list[tuple[str, pathspec.PathSpec]] = []
    files: list[str] = []
    native: list[str] = []
    skipped: list[Skipped] = []

    def ignored(rel: str, is_dir: bool) -> bool:
        probe = rel + "/" if is_dir else rel
        for base, spec in specs:
            if base == "":
                sub = probe
            elif probe.startswith(base + "/"):
                sub = probe[len(base) + 1:]
            else:
                continue
            if spec.match_file(sub):
                return True
        return bool(exclude and exclude.match_file(probe))

    def rel_of(path: str) -> str:
        try:
            rel = os.path.relpath(path, root)
        except ValueError:
            return printable(path)
        return "?" if rel == "." else printable(Path(rel).as_posix())

    def walk_error(err: OSError) -> None:
        rel = rel_of(err.filename) if err.filename else "?"
        skipped.append(Skipped(rel, f"unreadable directory ({_strerror(err)})"))

    def odd_name(rel: str, name: str, what: str) -> bool:
        """Skip (with a reason) a name that cannot be reported: bytes that are not UTF-8."""
        if is_utf8_name(name):
            return False
        skipped.append(Skipped(printable(rel), f"{what} name is not valid UTF-8 (shown with \\x escapes); "
                                               "not scanned, rename it to scan it"))
        return True

    for dirpath, dirnames, filenames in os.walk(root, topdown=True, onerror=walk_error, followlinks=False):
        dpath = Path(dirpath)
        drel = dpath.relative_to(root).as_posix()
        drel = "" if drel == "." else drel
        spec = _gitignore(dpath)
        if spec is not None:
            specs.append((drel, spec))
        keep_dirs = []
        for d in sorted(dirnames):
            rel = f"{drel}/{d}" if drel else d
            full = dpath / d
            if d in ALWAYS_EXCLUDED_DIRS or d.startswith(".") or odd_name(rel, d, "folder") or ignored(rel, True):
                continue
            try:
                link = full.is_symlink()
            except OSError as exc:  # a path past PATH_MAX, a parent readable but not searchable
                skipped.append(Skipped(printable(rel), f"unreadable directory ({_strerror(exc)})"))
                continue
            if link:
                skipped.append(Skipped(printable(rel), _link_reason(full, root).replace("its target is scanned", "directory not followed; its target is scanned")))
                continue
            keep_dirs.append(d)
        dirnames[:] = keep_dirs
        for f in sorted(filenames):
            rel = f"{drel}/{f}" if drel else f
            full = dpath / f
            is_py = f.endswith(PYTHON_SUFFIXES)
            is_native = f.endswith(NATIVE_SUFFIXES)
            if not (is_py or is_native) or odd_name(rel, f, "file") or ignored(rel, False):
                continue
            if include is not None and not include.match_file(rel):
                continue
            try:
                link = full.is_symlink()
            except OSError as exc:
                if is_py:
                    skipped.append(Skipped(printable(rel), f"unreadable ({_strerror(exc)})"))
                continue
            if link:
                if is_py:
                    skipped.append(Skipped(printable(rel), _link_reason(full, root)))
                continue
            (files if is_py else native).append(rel)
    vendored = [n for n in native if not VENDORED_DIRS.isdisjoint(n.split("/")[:-1])]
    return Discovery(
        files=tuple(sorted(files)),
        native_sources=tuple(sorted(set(native) - set(vendored))),
        skipped=tuple(sorted(skipped, key=lambda s: s.path)),
        vendored_native=tuple(sorted(vendored)),
    )


def vendored_roots(paths: tuple[str, ...]) -> list[tuple[str, int]]:
    """``(folder, count)`` for :attr:`Discovery.vendored_native`: each vendored library's folder
    (the path through the first :data:`VENDORED_DIRS` component and the one after it,
    ``cuda/csrc/third_party/glm``) and how many native sources it holds, sorted."""
    counts: dict[str, int] = {}
    for path in paths:
        parts = path.split("/")
        i = next(k for k, part in enumerate(parts[:-1]) if part in VENDORED_DIRS)
        root = "/".join(parts[:min(i + 2, len(parts) - 1)])
        counts[root] = counts.get(root, 0) + 1
    return sorted(counts.items())


def _strerror(exc: OSError) -> str:
    """An OSError's message without the path (``Permission denied``, ``File name too long``)."""
    return exc.strerror or type(exc).__name__


def read_bytes(path: Path, max_bytes: int = 5_000_000) -> tuple[bytes | None, str]:
    """Read a file's bytes, safely: ``(data, "")`` or ``(None, reason)`` where ``reason`` is
    specific (too large, unreadable/permission denied, not a regular file, vanished)."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return None, "broken symbolic link or file vanished"
    except OSError as exc:
        return None, f"unreadable ({exc.strerror})"
    if not stat.S_ISREG(st.st_mode):
        return None, "not a regular file"
    if st.st_size > max_bytes:
        return None, f"file too large ({st.st_size} bytes > limit {max_bytes}; raise max-file-bytes to scan it)"
    try:
        data = path.read_bytes()
    except PermissionError:
        return None, "unreadable (permission denied)"
    except OSError as exc:
        return None, f"unreadable ({exc.strerror})"
    # (a notebook is JSON: its outputs hold long lines, base64 images; its code cells are
    # checked for nesting once extracted)
    if len(data) > MAX_LINE_BYTES and path.suffix != ".ipynb" and _LONG_LINE.search(data) is not None:
        return None, (f"a line longer than {MAX_LINE_BYTES:,} bytes (generated or minified code or data): not analyzed "
                      "(the parser's time and memory grow with it)")
    return data, ""


#: Longest line read as code: a file with a longer one (a minified bundle, a generated table of
#: numbers on one line) is skipped with that reason. libcst's parse of a 0.6 MB line took 11 s
#: and a 4.6 MB one exhausted a worker's memory (fresh-user trial, 2026-12-06); a 120 kB table still
#: parses in about a second, and real source lines
#: stay far below.
MAX_LINE_BYTES = 300_000
_LONG_LINE = re.compile(rb"[^\n]{%d}" % (MAX_LINE_BYTES + 1))


#: Largest input file other than scanned code that migrate-lens reads (a rule file, a baseline,
#: probe.json, a saved report.json): 1 GiB.
MAX_INPUT_BYTES = 1 << 30


def read_input_file(path: Path, max_bytes: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of a file migrate-lens reads besides the scanned code (a rule file, a baseline,
    ``probe.json``, a saved ``report.json``), read safely: a FIFO or device is never opened (a
    FIFO named ``x.toml`` would block forever, a link to ``/dev/zero`` never ends), a file over
    ``max_bytes`` is refused. Raises ``OSError`` whose ``strerror`` is the one-line reason."""
    st = path.stat()
    if not stat.S_ISREG(st.st_mode):
        raise OSError(errno.EINVAL, "not a regular file")
    if st.st_size > max_bytes:
        raise OSError(errno.EFBIG, f"file too large ({st.st_size} bytes > limit {max_bytes})")
    return path.read_bytes()


def read_source(path: Path, max_bytes: int = 5_000_000) -> tuple[str | None, str]:
    """Read a Python file as text: :func:`read_bytes` then :func:`decode_source`.
    Returns ``(text, "")`` or ``(None, reason)``."""
    data, reason = read_bytes(path, max_bytes)
    if data is None:
        return None, reason
    return decode_source(data)


#: Byte-order marks of the encodings Python source cannot be in (not ASCII-compatible), longest first.
_WIDE_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"), (codecs.BOM_UTF16_BE, "UTF-16"),
)


def _wide_reason(data: bytes) -> str:
    """The skip reason of a file saved as UTF-16 or UTF-32 (it starts with that byte-order
    mark; editors on Windows do this), or "" (called only for bytes that already failed)."""
    for bom, name in _WIDE_BOMS:
        if data.startswith(bom):
            return f"{name}-encoded file (byte-order mark); Python source must be UTF-8 or ASCII-compatible: save it as UTF-8"
    return ""


def decode_source(data: bytes) -> tuple[str | None, str]:
    """Decode Python source bytes per PEP 263; see :func:`read_source` for the reasons."""
    nul = data.find(b"\x00")
    if nul != -1:
        return None, _wide_reason(data) or f"binary file (NUL byte at offset {nul})"
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        msg = str(exc.msg if hasattr(exc, "msg") else exc)
        if msg.startswith("invalid or missing encoding declaration"):
            # no (valid) PEP 263 line and the first lines are not UTF-8
            return None, _wide_reason(data) or \
                "undecodable bytes for encoding utf-8 in the first two lines (no PEP 263 coding line)"
        return None, f"bad encoding declaration ({msg})"
    if encoding not in ("utf-8", "utf-8-sig") and encoding.lower().replace("_", "-").startswith(("utf-16", "utf-32")):
        # tokenize accepts the declaration; CPython refuses such a file ("encoding problem")
        return None, f"bad encoding declaration ({encoding} is not ASCII-compatible; CPython refuses it: save the file as UTF-8)"
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return None, f"undecodable bytes for encoding {encoding} at line {line} (byte offset {exc.start})"
    except LookupError:
        return None, f"unknown encoding {encoding!r}"
    if text.startswith("\ufeff"):
        text = text[1:]
    return text, ""


def package_name(root: Path, texts: Iterable[bytes] | None = None, max_depth: int = 100) -> str:
    """Dotted name of the package the scan root is, as its files import it: the root's own name,
    preceded by the names of the parent folders that are packages too (each holds an
    ``__init__.py`` and is named as an identifier), so that scanning ``torchtune/modules`` names
    its files ``torchtune.modules.<mod>``, which is how they import each other
    (``from torchtune.modules.kv_cache import KVCache``). With ``texts`` (the scanned files'
    bytes) a parent is taken only when some file imports from it: a stray ``__init__.py`` in a
    folder above a repository whose files import ``models.cache`` keeps the name ``models``.
    "" when the root holds no ``__init__.py``. At most ``max_depth`` folders up; a folder that
    cannot be read counts as no package."""
    parts: list[str] = []
    folder = root.absolute()
    for _ in range(max_depth):
        try:
            is_package = bool(folder.name) and (folder / "__init__.py").is_file()
        except OSError:
            is_package = False
        if not is_package or (parts and not (folder.name.isidentifier() and not keyword.iskeyword(folder.name))):
            break
        parts.append(folder.name)
        folder = folder.parent
    parts.reverse()  # outermost first
    if len(parts) > 1 and texts is not None:
        blobs = [t for t in texts if t]
        for k in range(len(parts) - 1):
            pattern = re.compile(rb"^[ \t]*(?:from|import)[ \t]+" + re.escape(parts[k].encode()) + rb"\b", re.M)
            if any(pattern.search(b) for b in blobs):
                return ".".join(parts[k:])
        return parts[-1]
    return ".".join(parts)


_RELATIVE_IMPORT = re.compile(rb"^[ \t]*from[ \t]+\.", re.M)


def _defines(text: bytes, name: str) -> bool:
    """Whether a module's source defines or re-exports ``name`` at its top level (``def``,
    ``class``, an assignment, or a relative import binding it: an absolute one may be the very
    import of another package being tested)."""
    n = re.escape(name.encode())
    return re.search(rb"^(?:(?:async[ \t]+)?def|class)[ \t]+" + n + rb"\b|^" + n + rb"[ \t]*[:=]|"
                     rb"^[ \t]*from[ \t]+\.[\w.]*[ \t]+import[ \t][^\n]*\b" + n + rb"\b", text, re.M) is not None


#: Top-level packages a scanned tree is never a copy of (:func:`imported_package`).
_NEVER_SCANNED = frozenset(sys.stdlib_module_names) | {"torch", "numpy", "scipy", "jax", "flax"}
_IMPORT_LINE = re.compile(
    rb"^[ \t]*(?:from[ \t]+([A-Za-z_][\w.]*)[ \t]+import[ \t]+\(?([\w, \t]*)|import[ \t]+([\w., \t]+))", re.M)


def imported_package(package: str, files: Iterable[tuple[str, bytes]]) -> str:
    """The dotted package name the scanned files give their own tree when they import it, for a
    root whose folder name says otherwise: a copy of ``torch_geometric/nn`` scanned as
    ``scan_nn/`` (or a renamed checkout, or a folder without ``__init__.py``) whose files import
    ``torch_geometric.nn.conv.gcn_conv`` and ``torch_geometric.nn.inits`` is the package
    ``torch_geometric.nn``: its modules are then named as they import each other, its own
    imports are project imports, and its relative imports reach the same modules.

    ``package``: the name :func:`package_name` gave the root ("" for none); ``files``: (POSIX
    relative path, bytes) of the scanned files. Returns ``package`` unchanged when some file
    imports a module of the tree under that name (the usual case, decided by one search per file
    before any parsing; for ``package`` "", an import of one of the tree's top-level names), or when no other prefix is backed by imports of at least 3 distinct
    modules of the tree and more than any other prefix; otherwise that prefix. A prefix inside
    the standard library or torch/numpy/scipy/jax/flax is never taken (a repository's own
    ``functional.py``, ``init.py`` and ``utils.py`` beside imports of ``torch.nn.functional``,
    ``torch.nn.init`` and ``torch.nn.utils`` is not a copy of ``torch.nn``). Absolute imports only:
    ``from X import a`` counts ``X.a`` when that is a module of the tree, and ``X`` only when
    that module defines ``a`` (a project with its own ``ops/`` importing ``torchvision.ops.nms``
    is no copy of torchvision); and the prefix must back more import statements than the tree's
    relative imports (a tree that imports itself relatively keeps its name). Read from the
    bytes, nothing is parsed or run; linear in the imports' length (suffixes no longer than the
    tree is deep)."""
    files = [(rel, data) for rel, data in files if data]
    tree = {module_name(rel) for rel, _ in files} - {"__root__"}
    if len(tree) < 3:
        return package
    if package:
        needles = (b"from " + package.encode(), b"import " + package.encode())
        if any(n in data for _, data in files for n in needles):
            return package
    else:  # the tree's modules imported by their tree-relative names (a repository's root)
        tops = sorted({m.split(".")[0] for m in tree} - _NEVER_SCANNED)  # (`import math` is no evidence)
        own = tops and re.compile(rb"^[ \t]*(?:from|import)[ \t]+(?:" + b"|".join(re.escape(t.encode()) for t in tops)
                         + rb")\b", re.M)
        if own and any(own.search(data) for _, data in files):
            return package
    texts = {module_name(rel): data for rel, data in files}
    depth = max(m.count(".") for m in tree) + 1  # (a longer import suffix names no tree module)
    support: dict[str, set[str]] = {}
    statements: dict[str, int] = {}
    relative = 0
    for _, data in files:
        if b"import" not in data:
            continue
        relative += len(_RELATIVE_IMPORT.findall(data))
        for m in _IMPORT_LINE.finditer(data):
            if m.group(1) is not None:
                base = m.group(1).decode("ascii", "replace")
                imported = [n.strip() for n in m.group(2).decode("ascii", "replace").split(",")
                            if n.strip().isidentifier()]
                names = [(f"{base}.{n}", ()) for n in imported] + [(base, tuple(imported))]
            else:
                names = [(n.strip().split()[0], ()) for n in m.group(3).decode("ascii", "replace").split(",")
                         if n.strip()]
            for dotted, members in names:
                parts = dotted.split(".")
                for k in range(max(0, len(parts) - depth), len(parts)):  # the longest tree module it ends with
                    sub = ".".join(parts[k:])
                    if sub not in tree:
                        continue
                    # `from torchvision.ops import nms` in a project with its own `ops/` is no
                    # import of that folder unless `ops` defines `nms`
                    if not members or any(_defines(texts.get(sub, b""), n) for n in members):
                        prefix = ".".join(parts[:k])
                        support.setdefault(prefix, set()).add(sub)
                        statements[prefix] = statements.get(prefix, 0) + 1
                    break
                else:
                    continue
                break
    if support.get(package):
        return package
    ranked = sorted(((len(subs), prefix) for prefix, subs in support.items()
                     if prefix != package and prefix.split(".")[0] not in _NEVER_SCANNED), reverse=True)
    if not ranked or ranked[0][0] < 3 or (len(ranked) > 1 and ranked[1][0] == ranked[0][0]):
        return package
    best = ranked[0][1]
    if statements.get(best, 0) <= relative:
        return package  # the tree imports itself relatively more than through that prefix
    if best and all(p.isidentifier() and not keyword.iskeyword(p) for p in best.split(".")):
        return best
    return package


def module_name(rel_path: str, root_is_package: bool = False, root_name: str = "") -> str:
    """Dotted module name of a relative path: ``pkg/sub/mod.py`` -> ``pkg.sub.mod``,
    ``pkg/__init__.py`` -> ``pkg``; a leading ``src/`` (or ``lib/``) is dropped unless the scanned
    root is itself a package (then it is a subpackage: ``root.lib.x``); when the scanned root is
    itself a package its name (dotted when it sits in a package: :func:`package_name`)
    prefixes the result."""
    parts = list(PurePosixPath(rel_path).with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    if parts and parts[0] in ("src", "lib") and len(parts) > 1 and not (root_is_package and root_name):
        parts = parts[1:]  # (a repository's `src/` layout; inside a package, `lib/` is a subpackage)
    if root_is_package and root_name:
        parts = [*root_name.split("."), *parts]
    name = ".".join(p.replace("-", "_") for p in parts)
    return name or (root_name or "__root__")
