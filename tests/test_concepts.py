"""The concept matcher: Han terms as substrings (also across one infix or a short gap), words as
sequences."""

from __future__ import annotations

import pytest

from ome.concepts import build_concept_matcher

MATCHER = build_concept_matcher(
    [
        ("change_password", ["改密码", "change password"]),
        ("password", ["密码", "password"]),
        ("branch_delete", ["删分支", "delete branch"]),
        ("migration", ["迁移", "migration"]),
    ],
    han_infixes=["了", "完", "过", "掉"],
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("改密码", [(0, "change_password", 3), (1, "password", 3)]),
        # One particle between verb and object: the term is found across it, in text offsets.
        ("用户改完密码以后", [(2, "change_password", 6), (4, "password", 6)]),
        ("删了分支", [(0, "branch_delete", 4)]),
        ("删掉了分支", [(0, "branch_delete", 5)]),
        # An infix only counts between two Han characters.
        ("了改密码", [(1, "change_password", 4), (2, "password", 4)]),
        ("删了 分支", []),
        # No term spans the particle: nothing new is made up around it.
        ("完成迁移", [(2, "migration", 4)]),
        ("change password", []),
    ],
)
def test_han_terms_are_found_across_one_infix(
    text: str, expected: list[tuple[int, str, int]]
) -> None:
    assert sorted(MATCHER.han_hits(text)) == expected


GAPPED = build_concept_matcher(
    [
        ("single_responsibility", ["按职责拆开"]),
        ("release_process", ["发布流程"]),
        ("drop", ["删表"]),
        ("design_doc", ["设计文档"]),
        ("design_source", ["设计规范"]),
    ],
    han_joiners=["和"],
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("按职责拆开", [(0, "single_responsibility", 5)]),
        # An object or a pronoun inside a long term: up to two Han characters.
        ("按职责把它拆开", [(0, "single_responsibility", 7)]),
        ("改一下发布新流程", [(3, "release_process", 8)]),
        ("发布了新的流程", []),
        ("发布 新流程", []),
        ("发布a流程", []),
        # Short terms keep their exact form: 删旧表 is not 删表.
        ("删旧表", []),
        ("按职", []),
        # What sits inside must be filler: 规范 belongs to 设计规范, so no gapped 设计文档.
        ("设计规范文档", [(0, "design_source", 4)]),
        # A joiner inside joins two things: 发布和新流程 is a release and a new process.
        ("发布和新流程", []),
        ("发布和流程", []),
    ],
)
def test_a_long_han_term_is_found_with_a_short_gap(
    text: str, expected: list[tuple[int, str, int]]
) -> None:
    assert sorted(GAPPED.han_hits(text)) == expected


SPACED = build_concept_matcher(
    [("gradle_upgrade", ["升级 gradle"]), ("cpu_usage", ["cpu占用"]), ("gradle", ["gradle"])]
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Chinese writers put a space between Chinese and an English word or leave it out; a Han
        # term is found either way, in the text's offsets.
        ("帮我升级gradle", [(2, "gradle_upgrade", 10)]),
        ("先升级 gradle 再说", [(1, "gradle_upgrade", 10)]),
        ("先升级  gradle", [(1, "gradle_upgrade", 11)]),
        # So are the backticks that mark code in a Chinese sentence.
        ("先升级 `gradle` 再说", [(1, "gradle_upgrade", 11)]),
        ("cpu 占用很高", [(0, "cpu_usage", 6)]),
        ("cpu占用很高", [(0, "cpu_usage", 5)]),
        # An English edge of a Han term is a word boundary, as everywhere: 升级gradlew is not
        # 升级gradle, and xcpu 占用 holds no cpu占用.
        ("升级gradlew", []),
        ("升级 gradlew 插件", []),
        ("xcpu 占用", []),
        # Only spaces between a Han character and another kind go: two English words stay two,
        # and so do two Han words.
        ("升级 gra dle", []),
        ("cpu 占 用", []),
    ],
)
def test_han_terms_are_found_whatever_the_spaces_beside_their_han_characters(
    text: str, expected: list[tuple[int, str, int]]
) -> None:
    assert sorted(SPACED.han_hits(text)) == expected


def test_without_infixes_a_split_term_is_not_found() -> None:
    plain = build_concept_matcher([("change_password", ["改密码"])])
    assert plain.han_hits("改完密码") == [] and plain.han_hits("改密码") == [
        (0, "change_password", 3)
    ]


WORDS = build_concept_matcher(
    [
        ("certificate_expiry", ["certificate expired"]),
        ("stale_cache", ["cache stale"]),
        ("null_check", ["is null"]),
    ],
    word_infixes=["is", "has", "been", "was"],
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("certificate expired", [(0, "certificate_expiry", 19)]),
        # Forms of "be" and "have" between a thing and its state: the term is found across them.
        ("the certificate has expired", [(4, "certificate_expiry", 27)]),
        ("certificate has been expired today", [(0, "certificate_expiry", 28)]),
        ("the cache was stale", [(4, "stale_cache", 19)]),
        # Only infixes are skipped: another word between the two is another phrase.
        ("the certificate never expired", []),
        ("certificate and expired", []),
        # A term that says an infix itself is matched as written.
        ("value is null here", [(6, "null_check", 13)]),
        # An infix counts only between two words.
        ("cache stale", [(0, "stale_cache", 11)]),
        ("has expired", []),
    ],
)
def test_word_terms_are_found_across_infix_words(
    text: str, expected: list[tuple[int, str, int]]
) -> None:
    assert sorted((h.start, h.concept, h.end) for h in WORDS.find(text)) == expected


def test_find_merges_han_and_word_hits_in_order() -> None:
    hits = MATCHER.find("改完密码 then change password")
    assert [(h.start, h.concept) for h in hits] == [
        (0, "change_password"),
        (2, "password"),
        (10, "change_password"),
        (17, "password"),
    ]
