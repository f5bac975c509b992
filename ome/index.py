"""The card index: every card analysed once into weighted fields, phrases and corpus statistics.

Building it is the expensive part of recall; the engine only reads it. It is a pure function of
the cards and the registry, so the cache layer can store it and reuse it while neither changes.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import NamedTuple

from ome.analysis import (
    Span,
    cased_token_spans,
    fold_chars,
    has_han,
    is_han,
    normalize_text,
    phrase_terms,
)
from ome.cards import Card
from ome.concepts import ConceptMatcher, concept_token
from ome.envelope import Language, absent_spans, detect_language
from ome.params import FIELD_WEIGHTS
from ome.scoring import specificity
from ome.signals import Vocabulary

PhraseKind = str  # "trigger" | "alias" | "title" | "use_when" | "topic"
# A list field (triggers, aliases, topics, use_when) is analysed as its items joined by this.
FIELD_JOIN = " \n "


@dataclass(frozen=True, slots=True)
class Phrase:
    """A card phrase in match form: lower-cased text and its units (terms and concept tokens)."""

    kind: PhraseKind
    text: str
    units: tuple[str, ...]
    words: int  # content words of the surface text, before synonyms fold into concepts
    han: bool
    technical: bool
    # Units a negation or exclusion cue names as absent ("without a primary key"): ignore phrases
    # only, whose `units` are then what the phrase asserts.
    absent: tuple[str, ...] = ()
    # The units of a phrase that is one concept term as a whole ("delete the bucket"), read
    # without that concept: its own words and inner concepts, which a prompt may say apart.
    parts: tuple[str, ...] = ()


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
    # The English terms of the description's Chinese words (`Vocabulary.glosses`): what an English
    # prompt meets a Chinese card with, beside the concepts of the lexicon.
    gloss_units: frozenset[str]
    # The language the card is written in (its title and summary), as a prompt's is told.
    language: Language

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

    def positions_of(self, card_id: str) -> range:
        """The positions of the cards with this id: one per layer or file that holds it."""
        start = bisect.bisect_left(self.cards, card_id, key=lambda c: c.card.id)
        return range(start, bisect.bisect_right(self.cards, card_id, key=lambda c: c.card.id))

    def specificity(self, term: str) -> float:
        """How specific a term is in this library (1.0 on one card, 0.0 on none)."""
        return specificity(self.doc_freq.get(term, 0), len(self.cards))


# Marks that make a phrase code: paths, flags, dotted or snake names, assignments, and the
# operators and brackets of a command or call (`KEYS *`, `a && b`, `C++`, `t()`). A phrase
# written with them and met exactly names that very command.
_TECHNICAL_MARKS = frozenset("/._-$=*#@%&|<>()[]{}~^+")


def _is_technical(text: str) -> bool:
    """Code marks, digits and camelCase make a phrase specific by nature."""
    stripped = text.strip()
    marked = not _TECHNICAL_MARKS.isdisjoint(stripped)
    if " " in stripped or any(is_han(c) for c in stripped):
        return marked
    return (
        marked
        or any(c.isdigit() for c in stripped)
        or (any(c.isupper() for c in stripped[1:]) and any(c.islower() for c in stripped))
    )


class _Analysed(NamedTuple):
    """One card text analysed once: `normalize_text`, its tokens and its concept hits."""

    original: str
    lower: str
    spans: list[Span]  # token_spans(original)
    lower_spans: list[Span]  # token_spans(lower): the concept matcher reads lower-cased text
    hits: list[tuple[int, str, int]]  # (start, concept, end) in lower, sorted


def _analyse(text: str, matcher: ConceptMatcher) -> _Analysed:
    original = normalize_text(text)
    lower = original.lower()
    spans, lower_spans = cased_token_spans(original)
    hits = set(matcher.text_hits(lower))
    hits.update(matcher.word_hits(lower_spans))
    return _Analysed(original, lower, spans, lower_spans, sorted(hits))


def _units(text: _Analysed, stopwords: frozenset[str]) -> tuple[str, ...]:
    covered = [(start, end) for start, _, end in text.hits]
    units: dict[str, None] = {}
    for start, concept, end in text.hits:
        # A concept inside a longer one is part of its surface (approve in auto-approve): the
        # phrase names the longer idea only.
        if not any(s <= start and end <= e and (s, e) != (start, end) for s, e in covered):
            units.setdefault(concept_token(concept), None)
    for term, start, kind, end in text.spans:
        # A code token is matched as a phrase; its parts carry the coverage, unless one part is
        # a stopword that the others do not say (icon-only, read-only): then the token does.
        if kind == "code":
            if any(
                k == "part" and t in stopwords and start <= s and e <= end
                for t, s, k, e in text.spans
            ) and not any(s <= start and end <= e for s, e in covered):
                units.setdefault(term, None)
            continue
        if term in stopwords:
            continue
        overlapping = [(s, e) for s, e in covered if start < e and s < end]
        if not overlapping:
            units.setdefault(term, None)
        elif (
            kind == "han"
            and end - start == 2
            and any(
                text.lower[i] not in stopwords and not any(s <= i < e for s, e in overlapping)
                for i in range(start, end)
            )
        ):
            # A Han bigram reaching past a concept keeps the content character the concept
            # leaves out: 伪本地化 is not 本地化 (日志里 still is 日志).
            units.setdefault(term, None)
    return tuple(units)


def _field(
    raw: str, texts: Sequence[_Analysed], matcher: ConceptMatcher, stopwords: frozenset[str]
) -> tuple[str, ...] | None:
    """`field_terms(raw)` from the analyses of the texts `raw` joins with FIELD_JOIN; None when
    the joined text does not analyse as its parts (a code fence or stack frame spanning two)."""
    if len(texts) == 1:
        concepts = {concept for _, concept, _ in texts[0].hits}
    else:
        lower = FIELD_JOIN.join(t.lower for t in texts)
        joined = normalize_text(raw)
        if joined != FIELD_JOIN.join(t.original for t in texts) or joined.lower() != lower:
            return None
        # No token crosses the separator, but a word sequence may run on into the next text.
        concepts = {concept for _, concept, _ in matcher.text_hits(lower)}
        concepts.update(
            concept for _, concept, _ in matcher.word_hits(s for t in texts for s in t.lower_spans)
        )
    terms = [s[0] for t in texts for s in t.spans if s[0] not in stopwords]
    terms.extend(concept_token(c) for c in sorted(concepts))
    return tuple(terms)


def analyse_units(text: str, matcher: ConceptMatcher, stopwords: frozenset[str]) -> tuple[str, ...]:
    """The units of a phrase: concept tokens, plus the terms not covered by a concept."""
    return _units(_analyse(text, matcher), stopwords)


def field_terms(text: str, matcher: ConceptMatcher, stopwords: frozenset[str]) -> tuple[str, ...]:
    """All terms of a field (repeats kept, for BM25F) plus the concept tokens it mentions."""
    terms = _field(text, (_analyse(text, matcher),), matcher, stopwords)
    assert terms is not None  # one text always analyses as itself
    return terms


def collect_phrases(card: Card, make: Callable[[str, str], Phrase]) -> tuple[Phrase, ...]:
    """A card's phrases in match order (triggers, aliases, title, use_when when the card has
    triggers, topics), each text once and only when it has units; `make(kind, text)` builds one."""
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
            p = make(kind, text)
            if p.text and p.text not in seen and p.units:
                seen.add(p.text)
                phrases.append(p)
    return tuple(phrases)


@lru_cache(maxsize=4)
def _cue_terms(cues: tuple[str, ...]) -> frozenset[str]:
    """The terms of absence cues: they open an absent span, they are not absent."""
    return frozenset(t for cue in cues for t in phrase_terms(cue))


def index_card(
    card: Card,
    layer: str,
    path: str,
    matcher: ConceptMatcher,
    vocabulary: Vocabulary,
) -> IndexedCard:
    """Analyse one card into fields and phrases; each distinct text is analysed once."""
    stopwords = vocabulary.stopwords
    analysed: dict[str, _Analysed] = {}

    def analyse(text: str) -> _Analysed:
        found = analysed.get(text)
        if found is None:
            found = analysed[text] = _analyse(text, matcher)
        return found

    def phrase(kind: str, text: _Analysed) -> Phrase:
        lower = text.lower.strip()
        units = _units(text, stopwords)
        parts: tuple[str, ...] = ()
        if len(units) == 1 and units[0].startswith("§") and not has_han(lower):
            inner = [h for h in text.hits if concept_token(h[1]) != units[0]]
            found = _units(text._replace(hits=inner), stopwords)
            parts = found if len(found) >= 2 else ()
        return Phrase(
            kind=kind,
            text=lower,
            units=units,
            parts=parts,
            words=len(
                {
                    term
                    for term, _, token_kind, _ in text.spans
                    if token_kind in ("word", "part") and term not in stopwords
                }
            ),
            han=has_han(lower),
            technical=_is_technical(text.original),
        )

    def ignore(text: str) -> Phrase:
        analysed_text = analyse(text)
        whole = phrase("ignore", analysed_text)
        lower = analysed_text.lower
        spans = absent_spans(lower, vocabulary)
        if not spans:
            return whole
        edges = [0, *(i for span in spans for i in span), len(lower)]
        kept = FIELD_JOIN.join(lower[a:b] for a, b in zip(edges[::2], edges[1::2], strict=True))
        asserted = _units(_analyse(kept, matcher), stopwords)
        cues = _cue_terms(vocabulary.absence_cues)
        return replace(
            whole,
            units=asserted,
            absent=tuple(u for u in whole.units if u not in asserted and u not in cues),
        )

    def field(texts: Sequence[str]) -> tuple[str, ...]:
        raw = FIELD_JOIN.join(texts)
        terms = _field(raw, [analyse(t) for t in texts], matcher, stopwords)
        if terms is None:
            terms = _field(raw, (analyse(raw),), matcher, stopwords)
            assert terms is not None
        return terms

    phrases = collect_phrases(card, lambda kind, text: phrase(kind, analyse(text)))
    fields = (
        ("title", field((card.title,))),
        ("triggers", field(card.recall_triggers)),
        ("aliases", field(card.alias_phrases)),
        ("topics", field(card.topics)),
        ("intent", tuple(card.intent_include)),
        ("signals", tuple(card.hints_positive) + tuple(card.hints_required_all)),
        ("category", field((card.category,))),
        ("summary", field((card.summary,))),
        ("use_when", field(card.use_when)),
    )
    # The rule is prose and no indexed field (SPEC §5, step 6), but the engineering concepts it
    # names ("a presigned URL valid for a few minutes") are what the card is about: they join the
    # description, weighed like any unit by the indexed fields, so a concept no card is indexed
    # under weighs nothing. Its plain words stay out: they are the lesson's detail.
    rule_concepts = (concept_token(c) for _, c, _ in analyse(card.rule).hits) if card.rule else ()
    descriptive = frozenset(
        term
        for name, terms in fields
        if name in ("title", "summary", "use_when", "topics", "category", "triggers", "aliases")
        for term in terms
    ).union(rule_concepts)
    described = (
        card.title,
        card.summary,
        *card.use_when,
        *card.recall_triggers,
        *card.alias_phrases,
    )
    return IndexedCard(
        card=card,
        layer=layer,
        path=path,
        fields=fields,
        phrases=phrases,
        ignore=tuple(ignore(text) for text in card.ignore_when),
        descriptive_units=descriptive,
        gloss_units=vocabulary.glosses(fold_chars(" ".join(described))),
        language=detect_language(f"{card.title} {card.summary}"),
    )


def card_postings(item: IndexedCard) -> dict[str, list[tuple[str, int]]]:
    """One card's share of the postings: term -> [(field, term frequency), ...] in field order."""
    postings: dict[str, list[tuple[str, int]]] = {}
    for name, terms in item.fields:
        counts: dict[str, int] = {}
        for term in terms:
            counts[term] = counts.get(term, 0) + 1
        for term, tf in counts.items():
            entries = postings.get(term)
            if entries is None:
                postings[term] = [(name, tf)]
            else:
                entries.append((name, tf))
    return postings


def build_index(cards: Iterable[IndexedCard], registry_digest: str) -> CardIndex:
    """Assemble indexed cards into an index: postings, document frequencies, field lengths."""
    ordered = tuple(sorted(cards, key=lambda c: (c.card.id, c.layer, c.path)))
    postings: dict[str, list[tuple[int, str, int]]] = {}
    totals: Counter[str] = Counter()
    for position, item in enumerate(ordered):
        for name, terms in item.fields:
            totals[name] += len(terms)
        for term, entries in card_postings(item).items():
            postings.setdefault(term, []).extend((position, name, tf) for name, tf in entries)
    n = max(len(ordered), 1)
    ordered_postings = sorted(postings.items())
    return CardIndex(
        cards=ordered,
        doc_freq={t: len({p[0] for p in plist}) for t, plist in ordered_postings},
        avg_field_len={name: totals[name] / n for name in FIELD_WEIGHTS},
        postings={t: tuple(plist) for t, plist in ordered_postings},
        path_cards=tuple(i for i, c in enumerate(ordered) if c.card.paths),
        registry_digest=registry_digest,
    )


__all__ = [
    "CardIndex",
    "IndexedCard",
    "Phrase",
    "analyse_units",
    "collect_phrases",
    "build_index",
    "card_postings",
    "field_terms",
    "index_card",
]
