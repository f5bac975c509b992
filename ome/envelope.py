"""The task envelope (SPEC §5.3): what a prompt asks for, decomposed once and shared by every card.

Language, files, commands and code symbols, exclusion spans ("no schema migration is involved",
"不涉及导出") kept apart from the positive text, signals, intent modes, concepts, and short
segments so that one real task inside a page of background is still found.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from typing import Literal

from ome import params
from ome.analysis import HAN_CLASS, Token, has_han, is_han, normalize_text, pair_words, tokenize
from ome.concepts import ConceptHit, ConceptMatcher, concept_token
from ome.signals import Detection, Registry, Vocabulary, detect_signals, find_phrase

Language = Literal["en", "zh", "mixed", "none"]

# Clause boundaries end an exclusion span; sentence boundaries end a segment. Texts arrive
# NFKC-folded (`normalize_text`): full-width ，；：！？ are ASCII by then, and only the marks
# NFKC keeps (。、—–) are listed besides the ASCII ones.
# A dot ends a sentence only before a space, more punctuation or the end: "3.22", "payment.js"
# and "api.acme.dev" are one token each.
_SENTENCE_RE = re.compile(r"(?:[^.!?。;\n]|\.(?=[^\s.!?]))+[.!?。;]*")
# Punctuation that ends a clause (a dash too: "no more debate - now test it"); the words that
# do (and those between two tasks) are data. A dot or colon inside a token ("3.12.4",
# "schema.sql", "python:3", "https://") ends nothing; a colon beside a CJK character is
# Chinese punctuation typed half-width ("跟会员无关:顾客要退钱"), so it does.
_BOUNDARY_OUTSIDE_TOKENS = rf"(?<!\w)[.:]|[.:](?![\w/])|(?<={HAN_CLASS}):|:(?={HAN_CLASS})|\s--?\s"
_CLAUSE_MARKS = r",;!?。\n—–"
_CLAUSE_PUNCTUATION = rf"[{_CLAUSE_MARKS}]|" + _BOUNDARY_OUTSIDE_TOKENS
_SPLIT_PUNCTUATION = rf"[{_CLAUSE_MARKS}、]|" + _BOUNDARY_OUTSIDE_TOKENS
# What an exclusion frame may hold between its opener and its closer: no clause punctuation,
# nor a dot or colon even inside a token.
_FRAME_INSIDE = rf"[^{_CLAUSE_MARKS}.:]"


@dataclass(frozen=True, slots=True)
class _Patterns:
    """The envelope's regexes, built from a registry's vocabulary."""

    clause_end: re.Pattern[str]  # where a negated or excluded span ends
    clause_split: re.Pattern[str]  # where one task of a two-task prompt ends
    path: re.Pattern[str]
    command: re.Pattern[str]
    task_count: re.Pattern[str]  # words counting a prompt's tasks
    exclusion_frame: re.Pattern[str]  # an opener, a thing's name, a closer: "跟登录没关系"


def _words(words: tuple[str, ...]) -> str:
    """An alternation of words: ASCII ones on word boundaries, others anywhere; longest first."""
    ordered = sorted(words, key=lambda w: (-len(w), w))
    return "|".join(rf"\b{re.escape(w)}\b" if w.isascii() else re.escape(w) for w in ordered)


@lru_cache(maxsize=8)
def _patterns(
    breaks: tuple[str, ...],
    connectors: tuple[str, ...],
    programs: tuple[str, ...],
    extensions: tuple[str, ...],
    counts: tuple[str, ...],
    frame_openers: tuple[str, ...],
    frame_closers: tuple[str, ...],
) -> _Patterns:
    def alternation(punctuation: str, words: tuple[str, ...]) -> re.Pattern[str]:
        return re.compile(punctuation + ("|" + _words(words) if words else ""))

    exts = "|".join(re.escape(e) for e in sorted(extensions, key=lambda e: (-len(e), e)))
    progs = "|".join(re.escape(p) for p in sorted(programs, key=lambda p: (-len(p), p)))
    path = r"(?<![\w/])(?:~?/)?(?:[\w.@-]+/)+[\w.@-]+"
    if exts:
        path += rf"|(?<![\w/])[\w-]+\.(?:{exts})\b"
    path += r"|(?<![\w])\.env(?:\.[\w-]+)?\b"
    command = (
        rf"(?<![\w-])(?:{progs})\s+-{{0,2}}[\w][\w.:/=-]*(?:\s+-{{1,2}}[\w][\w=-]*)*"
        if progs
        else r"(?!)"
    )
    return _Patterns(
        clause_end=alternation(_CLAUSE_PUNCTUATION, breaks),
        clause_split=alternation(_SPLIT_PUNCTUATION, connectors),
        path=re.compile(path),
        command=re.compile(command),
        task_count=re.compile("|".join(_count_cue(c) for c in counts) or r"(?!)"),
        exclusion_frame=re.compile(
            rf"(?:{_words(frame_openers)}){_FRAME_INSIDE}{{1,{params.EXCLUSION_FRAME_CHARS}}}?"
            rf"(?:{_words(frame_closers)})"
            if frame_openers and frame_closers
            else r"(?!)"
        ),
    )


# What may follow a Chinese exclusion closer before its clause ends: particles ("不用管了吧").
_CLOSER_PARTICLES = "了它啦吧哈呢的 "


def _count_cue(cue: str) -> str:
    """A task-count cue as a regex; an English one also takes up to two words before its noun.

    "two things" counts "two CI things" and "two small security things" too.
    """
    words = cue.split()
    if not cue.isascii() or len(words) < 2:
        return _words((cue,))
    head = r"\s+".join(re.escape(w) for w in words[:-1])
    return rf"\b{head}\s+(?:[\w-]+\s+){{0,2}}{re.escape(words[-1])}\b"


def _vocabulary_patterns(vocab: Vocabulary) -> _Patterns:
    return _patterns(
        vocab.clause_breaks,
        vocab.clause_connectors,
        vocab.command_programs,
        vocab.path_extensions,
        vocab.task_count_cues,
        vocab.exclusion_frame_openers,
        vocab.exclusion_frame_closers,
    )


# Intents that change something: a signal that suppresses one of them declines the action.
_ACTION_INTENTS = frozenset({"execute", "operate"})
_SYMBOL_RE = re.compile(
    r"\b[a-z]+(?:[A-Z][a-z0-9]+)+\b|\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+\b|\b\w+_\w+\b|\b\w+\(\)"
    r"|\b[A-Z][A-Z0-9_]{3,}\b"
)
# List markers "1)", "1.", "1、", "(1)", "①", or a letter after a space or a stop ("A)", "a、",
# "(a)"), and their second item: a prompt that numbers its tasks holds several, however long it
# is (words that number tasks are data: first_task_markers); a third item makes it more than
# two. A version or a decimal (v1.2, 1.5s) is no marker, nor are call arguments (f(a), g(b)).
_LETTER_AFTER = r"(?:^|(?<=[\s:;,。：；，]))"


def _list_item(number: int) -> re.Pattern[str]:
    """The list marker of item `number` (1-3): "2)", "2.", "2、", "(2)", "②", "b)", "B、", "(b)"."""
    circled, letter = "①②③"[number - 1], "abc"[number - 1]
    letters = f"[{letter}{letter.upper()}]"
    return re.compile(
        rf"(?<![\w.])(?:{number}[).、]|\({number}\)|{circled})(?!\d)|"
        + _LETTER_AFTER
        + rf"(?:{letters}[)、]|\({letters}\))"
    )


_ITEM_RES = tuple(_list_item(n) for n in (1, 2, 3))
# A bullet ("- ", "* ", "• ") opening a line: in a list of two or more, the first bullet is item
# one, the second item two, and every later one a third item. In a numbered list, bullets are an
# item's details ("1) ...:\n- ...\n- ...\n2) ..."), not items.
_BULLET_RE = re.compile(r"^[ \t]*[-*•][ \t]", re.MULTILINE)


def _item_marks(text: str, number: int, pos: int = 0) -> list[tuple[int, int]]:
    """The (start, end) of each marker of list item `number` (1-3) at or after `pos`: a numbered
    or lettered marker, or, in a list that numbers nothing, the bullet in that place."""
    marks = [m.span() for m in _ITEM_RES[number - 1].finditer(text, pos)]
    bullets = [m.span() for m in _BULLET_RE.finditer(text)]
    if len(bullets) > 1 and not _ITEM_RES[0].search(text):
        placed = bullets[number - 1 :] if number == 3 else bullets[number - 1 : number]
        marks += [span for span in placed if span[0] >= pos]
    return sorted(marks)


# Quoted or backticked text is a message or a command being reported ("fails with 'No
# signatures found'", `--no-verify`): a cue inside it negates nothing the user asks.
_QUOTED_RE = re.compile(r"`[^`\n]+`|\"[^\"\n]+\"|“[^”\n]+”|「[^」\n]+」|(?<!\w)'[^'\n]+'(?!\w)")


@dataclass(frozen=True, slots=True)
class Segment:
    """A short slice of the prompt (about one sentence) with its positive terms and concepts."""

    start: int
    end: int
    terms: frozenset[str]
    weight: float = 1.0  # lower for background in a long prompt

    def holds(self, positions: Iterable[int]) -> bool:
        """True when one of the character positions falls inside this segment."""
        return any(self.start <= p < self.end for p in positions)


@dataclass(frozen=True, slots=True)
class Envelope:
    """Everything the engine needs to know about one prompt, computed once."""

    text: str
    language: Language
    terms: tuple[str, ...]
    exclusion_spans: tuple[tuple[int, int], ...]
    segments: tuple[Segment, ...]
    focus_terms: frozenset[str]  # terms of the full-weight segments: the request, no background
    windows: tuple[tuple[frozenset[str], float], ...]  # terms, weight: sentences, tasks
    # The English terms of each window's Chinese words (`Vocabulary.glosses`), in the order of
    # `windows`; empty when the prompt has no Han text.
    window_glosses: tuple[frozenset[str], ...]
    implied: frozenset[str]  # concept tokens only implied: what a named concept is a kind of
    clauses: tuple[frozenset[str], ...]  # its tasks when cues cut it so, else its clauses
    long_prompt: bool  # LONG_PROMPT_SEGMENTS(_ZH) sentences or more: background around one task
    multi_task: bool  # the prompt announces or numbers more than one task ("two things", "1) 2)")
    two_tasks: bool  # it counts or numbers two tasks, or one cue cuts a short prompt in two
    build_request: bool  # the prompt opens asking for new code or a rewrite ("Write a query ...")
    files: tuple[str, ...]
    commands: tuple[str, ...]
    symbols: tuple[str, ...]
    concepts: tuple[str, ...]
    concept_spans: tuple[tuple[str, int, int], ...]  # (concept, start, end) outside negations
    detection: Detection
    fired: tuple[str, ...]
    intent_modes: tuple[str, ...]
    # A fired signal says the user wants nothing done ("just explain, no code changes"): a
    # negative signal that suppresses a signal of an action intent.
    declines_action: bool
    task_types: tuple[str, ...]
    surfaces: tuple[str, ...]
    operations: tuple[str, ...]
    keywords: tuple[str, ...]

    @property
    def term_set(self) -> frozenset[str]:
        return frozenset(self.terms)

    def weight_at(self, position: int) -> float:
        """The weight of the segment holding a character position."""
        return _weight_at(self.segments, position)


def _weight_at(segments: Sequence[Segment], position: int) -> float:
    return next((s.weight for s in segments if s.start <= position < s.end), 1.0)


def detect_language(text: str) -> Language:
    han = sum(1 for c in text if is_han(c))
    latin = sum(1 for c in text if c.isascii() and c.isalpha())
    if not han and not latin:
        return "none"
    if han and latin:
        ratio = han / (han + latin / 4)
        return "zh" if ratio > 0.8 else "en" if ratio < 0.2 else "mixed"
    return "zh" if han else "en"


def _cue_spans(
    text: str,
    cues: tuple[str, ...],
    clause_end: re.Pattern[str],
    false_friends: tuple[tuple[int, int], ...],
) -> tuple[tuple[int, int], ...]:
    """Spans from each cue to the end of its clause, merged; a cue inside a false friend (别的)
    or an A-not-A question opens none."""
    spans: list[tuple[int, int]] = []
    for cue in cues:
        for start, _ in find_phrase(text, cue):
            if _asks_either_way(text, start) or _inside(start, false_friends):
                continue
            end_match = clause_end.search(text, start + len(cue))
            end = end_match.start() if end_match else len(text)
            spans.append((start, end))
    return _merged(spans)


def _closed_spans(
    text: str,
    closers: tuple[str, ...],
    back_references: tuple[str, ...],
    clause_end: re.Pattern[str],
) -> list[tuple[int, int]]:
    """Spans of the clauses a closer leaves out of the task ("日期格式这次不用管"), each from the
    boundary before the clause (so the clause's first word lies inside it) to the closer's end.
    A Chinese closer must end its clause, a particle aside: 不用管理员 and 不用管这些 close none."""
    spans: list[tuple[int, int]] = []
    for closer in closers:
        for start, end in find_phrase(text, closer):
            if not closer.isascii():
                stop = len(text) - len(text[end:].lstrip(_CLOSER_PARTICLES))
                if stop < len(text) and not clause_end.match(text, stop):
                    continue
            boundaries = list(clause_end.finditer(text, 0, start))
            begin, opening = boundaries[-1].span() if boundaries else (0, 0)
            # "这些都先不管" points back at sentences the background weighting already reads.
            if not _opens_with(text[opening:start], back_references):
                spans.append((begin, end))
    return spans


def _merged(spans: Sequence[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """Spans sorted, overlapping ones joined."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return tuple(merged)


def _false_friends(text: str, vocab: Vocabulary) -> tuple[tuple[int, int], ...]:
    quoted = tuple(m.span() for m in _QUOTED_RE.finditer(text))
    return quoted + tuple(
        span for word in vocab.cue_false_friends for span in find_phrase(text, word)
    )


def absent_spans(text: str, vocab: Vocabulary) -> tuple[tuple[int, int], ...]:
    """Spans of a lower-cased text that a negation or exclusion cue puts out of what it asserts:
    "tables without a primary key" asserts tables, and names a primary key as absent."""
    cues = tuple(cue for cue in vocab.absence_cues if cue in text)
    if not cues:
        return ()
    clause_end = _vocabulary_patterns(vocab).clause_end
    return _cue_spans(text, cues, clause_end, _false_friends(text, vocab))


def _asks_either_way(text: str, start: int) -> bool:
    """True for the 不 or 没 of a Chinese A-not-A question (是不是, 要不要, 有没有): it asks, it
    does not negate."""
    return (
        text[start] in "不没" and 0 < start < len(text) - 1 and text[start - 1] == text[start + 1]
    )


def _numbers_tasks(text: str, vocab: Vocabulary, segments: Sequence[Segment]) -> bool:
    """True when the prompt numbers its tasks: a first list marker or word, then a second, two
    of its items outside background. "Standup notes: 1) ...; 2) ...; 3) the incident, which is
    what I need you on." numbers a meeting's matters, and one request follows."""
    firsts = [end for _, end in _item_marks(text, 1)[:1]]
    firsts += [end for cue in vocab.first_task_markers for _, end in find_phrase(text, cue, 1)]
    if not firsts:
        return False
    after = min(firsts)
    seconds = [start for start, _ in _item_marks(text, 2, after)] + [
        start
        for cue in vocab.second_task_markers
        for start, _ in find_phrase(text, cue)
        if start >= after
    ]
    if not seconds:
        return False
    thirds = [start for start, _ in _item_marks(text, 3, after)]
    items = [after, *seconds, *thirds]
    return sum(_weight_at(segments, p) > params.BACKGROUND_WEIGHT for p in items) >= 2


def _task_pieces(text: str, vocab: Vocabulary) -> list[tuple[int, int]]:
    """The (start, end) of each task of a several-task prompt, cut where a word or list marker
    announces the next one ("..., and also lower the TTL", "顺便", "2)"); none when nothing cuts."""
    cues = (*vocab.multi_task_cues, *vocab.second_task_markers)
    cuts = {start for cue in cues for start, _ in find_phrase(text, cue) if start}
    cuts |= {start for start, _ in _item_marks(text, 2) if start}
    edges = [0, *sorted(cuts), len(text)]
    return list(pairwise(edges)) if cuts else []


def _opens_with(text: str, cues: tuple[str, ...]) -> bool:
    """True when the text's first word is one of the cues ("Write a query ...", not "Rewrite")."""
    opening = text.lstrip()
    # The cue and one character after it: enough to see the word ends there ("writes" is no cue).
    return any(find_phrase(opening[: len(cue) + 1], cue, 1) == [(0, len(cue))] for cue in cues)


def _inside(position: int, spans: tuple[tuple[int, int], ...]) -> bool:
    return any(start <= position < end for start, end in spans)


def _weigh_background(text: str, segments: list[Segment], vocab: Vocabulary) -> list[Segment]:
    """Lower the weight of what precedes the first focus cue ("the actual problem is", "现在的问题
    是"), of sentences that call themselves background, and of the sentences before one that
    calls them so ("这些都先不管。") (the caller passes the sentences of a prompt long enough to
    hold background)."""
    marked = [start for cue in vocab.background_cues for start, _ in find_phrase(text, cue)]
    cued = [start for cue in vocab.focus_cues for start, _ in find_phrase(text, cue)]
    announcing = _announcing(text, segments, marked, cued)
    # A focus cue in a sentence that announces background ("Quick status before the actual
    # ask.") points past that sentence, so it marks nothing.
    starts = [p for p in cued if not any(s.start <= p < s.end for s in announcing)]
    focus = min((p for p in starts if p >= segments[0].end), default=None)
    announced = [segment in announcing for segment in segments]
    # The last background sentence that points back: every sentence before it is background.
    pointed = max(
        (
            i
            for i, segment in enumerate(segments)
            if announced[i]
            and _opens_with(text[segment.start : segment.end], vocab.back_reference_cues)
        ),
        default=0,
    )
    weighed = []
    for i, segment in enumerate(segments):
        # No focus cue sits in an announcing sentence, so one is light wherever it stands.
        light = (focus is not None and segment.end <= focus) or announced[i] or i < pointed
        weighed.append(
            Segment(segment.start, segment.end, segment.terms, params.BACKGROUND_WEIGHT)
            if light
            else segment
        )
    return weighed


def _announcing(
    text: str, segments: list[Segment], marked: list[int], cued: list[int]
) -> list[Segment]:
    """The sentences holding a background cue (`marked`), each with the clauses a semicolon
    joins to it: "先说背景：新赛季下周一开；周三停服更新；本地化也在做。" is background up to its
    full stop. A clause holding a focus cue (`cued`) ends the run."""
    announcing: list[Segment] = []
    carrying = False
    for segment in segments:
        if segment.holds(marked):
            carrying = True
        elif segment.holds(cued):
            carrying = False
        if carrying:
            announcing.append(segment)
            carrying = _runs_on(text, segment)
    return announcing


def _runs_on(text: str, segment: Segment) -> bool:
    """True when a segment ends in a semicolon: its sentence goes on in the next segment."""
    return text[segment.start : segment.end].rstrip().endswith((";", "；"))


def _sentences(text: str, segments: list[Segment]) -> int:
    """How many sentences the segments make: a semicolon ends none."""
    return sum(not _runs_on(text, s) for s in segments)


def _weigh_marked(
    text: str,
    segments: list[Segment],
    cues: tuple[str, ...],
    breaks: tuple[str, ...],
    failures: list[int],
    weight: float,
) -> list[Segment]:
    """Lower to `weight` the sentences holding one of `cues`: a sentence calling its matter
    settled ("that part's fine", "已经没问题了"), reporting work done ("the Grafana revamp is
    basically done", 脱敏也做了) or in other hands ("Jonas is on it"). The prompt is about what
    is still to do. A sentence that goes on past a break after its cue ("that part's fine, but
    the retries double-charge") or tells a failure (`failures`: where debugging words start,
    "the import crashes on Linux, I checked twice") is not lowered, and a prompt whose every
    sentence holds a cue keeps them all."""
    if len(segments) < 2:
        return segments
    marked = sorted(start for cue in cues for start, _ in find_phrase(text, cue))
    if not marked:
        return segments
    turns = [start for word in breaks for start, _ in find_phrase(text, word)]

    def lowered(segment: Segment) -> bool:
        cue = next((p for p in marked if segment.start <= p < segment.end), None)
        return (
            cue is not None
            and not any(cue < p < segment.end for p in turns)
            and not segment.holds(failures)
        )

    flags = [lowered(s) for s in segments]
    if all(flags) or not any(flags):
        return segments
    return [
        Segment(s.start, s.end, s.terms, min(s.weight, weight)) if low else s
        for s, low in zip(segments, flags, strict=True)
    ]


def _labels(text: str, table: tuple[tuple[str, tuple[str, ...]], ...]) -> tuple[str, ...]:
    return tuple(
        sorted(label for label, words in table if any(find_phrase(text, w) for w in words))
    )


def _prompt_tokens(text: str, matcher: ConceptMatcher) -> list[Token]:
    """A prompt's tokens, with the two words of each identifier written as two capitalised words
    that the lexicon does not know as a word: the class a user names ("LedgerExporter",
    "ParcelTracker.poll") says what the prompt is about, while a name the lexicon knows ("GitHub",
    "JavaScript") stays whole, so `github` still never yields `git`. Cards keep such tokens
    whole: they write their words out."""
    tokens = tokenize(text)
    return [
        *tokens,
        *(
            word
            for token in tokens
            if text[token.start].isupper() and token.term not in matcher.word_terms
            for word in pair_words(token, text)
        ),
    ]


def build_envelope(prompt: str, registry: Registry, matcher: ConceptMatcher) -> Envelope:
    """Decompose a prompt into its task envelope."""
    vocab = registry.vocabulary
    original = normalize_text(prompt)
    text = original.lower()
    stopwords = vocab.stopwords
    patterns = _vocabulary_patterns(vocab)
    friends = _false_friends(text, vocab)
    exclusions = _merged(
        [
            *_cue_spans(text, vocab.exclusion_cues, patterns.clause_end, friends),
            *(m.span() for m in patterns.exclusion_frame.finditer(text)),
            *_closed_spans(
                text, vocab.exclusion_closers, vocab.back_reference_cues, patterns.clause_end
            ),
        ]
    )
    negations = _cue_spans(text, vocab.negation_cues, patterns.clause_end, friends)
    positive = [
        token.term
        for token in _prompt_tokens(original, matcher)
        if token.term not in stopwords
        and token.term.strip()
        and not _inside(token.start, exclusions)
    ]
    # A concept the prompt names brings the concepts it is a kind of, at the same place.
    found = vocab.named(text, matcher.find(text))
    widened = {
        ConceptHit(b, h.start, h.end) for h in found for b in vocab.broader.get(h.concept, ())
    }
    all_hits = sorted({*found, *widened}, key=lambda h: (h.start, h.concept, h.end))
    implied = frozenset(concept_token(h.concept) for h in widened) - {
        concept_token(h.concept) for h in found
    }
    # A concept whose term starts with the cue ("no signal", "no connectivity") is named, not
    # negated: the cue is its first word.
    cue_starts = {start for start, _ in exclusions}
    concept_hits = [
        h for h in all_hits if h.start in cue_starts or not _inside(h.start, exclusions)
    ]
    concept_ids = tuple(sorted({h.concept for h in concept_hits}))
    positive.extend(concept_token(c) for c in concept_ids)

    def span_terms(start: int, stop: int, leave_out: tuple[tuple[int, int], ...]) -> frozenset[str]:
        """The terms and concepts of text[start:stop], but those starting in `leave_out`."""
        terms = {
            t.term
            for t in _prompt_tokens(original[start:stop], matcher)
            if t.term not in stopwords and not _inside(start + t.start, leave_out)
        }
        terms |= {concept_token(h.concept) for h in concept_hits if start <= h.start < stop}
        return frozenset(terms)

    segments: list[Segment] = []
    for match in _SENTENCE_RE.finditer(text):
        start, end = match.span()
        if not match.group(0).strip():
            continue
        while start < end:
            stop = min(end, start + params.SEGMENT_MAX_CHARS)
            if seg_terms := span_terms(start, stop, exclusions):
                segments.append(Segment(start, stop, seg_terms))
            start = stop
    language = detect_language(text)
    least = (
        params.LONG_PROMPT_SEGMENTS_ZH
        if language in ("zh", "mixed")
        else params.LONG_PROMPT_SEGMENTS
    )
    sentences = _sentences(text, segments)
    if sentences >= least:
        segments = _weigh_background(text, segments, vocab)
    detection = detect_signals(registry, text, ((h.concept, h.start, h.end) for h in all_hits))
    failures = [
        start for hit in detection.hits if hit.intent == "debug" for start, _ in hit.mentions
    ]
    breaks = vocab.clause_breaks
    segments = _weigh_marked(
        text, segments, vocab.settled_cues, breaks, failures, params.SETTLED_WEIGHT
    )
    long_prompt = sentences >= least and len(text) >= params.LONG_PROMPT_CHARS
    if long_prompt:
        # A status update around the request ("billing is merged", "Jonas is on it") is
        # background, wherever it stands; a failure in other hands is theirs, not the prompt's.
        segments = _weigh_marked(
            text, segments, vocab.status_cues, breaks, failures, params.BACKGROUND_WEIGHT
        )
        segments = _weigh_marked(
            text, segments, vocab.handoff_cues, breaks, [], params.BACKGROUND_WEIGHT
        )
    clauses = []
    bounds = [0, *(i for m in patterns.clause_split.finditer(text) for i in m.span()), len(text)]
    for start, stop in zip(bounds[0::2], bounds[1::2], strict=True):
        if clause := span_terms(start, stop, ()):
            clauses.append(clause)

    # A count in a background sentence ("we had the review and a few things came up: ...")
    # counts that meeting's matters, not the prompt's tasks.
    counted = len(clauses) > 1 and (
        _numbers_tasks(text, vocab, segments)
        or any(
            _weight_at(segments, m.start()) > params.BACKGROUND_WEIGHT
            for m in patterns.task_count.finditer(text)
        )
    )
    multi_task = counted or (
        len(clauses) > 1
        and not long_prompt
        and any(find_phrase(text, cue) for cue in vocab.multi_task_cues)
    )
    # Where a multi-task cue or list marker starts the next task ("..., and also", "顺便", "2)").
    pieces = _task_pieces(text, vocab) if multi_task else []
    # Cut so into tasks, a prompt's clauses are its tasks: the commas and sentences inside one
    # task ("..., and also check X? Y shows Z.") do not make two readings of it two tasks. A third
    # list marker ("3)") starts a task too; a cut before a last word ("Fix both.") cuts nothing,
    # and a prompt counting three tasks or more in words ("three things") is not cut into two.
    # Both are read only where the prompt announces several tasks, as are `two_tasks` below.
    thirds = [start for start, _ in _item_marks(text, 3)] if multi_task else []
    more_tasks_said = multi_task and any(find_phrase(text, cue) for cue in vocab.more_task_markers)
    edges = sorted(
        {*(start for start, _ in pieces), *(p for p in thirds if p and pieces), len(text)}
    )
    tasks = [clause for start, stop in pairwise(edges) if (clause := span_terms(start, stop, ()))]
    if len(tasks) > 1 and not more_tasks_said:
        clauses = tasks
    # In a prompt of several tasks each sentence, and each task of one sentence, is also read
    # alone: a task's card is measured against its own words, not diluted by the next task's.
    spans = (
        (params.DESCRIPTION_WINDOW_SEGMENTS, 1)
        if multi_task
        else (params.DESCRIPTION_WINDOW_SEGMENTS,)
    )
    # (start, stop) of each window, once: the last sentence's window is that sentence alone.
    window_bounds = dict.fromkeys(
        (i, min(i + span, len(segments))) for i in range(len(segments)) for span in spans
    )
    # The description windows: (start, stop, terms, weight) of each run of sentences, and of
    # each task piece.
    windows = [
        (
            chosen[0].start,
            chosen[-1].end,
            frozenset(t for s in chosen for t in s.terms),
            sum(s.weight for s in chosen) / len(chosen),
        )
        for start, stop in window_bounds
        if (chosen := segments[start:stop])
    ] + [
        (start, stop, terms, _weight_at(segments, start))
        for start, stop in pieces
        if (terms := span_terms(start, stop, exclusions))
    ]

    def glossed(start: int, stop: int) -> frozenset[str]:
        """The glosses of original[start:stop], what an exclusion span holds left out."""
        kept = original[start:stop]
        for a, b in exclusions:
            a, b = max(a, start) - start, min(b, stop) - start
            if a < b:
                kept = kept[:a] + " " * (b - a) + kept[b:]
        return vocab.glosses(kept)

    # A positive signal whose every mention sits in a negated span did not fire: "不要开始执行"
    # does not ask to execute. Negative signals are statements about the prompt and always count.
    fired = tuple(
        sorted(
            {
                hit.id
                for hit in detection.hits
                if hit.polarity == "negative"
                or any(not _inside(start, negations) for start, _ in hit.mentions)
            }
        )
    )
    intents = tuple(
        sorted({hit.intent for hit in detection.hits if hit.intent and hit.id in fired})
    )
    operations = _labels(text, vocab.operations)
    counts = Counter(positive)
    keywords = tuple(
        term for term, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:24]
    )
    return Envelope(
        text=text,
        language=language,
        terms=tuple(positive),
        exclusion_spans=exclusions,
        segments=tuple(segments),
        focus_terms=frozenset(t for s in segments if s.weight == 1.0 for t in s.terms),
        windows=tuple((terms, weight) for _, _, terms, weight in windows),
        window_glosses=tuple(glossed(start, stop) for start, stop, _, _ in windows)
        if has_han(original)
        else (),
        implied=implied,
        clauses=tuple(clauses),
        long_prompt=long_prompt,
        multi_task=multi_task,
        # A prompt that counts or numbers two tasks holds two, and so does one of two sentences
        # at most that one cue cuts in two ("Speed up the join; 顺便看看 the bucketing"): a
        # longer chain may hold more matters than it has cues.
        two_tasks=(counted or (len(pieces) == 2 and sentences <= 2))
        and not thirds
        and not more_tasks_said,
        # A request whose one operation is a deletion ("把生产库里的旧档案全部删掉", "Write a job
        # that will delete ...") is judged as the deletion it asks for: lessons about deleting apply
        # whatever carries it out, so only other builds are held to a phrase of the card's own.
        build_request=_opens_with(text, vocab.build_cues) and operations != ("delete",),
        files=tuple(dict.fromkeys(m.group(0) for m in patterns.path.finditer(original))),
        commands=tuple(dict.fromkeys(m.group(0).strip() for m in patterns.command.finditer(text))),
        symbols=tuple(dict.fromkeys(m.group(0) for m in _SYMBOL_RE.finditer(original)))[:32],
        concepts=concept_ids,
        concept_spans=tuple((h.concept, h.start, h.end) for h in concept_hits),
        detection=detection,
        fired=fired,
        intent_modes=intents,
        declines_action=any(
            (signal := registry.get(signal_id)) is not None
            and signal.polarity == "negative"
            and any(
                (target := registry.get(t)) is not None and target.intent in _ACTION_INTENTS
                for t in signal.suppresses
            )
            for signal_id in fired
        ),
        task_types=_labels(text, vocab.task_types),
        surfaces=_labels(text, vocab.surfaces),
        operations=operations,
        keywords=keywords,
    )


__all__ = ["Envelope", "Language", "Segment", "absent_spans", "build_envelope", "detect_language"]
