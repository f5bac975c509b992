"""`ome experience ...`: list, show and lint cards; write and curate them (ome.authoring)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ome.authoring import DECISIONS, Decision, Scope
from ome.authoring import SCOPES as WRITE_SCOPES
from ome.cards import LEVELS, POLICIES, STATUSES, Card
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

if TYPE_CHECKING:
    from ome.authoring import Moved, NewPlan, NewResult, Target

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
        raise CardNotFoundError(f"no card '{card_id}'{where}; `ome experience list` shows the ids")
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
@click.option("--section", type=click.Choice(SECTIONS), default="all", help="Print only this part.")
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
def lint_command(
    paths: tuple[str, ...], data_dir: str | None, cwd: str | None, as_json: bool
) -> None:
    """Validate card files (default: every library) and report every problem.

    Exits 1 when any card has an error; warnings (unknown signal ids, trigger contract, a
    `related` id naming no card of the libraries) do not.
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
    report = lint_files(targets, load_registry(root, project_root), whole=not paths)
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
            click.echo(
                f"{f.severity}: {f.message}"
                if f.message.startswith(f.path)
                else f"{f.severity}: {f.path}: {f.message}"
            )
        click.echo(
            f"{len(report.files)} file(s), {len(report.errors)} error(s),"
            f" {len(report.warnings)} warning(s)"
        )
    if report.errors:
        raise SystemExit(1)


# --- writing cards: new, edit and lifecycle moves (ome.authoring) ---------------------------

DECISION_HELP = {
    "create": "write the new draft anyway",
    "merge": "add its triggers, topics, aliases and rule to the existing card",
    "skip": "write nothing: the existing card already says it",
    "support": "count one more confirmation on the existing card",
    "contextualize": "write the draft, linked both ways with `related`",
    "contradict": "write the draft and mark the existing card for review",
}


def write_scope_option(default: str | None) -> Callable[[Any], Any]:
    """`--scope global|project`: the library written to."""
    where = (
        f"default: {default}"
        if default
        else "default: the project library, then the global one, wherever the id is"
    )
    return click.option(
        "--scope", type=click.Choice(WRITE_SCOPES), default=default, help=f"Library ({where})."
    )


def _interactive() -> bool:
    return sys.stdin.isatty()


def _editor(text: str) -> str | None:
    return click.edit(text, extension=".md", require_save=True)


def _scope_flag(scope: str) -> str:
    return " --scope project" if scope == "project" else ""


def _duplicate_json(plan_duplicates: Any) -> list[dict[str, Any]]:
    return [
        {
            "id": d.existing.card.id,
            "title": d.existing.card.display_title,
            "layer": d.existing.layer,
            "status": d.existing.card.status,
            "path": str(d.existing.path),
            "similarity": d.similarity.score,
            "anchor_overlap": d.similarity.anchors,
            "summary_jaccard": d.similarity.summary,
            "shared_terms": list(d.similarity.shared),
        }
        for d in plan_duplicates
    ]


def _show_duplicates(plan: NewPlan) -> None:
    click.echo("Similar cards already exist:", err=True)
    for d in plan.duplicates:
        shared = ", ".join(d.similarity.shared[:8])
        click.echo(
            f"  {d.existing.card.id}  ({d.existing.layer}, {d.existing.card.status})"
            f"  similarity {d.similarity.score:.2f}" + (f"  shares: {shared}" if shared else ""),
            err=True,
        )
        click.echo(f"    {d.existing.card.display_title}", err=True)


def _choose_decision(plan: NewPlan, on_duplicate: Decision | None) -> Decision:
    """--on-duplicate, else a question on a terminal, else create (nearest cards on stderr)."""
    if not plan.duplicates:
        return "create"
    if on_duplicate:
        return on_duplicate
    _show_duplicates(plan)
    if _interactive():
        for name in DECISIONS:
            click.echo(f"  {name:<14}{DECISION_HELP[name]}", err=True)
        choice: Decision = click.prompt(
            f"What should happen (the existing card is {plan.duplicates[0].existing.card.id})?",
            type=click.Choice(DECISIONS),
            default="create",
            err=True,
        )
        return choice
    click.echo(
        "note: created anyway; pass --on-duplicate merge|skip|support|contextualize|contradict"
        " to decide otherwise",
        err=True,
    )
    return "create"


def _plan_in_editor(target: Target) -> NewPlan | None:
    from ome.authoring import NEW_CARD_TEMPLATE, edit_until_valid, plan_new_from_text

    outcome = edit_until_valid(
        NEW_CARD_TEMPLATE, lambda text: plan_new_from_text(text, target), _editor
    )
    if outcome.value is None:
        click.echo(f"Nothing created: {outcome.reason}.")
        return None
    plan: NewPlan = outcome.value
    return plan


def _emit_new(result: NewResult, as_json: bool) -> None:
    if as_json:
        doc: dict[str, Any] = {"ok": True}
        if result.card is not None:
            doc.update(card_json(result.card))
        doc.update(
            {
                "decision": result.decision,
                "new_card": result.created,
                "changed": [str(p) for p in result.changed],
                "duplicates": _duplicate_json(result.duplicates),
                "warnings": list(result.warnings),
            }
        )
        emit_json(doc)
    else:
        card = result.card
        assert card is not None
        if result.created:
            click.echo(f"Created draft {card.card.id}: {card.path}")
        elif result.decision == "merge":
            click.echo(f"Merged into {card.card.id}: {card.path} (review the merged rule)")
        elif result.decision == "support":
            click.echo(f"Recorded one more confirmation on {card.card.id}: {card.path}")
        else:
            click.echo(f"Skipped: nothing written; the lesson is in {card.card.id} ({card.path})")
        for path in result.changed:
            if path != card.path:
                click.echo(f"  updated {path}")
        if result.created:
            flag = _scope_flag(card.layer)
            click.echo(
                f"Check it with `ome experience lint`, then `ome experience enable"
                f" {card.card.id}{flag}`."
            )
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)


@experience_group.command("new")
@click.option("--title", default=None, help="Short title; the id is made from it (中文 -> pinyin).")
@click.option("--summary", default=None, help="One or two sentences: the lesson, said as a fact.")
@click.option("--rule", default=None, help="The full rule, read on demand by the agent.")
@click.option("--trigger", "triggers", multiple=True, help="Phrase that recalls the card (repeat).")
@click.option("--ignore", "ignore_when", multiple=True, help="Phrase ruling the card out (repeat).")
@click.option("--use-when", "use_when", multiple=True, help="Situation it applies to (repeat).")
@click.option("--topic", "topics", multiple=True, help="Short topic word (repeat).")
@click.option(
    "--alias",
    "aliases",
    multiple=True,
    metavar="LANG=PHRASE",
    help="Phrase in another language, e.g. zh-CN=浏览器验收 (repeat).",
)
@click.option(
    "--policy",
    type=click.Choice(POLICIES),
    default="should",
    show_default=True,
    help="must: ranked first among matches; summary: shorter reminder; off: never recalled.",
)
@click.option(
    "--risk",
    type=click.Choice(LEVELS),
    default="medium",
    show_default=True,
    help="What ignoring the lesson costs.",
)
@write_scope_option("global")
@click.option("--id", "card_id", default=None, help="Use this id, not one made from the title.")
@click.option(
    "--from",
    "from_id",
    default=None,
    metavar="ID",
    help="Start from a copy of this card (a bundled starter card, say); keeps its id.",
)
@click.option(
    "--on-duplicate",
    type=click.Choice(DECISIONS),
    default=None,
    help="What to do when a similar card exists (default: ask on a terminal, else create).",
)
@data_dir_option
@cwd_option
@json_option
@handle_errors
def new_command(
    title: str | None,
    summary: str | None,
    rule: str | None,
    triggers: tuple[str, ...],
    ignore_when: tuple[str, ...],
    use_when: tuple[str, ...],
    topics: tuple[str, ...],
    aliases: tuple[str, ...],
    policy: str,
    risk: str,
    scope: Scope,
    card_id: str | None,
    from_id: str | None,
    on_duplicate: Decision | None,
    data_dir: str | None,
    cwd: str | None,
    as_json: bool,
) -> None:
    """Write a new draft card, from options or, with none on a terminal, in $EDITOR.

    The draft goes to experiences/draft/ of the chosen library; `ome experience enable ID`
    makes it active. Similar existing cards are shown first, with what to do about them.
    """
    from ome import authoring

    target = authoring.resolve_target(data_dir, cwd, scope)
    fields = (title, summary, rule, triggers, ignore_when, use_when, topics, aliases)
    if from_id:
        if any(fields):
            raise click.UsageError(
                "--from copies a card as it is; change the copy afterwards with"
                " `ome experience edit`"
            )
        plan = authoring.copy_plan(from_id, target, card_id or "")
    elif not any(fields) and _interactive():
        found = _plan_in_editor(target)
        if found is None:
            return
        plan = found
    else:
        missing = [
            f"--{n}" for n, v in (("title", title), ("summary", summary), ("rule", rule)) if not v
        ]
        if missing:
            raise click.UsageError(
                f"missing {', '.join(missing)} (or run `ome experience new` with no options on a"
                " terminal to write the card in $EDITOR)"
            )
        spec = authoring.CardSpec(
            title=title or "",
            summary=summary or "",
            rule=rule or "",
            triggers=triggers,
            ignore_when=ignore_when,
            use_when=use_when,
            topics=topics,
            aliases=authoring.group_aliases(authoring.parse_alias(a) for a in aliases),
            policy=policy,
            risk=risk,
            card_id=card_id or "",
        )
        plan = authoring.plan_new(spec, target)
    decision = _choose_decision(plan, on_duplicate)
    _emit_new(authoring.apply_new(plan, decision), as_json)


def _emit_moved(moved: Moved, as_json: bool) -> None:
    if as_json:
        emit_json(
            {
                "ok": True,
                "id": moved.card_id,
                "action": moved.action,
                "from_status": moved.from_status,
                "status": moved.status,
                "path": str(moved.path),
                "warnings": list(moved.warnings),
            }
        )
    else:
        verbs = {
            "enable": "Enabled",
            "archive": "Archived",
            "restore": "Restored",
            "delete": "Deleted",
            "verify": "Marked as verified today:",
        }
        click.echo(f"{verbs[moved.action]} {moved.card_id}: {moved.path}")
    for warning in moved.warnings:
        click.echo(f"warning: {warning}", err=True)


@experience_group.command("edit")
@click.argument("card_id", metavar="ID")
@write_scope_option(None)
@data_dir_option
@cwd_option
@json_option
@handle_errors
def edit_command(
    card_id: str, scope: Scope | None, data_dir: str | None, cwd: str | None, as_json: bool
) -> None:
    """Open a card in $EDITOR; it is validated on save and re-opened with the errors if bad.

    Comments and key order are kept; `updated` is set. Saving an empty file gives up.
    """
    from ome.authoring import edit_card, locate_card

    located = locate_card(data_dir, cwd, card_id, scope)
    result = edit_card(located, _editor)
    if as_json:
        emit_json(
            {
                "ok": True,
                "id": card_id,
                "path": str(located.path),
                "changed": result.changed,
                "reason": result.reason,
                "warnings": list(result.warnings),
            }
        )
    elif result.changed:
        click.echo(f"Saved {located.path}")
    else:
        click.echo(f"Not saved ({result.reason}); {located.path} is unchanged.")
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)


def lifecycle_options(func: Any) -> Any:
    """ID, --scope, --data-dir, --cwd and --json, shared by the lifecycle commands."""
    for option in (
        handle_errors,
        json_option,
        cwd_option,
        data_dir_option,
        write_scope_option(None),
        click.argument("card_id", metavar="ID"),
    ):
        func = option(func)
    return func


@experience_group.command("enable")
@lifecycle_options
def enable_command(
    card_id: str, scope: Scope | None, data_dir: str | None, cwd: str | None, as_json: bool
) -> None:
    """Move a draft to active/ after lint; a card with errors (secrets included) is refused."""
    from ome.authoring import enable_card, locate_card

    _emit_moved(enable_card(locate_card(data_dir, cwd, card_id, scope)), as_json)


@experience_group.command("archive")
@lifecycle_options
@click.option("--reason", default="", help="Why the card is retired (kept as archived_reason).")
def archive_command(
    card_id: str,
    scope: Scope | None,
    data_dir: str | None,
    cwd: str | None,
    as_json: bool,
    reason: str,
) -> None:
    """Move an active or draft card to archived/; it is no longer recalled."""
    from ome.authoring import archive_card, locate_card

    _emit_moved(archive_card(locate_card(data_dir, cwd, card_id, scope), reason), as_json)


@experience_group.command("restore")
@lifecycle_options
def restore_command(
    card_id: str, scope: Scope | None, data_dir: str | None, cwd: str | None, as_json: bool
) -> None:
    """Move an archived card back to active/ after lint."""
    from ome.authoring import locate_card, restore_card

    _emit_moved(restore_card(locate_card(data_dir, cwd, card_id, scope)), as_json)


@experience_group.command("delete")
@lifecycle_options
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
def delete_command(
    card_id: str,
    scope: Scope | None,
    data_dir: str | None,
    cwd: str | None,
    as_json: bool,
    yes: bool,
) -> None:
    """Delete a card file from your library (asks first unless --yes)."""
    from ome.authoring import delete_card, locate_card

    located = locate_card(data_dir, cwd, card_id, scope)
    if not yes:
        if not _interactive():
            raise click.UsageError(
                f"refusing to delete {located.path} without confirmation; pass --yes"
            )
        click.confirm(f"Delete {located.path}?", abort=True, err=True)
    _emit_moved(delete_card(located), as_json)


@experience_group.command("verify")
@lifecycle_options
def verify_command(
    card_id: str, scope: Scope | None, data_dir: str | None, cwd: str | None, as_json: bool
) -> None:
    """Record that a person re-checked the lesson today (sets last_verified)."""
    from ome.authoring import locate_card, verify_card

    _emit_moved(verify_card(locate_card(data_dir, cwd, card_id, scope)), as_json)
