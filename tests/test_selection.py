"""Pure selection helpers: decisions between admitted cards."""

from __future__ import annotations

import pytest

from ome.selection import phrase_in_text, subsumes


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


@pytest.mark.parametrize(
    ("phrase", "text", "starts"),
    [
        # A phrase with Chinese in it is found whether or not its writer, or the prompt's, put
        # spaces between the Chinese and the English words; starts are the text's offsets.
        ("升级 gradle 插件", "帮我升级gradle插件", [2]),
        ("升级gradle插件", "先 升级 gradle 插件", [2]),
        ("升级 gradle 插件", "先升级 gradle  插件吧", [1]),
        ("升级 gradle 插件", "先升级`gradle`插件", [1]),
        # English edges stay on word boundaries, and two Chinese words stay two.
        ("升级 gradle", "升级gradlew", []),
        ("升级 gradle 插件", "升级 gradle 插 件", []),
        ("gradle plugin", "gradle  plugin", []),
    ],
)
def test_a_chinese_phrase_is_found_whatever_the_spaces_around_its_english_words(
    phrase: str, text: str, starts: list[int]
) -> None:
    assert phrase_in_text(phrase, text) == starts
