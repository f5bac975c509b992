"""Concept matching: map surface terms of the bilingual lexicon onto concept ids.

A prompt saying "强制推送" and a card saying "force push" meet on the concept `force_push`.
Both sides are matched by the same matcher, built once from the registry's lexicon.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from ome.analysis import (
    Span,
    has_han,
    is_ascii_alnum,
    is_han,
    normalize_text,
    stem,
    token_spans,
    tokenize,
    without_han_spaces,
)
from ome.params import HAN_GAP_MAX, HAN_GAP_MIN_TERM

CONCEPT_PREFIX = "§"
# Figures as counts are written. English: 1,200,000, 1.2 or 120, with a magnitude (120M, 1.2
# billion). Chinese: Arabic digits and Chinese numerals (八千, 两, 3 千), 万 or 亿 (多 "and more"
# beside them), read from the start of a run of them only: tried at every digit of a long run,
# a text of digits would cost time in the square of its length.
_ENGLISH_NUMBER = r"(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*(k|mm|m|bn|b|thousand|million|billion)?\b"
# A figure and up to three words, the last of which may be the unit ("40M existing rows", "an
# 80M-row table"); a word and the figure after it ("page 5000", "offset=99980").
_FIGURE_THEN_WORDS = re.compile(r"(?<![\w.])" + _ENGLISH_NUMBER + r"((?:[\s-]+[a-z]+){1,3})")
_WORD_THEN_FIGURE = re.compile(r"\b([a-z]+)[\s=:]*" + _ENGLISH_NUMBER)
_ENGLISH_MAGNITUDES = {
    "k": 1e3,
    "thousand": 1e3,
    "m": 1e6,
    "mm": 1e6,
    "million": 1e6,
    "b": 1e9,
    "bn": 1e9,
    "billion": 1e9,
}
_HAN_FIGURE = (
    r"(?<![\d.零〇一二两三四五六七八九十百千万亿])"
    r"(\d+(?:\.\d+)?)?\s*([零〇一二两三四五六七八九十百千]*)\s*多?\s*(万亿|万|亿)?\s*多?\s*"
)
_DIGIT = re.compile(r"\d")
_WORD = re.compile(r"[a-z]+")
_HAN_DIGITS = {c: float(i) for i, c in enumerate("零一二三四五六七八九")} | {"〇": 0.0, "两": 2.0}
_HAN_MULTIPLIERS = {"十": 10.0, "百": 100.0, "千": 1e3, "万": 1e4, "亿": 1e8, "万亿": 1e12}
# One first term's sequences: concepts of the term alone, then (length, sequence -> concepts).
_WordTable = tuple[tuple[str, ...], tuple[tuple[int, dict[tuple[str, ...], tuple[str, ...]]], ...]]


@dataclass(frozen=True, slots=True)
class ConceptHit:
    """A concept found in a text: its id and the char span of the surface term."""

    concept: str
    start: int
    end: int


COUNT_SLOT = "#"  # where the figure goes in a count template ("# row", "page #", "第#页")


@dataclass(frozen=True, slots=True)
class CountRule:
    """Counts in figures that name a concept: at least `at_least`, said as one of `templates`
    ("# row" and "#行" name a large table in "120M rows" and 八千万行; "page #" and "第#页" deep
    pagination in "page 5000"). An English template is one word before or after the figure,
    matched stemmed (a figure may have two more words before its unit: "40M existing rows"); a
    Chinese template is Chinese text around it. `not_templates` are longer Chinese readings of
    a template that count something else ("#行代码": lines of code, not rows)."""

    at_least: int
    templates: tuple[str, ...]
    not_templates: tuple[str, ...] = ()


class _HanTemplate(NamedTuple):
    prefix: str
    needle: str  # the template's suffix, else its prefix: a text without it holds no match
    pattern: re.Pattern[str]  # the prefix, a Chinese figure (groups 1-3), the suffix
    not_after: tuple[str, ...]  # what continues a match into one of the rule's not_templates


class _CountReader(NamedTuple):
    concept: str
    at_least: int
    after: frozenset[str]  # stems of the words said after the figure ("# row")
    before: frozenset[str]  # stems of the words said before it ("page #")
    han: tuple[_HanTemplate, ...]


def split_count_template(template: str) -> tuple[str, str]:
    """What a count template says before and after the figure's slot: ("page", "") for
    "page #", ("", "行") for "#行"."""
    prefix, _, suffix = template.partition(COUNT_SLOT)
    return prefix.strip(), suffix.strip()


def _count_reader(concept: str, rule: CountRule) -> _CountReader:
    after: set[str] = set()
    before: set[str] = set()
    han: list[_HanTemplate] = []
    for template in rule.templates:
        prefix, suffix = split_count_template(template)
        if not has_han(template):
            (after if suffix else before).add(stem(suffix or prefix))
            continue
        head = prefix + COUNT_SLOT + suffix
        not_after = tuple(t[len(head) :] for t in rule.not_templates if t.startswith(head))
        pattern = re.compile(re.escape(prefix) + r"\s*" + _HAN_FIGURE + re.escape(suffix))
        han.append(_HanTemplate(prefix, suffix or prefix, pattern, not_after))
    return _CountReader(concept, rule.at_least, frozenset(after), frozenset(before), tuple(han))


def _english_value(number: str, magnitude: str | None) -> float:
    return float(number.replace(",", "")) * _ENGLISH_MAGNITUDES.get(magnitude or "", 1.0)


def _english_counts(rules: tuple[_CountReader, ...], text: str) -> Iterator[tuple[int, str, int]]:
    """(start, concept, end) of each English count of the rules, the text scanned once for all:
    a figure then (up to two words on) a word of "# row", or a word of "page #" then a figure."""
    for m in _FIGURE_THEN_WORDS.finditer(text):
        value = _english_value(m[1], m[2])
        words = [(w.end(), stem(w[0])) for w in _WORD.finditer(text, m.start(3), m.end(3))]
        for rule in rules:
            if value >= rule.at_least:
                end = next((end for end, word in words if word in rule.after), None)
                if end is not None:
                    yield m.start(), rule.concept, end
    for m in _WORD_THEN_FIGURE.finditer(text):
        word, value = stem(m[1]), _english_value(m[2], m[3])
        for rule in rules:
            if word in rule.before and value >= rule.at_least:
                yield m.start(), rule.concept, m.end()


def _han_counts(
    rule: _CountReader, template: _HanTemplate, text: str
) -> Iterator[tuple[int, str, int]]:
    """(start, concept, end) of each count said in a Chinese template of a rule (a figure said
    at all, not read on into one of its `not_after` continuations)."""
    for m in template.pattern.finditer(text):
        said = [g for g in (1, 2, 3) if m[g]]
        if not said or any(text.startswith(t, m.end()) for t in template.not_after):
            continue
        if _han_number(m[1], m[2]) * _HAN_MULTIPLIERS.get(m[3] or "", 1.0) >= rule.at_least:
            yield (m.start() if template.prefix else m.start(said[0])), rule.concept, m.end()


def _han_number(digits: str | None, numerals: str) -> float:
    """The value of Arabic digits followed by Chinese numerals: "八千" 8000, "3千" 3000, "十二"
    12, "两" 2; nothing at all is one (亿 alone is one 亿)."""
    total, number = 0.0, float(digits) if digits else 0.0
    for char in numerals:
        if char in _HAN_DIGITS:
            number = _HAN_DIGITS[char]
        else:
            total += (number or 1.0) * _HAN_MULTIPLIERS[char]
            number = 0.0
    if not digits and not numerals:
        return 1.0
    return total + number


@dataclass(frozen=True, slots=True)
class ConceptMatcher:
    """Han terms are found as substrings (an English edge on a word boundary), also across one
    infix character between two Han characters (an aspect particle: 改完密码 holds 改密码); a
    long Han term also with a few Han characters inside it (按职责把它拆开 holds 按职责拆开);
    other terms as whole-token sequences, also across infix words between two words
    ("certificate has expired" holds "certificate expired")."""

    han_terms: tuple[tuple[str, str], ...]  # (surface, concept id), longest first
    word_terms: dict[str, tuple[tuple[tuple[str, ...], str], ...]]  # first term -> sequences
    han_infixes: str = ""  # single characters a Han term may hold inside it in a text
    han_joiners: str = ""  # single characters that join two things: never inside a gapped term
    word_infixes: frozenset[str] = frozenset()  # words (as terms) a word term may hold inside it
    counts: tuple[tuple[str, CountRule], ...] = ()  # (concept id, the counts that name it)
    # han_terms by their first non-ASCII character (a text holding a term holds that
    # character): only terms keyed by a character of the text are searched for, and ASCII
    # text not at all ("cpu 占用" is keyed by "占", not by the "c" of every English word).
    _han_by_char: dict[str, tuple[tuple[str, str], ...]] = field(
        init=False, repr=False, compare=False, hash=False
    )
    _ascii_han_terms: bool = field(init=False, repr=False, compare=False, hash=False)
    # word_terms of one first term as lookups, made when the term is first met: the concepts of
    # its one-term sequence, and (length, sequence -> concepts) for longer ones. A common first
    # word then costs one dict lookup per length instead of one comparison per sequence.
    _word_tables: dict[str, _WordTable] = field(init=False, repr=False, compare=False, hash=False)
    # Han terms long enough to be found with a gap, by their first two characters.
    _gapped: dict[str, tuple[tuple[str, str], ...]] = field(
        init=False, repr=False, compare=False, hash=False
    )
    # The count rules as `_count_hits` reads them (`_CountReader`), in the order of `counts`.
    _count_rules: tuple[_CountReader, ...] = field(
        init=False, repr=False, compare=False, hash=False
    )

    def __post_init__(self) -> None:
        gapped: dict[str, list[tuple[str, str]]] = {}
        for surface, concept in self.han_terms:
            if len(surface) >= HAN_GAP_MIN_TERM and all(is_han(c) for c in surface):
                gapped.setdefault(surface[:2], []).append((surface, concept))
        object.__setattr__(self, "_gapped", {k: tuple(v) for k, v in gapped.items()})
        by_char: dict[str, list[tuple[str, str]]] = {}
        ascii_terms = False
        for surface, concept in self.han_terms:
            key = surface[0]
            if key.isascii():
                key = next((c for c in surface if not c.isascii()), key)
                ascii_terms = ascii_terms or key.isascii()
            by_char.setdefault(key, []).append((surface, concept))
        object.__setattr__(
            self, "_han_by_char", {char: tuple(terms) for char, terms in by_char.items()}
        )
        object.__setattr__(self, "_ascii_han_terms", ascii_terms)
        object.__setattr__(self, "_word_tables", {})
        rules = tuple(_count_reader(concept, rule) for concept, rule in self.counts)
        object.__setattr__(self, "_count_rules", rules)

    def _word_table(self, first: str) -> _WordTable:
        single: list[str] = []
        longer: dict[int, dict[tuple[str, ...], tuple[str, ...]]] = {}
        for sequence, concept in self.word_terms[first]:
            if len(sequence) == 1:
                single.append(concept)
            else:
                table = longer.setdefault(len(sequence), {})
                table[sequence] = (*table.get(sequence, ()), concept)
        made = (tuple(single), tuple(longer.items()))
        self._word_tables[first] = made
        return made

    def find(self, text: str) -> tuple[ConceptHit, ...]:
        """Concepts occurring in an NFKC lower-cased text, sorted by position then id."""
        hits = set(self.text_hits(text))
        hits.update(self.word_hits(token_spans(text)))
        return tuple(ConceptHit(concept, start, end) for start, concept, end in sorted(hits))

    def text_hits(self, text: str) -> list[tuple[int, str, int]]:
        """(start, concept, end) of what is read from a text's characters rather than its word
        tokens: Han terms and counts."""
        hits = self.han_hits(text)
        if self._count_rules:
            hits.extend(self._count_hits(text))
        return hits

    def _count_hits(self, text: str) -> list[tuple[int, str, int]]:
        """Counts in figures said as one of a rule's templates and reaching its bar."""
        hits: list[tuple[int, str, int]] = []
        if _DIGIT.search(text) is not None:
            hits.extend(_english_counts(self._count_rules, text))
        for rule in self._count_rules:
            for template in rule.han:
                if template.needle in text:
                    hits.extend(_han_counts(rule, template, text))
        return hits

    def han_hits(self, text: str) -> list[tuple[int, str, int]]:
        """(start, concept, end) of every Han surface term in the text, as `find` sees them:
        the text is searched without the spaces that part CJK from other characters, as terms
        are kept (`without_han_spaces`)."""
        if text.isascii() and not self._ascii_han_terms:
            return []
        compact, kept = without_han_spaces(text)
        if kept is None:
            return self._compact_han_hits(text)
        return [
            (kept[start], concept, kept[end - 1] + 1)
            for start, concept, end in self._compact_han_hits(compact)
        ]

    def _compact_han_hits(self, text: str) -> list[tuple[int, str, int]]:
        """`han_hits` of a text as `without_han_spaces` leaves it."""
        hits = self._substring_hits(text, None)
        if any(c in text for c in self.han_infixes):
            # The text again without the infixes that sit between two Han characters; only
            # terms found across a removed infix are new.
            kept = [
                i
                for i, c in enumerate(text)
                if not (
                    c in self.han_infixes
                    and 0 < i < len(text) - 1
                    and is_han(text[i - 1])
                    and is_han(text[i + 1])
                )
            ]
            if len(kept) < len(text):
                hits.extend(self._substring_hits("".join(text[i] for i in kept), kept))
        taken = {i for start, _, end in hits for i in range(start, end)}
        hits.extend(self._gapped_hits(text, taken))
        return hits

    def _gapped_hits(self, text: str, taken: set[int]) -> list[tuple[int, str, int]]:
        """Long Han terms split in two parts of two or more characters, with one to
        HAN_GAP_MAX Han characters between the parts in the text that no other term holds
        (设计规范文档 is no gapped 设计文档: its 规范 belongs to 设计规范) and no joiner is
        among (镜像和版本号 names two things, not a 镜像版本号)."""
        bigrams = {text[i : i + 2] for i in range(len(text) - 1)}
        hits: list[tuple[int, str, int]] = []
        for key in sorted(bigrams & self._gapped.keys()):
            for surface, concept in self._gapped[key]:
                for split in range(2, len(surface) - 1):
                    head, tail = surface[:split], surface[split:]
                    if tail[:2] not in bigrams:
                        continue
                    start = text.find(head)
                    while start >= 0:
                        middle = start + split
                        for gap in range(1, HAN_GAP_MAX + 1):
                            filler = middle + gap - 1
                            if (
                                filler >= len(text)
                                or filler in taken
                                or not is_han(text[filler])
                                or text[filler] in self.han_joiners
                            ):
                                break
                            if text.startswith(tail, middle + gap):
                                hits.append((start, concept, middle + gap + len(tail)))
                        start = text.find(head, start + 1)
        return hits

    def _substring_hits(self, text: str, positions: list[int] | None) -> list[tuple[int, str, int]]:
        """Han terms in `text`; with `positions` (the original index of each character of a
        text with infixes removed), only those spanning a removed infix, in original offsets."""
        hits: list[tuple[int, str, int]] = []
        by_char = self._han_by_char
        for char in by_char.keys() & set(text):
            for surface, concept in by_char[char]:
                start = text.find(surface)
                while start >= 0:
                    end = start + len(surface)
                    if not _inside_a_word(text, start, end):  # 提交到git is not in 提交到github
                        if positions is None:
                            hits.append((start, concept, end))
                        elif positions[end - 1] - positions[start] >= len(surface):
                            hits.append((positions[start], concept, positions[end - 1] + 1))
                    start = text.find(surface, start + 1)
        return hits

    def word_hits(self, spans: Iterable[Span]) -> list[tuple[int, str, int]]:
        """(start, concept, end) of every word-term sequence among a text's `token_spans`."""
        # Word and part tokens only, as terms are built: a whole "on-call" token must not sit
        # between "the" and "on" of "page the on-call".
        ascii_spans = [s for s in spans if s[2] in ("word", "part")]
        words = [s[0] for s in ascii_spans]
        sequences = self.word_terms
        tables = self._word_tables
        hits: list[tuple[int, str, int]] = []
        for i in [i for i, word in enumerate(words) if word in sequences]:
            word = words[i]
            single, longer = tables.get(word) or self._word_table(word)
            start = ascii_spans[i][1]
            for concept in single:
                hits.append((start, concept, ascii_spans[i][3]))
            for n, table in longer:
                for concept in table.get(tuple(words[i : i + n]), ()):
                    hits.append((start, concept, ascii_spans[i + n - 1][3]))
        if any(word in self.word_infixes for word in words[1:-1]):
            hits.extend(self._infixed_hits(words, ascii_spans))
        return hits

    def _infixed_hits(self, words: list[str], spans: list[Span]) -> list[tuple[int, str, int]]:
        """Word terms found across infix words: the words again without the infixes between two
        words; only terms spanning a removed infix are new."""
        last = len(words) - 1
        kept = [i for i, w in enumerate(words) if not (0 < i < last and w in self.word_infixes)]
        hits: list[tuple[int, str, int]] = []
        for at, i in enumerate(kept):
            if words[i] not in self.word_terms:
                continue
            _, longer = self._word_tables.get(words[i]) or self._word_table(words[i])
            for n, table in longer:
                run = kept[at : at + n]
                if len(run) < n or run[-1] - i == n - 1:
                    continue  # past the text's end, or no infix inside: found as written
                for concept in table.get(tuple(words[j] for j in run), ()):
                    hits.append((spans[i][1], concept, spans[run[-1]][3]))
        return hits

    def concepts(self, text: str) -> tuple[str, ...]:
        return tuple(sorted({h.concept for h in self.find(text)}))


def _inside_a_word(text: str, start: int, end: int) -> bool:
    """True when text[start:end] begins or ends with an ASCII letter or digit that another one
    touches: a Han term's English edge is a word boundary, as for every phrase."""
    return (start > 0 and is_ascii_alnum(text[start]) and is_ascii_alnum(text[start - 1])) or (
        end < len(text) and is_ascii_alnum(text[end - 1]) and is_ascii_alnum(text[end])
    )


def matched_form(surface: str) -> tuple[str, tuple[str, ...]]:
    """A lexicon term as the matcher keeps it: a Han term as one string without the spaces
    around its English words, else ("", its word terms, stemmed). Two terms of one form are one
    term: "migrations" is "migration", "force-push" is "force push", "用 double" is "用double"."""
    text = normalize_text(surface).lower().strip()
    if any(is_han(c) for c in text):
        return without_han_spaces(text)[0], ()
    words = tuple(t.term for t in tokenize(text) if t.kind in ("word", "part"))
    return "", words or tuple(t.term for t in tokenize(text))


def build_concept_matcher(
    concepts: Iterable[tuple[str, Iterable[str]]],
    han_infixes: Iterable[str] = (),
    han_joiners: Iterable[str] = (),
    word_infixes: Iterable[str] = (),
    counts: Iterable[tuple[str, CountRule]] = (),
) -> ConceptMatcher:
    """Compile (concept id, surface terms) pairs, the infix and joiner characters, the infix
    words and (concept id, count rule) pairs into a matcher."""
    han: dict[str, str] = {}
    words: dict[str, set[tuple[tuple[str, ...], str]]] = {}
    for concept, surfaces in concepts:
        for surface in surfaces:
            han_term, sequence = matched_form(surface)
            if han_term:
                han.setdefault(han_term, concept)
            elif sequence:
                words.setdefault(sequence[0], set()).add((sequence, concept))
    return ConceptMatcher(
        han_terms=tuple(sorted(han.items(), key=lambda kv: (-len(kv[0]), kv[0]))),
        word_terms={k: tuple(sorted(v)) for k, v in sorted(words.items())},
        han_infixes="".join(sorted(set(han_infixes))),
        han_joiners="".join(sorted(set(han_joiners))),
        word_infixes=frozenset(t.term for w in word_infixes for t in tokenize(w)),
        counts=tuple(sorted(counts, key=lambda pair: pair[0])),
    )


def concept_token(concept: str) -> str:
    """The index term standing for a concept (cannot collide with a word)."""
    return CONCEPT_PREFIX + concept


__all__ = [
    "CONCEPT_PREFIX",
    "ConceptHit",
    "ConceptMatcher",
    "COUNT_SLOT",
    "CountRule",
    "build_concept_matcher",
    "concept_token",
    "matched_form",
    "split_count_template",
]
