"""Per-card decisions: gates with reason codes, the bounded evidence score, admission, collapse.

Gates answer "may this card apply at all?"; evidence answers "is there enough in the prompt to
return it?". A rejection always carries a reason code that `--explain` shows.
"""

from __future__ import annotations

import fnmatch
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from ome import params
from ome.analysis import han_runs, has_han, is_han, phrase_terms, without_han_spaces
from ome.concepts import CONCEPT_PREFIX
from ome.envelope import Envelope
from ome.index import IndexedCard, Phrase
from ome.scoring import coverage, noisy_or
from ome.signals import Registry, Signal, Vocabulary, normalize_text
from ome.similarity import overlap

# Reason codes (stable; scripts read them).
REJECT_STATUS = "status_inactive"
REJECT_POLICY_OFF = "policy_off"
REJECT_SCOPE = "scope_mismatch"
REJECT_IGNORE = "ignore_rule"
REJECT_NEGATIVE_SIGNAL = "blocked_by_signal"
REJECT_TARGETED = "blocked_by_negative_target"
REJECT_REQUIRED = "required_signal_missing"
REJECT_ROUTING = "routing_signal_missing"
REJECT_INTENT_EXCLUDED = "intent_excluded"
REJECT_INTENT_MISSING = "intent_not_included"
REJECT_BELOW_THRESHOLD = "below_threshold"
REJECT_WEAK = "insufficient_evidence"
REJECT_QUESTION = "question_without_covered_phrase"
REJECT_NO_ACTION = "question_declining_action"
REJECT_BUILD = "build_request_without_anchor"
REJECT_BOUNDED = "outside_bounds_the_prompt_draws"
REJECT_DUPLICATE = "collapsed_duplicate"
REJECT_RELATIVE = "below_relative_floor"
REJECT_SAME_TASK = "weaker_reading_of_one_task"
REJECT_SUBSUMED = "subsumed_by_broader_match"
REJECT_ONE_TASK = "long_prompt_one_task"
REJECT_LIMIT = "over_limit"
REJECT_TASKS = "more_cards_than_tasks"

Weight = Callable[[str], float]
# Said after the ids of signals a card's description implies (`_implied_signals`).
IMPLIED_NOTE = " (implied by the card's concepts)"
LEXICAL_FAMILIES = frozenset({"exact", "coverage", "concepts", "overlap", "technical"})
PHRASE_FAMILIES = frozenset({"exact", "coverage", "concepts"})
# Intents of a prompt that asks to understand something, not to change it (sorted, as the
# envelope gives them): how or why it works, or that and talking it through.
_UNDERSTANDING = frozenset({("explain",), ("discuss", "explain")})
# Intents of a prompt that only talks: with a cue that nothing is to be done, it asks for no lesson.
_TALK = frozenset({"discuss", "explain"})
# Intents that ask for something to be done: a discussion with one of them is not only talk.
_ACTING = frozenset({"execute", "operate"})
# A unit is ASCII, a concept token ("§..."), or a CJK run: all CJK starts here and up, so one
# comparison of a unit's first character tells a Han unit.
_CJK = "\u3040"
_INFLECTIONS = ("", "s", "es", "d", "ed", "ing")


@dataclass(frozen=True, slots=True)
class Gate:
    """One gate's outcome for a card."""

    name: str
    passed: bool
    detail: str = ""


@dataclass(frozen=True, slots=True)
class EvidenceItem:
    """One piece of evidence: its family, strength in [0, 1] and the card text it rests on."""

    family: str
    strength: float
    detail: str


@dataclass(frozen=True, slots=True)
class Assessment:
    """Everything decided about one card for one prompt."""

    card: IndexedCard
    gates: tuple[Gate, ...]
    evidence: tuple[EvidenceItem, ...]
    score: int
    penalty: float
    strong_anchor: bool
    rejection: str
    # Met by one phrase and nothing else: the phrase alone, or said exactly with a description
    # overlap that holds little beyond the phrase's own words (a cover of a situation phrase
    # with its echo is that situation said, and not lone).
    lone_phrase: bool = False
    # Its signal evidence is implied by its description (`_implied_signals`), not hinted.
    implied_signals: bool = False
    # Anchored only by a cover (a phrase's words said apart, in any order), or in a long prompt of
    # one task by a phrase met exactly, beside a description that is not close: the anchor admits
    # the card, but among other cards it is no anchor.
    loose_anchor: bool = False
    # The description matches at full strength (DESCRIPTION_MAX): more than a few topic words.
    close_description: bool = False
    # The description overlap's set cosine, however close (its evidence stops at DESCRIPTION_MAX).
    cosine: float = 0.0

    @property
    def families(self) -> tuple[str, ...]:
        return tuple(sorted({e.family for e in self.evidence}))

    @property
    def anchored(self) -> bool:
        """Anchored among other cards: a strong anchor that is not loose (a phrase met exactly,
        a named file, or a cover the card's description backs)."""
        return self.strong_anchor and not self.loose_anchor

    @property
    def admitted(self) -> bool:
        return not self.rejection


def phrase_in_text(phrase: str, text: str, allow_inflection: bool = True) -> list[int]:
    """Start offsets of an exact phrase in the text, ASCII edges on word boundaries.

    A trailing English inflection ("force pushing" for "force push") is allowed. A phrase with
    Chinese in it is sought as `without_han_spaces` leaves it, in the text so left.
    """
    if has_han(phrase):
        compact, kept = without_han_spaces(text)
        starts = _phrase_starts(without_han_spaces(phrase)[0], compact, allow_inflection)
        return starts if kept is None else [kept[start] for start in starts]
    return _phrase_starts(phrase, text, allow_inflection)


def _phrase_starts(phrase: str, text: str, allow_inflection: bool) -> list[int]:
    starts: list[int] = []
    if not phrase:
        return starts
    start = text.find(phrase)
    while start != -1:
        end = start + len(phrase)
        before_ok = start == 0 or not _word_char(phrase[0]) or not _word_char(text[start - 1])
        after_ok = True
        if _word_char(phrase[-1]) and end < len(text) and _word_char(text[end]):
            after_ok = False
            if allow_inflection and phrase[-1].isalpha():
                for suffix in _INFLECTIONS[1:]:
                    stop = end + len(suffix)
                    if text.startswith(suffix, end) and (
                        stop >= len(text) or not _word_char(text[stop])
                    ):
                        after_ok = True
                        break
        if before_ok and after_ok:
            starts.append(start)
        start = text.find(phrase, start + 1)
    return starts


def _word_char(char: str) -> bool:
    return char.isascii() and (char.isalnum() or char == "_")


def _outside(starts: list[int], env: Envelope) -> bool:
    """True when a mention starts outside every exclusion span. A mention that opens a span is
    the span's own words ("no schema change"), not something the span excludes."""
    return any(not any(a < s < b for a, b in env.exclusion_spans) for s in starts)


def gate_card(
    card: IndexedCard,
    env: Envelope,
    registry: Registry,
    project_key: str,
) -> tuple[tuple[Gate, ...], str]:
    """Run the cheap gates; return every gate result and the first rejection code ('' if none)."""
    c = card.card
    gates: list[Gate] = []
    fired = set(env.fired)

    def add(name: str, passed: bool, detail: str = "") -> None:
        gates.append(Gate(name, passed, detail))

    add(REJECT_STATUS, c.status == "active", c.status)
    add(REJECT_POLICY_OFF, c.policy != "off", c.policy)
    scope_ok = True
    if card.layer != "project" and c.scope_level != "global" and c.project_key:
        if c.scope_level == "project":
            scope_ok = project_key == c.project_key
        else:
            owner = c.project_key.rstrip("/").rsplit("/", 1)[0]
            scope_ok = project_key.startswith(owner + "/") or project_key == c.project_key
    add(REJECT_SCOPE, scope_ok, c.project_key)
    # A prompt that excludes the situation an ignore phrase names ("about payouts, not about
    # quoting clients") says it is not in it.
    ignored = next((p for p in c.ignore_when if _outside(ignore_phrase_said(p, env), env)), "")
    add(REJECT_IGNORE, not ignored, ignored)
    known_negative = [h for h in c.hints_negative if registry.get(h) is not None]
    blocked = sorted(fired.intersection(known_negative))
    add(REJECT_NEGATIVE_SIGNAL, not blocked, ",".join(blocked))
    routed = [h for h in c.hints_positive if (s := registry.get(h)) is not None and s.routes]
    targeted = sorted(
        hit
        for hit in fired
        if (s := registry.get(hit)) is not None
        and s.polarity == "negative"
        and set(s.targets).intersection(routed + list(c.hints_required_all))
    )
    add(REJECT_TARGETED, not targeted, ",".join(targeted))
    required = [h for h in c.hints_required_all if registry.get(h) is not None]
    missing = sorted(set(required) - fired)
    add(REJECT_REQUIRED, not missing, ",".join(missing))
    excluded = sorted(set(c.intent_exclude).intersection(env.intent_modes))
    add(REJECT_INTENT_EXCLUDED, not excluded, ",".join(excluded))
    included_ok = (
        not c.intent_include
        or not env.intent_modes
        or bool(set(c.intent_include).intersection(env.intent_modes))
    )
    add(REJECT_INTENT_MISSING, included_ok, ",".join(c.intent_include))
    rejection = next((g.name for g in gates if not g.passed), "")
    return tuple(gates), rejection


def ignore_phrase_said(phrase: str, env: Envelope) -> list[int]:
    """Where the prompt says an `ignore_when` phrase verbatim (the ignore gate's reading), the
    phrase read as the signal detector reads text (`signals.normalize_text`)."""
    return phrase_in_text(normalize_text(phrase).strip(), env.text, False)


def _phrase_quality(
    phrase: Phrase, env: Envelope, weight: Weight, vocabulary: Vocabulary
) -> tuple[float, bool, str, bool]:
    """How well the prompt carries one card phrase: (quality 0-1, is a strong anchor, kind, met
    only in the background).

    An exact occurrence of a specific phrase is the best evidence; a segment holding every unit
    of a multi-unit phrase (words in another order, synonyms through concepts) comes next; then
    a partial cover; a lone plain word is weak, and so is a Chinese phrase an English prompt says
    through the dictionary (`_said_in_english`).
    """
    if phrase.kind == "topic":
        starts = phrase_in_text(phrase.text, env.text)
        seen = bool(starts) and _outside(starts, env)
        return (params.TOPIC_QUALITY if seen else 0.0), False, "exact", False
    specific = (
        len(phrase.units) >= 2
        or phrase.words >= 2
        or phrase.technical
        or (phrase.han and sum(is_han(c) for c in phrase.text) >= 3)
    )
    starts = [p for p in phrase_in_text(phrase.text, env.text) if _outside([p], env)]
    if starts:
        place = max(env.weight_at(p) for p in starts)
        background = place < 1.0
        if specific:
            return place, not background, "exact", background
        single = weight(phrase.units[0]) if phrase.units else 1.0
        quality = place * params.SINGLE_WORD_QUALITY * (0.5 + 0.5 * single)
        return quality, False, "exact", background
    units = phrase.units
    if len(units) == 1:
        if units[0].startswith("§") and units[0] in env.term_set:
            # Met where the concept is said: a background sentence weighs less (most prompts
            # say it in a full-weight sentence, and need no scan).
            place = (
                1.0
                if units[0] in env.focus_terms
                else max((s.weight for s in env.segments if units[0] in s.terms), default=1.0)
            )
            quality = place * params.CONCEPT_PHRASE_QUALITY * weight(units[0])
            return quality, False, "concepts", place < 1.0
        # A phrase that is one concept as a whole ("delete the bucket") may be said in its
        # parts ("get rid of the bucket"); they cover it as a part would, and only when specific
        # enough together to anchor were they its own phrase.
        if sum(weight(u) for u in phrase.parts) < params.STRONG_COVER_WEIGHT:
            return 0.0, False, "", False
        units = phrase.parts
    if sum(1 for u in units if u in env.term_set) < 2:
        # Coverage needs two units found; most phrases stop here.
        if _said_in_english(phrase, env, vocabulary):
            return params.GLOSS_COVER_QUALITY, False, "coverage", False
        return 0.0, False, "", False
    best, full, background = 0.0, False, False
    for segment in env.segments:
        if share := _cover(phrase, units, segment.terms, weight):
            whole = share == 1.0 and not phrase.parts
            quality = params.FULL_COVER_QUALITY if whole else share * params.PARTIAL_COVER
            quality *= segment.weight
            if quality > best:
                # Full cover anchors only when its units are specific enough together: "app
                # version" in any order is no anchor, "tarball install" is.
                specific_units = sum(weight(u) for u in units) >= params.STRONG_COVER_WEIGHT
                background = segment.weight < 1.0
                best, full = quality, whole and specific_units and not background
    if share := _cover(phrase, units, env.focus_terms, weight):
        spread = share * params.PARTIAL_COVER * params.COVERAGE_WHOLE_PROMPT_FACTOR
        if spread > best:
            best, background = spread, False
    if best < params.GLOSS_COVER_QUALITY and _said_in_english(phrase, env, vocabulary):
        best, background = params.GLOSS_COVER_QUALITY, False
    return best, full, "coverage", background


def _said_in_english(phrase: Phrase, env: Envelope, vocabulary: Vocabulary) -> bool:
    """Whether an English prompt says a Chinese phrase word for word through the dictionary:
    each of its Chinese words has a sense the prompt says, and it has two words at least ("保养工
    单" in "maintenance work orders"). Its English words, if any, must be said as they are."""
    if not phrase.han:
        return False
    # A sense is an English word: a prompt without one says none of them.
    words = vocabulary.word_senses(phrase.text)
    english = [u for u in phrase.units if u[0] < _CJK and u[0] != CONCEPT_PREFIX]
    return (
        bool(words)
        and len(words) + len(english) >= 2
        and all(u in env.term_set for u in english)
        and all(senses & env.term_set for senses in words)
    )


def _cover(phrase: Phrase, units: Sequence[str], present: frozenset[str], weight: Weight) -> float:
    """The weighted share of a phrase's units found in `present` when they cover the phrase, else
    0: two units or more, COVERAGE_MIN_SHARE of its weight, and not all pieces of one short Han
    word of it (提交 and 交了 of 提交了 in "提交了 .env" are that word said, the rest not)."""
    share, found = coverage(units, present, weight)
    if found < 2 or share < params.COVERAGE_MIN_SHARE:
        return 0.0
    hits = [u for u in units if u in present]
    one_word = all(is_han(u[0]) for u in hits) and any(
        all(u in run for u in hits)
        for run in han_runs(phrase.text)
        if len(run) <= params.ONE_HAN_WORD_CHARS
    )
    return 0.0 if one_word else share


def _description_match(
    card: IndexedCard,
    env: Envelope,
    weight: Weight,
    window_sizes: Sequence[float],
    least: float,
    vocabulary: Vocabulary,
) -> tuple[float, float, float]:
    """Best (cosine, shared units, units shared through glosses) between the card's description
    and a window of segments.

    Cosine over distinct units (Salton's set cosine: shared / sqrt(|card| * |window|)) keeps a
    long window or a long summary from matching by sheer size; Han bigrams count half.
    `window_sizes` are the windows' own weights, the same for every card of one prompt. A window
    sharing at least `least` units beats one that shares fewer: a short last sentence with a
    higher cosine must not hide the window that holds the overlap. A word and its own concept
    token are one word (`twins`, as in `_weight`); a word that one side says in Chinese counts
    GLOSS_WEIGHT, a sense two Chinese words share (`_shared_senses`) SHARED_SENSE_WEIGHT, and a
    window without Chinese measures a Chinese card by its English reading.
    """
    twins = vocabulary.word_concepts
    best = (False, 0.0, 0.0, 0.0)
    size = english = 0.0
    glossed = env.window_glosses or (frozenset(),) * len(env.windows)
    for (window, place), window_size, gloss in zip(env.windows, window_sizes, glossed, strict=True):
        common = card.descriptive_units & window
        # What one side says in Chinese and the other in English meets through the dictionary,
        # unless it met as a concept of the lexicon (nothing to look at when neither side glosses).
        translated = (
            {
                unit
                for unit in (card.descriptive_units & gloss) | (card.gloss_units & window)
                if unit not in common and not any(t in common for t in twins.get(unit, ()))
            }
            if gloss or card.gloss_units
            else set()
        )
        synonyms = (
            _shared_senses(card, common, translated, gloss, vocabulary)
            if gloss and card.gloss_units
            else set()
        )
        if not common and not translated and not synonyms:
            continue
        if card.gloss_units and not (env.window_glosses and any(u[0] >= _CJK for u in window)):
            # A window without Chinese reads the card in English: its Chinese that the
            # dictionary does not translate cannot meet the window, nor dilute the match. (A
            # prompt without Han text has no window glosses: no window to look through.)
            english = english or _english_size(card, weight, twins)
            card_size = english
        else:
            size = size or _weight(card.descriptive_units, weight, twins)
            card_size = size
        through = params.GLOSS_WEIGHT * _sense_weight(translated, weight)
        through += params.SHARED_SENSE_WEIGHT * _sense_weight(synonyms, weight)
        shared = _weight(common, weight, twins) + through
        if shared and card_size and window_size:
            cosine = min(1.0, place * shared / math.sqrt(card_size * window_size))
            best = max(best, (shared >= least, cosine, shared, through))
    return best[1], best[2], best[3]


def _shared_senses(
    card: IndexedCard,
    common: frozenset[str],
    translated: set[str],
    window_glosses: frozenset[str],
    vocabulary: Vocabulary,
) -> set[str]:
    """The senses a Chinese window and a Chinese card share through two different words of one
    meaning (番茄 and 西红柿 are both "tomato"): not the senses of the Han units both say (their
    word is shared already), nor a sense met as a word or a translation, nor one beside its own
    concept token."""
    senses = (card.gloss_units & window_glosses) - translated - common
    if not senses:
        return set()
    said = vocabulary.glosses(" ".join(u for u in common if u[0] >= _CJK))
    twins = vocabulary.word_concepts
    return {unit for unit in senses - said if not any(t in common for t in twins.get(unit, ()))}


def _english_size(card: IndexedCard, weight: Weight, twins: Mapping[str, tuple[str, ...]]) -> float:
    """The weight of a card's description read in English: its units other than Han bigrams,
    and the senses of its Chinese words as words of their own."""
    written = frozenset(u for u in card.descriptive_units if u[0] < _CJK)
    return _weight(written, weight, twins) + _sense_weight(
        card.gloss_units - card.descriptive_units, weight
    )


def _sense_weight(senses: set[str] | frozenset[str], weight: Weight) -> float:
    """The summed specificity of dictionary senses. A sense that no card writes in English is
    still said by the card that glosses it, so it weighs as a word of one card."""
    return math.fsum(weight(u) or 1.0 for u in senses)


def window_sizes(
    env: Envelope, weight: Weight, twins: Mapping[str, tuple[str, ...]]
) -> tuple[float, ...]:
    """The weight of each description window of a prompt (computed once per prompt)."""
    return tuple(_weight(window, weight, twins) for window, _ in env.windows)


def _weight(
    units: frozenset[str] | set[str],
    weight: Weight,
    twins: Mapping[str, tuple[str, ...]] | None = None,
) -> float:
    """The summed specificity of some units, a Han bigram counting half; with `twins` (plain
    unit -> the concept tokens of the same word), a plain word whose concept token is among the
    units too counts CONCEPT_TWIN_WEIGHT."""
    # fsum is exact, so the total does not depend on the set's hash-seeded iteration order: a
    # plain sum differs in the last bit, and two clauses or cards of equal weight then swap.
    half = params.HAN_BIGRAM_WEIGHT
    if twins is None:
        return math.fsum(weight(u) * (half if u[0] >= _CJK else 1.0) for u in units)
    said = params.CONCEPT_TWIN_WEIGHT
    return math.fsum(
        weight(u)
        * (half if u[0] >= _CJK else said if any(t in units for t in twins.get(u, ())) else 1.0)
        for u in units
    )


def _ignore_cover(card: IndexedCard, env: Envelope, weight: Weight) -> tuple[float, str]:
    """How far a prompt segment covers one of the card's `ignore_when` phrases in other words.

    Returns the best share (0 when under `IGNORE_FUZZY_SHARE`) and, when that cover is decisive,
    the phrase. A segment holding what a phrase names as absent ("without a primary key") does
    not cover it. A cover is decisive in a one-sentence, one-task prompt that holds a unit the
    phrase does not share with the rest of the card, for a phrase that names nothing absent: on a
    card about replicas, "read-only replica" is not met by "replica" alone, a prompt cannot show
    that something is missing, and a second sentence or task may be what the card is for. A
    concept the prompt only implies (a key is a kind of secret) says no word of a phrase.
    """
    best, decisive = 0.0, ""
    single = len(env.segments) == 1 and not env.multi_task
    # Each segment with what it says: its terms but the concepts it only implies.
    said = [(segment, segment.terms - env.implied) for segment in env.segments]

    def ignore_weight(unit: str) -> float:
        # A word only ignore phrases use is on no card's fields, so the library gives it no
        # weight; it still says what the phrase excludes.
        return weight(unit) or params.IGNORE_ONLY_UNIT_WEIGHT

    for ignore in card.ignore:
        if len(ignore.units) < 2:
            continue
        for segment, terms in said:
            if not segment.terms.isdisjoint(ignore.absent):
                continue
            share, found = coverage(ignore.units, terms, ignore_weight)
            if found >= 2 and share >= params.IGNORE_FUZZY_SHARE:
                best = max(best, share)
                if single and not ignore.absent and not decisive:
                    own = terms.intersection(ignore.units) - card.descriptive_units
                    decisive = ignore.text if own else ""
    return best, decisive


def _beyond_phrase(card: IndexedCard, env: Envelope, phrase: Phrase, weight: Weight) -> float:
    """The unit weight a card's description shares with the prompt beyond a matched phrase's words.

    A trigger of common words half met by a prompt, or a topic word, also makes the card's
    description share those same words: one piece of evidence, not two. What the description
    shares besides them is what makes it evidence of its own. A prompt in the other language
    shares concepts only, so nothing is subtracted from it (infinite).
    """
    if phrase.han != (env.language in ("zh", "mixed")):
        return math.inf
    extra = prompt_units(card, env) - set(phrase.units) - set(phrase_terms(phrase.text))
    return _weight(extra, weight)


def _across_languages(card: IndexedCard, env: Envelope) -> bool:
    """True when the card (its title and summary) is written in Chinese and the prompt in English,
    or the reverse. Mixed text shares its English words with the other side directly."""
    return {card.language, env.language} == {"zh", "en"}


def assess_card(
    card: IndexedCard,
    env: Envelope,
    registry: Registry,
    gates: tuple[Gate, ...],
    rejection: str,
    threshold: int,
    weight: Weight,
    sizes: Sequence[float],
    matched_paths: Sequence[str],
    contested: frozenset[str],
    boundary: frozenset[str] | None,
) -> Assessment:
    """Collect evidence, score it 0-100, and decide admission (after the gates).

    `weight` gives each unit's specificity in the library, so common words count for less;
    `matched_paths` are the prompt's files the card's `paths` globs match, and `contested` those
    that more than one card's globs match (both from `match_paths`); `boundary` holds the units
    of the `ignore_when` phrases of other cards that the prompt says (None when it says none).
    """
    c = card.card
    items: list[EvidenceItem] = []
    strong = concrete = False
    anchors: set[str] = set()  # how the card is anchored: its phrases' families, a named file
    # The strongest phrase: its strength, kind, the phrase, and whether it was met only in
    # background.
    best: tuple[float, str, Phrase | None, bool] = (0.0, "", None, False)
    for phrase in card.phrases:
        quality, anchor, kind, background = _phrase_quality(
            phrase, env, weight, registry.vocabulary
        )
        factor = params.USE_WHEN_FACTOR if phrase.kind == "use_when" else 1.0
        strength = params.ANCHOR_MAX * quality * factor
        if strength > best[0]:
            best = (strength, kind, phrase, background)
        if anchor and phrase.kind != "topic":
            strong = True
            anchors.add(kind)
            # A question about a one-word thing ("what is OAuth?") is not about the card's lesson.
            concrete = concrete or len(phrase.units) > 1
    if best[2] is not None:
        items.append(EvidenceItem(best[1], best[0], best[2].text))
    hinted = [h for h in (*c.hints_positive, *c.hints_required_all) if h in env.fired]
    strongest = max((s.weight for h in hinted if (s := registry.get(h)) is not None), default=0.0)
    # A witness of its own lowers the description bar to one unit: one of the card's specific
    # hints fired, or a one-concept trigger was met through a synonym of a specific concept and
    # the description shares something besides that concept.
    witnessed = strongest >= params.HINTED_SIGNAL_MIN_WEIGHT or (
        best[2] is not None
        and best[1] == "concepts"
        and best[0] >= params.SYNONYM_WITNESS_STRENGTH
        and bool(prompt_units(card, env) - set(best[2].units))
    )
    least = params.WITNESSED_DESCRIPTION_MIN_UNITS if witnessed else params.DESCRIPTION_MIN_UNITS
    across = _across_languages(card, env)
    # Only concepts and glosses (a gloss at GLOSS_WEIGHT) cross: the same meaning shares less, so
    # every bar on shared weight (the description's, and below what it shares beyond a matched
    # phrase) takes CROSS_LANGUAGE_SHARE.
    bar_share = params.CROSS_LANGUAGE_SHARE if across else 1.0
    alone = bar_share * params.DESCRIPTION_ALONE_UNITS
    if across:
        least = min(least, params.CROSS_LANGUAGE_SHARE * params.DESCRIPTION_MIN_UNITS)
    cosine, described, translated = _description_match(
        card, env, weight, sizes, least, registry.vocabulary
    )
    described_alone = cosine >= params.DESCRIPTION_ALONE_COSINE and described >= alone
    # The description matches at full strength: more than a few shared topic words.
    close = described >= least and params.DESCRIPTION_SCALE * cosine >= params.DESCRIPTION_MAX
    if described >= least:
        items.append(
            EvidenceItem(
                "overlap",
                min(params.DESCRIPTION_MAX, params.DESCRIPTION_SCALE * cosine),
                f"{described:g} unit{'' if described == 1 else 's'}, cosine {cosine:.2f}"
                + (f", {translated:g} through glosses" if translated else ""),
            )
        )
    if matched_paths:
        items.append(EvidenceItem("technical", params.PATH_GLOB, matched_paths[0]))
        # A file that several cards' globs match (every CI card's .github/workflows/*.yml) is
        # evidence for each of them, but anchors none: it does not tell them apart.
        if any(f not in contested for f in matched_paths):
            strong = concrete = True
            anchors.add("technical")
    # A phrase whose words a prompt says apart, with little else of the card around them
    # ("production database" in a status report), admits the card; whether it names the
    # prompt's task beside another card is for the description to say. So for a phrase met
    # exactly in a long prompt of one task: its status sentences name many things in passing.
    loose = not close and (
        anchors == {"coverage"} or (env.long_prompt and not env.multi_task and anchors == {"exact"})
    )
    # A card written without engine_hints and met by its description alone is hinted by the
    # signals its description implies: the prompt's matter is in the card's area.
    unhinted = not (c.hints_positive or c.hints_required_all)
    implied = (
        _implied_signals(card, registry, env)
        if best[2] is None and unhinted and any(i.family == "overlap" for i in items)
        else ()
    )
    if hinted or implied:
        strongest = max([strongest, *(s.weight for s in implied)])
        detail = ",".join(hinted) if hinted else ",".join(s.id for s in implied) + IMPLIED_NOTE
        items.append(_signal_evidence(strongest, detail))

    share, ignored = _ignore_cover(card, env, weight)
    penalty = params.IGNORE_FUZZY_PENALTY * share
    if ignored and not rejection:
        gates = tuple(Gate(g.name, False, ignored) if g.name == REJECT_IGNORE else g for g in gates)
        rejection = REJECT_IGNORE

    # A phrase met without an anchor and the description overlap made of that phrase's own words
    # are one piece of evidence: the overlap admits the card alone only when the description
    # shares ECHO_ALONE_MIN_EXTRA more, and beside a partial cover, or a one-concept phrase met
    # through a synonym ("redis cache" by any "cache"), it is a second family only with
    # ECHO_MIN_EXTRA more.
    covered = best[1] == "coverage"
    echoable = covered or best[1] == "concepts"
    beyond = (
        _beyond_phrase(card, env, best[2], weight)
        if best[2] is not None and not strong and (echoable or described_alone)
        else math.inf
    )
    echo = {"overlap"} if echoable and beyond < bar_share * params.ECHO_MIN_EXTRA else set()
    # A signal fired by nothing but the word that met a one-concept phrase is that word again.
    if best[1] == "concepts" and best[2] is not None and _signals_echo(hinted, best[2], env):
        echo.add("signals")
    echoed_alone = described_alone and beyond < bar_share * params.ECHO_ALONE_MIN_EXTRA
    described_alone = described_alone and not echoed_alone
    note = f", echoes the {'covered' if covered else 'matched'} phrase"
    items = [
        replace(i, detail=i.detail + note)
        if i.family in echo or (echoed_alone and i.family == "overlap")
        else i
        for i in items
    ]
    solid = {i.family for i in items if i.strength >= params.FAMILY_MIN_STRENGTH} - echo
    if best[1] == "concepts" and unhinted and "overlap" not in solid:
        # Met through a synonym with no description backing the phrase: the signals its
        # description implies are the second witness that the prompt is in its area. Beside a
        # description that backs it, they would say that area again, and count for nothing.
        implied = _implied_signals(card, registry, env)
        if implied:
            strongest = max(s.weight for s in implied)
            items.append(
                _signal_evidence(strongest, ",".join(s.id for s in implied) + IMPLIED_NOTE)
            )
            if items[-1].strength >= params.FAMILY_MIN_STRENGTH:
                solid.add("signals")
    raw = 100.0 * noisy_or(i.strength for i in items)
    score = int(round(max(0.0, raw - penalty)))
    if best[3]:
        # A phrase said only where the prompt gives background ("the force-push incident was
        # already reviewed") names something the prompt is not asking about: it adds to the
        # score, but is no family of evidence for admission.
        solid.discard(best[1])
    lexical = solid & LEXICAL_FAMILIES
    if not rejection:
        routed = [h for h in c.hints_positive if (s := registry.get(h)) is not None and s.routes]
        bypass = strong or (
            score >= params.ROUTING_BYPASS_SCORE and (len(lexical) >= 2 or described_alone)
        )
        if routed and not set(routed).intersection(env.fired) and not bypass:
            rejection = REJECT_ROUTING
    if not rejection:
        if score < threshold:
            rejection = REJECT_BELOW_THRESHOLD
        elif not (strong or (lexical and len(solid) >= 2) or described_alone):
            rejection = REJECT_WEAK
        elif (
            env.declines_action
            and (env.intent_modes or not env.long_prompt)
            and (
                _TALK.issuperset(env.intent_modes)
                or ("discuss" in env.intent_modes and not _ACTING.intersection(env.intent_modes))
            )
        ):
            # A prompt that only explains or discusses and says nothing is to be done ("just
            # explain, no code changes", "for a blog post") asks for knowledge, not for a lesson,
            # whatever phrase of a card it names. So does one that talks a review or a failure
            # through ("let's discuss how reviews should start, just discussing") without asking
            # to execute or operate anything; and a short one where no intent is read but the
            # action is declined ("how bloom filters answer, for my own learning, no code
            # needed"). A long prompt's background may decline something in passing while its
            # request is in words no intent reads: it keeps its cards.
            rejection = REJECT_NO_ACTION
        elif env.intent_modes in _UNDERSTANDING and not concrete and "coverage" not in solid:
            # A question that only asks how or why something works, or to talk it through, is
            # answered from knowledge, not from a lesson: a card joins it when the prompt covers
            # one of its phrases, meets a phrase of several words whole, or names one of its files.
            rejection = REJECT_QUESTION
        elif (
            env.build_request
            and not strong
            and not solid & _own_phrase_families(best[1], best[2], env, best[0])
            and not (close and (cosine >= params.BUILD_CLOSE_COSINE or across))
            and not env.multi_task
            and "debug" not in env.intent_modes
        ):
            # A request for new code or a rewrite ("Write a SQL query that ...", "Convert the page
            # to hooks") shares topic words with many lessons. A card joins it on a phrase of its
            # own (met exactly, covered whole, or through a synonym) or a description closer than
            # close (BUILD_CLOSE_COSINE; across languages, where the same meaning shares less,
            # close is enough), not on a few shared topic words, nor on part of a phrase; nor
            # does it when the prompt tells a failure or a second task.
            rejection = REJECT_BUILD
        elif (
            boundary is not None
            and card.descriptive_units.isdisjoint(boundary)
            and not strong
            and not solid & PHRASE_FAMILIES
            and not close
        ):
            # A prompt that says one of a card's ignore_when phrases ("a spelling fix in a
            # comment") draws its own bounds: it names the situation it is in by the lesson it
            # is not about. A card whose description shares no word of that phrase joins it
            # only on a phrase of its own (whole or in part) or a close description, not on a
            # few shared topic words.
            rejection = REJECT_BOUNDED
    # Read by selection among admitted cards only.
    kinds = {i.family for i in items}
    lone_phrase = (
        not rejection
        and best[2] is not None
        and (
            kinds == {best[1]}
            or (
                kinds == {"exact", "overlap"}
                and best[1] == "exact"
                and _beyond_phrase(card, env, best[2], weight) < params.ECHO_MIN_EXTRA
            )
        )
    )
    return Assessment(
        card=card,
        gates=gates,
        evidence=tuple(sorted(items, key=lambda i: (-i.strength, i.family))),
        score=score,
        penalty=penalty,
        strong_anchor=strong,
        rejection=rejection,
        lone_phrase=lone_phrase,
        implied_signals=bool(implied),
        loose_anchor=loose,
        close_description=close,
        cosine=cosine,
    )


def described_signals(card: IndexedCard, registry: Registry) -> dict[str, Signal]:
    """The specific signals (HINTED_SIGNAL_MIN_WEIGHT) whose concepts a card's description names,
    by id: the hints a card written without engine_hints would have."""
    return {
        signal.id: signal
        for unit in card.descriptive_units
        if unit.startswith(CONCEPT_PREFIX)
        for signal in registry.concept_signals(unit.removeprefix(CONCEPT_PREFIX))
        if signal.weight >= params.HINTED_SIGNAL_MIN_WEIGHT
    }


def _signal_evidence(weight: float, detail: str) -> EvidenceItem:
    """The signals family at a fired signal's weight (SIGNAL_FACTOR, up to SIGNAL_MAX)."""
    return EvidenceItem("signals", min(params.SIGNAL_MAX, weight * params.SIGNAL_FACTOR), detail)


def _implied_signals(card: IndexedCard, registry: Registry, env: Envelope) -> tuple[Signal, ...]:
    """The fired `described_signals` of a card, in id order. A signal fired only on words of
    concepts the description shares is that overlap again ("rm -rf" for a card that says "rm -rf";
    "drop the table" for a card that says "cannot be undone" is a second witness), and one fired
    only in background sentences names another matter."""
    found = {k: s for k, s in described_signals(card, registry).items() if k in env.fired}
    if not found:
        return ()
    shared = [
        (start, end)
        for concept, start, end in env.concept_spans
        if CONCEPT_PREFIX + concept in card.descriptive_units
    ]

    def witness(signal_id: str) -> bool:
        mentions = _mentions((signal_id,), env)
        return not mentions or (
            not all(_within(m, shared) for m in mentions)
            and any(env.weight_at(start) > params.BACKGROUND_WEIGHT for start, _ in mentions)
        )

    return tuple(found[key] for key in sorted(found) if witness(key))


def _own_phrase_families(
    kind: str, phrase: Phrase | None, env: Envelope, strength: float
) -> frozenset[str]:
    """The phrase families that show the prompt saying one of the card's own phrases. A
    one-concept phrase met only through a concept the prompt implies ("private key" implies
    "secret") is evidence, but not the card's phrase said in the prompt; nor is part of a
    phrase (a cover weaker than a whole one, WHOLE_PHRASE_STRENGTH)."""
    if kind == "concepts" and phrase is not None and set(phrase.units) <= env.implied:
        return PHRASE_FAMILIES - {"concepts"}
    if kind == "coverage" and strength < params.WHOLE_PHRASE_STRENGTH:
        return PHRASE_FAMILIES - {"coverage"}
    return PHRASE_FAMILIES


def reading_strength(assessment: Assessment) -> float:
    """How strongly a card reads the prompt: the noisy-OR of its lexical evidence (what its own
    words found), the description overlap at its full cosine up to a perfect phrase
    (ANCHOR_MAX). To admit a card, a close description is close enough however close; between
    two readings of one task, the closer description is the better reading."""
    full = min(params.ANCHOR_MAX, params.DESCRIPTION_SCALE * assessment.cosine)
    return noisy_or(
        full if i.family == "overlap" else i.strength
        for i in assessment.evidence
        if i.family in LEXICAL_FAMILIES
    )


def whole_phrase_met(assessment: Assessment) -> bool:
    """True when the prompt carried one of the card's phrases whole (exactly or every unit)."""
    return any(
        i.family in PHRASE_FAMILIES and i.strength >= params.WHOLE_PHRASE_STRENGTH
        for i in assessment.evidence
    )


def home_clause(card: IndexedCard, env: Envelope, weight: Weight) -> int:
    """The clause a card's evidence comes from (most specific shared terms; first on ties): in a
    prompt that cues cut into tasks, the task (`Envelope.clauses`).

    Two cards without strong anchors are both returned only when they come from different
    clauses: two tasks, not one task read twice.
    """
    scores = [_weight(card.descriptive_units & clause, weight) for clause in env.clauses]
    return max(range(len(scores)), key=lambda i: (scores[i], -i)) if scores else 0


def focus_weight(card: IndexedCard, env: Envelope, weight: Weight) -> float:
    """The weight of the card's description the request sentences share (background aside)."""
    return _weight(card.descriptive_units & env.focus_terms, weight)


def _signals_echo(hinted: Sequence[str], phrase: Phrase, env: Envelope) -> bool:
    """Whether the card's fired signals fired only on the words that met its one-concept phrase.

    "bird migration" fires a migration signal and meets the phrase "alembic migration" through
    the one word "migration": that word is one piece of evidence, not two families.
    """
    concept = phrase.units[0].removeprefix(CONCEPT_PREFIX)
    met = [(start, end) for c, start, end in env.concept_spans if c == concept]
    mentions = _mentions(hinted, env)
    return bool(mentions) and all(_within(m, met) for m in mentions)


def _mentions(signal_ids: Sequence[str], env: Envelope) -> list[tuple[int, int]]:
    """The prompt spans that fired these signals."""
    return [m for hit in env.detection.hits if hit.id in signal_ids for m in hit.mentions]


def _within(span: tuple[int, int], spans: Sequence[tuple[int, int]]) -> bool:
    """Whether a span lies inside one of `spans`."""
    return any(start <= span[0] and span[1] <= end for start, end in spans)


def _matched_files(card: IndexedCard, files: Sequence[str]) -> list[str]:
    """The prompt's files that one of the card's `paths` globs matches, sorted."""
    return sorted(
        {
            f
            for f in files
            for glob in card.card.paths
            if fnmatch.fnmatch(f, glob) or fnmatch.fnmatch(f, glob.removeprefix("**/"))
        }
    )


def match_paths(
    cards: Mapping[int, IndexedCard], files: Sequence[str]
) -> tuple[dict[int, list[str]], frozenset[str]]:
    """Once per prompt: the files each card's globs match (by position, cards matching none
    left out), and the files that the globs of more than one card (by id: copies count once)
    match."""
    matched = {p: found for p, card in cards.items() if (found := _matched_files(card, files))}
    owners: dict[str, set[str]] = {}
    for p, found in matched.items():
        for f in found:
            owners.setdefault(f, set()).add(cards[p].id)
    return matched, frozenset(f for f, ids in owners.items() if len(ids) > 1)


def prompt_units(card: IndexedCard, env: Envelope) -> frozenset[str]:
    """The prompt's positive units that a card's description also holds."""
    return card.descriptive_units & env.term_set


def subsumes(broad: frozenset[str], narrow: frozenset[str], weight: Weight) -> bool:
    """True when one card's shared prompt units contain another's and weigh clearly more.

    Of two look-alike cards (a cache and its warm-up, an index and a migration), the one that
    explains only a subset of what the other explains is the less specific reading of the same
    request: its anchor words are the other card's words too, so they do not tell the two apart.
    """
    narrow_weight = _weight(narrow, weight)
    if not narrow_weight:
        return False
    left = _weight(narrow - broad, weight)
    return (
        left <= params.SUBSUME_LEFT_SHARE * narrow_weight
        and _weight(broad, weight) >= params.SUBSUME_RATIO * narrow_weight
    )


def card_signature(card: IndexedCard) -> frozenset[str]:
    """The units of a card's trigger, alias and title phrases, for near-duplicate detection."""
    return frozenset(
        u for p in card.phrases if p.kind in ("trigger", "alias", "title") for u in p.units
    )


def is_near_duplicate(a: IndexedCard, b: IndexedCard) -> bool:
    """Same id, or one card's anchor units mostly covered by the other's (overlap coefficient)."""
    if a.id == b.id:
        return True
    return overlap(card_signature(a), card_signature(b)) >= params.COLLAPSE_SIMILARITY


__all__ = [
    "LEXICAL_FAMILIES",
    "PHRASE_FAMILIES",
    "REJECT_BELOW_THRESHOLD",
    "REJECT_BOUNDED",
    "REJECT_BUILD",
    "REJECT_DUPLICATE",
    "REJECT_IGNORE",
    "REJECT_LIMIT",
    "REJECT_NO_ACTION",
    "REJECT_ONE_TASK",
    "REJECT_QUESTION",
    "REJECT_RELATIVE",
    "REJECT_SAME_TASK",
    "REJECT_ROUTING",
    "REJECT_SUBSUMED",
    "REJECT_TASKS",
    "REJECT_WEAK",
    "Assessment",
    "EvidenceItem",
    "Gate",
    "assess_card",
    "described_signals",
    "card_signature",
    "focus_weight",
    "gate_card",
    "home_clause",
    "ignore_phrase_said",
    "is_near_duplicate",
    "match_paths",
    "phrase_in_text",
    "prompt_units",
    "reading_strength",
    "subsumes",
    "whole_phrase_met",
    "window_sizes",
]
