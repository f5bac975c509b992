"""The package's shape: layers, public names, and a documented command line."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import click
import pytest

from ome.cli import cli

PACKAGE = Path(__file__).resolve().parents[1] / "ome"
README = (PACKAGE.parent / "README.md").read_text(encoding="utf-8")
# The pure core: no IO, clock, environment, randomness or command line (STYLE.md layers).
PURE_MODULES = (
    "analysis",
    "cards",
    "concepts",
    "engine",
    "envelope",
    "index",
    "params",
    "render",
    "scoring",
    "selection",
    "signals",
    "similarity",
)
FORBIDDEN_IN_PURE = {"os", "pathlib", "time", "random", "subprocess", "click", "datetime"}
MODULES = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem not in {"__init__", "__main__"})


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


@pytest.mark.parametrize("name", PURE_MODULES)
def test_pure_modules_do_no_io(name: str) -> None:
    assert imported_roots(PACKAGE / f"{name}.py").isdisjoint(FORBIDDEN_IN_PURE)


@pytest.mark.parametrize("name", MODULES)
def test_all_lists_exactly_the_public_names(name: str) -> None:
    """Every public class and function a module defines is in its `__all__`, and no other."""
    module = importlib.import_module(f"ome.{name}")

    def is_definition(value: object) -> bool:
        return inspect.isclass(value) or inspect.isfunction(value)

    defined = {
        key
        for key, value in vars(module).items()
        if not key.startswith("_")
        and is_definition(value)
        and getattr(value, "__module__", "") == module.__name__
    }
    listed = {key for key in module.__all__ if is_definition(getattr(module, key))}
    assert listed == defined
    assert all(hasattr(module, key) for key in module.__all__)


def all_commands(group: click.Group, prefix: str = "ome") -> list[tuple[str, click.Command]]:
    found: list[tuple[str, click.Command]] = []
    for name, command in sorted(group.commands.items()):
        path = f"{prefix} {name}"
        found.append((path, command))
        if isinstance(command, click.Group):
            found.extend(all_commands(command, path))
    return found


COMMANDS = all_commands(cli)


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=[p for p, _ in COMMANDS])
def test_every_command_has_help(path: str, command: click.Command) -> None:
    assert (command.help or "").strip(), f"{path} has no help text"


@pytest.mark.parametrize(
    "path", sorted({" ".join(p.split()[:2]) for p, _ in COMMANDS}), ids=lambda p: p
)
def test_every_command_is_documented_in_the_readme(path: str) -> None:
    assert path in README
