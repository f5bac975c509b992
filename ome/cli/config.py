"""`ome config get|set|list`: read and write settings in config.yaml, keeping its comments."""

from __future__ import annotations

from typing import Any

import click

from ome.cli.common import data_dir_option, emit_json, handle_errors, json_option
from ome.config import SETTINGS, SETTINGS_BY_KEY, load_config, resolve_data_dir


def format_value(value: Any) -> str:
    """A setting as a person types it: true/false, numbers, comma-separated lists."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


@click.group("config")
def config_group() -> None:
    """Read and write settings (config.yaml in the data directory; comments are kept)."""


@config_group.command("get")
@click.argument("key")
@data_dir_option
@json_option
@handle_errors
def get_command(key: str, data_dir: str | None, as_json: bool) -> None:
    """Print the effective value of KEY (the file's value, else the default)."""
    from ome.settings_file import get_setting

    value = get_setting(resolve_data_dir(data_dir), key)
    if as_json:
        emit_json({"ok": True, "key": key, "value": value})
        return
    click.echo(format_value(value))


@config_group.command("set")
@click.argument("key")
@click.argument("value")
@data_dir_option
@json_option
@handle_errors
def set_command(key: str, value: str, data_dir: str | None, as_json: bool) -> None:
    """Set KEY to VALUE in config.yaml (lists: comma-separated paths)."""
    from ome.settings_file import set_setting

    root = resolve_data_dir(data_dir)
    written = set_setting(root, key, value)
    if as_json:
        emit_json({"ok": True, "key": key, "value": written, "path": str(root / "config.yaml")})
        return
    click.echo(f"{key} = {format_value(written)}")


@config_group.command("list")
@data_dir_option
@json_option
@handle_errors
def list_command(data_dir: str | None, as_json: bool) -> None:
    """List every setting with its effective value, default and meaning."""
    config = load_config(resolve_data_dir(data_dir))
    rows = [
        {
            "key": s.key,
            "value": config.get(s.key),
            "default": s.default,
            "type": s.kind.__name__,
            "help": s.help,
        }
        for s in SETTINGS
    ]
    if as_json:
        emit_json({"ok": True, "data_dir": str(config.data_dir), "settings": rows})
        return
    width = max(len(k) for k in SETTINGS_BY_KEY)
    for row in rows:
        marker = "" if row["value"] == row["default"] else "  (changed)"
        click.echo(f"{row['key']:<{width}}  {format_value(row['value'])}{marker}")
        click.echo(f"{'':<{width}}  {row['help']}")


__all__ = ["config_group", "format_value"]
