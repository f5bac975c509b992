"""The dictionary bridge: the bundled gloss table, its lookup, and the script that writes it."""

from __future__ import annotations

import importlib.util
import re
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest

from ome.cache import _code_stamp
from ome.envelope import build_envelope
from ome.glosses import Glossary, glosses_path
from ome.registry import load_registry

VOCABULARY = load_registry().vocabulary


def table_lines() -> list[str]:
    return glosses_path().read_text(encoding="utf-8").split("\n")


def generator() -> ModuleType:
    path = glosses_path().with_name("glosses_from_cedict.py")
    spec = importlib.util.spec_from_file_location("glosses_from_cedict", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_table_says_where_it_comes_from_and_under_which_license() -> None:
    header = "\n".join(line for line in table_lines() if line.startswith("#"))
    assert "CC-CEDICT" in header
    assert "https://creativecommons.org/licenses/by-sa/4.0/" in header


def test_the_table_is_sorted_headword_tab_senses_lines() -> None:
    """Lookup bisects the lines, so they must be sorted; each holds two to six Han characters."""
    rows = [line for line in table_lines() if line and not line.startswith("#")]
    assert len(rows) > 50_000
    assert rows == sorted(rows)
    for row in rows:
        assert re.fullmatch(r"[\u4e00-\u9fff]{2,6}\t[^\t]+", row), row


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("缓存", {"cach", "buffer", "memory"}),
        # The longest word wins: 数据库 is "database", not 数据 "data" and 库.
        ("数据库", {"databas"}),
        ("给番茄浇水", {"tomato", "water"}),
        # A Chinese stopword is read as a word and glosses nothing: 之后 is "after".
        ("之后", set()),
        ("plain English text", set()),
    ],
)
def test_glosses_of_chinese_words(text: str, expected: set[str]) -> None:
    assert VOCABULARY.glosses(text) == expected


def test_the_generator_keeps_plain_senses_of_han_words() -> None:
    source = [
        "#! date=2025-10-02T08:06:08Z\n",
        "緩存 缓存 [huan3 cun2] /(computing) cache/buffer memory/a temporary store/\n",
        "回滾 回滚 [hui2 gun3] /(computing) to roll back/rollback/(sports) to come back/\n",
        "張 张 [Zhang1] /surname Zhang/\n",
        "本子 本子 [ben3 zi5] /book/notebook/CL:本[ben3]/\n",
        "白菜 白菜 [bai2 cai4] /variant of 白菜[bai2 cai4]/Chinese cabbage/\n",
        "A貨 A货 [A huo4] /fake/\n",
    ]
    date, lines = generator().gloss_lines(source)
    assert date == "2025-10-02"
    assert lines == [
        "回滚\troll back; rollback",
        "本子\tbook; notebook",
        "白菜\tChinese cabbage",
        "缓存\tcache; buffer memory",
    ]


def test_an_edited_gloss_table_invalidates_the_cached_cards() -> None:
    """A card's glosses are part of its cached record, so the table is in the cache's key."""
    stamped = {entry[0]: entry[1:] for entry in _code_stamp()}
    size = glosses_path().stat().st_size
    assert stamped["glosses.tsv"][0] == size


def test_the_pipeline_reads_its_glosses_from_the_registry(tmp_path: Path) -> None:
    """The gloss table is the registry's, like every other word list: a registry holding a
    two-word table glosses those words and nothing else, one without a table glosses nothing."""
    table = tmp_path / "glosses.tsv"
    table.write_text("# two words\n番茄\ttomato\n黄瓜\tcucumber; gherkin\n", encoding="utf-8")
    registry = load_registry()
    prompt = "给番茄和黄瓜浇水"
    own = replace(registry, vocabulary=replace(VOCABULARY, glossary=Glossary(table)))
    none = replace(registry, vocabulary=replace(VOCABULARY, glossary=Glossary()))
    windows = {
        name: build_envelope(prompt, reg, reg.vocabulary.concept_matcher()).window_glosses
        for name, reg in [("bundled", registry), ("own", own), ("none", none)]
    }
    assert set().union(*windows["bundled"]) == {"tomato", "cucumber", "water"}
    assert set().union(*windows["own"]) == {"tomato", "cucumber", "gherkin"}
    assert set().union(*windows["none"]) == set()
