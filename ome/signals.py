"""Signals: named detectors over a prompt, compiled from YAML packs into plain data.

Detection is pure and cheap on the hook path: phrases are found by substring search with ASCII
word boundaries, and a regex is compiled (lazily, once per registry) only when one of its literal
anchors occurs in the prompt. Regexes use `regex` syntax with ASCII `\\b`/`\\w` semantics, so
`\\bgit\\b` matches in "用git提交" just as the phrase `git` does.
"""

from __future__ import annotations

import importlib
import re
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal, cast

from ome.analysis import fold_chars, is_ascii_alnum, nfkc, stem, tokenize
from ome.concepts import (
    CONCEPT_PREFIX,
    ConceptHit,
    ConceptMatcher,
    CountRule,
    build_concept_matcher,
)
from ome.errors import RegistryError
from ome.glosses import Glossary, glosses_path

Polarity = Literal["positive", "negative"]
IntentMode = Literal["execute", "discuss", "explain", "review", "plan", "debug", "operate"]

POLARITIES: tuple[Polarity, ...] = ("positive", "negative")
INTENT_MODES: tuple[IntentMode, ...] = (
    "execute",
    "discuss",
    "explain",
    "review",
    "plan",
    "debug",
    "operate",
)
REGISTRY_SCHEMA = "ome-signal-registry"
REGISTRY_VERSION = 1
# Spans kept per hit: enough for the engine to tell a negated mention from a real one.
MAX_SPANS_PER_HIT = 16
# A composition looks at most this many occurrences of its rarest term, bounding huge prompts.
MAX_NEAR_OCCURRENCES = 64

_ASCII_WORD = re.compile(r"[a-z0-9]+")
# Where a sentence ends: a near-composition does not reach across one. A dot ends a sentence
# only before a space (not in "schema.sql" or "3.12").
_SENTENCE_END = re.compile(r"[!?。！？\n]|\.(?=\s)")


@dataclass(frozen=True, slots=True)
class RegexPattern:
    """A regex and the literals one of which every match contains (empty: always run)."""

    pattern: str
    anchors: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class NearPattern:
    """A composition: one term of every group, at most `window` characters apart."""

    groups: tuple[tuple[str, ...], ...]
    window: int


@dataclass(frozen=True, slots=True)
class Signal:
    """A named cue in prompts: the phrases, regexes and compositions that fire it, its effect."""

    id: str
    polarity: Polarity
    weight: float
    reason: str
    routes: bool
    intent: IntentMode | None
    suppresses: tuple[str, ...]
    targets: tuple[str, ...]
    phrases: tuple[str, ...]
    regexes: tuple[RegexPattern, ...]
    near: tuple[NearPattern, ...]
    concepts: tuple[str, ...]  # lexicon concepts: any of their terms, in any language, fires it
    expand: tuple[str, ...]
    pack: str
    enabled: bool = True


@dataclass(frozen=True, slots=True)
class Concept:
    """A bilingual synonym set: every term names the same engineering idea."""

    id: str
    terms: tuple[str, ...]
    # Concepts this one is a kind of, theirs included (a private key is a secret): a prompt
    # naming it names them too. Cards are not widened: a card about private keys is not
    # about every secret.
    broader: tuple[str, ...] = ()
    # Phrases that hold one of its terms in another sense ("roadmap review" is no code review,
    # "branch office" no git branch): inside them the prompt does not name this concept.
    not_in: tuple[str, ...] = ()
    # The counts in figures that name it too ("120M rows" is a large table).
    counts: tuple[CountRule, ...] = ()


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """The engine's word lists: stopwords, cue phrases, labelled task/surface/operation terms."""

    stopwords_en: frozenset[str]
    stopwords_zh: frozenset[str]
    negation_cues: tuple[str, ...]
    cue_false_friends: tuple[str, ...]  # words holding a cue that negate nothing (别的, 特别)
    exclusion_cues: tuple[str, ...]
    exclusion_frame_openers: tuple[str, ...]  # words opening a frame (跟 of 跟登录没关系)
    exclusion_frame_closers: tuple[str, ...]  # ... and closing it (没关系)
    exclusion_closers: tuple[str, ...]  # words ending a clause left out of the task (不用管)
    focus_cues: tuple[str, ...]
    background_cues: tuple[str, ...]
    back_reference_cues: tuple[str, ...]  # words opening a sentence about the ones before ("这些")
    settled_cues: tuple[str, ...]  # words saying a sentence's matter is done ("that part's fine")
    status_cues: tuple[str, ...]  # words reporting work done ("is merged", 已经上线)
    handoff_cues: tuple[str, ...]  # words putting a matter in other hands ("Jonas is on it")
    build_cues: tuple[str, ...]  # a prompt opening with one asks for new code ("write", "rename")
    multi_task_cues: tuple[str, ...]  # words announcing several tasks ("and then", 另外)
    task_count_cues: tuple[str, ...]  # words counting them ("two things", 两件事)
    first_task_markers: tuple[str, ...]  # words numbering a first task ("first,", 一是)
    second_task_markers: tuple[str, ...]  # ... and a second one ("second,", 二是)
    more_task_markers: tuple[str, ...]  # words announcing a third task ("three things", 三是)
    clause_connectors: tuple[str, ...]  # words between two tasks of one prompt ("also", 另外)
    clause_breaks: tuple[str, ...]  # words that end a negated or excluded span ("but", 但是)
    command_programs: tuple[str, ...]  # programs whose invocation reads as a shell command
    path_extensions: tuple[str, ...]  # file extensions that make a token a path
    task_types: tuple[tuple[str, tuple[str, ...]], ...]
    surfaces: tuple[tuple[str, tuple[str, ...]], ...]
    operations: tuple[tuple[str, tuple[str, ...]], ...]
    concepts: tuple[Concept, ...]
    han_infixes: tuple[str, ...] = ()  # Han characters a concept term may hold inside it
    han_joiners: tuple[str, ...] = ()  # Han characters no gapped concept term holds ("和")
    word_infixes: tuple[str, ...] = ()  # English words a concept term may hold inside it ("has")
    # English senses of Chinese words, the bridge where the lexicon names no concept.
    glossary: Glossary = Glossary()
    # Both languages' stopwords (a token is dropped when it is either), made once: every prompt
    # and every indexed card asks for them.
    stopwords: frozenset[str] = field(init=False, repr=False, compare=False)
    # Negation and exclusion cues together: what follows either is absent from what an
    # ignore_when phrase asserts ("tables without a primary key").
    absence_cues: tuple[str, ...] = field(init=False, repr=False, compare=False)
    # Concept id -> its broader concepts, for those that have some (see Concept.broader).
    broader: dict[str, tuple[str, ...]] = field(init=False, repr=False, compare=False)
    # Concept id -> the phrases it is not named in, for those that have some (Concept.not_in).
    not_in: dict[str, tuple[str, ...]] = field(init=False, repr=False, compare=False)
    # A plain unit -> the concept tokens of the same word ("spark" -> §spark; a one-word id's
    # stem too: "pag" -> §page), for the words that have one.
    word_concepts: dict[str, tuple[str, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "stopwords", self.stopwords_en | self.stopwords_zh)
        cues = dict.fromkeys(self.negation_cues + self.exclusion_cues)
        object.__setattr__(self, "absence_cues", tuple(cues))
        broader = {c.id: c.broader for c in self.concepts if c.broader}
        object.__setattr__(self, "broader", broader)
        object.__setattr__(self, "not_in", {c.id: c.not_in for c in self.concepts if c.not_in})
        words: dict[str, list[str]] = {}
        for c in self.concepts:
            for word in sorted({c.id} if "_" in c.id else {c.id, stem(c.id)}):
                words.setdefault(word, []).append(CONCEPT_PREFIX + c.id)
        object.__setattr__(self, "word_concepts", {w: tuple(ts) for w, ts in words.items()})

    def glosses(self, text: str) -> frozenset[str]:
        """The English terms (stopwords left out) of the Chinese words of `text`."""
        return self.glossary.glosses(text, self.stopwords_zh, self.stopwords)

    def word_senses(self, text: str) -> tuple[frozenset[str], ...]:
        """The English terms of each Chinese dictionary word of `text`, in order."""
        return self.glossary.word_senses(text, self.stopwords_zh, self.stopwords)

    def named(self, text: str, hits: Iterable[ConceptHit]) -> tuple[ConceptHit, ...]:
        """A lower-cased text's concept hits without those that touch a phrase using the
        concept's term in another sense (its `not_in` phrases: "roadmap review")."""
        spans: dict[str, list[tuple[int, int]]] = {}
        kept: list[ConceptHit] = []
        for hit in hits:
            phrases = self.not_in.get(hit.concept)
            if phrases:
                if hit.concept not in spans:
                    spans[hit.concept] = [s for p in phrases for s in find_phrase(text, p)]
                if any(start < hit.end and hit.start < end for start, end in spans[hit.concept]):
                    continue
            kept.append(hit)
        return tuple(kept)

    def concept_matcher(self) -> ConceptMatcher:
        """A matcher of these concepts (build it once: callers cache it)."""
        return build_concept_matcher(
            ((c.id, c.terms) for c in self.concepts),
            self.han_infixes,
            self.han_joiners,
            self.word_infixes,
            ((c.id, rule) for c in self.concepts for rule in c.counts),
        )


@dataclass(frozen=True, slots=True)
class Pack:
    """A signal pack as merged: its name, description, whether it is on and where it came from."""

    name: str
    description: str
    enabled: bool
    source: str


@dataclass(frozen=True, slots=True)
class Registry:
    """Every known signal (sorted by id), the engine's vocabulary and the content digest."""

    signals: tuple[Signal, ...]
    vocabulary: Vocabulary
    digest: str
    packs: tuple[Pack, ...] = ()
    _by_id: dict[str, Signal] = field(init=False, repr=False, compare=False, hash=False)
    # Compiled regexes by pattern text; filled lazily by detection, never serialised.
    _compiled: dict[str, Any] = field(init=False, repr=False, compare=False, hash=False)
    # The lexicon's matcher, built on first use by a detection that was given no concept hits.
    _matcher: list[ConceptMatcher] = field(init=False, repr=False, compare=False, hash=False)
    # Positive signals by the lexicon concepts that fire them (in id order).
    _by_concept: dict[str, tuple[Signal, ...]] = field(
        init=False, repr=False, compare=False, hash=False
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {signal.id: signal for signal in self.signals})
        by_concept: dict[str, list[Signal]] = {}
        for signal in self.signals:
            if signal.enabled and signal.polarity == "positive":
                for concept in signal.concepts:
                    by_concept.setdefault(concept, []).append(signal)
        object.__setattr__(self, "_by_concept", {c: tuple(s) for c, s in by_concept.items()})
        object.__setattr__(self, "_compiled", {})
        object.__setattr__(self, "_matcher", [])

    def concept_hits(self, text: str) -> tuple[tuple[str, int, int], ...]:
        """(concept, start, end) of the lexicon's terms in a normalised text."""
        if not self._matcher:
            self._matcher.append(self.vocabulary.concept_matcher())
        lowered = text.lower()
        found = self.vocabulary.named(lowered, self._matcher[0].find(lowered))
        return tuple((h.concept, h.start, h.end) for h in found)

    def get(self, signal_id: str) -> Signal | None:
        """Return the signal with this id, or None when it is not registered."""
        return self._by_id.get(signal_id)

    def concept_signals(self, concept: str) -> tuple[Signal, ...]:
        """The positive signals that a lexicon concept fires, in id order."""
        return self._by_concept.get(concept, ())

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(signal.id for signal in self.signals)

    def compiled_patterns(self) -> tuple[str, ...]:
        """The regexes compiled so far, sorted: proof that anchor gating skips the rest."""
        return tuple(sorted(self._compiled))


@dataclass(frozen=True, slots=True)
class SignalHit:
    """A signal that fired on a prompt: its first matched span and text, and its effect."""

    id: str
    polarity: Polarity
    weight: float
    start: int
    end: int
    text: str
    routes: bool
    intent: IntentMode | None
    # Every matched span (earliest first, capped), so a caller can ignore negated mentions.
    spans: tuple[tuple[int, int], ...] = ()

    @property
    def mentions(self) -> tuple[tuple[int, int], ...]:
        """Every matched span; the first one where none were recorded."""
        return self.spans or ((self.start, self.end),)


@dataclass(frozen=True, slots=True)
class Suppression:
    """Signal `id` matched but was switched off because signal `by` fired."""

    id: str
    by: str


@dataclass(frozen=True, slots=True)
class Detection:
    """What detection found in a prompt: the signals that fired and those switched off."""

    hits: tuple[SignalHit, ...]
    suppressed: tuple[Suppression, ...]

    @property
    def fired_ids(self) -> tuple[str, ...]:
        """Ids of the signals that fired and were not suppressed, sorted."""
        return tuple(sorted({hit.id for hit in self.hits}))

    def hit(self, signal_id: str) -> SignalHit | None:
        return next((hit for hit in self.hits if hit.id == signal_id), None)


def normalize_text(text: str) -> str:
    """NFKC-fold (full-width forms; NFKC keeps curly quotes), then `fold_chars` (straight quotes,
    Simplified characters) and lower-case: what detection expects."""
    return fold_chars(nfkc(text)).lower()


def _touches(before: str, first: str) -> bool:
    """True when `before` joins a phrase starting with `first` into a longer word or path."""
    if first == "/":
        return is_ascii_alnum(before) or before in "_-./~"
    return is_ascii_alnum(before)


def find_phrase(text: str, phrase: str, limit: int | None = None) -> list[tuple[int, int]]:
    """Spans of `phrase` in `text`; an ASCII letter/digit at a phrase edge must not touch another.

    So `git` is not found in `github`, while CJK phrases match anywhere inside a Han run. A
    slash command (`/goal`) is not found inside a path (`src/goal/`).
    """
    if not phrase:
        return []
    check_start = is_ascii_alnum(phrase[0]) or phrase[0] == "/"
    check_end = is_ascii_alnum(phrase[-1])
    size = len(phrase)
    spans: list[tuple[int, int]] = []
    index = text.find(phrase)
    while index >= 0:
        end = index + size
        start_ok = not check_start or index == 0 or not _touches(text[index - 1], phrase[0])
        end_ok = not check_end or end == len(text) or not is_ascii_alnum(text[end])
        if start_ok and end_ok:
            spans.append((index, end))
            if limit is not None and len(spans) >= limit:
                break
            index = text.find(phrase, end)
        else:
            index = text.find(phrase, index + 1)
    return spans


@lru_cache(maxsize=8192)
def _requirements(phrase: str) -> tuple[frozenset[str], frozenset[str]]:
    """ASCII words and non-ASCII characters a text must contain for `phrase` to be found."""
    words = frozenset(_ASCII_WORD.findall(phrase))
    wide = frozenset(char for char in phrase if not char.isascii() and not char.isspace())
    return words, wide


@dataclass(frozen=True, slots=True)
class _Prompt:
    """The prompt plus its word and character sets, computed once per detection."""

    text: str
    words: frozenset[str]
    chars: frozenset[str]

    @classmethod
    def of(cls, text: str) -> _Prompt:
        return cls(text, frozenset(_ASCII_WORD.findall(text)), frozenset(text))

    def find(self, phrase: str, limit: int | None = MAX_SPANS_PER_HIT) -> list[tuple[int, int]]:
        # With the boundary rule every ASCII word of a found phrase is a whole word of the text,
        # so a missing word (or character) proves absence without scanning the text.
        words, wide = _requirements(phrase)
        if not words <= self.words or not wide <= self.chars:
            return []
        return find_phrase(self.text, phrase, limit)


def compile_pattern(pattern: str) -> Any:
    """Compile with stdlib `re` when it reads the pattern the same way, else with `regex`.

    Most pack patterns are plain `re` syntax; importing `regex` costs the hook ~10 ms, so it is
    loaded only for patterns that need it (`\\p{Han}`, POSIX classes, ...).
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # "possible nested set": `regex` syntax, not `re`
            return re.compile(pattern, re.ASCII)
    except (re.error, FutureWarning):
        regex = importlib.import_module("regex")
        return regex.compile(pattern, regex.ASCII)


def _compiled(registry: Registry, pattern: str) -> Any:
    compiled = registry._compiled.get(pattern)
    if compiled is None:
        compiled = compile_pattern(pattern)
        registry._compiled[pattern] = compiled
    return compiled


def _regex_spans(registry: Registry, rule: RegexPattern, prompt: _Prompt) -> list[tuple[int, int]]:
    if rule.anchors and not any(anchor in prompt.text for anchor in rule.anchors):
        return []
    spans: list[tuple[int, int]] = []
    for match in _compiled(registry, rule.pattern).finditer(prompt.text):
        if match.end() > match.start():
            spans.append((match.start(), match.end()))
            if len(spans) >= MAX_SPANS_PER_HIT:
                break
    return spans


def _near_spans(rule: NearPattern, prompt: _Prompt) -> list[tuple[int, int]]:
    """Clusters holding one term of each group whose gap (latest start - earliest end) fits,
    inside one sentence: terms on either side of a full stop are two statements."""
    occurrences: list[list[tuple[int, int]]] = []
    for group in rule.groups:
        found = sorted(
            {span for term in group for span in prompt.find(term, MAX_NEAR_OCCURRENCES * 4)}
        )
        if not found:
            return []
        occurrences.append(found)
    pivot_index = min(range(len(occurrences)), key=lambda i: (len(occurrences[i]), i))
    spans: list[tuple[int, int]] = []
    for pivot in occurrences[pivot_index][:MAX_NEAR_OCCURRENCES]:
        chosen = [pivot]
        for index, group_spans in enumerate(occurrences):
            if index != pivot_index:
                chosen.append(min(group_spans, key=lambda span: (_gap(pivot, span), span)))
        latest_start = max(start for start, _ in chosen)
        earliest_end = min(end for _, end in chosen)
        first, last = min(start for start, _ in chosen), max(end for _, end in chosen)
        if latest_start - earliest_end <= rule.window and not _SENTENCE_END.search(
            prompt.text, first, last
        ):
            spans.append((first, last))
    return spans


def _gap(first: tuple[int, int], second: tuple[int, int]) -> int:
    return max(first[0], second[0]) - min(first[1], second[1])


def _signal_spans(
    registry: Registry,
    signal: Signal,
    prompt: _Prompt,
    concepts: Mapping[str, list[tuple[int, int]]],
) -> list[tuple[int, int]]:
    spans: set[tuple[int, int]] = set()
    for concept in signal.concepts:
        spans.update(concepts.get(concept, ()))
    for phrase in signal.phrases:
        spans.update(prompt.find(phrase))
    for rule in signal.regexes:
        spans.update(_regex_spans(registry, rule, prompt))
    for near in signal.near:
        spans.update(_near_spans(near, prompt))
    return sorted(spans, key=lambda span: (span[0], -span[1]))[:MAX_SPANS_PER_HIT]


def detect_signals(
    registry: Registry,
    text: str,
    concept_hits: Iterable[tuple[str, int, int]] | None = None,
) -> Detection:
    """Run every enabled signal over `text` (already `normalize_text`-ed) and apply suppression.

    `concept_hits` are the lexicon's (concept, start, end) in `text` when the caller has them
    (the envelope does); otherwise they are found here, for signals with `concepts` patterns.
    Suppression is order-independent: every signal that matched switches off the ids it
    `suppresses`, whether or not it is itself suppressed.
    """
    prompt = _Prompt.of(text)
    if concept_hits is None:
        wanted = any(s.concepts for s in registry.signals if s.enabled)
        concept_hits = registry.concept_hits(text) if wanted else ()
    concepts: dict[str, list[tuple[int, int]]] = {}
    for concept, start, end in concept_hits:
        concepts.setdefault(concept, []).append((start, end))
    matched: list[SignalHit] = []
    for signal in registry.signals:
        if not signal.enabled:
            continue
        spans = _signal_spans(registry, signal, prompt, concepts)
        if spans:
            start, end = spans[0]
            matched.append(
                SignalHit(
                    id=signal.id,
                    polarity=signal.polarity,
                    weight=signal.weight,
                    start=start,
                    end=end,
                    text=text[start:end],
                    routes=signal.routes,
                    intent=signal.intent,
                    spans=tuple(spans),
                )
            )
    matched_ids = {hit.id for hit in matched}
    pairs = sorted(
        {
            (target, hit.id)
            for hit in matched
            for target in registry._by_id[hit.id].suppresses
            if target in matched_ids and target != hit.id
        }
    )
    suppressed_ids = {target for target, _ in pairs}
    hits = sorted(
        (hit for hit in matched if hit.id not in suppressed_ids),
        key=lambda hit: (hit.start, hit.id),
    )
    return Detection(
        hits=tuple(hits),
        suppressed=tuple(Suppression(id=target, by=by) for target, by in pairs),
    )


def find_concepts(registry: Registry, text: str) -> tuple[Concept, ...]:
    """Lexicon concepts with at least one term in `text` (normalised), sorted by id."""
    prompt = _Prompt.of(text)
    return tuple(
        concept
        for concept in registry.vocabulary.concepts
        if any(prompt.find(term, 1) for term in concept.terms)
    )


def _id_key(value: str) -> str:
    return re.sub(r"[\s\-.]+", "_", value.strip().lower())


def nearest_signal_ids(registry: Registry, unknown: str, limit: int = 3) -> tuple[str, ...]:
    """Registered ids that look like `unknown` (a typo or an old name), closest first."""
    import difflib  # only lint and doctor ask; keep it off the hook's import path

    key = _id_key(unknown)
    key_words = {word for word in key.split("_") if word}
    scored: list[tuple[float, str]] = []
    for signal_id in registry.ids:
        ratio = difflib.SequenceMatcher(None, key, signal_id).ratio()
        words = set(signal_id.split("_"))
        union = key_words | words
        overlap = len(key_words & words) / len(union) if union else 0.0
        score = max(ratio, overlap)
        if score >= 0.45:
            scored.append((-score, signal_id))
    return tuple(signal_id for _, signal_id in sorted(scored)[:limit])


def unknown_signal_ids(registry: Registry, ids: Iterable[str]) -> tuple[str, ...]:
    """The ids a card names that the registry does not know, in first-seen order."""
    return tuple(dict.fromkeys(i for i in ids if registry.get(i) is None))


def trigger_contract_violations(
    registry: Registry,
    triggers: Sequence[str],
    required_ids: Sequence[str],
    *,
    mode: Literal["all", "any"] = "all",
) -> tuple[tuple[str, str], ...]:
    """(phrase, signal id) pairs where a card's own trigger phrase does not fire its signals.

    `mode="all"` (for `required_all`) wants every id per phrase; `mode="any"` (for `positive`)
    wants at least one and then reports each id. Unknown ids are left to `unknown_signal_ids`.
    """
    ids = tuple(i for i in dict.fromkeys(required_ids) if registry.get(i) is not None)
    violations: list[tuple[str, str]] = []
    if not ids:
        return ()
    for phrase in triggers:
        fired = set(detect_signals(registry, normalize_text(phrase)).fired_ids)
        missing = [signal_id for signal_id in ids if signal_id not in fired]
        if mode == "any" and len(missing) < len(ids):
            continue
        violations.extend((phrase, signal_id) for signal_id in missing)
    return tuple(violations)


def _strings(value: object) -> tuple[str, ...]:
    return tuple(str(item) for item in cast(Sequence[object], value or ()))


def _count_rules(value: object) -> tuple[CountRule, ...]:
    return tuple(
        CountRule(int(rule["at_least"]), _strings(rule["as"]), _strings(rule.get("not_as")))
        for rule in cast(Sequence[Mapping[str, Any]], value or ())
    )


def _labelled(value: object) -> tuple[tuple[str, tuple[str, ...]], ...]:
    mapping = cast(Mapping[str, object], value or {})
    return tuple((label, _strings(mapping[label])) for label in sorted(mapping))


def _signal_from_data(item: Mapping[str, Any]) -> Signal:
    return Signal(
        id=item["id"],
        polarity=item["polarity"],
        weight=float(item["weight"]),
        reason=item["reason"],
        routes=bool(item["routes"]),
        intent=item.get("intent"),
        suppresses=_strings(item.get("suppresses")),
        targets=_strings(item.get("targets")),
        phrases=_strings(item.get("phrases")),
        regexes=tuple(
            RegexPattern(pattern=rule["pattern"], anchors=_strings(rule.get("anchors")))
            for rule in item.get("regex", ())
        ),
        near=tuple(
            NearPattern(
                groups=tuple(_strings(group) for group in rule["groups"]),
                window=int(rule["window"]),
            )
            for rule in item.get("near", ())
        ),
        concepts=_strings(item.get("concepts")),
        expand=_strings(item.get("expand")),
        pack=item["pack"],
        enabled=bool(item.get("enabled", True)),
    )


def _cues(data: Mapping[str, Any], key: str) -> tuple[str, ...]:
    cues = data.get(key, {})
    return tuple(sorted(set(_strings(cues.get("en")) + _strings(cues.get("zh")))))


def _vocabulary_from_data(data: Mapping[str, Any]) -> Vocabulary:
    stopwords = data.get("stopwords", {})
    return Vocabulary(
        # Tokens are stemmed ("please" is "pleas") and a contraction is read as its tokens
        # ("don't" is "don", "can't" is "cannot"), so each stopword stands as written and as
        # read.
        stopwords_en=frozenset(
            w
            for word in _strings(stopwords.get("en"))
            for w in (word, *(t.term for t in tokenize(word)))
        ),
        stopwords_zh=frozenset(_strings(stopwords.get("zh"))),
        negation_cues=_cues(data, "negation_cues"),
        cue_false_friends=_cues(data, "cue_false_friends"),
        exclusion_cues=_cues(data, "exclusion_cues"),
        exclusion_frame_openers=_cues(data, "exclusion_frame_openers"),
        exclusion_frame_closers=_cues(data, "exclusion_frame_closers"),
        exclusion_closers=_cues(data, "exclusion_closers"),
        focus_cues=_cues(data, "focus_cues"),
        background_cues=_cues(data, "background_cues"),
        back_reference_cues=_cues(data, "back_reference_cues"),
        settled_cues=_cues(data, "settled_cues"),
        status_cues=_cues(data, "status_cues"),
        handoff_cues=_cues(data, "handoff_cues"),
        build_cues=_cues(data, "build_cues"),
        multi_task_cues=_cues(data, "multi_task_cues"),
        task_count_cues=_cues(data, "task_count_cues"),
        first_task_markers=_cues(data, "first_task_markers"),
        second_task_markers=_cues(data, "second_task_markers"),
        more_task_markers=_cues(data, "more_task_markers"),
        clause_connectors=_cues(data, "clause_connectors"),
        clause_breaks=_cues(data, "clause_breaks"),
        command_programs=tuple(sorted(_strings(data.get("command_programs")))),
        path_extensions=tuple(sorted(_strings(data.get("path_extensions")))),
        task_types=_labelled(data.get("task_types")),
        surfaces=_labelled(data.get("surfaces")),
        operations=_labelled(data.get("operations")),
        concepts=tuple(
            Concept(
                id=item["id"],
                terms=_strings(item["terms"]),
                broader=_strings(item.get("broader")),
                not_in=_strings(item.get("not_in")),
                counts=_count_rules(item.get("counts")),
            )
            for item in sorted(data.get("concepts", ()), key=lambda item: item["id"])
        ),
        han_infixes=_strings(data.get("han_infixes")),
        han_joiners=_strings(data.get("han_joiners")),
        word_infixes=_strings(data.get("word_infixes")),
        glossary=Glossary(glosses_path()),
    )


def registry_from_data(data: Mapping[str, Any]) -> Registry:
    """Build the registry from the compiled JSON document (see `ome.registry`)."""
    if data.get("schema") != REGISTRY_SCHEMA or data.get("version") != REGISTRY_VERSION:
        raise RegistryError(
            f"the compiled signal registry is not {REGISTRY_SCHEMA} v{REGISTRY_VERSION}; "
            "run `ome signals build`"
        )
    try:
        signals = tuple(
            sorted((_signal_from_data(item) for item in data["signals"]), key=lambda s: s.id)
        )
        packs = tuple(
            Pack(
                name=item["name"],
                description=item.get("description", ""),
                enabled=bool(item.get("enabled", True)),
                source=item.get("source", "bundled"),
            )
            for item in data.get("packs", ())
        )
        vocabulary = _vocabulary_from_data(data.get("vocabulary", {}))
        digest = str(data["digest"])
    except (KeyError, TypeError, ValueError) as error:
        raise RegistryError(
            f"the compiled signal registry is malformed ({error!r}); run `ome signals build`"
        ) from error
    return Registry(signals=signals, vocabulary=vocabulary, digest=digest, packs=packs)


__all__ = [
    "INTENT_MODES",
    "POLARITIES",
    "REGISTRY_SCHEMA",
    "REGISTRY_VERSION",
    "Concept",
    "Detection",
    "IntentMode",
    "NearPattern",
    "Pack",
    "Polarity",
    "RegexPattern",
    "Registry",
    "Signal",
    "SignalHit",
    "Suppression",
    "Vocabulary",
    "compile_pattern",
    "detect_signals",
    "find_concepts",
    "find_phrase",
    "nearest_signal_ids",
    "normalize_text",
    "registry_from_data",
    "trigger_contract_violations",
    "unknown_signal_ids",
]
