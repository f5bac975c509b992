"""The `ome` command line: thin click commands over the library (SPEC §4)."""

from __future__ import annotations

from pathlib import Path

import click

from ome import __version__
from ome.cli.common import (
    cwd_option,
    data_dir_option,
    emit_json,
    handle_errors,
    json_option,
    recall_knobs,
)
from ome.cli.config import config_group
from ome.cli.eval import eval_group
from ome.cli.experience import experience_group
from ome.cli.hook import hook_group
from ome.cli.project import project_group
from ome.cli.signals import signals_group
from ome.cli.stats import stats_command


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, "--version", "-V", prog_name="ome")
def cli() -> None:
    """ome: the right reviewed lesson for a coding agent at the right moment.

    Lessons are Markdown experience cards. On every prompt, a hook matches the prompt against
    the cards, locally and deterministically, and injects a short reminder when one applies.

    Start with `ome match "your task"` to see what the bundled starter cards say.
    """


@cli.command("init")
@data_dir_option
@click.option("--no-starter", is_flag=True, help="Do not search the bundled starter cards.")
@click.option(
    "--provider",
    "providers",
    multiple=True,
    type=click.Choice(["claude", "codex", "gemini", "cursor"]),
    help="Also install the hook for this agent (user scope); repeatable.",
)
@json_option
@handle_errors
def init_command(
    data_dir: str | None, no_starter: bool, providers: tuple[str, ...], as_json: bool
) -> None:
    """Create the data directory, its card folders and a commented config.yaml."""
    from ome.install import install_hook
    from ome.project import init_data_dir

    result = init_data_dir(data_dir, starter=not no_starter)
    hooks = [install_hook(p) for p in providers]
    if as_json:
        emit_json(
            {
                "ok": True,
                "data_dir": str(result.data_dir),
                "created": list(result.created),
                "starter_cards": result.starter_cards,
                "hooks": [
                    {"provider": h.provider, "path": str(h.path), "action": h.action} for h in hooks
                ],
            }
        )
        return
    for hook in hooks:
        click.echo(f"Hook for {hook.provider}: {hook.action} in {hook.path}")
    click.echo(f"Data directory: {result.data_dir}")
    for path in result.created:
        click.echo(f"  created {path}")
    if not result.created:
        click.echo("  already set up; nothing created")
    state = "on" if result.starter_cards else "off"
    click.echo(f'Starter cards: {state}. Try: ome match "force push to the shared branch"')


@cli.command("match")
@click.argument("prompt")
@cwd_option
@data_dir_option
@recall_knobs
@click.option("--explain", is_flag=True, help="Show why each candidate was or was not returned.")
@json_option
@handle_errors
def match_command(
    prompt: str,
    cwd: str | None,
    data_dir: str | None,
    limit: int | None,
    threshold: int | None,
    explain: bool,
    as_json: bool,
) -> None:
    """Run recall on PROMPT exactly as the hook would, and show the result."""
    from ome.api import match_prompt, open_workspace, recall_options, result_json
    from ome.cli.render_match import render_explain, render_matches

    workspace = open_workspace(data_dir, Path(cwd) if cwd else None)
    result = match_prompt(workspace, prompt, recall_options(workspace, limit, threshold))
    if as_json:
        doc = result_json(result, explain)
        doc["invalid_cards"] = [
            {"path": str(i.path), "problems": list(i.problems)} for i in workspace.invalid
        ]
        emit_json(doc)
        return
    click.echo(render_explain(result) if explain else render_matches(result))
    for invalid in workspace.invalid:
        click.echo(f"warning: skipped invalid card {invalid.problems[0]}", err=True)


@cli.command("doctor")
@data_dir_option
@cwd_option
@json_option
@handle_errors
def doctor_command(data_dir: str | None, cwd: str | None, as_json: bool) -> None:
    """Check the data directory, config, libraries, signal registry and installed hooks."""
    from ome.doctor import run_doctor

    checks = run_doctor(data_dir, Path(cwd) if cwd else Path.cwd())
    ok = all(c.status != "error" for c in checks)
    if as_json:
        emit_json(
            {
                "ok": ok,
                "checks": [
                    {
                        "name": c.name,
                        "status": c.status,
                        "message": c.message,
                        "details": list(c.details),
                    }
                    for c in checks
                ],
            }
        )
    else:
        marks = {"ok": "ok  ", "warning": "warn", "error": "FAIL"}
        for c in checks:
            click.echo(f"[{marks[c.status]}] {c.name}: {c.message}")
            for line in c.details:
                click.echo(f"       {line}")
    if not ok:
        raise SystemExit(1)


cli.add_command(experience_group)
cli.add_command(project_group)
cli.add_command(signals_group)
cli.add_command(eval_group)
cli.add_command(config_group)
cli.add_command(hook_group)
cli.add_command(stats_command)

__all__ = ["cli"]
