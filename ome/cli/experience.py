"""`ome experience ...`: list, show and lint cards."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ome.cards import STATUSES, Card
from ome.cli.common import cwd_option, data_dir_option, emit_json, handle_errors, json_option
from ome.config import load_config, resolve_data_dir
from ome.errors import CardNotFoundError
from ome.library import (
    LAYER_ORDER,
    CardFile,
    Library,
    check_card_id,
    find_project_root,
    library_sources,
    load_library,
)

SCOPES = ("bundled", "team", "global", "project")
SECTIONS = ("summary", "rule", "triggers", "ignore", "all")


def scope_option(func: Any) -> Any:
    return click.option(
        "--scope",
        type=click.Choice(SCOPES),
        default=None,
        help="Only this library layer (default: all layers).",
    )(func)


@click.group("experience")
def experience_group() -> None:
    """List, show, lint and curate experience cards."""


def load_all(data_dir: str | None, cwd: str | None) -> Library:
    """Every card of every layer and status, valid or not."""
    root = resolve_data_dir(data_dir)
    config = load_config(root)
    project_root = find_project_root(Path(cwd) if cwd else Path.cwd(), root)
    return load_library(library_sources(config, project_root), STATUSES)


def card_summary_json(cf: CardFile) -> dict[str, Any]:
    c = cf.card
    return {
        "id": c.id,
        "title": c.display_title,
        "status": c.status,
        "category": c.category,
        "layer": cf.layer,
        "path": str(cf.path),
        "policy": c.policy,
        "risk": c.risk,
        "summary": c.summary,
    }


def card_json(cf: CardFile) -> dict[str, Any]:
    c = cf.card
    doc = card_summary_json(cf)
    doc.update(
        {
            "rule": c.rule,
            "use_when": list(c.use_when),
            "ignore_when": list(c.ignore_when),
            "triggers": list(c.recall_triggers),
            "aliases": {lang: list(p) for lang, p in c.aliases},
            "topics": list(c.topics),
            "engine_hints": {
                "positive": list(c.hints_positive),
                "required_all": list(c.hints_required_all),
                "negative": list(c.hints_negative),
            },
            "confidence": c.confidence,
            "scope": {"level": c.scope_level, "project_key": c.project_key},
            "paths": list(c.paths),
            "related": list(c.related),
            "created": c.created,
            "updated": c.updated,
            "last_verified": c.last_verified,
        }
    )
    return doc


@experience_group.command("list")
@click.option("--status", type=click.Choice(STATUSES), default=None, help="Only this status.")
@scope_option
@data_dir_option
@cwd_option
@json_option
@handle_errors
def list_command(
    status: str | None, scope: str | None, data_dir: str | None, cwd: str | None, as_json: bool
) -> None:
    """List cards of every layer; invalid files are listed with their errors."""
    library = load_all(data_dir, cwd)
    cards = [
        cf
        for cf in library.cards
        if (status is None or cf.card.status == status) and (scope is None or cf.layer == scope)
    ]
    cards.sort(key=lambda cf: (LAYER_ORDER.index(cf.layer), cf.card.status, cf.card.id))
    invalid = [i for i in library.invalid if scope is None or i.layer == scope]
    if as_json:
        emit_json(
            {
                "ok": True,
                "cards": [card_summary_json(cf) for cf in cards],
                "invalid_cards": [
                    {"layer": i.layer, "path": str(i.path), "problems": list(i.problems)}
                    for i in invalid
                ],
            }
        )
        return
    if not cards:
        click.echo("No cards. `ome experience new --help` shows how to write one.")
    for cf in cards:
        click.echo(f"{cf.card.id:<40} {cf.layer:<8} {cf.card.status:<8} {cf.card.display_title}")
    for i in invalid:
        click.echo(f"INVALID  {i.path}", err=False)
        for problem in i.problems:
            click.echo(f"  {problem}")


def find_card(library: Library, card_id: str, scope: str | None) -> CardFile:
    """The card with this id (highest-precedence layer first); a clear error when absent."""
    check_card_id(card_id)
    candidates = [
        cf for cf in library.cards if cf.card.id == card_id and (scope is None or cf.layer == scope)
    ]
    if not candidates:
        where = f" in the {scope} library" if scope else ""
        raise CardNotFoundError(
            f"no card '{card_id}'{where}; `ome experience list` shows the ids"
        )
    return max(
        candidates,
        key=lambda cf: (LAYER_ORDER.index(cf.layer), cf.card.status == "active"),
    )


def section_text(card: Card, section: str) -> str:
    bullet = "\n".join
    parts = {
        "summary": card.summary,
        "rule": card.rule,
        "triggers": bullet(f"- {t}" for t in card.recall_triggers),
        "ignore": bullet(f"- {t}" for t in card.ignore_when),
    }
    if section != "all":
        return parts[section]
    return (
        f"# {card.display_title} ({card.id})\n"
        f"status: {card.status}   policy: {card.policy}   risk: {card.risk}\n\n"
        f"Summary:\n{card.summary}\n\nUse when:\n"
        + bullet(f"- {u}" for u in card.use_when)
        + "\n\nIgnore when:\n"
        + parts["ignore"]
        + "\n\nTriggers:\n"
        + parts["triggers"]
        + f"\n\nRule:\n{card.rule}"
    )


@experience_group.command("show")
@click.argument("card_id", metavar="ID")
@click.option(
    "--section", type=click.Choice(SECTIONS), default="all", help="Print only this part."
)
@scope_option
@data_dir_option
@cwd_option
@json_option
@handle_errors
def show_command(
    card_id: str,
    section: str,
    scope: str | None,
    data_dir: str | None,
    cwd: str | None,
    as_json: bool,
) -> None:
    """Print a card, or one section of it (the rule, for an agent that needs it)."""
    cf = find_card(load_all(data_dir, cwd), card_id, scope)
    if as_json:
        doc = card_json(cf)
        if section != "all":
            doc = {"id": cf.card.id, "section": section, "text": section_text(cf.card, section)}
        emit_json({"ok": True, **doc})
        return
    click.echo(section_text(cf.card, section))


@experience_group.command("lint")
@click.argument("paths", nargs=-1, type=click.Path(exists=True))
@data_dir_option
@cwd_option
@json_option
@handle_errors
def lint_command(paths: tuple[str, ...], data_dir: str | None, cwd: str | None, as_json: bool) -> None:
    """Validate card files (default: every library) and report every problem.

    Exits 1 when any card has an error; warnings (unknown signal ids, trigger contract) do not.
    """
    from ome.lint import lint_files
    from ome.registry import load_registry

    root = resolve_data_dir(data_dir)
    project_root = find_project_root(Path(cwd) if cwd else Path.cwd(), root)
    if paths:
        targets = [Path(p) for p in paths]
    else:
        sources = library_sources(load_config(root), project_root)
        targets = [s.root / "experiences" for s in sources if (s.root / "experiences").is_dir()]
    report = lint_files(targets, load_registry(root, project_root))
    if as_json:
        emit_json(
            {
                "ok": not report.errors,
                "files": len(report.files),
                "errors": len(report.errors),
                "warnings": len(report.warnings),
                "findings": [
                    {"path": f.path, "severity": f.severity, "code": f.code, "message": f.message}
                    for f in report.findings
                ],
            }
        )
    else:
        for f in report.findings:
            click.echo(f"{f.severity}: {f.message}" if f.message.startswith(f.path)
                       else f"{f.severity}: {f.path}: {f.message}")
        click.echo(
            f"{len(report.files)} file(s), {len(report.errors)} error(s),"
            f" {len(report.warnings)} warning(s)"
        )
    if report.errors:
        raise SystemExit(1)
