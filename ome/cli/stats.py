"""`ome stats`: recall statistics from the hook's telemetry."""

from __future__ import annotations

from pathlib import Path

import click

from ome.cli.common import cwd_option, data_dir_option, emit_json, handle_errors, json_option


@click.command("stats")
@click.option("--all", "include_all", is_flag=True, help="Every run, any engine or library.")
@data_dir_option
@cwd_option
@json_option
@handle_errors
def stats_command(include_all: bool, data_dir: str | None, cwd: str | None, as_json: bool) -> None:
    """Runs, match rate, per-card counts, never-returned cards and hook durations.

    By default only runs of this engine version against the current library count.
    """
    from ome.telemetry import collect_stats

    stats = collect_stats(data_dir, Path(cwd) if cwd else None, include_all)
    if as_json:
        emit_json({"ok": True, **stats.to_json()})
        return
    scope = "every run" if include_all else f"engine {stats.engine}, library {stats.library}"
    click.echo(f"Runs: {stats.runs} ({scope})")
    if not stats.runs:
        click.echo("No hook runs recorded yet; install a hook with `ome hook install`.")
    else:
        click.echo(f"Matched: {stats.matched_runs} ({stats.match_rate:.1%})")
        click.echo(f"Hook duration: median {stats.median_ms} ms, p95 {stats.p95_ms} ms")
    if stats.card_counts:
        click.echo("Returned cards:")
        for card_id, count in stats.card_counts:
            click.echo(f"  {count:>5}  {card_id}")
    if stats.abstain_reasons:
        reasons = ", ".join(f"{r} {n}" for r, n in stats.abstain_reasons)
        click.echo(f"Abstained: {reasons}")
    if stats.never_returned:
        click.echo(f"Never returned ({len(stats.never_returned)}):")
        for card_id in stats.never_returned:
            click.echo(f"  {card_id}")


__all__ = ["stats_command"]
