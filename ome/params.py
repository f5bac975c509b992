"""Every tunable constant of the recall engine, in one place, each with where it comes from."""

from __future__ import annotations

from collections.abc import Mapping

ENGINE_VERSION = "ome-sparse-1"

# --- BM25F (Robertson & Zaragoza 2009, §3.5); k1 and b are the textbook defaults, as in the
# original OME. Field weights are the original's starting values (SPEC §5.6).
BM25_K1 = 1.2
BM25_B = 0.75
FIELD_WEIGHTS: Mapping[str, float] = {
    "title": 4.2,
    "triggers": 6.0,
    "aliases": 5.2,
    "topics": 3.0,
    "intent": 2.2,
    "signals": 2.4,
    "category": 1.8,
    "summary": 1.5,
    "use_when": 1.5,
}

# --- Reciprocal rank fusion (Cormack, Clarke & Büttcher 2009): k = 60.
RRF_K = 60

# --- Query variant weights (SPEC §5.4): a query term keeps the largest weight of any variant.
QUERY_WEIGHT_PROMPT = 1.0
QUERY_WEIGHT_CONCEPT = 0.8
QUERY_WEIGHT_SIGNAL_ID = 1.0
QUERY_WEIGHT_EXPANSION = 0.5

# --- Evidence families (SPEC §5.7). Strengths are probabilities combined by noisy-OR; chosen so
# one strong anchor (an exact multi-word trigger) clears the default threshold alone, while a
# single plain word, a topic or a fired signal needs a second, independent family.
DEFAULT_THRESHOLD = 40  # the original's default evidence threshold
EXACT_STRONG = 0.9  # exact trigger / alias / title phrase of two or more units
EXACT_USE_WHEN = 0.8  # exact `use_when` situation (written for people, a little less precise)
EXACT_SINGLE_TECHNICAL = 0.8  # one technical token: a path, flag, dotted or camelCase name
EXACT_SINGLE_WORD = 0.4  # one plain word or a two-character Han word
COVERAGE_MAX = 0.8  # full coverage of a multi-unit phrase inside one segment
COVERAGE_MIN_SHARE = 0.5  # below this share of a phrase's units, coverage is no evidence
COVERAGE_WHOLE_PROMPT_FACTOR = 0.75  # units spread over several sentences count for less
CONCEPT_PHRASE = 0.6  # a one-concept trigger met through a synonym or translation
CONCEPT_EACH = 0.25  # each concept shared with the card's phrases
CONCEPT_MAX = 0.6
OVERLAP_EACH = 0.1  # each distinct unit shared with the card's descriptive fields
OVERLAP_HAN_BIGRAM = 0.5  # a Han bigram counts half a unit
OVERLAP_MAX = 0.5
OVERLAP_MIN_UNITS = 2
SIGNAL_FACTOR = 0.6  # fired positive hint: its registry weight times this
SIGNAL_MAX = 0.45
PATH_GLOB = 0.85  # a file the prompt names matches one of the card's `paths` globs
CROSS_FIELD = 0.15  # matches in three or more distinct fields
IGNORE_FUZZY_PENALTY = 25.0  # points off when a prompt segment covers an ignore_when phrase
IGNORE_FUZZY_SHARE = 0.75

# --- Selection (SPEC §5.10).
DEFAULT_LIMIT = 4
RELATIVE_FLOOR = 0.6  # a card without its own strong anchor must reach this share of the best
COLLAPSE_SIMILARITY = 0.6  # Jaccard of phrase units above which two cards are one lesson

# --- Rendering (SPEC §5.11).
DEFAULT_BUDGET_CHARS = 6000
MAX_BUDGET_CHARS = 9000
SUMMARY_SHORT_CHARS = 160
