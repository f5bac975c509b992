"""Scoring formulas as small pure functions of numbers.

BM25F follows Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond"
(2009), §3.5: per-field length normalisation, one pseudo-frequency, one saturation. Reciprocal
rank fusion follows Cormack, Clarke & Büttcher, "Reciprocal Rank Fusion outperforms Condorcet
and individual Rank Learning Methods" (SIGIR 2009), with k = 60. Evidence families combine by
noisy-OR, so each family adds certainty without any one sum running past 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence

from ome.params import BM25_B, BM25_K1, RRF_K


def idf(doc_freq: int, n_docs: int) -> float:
    """Robertson-Sparck Jones idf with +1 inside the log so it never goes negative."""
    return math.log(1.0 + (n_docs - doc_freq + 0.5) / (doc_freq + 0.5))


def pseudo_frequency(
    term: str,
    field_counts: Mapping[str, Mapping[str, int]],
    field_lengths: Mapping[str, int],
    avg_lengths: Mapping[str, float],
    weights: Mapping[str, float],
    b: float = BM25_B,
) -> float:
    """BM25F's combined term frequency: sum over fields of w_f * tf_f / (1 - b + b * len/avg)."""
    total = 0.0
    for name, counts in field_counts.items():
        tf = counts.get(term, 0)
        if not tf:
            continue
        avg = avg_lengths.get(name) or 1.0
        norm = 1.0 - b + b * (field_lengths.get(name, 0) / avg)
        total += weights.get(name, 0.0) * tf / norm
    return total


def saturate(tf: float, k1: float = BM25_K1) -> float:
    """BM25 saturation of a (pseudo-)frequency."""
    return tf / (k1 + tf) if tf > 0 else 0.0


def bm25f(
    query: Mapping[str, float],
    field_counts: Mapping[str, Mapping[str, int]],
    field_lengths: Mapping[str, int],
    avg_lengths: Mapping[str, float],
    weights: Mapping[str, float],
    doc_freq: Mapping[str, int],
    n_docs: int,
) -> float:
    """BM25F score of one document for a weighted query (term -> query weight)."""
    score = 0.0
    for term, q_weight in query.items():
        tf = pseudo_frequency(term, field_counts, field_lengths, avg_lengths, weights)
        if tf:
            score += q_weight * idf(doc_freq.get(term, 0), n_docs) * saturate(tf)
    return score


def noisy_or(strengths: Iterable[float]) -> float:
    """1 - prod(1 - s): independent pieces of evidence, each in [0, 1]."""
    remaining = 1.0
    for s in strengths:
        remaining *= 1.0 - min(max(s, 0.0), 1.0)
    return 1.0 - remaining


def rrf(rankings: Sequence[Sequence[str]], k: int = RRF_K) -> dict[str, float]:
    """Reciprocal rank fusion: sum over rankings of 1 / (k + rank), ranks starting at 1."""
    fused: dict[str, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking, start=1):
            fused[key] = fused.get(key, 0.0) + 1.0 / (k + rank)
    return fused


def coverage(
    units: Sequence[str],
    present: frozenset[str] | set[str],
    weight: Callable[[str], float] | None = None,
) -> tuple[float, int]:
    """Share of a phrase's units found in a prompt (weighted by `weight`), and how many were."""
    if not units:
        return 0.0, 0
    found = [u for u in units if u in present]
    if weight is None:
        return len(found) / len(units), len(found)
    total = sum(weight(u) for u in units)
    return (sum(weight(u) for u in found) / total if total else 0.0), len(found)


def percentile(values: Sequence[float], pct: float) -> float:
    """Nearest-rank percentile: the smallest value with at least `pct`% of values at or below
    it (0 for no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[rank - 1]


def specificity(doc_freq: int, n_docs: int) -> float:
    """How specific a term is within a library, in [0, 1]: idf relative to a one-card term.

    A word on half the cards weighs about a fifth of a word on one card; the ratio depends on
    the share of cards, not on how many cards there are. A word on no card weighs nothing: it
    cannot match, so it must not dilute a similarity either.
    """
    if doc_freq <= 0:
        return 0.0
    if n_docs < 2 or doc_freq == 1:
        return 1.0
    return idf(doc_freq, n_docs) / idf(1, n_docs)


__all__ = [
    "bm25f",
    "coverage",
    "idf",
    "noisy_or",
    "pseudo_frequency",
    "rrf",
    "percentile",
    "saturate",
    "specificity",
]
