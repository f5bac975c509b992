"""`python -m ome` runs the same command line as `ome`."""

from __future__ import annotations

from ome.cli import cli

if __name__ == "__main__":
    cli(prog_name="ome")
