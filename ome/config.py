"""The data directory and its settings: `--data-dir`, else `OME_HOME`, else `~/.oh-my-experience`.

Settings come from `config.yaml`; the original's `config.json` is read too (its camelCase keys
map onto the same names), and `config.yaml` wins where both set a key. The parsed settings are
kept in the data dir's cache, so a hook reads them without a YAML parser and before its heavier
imports: they set its deadline.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from ome.atomic import write_atomic
from ome.errors import ConfigError
from ome.server import DEFAULT_DIR_NAME, DEFAULT_IDLE_S, data_dir_path

CONFIG_YAML = "config.yaml"
CONFIG_JSON = "config.json"
CACHE_DIR = "cache"  # inside the data dir (SPEC §3): derived files, safe to delete
CONFIG_CACHE = "config.json"  # in CACHE_DIR: the parsed settings and the stats they came from
CONFIG_CACHE_SCHEMA = "ome-config-cache/1"
# A file modified this close to now may change again within one timestamp tick without its
# stat changing: its parse is not cached.
RACY_NS = 1_000_000_000


@dataclass(frozen=True, slots=True)
class Setting:
    """One known setting: dotted key, type, default and what it does (for `ome config`)."""

    key: str
    kind: type
    default: Any
    help: str


SETTINGS: tuple[Setting, ...] = (
    Setting("recall.threshold", int, 40, "evidence score (0-100) a card must reach"),
    Setting("recall.limit", int, 4, "most cards returned for one prompt"),
    Setting("recall.budget_chars", int, 6000, "character budget of the injected context"),
    Setting("library.starter_cards", bool, True, "search the bundled starter cards"),
    Setting("library.team", list, [], "paths of team card libraries (checked-out repositories)"),
    Setting(
        "hook.deadline_ms",
        int,
        1500,
        "the hook answers within this many milliseconds (installed agents wait 5 s)",
    ),
    Setting(
        "hook.server",
        bool,
        True,
        "keep a warm hook server for this data dir (a hook run then skips start-up and loading)",
    ),
    Setting(
        "hook.server_idle_s", int, DEFAULT_IDLE_S, "the warm hook server exits after this idle time"
    ),
    Setting(
        "hook.reminder_prompts",
        int,
        5,
        "prompts a card stays a one-line reminder after it was injected in full in a session",
    ),
    Setting("telemetry.enabled", bool, True, "write one line per hook run to events.jsonl"),
    Setting("telemetry.max_bytes", int, 5_000_000, "rotate events.jsonl past this size"),
    Setting("privacy.save_raw_prompt", bool, False, "store raw prompts in telemetry (opt-in)"),
)
SETTINGS_BY_KEY = {s.key: s for s in SETTINGS}


@dataclass(frozen=True, slots=True)
class Config:
    """Resolved settings of one data directory."""

    data_dir: Path
    values: tuple[tuple[str, Any], ...]

    def get(self, key: str) -> Any:
        for k, v in self.values:
            if k == key:
                return v
        return SETTINGS_BY_KEY[key].default

    @property
    def threshold(self) -> int:
        return int(self.get("recall.threshold"))

    @property
    def limit(self) -> int:
        return int(self.get("recall.limit"))

    @property
    def budget_chars(self) -> int:
        return int(self.get("recall.budget_chars"))

    @property
    def starter_cards(self) -> bool:
        return bool(self.get("library.starter_cards"))

    @property
    def team_libraries(self) -> tuple[Path, ...]:
        return tuple(Path(p).expanduser() for p in self.get("library.team") or ())


def resolve_data_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The data dir: the explicit path, else `OME_HOME`, else `~/.oh-my-experience`."""
    return Path(data_dir_path(explicit))


def _snake(key: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", key).lower()


def _flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in data.items():
        dotted = f"{prefix}{_snake(str(key))}"
        if isinstance(value, dict):
            flat.update(_flatten(value, dotted + "."))
        else:
            flat[dotted] = value
    return flat


def coerce_setting(key: str, value: Any) -> Any:
    """Check a value against its setting's type; raise ConfigError naming the fix."""
    setting = SETTINGS_BY_KEY.get(key)
    if setting is None:
        known = ", ".join(sorted(SETTINGS_BY_KEY))
        raise ConfigError(f"unknown setting '{key}'; known settings: {known}")
    if setting.kind is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false", "yes", "no", "1", "0"):
            return value.lower() in ("true", "yes", "1")
    elif setting.kind is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            return int(value)
    elif setting.kind is list:
        if isinstance(value, list):
            return [str(v) for v in value]
        if isinstance(value, str):
            return [v.strip() for v in value.split(",") if v.strip()]
    raise ConfigError(f"setting '{key}' must be {setting.kind.__name__}, got {value!r}")


def load_config(data_dir: Path) -> Config:
    """Read `config.json` (original) then `config.yaml`; unknown keys are kept but unused."""
    merged: dict[str, Any] = {}
    json_path = data_dir / CONFIG_JSON
    if json_path.is_file():
        try:
            raw = json.loads(json_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ConfigError(f"{json_path}: not valid JSON ({exc}); fix or remove it") from None
        if isinstance(raw, dict):
            merged.update(_flatten(raw))
    yaml_path = data_dir / CONFIG_YAML
    if yaml_path.is_file():
        import yaml

        try:
            raw = yaml.safe_load(yaml_path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as exc:
            raise ConfigError(f"{yaml_path}: not valid YAML ({exc}); fix or remove it") from None
        if isinstance(raw, dict):
            merged.update(_flatten(raw))
    values = []
    for key in sorted(merged):
        if key in SETTINGS_BY_KEY:
            values.append((key, coerce_setting(key, merged[key])))
    return Config(data_dir=data_dir, values=tuple(values))


def _stat_stamp(path: str | Path) -> list[Any]:
    try:
        st = os.stat(path)
    except OSError:
        return [str(path)]
    return [str(path), st.st_size, st.st_mtime_ns, st.st_ino]


def load_config_cached(data_dir: Path, cache_dir: Path | None) -> Config:
    """`load_config`, reusing the parsed settings while both config files and this module are
    unchanged (reading `config.yaml` imports a YAML parser); without a cache dir it parses."""
    if cache_dir is None:
        return load_config(data_dir)
    sources = [_stat_stamp(data_dir / name) for name in (CONFIG_JSON, CONFIG_YAML)]
    stamp = [CONFIG_CACHE_SCHEMA, _stat_stamp(__file__), *sources]
    path = cache_dir / CONFIG_CACHE
    try:
        doc = orjson.loads(path.read_bytes())
        if doc["stamp"] == stamp and doc["data_dir"] == str(data_dir):
            return Config(data_dir=data_dir, values=tuple((k, v) for k, v in doc["values"]))
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        pass
    config = load_config(data_dir)
    newest = max((s[2] for s in sources if len(s) > 1), default=0)
    if time.time_ns() - newest > RACY_NS:
        try:
            doc = {"stamp": stamp, "data_dir": str(data_dir), "values": config.values}
            write_atomic(path, orjson.dumps(doc), durable=False)
        except (OSError, TypeError):
            pass
    return config


__all__ = [
    "CACHE_DIR",
    "CONFIG_CACHE",
    "CONFIG_JSON",
    "CONFIG_YAML",
    "DEFAULT_DIR_NAME",
    "SETTINGS",
    "Config",
    "Setting",
    "coerce_setting",
    "load_config",
    "load_config_cached",
    "resolve_data_dir",
]
