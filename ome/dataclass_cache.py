"""Compiled dataclass methods, cached across hook processes as `.pyc` files cache modules.

`@dataclass` writes each class's `__init__`, `__eq__`, `__repr__`... as source text and compiles
it at every import: about a third of a hook's start-up. The hook installs this cache before its
imports. The same text always compiles to the same code, so a cached code object behaves exactly
as a freshly compiled one; new text is compiled as before and saved for the next process. The
file sits in this package's `__pycache__`, and is not written where bytecode is not.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import marshal
import sys
from pathlib import Path
from types import CodeType
from typing import Any

SUFFIX = ".methods"
# Past this many entries (code edited many times) the file keeps only what one process used.
MAX_ENTRIES = 4096

_codes: dict[str, CodeType] = {}
_used: set[str] = set()
_new: list[str] = []
_path: list[Path | None] = [None]  # the file `install` read, which `save` writes


def cache_path() -> Path | None:
    """`__pycache__/dataclass_cache.<tag>.methods` beside this module (honours pycache_prefix)."""
    try:
        pyc = importlib.util.cache_from_source(__file__)
    except NotImplementedError:  # an implementation without a bytecode cache tag
        return None
    return Path(pyc).with_suffix(SUFFIX)


def _exec(source: Any, globals: Any = None, locals: Any = None, /) -> None:
    """`exec` for the dataclasses module: source text is served from the cache when seen before."""
    if isinstance(source, str):
        code = _codes.get(source)
        if code is None:
            # `dont_inherit`: compiled with no future flags, exactly as `exec` in dataclasses does.
            code = _codes[source] = compile(source, "<string>", "exec", dont_inherit=True)
            _new.append(source)
        _used.add(source)
        source = code
    exec(source, globals, locals)  # noqa: S102 - the dataclasses module's own generated code


def install(path: Path | None = None) -> None:
    """Load the cache file (default `cache_path()`), route the dataclasses module's `exec` to it."""
    if getattr(dataclasses, "exec", None) is _exec:
        return
    path = _path[0] = path or cache_path()
    if path is not None:
        try:
            # One read, then loads: `marshal.load` on a file reads object by object (4x slower).
            loaded = marshal.loads(path.read_bytes())
        except (OSError, EOFError, ValueError, TypeError):
            loaded = None
        if isinstance(loaded, dict) and all(
            type(k) is str and type(v) is CodeType for k, v in loaded.items()
        ):
            _codes.update(loaded)
    # A module global shadows the builtin that `dataclasses` calls by name.
    dataclasses.exec = _exec  # type: ignore[attr-defined]


def uninstall() -> None:
    """Let the dataclasses module compile with the builtin `exec` again."""
    if getattr(dataclasses, "exec", None) is _exec:
        del dataclasses.exec  # type: ignore[attr-defined]


def save() -> bool:
    """Write the cache if this process compiled new methods; True if written. Never raises."""
    path = _path[0]
    if not _new or path is None or sys.dont_write_bytecode:
        return False
    codes = _codes if len(_codes) <= MAX_ENTRIES else {k: _codes[k] for k in _used}
    try:
        from ome.atomic import write_atomic

        write_atomic(path, marshal.dumps(codes), durable=False)
    except (OSError, ValueError):
        return False
    _new.clear()
    return True


__all__ = ["cache_path", "install", "save", "uninstall"]
