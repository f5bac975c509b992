from __future__ import annotations

import pytest

from ome.analysis import normalize_text, phrase_terms, stem, terms, tokenize
from ome.params import SHORT_FENCE_LINES


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("getUserName", ["getusername", "get", "user", "name"]),
        ("snake_case_name", ["snake_case_name", "snake", "case", "name"]),
        ("alembic/versions/x.py", ["alembic/versions/x.py", "alembic", "version", "x", "py"]),
        ("git status", ["git", "status"]),
        ("github", ["github"]),
        # Two capitalised words stay one token here (a prompt's reading splits some: envelope).
        ("ParcelTracker", ["parceltracker"]),
        ("回滚", ["回滚"]),
        ("浏览器验收", ["浏览", "览器", "器验", "验收"]),
        ("数据库", ["数据", "数据库", "据库"]),
        ("删", ["删"]),
        ("用git提交", ["用", "git", "提交"]),
        # "can't" split at its apostrophe would leave "can", its opposite; "don't" keeps "don".
        ("I can't merge", ["cannot", "merg"]),
        ("CAN'T merge", ["cannot", "merg"]),
        ("so we can merge", ["so", "we", "can", "merg"]),
        ("don't merge", ["don", "merg"]),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_tokenize_terms(text: str, expected: list[str]) -> None:
    assert [t.term for t in tokenize(normalize_text(text))] == expected


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("deploys", "deploy"),
        ("deployed", "deploy"),
        ("deploying", "deploy"),
        ("migration", "migrat"),
        ("production", "production"),
        ("deletion", "delet"),
        ("migrate", "migrat"),
        ("migrated", "migrat"),
        ("pushing", "push"),
        ("branches", "branch"),
        ("status", "status"),
        ("git", "git"),
        ("policies", "policy"),
        ("v2", "v2"),
        # A final e stays after one short syllable, and comes back when -ing or -ed took it.
        ("note", "note"),
        ("notes", "note"),
        ("noting", "note"),
        ("plane", "plane"),
        ("planning", "plan"),
        ("writing", "write"),
        ("scaling", "scale"),
        ("caching", "cach"),
        ("cache", "cach"),
        ("opening", "open"),
        ("releasing", "releas"),
        # Nor after -al: that would be another word.
        ("locale", "locale"),
        ("locales", "locale"),
        ("local", "local"),
        ("rationale", "rationale"),
        # A noun in -al from a verb in v, w or s meets the verb; other -al words stay.
        ("approval", "approv"),
        ("approvals", "approv"),
        ("approved", "approv"),
        ("renewal", "renew"),
        ("renewing", "renew"),
        ("proposal", "propos"),
        ("propose", "propos"),
        ("signal", "signal"),
        ("portal", "portal"),
        ("rival", "rival"),
        # British spellings meet American ones.
        ("cancelled", "cancel"),
        ("canceled", "cancel"),
        ("labelling", "label"),
        ("labels", "label"),
        ("spelled", "spell"),
        ("installed", "install"),
        ("normalise", "normaliz"),
        ("normalized", "normaliz"),
        ("organisation", "organizat"),
        ("organizations", "organizat"),
        ("raise", "rais"),
    ],
)
def test_stem(word: str, expected: str) -> None:
    assert stem(word) == expected


def test_git_never_matches_inside_github() -> None:
    assert "git" not in terms("Research GitHub issues about retrieval")


def test_full_width_forms_fold() -> None:
    assert terms("ＡＰＩ　ｋｅｙ") == terms("API key")


def test_a_long_code_fence_becomes_identifiers() -> None:
    code = "".join(f"result_{i} = load_card_index(cache_dir)\n" for i in range(SHORT_FENCE_LINES))
    text = normalize_text(f"Look:\n```python\n{code}```\nthanks")
    assert "load_card_index" in text
    assert "result_0 =" not in text


def test_a_short_fence_of_output_is_read_as_text() -> None:
    error = "Error: listen EADDRINUSE: address already in use :::5173\n"
    assert "address already in use" in normalize_text(f"```\n{error}```\nwhat now?")
    assert "address already in use" not in normalize_text(f"```\n{error * 40}```\nwhat now?")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("請幫我回滾遷移", "请帮我回滚迁移"),
        ("强制推送", "强制推送"),
        # A character Simplified text writes too stays as it is.
        ("彷彿", "彷佛"),
        ("“quoted” ‘text’", "\"quoted\" 'text'"),
    ],
    ids=["traditional", "simplified", "shared", "quotes"],
)
def test_normalize_text_folds_traditional_characters_and_quotes(text: str, expected: str) -> None:
    """One character for one: every offset into the prompt stays where it was."""
    assert normalize_text(text) == expected


def test_stack_frames_are_dropped() -> None:
    prompt = 'Traceback:\n  File "/srv/app/main.py", line 3, in run\nValueError: bad'
    assert "line 3" not in normalize_text(prompt)
    assert "ValueError" in normalize_text(prompt)


def test_phrase_terms_dedupe_in_order() -> None:
    assert phrase_terms("push push force") == ("push", "forc")
