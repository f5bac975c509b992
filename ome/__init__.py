"""ome: the right reviewed lesson for a coding agent at the right moment."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
