"""Card similarity for near-duplicate warnings: hand-computed values and the threshold's margin."""

from __future__ import annotations

from pathlib import Path

import pytest

from ome.analysis import terms
from ome.cards import Card, parse_card_text
from ome.registry import load_registry
from ome.resources import resource_dir
from ome.similarity import (
    DUPLICATE_THRESHOLD,
    MIN_ANCHOR_TERMS,
    anchor_terms,
    card_similarity,
    jaccard,
    nearest_cards,
    overlap,
)


def card(title: str, summary: str = "s", triggers: tuple[str, ...] = (), **kw: object) -> Card:
    return Card(id="x", title=title, summary=summary, rule="r", triggers=triggers, **kw)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def stopwords() -> frozenset[str]:
    vocabulary = load_registry().vocabulary
    return vocabulary.stopwords_en | vocabulary.stopwords_zh


@pytest.fixture(scope="module")
def starters() -> list[Card]:
    paths = sorted(resource_dir("experiences").glob("*.md"))
    return [parse_card_text(p.read_text(encoding="utf-8"), str(p), p.stem) for p in paths]


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        pytest.param(set(), set(), 0.0, id="both-empty"),
        pytest.param({"a", "b"}, {"a", "b"}, 1.0, id="equal"),
        pytest.param({"a", "b", "c"}, {"b", "c", "d"}, 2 / 4, id="two-of-four"),
        pytest.param({"a"}, {"b"}, 0.0, id="disjoint"),
    ],
)
def test_jaccard(a: set[str], b: set[str], expected: float) -> None:
    assert jaccard(frozenset(a), frozenset(b)) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        pytest.param(set(), {"a"}, 0.0, id="empty"),
        # 4 shared of a 4-term card inside a 10-term card: covered entirely.
        pytest.param(set("abcd"), set("abcdefghij"), 4 / 4, id="small-inside-large"),
        # One shared term of a 1-term card: the floor keeps it at 1/MIN_ANCHOR_TERMS.
        pytest.param({"a"}, set("abcdef"), 1 / MIN_ANCHOR_TERMS, id="floor"),
        pytest.param(set("abcde"), set("cdefg"), 3 / 5, id="three-of-five"),
    ],
)
def test_overlap(a: set[str], b: set[str], expected: float) -> None:
    assert overlap(frozenset(a), frozenset(b)) == pytest.approx(expected)


def test_similarity_is_max_of_anchor_overlap_and_summary_jaccard() -> None:
    a = card("deploy target", summary="confirm the target before deploy", triggers=("prod deploy",))
    b = card("unrelated", summary="confirm the target before deploy", triggers=("other",))
    sim = card_similarity(a, b)
    assert sim.summary == 1.0
    assert sim.score == 1.0
    assert sim.anchors < 0.5


def test_similarity_is_symmetric_and_lists_shared_terms() -> None:
    a = card("Never force push to main", triggers=("force push",))
    b = card("No force push on shared branches", triggers=("force push", "git push --force"))
    assert card_similarity(a, b) == card_similarity(b, a)
    assert {"forc", "push"} <= set(card_similarity(a, b).shared)


@pytest.mark.parametrize(
    ("new", "starter_id"),
    [
        pytest.param(card("浏览器验收", triggers=("浏览器验收",)), "browser-validation", id="zh"),
        pytest.param(
            card("Check UI in a real browser", triggers=("real browser",)),
            "browser-validation",
            id="en-browser",
        ),
        pytest.param(
            card("Never force push to main", triggers=("force push",)),
            "no-force-push-shared-branch",
            id="en-force-push",
        ),
        pytest.param(
            card("Database migration review", triggers=("alembic migration",)),
            "reversible-db-migrations",
            id="en-migration",
        ),
    ],
)
def test_rewritten_starter_lessons_are_near_duplicates(
    new: Card, starter_id: str, starters: list[Card], stopwords: frozenset[str]
) -> None:
    near = nearest_cards(new, ((c.id, c) for c in starters), stopwords)
    assert near and near[0][0] == starter_id
    assert near[0][1].score >= DUPLICATE_THRESHOLD


def test_distinct_starter_cards_stay_below_the_threshold(
    starters: list[Card], stopwords: frozenset[str]
) -> None:
    # The margin the threshold comment promises: distinct lessons score at most ~0.2.
    worst = max(
        card_similarity(a, b, stopwords).score
        for i, a in enumerate(starters)
        for b in starters[i + 1 :]
    )
    assert worst < DUPLICATE_THRESHOLD - 0.2


def test_unrelated_card_has_no_near_duplicates(
    starters: list[Card], stopwords: frozenset[str]
) -> None:
    new = card("Prefer small functions", summary="Keep functions short", triggers=("refactor",))
    assert nearest_cards(new, ((c.id, c) for c in starters), stopwords) == ()


def test_nearest_cards_orders_by_score_then_key_and_limits() -> None:
    base = card("alpha beta gamma delta")
    others = [(key, card("alpha beta gamma delta")) for key in ("c", "a", "b")]
    others.append(("z", card("alpha beta")))
    near = nearest_cards(base, others, limit=3)
    assert [k for k, _ in near] == ["a", "b", "c"]
    assert [k for k, _ in nearest_cards(base, others, limit=10)] == ["a", "b", "c", "z"]


def test_anchor_terms_use_title_triggers_aliases_and_topics() -> None:
    c = card(
        "Title words",
        triggers=("trigger phrase",),
        aliases=(("zh-CN", ("浏览器",)),),
        topics=("frontend",),
    )
    expected = {*terms("Title words"), *terms("trigger phrase"), *terms("浏览器"), "frontend"}
    assert expected == anchor_terms(c)


def test_similarity_module_is_pure() -> None:
    source = Path(__file__).parents[1] / "ome" / "similarity.py"
    text = source.read_text(encoding="utf-8")
    for name in ("os", "pathlib", "time", "random", "subprocess", "click"):
        assert f"import {name}" not in text
