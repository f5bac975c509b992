"""The optimised card analysis gives exactly what the straightforward one gave.

`index_card` analyses each text once, `tokenize` caches its runs and the concept matcher skips
work it can prove is empty. The reference below is the plain version those replaced (every
helper re-normalises and re-tokenises its text); both must agree on every card, field, phrase
and statistic, for the bundled cards, the suites' cards, noise cards, synthetic cards and
hand-written edge cases (code fences and stack frames spanning list items, camelCase, full-width
and Turkish letters, Han mixed with code).
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest

from ome.analysis import (
    _ASCII_TOKEN_RE,
    _CAMEL_RE,
    _HAN_RUN_RE,
    _SPLIT_RE,
    Token,
    is_han,
    normalize_text,
    stem,
    tokenize,
)
from ome.cache import contribution
from ome.cards import Card, card_from_mapping, parse_card_text
from ome.concepts import ConceptHit, ConceptMatcher, concept_token
from ome.envelope import absent_spans, detect_language
from ome.evaluate import generate_noise_cards
from ome.glosses import glosses_path
from ome.index import (
    IndexedCard,
    Phrase,
    _is_technical,
    analyse_units,
    build_index,
    collect_phrases,
    field_terms,
    index_card,
)
from ome.params import FIELD_WEIGHTS, HAN_GAP_MAX, HAN_GAP_MIN_TERM, MAX_WHOLE_HAN_RUN
from ome.registry import load_registry
from ome.signals import Vocabulary

ROOT = Path(__file__).resolve().parents[1]


def sequence_kinds() -> tuple[str, ...]:
    """The token kinds a word-term sequence runs over, as ConceptMatcher.word_hits has them:
    whether whole code tokens take part is a matching choice this file does not guard."""
    probe = ConceptMatcher(han_terms=(), word_terms={"a.b": ((("a.b",), "probe"),)})
    return (
        ("word", "part", "code") if probe.word_hits([("a.b", 0, "code", 3)]) else ("word", "part")
    )


SEQUENCE_KINDS = sequence_kinds()

# --- the reference: the straightforward analysis -------------------------------------------------


def reference_tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    for match in _ASCII_TOKEN_RE.finditer(text):
        raw = match.group(0)
        start = match.start()
        lower = raw.lower()
        if lower == "can't":
            tokens.append(Token("cannot", start, "word", match.end()))
            continue
        pieces: list[str] = []
        for part in (p for p in _SPLIT_RE.split(raw) if p):
            camel = _CAMEL_RE.findall(part)
            split = len(camel) > 2 or (len(camel) == 2 and part[0].islower())
            pieces.extend(camel if split else [part])
        if len(pieces) <= 1 and lower.isalnum():
            if len(lower) > 1 or lower.isdigit():
                tokens.append(Token(stem(lower), start, "word", match.end()))
            continue
        tokens.append(Token(lower.strip("./\\:-"), start, "code", match.end()))
        offset = 0
        for piece in pieces:
            offset = raw.find(piece, offset)
            tokens.append(
                Token(stem(piece.lower()), start + offset, "part", start + offset + len(piece))
            )
            offset += len(piece)
    for match in _HAN_RUN_RE.finditer(text):
        run = match.group(0)
        start = match.start()
        if len(run) == 1:
            tokens.append(Token(run, start, "han", start + 1))
            continue
        for i in range(len(run) - 1):
            tokens.append(Token(run[i : i + 2], start + i, "han", start + i + 2))
        if 2 < len(run) <= MAX_WHOLE_HAN_RUN:
            tokens.append(Token(run, start, "han", match.end()))
    tokens.sort(key=lambda t: (t.start, t.kind != "code", t.term))
    return tokens


_BY_FIRST: dict[tuple[int, bool], tuple[ConceptMatcher, dict[str, list[tuple[str, str]]]]] = {}


def han_terms_by_first(
    matcher: ConceptMatcher, gapped: bool = False
) -> dict[str, list[tuple[str, str]]]:
    """The matcher's Han terms by first character, made once per matcher; with `gapped`, only
    the terms long enough and all Han, which may be found with a gap."""
    known = _BY_FIRST.get((id(matcher), gapped))
    if known is not None and known[0] is matcher:
        return known[1]
    by_first: dict[str, list[tuple[str, str]]] = {}
    for surface, concept in matcher.han_terms:
        if gapped and (len(surface) < HAN_GAP_MIN_TERM or not all(is_han(c) for c in surface)):
            continue
        by_first.setdefault(surface[0], []).append((surface, concept))
    _BY_FIRST[(id(matcher), gapped)] = (matcher, by_first)
    return by_first


def reference_without_han_spaces(text: str) -> tuple[str, list[int]]:
    """The text without its runs of whitespace and backticks between a CJK character and another
    kind of character, and the offset of each character kept."""
    kept: list[int] = []
    at = 0
    while at < len(text):
        end = at
        while end < len(text) and (text[end].isspace() or text[end] == "`"):
            end += 1
        if end == at:
            kept.append(at)
            at += 1
            continue
        if at == 0 or end == len(text) or is_han(text[at - 1]) == is_han(text[end]):
            kept.extend(range(at, end))
        at = end
    return "".join(text[i] for i in kept), kept


def reference_find(matcher: ConceptMatcher, text: str) -> tuple[ConceptHit, ...]:
    # Terms only: counts in figures ("380M rows") have their own table in test_registry.py.
    # Han terms are kept, and sought, without the spaces that part CJK from other characters.
    compact, kept = reference_without_han_spaces(text)
    hits = {
        ConceptHit(h.concept, kept[h.start], kept[h.end - 1] + 1)
        for h in reference_han_hits(matcher, compact)
    }
    hits.update(reference_word_hits(matcher, text))
    return tuple(sorted(hits, key=lambda h: (h.start, h.concept, h.end)))


def reference_bounded(text: str, start: int, end: int) -> bool:
    """False when an English letter or digit at an edge of text[start:end] runs on outside it."""

    def word(at: int) -> bool:
        return 0 <= at < len(text) and text[at].isascii() and text[at].isalnum()

    return not (word(start) and word(start - 1)) and not (word(end - 1) and word(end))


def reference_han_hits(matcher: ConceptMatcher, text: str) -> set[ConceptHit]:
    hits: set[ConceptHit] = set()
    # Infix characters between two Han characters may sit inside a term (改完密码 holds 改密码).
    skippable = {
        i
        for i in range(1, len(text) - 1)
        if text[i] in matcher.han_infixes and is_han(text[i - 1]) and is_han(text[i + 1])
    }
    for start, char in enumerate(text):
        for surface, concept in han_terms_by_first(matcher).get(char, ()):
            end = start + len(surface)
            if text.startswith(surface, start) and reference_bounded(text, start, end):
                hits.add(ConceptHit(concept, start, end))
            if not skippable or start in skippable:
                continue  # a term found across an infix needs an infix to skip
            at, matched, skipped = start, 0, False
            while matched < len(surface) and at < len(text):
                if matched and at in skippable:
                    at, skipped = at + 1, True
                elif text[at] == surface[matched]:
                    at, matched = at + 1, matched + 1
                else:
                    break
            if matched == len(surface) and skipped and reference_bounded(text, start, at):
                hits.add(ConceptHit(concept, start, at))
    # A long all-Han term may hold up to HAN_GAP_MAX Han characters between two parts, when no
    # term found so far holds them and none joins two things (版本号和回滚 holds no 版本回滚).
    held = {i for hit in hits for i in range(hit.start, hit.end)}
    for start, char in enumerate(text):
        for surface, concept in han_terms_by_first(matcher, gapped=True).get(char, ()):
            for split in range(2, len(surface) - 1):
                for gap in range(1, HAN_GAP_MAX + 1):
                    inside = range(start + split, start + split + gap)
                    after = start + split + gap
                    if (
                        text[start : start + split] == surface[:split]
                        and after <= len(text)
                        and all(
                            is_han(text[i]) and i not in held and text[i] not in matcher.han_joiners
                            for i in inside
                        )
                        and text[after : after + len(surface) - split] == surface[split:]
                    ):
                        hits.add(ConceptHit(concept, start, after + len(surface) - split))
    return hits


def reference_word_hits(matcher: ConceptMatcher, text: str) -> set[ConceptHit]:
    hits: set[ConceptHit] = set()
    ascii_tokens = [t for t in reference_tokenize(text) if t.kind in SEQUENCE_KINDS]
    words = [t.term for t in ascii_tokens]
    for i, word in enumerate(words):
        for sequence, concept in matcher.word_terms.get(word, ()):
            if tuple(words[i : i + len(sequence)]) == sequence:
                end_token = ascii_tokens[i + len(sequence) - 1]
                hits.add(ConceptHit(concept, ascii_tokens[i].start, end_token.end))

    # Infix words between two words may sit inside a word term, but a term's own words are never
    # such a skipped infix ("the cache is stale" holds "cache stale").
    def infix(at: int) -> bool:
        return 0 < at < len(words) - 1 and words[at] in matcher.word_infixes

    for i, word in enumerate(words):
        if infix(i):
            continue
        for sequence, concept in matcher.word_terms.get(word, ()):
            at, skipped = i, False
            for next_word in sequence[1:]:
                at += 1
                while at < len(words) and infix(at):
                    at, skipped = at + 1, True
                if at >= len(words) or words[at] != next_word:
                    break
            else:
                if skipped:
                    hits.add(ConceptHit(concept, ascii_tokens[i].start, ascii_tokens[at].end))
    return hits


def reference_units(
    text: str, matcher: ConceptMatcher, stopwords: frozenset[str], without: str = ""
) -> tuple[str, ...]:
    """The units of a text; `without` names a concept token read as if it matched nothing."""
    original = normalize_text(text)
    hits = [
        h for h in reference_find(matcher, original.lower()) if concept_token(h.concept) != without
    ]
    covered = [(h.start, h.end) for h in hits]
    units: dict[str, None] = {}
    for hit in hits:
        inner = any(
            s <= hit.start and hit.end <= e and e - s > hit.end - hit.start for s, e in covered
        )
        if not inner:
            units.setdefault(concept_token(hit.concept), None)
    tokens = reference_tokenize(original)
    for token in tokens:
        if token.kind == "code":
            # A stopword among its parts (the "only" of icon-only) makes the token a unit,
            # unless one concept covers the whole token ("iOS").
            parts = [
                t.term
                for t in tokens
                if t.kind == "part" and token.start <= t.start and t.end <= token.end
            ]
            whole = any(s <= token.start and token.end <= e for s, e in covered)
            if set(parts) & stopwords and not whole:
                units.setdefault(token.term, None)
            continue
        if token.term in stopwords:
            continue
        inside = {i for start, end in covered for i in range(start, end)}
        outside = [original.lower()[i] for i in range(token.start, token.end) if i not in inside]
        if len(outside) < token.end - token.start:  # the token overlaps a concept
            # Only a Han bigram with a content character of its own outside every concept stays.
            if token.kind != "han" or len(token.term) != 2:
                continue
            if all(ch in stopwords for ch in outside):
                continue
        units.setdefault(token.term, None)
    return tuple(units)


def reference_field(
    text: str, matcher: ConceptMatcher, stopwords: frozenset[str]
) -> tuple[str, ...]:
    original = normalize_text(text)
    terms = [t.term for t in reference_tokenize(original) if t.term not in stopwords]
    concepts = sorted({h.concept for h in reference_find(matcher, original.lower())})
    return (*terms, *(concept_token(c) for c in concepts))


def reference_index_card(
    card: Card, matcher: ConceptMatcher, stopwords: frozenset[str]
) -> IndexedCard:
    def phrase(kind: str, text: str) -> Phrase:
        lower = normalize_text(text).lower().strip()
        units = reference_units(text, matcher, stopwords)
        han = any(is_han(c) for c in lower)
        one_concept = len(units) == 1 and units[0].startswith("§") and not han
        parts = reference_units(text, matcher, stopwords, units[0]) if one_concept else ()
        return Phrase(
            kind=kind,
            text=lower,
            units=units,
            parts=parts if len(parts) >= 2 else (),
            words=len(
                {
                    t.term
                    for t in reference_tokenize(normalize_text(text))
                    if t.kind in ("word", "part") and t.term not in stopwords
                }
            ),
            han=han,
            technical=_is_technical(normalize_text(text)),
        )

    def field(text: str) -> tuple[str, ...]:
        return reference_field(text, matcher, stopwords)

    def ignore(text: str) -> Phrase:
        # What a negation or exclusion cue puts out of the phrase is absent, not asserted.
        whole = phrase("ignore", text)
        lower = normalize_text(text).lower()
        spans = absent_spans(lower, words())
        if not spans:
            return whole
        outside = "".join(
            " \n " if any(a <= i < b for a, b in spans) else c for i, c in enumerate(lower)
        )
        asserted = reference_units(outside, matcher, stopwords)
        cues = {
            t.term
            for cue in words().negation_cues + words().exclusion_cues
            for t in reference_tokenize(cue)
        }
        absent = tuple(u for u in whole.units if u not in asserted and u not in cues)
        return replace(whole, units=asserted, absent=absent)

    # Which texts are phrases is shared; how each is analysed is what this reference checks.
    phrases = collect_phrases(card, phrase)
    fields = (
        ("title", field(card.title)),
        ("triggers", field(" \n ".join(card.recall_triggers))),
        ("aliases", field(" \n ".join(card.alias_phrases))),
        ("topics", field(" \n ".join(card.topics))),
        ("intent", tuple(card.intent_include)),
        ("signals", tuple(card.hints_positive) + tuple(card.hints_required_all)),
        ("category", field(card.category)),
        ("summary", field(card.summary)),
        ("use_when", field(" \n ".join(card.use_when))),
    )
    # The concepts the rule names join the description; its plain words do not.
    rule_concepts = {t for t in field(card.rule) if t.startswith("§")} if card.rule else set()
    descriptive = frozenset(
        term
        for name, terms in fields
        if name in ("title", "summary", "use_when", "topics", "category", "triggers", "aliases")
        for term in terms
    ) | frozenset(rule_concepts)
    return IndexedCard(
        card=card,
        layer="user",
        path=f"/cards/{card.id}.md",
        fields=fields,
        phrases=phrases,
        ignore=tuple(ignore(text) for text in card.ignore_when),
        descriptive_units=descriptive,
        gloss_units=reference_glosses(
            " ".join(
                (
                    card.title,
                    card.summary,
                    *card.use_when,
                    *card.recall_triggers,
                    *card.alias_phrases,
                )
            ),
            stopwords,
        ),
        # The card's language is told as a prompt's is (tested with the envelope).
        language=detect_language(f"{card.title} {card.summary}"),
    )


@cache
def gloss_table() -> dict[str, str]:
    """The gloss table as a plain dict (the engine bisects its sorted lines)."""
    rows = glosses_path().read_text(encoding="utf-8").splitlines()
    return dict(row.split("\t") for row in rows if row and not row.startswith("#"))


def reference_glosses(text: str, stopwords: frozenset[str]) -> frozenset[str]:
    """The terms of the senses of a text's Han words, cut by longest match, stopwords glossing
    nothing."""
    found: set[str] = set()
    for run in _HAN_RUN_RE.findall(text):
        at = 0
        while at < len(run):
            size = next((n for n in range(6, 1, -1) if run[at : at + n] in gloss_table()), 1)
            word = run[at : at + size]
            if size > 1 and word not in words().stopwords_zh:
                senses = gloss_table()[word].replace(";", " ")
                found |= {t.term for t in tokenize(normalize_text(senses))} - stopwords
            at += size
    return frozenset(found)


def reference_postings(items: list[IndexedCard]) -> dict[str, list[tuple[int, str, int]]]:
    postings: dict[str, list[tuple[int, str, int]]] = {}
    for position, item in enumerate(items):
        for name, terms in item.fields:
            for term, tf in sorted(Counter(terms).items()):
                postings.setdefault(term, []).append((position, name, tf))
    return dict(sorted(postings.items()))


# --- the card sets -------------------------------------------------------------------------------

EDGE_TEXTS = (
    "getUserName and XMLHttpRequest in src/app/main.py",
    "İstanbul DEPLOY Straße ﬁle",
    "```python\nfoo_bar = baz.qux()\n```",
    "```",
    'File "a.py", line 3',
    'in module\n  File "b.py", line 4, in x',
    "at com.foo.Bar(Baz.java:12)",
    "用git提交 force push 强制推送",
    "Force Push to main",
    "force",
    "push to the shared branch",
    "cpu 占用 很高",
    "ＡＢＣ　全角 ＧｅｔＵｓｅｒ",
    "“quoted” don’t",
    "_private $var a-b ./x/ ..",
    "数据库迁移 migration",
    "v1.2.3 --no-verify -rf",
    "HTTPServer HTTP2 ABC123 abc123 Ab1",
    "TLS证书过期 SSL",
    "N+1 查询",
    "rollbacks rolled rolling",
    "ΣΑΣ Δοκιμή",
    "git push --force origin main",
    "#12 0xdeadbeef foo",
    "main.go:12 +0x1f",
    "a",
)


def edge_cards() -> list[Card]:
    rng = random.Random(11)

    def texts(most: int) -> list[str]:
        return [
            f"{rng.choice(EDGE_TEXTS)} {rng.choice(EDGE_TEXTS)}"
            for _ in range(rng.randint(0, most))
        ]

    cards = []
    for n in range(200):
        mapping = {
            "id": f"edge-{n:03d}",
            "title": rng.choice((*EDGE_TEXTS, "")),
            "category": rng.choice((*EDGE_TEXTS, "ops", "")),
            "summary": f"{rng.choice(EDGE_TEXTS)} then {rng.choice(EDGE_TEXTS)}",
            "criteria": {"use_when": texts(3), "ignore_when": texts(2)},
            "recall": {
                "triggers": texts(4),
                "topics": texts(3),
                "aliases": {"en": texts(2), "zh-CN": texts(2)},
            },
            "engine_hints": {"positive": ["x.y"]},
            "rule": "r",
        }
        cards.append(card_from_mapping(mapping, source="edge"))
    return cards


@cache
def card_set(name: str) -> tuple[Card, ...]:
    if name == "bundled":
        paths = sorted((ROOT / "experiences").glob("*.md"))
        return tuple(parse_card_text(p.read_text(encoding="utf-8"), str(p), p.stem) for p in paths)
    if name == "suites":
        raw = json.loads((ROOT / "evals" / "suites" / "cards.json").read_text(encoding="utf-8"))
        return tuple(card_from_mapping(r, source="cards.json") for r in raw["experiences"])
    if name == "noise":
        return generate_noise_cards(200)
    if name == "synthetic":
        sys.path.insert(0, str(ROOT / "evals" / "bench"))
        try:
            import synth  # type: ignore[import-not-found]
        finally:
            sys.path.pop(0)
        rng = random.Random("index-test")
        names = [synth._name(rng) for _ in range(500)]
        return tuple(
            parse_card_text(
                synth.card_text(rng, f"card-{n:05d}", names), expected_id=f"card-{n:05d}"
            )
            for n in range(2000)
        )
    return tuple(edge_cards())


@cache
def vocabulary() -> tuple[ConceptMatcher, frozenset[str]]:
    registry = load_registry()
    matcher = registry.vocabulary.concept_matcher()
    return matcher, registry.vocabulary.stopwords


@cache
def words() -> Vocabulary:
    return load_registry().vocabulary


SETS = ("bundled", "suites", "noise", "synthetic", "edge")


@pytest.mark.parametrize("name", SETS)
def test_index_card_matches_the_reference(name: str) -> None:
    matcher, stopwords = vocabulary()
    cards = card_set(name)
    assert cards
    for card in cards:
        expected = reference_index_card(card, matcher, stopwords)
        got = index_card(card, "user", f"/cards/{card.id}.md", matcher, words())
        assert got == expected, card.id
        assert repr((got.fields, got.phrases, got.ignore)) == repr(
            (expected.fields, expected.phrases, expected.ignore)
        )


@pytest.mark.parametrize("name", SETS)
def test_index_statistics_match_the_reference(name: str) -> None:
    matcher, stopwords = vocabulary()
    items = [
        index_card(card, "user", f"/cards/{card.id}.md", matcher, words())
        for card in card_set(name)
    ]
    index = build_index(items, "digest")
    assert list(index.cards) == sorted(items, key=lambda c: (c.card.id, c.layer, c.path))
    expected = reference_postings(list(index.cards))
    assert list(index.postings.items()) == [(t, tuple(p)) for t, p in expected.items()]
    assert index.doc_freq == {t: len({p[0] for p in plist}) for t, plist in expected.items()}
    for item in items[:300]:
        single = build_index((item,), "digest")
        assert contribution(item, "digest") == (
            tuple((t, tuple((name, tf) for _, name, tf in e)) for t, e in single.postings.items()),
            tuple((field, round(length)) for field, length in single.avg_field_len.items()),
            bool(single.path_cards),
        )
        assert [field for field, _ in contribution(item, "digest")[1]] == list(FIELD_WEIGHTS)


@pytest.mark.parametrize("name", SETS)
def test_tokens_and_concepts_match_the_reference(name: str) -> None:
    matcher, stopwords = vocabulary()
    texts = {
        text
        for card in card_set(name)[:300]
        for text in (card.title, card.summary, card.category, *card.triggers, *card.use_when)
    }
    for text in sorted(texts):
        for form in (normalize_text(text), normalize_text(text).lower()):
            assert tokenize(form) == reference_tokenize(form), form
            assert matcher.find(form) == reference_find(matcher, form), form
        assert analyse_units(text, matcher, stopwords) == reference_units(text, matcher, stopwords)
        assert field_terms(text, matcher, stopwords) == reference_field(text, matcher, stopwords)


def test_a_fence_spanning_two_triggers_is_analysed_as_the_joined_text() -> None:
    matcher, stopwords = vocabulary()
    card = card_from_mapping(
        {
            "id": "fence",
            "summary": "s",
            "rule": "r",
            "recall": {"triggers": ["run ```sh", "git push --force``` then deploy"]},
        }
    )
    got = index_card(card, "user", "/cards/fence.md", matcher, words())
    assert got == reference_index_card(card, matcher, stopwords)
    assert dict(got.fields)["triggers"] == reference_field(
        " \n ".join(card.triggers), matcher, stopwords
    )


def test_han_terms_are_found_whatever_their_first_character() -> None:
    matcher = ConceptMatcher(
        han_terms=(("cpu占用", "cpu_usage"), ("占用", "usage"), ("é-b", "accent"), ("a-b", "odd")),
        word_terms={},
    )
    texts = (
        "cpu 占用很高",
        "x cpu占用 cpu  占用",
        "占用",
        "é-b a-b",
        "a-b",
        "plain",
        "",
        " 占用 ",
        "xcpu占用",
        "cpu`占用` x ` 占用",
    )
    for text in texts:
        assert matcher.find(text) == reference_find(matcher, text), text


@pytest.mark.parametrize(
    "text, expected",
    [
        # The concept 本地化 leaves 伪 (pseudo-) out: the bigram that carries it stays a unit.
        ("伪本地化", ("§i18n", "伪本")),
        # 里 is a stopword character: 日志里 is still only the concept 日志.
        ("日志里", ("§log",)),
        ("本地化", ("§i18n",)),
    ],
)
def test_a_han_bigram_past_a_concept_keeps_its_content_character(
    text: str, expected: tuple[str, ...]
) -> None:
    matcher, stopwords = vocabulary()
    assert analyse_units(text, matcher, stopwords) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("-auto-approve", ("§auto_approve",)),  # not also §approval for its "approve"
        ("terraform apply -auto-approve", ("§terraform", "§auto_approve")),
        ("approve the migration", ("§approval", "§migration")),  # side by side, both stay
    ],
)
def test_a_concept_inside_a_longer_ones_surface_is_not_a_unit(
    text: str, expected: tuple[str, ...]
) -> None:
    """A phrase names the longer idea only, so a prompt saying it in other words still covers it."""
    matcher, stopwords = vocabulary()
    assert analyse_units(text, matcher, stopwords) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        # "only" is a stopword, so the parts alone would make this any icon and any button.
        ("icon-only button", ("§icon", "§button", "icon-only")),
        ("icon button", ("§icon", "§button")),
        ("rate-limit", ("§rate_limit",)),  # every part says something: the parts carry it
        # A concept that covers the whole token stands for it: "iOS" (its part "i" a stopword)
        # is the concept alone, so "iPhone" in a prompt meets it.
        ("iOS", ("§ios",)),
    ],
)
def test_a_code_token_with_a_stopword_part_is_a_unit_itself(
    text: str, expected: tuple[str, ...]
) -> None:
    matcher, stopwords = vocabulary()
    assert analyse_units(text, matcher, stopwords) == expected
