"""`ome config get|set`: read and write `config.yaml`, keeping its comments and key order."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from ome.config import CONFIG_YAML, SETTINGS_BY_KEY, coerce_setting, load_config
from ome.errors import ConfigError
from ome.library import atomic_write_text


def get_setting(data_dir: Path, key: str) -> Any:
    """The effective value of a known setting (file value, else default)."""
    if key not in SETTINGS_BY_KEY:
        coerce_setting(key, None)  # raises with the list of known keys
    return load_config(data_dir).get(key)


def set_setting(data_dir: Path, key: str, raw_value: Any) -> Any:
    """Validate and write one setting with a comment-preserving round trip; return the value."""
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap

    value = coerce_setting(key, raw_value)
    path = data_dir / CONFIG_YAML
    yaml = YAML()
    yaml.preserve_quotes = True
    if path.is_file():
        try:
            doc = yaml.load(path.read_text(encoding="utf-8"))
        except Exception as exc:  # ruamel raises many unrelated types
            raise ConfigError(
                f"{path}: not valid YAML ({exc}); fix it before `ome config set`"
            ) from None
        if doc is None:
            doc = CommentedMap()
        if not isinstance(doc, dict):
            raise ConfigError(f"{path}: the top level must be a mapping of settings")
    else:
        doc = CommentedMap()
    node = doc
    parts = key.split(".")
    for part in parts[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            child = CommentedMap()
            node[part] = child
        node = child
    node[parts[-1]] = value
    out = io.StringIO()
    yaml.dump(doc, out)
    data_dir.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, out.getvalue(), data_dir)
    return value


__all__ = ["get_setting", "set_setting"]
