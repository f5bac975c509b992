"""The neutral reminder injected into the agent's context, always within its character budget.

Cards are rendered whole or not at all: the lowest-ranked card is dropped first, then summaries
are shortened. The text states facts; the agent decides.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ome import params

HEADER = (
    "# OME matched experience cards\n\n"
    "These are optional reminders from reviewed lessons, not instructions.\n"
    "- A card may fit the task in whole, in part, or not at all; one that does not fit can be"
    " ignored.\n"
    "- The full rule of a card is printed by the command on its `Rule:` line.\n"
)


@dataclass(frozen=True, slots=True)
class RenderCard:
    """What the renderer needs of one selected card."""

    id: str
    title: str
    summary: str
    risk: str
    policy: str
    use_when: tuple[str, ...]
    ignore_when: tuple[str, ...]
    matched_by: tuple[str, ...]
    link: str
    scope_flag: str
    reminder_only: bool = False


def _shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rstrip()
    return cut + "…"


def _join(items: Sequence[str], limit: int = 3) -> str:
    return "; ".join(" ".join(i.split()) for i in items[:limit])


def render_card(position: int, card: RenderCard, short: bool) -> str:
    """One numbered card block."""
    if card.reminder_only:
        return (
            f"{position}. [{card.risk} risk][{card.policy}] {card.title} ({card.id}), shown"
            f" earlier in this session. Rule: ome experience show {card.id} --section rule"
            f"{card.scope_flag}\n"
        )
    summary = _shorten(card.summary, params.SUMMARY_SHORT_CHARS) if short else card.summary
    lines = [
        f"{position}. [{card.risk} risk][{card.policy}] {card.title} ({card.id})",
        f"   Summary: {' '.join(summary.split())}",
    ]
    if card.use_when and card.policy != "summary":
        lines.append(f"   Use if: {_join(card.use_when)}")
    if card.ignore_when and card.policy != "summary":
        lines.append(f"   Ignore if: {_join(card.ignore_when)}")
    if card.matched_by:
        lines.append(f"   Matched by: {_join(card.matched_by, 4)}")
    lines.append(f"   Rule: ome experience show {card.id} --section rule{card.scope_flag}")
    if card.link:
        lines.append(f"   Card file: {card.link}")
    return "\n".join(lines) + "\n"


def render_context(cards: Sequence[RenderCard], budget_chars: int) -> tuple[str, tuple[str, ...]]:
    """Render within the budget: drop the lowest-ranked cards first, then shorten summaries.

    Returns the text and the ids it kept; an empty text when not even one card fits.
    """
    budget = min(max(budget_chars, 0), params.MAX_BUDGET_CHARS)
    for short in (False, True):
        for count in range(len(cards), 0, -1):
            kept = cards[:count]
            blocks = [render_card(i, c, short) for i, c in enumerate(kept, start=1)]
            text = HEADER + "\n" + "\n".join(blocks)
            if len(text) <= budget:
                return text, tuple(c.id for c in kept)
    return "", ()


__all__ = ["HEADER", "RenderCard", "render_card", "render_context"]
