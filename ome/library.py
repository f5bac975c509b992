"""Card libraries on disk (SPEC §3): bundled, team, global and project layers, read and written
safely.

Every path is resolved inside its library before it is used: ids are checked, symlinks that
leave the library are refused, writes go through a temp file and a rename.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ome.atomic import write_atomic
from ome.cards import STATUSES, Card, Status, is_valid_id, parse_card_text
from ome.config import DEFAULT_DIR_NAME, Config
from ome.errors import CardError, UnsafeIdError
from ome.resources import resource_dir

Layer = Literal["bundled", "team", "global", "project"]
# Layer precedence when two cards share an id: the later layer wins (project over global...).
LAYER_ORDER: tuple[Layer, ...] = ("bundled", "team", "global", "project")
PROJECT_DIR = DEFAULT_DIR_NAME
MANIFESTS = ("pyproject.toml", "package.json", "Cargo.toml", "go.mod")
# A card is a page of text; anything far larger is a mistake or an attack (SPEC §10).
MAX_CARD_BYTES = 512 * 1024


@dataclass(frozen=True, slots=True)
class Source:
    """One library layer: its kind and the directory holding `experiences/`."""

    layer: Layer
    root: Path

    @property
    def flat(self) -> bool:
        """Bundled cards (and loose team repositories) keep `*.md` directly in `experiences/`."""
        return not (self.root / "experiences" / "active").is_dir() and self.layer in (
            "bundled",
            "team",
        )


@dataclass(frozen=True, slots=True)
class CardFile:
    """A parsed card together with where it came from."""

    card: Card
    layer: Layer
    path: Path


@dataclass(frozen=True, slots=True)
class InvalidCard:
    """A card file that was skipped, with every problem found in it."""

    layer: Layer
    path: Path
    problems: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Library:
    """What was loaded from all layers: valid cards and the files that were skipped."""

    sources: tuple[Source, ...]
    cards: tuple[CardFile, ...]
    invalid: tuple[InvalidCard, ...]

    def find(self, card_id: str, layer: Layer | None = None) -> CardFile | None:
        """The card with this id from the highest-precedence layer (or the given layer)."""
        found = [c for c in self.cards if c.card.id == card_id and layer in (None, c.layer)]
        return max(found, key=lambda c: LAYER_ORDER.index(c.layer)) if found else None


def find_project_root(cwd: Path, data_dir: Path | None = None) -> Path | None:
    """Walk up to a `.oh-my-experience/` directory, else the git root, else the nearest manifest.

    The global data dir (`~/.oh-my-experience`) is not a project library, so the home directory
    never becomes a project by holding it.
    """
    start = cwd.absolute()
    chain = [start, *start.parents]
    global_dir = data_dir.absolute() if data_dir else None
    for directory in chain:
        candidate = directory / PROJECT_DIR
        if candidate.is_dir() and candidate.absolute() != global_dir and directory != Path.home():
            return directory
    for directory in chain:
        if (directory / ".git").exists():
            return directory
    for directory in chain:
        if any((directory / m).is_file() for m in MANIFESTS):
            return directory
    return None


def project_library_dir(project_root: Path) -> Path:
    return project_root / PROJECT_DIR


def library_sources(config: Config, project_root: Path | None) -> tuple[Source, ...]:
    """The layers to search, lowest precedence first."""
    sources: list[Source] = []
    if config.starter_cards:
        sources.append(Source("bundled", resource_dir("experiences").parent))
    sources.extend(Source("team", path) for path in config.team_libraries)
    sources.append(Source("global", config.data_dir))
    if project_root is not None:
        sources.append(Source("project", project_library_dir(project_root)))
    return tuple(sources)


def card_files(
    source: Source, statuses: Iterable[Status] = ("active",)
) -> Iterator[tuple[Path, Status]]:
    """Sorted `(path, status)` of the card files of one layer; links out of it are skipped."""
    base = source.root / "experiences"
    folders: list[tuple[Path, Status]]
    if source.flat:
        folders = [(base, "active")] if "active" in statuses else []
    else:
        folders = [(base / status, status) for status in statuses]
    for folder, status in folders:
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.md")):
            yield path, status


def read_card_file(path: Path, source: Source, status: Status) -> Card:
    """Read and validate one card file; raise CardError or UnsafeIdError naming the file."""
    ensure_inside(path, source.root)
    size = path.stat().st_size
    if size > MAX_CARD_BYTES:
        raise CardError(
            f"{path}: {size} bytes is over the {MAX_CARD_BYTES}-byte card limit; shorten the card"
        )
    text = path.read_text(encoding="utf-8", errors="replace")
    card = parse_card_text(text, str(path), expected_id=path.stem)
    if not source.flat and card.status != status:
        raise CardError(
            f"{path}: status is '{card.status}' but the file is in '{status}/';"
            f" move it or set `status: {status}`"
        )
    return card


def load_library(sources: Iterable[Source], statuses: Iterable[Status] = ("active",)) -> Library:
    """Parse every card of every layer; one bad file is reported and skipped, never fatal."""
    wanted = tuple(statuses)
    cards: list[CardFile] = []
    invalid: list[InvalidCard] = []
    source_list = tuple(sources)
    for source in source_list:
        for path, status in card_files(source, wanted):
            try:
                card = read_card_file(path, source, status)
            except CardError as exc:
                invalid.append(InvalidCard(source.layer, path, exc.problems))
            except (UnsafeIdError, OSError, UnicodeError) as exc:
                invalid.append(InvalidCard(source.layer, path, (f"{path}: {exc}",)))
            else:
                cards.append(CardFile(card, source.layer, path))
    return Library(source_list, tuple(cards), tuple(invalid))


def ensure_inside(path: Path, root: Path) -> Path:
    """Resolve `path` (following links) and refuse it unless it stays inside `root`."""
    resolved_root = root.resolve()
    resolved = path.resolve()
    if resolved != resolved_root and resolved_root not in resolved.parents:
        raise UnsafeIdError(
            f"{path} leads outside its library {root}; remove the link or move the file inside"
        )
    return resolved


def check_card_id(card_id: str) -> str:
    """Refuse ids that could name a file outside the library (`../x`, `/etc/passwd`, `a/b`)."""
    if not is_valid_id(card_id):
        raise UnsafeIdError(
            f"'{card_id}' is not a card id: ids are lower-case letters, digits, '-', '_' and '.',"
            " with no '/', '\\' or '..'; see `ome experience list` for existing ids"
        )
    return card_id


def card_path(root: Path, card_id: str, status: Status) -> Path:
    """The path of a card with this id and status in a layered library, checked to stay inside."""
    check_card_id(card_id)
    if status not in STATUSES:
        raise UnsafeIdError(f"unknown status folder '{status}'")
    path = root / "experiences" / status / f"{card_id}.md"
    if path.is_symlink() or path.exists():
        ensure_inside(path, root)
    else:
        ensure_inside(path.parent if path.parent.exists() else root, root)
    return path


def atomic_write_text(path: Path, text: str, root: Path) -> None:
    """Write via a temp file in the same folder and a rename, after checking it stays in `root`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    ensure_inside(path.parent, root)
    if path.is_symlink():
        raise UnsafeIdError(f"{path} is a symbolic link; refusing to write through it")
    write_atomic(path, text.encode("utf-8"))


__all__ = [
    "LAYER_ORDER",
    "MANIFESTS",
    "MAX_CARD_BYTES",
    "PROJECT_DIR",
    "CardFile",
    "InvalidCard",
    "Layer",
    "Library",
    "Source",
    "atomic_write_text",
    "card_files",
    "card_path",
    "check_card_id",
    "ensure_inside",
    "find_project_root",
    "library_sources",
    "load_library",
    "project_library_dir",
    "read_card_file",
]
