"""How alike two cards are, for near-duplicate warnings when a card is written (SPEC §11, dedup).

Pure: cards in, numbers out. Terms come from `ome.analysis.terms`, the same analysis recall
uses, so `Deploys` meets `deploy` and Chinese text meets its bigrams.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ome.analysis import terms
from ome.cards import Card

# A pair scoring at or above this is shown as a possible duplicate. Measured with the bundled
# stopwords on the 26 starter cards (distinct lessons): no pair scores above 0.21; the same
# lessons re-written by hand in other words (a title and one or two triggers, en or zh) score
# 0.57-1.0, and neighbouring lessons (UTC timestamps vs explicit time zones) 0.5. A false alarm
# only costs the author one question; a missed duplicate costs a second card to maintain.
DUPLICATE_THRESHOLD = 0.5
# The anchor overlap divides by at least this many terms, so a card of one or two words does
# not become a "duplicate" of every card that shares one of them.
MIN_ANCHOR_TERMS = 4
# At most this many near cards are shown to the author.
MAX_NEAREST = 3


@dataclass(frozen=True, slots=True)
class Similarity:
    """A score in [0, 1] and its parts, with the shared anchor terms for display."""

    score: float
    anchors: float
    summary: float
    shared: tuple[str, ...]


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|A ∩ B| / |A ∪ B| (Jaccard 1901); 0 for two empty sets."""
    union = a | b
    return len(a & b) / len(union) if union else 0.0


def overlap(a: frozenset[str], b: frozenset[str], floor: int = MIN_ANCHOR_TERMS) -> float:
    """|A ∩ B| / max(min(|A|, |B|), floor): the overlap coefficient with a floor on the divisor.

    Jaccard punishes size differences: a new card with one trigger shares all its terms with a
    starter card of forty and still scores 0.1. The overlap coefficient asks how much of the
    smaller card the larger one covers.
    """
    if not a or not b:
        return 0.0
    return len(a & b) / max(min(len(a), len(b)), floor)


def anchor_terms(card: Card, stopwords: frozenset[str] = frozenset()) -> frozenset[str]:
    """Terms of the phrases a card is recalled by: title, triggers, aliases and topics."""
    texts = (card.title, *card.recall_triggers, *card.alias_phrases, *card.topics)
    return frozenset(t for text in texts for t in terms(text, stopwords))


def summary_terms(card: Card, stopwords: frozenset[str] = frozenset()) -> frozenset[str]:
    return frozenset(terms(card.summary, stopwords))


def card_similarity(a: Card, b: Card, stopwords: frozenset[str] = frozenset()) -> Similarity:
    """max(anchor overlap, summary Jaccard): either the recall phrases or the summary agree."""
    anchors_a, anchors_b = anchor_terms(a, stopwords), anchor_terms(b, stopwords)
    anchors = overlap(anchors_a, anchors_b)
    summary = jaccard(summary_terms(a, stopwords), summary_terms(b, stopwords))
    return Similarity(
        score=round(max(anchors, summary), 4),
        anchors=round(anchors, 4),
        summary=round(summary, 4),
        shared=tuple(sorted(anchors_a & anchors_b)),
    )


def nearest_cards(
    card: Card,
    others: Iterable[tuple[str, Card]],
    stopwords: frozenset[str] = frozenset(),
    threshold: float = DUPLICATE_THRESHOLD,
    limit: int = MAX_NEAREST,
) -> tuple[tuple[str, Similarity], ...]:
    """The keyed cards scoring at least `threshold`, best first, ties broken by key."""
    scored = [(key, card_similarity(card, other, stopwords)) for key, other in others]
    near = sorted((s for s in scored if s[1].score >= threshold), key=lambda s: (-s[1].score, s[0]))
    return tuple(near[:limit])


__all__ = [
    "DUPLICATE_THRESHOLD",
    "MAX_NEAREST",
    "MIN_ANCHOR_TERMS",
    "Similarity",
    "anchor_terms",
    "card_similarity",
    "jaccard",
    "nearest_cards",
    "overlap",
    "summary_terms",
]
