"""Dataclass methods served from the cache behave exactly as freshly compiled ones."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ome import dataclass_cache

# Defines a frozen slotted dataclass and prints what its generated methods do.
PROBE = """
import dataclasses, sys
from pathlib import Path
from ome import dataclass_cache
if sys.argv[1] == "cached":
    dataclass_cache.install(Path(sys.argv[2]))

@dataclasses.dataclass(frozen=True, slots=True)
class Point:
    x: int
    y: "tuple[str, ...]" = ()
    z: list[int] = dataclasses.field(default_factory=list, compare=False, repr=False)
    w: int = dataclasses.field(default=0, kw_only=True)

p = Point(1, ("a",), w=2)
try:
    p.x = 3
    frozen = "no"
except dataclasses.FrozenInstanceError as exc:
    frozen = repr(exc)
print(repr(p), p == Point(1, ("a",), [9], w=2), hash(p) == hash(Point(1, ("a",), w=2)))
print(frozen, Point.__slots__, Point.__match_args__, Point.__doc__)
print(Point.__init__.__annotations__, Point.__init__.__defaults__, Point.__init__.__kwdefaults__)
print(sorted(vars(Point)))
if sys.argv[1] == "cached":
    print("saved", dataclass_cache.save())
"""


def probe(mode: str, path: Path, write_bytecode: bool = True) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if not write_bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", PROBE, mode, str(path)],
        capture_output=True,
        check=True,
        text=True,
        env=env,
    )
    return done.stdout


def test_cached_methods_behave_as_freshly_compiled_ones(tmp_path: Path) -> None:
    path = tmp_path / "methods"
    plain = probe("plain", path)
    first = probe("cached", path)  # compiles and saves
    second = probe("cached", path)  # loads, compiles nothing new
    assert first == plain + "saved True\n"
    assert second == plain + "saved False\n"
    assert path.is_file()


def test_nothing_is_written_where_bytecode_is_not(tmp_path: Path) -> None:
    path = tmp_path / "methods"
    assert probe("cached", path, write_bytecode=False).endswith("saved False\n")
    assert not path.exists()


@pytest.mark.parametrize("content", [b"", b"not marshal", b"\xe3" * 40])
def test_a_damaged_cache_file_is_ignored_and_replaced(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "methods"
    path.write_bytes(content)
    assert probe("cached", path) == probe("plain", path) + "saved True\n"
    assert probe("cached", path).endswith("saved False\n")


def test_install_routes_the_dataclasses_exec_and_uninstall_restores_it(tmp_path: Path) -> None:
    installed = getattr(dataclasses, "exec", None) is not None
    dataclass_cache.install(tmp_path / "methods")
    try:
        assert dataclasses.exec is not exec  # type: ignore[attr-defined]

        @dataclasses.dataclass(frozen=True)
        class Pair:
            a: int
            b: int = 2

        assert Pair(1) == Pair(1, 2)
        assert repr(Pair(1)).endswith("Pair(a=1, b=2)")
    finally:
        if not installed:
            dataclass_cache.uninstall()
    assert installed or not hasattr(dataclasses, "exec")


def test_the_default_file_sits_in_the_package_pycache() -> None:
    path = dataclass_cache.cache_path()
    assert path is not None
    assert path.parent.name == "__pycache__" and path.name.startswith("dataclass_cache.")
