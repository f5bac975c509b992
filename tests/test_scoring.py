from __future__ import annotations

import math

import pytest

from ome.scoring import (
    bm25f,
    coverage,
    idf,
    noisy_or,
    pseudo_frequency,
    rrf,
    saturate,
    specificity,
)

WEIGHTS = {"title": 2.0, "body": 1.0}
AVG = {"title": 2.0, "body": 4.0}


@pytest.mark.parametrize(
    ("df", "n", "expected"),
    [(1, 2, math.log(2.0)), (1, 1, math.log(1 + 0.5 / 1.5)), (10, 10, math.log(1 + 0.5 / 10.5))],
)
def test_idf_matches_hand_values(df: int, n: int, expected: float) -> None:
    assert idf(df, n) == pytest.approx(expected)


def test_pseudo_frequency_normalises_each_field_by_its_own_length() -> None:
    counts = {"title": {"a": 1}, "body": {"a": 1}}
    lengths = {"title": 2, "body": 8}
    # title: 2 * 1 / (0.25 + 0.75 * 2/2) = 2.0; body: 1 * 1 / (0.25 + 0.75 * 8/4) = 1/1.75
    expected = 2.0 + 1 / 1.75
    assert pseudo_frequency("a", counts, lengths, AVG, WEIGHTS) == pytest.approx(expected)


def test_bm25f_hand_computed() -> None:
    counts = {"title": {"a": 1}, "body": {"a": 1}}
    lengths = {"title": 2, "body": 4}
    # tf~ = 2/1 + 1/1 = 3; idf(df=1, N=2) = ln 2; saturation 3 / (1.2 + 3)
    expected = math.log(2.0) * 3 / 4.2
    score = bm25f({"a": 1.0}, counts, lengths, AVG, WEIGHTS, {"a": 1}, 2)
    assert score == pytest.approx(expected)
    assert score == pytest.approx(0.495105, abs=1e-6)


def test_bm25f_query_weight_scales_a_term() -> None:
    counts = {"title": {"a": 1}}
    lengths = {"title": 2}
    one = bm25f({"a": 1.0}, counts, lengths, AVG, WEIGHTS, {"a": 1}, 2)
    half = bm25f({"a": 0.5}, counts, lengths, AVG, WEIGHTS, {"a": 1}, 2)
    assert half == pytest.approx(one / 2)


def test_saturation_is_bounded() -> None:
    assert saturate(0) == 0
    assert saturate(1e9) < 1


@pytest.mark.parametrize(
    ("strengths", "expected"),
    [([], 0.0), ([0.5], 0.5), ([0.5, 0.5], 0.75), ([0.9, 0.4], 0.94), ([1.5], 1.0), ([-1], 0.0)],
)
def test_noisy_or(strengths: list[float], expected: float) -> None:
    assert noisy_or(strengths) == pytest.approx(expected)


def test_rrf_hand_computed() -> None:
    fused = rrf([["a", "b"], ["b", "a", "c"]], k=60)
    assert fused["a"] == pytest.approx(1 / 61 + 1 / 62)
    assert fused["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert fused["c"] == pytest.approx(1 / 63)


def test_coverage() -> None:
    assert coverage(("a", "b", "c", "d"), {"a", "c"}) == (0.5, 2)
    assert coverage((), {"a"}) == (0.0, 0)


@pytest.mark.parametrize(
    ("df", "n", "expected"),
    [
        (0, 50, 0.0),
        (1, 50, 1.0),
        (3, 1, 1.0),
        (25, 50, math.log(1 + 25.5 / 25.5) / math.log(1 + 49.5 / 1.5)),
        (250, 500, math.log(1 + 250.5 / 250.5) / math.log(1 + 499.5 / 1.5)),
    ],
    ids=["unknown", "one-card", "tiny-library", "half-of-50", "half-of-500"],
)
def test_specificity_is_relative_idf(df: int, n: int, expected: float) -> None:
    assert specificity(df, n) == pytest.approx(expected)
