"""`ome hook ...`: run the agent hook; install, uninstall or inspect it in an agent's settings."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import click

from ome.cli.common import cwd_option, data_dir_option, emit_json, handle_errors, json_option
from ome.providers import PROVIDER_NAMES

if TYPE_CHECKING:
    from ome.install import Scope

F = TypeVar("F", bound=Callable[..., Any])
SCOPE_CHOICE = click.Choice(("user", "project"))


def provider_option(required: bool = True) -> Callable[[F], F]:
    """`--provider`: one of the agents in the provider table."""
    return click.option(
        "--provider",
        type=click.Choice(PROVIDER_NAMES),
        required=required,
        default=None,
        help="The agent: " + ", ".join(PROVIDER_NAMES) + ".",
    )


def scope_option(func: F) -> F:
    return click.option(
        "--scope",
        type=SCOPE_CHOICE,
        default="user",
        show_default=True,
        help="The user's settings file, or the project's (under the project root of --cwd).",
    )(func)


@click.group("hook")
def hook_group() -> None:
    """Run the agent hook, or install it into Claude Code, Codex, Gemini CLI or Cursor.

    Agents run the lean form `<python> -m ome.hook --provider P`, which `install` writes with
    the absolute path of this interpreter.
    """


@hook_group.command("run")
@click.option("--provider", default="", help="The agent: " + ", ".join(PROVIDER_NAMES) + ".")
@click.option("--event", default="", help="The agent's event (Cursor: sessionStart, ...).")
@data_dir_option
def run_command(provider: str, event: str, data_dir: str | None) -> None:
    """Read the agent's JSON on stdin and print the JSON it parses; always exits 0."""
    import time

    from ome import server

    start = time.monotonic()
    args = ["--provider", provider, "--event", event, "--data-dir", data_dir or ""]
    forwarded, waited = server.forward(args)  # a warm server answers and exits the process here
    from ome.hook import main

    raise SystemExit(
        main(args, stdin=forwarded, start=start if waited else None, start_server=True)
    )


@hook_group.group("server")
def server_group() -> None:
    """The warm hook server: one resident process per data dir that answers hook runs.

    The first hook run of a data dir starts it; it exits after `hook.server_idle_s` idle
    seconds or when ome is upgraded. `ome config set hook.server false` (or OME_HOOK_SERVER=0)
    turns it off; hooks then run wholly in their own process.
    """


@server_group.command("status")
@data_dir_option
@json_option
def server_status_command(data_dir: str | None, as_json: bool) -> None:
    """Say whether a server runs for the data dir, with its pid and socket."""
    from ome import server

    doc = server.status(server.data_dir_path(data_dir))
    if as_json:
        emit_json({"ok": True, **doc})
        return
    if doc["running"]:
        click.echo(f"running (pid {doc['pid']}) on {doc['socket']}")
    elif doc["socket"] is None:
        click.echo("not available here: no Unix sockets, or the data dir path is too long")
    else:
        click.echo("not running; the next hook run starts it")


@server_group.command("stop")
@data_dir_option
@json_option
def server_stop_command(data_dir: str | None, as_json: bool) -> None:
    """Stop the data dir's server (the next hook run starts a fresh one)."""
    from ome import server

    stopped = server.stop(server.data_dir_path(data_dir))
    if as_json:
        emit_json({"ok": True, "stopped": stopped})
        return
    click.echo("stopped" if stopped else "no server was running")


def _echo_result(result: Any, as_json: bool) -> None:
    if as_json:
        emit_json(
            {
                "ok": True,
                "provider": result.provider,
                "scope": result.scope,
                "path": str(result.path),
                "action": result.action,
                "dry_run": result.dry_run,
                "backup": str(result.backup) if result.backup else None,
                "commands": list(result.commands),
                "diff": result.diff,
            }
        )
        return
    if result.dry_run:
        click.echo(result.diff or f"{result.path}: no change")
        return
    click.echo(f"{result.path}: {result.action.replace('_', ' ')}")
    if result.backup:
        click.echo(f"  backup: {result.backup}")
    for command in result.commands:
        click.echo(f"  command: {command}")


@hook_group.command("install")
@provider_option()
@scope_option
@cwd_option
@click.option("--dry-run", is_flag=True, help="Print the change as a unified diff; write nothing.")
@json_option
@handle_errors
def install_command(
    provider: str, scope: str, cwd: str | None, dry_run: bool, as_json: bool
) -> None:
    """Merge the ome hook into the agent's settings file (backed up first; idempotent)."""
    from ome.install import install_hook

    result = install_hook(provider, cast("Scope", scope), Path(cwd) if cwd else None, dry_run)
    _echo_result(result, as_json)


@hook_group.command("uninstall")
@provider_option()
@scope_option
@cwd_option
@click.option("--dry-run", is_flag=True, help="Print the change as a unified diff; write nothing.")
@json_option
@handle_errors
def uninstall_command(
    provider: str, scope: str, cwd: str | None, dry_run: bool, as_json: bool
) -> None:
    """Remove only the ome entry; the rest of the file comes back as it was."""
    from ome.install import uninstall_hook

    result = uninstall_hook(provider, cast("Scope", scope), Path(cwd) if cwd else None, dry_run)
    _echo_result(result, as_json)


@hook_group.command("status")
@provider_option(required=False)
@click.option("--scope", type=SCOPE_CHOICE, default=None, help="Only this scope (default: both).")
@cwd_option
@json_option
@handle_errors
def status_command(provider: str | None, scope: str | None, cwd: str | None, as_json: bool) -> None:
    """Show where the hook is installed and whether each entry is current."""
    from ome.install import SCOPES, hook_status

    scopes = (cast("Scope", scope),) if scope else SCOPES
    statuses = [
        hook_status(name, s, Path(cwd) if cwd else None)
        for name in ([provider] if provider else PROVIDER_NAMES)
        for s in scopes
    ]
    if as_json:
        emit_json(
            {
                "ok": all(not s.error and not s.problems for s in statuses),
                "hooks": [
                    {
                        "provider": s.provider,
                        "scope": s.scope,
                        "path": str(s.path),
                        "exists": s.exists,
                        "installed": s.installed,
                        "error": s.error or None,
                        "commands": [{"event": e, "command": c} for e, c in s.commands],
                        "expected": [{"event": e, "command": c} for e, c in s.expected],
                        "problems": list(s.problems),
                    }
                    for s in statuses
                ],
            }
        )
        return
    for s in statuses:
        if s.error:
            state = "unreadable"
        elif not s.installed:
            state = "not installed"
        else:
            state = "stale" if s.problems else "installed"
        click.echo(f"{s.provider:<7} {s.scope:<8} {state:<14} {s.path}")
        for line in (s.error,) if s.error else s.problems:
            click.echo(f"        {line}")


__all__ = ["hook_group"]
