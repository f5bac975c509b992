"""Atomic file replacement: readers see the old file or the new one, never half of either."""

from __future__ import annotations

import os
from pathlib import Path


def write_atomic(path: Path, data: bytes, mode: int = 0o644, durable: bool = True) -> None:
    """Write `data` to a unique temp file beside `path`, then rename it over `path`.

    An existing file keeps its permission bits; a new one gets `mode`. `durable` fsyncs before
    the rename (cards, settings); caches that are rebuilt on damage may skip it. The temp name
    is made from the pid and random bytes, so concurrent writers never share one.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = path.stat().st_mode & 0o777
    except FileNotFoundError:
        pass
    temp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(6).hex()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


__all__ = ["write_atomic"]
