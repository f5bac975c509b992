"""The experience-card format (SPEC §2): parse, validate and render cards, with no file IO.

Cards written by the original TypeScript OME load unchanged: the same front-matter keys, the
`## Full Rule` or `## 完整规则` fenced block, and suite cards given as JSON objects with `rule`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ome.errors import CardError

Status = Literal["draft", "active", "archived"]
Policy = Literal["must", "should", "summary", "off"]
Level = Literal["low", "medium", "high"]

STATUSES: tuple[Status, ...] = ("draft", "active", "archived")
POLICIES: tuple[Policy, ...] = ("must", "should", "summary", "off")
LEVELS: tuple[Level, ...] = ("low", "medium", "high")
SCOPE_LEVELS = ("global", "project", "project-family")
INTENT_MODES = ("execute", "discuss", "review", "debug", "plan", "explain", "operate")
RULE_HEADINGS = ("full rule", "完整规则")

# A card id is a file stem: lower-case letters, digits, '-', '_' and '.', never '..'.
ID_RE = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
MAX_ID_CHARS = 128

_KNOWN_TOP_KEYS = frozenset(
    {
        "schema",
        "id",
        "status",
        "title",
        "category",
        "summary",
        "criteria",
        "engine_hints",
        "recall",
        "scope",
        "paths",
        "created",
        "updated",
        "last_verified",
        "related",
        "origin",
        "sources",
        "source_refs",
        "language",
        "rule",
    }
)
_HEADING_RE = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$")
_FENCE_OPEN_RE = re.compile(r"^(`{3,}|~{3,})[^\n]*$")
_KEY_RE = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*:")  # a front-matter line naming a key
_ISO_DAY_RE = re.compile(r"\d{4}-\d{2}-\d{2}")


@dataclass(frozen=True, slots=True)
class Card:
    """One validated card. Tuples keep it hashable and its order stable."""

    id: str
    summary: str
    rule: str
    status: Status = "active"
    title: str = ""
    category: str = ""
    use_when: tuple[str, ...] = ()
    ignore_when: tuple[str, ...] = ()
    intent_include: tuple[str, ...] = ()
    intent_exclude: tuple[str, ...] = ()
    hints_positive: tuple[str, ...] = ()
    hints_required_all: tuple[str, ...] = ()
    hints_negative: tuple[str, ...] = ()
    policy: Policy = "should"
    risk: Level = "medium"
    confidence: Level = "medium"
    triggers: tuple[str, ...] = ()
    aliases: tuple[tuple[str, tuple[str, ...]], ...] = ()
    topics: tuple[str, ...] = ()
    scope_level: str = "global"
    project_key: str = ""
    module_path: str = ""
    paths: tuple[str, ...] = ()
    related: tuple[str, ...] = ()
    created: str = ""
    updated: str = ""
    last_verified: str = ""
    language: str = ""
    extra: tuple[tuple[str, str], ...] = field(default=())

    @property
    def recall_triggers(self) -> tuple[str, ...]:
        """Trigger phrases, falling back to `criteria.use_when` when none are given (SPEC §2)."""
        return self.triggers or self.use_when

    @property
    def alias_phrases(self) -> tuple[str, ...]:
        return tuple(p for _, phrases in self.aliases for p in phrases)

    @property
    def display_title(self) -> str:
        return self.title or self.id

    @property
    def edited_since_verified(self) -> bool:
        """Changed after a person last re-checked it: its `updated` day is later than its
        `last_verified` day (a date missing or not in ISO form gives nothing to compare)."""
        updated, verified = self.updated[:10], self.last_verified[:10]
        days = _ISO_DAY_RE.fullmatch(updated) and _ISO_DAY_RE.fullmatch(verified)
        return bool(days) and updated > verified


@dataclass(frozen=True, slots=True)
class Problem:
    """One validation finding: where (1-based line, 0 when unknown) and what to change."""

    line: int
    message: str

    def describe(self, source: str) -> str:
        where = f"{source}:{self.line}" if self.line else source
        return f"{where}: {self.message}"


def split_front_matter(text: str) -> tuple[str, str, int]:
    """Return (front matter, body, line number where the body starts). Raise CardError if absent."""
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        raise CardError("the file must start with a '---' line opening the YAML front matter")
    for i in range(1, len(lines)):
        if lines[i].strip() in ("---", "..."):
            return "\n".join(lines[1:i]), "\n".join(lines[i + 1 :]), i + 2
    raise CardError("the YAML front matter is not closed: add a '---' line after it")


def extract_rule(body: str) -> str:
    """The fenced block under `## Full Rule` / `## 完整规则`, else the section's plain text."""
    lines = body.split("\n")
    start = None
    for i, line in enumerate(lines):
        m = _HEADING_RE.match(line)
        if m and m.group(1).strip().lower() in RULE_HEADINGS:
            start = i + 1
            break
    if start is None:
        return ""
    section: list[str] = []
    for line in lines[start:]:
        if _HEADING_RE.match(line) and not line.startswith("###"):
            break
        section.append(line)
    for i, line in enumerate(section):
        m = _FENCE_OPEN_RE.match(line.strip())
        if m:
            fence = m.group(1)
            inner: list[str] = []
            for inner_line in section[i + 1 :]:
                if inner_line.strip().startswith(fence[0] * len(fence)) and (
                    inner_line.strip().strip(fence[0]) == ""
                ):
                    break
                inner.append(inner_line)
            return "\n".join(inner).strip()
    return "\n".join(section).strip()


def _key_lines(front: str, first_line: int) -> dict[str, int]:
    lines: dict[str, int] = {}
    for i, line in enumerate(front.split("\n")):
        m = _KEY_RE.match(line)
        if m:
            lines.setdefault(m.group(1), first_line + i)
    return lines


def parse_card_text(text: str, source: str = "<card>", expected_id: str | None = None) -> Card:
    """Parse a Markdown card; raise CardError listing every problem with file and line."""
    try:
        front, body, _ = split_front_matter(text)
    except CardError as exc:
        raise CardError(f"{source}:1: {exc}") from None
    import yaml  # deferred: only a card (re-)parse needs it, never a cached hook run

    try:
        data = yaml.load(front, Loader=_safe_loader())  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 1
        problem = getattr(exc, "problem", None) or str(exc)
        raise CardError(
            f"{source}:{line}: invalid YAML front matter ({problem}); quote values that contain"
            " ': ' or start with a special character"
        ) from None
    if not isinstance(data, dict):
        raise CardError(f"{source}:2: the front matter must be a mapping of keys to values")
    rule = extract_rule(body)
    return card_from_mapping(
        data, rule=rule, source=source, expected_id=expected_id, key_lines=_key_lines(front, 2)
    )


def card_from_mapping(
    data: Mapping[str, Any],
    rule: str = "",
    source: str = "<card>",
    expected_id: str | None = None,
    key_lines: Mapping[str, int] | None = None,
) -> Card:
    """Build a Card from front-matter data (or a suite's JSON object); validate every field."""
    lines = key_lines or {}
    problems: list[Problem] = []

    def at(key: str) -> int:
        return lines.get(key, 0)

    def text_field(mapping: Mapping[str, Any], key: str, where: str) -> str:
        value = mapping.get(key)
        if value is None:
            return ""
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            return str(value).strip()
        problems.append(Problem(at(key), f"'{where}' must be text, not {type(value).__name__}"))
        return ""

    def list_field(mapping: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
        value = mapping.get(key)
        if value is None:
            return ()
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(
            isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in value
        ):
            problems.append(Problem(at(key), f"'{where}' must be a list of text items"))
            return ()
        return tuple(dict.fromkeys(str(v).strip() for v in value if str(v).strip()))

    def section(key: str) -> Mapping[str, Any]:
        value = data.get(key)
        if value is None:
            return {}
        if not isinstance(value, dict):
            problems.append(Problem(at(key), f"'{key}' must be a mapping"))
            return {}
        return value

    def choice(value: str, allowed: tuple[str, ...], key: str, where: str, default: str) -> str:
        if not value:
            return default
        if value not in allowed:
            problems.append(
                Problem(at(key), f"'{where}' is '{value}'; use one of: {', '.join(allowed)}")
            )
            return default
        return value

    card_id = text_field(data, "id", "id")
    if not card_id and expected_id:
        card_id = expected_id
    if not card_id:
        problems.append(Problem(1, "'id' is missing; add `id: <file name without .md>`"))
    elif not is_valid_id(card_id):
        problems.append(
            Problem(
                at("id"),
                f"'id' {card_id!r} is not a safe id; use lower-case letters, digits, '-', '_'"
                " or '.', with no '/', '\\' or '..'",
            )
        )
    elif expected_id is not None and card_id != expected_id:
        problems.append(
            Problem(
                at("id"), f"'id' is {card_id!r} but the file is {expected_id}.md; make them equal"
            )
        )

    criteria = section("criteria")
    hints = section("engine_hints")
    recall = section("recall")
    scope = section("scope")
    intent_modes = criteria.get("intent_modes") or {}
    if not isinstance(intent_modes, dict):
        problems.append(Problem(at("intent_modes"), "'criteria.intent_modes' must be a mapping"))
        intent_modes = {}
    intent_include = list_field(intent_modes, "include", "criteria.intent_modes.include")
    intent_exclude = list_field(intent_modes, "exclude", "criteria.intent_modes.exclude")
    for mode in (*intent_include, *intent_exclude):
        if mode not in INTENT_MODES:
            problems.append(
                Problem(
                    at("intent_modes"),
                    f"intent mode '{mode}' is unknown; use one of: {', '.join(INTENT_MODES)}",
                )
            )

    aliases: list[tuple[str, tuple[str, ...]]] = []
    raw_aliases = recall.get("aliases")
    if isinstance(raw_aliases, dict):
        for lang in sorted(raw_aliases, key=str):
            phrases = list_field(raw_aliases, lang, f"recall.aliases.{lang}")
            if phrases:
                aliases.append((str(lang), phrases))
    elif isinstance(raw_aliases, list):
        phrases = list_field(recall, "aliases", "recall.aliases")
        if phrases:
            aliases.append(("any", phrases))
    elif raw_aliases is not None:
        problems.append(Problem(at("aliases"), "'recall.aliases' must map a language to phrases"))

    summary = text_field(data, "summary", "summary")
    if not summary:
        problems.append(Problem(at("summary") or 1, "'summary' is required: one or two sentences"))
    rule = rule.strip() or text_field(data, "rule", "rule")
    if not rule:
        problems.append(
            Problem(
                0,
                "the card has no rule: add a '## Full Rule' section with the rule in a"
                " ```text fenced block",
            )
        )
    status = choice(text_field(data, "status", "status"), STATUSES, "status", "status", "active")
    policy = choice(
        text_field(recall, "policy", "recall.policy"), POLICIES, "policy", "recall.policy", "should"
    )
    risk = choice(
        text_field(recall, "risk", "recall.risk"), LEVELS, "risk", "recall.risk", "medium"
    )
    confidence = choice(
        text_field(recall, "confidence", "recall.confidence"),
        LEVELS,
        "confidence",
        "recall.confidence",
        "medium",
    )
    scope_level = choice(
        text_field(scope, "level", "scope.level"), SCOPE_LEVELS, "level", "scope.level", "global"
    )
    related = list_field(data, "related", "related")
    for rid in related:
        if not is_valid_id(rid):
            problems.append(Problem(at("related"), f"related id {rid!r} is not a valid card id"))
    extra = tuple(
        (str(k), _compact(v))
        for k, v in sorted(data.items(), key=lambda kv: str(kv[0]))
        if str(k) not in _KNOWN_TOP_KEYS
    )
    card = Card(
        id=card_id,
        summary=summary,
        rule=rule,
        status=status,  # type: ignore[arg-type]
        title=text_field(data, "title", "title"),
        category=text_field(data, "category", "category"),
        use_when=list_field(criteria, "use_when", "criteria.use_when"),
        ignore_when=list_field(criteria, "ignore_when", "criteria.ignore_when"),
        intent_include=intent_include,
        intent_exclude=intent_exclude,
        hints_positive=list_field(hints, "positive", "engine_hints.positive"),
        hints_required_all=list_field(hints, "required_all", "engine_hints.required_all"),
        hints_negative=list_field(hints, "negative", "engine_hints.negative"),
        policy=policy,  # type: ignore[arg-type]
        risk=risk,  # type: ignore[arg-type]
        confidence=confidence,  # type: ignore[arg-type]
        triggers=list_field(recall, "triggers", "recall.triggers"),
        aliases=tuple(aliases),
        topics=list_field(recall, "topics", "recall.topics"),
        scope_level=scope_level,
        project_key=text_field(scope, "project_key", "scope.project_key"),
        module_path=text_field(scope, "module_path", "scope.module_path"),
        paths=list_field(data, "paths", "paths"),
        related=related,
        created=_date_text(data.get("created")),
        updated=_date_text(data.get("updated")),
        last_verified=_date_text(data.get("last_verified")),
        language=text_field(data, "language", "language"),
        extra=extra,
    )

    if problems:
        described = tuple(p.describe(source) for p in problems)
        raise CardError(described[0], described)
    return card


def is_valid_id(card_id: str) -> bool:
    """True when the id is safe as a file stem inside a library (no separators, no '..')."""
    return (
        bool(ID_RE.match(card_id))
        and ".." not in card_id
        and len(card_id) <= MAX_ID_CHARS
        and not card_id.endswith(".md")
    )


def _date_text(value: Any) -> str:
    return "" if value is None else str(value)


def _compact(value: Any) -> str:
    """A short, bounded description of an unknown key's value (never walked deeply)."""
    text = value if isinstance(value, str) else type(value).__name__
    return text[:200]


def card_front_matter(card: Card) -> dict[str, Any]:
    """The front-matter mapping of a card, in the canonical key order."""
    data: dict[str, Any] = {"schema": "ome-card", "id": card.id, "status": card.status}
    if card.title:
        data["title"] = card.title
    if card.category:
        data["category"] = card.category
    data["summary"] = card.summary
    criteria: dict[str, Any] = {
        "use_when": list(card.use_when),
        "ignore_when": list(card.ignore_when),
    }
    if card.intent_include or card.intent_exclude:
        criteria["intent_modes"] = {
            k: list(v)
            for k, v in (("include", card.intent_include), ("exclude", card.intent_exclude))
            if v
        }
    data["criteria"] = criteria
    hints = {
        k: list(v)
        for k, v in (
            ("positive", card.hints_positive),
            ("required_all", card.hints_required_all),
            ("negative", card.hints_negative),
        )
        if v
    }
    if hints:
        data["engine_hints"] = hints
    recall: dict[str, Any] = {
        "policy": card.policy,
        "risk": card.risk,
        "confidence": card.confidence,
        "triggers": list(card.triggers),
    }
    if card.aliases:
        recall["aliases"] = {lang: list(phrases) for lang, phrases in card.aliases}
    recall["topics"] = list(card.topics)
    data["recall"] = recall
    scope: dict[str, Any] = {"level": card.scope_level}
    if card.project_key:
        scope["project_key"] = card.project_key
    if card.module_path:
        scope["module_path"] = card.module_path
    data["scope"] = scope
    for key, value in (
        ("paths", list(card.paths)),
        ("related", list(card.related)),
        ("created", card.created),
        ("updated", card.updated),
        ("last_verified", card.last_verified),
    ):
        if value:
            data[key] = value
    return data


def render_body(card: Card) -> str:
    """The Markdown body written under the front matter of a new card."""
    use = "\n".join(f"- {u}" for u in card.use_when) or "- (not stated)"
    ignore = "\n".join(f"- {u}" for u in card.ignore_when) or "- (not stated)"
    return (
        f"# {card.display_title}\n\n## Problem\n\n{card.summary}\n\n## Usage\n\n"
        f"Use when:\n{use}\n\nIgnore when:\n{ignore}\n\n"
        f"## Full Rule\n\n```text\n{card.rule}\n```\n"
    )


@functools.cache
def _safe_loader() -> Any:
    """The C-backed safe loader where libyaml is present; dates stay text, as the original wrote."""
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loader: Any = type("CardLoader", (base,), {})
    loader.add_constructor(
        "tag:yaml.org,2002:timestamp", lambda ld, node: ld.construct_scalar(node)
    )
    return loader


__all__ = [
    "INTENT_MODES",
    "LEVELS",
    "POLICIES",
    "RULE_HEADINGS",
    "STATUSES",
    "Card",
    "Problem",
    "card_from_mapping",
    "card_front_matter",
    "extract_rule",
    "is_valid_id",
    "parse_card_text",
    "render_body",
    "split_front_matter",
]
