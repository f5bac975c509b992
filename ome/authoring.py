"""Writing cards: new drafts with near-duplicate decisions, edits, and lifecycle moves (SPEC §2-§4).

When ome rewrites an existing card it round-trips the front matter through ruamel.yaml, so
comments, key order and keys it does not know survive. Every write is atomic, stays inside the
library it targets, and is validated before it happens. Bundled and team cards are read-only.
"""

from __future__ import annotations

import io
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ome.analysis import is_han
from ome.cards import (
    LEVELS,
    POLICIES,
    RULE_HEADINGS,
    STATUSES,
    Card,
    Status,
    card_front_matter,
    parse_card_text,
    render_body,
    split_front_matter,
)
from ome.config import load_config, resolve_data_dir
from ome.errors import CardError, CardNotFoundError, ConfigError, OmeError
from ome.library import (
    CardFile,
    Layer,
    atomic_write_text,
    card_files,
    card_path,
    check_card_id,
    ensure_inside,
    find_project_root,
    library_sources,
    load_library,
    project_library_dir,
)
from ome.similarity import Similarity, nearest_cards

if TYPE_CHECKING:
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap

    from ome.signals import Registry

Scope = Literal["global", "project"]
Decision = Literal["create", "merge", "skip", "support", "contextualize", "contradict"]
SCOPES: tuple[Scope, ...] = ("global", "project")
DECISIONS: tuple[Decision, ...] = (
    "create",
    "merge",
    "skip",
    "support",
    "contextualize",
    "contradict",
)
WRITABLE_LAYERS: tuple[Layer, ...] = ("global", "project")
# Slugs stay readable in a terminal and a file browser; pinyin of a long title gets long fast.
MAX_SLUG_CHARS = 60
MERGE_NOTE = "(merged, review)"
ERROR_PREFIX = "# ome: "
_FENCE_LINE_RE = re.compile(r"^\s*(`{3,}|~{3,})")
_HEADING_RE = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$")
_LANG_RE = re.compile(r"^[A-Za-z]{2,8}(?:[-_][A-Za-z0-9]{1,8})*$")

NEW_CARD_TEMPLATE = """\
---
schema: ome-card
# The id is made from the title (Chinese titles become pinyin); add `id: my-id` to choose it.
title: ""
summary: ""  # one or two sentences: the lesson, said as a fact
criteria:
  use_when: []     # situations where the card applies, in plain words
  ignore_when: []  # phrases that rule the card out when the prompt contains them
recall:
  policy: should   # must | should | summary | off
  risk: medium     # low | medium | high
  triggers: []     # short phrases a prompt would contain when the card applies
  topics: []
scope:
  level: global
---

# Title

## Problem

What went wrong, and when it matters.

## Full Rule

```text
```
"""


class ReadOnlyCardError(OmeError):
    """A bundled or team card: ome never writes to those libraries."""

    code = "read_only_card"


@dataclass(frozen=True, slots=True)
class Target:
    """The library a command writes to, and what is needed to read the others."""

    scope: Scope
    root: Path
    data_dir: Path
    project_root: Path | None


@dataclass(frozen=True, slots=True)
class CardSpec:
    """A new card as its author gives it (flags or the fields of an edited template)."""

    title: str
    summary: str
    rule: str
    triggers: tuple[str, ...] = ()
    ignore_when: tuple[str, ...] = ()
    use_when: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()
    aliases: tuple[tuple[str, tuple[str, ...]], ...] = ()
    policy: str = "should"
    risk: str = "medium"
    card_id: str = ""


@dataclass(frozen=True, slots=True)
class Duplicate:
    """An existing card close to the new one."""

    existing: CardFile
    similarity: Similarity

    @property
    def writable(self) -> bool:
        return self.existing.layer in WRITABLE_LAYERS


@dataclass(frozen=True, slots=True)
class NewPlan:
    """A validated new draft, not yet written, with the cards it may duplicate."""

    target: Target
    card: Card
    path: Path
    text: str
    duplicates: tuple[Duplicate, ...]
    warnings: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class NewResult:
    """What `new` did: the card that now holds the lesson, and every file it changed."""

    decision: Decision
    created: bool
    card: CardFile | None
    changed: tuple[Path, ...]
    duplicates: tuple[Duplicate, ...]
    warnings: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Located:
    """A card file in a writable library, found by id without parsing it (it may be broken)."""

    target: Target
    card_id: str
    status: Status
    path: Path


@dataclass(frozen=True, slots=True)
class Moved:
    """The outcome of a lifecycle command."""

    card_id: str
    action: str
    from_status: Status
    status: Status | None
    path: Path
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class EditResult:
    """`changed` is False when nothing was saved; `reason` then says why."""

    located: Located
    changed: bool
    reason: str
    warnings: tuple[str, ...] = ()


# --- targets and lookup ---------------------------------------------------------------------


def resolve_target(
    data_dir: str | Path | None, cwd: str | Path | None, scope: Scope = "global"
) -> Target:
    """The global data dir, or the project library found from `cwd` (SPEC §3)."""
    root = resolve_data_dir(data_dir)
    start = Path(cwd) if cwd else Path.cwd()
    project_root = find_project_root(start, root)
    if scope == "project":
        if project_root is None:
            raise ConfigError(
                f"no project found from {start}: run inside a git repository or a folder with a"
                " manifest, or run `ome project init` there"
            )
        return Target("project", project_library_dir(project_root), root, project_root)
    if scope != "global":
        raise ConfigError(f"unknown scope '{scope}'; use global or project")
    return Target("global", root, root, project_root)


def _registry(target: Target) -> Registry:
    from ome.registry import load_registry

    return load_registry(target.data_dir, target.project_root)


def _stopwords(registry: Registry) -> frozenset[str]:
    return registry.vocabulary.stopwords


def _existing_paths(root: Path, card_id: str) -> list[tuple[Status, Path]]:
    found = []
    for status in STATUSES:
        path = card_path(root, card_id, status)
        if path.is_file() or path.is_symlink():
            found.append((status, path))
    return found


def _read_only_layer(target: Target, card_id: str) -> Layer | None:
    """The bundled or team layer holding this id, if any."""
    sources = library_sources(load_config(target.data_dir), target.project_root)
    for source in sources:
        if source.layer in WRITABLE_LAYERS:
            continue
        if any(path.stem == card_id for path, _ in card_files(source, STATUSES)):
            return source.layer
    return None


def locate_card(
    data_dir: str | Path | None, cwd: str | Path | None, card_id: str, scope: Scope | None = None
) -> Located:
    """The file of a card in the project or global library; `scope` None searches both."""
    check_card_id(card_id)
    scopes: Sequence[Scope] = (scope,) if scope else ("project", "global")
    targets: list[Target] = []
    for s in scopes:
        try:
            targets.append(resolve_target(data_dir, cwd, s))
        except ConfigError:
            if scope:
                raise
    found = [(t, st, p) for t in targets for st, p in _existing_paths(t.root, card_id)]
    if len(found) == 1:
        target, status, path = found[0]
        ensure_inside(path, target.root)
        return Located(target, card_id, status, path)
    if found:
        if len({t.scope for t, _, _ in found}) > 1:
            raise OmeError(
                f"'{card_id}' is in both the project and the global library; pass --scope"
                " project or --scope global"
            )
        folders = ", ".join(f"{st}/" for _, st, _ in found)
        raise CardError(
            f"'{card_id}' is in more than one folder ({folders}) of {found[0][0].root};"
            " delete the stale copy"
        )
    layer = _read_only_layer(targets[-1], card_id)
    if layer is not None:
        raise ReadOnlyCardError(
            f"'{card_id}' is a {layer} card and read-only; copy it into your library first:"
            f" `ome experience new --from {card_id}`"
        )
    where = f" in the {scope} library" if scope else ""
    raise CardNotFoundError(f"no card '{card_id}'{where}; `ome experience list` shows the ids")


# --- ids --------------------------------------------------------------------------------------


def slugify(title: str) -> str:
    """A card id from a title: ASCII words joined by '-'; Han characters become pinyin."""
    text = unicodedata.normalize("NFKC", title)
    if any(is_han(c) for c in text):
        from pypinyin import lazy_pinyin  # deferred: 0.3 s to import, needed only here

        text = " ".join(lazy_pinyin(text))
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    slug = re.sub(r"[^a-z0-9]+", "-", text).strip("-")
    if len(slug) > MAX_SLUG_CHARS:
        cut = slug[:MAX_SLUG_CHARS]
        slug = cut.rsplit("-", 1)[0] if "-" in cut else cut
    return slug or "card"


def unique_id(root: Path, base: str) -> str:
    """`base`, else `base-2`, `base-3`, ...: the first id no status folder of `root` holds."""
    check_card_id(base)
    candidate, n = base, 1
    while _existing_paths(root, candidate):
        n += 1
        candidate = f"{base}-{n}"
    return candidate


def parse_alias(text: str) -> tuple[str, str]:
    """`zh-CN=浏览器验收` -> ("zh-CN", "浏览器验收")."""
    lang, sep, phrase = text.partition("=")
    if not sep or not _LANG_RE.match(lang.strip()) or not phrase.strip():
        raise CardError(f"alias {text!r} must be LANG=PHRASE, for example zh-CN=浏览器验收")
    return lang.strip(), phrase.strip()


def group_aliases(pairs: Iterable[tuple[str, str]]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    grouped: dict[str, dict[str, None]] = {}
    for lang, phrase in pairs:
        grouped.setdefault(lang, {})[phrase] = None
    return tuple((lang, tuple(grouped[lang])) for lang in sorted(grouped))


# --- ruamel round trip ------------------------------------------------------------------------


def _yaml() -> YAML:
    from ruamel.yaml import YAML  # deferred: kept off the hook's import path

    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.width = 4096
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


def load_front(text: str, source: str) -> tuple[CommentedMap, str]:
    """The round-trip front matter (comments kept) and the body text, untouched."""
    from ruamel.yaml.comments import CommentedMap

    try:
        front_text, body, _ = split_front_matter(text)
    except CardError as exc:
        raise CardError(f"{source}:1: {exc}") from None
    try:
        front = _yaml().load(front_text)
    except Exception as exc:  # ruamel raises many unrelated types
        raise CardError(
            f"{source}: the front matter cannot be read for rewriting ({exc})"
        ) from None
    if not isinstance(front, CommentedMap):
        raise CardError(f"{source}:2: the front matter must be a mapping of keys to values")
    return front, body


def dump_card(front: CommentedMap, body: str) -> str:
    out = io.StringIO()
    _yaml().dump(front, out)
    return f"---\n{out.getvalue()}---\n{body}"


def set_key(front: CommentedMap, key: str, value: Any, after: Sequence[str] = ()) -> None:
    """Set `key`, in place when present, else right after the first present key of `after`."""
    if key in front:
        front[key] = value
        return
    keys = list(front.keys())
    for anchor in after:
        if anchor in front:
            front.insert(keys.index(anchor) + 1, key, value)
            return
    front[key] = value


def touch(front: CommentedMap, today: date) -> None:
    """`updated` is written on every change (SPEC §2)."""
    set_key(front, "updated", _fresh(today), after=("created",))


def _child_map(front: CommentedMap, key: str) -> CommentedMap:
    from ruamel.yaml.comments import CommentedMap

    child = front.get(key)
    if not isinstance(child, CommentedMap):
        child = CommentedMap()
        front[key] = child
    return child


def _append_unique(seq: Any, items: Iterable[str]) -> None:
    present = {str(x) for x in seq}
    for item in items:
        if item not in present:
            seq.append(item)
            present.add(item)


def _set_list(mapping: CommentedMap, key: str, items: Iterable[str]) -> None:
    """Append `items` to the list at `key` (kept in place, style kept), creating it if absent."""
    from ruamel.yaml.comments import CommentedSeq

    current = mapping.get(key)
    if isinstance(current, str):
        current = CommentedSeq([current])
        mapping[key] = current
    if not isinstance(current, list):
        current = CommentedSeq()
        mapping[key] = current
    _append_unique(current, items)


def rewrite_text(
    text: str,
    source: str,
    card_id: str,
    change: Callable[[CommentedMap], None],
    body_change: Callable[[str], str] | None = None,
) -> tuple[str, Card]:
    """Apply `change` to the round-trip front matter; return the new text and its parsed card."""
    front, body = load_front(text, source)
    change(front)
    if body_change is not None:
        body = body_change(body)
    new_text = dump_card(front, body)
    return new_text, parse_card_text(new_text, source, expected_id=card_id)


def _check_rule(rule: str) -> None:
    if any(_FENCE_LINE_RE.match(line) for line in rule.splitlines()):
        raise CardError(
            "the rule contains a ``` or ~~~ line, which would end the rule block early; indent"
            " code inside the rule by four spaces instead"
        )


def append_rule(body: str, addition: str) -> str:
    """Append text at the end of the rule block under `## Full Rule` / `## 完整规则`."""
    lines = body.split("\n")
    start = _rule_heading(body)
    if start is None:
        raise CardError("the card has no '## Full Rule' section to merge the new rule into")
    end = next(
        (
            i
            for i in range(start + 1, len(lines))
            if _HEADING_RE.match(lines[i]) and not lines[i].startswith("###")
        ),
        len(lines),
    )
    for i in range(start + 1, end):
        m = _FENCE_LINE_RE.match(lines[i])
        if m:
            fence = m.group(1)
            close = next(
                (
                    j
                    for j in range(i + 1, end)
                    if lines[j].strip().startswith(fence) and not lines[j].strip().strip(fence[0])
                ),
                None,
            )
            if close is None:
                raise CardError("the rule block under '## Full Rule' is not closed")
            return "\n".join([*lines[:close], "", *addition.split("\n"), *lines[close:]])
    last = end
    while last > start + 1 and not lines[last - 1].strip():
        last -= 1
    return "\n".join([*lines[:last], "", *addition.split("\n"), *lines[last:]])


# --- new ------------------------------------------------------------------------------------


def _today(today: date | None) -> date:
    return today or date.today()


def _fresh(day: date) -> date:
    """A new date object each time: ruamel writes one object used twice as a YAML alias."""
    return date.fromordinal(day.toordinal())


def _card_text(card: Card, today: date) -> str:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    def convert(value: Any) -> Any:
        if isinstance(value, dict):
            return CommentedMap((k, convert(v)) for k, v in value.items())
        if isinstance(value, list):
            return CommentedSeq(convert(v) for v in value)
        return value

    front = convert(card_front_matter(card))
    for key in ("created", "updated"):
        if key in front:
            front[key] = _fresh(today)
    return dump_card(front, "\n" + render_body(card))


def _card_warnings(card: Card, path: Path, registry: Registry) -> tuple[str, ...]:
    from ome.lint import card_warnings

    found = [f.message for f in card_warnings(card, str(path), registry)]
    if not card.recall_triggers and not card.alias_phrases:
        found.append(
            "the card has no --trigger or --use-when; only its title and summary can recall it"
        )
    return tuple(found)


def _duplicates(card: Card, target: Target, registry: Registry) -> tuple[Duplicate, ...]:
    """Draft and active cards of every layer close to `card` (archived lessons are retired)."""
    sources = library_sources(load_config(target.data_dir), target.project_root)
    library = load_library(sources, ("draft", "active"))
    keyed = {f"{cf.layer}:{cf.card.status}:{cf.card.id}": cf for cf in library.cards}
    near = nearest_cards(card, ((k, cf.card) for k, cf in keyed.items()), _stopwords(registry))
    return tuple(Duplicate(keyed[key], sim) for key, sim in near)


def _plan(card: Card, target: Target, today: date, text: str | None = None) -> NewPlan:
    path = card_path(target.root, card.id, "draft")
    final = text if text is not None else _card_text(card, today)
    parsed = parse_card_text(final, str(path), expected_id=card.id)
    registry = _registry(target)
    return NewPlan(
        target=target,
        card=parsed,
        path=path,
        text=final,
        duplicates=_duplicates(parsed, target, registry),
        warnings=_card_warnings(parsed, path, registry),
    )


def _new_id(target: Target, requested: str, title: str) -> str:
    if requested:
        check_card_id(requested)
        existing = _existing_paths(target.root, requested)
        if existing:
            raise CardError(
                f"a card '{requested}' already exists in {existing[0][1]}; choose another --id"
            )
        return requested
    return unique_id(target.root, slugify(title))


def plan_new(spec: CardSpec, target: Target, today: date | None = None) -> NewPlan:
    """Build and validate a draft from flags, and find the existing cards it may duplicate."""
    day = _today(today)
    if not spec.title.strip():
        raise CardError("a new card needs a --title (its id is made from it)")
    for name, value in (("summary", spec.summary), ("rule", spec.rule)):
        if not value.strip():
            raise CardError(f"a new card needs a --{name}")
    if spec.policy not in POLICIES:
        raise CardError(f"policy '{spec.policy}' is unknown; use one of: {', '.join(POLICIES)}")
    if spec.risk not in LEVELS:
        raise CardError(f"risk '{spec.risk}' is unknown; use one of: {', '.join(LEVELS)}")
    _check_rule(spec.rule)
    card = Card(
        id=_new_id(target, spec.card_id, spec.title),
        summary=spec.summary.strip(),
        rule=spec.rule.strip(),
        status="draft",
        title=spec.title.strip(),
        use_when=_clean(spec.use_when),
        ignore_when=_clean(spec.ignore_when),
        policy=spec.policy,
        risk=spec.risk,
        triggers=_clean(spec.triggers),
        aliases=tuple((lang, _clean(p)) for lang, p in spec.aliases if _clean(p)),
        topics=_clean(spec.topics),
        scope_level="project" if target.scope == "project" else "global",
        created=day.isoformat(),
        updated=day.isoformat(),
    )
    return _plan(card, target, day)


def _clean(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(s.strip() for s in items if s.strip()))


def plan_new_from_text(text: str, target: Target, today: date | None = None) -> NewPlan:
    """A draft from an edited template: fill in id, status and dates, then validate."""
    day = _today(today)
    front, _ = load_front(text, "<new card>")
    title = str(front.get("title") or "").strip()
    requested = str(front.get("id") or "").strip()
    if not title and not requested:
        raise CardError("<new card>: give the card a `title:` (its id is made from it)")
    card_id = _new_id(target, requested, title)

    def fill(f: CommentedMap) -> None:
        set_key(f, "id", card_id, after=("schema",))
        set_key(f, "status", "draft", after=("id",))
        for key in ("created", "updated"):
            f.pop(key, None)
        f["created"] = _fresh(day)
        f["updated"] = _fresh(day)

    def heading(body: str) -> str:
        return body.replace("\n# Title\n", f"\n# {title}\n", 1) if title else body

    path = card_path(target.root, card_id, "draft")
    final, card = rewrite_text(text, str(path), card_id, fill, heading)
    _check_rule(card.rule)
    return _plan(card, target, day, final)


def copy_plan(
    source_id: str,
    target: Target,
    card_id: str = "",
    today: date | None = None,
) -> NewPlan:
    """A draft copy of any visible card (a bundled starter card, say) in the target library.

    The copy keeps the source id unless another is given, so once enabled it takes the
    starter card's place.
    """
    day = _today(today)
    check_card_id(source_id)
    sources = library_sources(load_config(target.data_dir), target.project_root)
    library = load_library(sources, STATUSES)
    found = library.find(source_id)
    if found is None:
        raise CardNotFoundError(f"no card '{source_id}' to copy; `ome experience list` shows ids")
    new_id = _new_id(target, card_id or source_id, found.card.title)

    def reset(front: CommentedMap) -> None:
        set_key(front, "id", new_id, after=("schema",))
        set_key(front, "status", "draft", after=("id",))
        for key in ("created", "updated", "last_verified", "support", "review", "archived_reason"):
            front.pop(key, None)
        front["created"] = _fresh(day)
        front["updated"] = _fresh(day)

    path = card_path(target.root, new_id, "draft")
    text = found.path.read_text(encoding="utf-8")
    final, card = rewrite_text(text, str(path), new_id, reset)
    registry = _registry(target)
    return NewPlan(target, card, path, final, (), _card_warnings(card, path, registry))


def _write_draft(plan: NewPlan, card: Card, text: str) -> CardFile:
    if _existing_paths(plan.target.root, card.id):
        raise CardError(f"a card '{card.id}' was created meanwhile; run the command again")
    atomic_write_text(plan.path, text, plan.target.root)
    return CardFile(card, plan.target.scope, plan.path)


def _rewrite_existing(
    existing: CardFile,
    change: Callable[[CommentedMap], None],
    body_change: Callable[[str], str] | None = None,
) -> CardFile:
    """Round-trip rewrite of a card of a writable layer, in place."""
    if existing.layer not in WRITABLE_LAYERS:
        raise ReadOnlyCardError(
            f"'{existing.card.id}' is a {existing.layer} card and read-only; choose create (your"
            " card is preferred over it at recall) or skip"
        )
    root = existing.path.parent.parent.parent
    ensure_inside(existing.path, root)
    text = existing.path.read_text(encoding="utf-8")
    new_text, card = rewrite_text(text, str(existing.path), existing.card.id, change, body_change)
    atomic_write_text(existing.path, new_text, root)
    return CardFile(card, existing.layer, existing.path)


def _writable_duplicate(plan: NewPlan, decision: Decision) -> Duplicate:
    for dup in plan.duplicates:
        if dup.writable:
            return dup
    nearest = plan.duplicates[0].existing
    raise ReadOnlyCardError(
        f"cannot {decision}: the similar card '{nearest.card.id}' is a {nearest.layer} card and"
        " read-only; choose create (your card is preferred over it at recall) or skip"
    )


def apply_new(plan: NewPlan, decision: Decision, today: date | None = None) -> NewResult:
    """Carry out the author's decision about a planned draft (create when nothing is similar)."""
    day = _today(today)
    if decision not in DECISIONS:
        raise CardError(f"unknown decision '{decision}'; use one of: {', '.join(DECISIONS)}")
    if not plan.duplicates:
        decision = "create"

    def result(created: bool, card: CardFile | None, changed: Iterable[Path]) -> NewResult:
        return NewResult(decision, created, card, tuple(changed), plan.duplicates, plan.warnings)

    if decision == "create":
        return result(True, _write_draft(plan, plan.card, plan.text), ())
    if decision == "skip":
        return result(False, plan.duplicates[0].existing, ())
    if decision == "contextualize":
        dup = plan.duplicates[0]
        text, card = rewrite_text(
            plan.text, str(plan.path), plan.card.id, _linker(dup.existing.card.id, day)
        )
        created = _write_draft(plan, card, text)
        changed = []
        if dup.writable:
            _rewrite_existing(dup.existing, _linker(plan.card.id, day))
            changed.append(dup.existing.path)
        return result(True, created, changed)
    dup = _writable_duplicate(plan, decision)
    if decision == "contradict":
        created = _write_draft(plan, plan.card, plan.text)

        def review(f: CommentedMap) -> None:
            from ruamel.yaml.comments import CommentedMap

            f["review"] = CommentedMap(
                [("reason", f"contradicted by {plan.card.id}"), ("since", _fresh(day))]
            )
            touch(f, day)

        _rewrite_existing(dup.existing, review)
        return result(True, created, (dup.existing.path,))
    if decision == "support":

        def support(f: CommentedMap) -> None:
            from ruamel.yaml.comments import CommentedMap

            current = f.get("support")
            if not isinstance(current, CommentedMap):
                current = CommentedMap()
                f["support"] = current
            count = current.get("count")
            valid = isinstance(count, int) and not isinstance(count, bool) and count >= 0
            current["count"] = (count if valid else 0) + 1
            current["last"] = _fresh(day)
            touch(f, day)

        updated = _rewrite_existing(dup.existing, support)
        return result(False, updated, (dup.existing.path,))
    # merge
    new = plan.card

    def merge(f: CommentedMap) -> None:
        old = dup.existing.card
        recall = _child_map(f, "recall")
        if new.triggers:
            if not old.triggers and old.use_when:
                _set_list(recall, "triggers", old.use_when)
            _set_list(recall, "triggers", new.triggers)
        if new.topics:
            _set_list(recall, "topics", new.topics)
        if new.aliases:
            aliases = recall.get("aliases")
            if isinstance(aliases, list):
                _append_unique(aliases, new.alias_phrases)
            else:
                aliases = _child_map(recall, "aliases")
                for lang, phrases in new.aliases:
                    _set_list(aliases, lang, phrases)
        if new.use_when:
            _set_list(_child_map(f, "criteria"), "use_when", new.use_when)
        if in_front and isinstance(f.get("rule"), str):
            f["rule"] = f"{f['rule'].rstrip()}\n\n{addition}"
        touch(f, day)

    def body(text: str) -> str:
        return text if in_front else append_rule(text, addition)

    addition = f"{MERGE_NOTE}\n{new.rule}"
    # Suite-style cards keep the rule in the front matter; Markdown cards under `## Full Rule`.
    in_front = _rule_heading(dup.existing.path.read_text(encoding="utf-8")) is None
    updated = _rewrite_existing(dup.existing, merge, body)
    return result(False, updated, (dup.existing.path,))


def _linker(other_id: str, day: date) -> Callable[[CommentedMap], None]:
    """A front-matter change adding `other_id` to `related`."""

    def link(front: CommentedMap) -> None:
        _set_list(front, "related", [other_id])
        touch(front, day)

    return link


def _rule_heading(text: str) -> int | None:
    """The line index of the `## Full Rule` / `## 完整规则` heading, if any."""
    for i, line in enumerate(text.split("\n")):
        m = _HEADING_RE.match(line)
        if m and m.group(1).strip().lower() in RULE_HEADINGS:
            return i
    return None


# --- edit -----------------------------------------------------------------------------------


def error_header(problems: Iterable[str]) -> str:
    """The problems of a bad save, as comment lines above the card shown again in the editor."""
    lines = [
        f"{ERROR_PREFIX}not saved: fix the problems below, or save an empty file to give up.",
        f"{ERROR_PREFIX}(these '# ome:' lines are removed when you save)",
    ]
    lines.extend(f"{ERROR_PREFIX}{line}" for p in problems for line in p.splitlines())
    return "\n".join(lines) + "\n"


def strip_error_header(text: str) -> str:
    lines = text.split("\n")
    i = 0
    while i < len(lines) and lines[i].startswith(ERROR_PREFIX.rstrip()):
        i += 1
    return "\n".join(lines[i:])


@dataclass(frozen=True, slots=True)
class EditorOutcome:
    """The validated value after an editor session, or why there is none."""

    value: Any
    reason: str


def edit_until_valid(
    text: str, validate: Callable[[str], Any], editor: Callable[[str], str | None]
) -> EditorOutcome:
    """Open `text` in the editor until `validate` accepts it; re-open with errors shown on top.

    Gives up (value None) when the editor was closed without saving, an empty file or the
    unchanged original was saved; raises CardError when an invalid text is saved unchanged.
    """
    shown = text
    last_bad: str | None = None
    last_problems: tuple[str, ...] = ()
    while True:
        edited = editor(shown)
        if edited is None:
            return EditorOutcome(None, "the editor was closed without saving")
        card_text = strip_error_header(edited)
        if not card_text.strip():
            return EditorOutcome(None, "an empty file was saved")
        if card_text.rstrip() == text.rstrip():
            return EditorOutcome(None, "nothing was changed")
        if last_bad is not None and card_text.rstrip() == last_bad.rstrip():
            raise CardError(
                "the card is still invalid and was not saved (the file is unchanged): "
                + problems_text(last_problems),
                last_problems,
            )
        try:
            return EditorOutcome(validate(card_text), "")
        except CardError as exc:
            last_bad, last_problems = card_text, exc.problems
            shown = error_header(exc.problems) + card_text


def problems_text(problems: Sequence[str]) -> str:
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return f"{problems[0]}{more}"


def edit_card(
    located: Located,
    editor: Callable[[str], str | None],
    today: date | None = None,
) -> EditResult:
    """Edit a card file in the editor, validate on save, keep comments; `updated` is set."""
    from ome.lint import sensitive_findings

    day = _today(today)
    path = located.path
    ensure_inside(path, located.target.root)
    original = path.read_text(encoding="utf-8")

    def validate(text: str) -> tuple[str, Card]:
        card = parse_card_text(text, str(path), expected_id=located.card_id)
        if card.status != located.status:
            raise CardError(
                f"{path}: status must stay '{located.status}' here; use `ome experience"
                " enable|archive|restore` to move the card"
            )
        final, card = rewrite_text(text, str(path), located.card_id, lambda f: touch(f, day))
        if located.status == "active":
            found = sensitive_findings(card)
            if found:
                raise CardError(f"{path}: {found[0]}", tuple(f"{path}: {p}" for p in found))
        return final, card

    outcome = edit_until_valid(original, validate, editor)
    if outcome.value is None:
        return EditResult(located, False, outcome.reason)
    final, card = outcome.value
    if path.read_text(encoding="utf-8") != original:
        raise CardError(f"{path} changed on disk while it was being edited; edit it again")
    atomic_write_text(path, final, located.target.root)
    warnings = tuple(f"{path}: {p}" for p in sensitive_findings(card))
    return EditResult(located, True, "", warnings)


# --- lifecycle --------------------------------------------------------------------------------


def _lint(path: Path, target: Target) -> tuple[str, ...]:
    """Lint one card file; raise CardError listing every error, return the warnings."""
    from ome.lint import lint_files

    report = lint_files([path], _registry(target))
    if report.errors:
        messages = tuple(
            f.message if f.message.startswith(f.path) else f"{f.path}: {f.message}"
            for f in report.errors
        )
        raise CardError(problems_text(messages), messages)
    return tuple(f.message for f in report.warnings)


def _move(
    located: Located,
    status: Status,
    action: str,
    today: date,
    extra: Callable[[CommentedMap], None] | None = None,
) -> Moved:
    destination = card_path(located.target.root, located.card_id, status)
    if destination.exists() or destination.is_symlink():
        raise CardError(f"{destination} already exists; delete one of the two copies first")

    def change(front: CommentedMap) -> None:
        set_key(front, "status", status, after=("id", "schema"))
        if extra is not None:
            extra(front)
        touch(front, today)

    text = located.path.read_text(encoding="utf-8")
    new_text, _ = rewrite_text(text, str(destination), located.card_id, change)
    atomic_write_text(destination, new_text, located.target.root)
    located.path.unlink()
    return Moved(located.card_id, action, located.status, status, destination)


def enable_card(located: Located, today: date | None = None) -> Moved:
    """draft -> active, after lint: a card with errors (sensitive data included) is refused."""
    if located.status != "draft":
        hint = "restore it" if located.status == "archived" else "it is already active"
        raise CardError(f"'{located.card_id}' is {located.status}, not a draft; {hint}")
    warnings = _lint(located.path, located.target)
    moved = _move(located, "active", "enable", _today(today))
    return replace(moved, warnings=warnings)


def archive_card(located: Located, reason: str = "", today: date | None = None) -> Moved:
    """active or draft -> archived, with `archived_reason` when one is given."""
    if located.status == "archived":
        raise CardError(f"'{located.card_id}' is already archived")

    def note(front: CommentedMap) -> None:
        if reason.strip():
            front["archived_reason"] = reason.strip()

    return _move(located, "archived", "archive", _today(today), note)


def restore_card(located: Located, today: date | None = None) -> Moved:
    """archived -> active, after lint; `archived_reason` is dropped."""
    if located.status != "archived":
        raise CardError(f"'{located.card_id}' is {located.status}, not archived")
    warnings = _lint(located.path, located.target)
    moved = _move(
        located, "active", "restore", _today(today), lambda f: f.pop("archived_reason", None)
    )
    return replace(moved, warnings=warnings)


def delete_card(located: Located) -> Moved:
    """Remove the card file (the caller has asked for confirmation)."""
    ensure_inside(located.path.parent, located.target.root)
    located.path.unlink()
    return Moved(located.card_id, "delete", located.status, None, located.path)


def verify_card(located: Located, today: date | None = None) -> Moved:
    """Record that a person re-checked the lesson today (`last_verified`)."""
    day = _today(today)

    def stamp(front: CommentedMap) -> None:
        touch(front, day)
        set_key(front, "last_verified", _fresh(day), after=("updated", "created"))

    text = located.path.read_text(encoding="utf-8")
    new_text, _ = rewrite_text(text, str(located.path), located.card_id, stamp)
    atomic_write_text(located.path, new_text, located.target.root)
    return Moved(located.card_id, "verify", located.status, located.status, located.path)


__all__ = [
    "DECISIONS",
    "ERROR_PREFIX",
    "MAX_SLUG_CHARS",
    "MERGE_NOTE",
    "NEW_CARD_TEMPLATE",
    "SCOPES",
    "CardSpec",
    "Decision",
    "Duplicate",
    "EditResult",
    "EditorOutcome",
    "Located",
    "Moved",
    "NewPlan",
    "NewResult",
    "ReadOnlyCardError",
    "Scope",
    "Target",
    "WRITABLE_LAYERS",
    "append_rule",
    "apply_new",
    "archive_card",
    "copy_plan",
    "delete_card",
    "dump_card",
    "edit_card",
    "edit_until_valid",
    "enable_card",
    "error_header",
    "group_aliases",
    "load_front",
    "locate_card",
    "parse_alias",
    "plan_new",
    "plan_new_from_text",
    "problems_text",
    "resolve_target",
    "restore_card",
    "rewrite_text",
    "set_key",
    "slugify",
    "strip_error_header",
    "touch",
    "unique_id",
    "verify_card",
]
