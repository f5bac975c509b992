"""Pure selection helpers: decisions between admitted cards."""

from __future__ import annotations

from ome.selection import subsumes


def unit(_: str) -> float:
    return 1.0


def test_a_card_explaining_a_subset_of_a_broader_match_is_subsumed() -> None:
    narrow = frozenset({"redis", "§cache"})
    broad = frozenset({"redis", "§cache", "§cluster", "empty", "cutover"})
    assert subsumes(broad, narrow, unit)
    assert not subsumes(narrow, broad, unit)
    # Seven units against five: the broader card explains clearly more.
    narrow = frozenset({"redis", "§cache", "§cluster", "empty", "cutover"})
    assert subsumes(narrow | {"warm", "traffic"}, narrow, unit)


def test_a_card_with_words_of_its_own_is_not_subsumed() -> None:
    narrow = frozenset({"redis", "§cache", "ttl"})
    broad = frozenset({"redis", "§cache", "§cluster", "empty", "cutover", "warm"})
    assert not subsumes(broad, narrow, unit)


def test_similar_sized_matches_do_not_subsume_each_other() -> None:
    a = frozenset({"redis", "§cache", "warm"})
    b = frozenset({"redis", "§cache", "warm", "empty"})
    assert not subsumes(b, a, unit)
    assert not subsumes(frozenset(), frozenset(), unit)
