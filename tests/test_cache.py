"""The compiled card index cache: reuse, incremental updates, damage, invalidation, concurrency.

Every test compares the cached index with one built in memory from the same files
(`load_library` + `index_library`): the cache may only change how fast recall starts.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest
from conftest import REFERENCE_SUITES, needs_reference

from ome import cache, params
from ome.api import index_library, match_prompt, open_workspace, recall_options, result_json
from ome.cache import (
    CacheStats,
    LoadedIndex,
    build_cache,
    card_keys,
    load_index,
    load_matcher,
    load_registry_cached,
)
from ome.cards import Card, card_from_mapping
from ome.concepts import ConceptMatcher
from ome.config import load_config
from ome.engine import RecallOptions, recall
from ome.evaluate import card_file_text, load_suite
from ome.index import CardIndex
from ome.library import Library, Source, library_sources, load_library
from ome.registry import load_registry
from ome.signals import Registry

PROMPT = "please deploy the billing service to production and check the rollback plan"


def card(card_id: str, title: str, triggers: list[str], **extra: object) -> Card:
    return card_from_mapping(
        {
            "id": card_id,
            "title": title,
            "summary": f"{title}: what to check first.",
            "recall": {"triggers": triggers},
            **extra,
        },
        rule=f"Rule of {card_id}.",
    )


CARDS = (
    card("deploy-billing", "Deploy the billing service", ["deploy billing", "billing rollout"]),
    card("rollback-plan", "Write the rollback plan", ["rollback plan", "回滚方案"]),
    card("flaky-tests", "Quarantine flaky tests", ["flaky test", "测试不稳定"]),
    card(
        "migrations",
        "Reversible database migrations",
        ["database migration", "alembic revision"],
        paths=["alembic/versions/*.py"],
    ),
    card("secrets", "Never commit secrets", ["commit secret", "api key in repo"]),
)


def write_card(folder: Path, item: Card) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{item.id}.md"
    path.write_text(card_file_text(item), encoding="utf-8")
    return path


def settle(*paths: Path) -> None:
    """Date files a minute back, past the cache's racy window (as files edited earlier are)."""
    past = time.time() - 60
    for path in paths:
        for file in path.rglob("*") if path.is_dir() else [path]:
            os.utime(file, (past, past))


@dataclasses.dataclass
class Lib:
    data_dir: Path
    sources: tuple[Source, ...]
    registry: Registry
    matcher: ConceptMatcher

    @property
    def cache_dir(self) -> Path:
        return self.data_dir / "cache"

    @property
    def active(self) -> Path:
        return self.data_dir / "experiences" / "active"

    def load(self, **kwargs: object) -> LoadedIndex:
        return load_index(self.sources, self.registry, self.matcher, self.cache_dir, **kwargs)  # type: ignore[arg-type]

    def fresh(self) -> tuple[Library, CardIndex]:
        library = load_library(self.sources)
        return library, index_library(library, self.registry, self.matcher)


@pytest.fixture
def lib(data_dir: Path) -> Lib:
    for item in CARDS:
        write_card(data_dir / "experiences" / "active", item)
    (data_dir / "config.yaml").write_text("library:\n  starter_cards: false\n", encoding="utf-8")
    settle(data_dir)
    config = load_config(data_dir)
    registry = load_registry(data_dir, None)
    return Lib(data_dir, library_sources(config, None), registry, load_matcher(registry, None))


def assert_same(loaded: LoadedIndex, library: Library, index: CardIndex) -> None:
    """The cached index and library equal the in-memory ones, field by field."""
    got = loaded.index
    assert tuple(got.cards) == index.cards
    assert dict(got.postings) == dict(index.postings)
    assert list(got.postings) == list(index.postings)
    assert dict(got.doc_freq) == dict(index.doc_freq)
    assert dict(got.avg_field_len) == dict(index.avg_field_len)
    assert got.path_cards == index.path_cards
    assert got.registry_digest == index.registry_digest
    assert tuple(loaded.library.cards) == library.cards
    assert loaded.library.invalid == library.invalid
    assert card_keys(loaded.library.cards) == card_keys(library.cards)


def test_a_cold_load_parses_every_card_and_equals_the_in_memory_index(lib: Lib) -> None:
    loaded = lib.load()
    assert (loaded.stats.parsed, loaded.stats.reused, loaded.stats.mode) == (5, 0, "cached")
    assert loaded.stats.written
    assert_same(loaded, *lib.fresh())


def test_a_second_load_parses_nothing_and_writes_nothing(lib: Lib) -> None:
    lib.load()
    again = lib.load()
    assert (again.stats.parsed, again.stats.reused, again.stats.written) == (0, 5, False)
    assert_same(again, *lib.fresh())


def test_editing_one_card_reparses_that_card_only_and_the_change_is_visible(lib: Lib) -> None:
    lib.load()
    edited = card("flaky-tests", "Quarantine flaky tests", ["flaky test", "zebracorn outage"])
    settle(write_card(lib.active, edited))
    loaded = lib.load()
    assert (loaded.stats.parsed, loaded.stats.reused) == (1, 4)
    assert_same(loaded, *lib.fresh())
    result = recall(loaded.index, lib.registry, lib.matcher, "the zebracorn outage again")
    assert [m.id for m in result.matches] == ["flaky-tests"]


def test_adding_and_removing_cards_reparses_only_the_new_one(lib: Lib) -> None:
    lib.load()
    (lib.active / "secrets.md").unlink()
    settle(write_card(lib.active, card("new-card", "A new lesson", ["brand new trigger"])))
    loaded = lib.load()
    assert (loaded.stats.parsed, loaded.stats.removed) == (1, 1)
    assert "secrets" not in {c.id for c in loaded.index.cards}
    assert_same(loaded, *lib.fresh())


def test_many_edits_then_a_compaction_keep_the_index_exact(lib: Lib) -> None:
    lib.load()
    for round_ in range(cache.MAX_SEGMENTS + 2):
        item = CARDS[round_ % len(CARDS)]
        changed = dataclasses.replace(item, triggers=(*item.triggers, f"edit {round_}"))
        settle(write_card(lib.active, changed))
        assert_same(lib.load(), *lib.fresh())
    manifest = orjson.loads(next(lib.cache_dir.rglob("manifest.json")).read_bytes())
    assert len(manifest["segments"]) <= cache.MAX_SEGMENTS


def test_invalid_cards_are_reported_from_the_cache_without_reparsing(lib: Lib) -> None:
    bad = lib.active / "broken.md"
    bad.write_text("---\nid: broken\nsummary: [unclosed\n---\n", encoding="utf-8")
    settle(bad)
    first = lib.load()
    again = lib.load()
    assert again.stats.parsed == 0
    assert [i.path.name for i in again.library.invalid] == ["broken.md"]
    assert again.library.invalid == first.library.invalid == lib.fresh()[0].invalid


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda m: m.write_bytes(b"{not json"), id="bad-json"),
        pytest.param(lambda m: m.write_bytes(m.read_bytes()[:100]), id="truncated"),
        pytest.param(lambda m: m.write_bytes(b'{"key": 1}'), id="wrong-schema"),
        pytest.param(lambda m: m.write_bytes(b"[]"), id="not-an-object"),
        pytest.param(
            lambda m: [s.write_bytes(b"x") for s in m.parent.glob("seg-*.bin")], id="segment"
        ),
        pytest.param(lambda m: [s.unlink() for s in m.parent.glob("seg-*.bin")], id="no-segment"),
    ],
)
def test_a_damaged_cache_is_rebuilt_never_trusted(lib: Lib, damage: object) -> None:
    lib.load()
    manifest = next(lib.cache_dir.rglob("manifest.json"))
    damage(manifest)  # type: ignore[operator]
    loaded = lib.load()
    assert loaded.stats.parsed == 5
    assert_same(loaded, *lib.fresh())


def test_a_record_damaged_after_loading_raises_and_drops_the_manifest(lib: Lib) -> None:
    lib.load()
    segment = next(lib.cache_dir.rglob("seg-*.bin"))
    segment.write_bytes(segment.read_bytes().replace(b"[", b"{"))
    with pytest.raises(cache.CacheError):
        list(lib.load().index.cards)
    assert lib.load().stats.parsed == 5


def test_a_new_engine_version_invalidates(lib: Lib, monkeypatch: pytest.MonkeyPatch) -> None:
    lib.load()
    monkeypatch.setattr(params, "ENGINE_VERSION", "ome-test-next")
    assert lib.load().stats.parsed == 5
    assert lib.load().stats.parsed == 0


def test_a_new_registry_digest_invalidates(lib: Lib) -> None:
    lib.load()
    lib.registry = dataclasses.replace(lib.registry, digest="0" * 64)
    loaded = lib.load()
    assert loaded.stats.parsed == 5
    assert loaded.index.registry_digest == "0" * 64


def test_a_file_changed_within_the_racy_window_is_parsed_again(lib: Lib) -> None:
    lib.load()
    path = write_card(lib.active, card("rollback-plan", "Write the rollback plan", ["plan"]))
    assert lib.load().stats.parsed == 1
    # Its mtime is too recent to prove a same-size rewrite would show: checked once more.
    assert lib.load().stats.parsed == 1
    settle(path)
    assert lib.load().stats.parsed == 1  # a new mtime is a change
    assert lib.load().stats.parsed == 0


def test_a_past_deadline_answers_what_is_cached_and_leaves_the_rest_pending(lib: Lib) -> None:
    lib.load()
    edited = card("secrets", "Never commit secrets", ["commit secret", "leaked token"])
    settle(write_card(lib.active, edited))
    settle(write_card(lib.active, card("late", "A late card", ["late trigger"])))
    partial = lib.load(deadline=time.monotonic() - 1)
    assert (partial.stats.parsed, partial.stats.complete, partial.stats.pending) == (0, False, True)
    # The edited card answers with its old record; the new one is not there yet.
    ids = [c.id for c in partial.index.cards]
    assert "secrets" in ids and "late" not in ids
    done = lib.load()
    assert (done.stats.parsed, done.stats.complete) == (2, True)
    assert_same(done, *lib.fresh())


def test_a_long_build_saves_its_progress_so_a_killed_process_is_not_wasted(
    lib: Lib, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache, "SAVE_EVERY_S", 0.0)  # one card per slice
    writes: list[int] = []
    save = cache._save_manifest

    def counting_save(part_dir: Path, manifest: dict[str, object]) -> bool:
        writes.append(len(manifest["order"]))  # type: ignore[arg-type]
        return save(part_dir, manifest)

    monkeypatch.setattr(cache, "_save_manifest", counting_save)
    loaded = lib.load()
    assert writes == [1, 2, 3, 4, 5]
    assert (loaded.stats.parsed, loaded.stats.complete) == (5, True)
    assert_same(loaded, *lib.fresh())


def test_without_a_cache_dir_everything_is_parsed_in_memory(lib: Lib) -> None:
    loaded = load_index(lib.sources, lib.registry, lib.matcher, None)
    assert (loaded.stats.mode, loaded.stats.written) == ("memory", False)
    assert loaded.index == lib.fresh()[1]


def test_layers_merge_in_card_order_and_a_project_card_beats_its_global_copy(
    lib: Lib, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    write_card(project / ".oh-my-experience" / "experiences" / "active", CARDS[0])
    settle(project)
    config = load_config(lib.data_dir)
    lib.sources = (
        Source("bundled", Path(__file__).resolve().parents[1]),
        *library_sources(config, project),
    )
    loaded = lib.load()
    assert {c.layer for c in loaded.index.cards} == {"bundled", "global", "project"}
    assert_same(loaded, *lib.fresh())
    assert_same(lib.load(), *lib.fresh())


def test_the_builder_fills_the_pinyin_of_han_characters(lib: Lib) -> None:
    lib.load()  # under a hook (pypinyin not loaded) the table stays pending
    built = build_cache(lib.data_dir, None)
    assert built.pinyin["回"] == "hui" and built.pinyin["测"] == "ce"


def test_concurrent_builders_never_leave_an_unreadable_cache(lib: Lib) -> None:
    for n in range(40):
        write_card(lib.active, card(f"extra-{n:02d}", f"Extra lesson {n}", [f"extra trigger {n}"]))
    settle(lib.data_dir)
    command = [sys.executable, "-m", "ome.cache", "--data-dir", str(lib.data_dir)]
    runs = [subprocess.Popen(command, stdout=subprocess.PIPE) for _ in range(6)]
    outputs = [run.communicate()[0] for run in runs]
    assert all(run.returncode == 0 for run in runs)
    assert all(orjson.loads(out)["cards"] == 45 for out in outputs)
    loaded = lib.load()
    assert loaded.stats.parsed == 0
    assert_same(loaded, *lib.fresh())


def test_the_builder_refuses_a_missing_data_dir_and_creates_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    command = [sys.executable, "-m", "ome.cache", "--data-dir", str(missing)]
    done = subprocess.run(command, capture_output=True)
    assert done.returncode == 1 and b"ome init" in done.stderr
    assert not missing.exists()


def test_the_bundled_registry_decodes_its_shipped_matcher_and_writes_no_cache(lib: Lib) -> None:
    """`ome signals build` ships the compiled matcher: a fresh install does not compile it."""
    shipped = load_matcher(lib.registry, lib.cache_dir)
    assert shipped == lib.matcher == lib.registry.vocabulary.concept_matcher()
    assert not (lib.cache_dir / "matcher.json").exists()


def test_another_registry_compiles_its_matcher_once_then_reads_the_cache(lib: Lib) -> None:
    """A registry with packs of its own (another digest) cannot use the shipped matcher."""
    packed = dataclasses.replace(lib.registry, digest="0" * 64)
    built = load_matcher(packed, lib.cache_dir)
    assert (lib.cache_dir / "matcher.json").exists()
    cache._warm_matchers.clear()
    cached = load_matcher(packed, lib.cache_dir)
    assert cached == built == lib.matcher
    assert cached.find("强制推送 force push") == built.find("强制推送 force push")


def test_open_workspace_uses_the_cache_and_matches_as_before(lib: Lib) -> None:
    first = open_workspace(lib.data_dir, lib.data_dir)
    second = open_workspace(lib.data_dir, lib.data_dir)
    library, index = lib.fresh()
    for workspace in (first, second):
        options = recall_options(workspace)
        expected = recall(index, lib.registry, lib.matcher, PROMPT, options)
        got = match_prompt(workspace, PROMPT, options)
        assert result_json(got, explain=True) == result_json(expected, explain=True)
    assert (lib.cache_dir / "config.json").exists()


USER_PACK = """pack: mine
description: test pack
signals:
  - id: zebra_widget
    polarity: positive
    weight: 0.5
    reason: Test signal.
    routes: true
    patterns:
      phrases: [zebra widget]
"""


def test_a_registry_with_user_packs_is_merged_once_per_change(lib: Lib) -> None:
    pack = lib.data_dir / "signals" / "mine.yaml"
    pack.parent.mkdir()
    pack.write_text(USER_PACK, encoding="utf-8")
    settle(pack)
    expected = load_registry(lib.data_dir, None)
    first = load_registry_cached(lib.data_dir, None, lib.cache_dir)
    assert list(lib.cache_dir.glob("registry-*.json"))
    cached = load_registry_cached(lib.data_dir, None, lib.cache_dir)
    assert cached == first == expected and cached.get("zebra_widget") is not None
    pack.write_text(USER_PACK.replace("zebra widget", "okapi gadget"), encoding="utf-8")
    changed = load_registry_cached(lib.data_dir, None, lib.cache_dir)
    assert changed.digest != expected.digest == cached.digest


def test_stats_are_a_frozen_record() -> None:
    assert dataclasses.is_dataclass(CacheStats)
    with pytest.raises(dataclasses.FrozenInstanceError):
        CacheStats(0, 0, 0, 0, 0, True, False, False, "cached", 0.0).parsed = 1  # type: ignore[misc]


PROJECT_SUITES = sorted(
    p
    for p in (Path(__file__).resolve().parents[1] / "evals" / "suites").glob("*.json")
    if p.name != "cards.json"
)


@pytest.mark.parametrize("suite_path", PROJECT_SUITES, ids=lambda p: p.stem)
def test_project_suites_recall_the_same_with_and_without_the_cache(
    suite_path: Path, data_dir: Path
) -> None:
    assert_suite_recalls_the_same(suite_path, data_dir)


@needs_reference
@pytest.mark.parametrize("suite_path", REFERENCE_SUITES, ids=lambda p: p.stem)
def test_reference_suites_recall_the_same_with_and_without_the_cache(
    suite_path: Path, data_dir: Path
) -> None:
    assert_suite_recalls_the_same(suite_path, data_dir)


def assert_suite_recalls_the_same(suite_path: Path, data_dir: Path) -> None:
    """Every case's explain document is identical from the cached and the in-memory index."""
    suite = load_suite(suite_path)
    for item in suite.cards:
        write_card(data_dir / "experiences" / item.status, item)
    (data_dir / "config.yaml").write_text("library:\n  starter_cards: false\n", encoding="utf-8")
    settle(data_dir)
    config = load_config(data_dir)
    registry = load_registry(data_dir, None)
    matcher = load_matcher(registry, None)
    sources = library_sources(config, None)
    library = load_library(sources)
    index = index_library(library, registry, matcher)
    load_index(sources, registry, matcher, data_dir / "cache")
    loaded = load_index(sources, registry, matcher, data_dir / "cache")
    assert loaded.stats.parsed == 0
    assert_same(loaded, library, index)
    for case in suite.cases:
        options = RecallOptions(threshold=case.threshold or params.DEFAULT_THRESHOLD)
        plain = recall(index, registry, matcher, case.prompt, options)
        cached = recall(loaded.index, registry, matcher, case.prompt, options)
        assert result_json(cached, explain=True) == result_json(plain, explain=True), case.id
