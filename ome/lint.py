"""Card linting: every problem of every card, as errors (card unusable) and warnings.

Errors come from the card parser. Warnings cover what parses but will not work as the author
expects: signal ids the registry does not know, trigger phrases that do not fire the signals the
card requires, and secrets or personal data written into a card.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ome.cards import Card, parse_card_text
from ome.errors import CardError
from ome.library import MAX_CARD_BYTES
from ome.signals import Registry, nearest_signal_ids, trigger_contract_violations

Severity = str  # "error" | "warning"

# Secrets and personal data that must never sit in a card (SPEC §11, PII and secret filter).
SENSITIVE_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("private key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")),
    ("AWS access key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("GitHub token", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}\b")),
    ("Slack token", re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}\b")),
    ("API key", re.compile(r"\b(?:sk|pk|rk)[-_](?:live|test|proj)?[-_]?[A-Za-z0-9]{20,}\b")),
    (
        "JSON web token",
        re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"),
    ),
    (
        "credential assignment",
        re.compile(
            r"(?i)\b(?:password|passwd|secret|api[_-]?key|token)\s*[:=]\s*['\"]?[A-Za-z0-9/+_.-]{12,}"
        ),
    ),
    ("email address", re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b")),
    ("phone number", re.compile(r"(?<![\w.])\+?\d[\d\s().-]{8,}\d(?![\w.])")),
)


@dataclass(frozen=True, slots=True)
class Finding:
    """One lint finding for one file."""

    path: str
    severity: Severity
    code: str
    message: str


@dataclass(frozen=True, slots=True)
class LintReport:
    files: tuple[str, ...]
    findings: tuple[Finding, ...]

    @property
    def errors(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == "error")

    @property
    def warnings(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == "warning")


def card_warnings(card: Card, path: str, registry: Registry) -> list[Finding]:
    """Warnings for a parsed card: unknown signals, trigger contract, sensitive text."""
    findings: list[Finding] = []
    hints = (
        ("engine_hints.positive", card.hints_positive),
        ("engine_hints.required_all", card.hints_required_all),
        ("engine_hints.negative", card.hints_negative),
    )
    for where, ids in hints:
        for signal_id in ids:
            if registry.get(signal_id) is None:
                near = nearest_signal_ids(registry, signal_id)
                hint = f"; did you mean {', '.join(near)}?" if near else ""
                findings.append(
                    Finding(
                        path,
                        "warning",
                        "unknown_signal",
                        f"{where} names unknown signal '{signal_id}' (ignored at recall"
                        f" time){hint}",
                    )
                )
    triggers = card.recall_triggers
    violations = (
        *trigger_contract_violations(registry, triggers, card.hints_positive, mode="any"),
        *trigger_contract_violations(registry, triggers, card.hints_required_all, mode="all"),
    )
    for phrase, signal_id in violations:
        findings.append(
            Finding(
                path,
                "warning",
                "trigger_contract",
                f"trigger '{phrase}' does not fire the card's signal '{signal_id}'; add a"
                " trigger that does, or relax the hint",
            )
        )
    for problem in sensitive_findings(card):
        findings.append(Finding(path, "error", "sensitive_data", problem))
    return findings


def sensitive_findings(card: Card) -> list[str]:
    """Secrets or personal data in any text field of a card."""
    fields = {
        "title": card.title,
        "summary": card.summary,
        "rule": card.rule,
        "use_when": "\n".join(card.use_when),
        "ignore_when": "\n".join(card.ignore_when),
        "triggers": "\n".join(card.triggers),
        "aliases": "\n".join(card.alias_phrases),
    }
    found = []
    for name, text in fields.items():
        for label, pattern in SENSITIVE_PATTERNS:
            if pattern.search(text):
                found.append(
                    f"{name} contains what looks like a {label}; remove it or replace it with a"
                    " placeholder"
                )
    return found


def lint_files(paths: Iterable[Path], registry: Registry, whole: bool = False) -> LintReport:
    """Lint card files (directories are searched for `*.md`). When they are `whole` libraries,
    a `related` id that names none of their cards is a warning: recall skips it."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(path.rglob("*.md")))
        else:
            files.append(path)
    findings: list[Finding] = []
    parsed: list[tuple[str, Card]] = []
    for path in files:
        name = str(path)
        try:
            if path.stat().st_size > MAX_CARD_BYTES:
                raise CardError(f"{name}: larger than {MAX_CARD_BYTES} bytes; shorten the card")
            card = parse_card_text(
                path.read_text(encoding="utf-8", errors="replace"), name, expected_id=path.stem
            )
        except CardError as exc:
            findings.extend(Finding(name, "error", "invalid_card", p) for p in exc.problems)
            continue
        except OSError as exc:
            findings.append(Finding(name, "error", "unreadable", f"{name}: {exc}"))
            continue
        findings.extend(card_warnings(card, name, registry))
        parsed.append((name, card))
    known = {card.id for _, card in parsed}
    findings.extend(
        Finding(
            name,
            "warning",
            "unknown_related",
            f"related names no card '{card_id}' in these libraries (ignored at recall time)",
        )
        for name, card in parsed
        if whole
        for card_id in card.related
        if card_id not in known
    )
    return LintReport(tuple(str(f) for f in files), tuple(findings))


__all__ = [
    "SENSITIVE_PATTERNS",
    "Finding",
    "LintReport",
    "card_warnings",
    "lint_files",
    "sensitive_findings",
]
