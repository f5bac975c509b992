"""Creating and inspecting libraries: `ome init` (the data dir) and `ome project init|status`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ome.cards import STATUSES
from ome.config import CONFIG_YAML, load_config, resolve_data_dir
from ome.library import (
    Source,
    atomic_write_text,
    find_project_root,
    load_library,
    project_library_dir,
)

CONFIG_TEMPLATE = """\
# ome settings. `ome config get|set KEY [VALUE]` edits this file and keeps these comments.
recall:
  threshold: 40        # evidence score (0-100) a card must reach
  limit: 4             # most cards returned for one prompt
  budget_chars: 6000   # character budget of the injected context
library:
  starter_cards: {starter}   # search the bundled starter cards
  team: []             # paths of team card libraries (checked-out repositories)
hook:
  deadline_ms: 1500    # the hook answers within this many milliseconds
  reminder_prompts: 5  # after a card was shown in full, later prompts get a one-line reminder
telemetry:
  enabled: true        # one line per hook run in events.jsonl (never the prompt)
  max_bytes: 5000000   # rotate events.jsonl past this size
privacy:
  save_raw_prompt: false  # opt-in: keep raw prompts in telemetry
"""


@dataclass(frozen=True, slots=True)
class InitResult:
    data_dir: Path
    created: tuple[str, ...]
    starter_cards: bool


def init_data_dir(data_dir: str | Path | None, starter: bool = True) -> InitResult:
    """Create the data dir layout and a commented config; never overwrite an existing config."""
    root = resolve_data_dir(data_dir)
    created: list[str] = []
    for status in STATUSES:
        folder = root / "experiences" / status
        if not folder.is_dir():
            folder.mkdir(parents=True)
            created.append(str(folder))
    for extra in ("cache", "signals"):
        folder = root / extra
        if not folder.is_dir():
            folder.mkdir(parents=True)
            created.append(str(folder))
    config_path = root / CONFIG_YAML
    if not config_path.exists():
        atomic_write_text(
            config_path, CONFIG_TEMPLATE.format(starter="true" if starter else "false"), root
        )
        created.append(str(config_path))
    elif not starter:
        from ome.settings_file import set_setting

        set_setting(root, "library.starter_cards", "false")
    return InitResult(root, tuple(created), load_config(root).starter_cards)


@dataclass(frozen=True, slots=True)
class ProjectStatus:
    cwd: Path
    project_root: Path | None
    library_dir: Path | None
    exists: bool
    counts: tuple[tuple[str, int], ...]
    invalid: tuple[tuple[str, tuple[str, ...]], ...]


def project_init(cwd: Path, data_dir: str | Path | None = None) -> ProjectStatus:
    """Create `.oh-my-experience/experiences/{draft,active,archived}` at the project root."""
    root = find_project_root(cwd, resolve_data_dir(data_dir)) or cwd.absolute()
    library = project_library_dir(root)
    for status in STATUSES:
        (library / "experiences" / status).mkdir(parents=True, exist_ok=True)
    (library / "signals").mkdir(exist_ok=True)
    return project_status(cwd, data_dir)


def project_status(cwd: Path, data_dir: str | Path | None = None) -> ProjectStatus:
    """Where the project library is, how many cards each status holds, which are invalid."""
    root = find_project_root(cwd, resolve_data_dir(data_dir))
    if root is None:
        return ProjectStatus(cwd.absolute(), None, None, False, (), ())
    library = project_library_dir(root)
    exists = library.is_dir()
    counts: list[tuple[str, int]] = []
    invalid: list[tuple[str, tuple[str, ...]]] = []
    if exists:
        loaded = load_library([Source("project", library)], STATUSES)
        for status in STATUSES:
            counts.append((status, sum(1 for c in loaded.cards if c.card.status == status)))
        invalid = [(str(i.path), i.problems) for i in loaded.invalid]
    return ProjectStatus(cwd.absolute(), root, library, exists, tuple(counts), tuple(invalid))


__all__ = [
    "CONFIG_TEMPLATE",
    "InitResult",
    "ProjectStatus",
    "init_data_dir",
    "project_init",
    "project_status",
]
