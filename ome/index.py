"""The card index: every card analysed once into weighted fields, phrases and corpus statistics.

Building it is the expensive part of recall; the engine only reads it. It is a pure function of
the cards and the registry, so the cache layer can store it and reuse it while neither changes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ome.analysis import is_han, normalize_text, tokenize
from ome.cards import Card
from ome.concepts import ConceptMatcher, concept_token
from ome.params import FIELD_WEIGHTS
from ome.scoring import specificity

PhraseKind = str  # "trigger" | "alias" | "title" | "use_when" | "topic"


@dataclass(frozen=True, slots=True)
class Phrase:
    """A card phrase in match form: lower-cased text and its units (terms and concept tokens)."""

    kind: PhraseKind
    text: str
    units: tuple[str, ...]
    words: int  # content words of the surface text, before synonyms fold into concepts
    han: bool
    technical: bool


@dataclass(frozen=True, slots=True)
class IndexedCard:
    """A card with its analysed fields; `layer` and `path` say where it came from."""

    card: Card
    layer: str
    path: str
    fields: tuple[tuple[str, tuple[str, ...]], ...]
    phrases: tuple[Phrase, ...]
    ignore: tuple[Phrase, ...]
    descriptive_units: frozenset[str]

    @property
    def id(self) -> str:
        return self.card.id


@dataclass(frozen=True, slots=True)
class CardIndex:
    """All indexed cards (sorted by id, then layer) plus BM25F corpus statistics."""

    cards: tuple[IndexedCard, ...]
    doc_freq: Mapping[str, int]
    avg_field_len: Mapping[str, float]
    postings: Mapping[str, tuple[tuple[int, str, int], ...]]  # term -> (card, field, tf)
    path_cards: tuple[int, ...]  # cards declaring `paths` globs
    registry_digest: str

    @property
    def size(self) -> int:
        return len(self.cards)

    def specificity(self, term: str) -> float:
        """How specific a term is in this library (1.0 on one card, 0.0 on none)."""
        return specificity(self.doc_freq.get(term, 0), len(self.cards))


def _is_technical(text: str) -> bool:
    """Paths, flags, dotted or snake names, camelCase and digits are specific by nature."""
    stripped = text.strip()
    if " " in stripped or any(is_han(c) for c in stripped):
        return any(c in stripped for c in "/._-$=") and not stripped.isalpha()
    return (
        any(c in stripped for c in "/._-$=")
        or any(c.isdigit() for c in stripped)
        or (any(c.isupper() for c in stripped[1:]) and any(c.islower() for c in stripped))
    )


def analyse_units(text: str, matcher: ConceptMatcher, stopwords: frozenset[str]) -> tuple[str, ...]:
    """The units of a phrase: concept tokens, plus the terms not covered by a concept."""
    original = normalize_text(text)
    lower = original.lower()
    hits = matcher.find(lower)
    covered = [(h.start, h.end) for h in hits]
    units: dict[str, None] = {}
    for hit in hits:
        units.setdefault(concept_token(hit.concept), None)
    for token in tokenize(original):
        if token.term in stopwords:
            continue
        if token.kind == "code":
            # The whole token is matched as a phrase; its parts carry the coverage.
            continue
        if any(token.start < end and start < token.end for start, end in covered):
            continue
        units.setdefault(token.term, None)
    return tuple(units)


def field_terms(text: str, matcher: ConceptMatcher, stopwords: frozenset[str]) -> tuple[str, ...]:
    """All terms of a field (repeats kept, for BM25F) plus the concept tokens it mentions."""
    original = normalize_text(text)
    terms = [t.term for t in tokenize(original) if t.term not in stopwords]
    terms.extend(concept_token(c) for c in matcher.concepts(original.lower()))
    return tuple(terms)


def index_card(
    card: Card,
    layer: str,
    path: str,
    matcher: ConceptMatcher,
    stopwords: frozenset[str],
) -> IndexedCard:
    """Analyse one card into fields and phrases."""

    def phrase(kind: str, text: str) -> Phrase:
        lower = normalize_text(text).lower().strip()
        return Phrase(
            kind=kind,
            text=lower,
            units=analyse_units(text, matcher, stopwords),
            words=len(
                {
                    t.term
                    for t in tokenize(normalize_text(text))
                    if t.kind in ("word", "part") and t.term not in stopwords
                }
            ),
            han=any(is_han(c) for c in lower),
            technical=_is_technical(normalize_text(text)),
        )

    phrases: list[Phrase] = []
    seen: set[str] = set()
    sources: list[tuple[str, Iterable[str]]] = [
        ("trigger", card.recall_triggers),
        ("alias", card.alias_phrases),
        ("title", (card.title,) if card.title else ()),
        ("use_when", card.use_when if card.triggers else ()),
        ("topic", card.topics),
    ]
    for kind, texts in sources:
        for text in texts:
            p = phrase(kind, text)
            if p.text and p.text not in seen and p.units:
                seen.add(p.text)
                phrases.append(p)
    fields = (
        ("title", field_terms(card.title, matcher, stopwords)),
        ("triggers", field_terms(" \n ".join(card.recall_triggers), matcher, stopwords)),
        ("aliases", field_terms(" \n ".join(card.alias_phrases), matcher, stopwords)),
        ("topics", field_terms(" \n ".join(card.topics), matcher, stopwords)),
        ("intent", tuple(card.intent_include)),
        ("signals", tuple(card.hints_positive) + tuple(card.hints_required_all)),
        ("category", field_terms(card.category, matcher, stopwords)),
        ("summary", field_terms(card.summary, matcher, stopwords)),
        ("use_when", field_terms(" \n ".join(card.use_when), matcher, stopwords)),
    )
    descriptive = frozenset(
        term
        for name, terms in fields
        if name in ("title", "summary", "use_when", "topics", "category", "triggers", "aliases")
        for term in terms
    )
    return IndexedCard(
        card=card,
        layer=layer,
        path=path,
        fields=fields,
        phrases=tuple(phrases),
        ignore=tuple(phrase("ignore", text) for text in card.ignore_when),
        descriptive_units=descriptive,
    )


def build_index(cards: Iterable[IndexedCard], registry_digest: str) -> CardIndex:
    """Assemble indexed cards into an index: postings, document frequencies, field lengths."""
    ordered = tuple(sorted(cards, key=lambda c: (c.card.id, c.layer, c.path)))
    postings: dict[str, list[tuple[int, str, int]]] = {}
    totals: Counter[str] = Counter()
    for position, item in enumerate(ordered):
        for name, terms in item.fields:
            totals[name] += len(terms)
            for term, tf in sorted(Counter(terms).items()):
                postings.setdefault(term, []).append((position, name, tf))
    n = max(len(ordered), 1)
    return CardIndex(
        cards=ordered,
        doc_freq={t: len({p[0] for p in plist}) for t, plist in sorted(postings.items())},
        avg_field_len={name: totals[name] / n for name in FIELD_WEIGHTS},
        postings={t: tuple(plist) for t, plist in sorted(postings.items())},
        path_cards=tuple(i for i, c in enumerate(ordered) if c.card.paths),
        registry_digest=registry_digest,
    )


__all__ = [
    "CardIndex",
    "IndexedCard",
    "Phrase",
    "analyse_units",
    "build_index",
    "field_terms",
    "index_card",
]
