"""Recall as one pure function: (card index, registry, prompt, options) -> result (SPEC §5).

The path reads as a straight line: envelope -> query -> candidates -> gates -> evidence ->
admission -> fusion -> collapse -> selection -> render. No clock, file, environment or randomness.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from ome import params
from ome.analysis import normalize_text, tokenize
from ome.concepts import ConceptMatcher, concept_token
from ome.envelope import Envelope, build_envelope
from ome.index import CardIndex
from ome.render import RenderCard, render_context
from ome.scoring import bm25f, idf, rrf
from ome.selection import (
    LEXICAL_FAMILIES,
    REJECT_DUPLICATE,
    REJECT_IGNORE,
    REJECT_LIMIT,
    REJECT_ONE_TASK,
    REJECT_RELATIVE,
    REJECT_SAME_TASK,
    REJECT_SUBSUMED,
    REJECT_TASKS,
    REJECT_WEAK,
    Assessment,
    EvidenceItem,
    Gate,
    assess_card,
    focus_weight,
    gate_card,
    home_clause,
    ignore_phrase_said,
    is_near_duplicate,
    match_paths,
    prompt_units,
    reading_strength,
    subsumes,
    whole_phrase_met,
    window_sizes,
)
from ome.signals import Registry

LAYER_RANK = {"project": 0, "global": 1, "team": 2, "bundled": 3}

ABSTAIN_EMPTY = "empty_prompt"
ABSTAIN_NO_CANDIDATES = "no_candidates"
ABSTAIN_ALL_REJECTED = "all_candidates_rejected"
ABSTAIN_BUDGET = "budget_too_small"
ABSTAIN_MAINTENANCE = "maintenance_command"

# A prompt whose first line is an ome command (`ome experience new ...`) is about the library,
# not a task: matching it would echo the card being edited back at the user (SPEC §6).
_MAINTENANCE = re.compile(
    r"^[\s`$!>]*(?:python3?\s+-m\s+)?ome\s+"
    r"(?:experience|config|hook|doctor|stats|signals|project|init|eval|match|index)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class RecallOptions:
    """Caller-chosen knobs; defaults are the product's defaults."""

    limit: int = params.DEFAULT_LIMIT
    threshold: int = params.DEFAULT_THRESHOLD
    budget_chars: int = params.DEFAULT_BUDGET_CHARS
    project_key: str = ""
    reminder_ids: frozenset[str] = field(default_factory=frozenset)


@dataclass(frozen=True, slots=True)
class Candidate:
    """One evaluated card with all its scores and the decision taken."""

    assessment: Assessment
    bm25f: float
    bm25f_rank: int
    evidence_rank: int
    fused: float
    selected: bool
    rejection: str

    @property
    def id(self) -> str:
        return self.assessment.card.id


@dataclass(frozen=True, slots=True)
class Match:
    """A returned card."""

    id: str
    title: str
    score: int
    layer: str
    path: str
    policy: str
    risk: str
    families: tuple[str, ...]
    matched_by: tuple[str, ...]
    strong_anchor: bool


@dataclass(frozen=True, slots=True)
class RecallResult:
    """What recall returns: matches, the context to inject, and the full diagnostics."""

    matches: tuple[Match, ...]
    context: str
    abstain_reason: str
    envelope: Envelope | None
    query: tuple[tuple[str, float], ...]
    variants: tuple[tuple[str, float, tuple[str, ...]], ...]
    candidates: tuple[Candidate, ...]
    options: RecallOptions
    library_size: int


def build_query(
    env: Envelope, registry: Registry
) -> tuple[dict[str, float], tuple[tuple[str, float, tuple[str, ...]], ...]]:
    """Weighted query terms from the envelope's variants; a term keeps its largest weight."""
    stopwords = registry.vocabulary.stopwords
    prompt_terms = tuple(t for t in dict.fromkeys(env.terms) if not t.startswith("§"))
    concept_terms = tuple(concept_token(c) for c in env.concepts)
    expansions: list[str] = []
    for signal_id in env.fired:
        signal = registry.get(signal_id)
        if signal is None or signal.polarity != "positive":
            continue
        for phrase in signal.expand:
            expansions.extend(
                t.term for t in tokenize(normalize_text(phrase)) if t.term not in stopwords
            )
    variants: tuple[tuple[str, float, tuple[str, ...]], ...] = (
        ("prompt", params.QUERY_WEIGHT_PROMPT, prompt_terms),
        ("concepts", params.QUERY_WEIGHT_CONCEPT, concept_terms),
        ("signals", params.QUERY_WEIGHT_SIGNAL_ID, env.fired + env.intent_modes),
        ("expansions", params.QUERY_WEIGHT_EXPANSION, tuple(dict.fromkeys(expansions))),
    )
    query: dict[str, float] = {}
    for _, weight, terms in variants:
        for term in terms:
            if weight > query.get(term, 0.0):
                query[term] = weight
    return dict(sorted(query.items())), variants


def _bm25f_scores(index: CardIndex, query: dict[str, float]) -> dict[int, float]:
    """BM25F of the cards worth assessing: the MAX_CANDIDATES best by a cheap pre-score.

    The pre-score (query weight x idf x field weight x tf, summed from the postings) needs no
    card to be decoded; full BM25F and the evidence score then run on a bounded set, so the
    cost of a prompt does not grow with the library. Ties break on position (card id order).
    """
    n_docs = max(index.size, 1)
    postings = {term: index.postings.get(term, ()) for term in query}
    pre: dict[int, float] = {}
    for term, plist in postings.items():
        gain = query[term] * idf(index.doc_freq.get(term, 0), n_docs)
        for position, name, tf in plist:
            pre[position] = pre.get(position, 0.0) + gain * params.FIELD_WEIGHTS.get(name, 0.0) * tf
    keep = set(heapq.nsmallest(params.MAX_CANDIDATES, pre, key=lambda p: (-pre[p], p)))
    field_counts: dict[int, dict[str, dict[str, int]]] = {}
    for term, plist in postings.items():
        for position, name, tf in plist:
            if position in keep:
                field_counts.setdefault(position, {}).setdefault(name, {})[term] = tf
    scores: dict[int, float] = {}
    for position, counts in field_counts.items():
        lengths = {name: len(terms) for name, terms in index.cards[position].fields}
        scores[position] = bm25f(
            query,
            counts,
            lengths,
            index.avg_field_len,
            params.FIELD_WEIGHTS,
            index.doc_freq,
            n_docs,
        )
    return scores


def _matched_by(assessment: Assessment) -> tuple[str, ...]:
    labels = {
        "exact": "phrase",
        "coverage": "phrase words",
        "concepts": "concepts",
        "overlap": "shared terms",
        "technical": "file path",
        "signals": "task signal",
        "cross_field": "several fields",
        "related": "related to",
    }
    out = []
    for item in assessment.evidence:
        if item.family in ("exact", "coverage", "technical", "related"):
            out.append(f'{labels[item.family]} "{item.detail}"')
        elif item.family == "concepts":
            out.append("concepts " + ", ".join(c.lstrip("§") for c in item.detail.split(",")))
        elif item.family == "signals" and assessment.implied_signals:
            out.append("task signal implied by its concepts")
        else:
            out.append(labels[item.family])
    return tuple(out)


def _reads_better(a: Assessment, b: Assessment) -> bool:
    """Of two readings of one task, whether `a` wins: a card its description backs closely beats
    one held only by a loose anchor; otherwise the stronger lexical evidence wins, the closer
    description counting in full."""
    if a.close_description != b.close_description and (a.loose_anchor or b.loose_anchor):
        return a.close_description
    return reading_strength(a) > reading_strength(b)


def _linked(index: CardIndex, positions: set[int]) -> set[int]:
    """The positions of the cards that these cards name in `related`: assessed beside them, so
    that a linked card can be brought in with its gates read, whatever the prompt shares."""
    return {
        linked
        for position in positions
        for card_id in index.cards[position].card.related
        for linked in index.positions_of(card_id)
    }


def _bring_related(
    selected: list[tuple[int, Assessment]],
    ranked: list[tuple[int, Assessment]],
    decisions: dict[int, str],
    index: CardIndex,
    opts: RecallOptions,
) -> None:
    """Related cards (SPEC §11): a card anchored in the prompt brings in the first card its author
    linked to it in `related` that the prompt did not return but meets in its own words (one
    lexical family of evidence), at RELATED_DECAY of the anchored card's score (or its own, when
    higher), while the limit has room and that score clears the threshold. The link is the second
    witness, never the only one: a linked card the prompt says nothing of (or only fires a signal
    for) stays out, as does one its gates turn away (its ignore_when phrase said, retired, another
    project's) and a near-duplicate of a returned card."""
    assessed = dict(ranked)
    for _, a in list(selected):
        score = round(a.score * params.RELATED_DECAY)
        if not a.anchored or score < opts.threshold or len(selected) >= opts.limit:
            continue
        returned = {s.card.id for _, s in selected}
        links = (
            (position, assessed[position])
            for card_id in a.card.card.related
            if card_id not in returned
            for position in sorted(
                (p for p in index.positions_of(card_id) if p in assessed),
                key=lambda p: LAYER_RANK.get(index.cards[p].layer, 9),
            )
        )
        for position, linked in links:
            if (
                not any(
                    i.family in LEXICAL_FAMILIES and i.strength >= params.FAMILY_MIN_STRENGTH
                    for i in linked.evidence
                )
                or not all(g.passed for g in linked.gates)
                or any(is_near_duplicate(s.card, linked.card) for _, s in selected)
            ):
                continue
            brought = replace(
                linked,
                score=max(linked.score, score),
                rejection="",
                evidence=(
                    *linked.evidence,
                    EvidenceItem("related", params.RELATED_DECAY, a.card.id),
                ),
            )
            selected.append((position, brought))
            ranked[next(i for i, (p, _) in enumerate(ranked) if p == position)] = (
                position,
                brought,
            )
            decisions[position] = ""
            break


def _ignore_boundary(
    index: CardIndex, gated: Mapping[int, tuple[tuple[Gate, ...], str]], env: Envelope
) -> frozenset[str] | None:
    """The units of the `ignore_when` phrases a prompt says (None when it says none): the
    situation the prompt is about, named by the card it is not about. A phrase said only in
    background ("for context, the team is also planning the spring offsite") names another
    matter, not the prompt's situation."""
    said = [
        index.cards[position].ignore[index.cards[position].card.ignore_when.index(gate.detail)]
        for position, (gates, rejection) in gated.items()
        if rejection == REJECT_IGNORE
        for gate in gates
        if gate.name == REJECT_IGNORE
        and any(
            env.weight_at(start) > params.BACKGROUND_WEIGHT
            for start in ignore_phrase_said(gate.detail, env)
        )
    ]
    return frozenset(unit for phrase in said for unit in phrase.units) if said else None


def is_maintenance_command(prompt: str) -> bool:
    """True when the prompt's first non-blank line is an `ome` command."""
    first = next((line for line in prompt.splitlines() if line.strip()), "")
    return bool(_MAINTENANCE.match(first))


def recall(
    index: CardIndex,
    registry: Registry,
    matcher: ConceptMatcher,
    prompt: str,
    options: RecallOptions | None = None,
) -> RecallResult:
    """Match one prompt against the index and render the context to inject."""
    opts = options or RecallOptions()
    if not prompt.strip():
        return RecallResult((), "", ABSTAIN_EMPTY, None, (), (), (), opts, index.size)
    if is_maintenance_command(prompt):
        return RecallResult((), "", ABSTAIN_MAINTENANCE, None, (), (), (), opts, index.size)
    env = build_envelope(prompt, registry, matcher)
    query, variants = build_query(env, registry)
    bm25 = _bm25f_scores(index, query)
    memo: dict[str, float] = {}

    def weight(term: str) -> float:
        value = memo.get(term)
        if value is None:
            value = memo[term] = index.specificity(term)
        return value

    found = set(bm25) | set(index.path_cards)
    positions = sorted(found | _linked(index, found))
    sizes = window_sizes(env, weight, registry.vocabulary.word_concepts)
    matched_paths, contested = match_paths(
        {p: index.cards[p] for p in index.path_cards} if env.files else {}, env.files
    )
    gated = {p: gate_card(index.cards[p], env, registry, opts.project_key) for p in positions}
    boundary = _ignore_boundary(index, gated, env)
    assessments: list[tuple[int, Assessment]] = []
    for position in positions:
        card = index.cards[position]
        gates, rejection = gated[position]
        assessments.append(
            (
                position,
                assess_card(
                    card,
                    env,
                    registry,
                    gates,
                    rejection,
                    opts.threshold,
                    weight,
                    sizes,
                    matched_paths.get(position, ()),
                    contested,
                    boundary,
                ),
            )
        )
    if not assessments:
        return RecallResult(
            (), "", ABSTAIN_NO_CANDIDATES, env, tuple(query.items()), variants, (), opts, index.size
        )

    def key(position: int) -> str:
        card = index.cards[position]
        return f"{card.id}\x00{card.layer}\x00{card.path}"

    by_bm25 = sorted(assessments, key=lambda pa: (-bm25.get(pa[0], 0.0), key(pa[0])))
    by_evidence = sorted(assessments, key=lambda pa: (-pa[1].score, key(pa[0])))
    bm25_rank = {pa[0]: r for r, pa in enumerate(by_bm25, start=1)}
    evidence_rank = {pa[0]: r for r, pa in enumerate(by_evidence, start=1)}
    fused = rrf([[key(p) for p, _ in by_bm25], [key(p) for p, _ in by_evidence]])

    # A long prompt that does not number or count its tasks holds one task (see below). Its
    # cards are weighed for that task in rank order; a must card is listed first only after.
    one_task = env.long_prompt and not env.multi_task
    # A loosely anchored card (a phrase said apart, or named in passing in a long prompt, with
    # little of the card around it) is not the bar the others are measured against while a card
    # is backed by an anchor or a close description of its own; in a long prompt of one task it
    # then holds the task only after those.
    backed = any(a.admitted and (a.anchored or a.close_description) for _, a in assessments)
    loose_last = one_task and backed

    def order(
        pa: tuple[int, Assessment], must_first: bool = True, stale_last: bool = False
    ) -> tuple[object, ...]:
        position, a = pa
        return (
            not a.admitted,
            loose_last and a.loose_anchor,
            must_first and a.card.card.policy != "must",
            stale_last and a.card.card.edited_since_verified,
            -fused[key(position)],
            -a.score,
            LAYER_RANK.get(a.card.layer, 9),
            key(position),
        )

    ranked = sorted(assessments, key=lambda pa: order(pa, must_first=not one_task))
    decisions: dict[int, str] = {}
    selected: list[tuple[int, Assessment]] = []
    homes: dict[int, int] = {}

    def home_of(position: int) -> int:
        """The clause a card's evidence comes from, computed once per card."""
        home = homes.get(position)
        if home is None:
            home = homes[position] = home_clause(index.cards[position], env, weight)
        return home

    shared = {p: prompt_units(a.card, env) for p, a in ranked if a.admitted}
    subsumed = {
        p
        for p in shared
        if any(
            q != p
            and index.cards[q].id != index.cards[p].id
            and subsumes(shared[q], shared[p], weight)
            and (not env.multi_task or home_of(q) == home_of(p))
            for q in shared
        )
    }
    top_score = max(
        (
            a.score
            for p, a in ranked
            if a.admitted and p not in subsumed and not (backed and a.loose_anchor)
        ),
        default=0,
    )

    # A prompt that announces several tasks holds one per clause: a card then needs to be
    # close to the best card of its own clause, not to the other task's card.
    clause_top: dict[int, int] = {}
    if env.multi_task:
        for p, a in ranked:
            if a.admitted and p not in subsumed:
                home = home_of(p)
                clause_top[home] = max(clause_top.get(home, 0), a.score)

    short_single_task = not (env.multi_task or env.long_prompt)
    relative_floor = params.LONG_PROMPT_RELATIVE_FLOOR if env.long_prompt else params.RELATIVE_FLOOR

    def describes_more(a: Assessment, holder: Assessment) -> bool:
        """In a long prompt of one task: whether the request sentences (background aside)
        describe `a` clearly more closely than the card holding the task, found in the
        background."""
        return focus_weight(a.card, env, weight) > params.ONE_TASK_FOCUS_RATIO * (
            focus_weight(holder.card, env, weight)
        )

    def contest(
        held: tuple[int, Assessment], position: int, a: Assessment, wins: bool, why: str
    ) -> None:
        """One slot, two cards: the winner holds it, the loser is rejected with `why`."""
        if wins:
            selected[selected.index(held)] = (position, a)
            decisions[held[0]] = why
            decisions[position] = ""
        else:
            decisions[position] = why

    for position, a in ranked:
        if not a.admitted:
            decisions[position] = a.rejection
            continue
        if position in subsumed:
            decisions[position] = REJECT_SUBSUMED
            continue
        duplicate = next((s for s in selected if is_near_duplicate(s[1].card, a.card)), None)
        if duplicate is not None:
            # One lesson, several copies: project beats global, a user's card beats a starter.
            wins = LAYER_RANK.get(a.card.layer, 9) < LAYER_RANK.get(duplicate[1].card.layer, 9)
            contest(duplicate, position, a, wins, REJECT_DUPLICATE)
            continue
        if not a.anchored:
            home = home_of(position)
            if a.score < clause_top.get(home, top_score) * relative_floor:
                decisions[position] = REJECT_RELATIVE
                continue
            # Two unanchored cards from one clause are one task read twice: the one with the
            # stronger lexical evidence (`reading_strength`) keeps the clause, whichever came
            # first in the fused order, unless one is held by a loose anchor and the other's
            # description is close (`_reads_better`). Signals are left out: they fire for a
            # whole area, not for one look-alike. A short prompt that announces no second task
            # is one task in every clause (the other sentences are its context), unless the two
            # cards' lexical evidence is equal (nothing then tells them apart) or each card met
            # one of its own phrases whole in its own clause: two tasks said plainly, and both
            # stay.
            strength = reading_strength(a)
            rival = next(
                (
                    s
                    for s in selected
                    if not s[1].anchored
                    and (
                        home_of(s[0]) == home
                        or (
                            short_single_task
                            and reading_strength(s[1]) != strength
                            and not (whole_phrase_met(a) and whole_phrase_met(s[1]))
                        )
                    )
                ),
                None,
            )
            if rival is not None:
                wins = _reads_better(a, rival[1])
                contest(rival, position, a, wins, REJECT_SAME_TASK)
                continue
            # A long prompt is one task among paragraphs of background unless it numbers or
            # counts its tasks: the first card returned holds the task, anchored or not, and an
            # unanchored card found in the background is not a second one. A card that the
            # request sentences describe clearly more closely takes the task from it: the
            # holder was found in the background.
            if one_task and selected:
                holder = selected[0]
                contest(holder, position, a, describes_more(a, holder[1]), REJECT_ONE_TASK)
                continue
        if len(selected) >= opts.limit:
            decisions[position] = REJECT_LIMIT
            continue
        selected.append((position, a))
        decisions[position] = ""

    def one_way(a: Assessment) -> bool:
        """Met in one way only: a phrase with nothing else of the card's description beyond
        its own words, or the description alone (beside the signals it implies, which only say
        that the prompt is in the description's area)."""
        return (
            a.lone_phrase
            or a.families == ("overlap",)
            or (a.implied_signals and a.families == ("overlap", "signals"))
        )

    if not env.multi_task and any(len(a.families) > 1 and not one_way(a) for _, a in selected):
        # One task, and a card that its prompt meets in several ways: a card met in one way only
        # (a phrase of it and nothing else of its description, as "the hot live room" where
        # clients reconnect in a storm) names the task's setting, not the task. A named file or
        # a fired signal of the card's own is a second way.
        for position, a in list(selected):
            if one_way(a):
                selected.remove((position, a))
                decisions[position] = REJECT_SAME_TASK
    if env.two_tasks:
        # Two tasks counted and more cards: a task was read twice. Unanchored cards give way
        # beyond TWO_TASK_CARDS, the best of each clause no card serves yet first, then by score.
        served = {home_of(p) for p, a in selected if a.anchored}
        unanchored = sorted(
            (pa for pa in selected if not pa[1].anchored),
            key=lambda pa: (-pa[1].score, order(pa)),
        )
        spread = []
        for position, _ in unanchored:
            if home_of(position) not in served:
                served.add(home_of(position))
                spread.append(position)
        room = max(0, params.TWO_TASK_CARDS - (len(selected) - len(unanchored)))
        staying = [*spread, *(p for p, _ in unanchored if p not in spread)][:room]
        for position, _ in unanchored:
            if position not in staying:
                decisions[position] = REJECT_TASKS
        selected = [pa for pa in selected if decisions[pa[0]] != REJECT_TASKS]

    def stand_in(least: int, clause: int | None = None) -> None:
        """Admit the best card that scored `least` and lacked only a second family of
        evidence (outside `clause`, the one already served, when given). Without a clause the
        prompt is one task among background, and the best card is chosen as a task's holder
        is: a later card that the request sentences describe clearly more closely than the
        first in rank order stands in instead (the first was met in the background)."""
        pool = [
            pa
            for pa in ranked
            if decisions.get(pa[0]) == REJECT_WEAK
            and pa[1].score >= least
            and (clause is None or home_of(pa[0]) != clause)
        ]
        if not pool:
            return
        found = pool[0]
        if clause is None:
            for pa in pool[1:]:
                if describes_more(pa[1], found[1]):
                    found = pa
        selected.append(found)
        decisions[found[0]] = ""

    if env.multi_task and len(selected) == 1:
        # Several tasks announced, one card found: another clause's best card stands in (a
        # task's words are fewer than a whole prompt's).
        stand_in(params.SECOND_TASK_SCORE, home_of(selected[0][0]))
    elif one_task and not selected:
        # One task among paragraphs of background, and no card: the request's few sentences
        # show less of a card than a short prompt would.
        stand_in(params.LONG_PROMPT_STAND_IN_SCORE)
    _bring_related(selected, ranked, decisions, index, opts)
    # Must cards first, then (SPEC §11: staleness lowers priority, never hides a card) the cards
    # not edited since a person last verified them, then rank order (a contest swaps in place).
    selected.sort(key=lambda pa: order(pa, stale_last=True))
    render_cards = [
        RenderCard(
            id=a.card.id,
            title=a.card.card.display_title,
            summary=a.card.card.summary,
            risk=a.card.card.risk,
            policy=a.card.card.policy,
            use_when=a.card.card.use_when,
            ignore_when=a.card.card.ignore_when,
            matched_by=_matched_by(a),
            link=a.card.path,
            scope_flag=" --scope project" if a.card.layer == "project" else "",
            reminder_only=a.card.id in opts.reminder_ids,
        )
        for _, a in selected
    ]
    context, kept = render_context(render_cards, opts.budget_chars)
    selected = [pa for pa in selected if pa[1].card.id in kept]
    matches = tuple(
        Match(
            id=a.card.id,
            title=a.card.card.display_title,
            score=a.score,
            layer=a.card.layer,
            path=a.card.path,
            policy=a.card.card.policy,
            risk=a.card.card.risk,
            families=a.families,
            matched_by=_matched_by(a),
            strong_anchor=a.strong_anchor,
        )
        for _, a in selected
    )
    kept_positions = {p for p, _ in selected}
    candidates = tuple(
        Candidate(
            assessment=a,
            bm25f=round(bm25.get(position, 0.0), 6),
            bm25f_rank=bm25_rank[position],
            evidence_rank=evidence_rank[position],
            fused=round(fused[key(position)], 6),
            selected=position in kept_positions,
            rejection="" if position in kept_positions else decisions.get(position) or REJECT_LIMIT,
        )
        for position, a in ranked
    )
    if matches:
        abstain = ""
    elif render_cards:
        abstain = ABSTAIN_BUDGET
    else:
        abstain = ABSTAIN_ALL_REJECTED
    return RecallResult(
        matches, context, abstain, env, tuple(query.items()), variants, candidates, opts, index.size
    )


__all__ = [
    "ABSTAIN_ALL_REJECTED",
    "ABSTAIN_EMPTY",
    "ABSTAIN_MAINTENANCE",
    "ABSTAIN_NO_CANDIDATES",
    "Candidate",
    "Match",
    "RecallOptions",
    "RecallResult",
    "build_query",
    "is_maintenance_command",
    "recall",
]
