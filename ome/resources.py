"""Where the bundled data lives: inside the wheel, or at the repository root (editable installs)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

ResourceName = Literal["signals", "experiences", "hooks"]

_PACKAGE_DIR = Path(__file__).resolve().parent


def resource_dir(name: ResourceName) -> Path:
    """Return the directory of a bundled resource (`signals`, `experiences` or `hooks`)."""
    shipped = _PACKAGE_DIR / "_data" / name
    if shipped.is_dir():
        return shipped
    return _PACKAGE_DIR.parent / name


__all__ = ["ResourceName", "resource_dir"]
