"""`ome signals`: list the registered signals, test a prompt against them, compile the packs."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ome.cli.common import cwd_option, data_dir_option, emit_json, handle_errors, json_option

if TYPE_CHECKING:
    from ome.signals import Detection, Registry


def _registry(data_dir: str | None, cwd: str | None) -> Registry:
    from ome.config import resolve_data_dir
    from ome.library import find_project_root
    from ome.registry import load_registry

    root = resolve_data_dir(data_dir)
    project_root = find_project_root(Path(cwd) if cwd else Path.cwd(), root)
    return load_registry(root, project_root)


def _table(rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return "\n".join(
        "  ".join([*(cell.ljust(width) for cell, width in zip(row, widths, strict=False)), row[-1]])
        for row in rows
    )


@click.group("signals")
def signals_group() -> None:
    """Inspect and compile the signal registry (named detectors cards use as engine hints)."""


@signals_group.command("list")
@data_dir_option
@cwd_option
@json_option
@handle_errors
def list_command(data_dir: str | None, cwd: str | None, as_json: bool) -> None:
    """List every registered signal: id, polarity, pack, whether it routes cards, and why."""
    registry = _registry(data_dir, cwd)
    if as_json:
        emit_json(
            {
                "digest": registry.digest,
                "signals": [
                    {
                        "id": s.id,
                        "polarity": s.polarity,
                        "pack": s.pack,
                        "reason": s.reason,
                        "routes": s.routes,
                        "intent": s.intent,
                        "enabled": s.enabled,
                    }
                    for s in registry.signals
                ],
            }
        )
        return
    rows = [("ID", "POLARITY", "PACK", "ROUTES", "REASON")]
    rows += [
        (s.id, s.polarity, s.pack, "yes" if s.routes else "no", s.reason) for s in registry.signals
    ]
    click.echo(_table(rows))


def _detection_json(prompt: str, registry: Registry, detection: Detection) -> dict[str, Any]:
    return {
        "prompt": prompt,
        "digest": registry.digest,
        "fired": list(detection.fired_ids),
        "hits": [
            {
                "id": hit.id,
                "polarity": hit.polarity,
                "weight": hit.weight,
                "start": hit.start,
                "end": hit.end,
                "text": hit.text,
                "routes": hit.routes,
                "intent": hit.intent,
                "spans": [list(span) for span in hit.spans],
            }
            for hit in detection.hits
        ],
        "suppressed": [{"id": s.id, "by": s.by} for s in detection.suppressed],
    }


@signals_group.command("test")
@click.argument("prompt")
@data_dir_option
@cwd_option
@json_option
@handle_errors
def test_command(prompt: str, data_dir: str | None, cwd: str | None, as_json: bool) -> None:
    """Show which signals PROMPT fires, on which text, and which were suppressed by what."""
    from ome.signals import detect_signals, normalize_text

    registry = _registry(data_dir, cwd)
    detection = detect_signals(registry, normalize_text(prompt))
    if as_json:
        emit_json(_detection_json(prompt, registry, detection))
        return
    if not detection.hits and not detection.suppressed:
        click.echo("No signal fired.")
        return
    rows = [("SIGNAL", "POLARITY", "WEIGHT", "SPAN", "TEXT")]
    rows += [
        (h.id, h.polarity, f"{h.weight:.2f}", f"{h.start}-{h.end}", repr(h.text))
        for h in detection.hits
    ]
    click.echo(_table(rows))
    for suppression in detection.suppressed:
        click.echo(f"suppressed: {suppression.id} (by {suppression.by})")


@signals_group.command("build")
@click.option("--check", is_flag=True, help="Only check that the committed registry is current.")
@handle_errors
def build_command(check: bool) -> None:
    """Compile signals/packs and signals/vocabulary into signals/registry.json, and the
    lexicon's concept matcher into signals/matcher.json."""
    from ome.registry import build_bundled_registry

    result = build_bundled_registry(check=check)
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    summary = f"{result.signal_count} signals, {result.concept_count} concepts"
    if check and result.stale:
        raise click.ClickException(
            f"{result.path} or the matcher beside it is stale; run `ome signals build` and"
            " commit the result"
        )
    state = "wrote" if result.written else "up to date:"
    click.echo(f"{state} {result.path} ({summary}, digest {result.digest[:12]})")


__all__ = ["signals_group"]
