"""`ome project init|status`: the project library at the repository root."""

from __future__ import annotations

from pathlib import Path

import click

from ome.cli.common import cwd_option, data_dir_option, emit_json, handle_errors, json_option
from ome.project import ProjectStatus, project_init, project_status


@click.group("project")
def project_group() -> None:
    """Create or inspect the project library (.oh-my-experience/ at the project root)."""


def _show(status: ProjectStatus, as_json: bool) -> None:
    if as_json:
        emit_json(
            {
                "ok": True,
                "cwd": str(status.cwd),
                "project_root": str(status.project_root) if status.project_root else None,
                "library_dir": str(status.library_dir) if status.library_dir else None,
                "exists": status.exists,
                "counts": dict(status.counts),
                "invalid_cards": [{"path": p, "problems": list(ps)} for p, ps in status.invalid],
            }
        )
        return
    if status.project_root is None:
        click.echo(
            f"No project found from {status.cwd} (no .oh-my-experience/, git root or"
            " manifest). Run `ome project init` to create one here."
        )
        return
    click.echo(f"Project root: {status.project_root}")
    click.echo(f"Library:      {status.library_dir} ({'exists' if status.exists else 'missing'})")
    for name, count in status.counts:
        click.echo(f"  {name:<9} {count}")
    for path, problems in status.invalid:
        click.echo(f"  invalid: {problems[0] if problems else path}")
    if not status.exists:
        click.echo("Run `ome project init` to create it.")


@project_group.command("init")
@cwd_option
@data_dir_option
@json_option
@handle_errors
def project_init_command(cwd: str | None, data_dir: str | None, as_json: bool) -> None:
    """Create the project library at the project root found from --cwd."""
    _show(project_init(Path(cwd) if cwd else Path.cwd(), data_dir), as_json)


@project_group.command("status")
@cwd_option
@data_dir_option
@json_option
@handle_errors
def project_status_command(cwd: str | None, data_dir: str | None, as_json: bool) -> None:
    """Show the project root, its library and card counts."""
    _show(project_status(Path(cwd) if cwd else Path.cwd(), data_dir), as_json)
