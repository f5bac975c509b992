from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SHARED_SUITES

from ome.cards import (
    card_from_mapping,
    card_front_matter,
    extract_rule,
    is_valid_id,
    parse_card_text,
    render_body,
)
from ome.errors import CardError
from ome.resources import resource_dir

ORIGINAL_CARD = """---
schema: ome-card
id: browser-validation
status: active
title: Browser Validation
category: 测试验收
summary: 当 UI 可见改动会影响用户路径时，应在真实浏览器验证。
criteria:
  use_when:
    - UI 或浏览器验收
  ignore_when:
    - 纯后端 migration
engine_hints:
  positive:
    - ui_surface
recall:
  policy: must
  risk: high
  confidence: medium
  triggers:
    - browser validation
  topics:
    - frontend
scope:
  level: project
  project_key: github.com/example/app
  module_path: apps/web
language: en
custom_key: kept
---

## 这张卡解决什么问题

说明。

## 完整规则

```text
打开真实 UI，检查浏览器控制台。
```
"""


def test_original_card_loads_unchanged() -> None:
    card = parse_card_text(ORIGINAL_CARD, "browser-validation.md", "browser-validation")
    assert card.rule == "打开真实 UI，检查浏览器控制台。"
    assert card.policy == "must"
    assert card.hints_positive == ("ui_surface",)
    assert card.project_key == "github.com/example/app"
    assert card.extra == (("custom_key", "kept"),)


def test_english_rule_heading() -> None:
    body = "## Problem\n\nx\n\n## Full Rule\n\n```text\nDo the thing.\n```\n\n## Notes\nno"
    assert extract_rule(body) == "Do the thing."


@pytest.mark.parametrize(
    ("mutation", "message"),
    [
        (
            ("summary: 当 UI 可见改动会影响用户路径时，应在真实浏览器验证。", ""),
            "'summary' is required",
        ),
        (("policy: must", "policy: always"), "'recall.policy' is 'always'"),
        (("id: browser-validation", "id: ../escape"), "not a safe id"),
        (("id: browser-validation", "id: other-id"), "make them equal"),
        (("## 完整规则", "## Something"), "no rule"),
        (("  triggers:\n    - browser validation", "  triggers: {a: 1}"), "list of text"),
    ],
)
def test_invalid_cards_name_the_problem(mutation: tuple[str, str], message: str) -> None:
    text = ORIGINAL_CARD.replace(*mutation)
    with pytest.raises(CardError) as info:
        parse_card_text(text, "browser-validation.md", "browser-validation")
    assert message in " ".join(info.value.problems)
    assert "browser-validation.md" in str(info.value)


def test_yaml_error_reports_file_and_line() -> None:
    text = ORIGINAL_CARD.replace("title: Browser Validation", "title: [broken")
    with pytest.raises(CardError) as info:
        parse_card_text(text, "x.md")
    assert str(info.value).startswith("x.md:")


def test_unsafe_yaml_tags_are_refused() -> None:
    text = ORIGINAL_CARD.replace(
        "custom_key: kept", "custom_key: !!python/object/apply:os.system ['true']"
    )
    with pytest.raises(CardError):
        parse_card_text(text, "x.md")


@pytest.mark.parametrize(
    ("card_id", "ok"),
    [
        ("a", True),
        ("git-safety_2.x", True),
        ("../x", False),
        ("/etc/passwd", False),
        ("a/b", False),
        ("a\\b", False),
        ("A", False),
        ("a..b", False),
        ("", False),
    ],
)
def test_ids(card_id: str, ok: bool) -> None:
    assert is_valid_id(card_id) is ok


@pytest.mark.parametrize("suite", sorted(SHARED_SUITES.glob("*.cards.json")), ids=lambda p: p.name)
def test_every_shared_reference_card_loads(suite: Path) -> None:
    data = json.loads(suite.read_text(encoding="utf-8"))
    cards = [card_from_mapping(item, source=item["id"]) for item in data["experiences"]]
    assert cards and all(c.summary and c.rule for c in cards)


BUNDLED = sorted(resource_dir("experiences").glob("*.md"))


def test_there_are_enough_bundled_cards() -> None:
    chinese = [p for p in BUNDLED if any("\u4e00" <= ch <= "\u9fff" for ch in p.read_text()[:400])]
    assert len(BUNDLED) >= 20
    assert len(chinese) >= 6


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_every_bundled_card_is_complete(path: Path) -> None:
    card = parse_card_text(path.read_text(encoding="utf-8"), str(path), path.stem)
    assert card.status == "active"
    assert card.use_when and card.ignore_when and card.triggers and card.topics and card.aliases
    assert card.rule


def test_front_matter_round_trip() -> None:
    card = parse_card_text(ORIGINAL_CARD, "browser-validation.md", "browser-validation")
    import yaml

    text = "---\n" + yaml.safe_dump(card_front_matter(card), allow_unicode=True, sort_keys=False)
    text += "---\n\n" + render_body(card)
    again = parse_card_text(text, "browser-validation.md", "browser-validation")
    assert again.rule == card.rule
    assert again.triggers == card.triggers
    assert again.scope_level == card.scope_level
