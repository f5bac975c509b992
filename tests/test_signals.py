"""Signal detection: every pack example as a table row, boundaries, suppression, anchor gating."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Literal

import pytest
import regex

from ome.registry import (
    SignalExample,
    bundled_pack_paths,
    bundled_registry_data,
    load_registry,
    pack_examples,
)
from ome.signals import (
    INTENT_MODES,
    Registry,
    compile_pattern,
    detect_signals,
    find_concepts,
    find_phrase,
    nearest_signal_ids,
    normalize_text,
    registry_from_data,
    trigger_contract_violations,
    unknown_signal_ids,
)

REGISTRY = load_registry()
EXAMPLES = pack_examples(bundled_pack_paths())

# The signal ids the bundled packs promise to card authors (`engine_hints` name them), by pack:
# renaming or dropping one breaks the cards that rely on it.
CONTRACT_IDS = {
    "generic": {
        "intent_execute",
        "intent_discuss",
        "intent_explain",
        "intent_review",
        "intent_plan",
        "intent_debug",
        "intent_operate",
        "explain_only",
        "curiosity_only",
        "docs_example_only",
        "people_writing",
        "opinion_only",
        "diagram_drawing",
        "real_validation",
        "test_run",
        "ui_surface",
        "ui_surface_noise",
        "git_operation",
        "worktree_diff_operation",
        "force_push",
        "destructive_action",
        "high_risk_action",
        "production_target",
        "failure_triage",
        "error_output",
        "dependency_change",
        "package_install_validation",
        "deploy_release",
        "delivery_gate",
        "secret_material",
        "data_migration",
        "architecture_quality",
        "temporary_mock_boundary",
        "design_source_alignment",
    },
    "agent-workflow": {
        "goal_execute",
        "goal_example_discussion",
        "business_goal_discussion",
        "historical_session_lookup",
        "provider_adapter_boundary",
        "bridge_runtime_validation",
    },
}


def _fired(text: str, registry: Registry = REGISTRY) -> tuple[str, ...]:
    return detect_signals(registry, normalize_text(text)).fired_ids


def _has_han(text: str) -> bool:
    return any("\u4e00" <= char <= "\u9fff" for char in text)


def _example_id(example: SignalExample) -> str:
    verdict = "fires" if example.should_fire else "quiet"
    return f"{example.signal_id}-{verdict}-{example.prompt[:40]}"


@pytest.mark.parametrize("example", EXAMPLES, ids=_example_id)
def test_pack_example(example: SignalExample) -> None:
    fired = example.signal_id in _fired(example.prompt)
    assert fired == example.should_fire, (example.signal_id, example.prompt)


def test_registry_holds_exactly_the_contract_ids_in_their_packs() -> None:
    by_pack: dict[str, set[str]] = {}
    for signal in REGISTRY.signals:
        by_pack.setdefault(signal.pack, set()).add(signal.id)
    assert by_pack == CONTRACT_IDS


@pytest.mark.parametrize("signal_id", sorted(set().union(*CONTRACT_IDS.values())))
def test_every_signal_has_bilingual_examples_both_ways(signal_id: str) -> None:
    rows = [row for row in EXAMPLES if row.signal_id == signal_id]
    for should_fire in (True, False):
        prompts = [row.prompt for row in rows if row.should_fire is should_fire]
        assert any(_has_han(p) for p in prompts), (signal_id, should_fire, "needs a Chinese one")
        assert any(not _has_han(p) for p in prompts), (signal_id, should_fire, "needs English")


def test_intent_signals_carry_their_mode() -> None:
    intents = {s.id: s.intent for s in REGISTRY.signals if s.id.startswith("intent_")}
    assert intents == {f"intent_{mode}": mode for mode in INTENT_MODES}


def test_concept_signals_are_the_enabled_positive_signals_a_concept_fires() -> None:
    for signal in REGISTRY.signals:
        for concept in signal.concepts:
            fired = REGISTRY.concept_signals(concept)
            assert (signal in fired) is (signal.enabled and signal.polarity == "positive")
            assert [s.id for s in fired] == sorted(s.id for s in fired)
    assert REGISTRY.concept_signals("no_such_concept") == ()
    assert {s.id for s in REGISTRY.concept_signals("destructive_operation")} >= {
        "destructive_action",
        "high_risk_action",
    }


def test_negative_signals_never_route_and_target_positive_ids() -> None:
    for signal in REGISTRY.signals:
        if signal.polarity == "negative":
            assert not signal.routes, signal.id
            for target in signal.targets:
                target_signal = REGISTRY.get(target)
                assert target_signal is not None and target_signal.polarity == "positive"


@pytest.mark.parametrize(
    ("text", "phrase", "spans"),
    [
        ("open github issues", "git", []),
        ("use git to commit", "git", [(4, 7)]),
        ("用git提交", "git", [(1, 4)]),
        ("git-lfs pull", "git", [(0, 3)]),
        ("a digit here", "git", []),
        ("git2 and git", "git", [(9, 12)]),
        ("创建目标并开始执行", "目标", [(2, 4)]),
        ("rm -rf build", "rm -rf", [(0, 6)]),
        ("copy .env.example", ".env", [(5, 9)]),
        ("the ui, the ui", "ui", [(4, 6), (12, 14)]),
        ("guide to build", "ui", []),
        ("", "git", []),
        ("git", "", []),
        ("run /goal now", "/goal", [(4, 9)]),
        ("用/goal开始", "/goal", [(1, 6)]),
        ("edit src/goal/lifecycle.ts", "/goal", []),
        ("see ./goal and ~/goal", "/goal", []),
    ],
)
def test_find_phrase_respects_ascii_word_boundaries(
    text: str, phrase: str, spans: list[tuple[int, int]]
) -> None:
    assert find_phrase(text, phrase) == spans


@pytest.mark.parametrize(
    "prompt",
    [
        "Research the retrieval design on GitHub",
        "研究 GitHub 上的检索设计",
        "Link the GitHub discussion in the README",
        "Compare two GitHub Actions workflows",
        "看看 github 上有没有类似的项目",
    ],
)
def test_github_alone_fires_no_git_signal(prompt: str) -> None:
    fired = _fired(prompt)
    assert "git_operation" not in fired
    assert "worktree_diff_operation" not in fired


@pytest.mark.parametrize(
    "prompt",
    [
        "Create a goal and start executing the cleanup",
        "创建目标并开始执行",
        "/goal ship the importer",
        "Run this long task to completion",
        "create a new goal, then keep executing until the suite is green",
    ],
)
def test_goal_execute_fires_on_starting_a_goal(prompt: str) -> None:
    assert "goal_execute" in _fired(prompt)


@pytest.mark.parametrize(
    "prompt",
    [
        "The progress bar of long tasks jumps backwards in the admin UI",
        "长任务的进度条在后台页面里会往回跳",
    ],
)
def test_a_long_task_mentioned_is_no_goal_started(prompt: str) -> None:
    assert "goal_execute" not in _fired(prompt)


@pytest.mark.parametrize(
    ("prompt", "blocker"),
    [
        ("When I say /goal, what happens?", "goal_example_discussion"),
        ("当我输入 /goal 的时候会发生什么", "goal_example_discussion"),
        (
            "Set a goal for Q3 revenue and start executing the sales plan",
            "business_goal_discussion",
        ),
        ("创建目标：今年的营收目标翻倍", "business_goal_discussion"),
        ("Just explain how to create a goal and start executing it", "explain_only"),
        ("只是解释一下创建目标并开始执行的流程", "explain_only"),
        ("我只想了解 /goal 怎么用，不要开始执行", "explain_only"),
    ],
)
def test_goal_execute_is_suppressed_by_its_near_misses(prompt: str, blocker: str) -> None:
    detection = detect_signals(REGISTRY, normalize_text(prompt))
    assert "goal_execute" not in detection.fired_ids
    assert blocker in detection.fired_ids
    assert any(s.id == "goal_execute" and s.by == blocker for s in detection.suppressed)


@pytest.mark.parametrize(
    "prompt",
    [
        "UI 等噪声先忽略，修复回调重试",
        "The UI part is just background; fix the queue consumer",
        "不涉及 UI，只改后端的限流",
    ],
)
def test_ui_noise_switches_off_ui_surface(prompt: str) -> None:
    detection = detect_signals(REGISTRY, normalize_text(prompt))
    assert "ui_surface_noise" in detection.fired_ids
    assert "ui_surface" not in detection.fired_ids


def test_hits_are_ordered_by_start_then_id_and_repeatable() -> None:
    text = normalize_text("Fix the settings page layout, run pytest, then git push --force")
    first = detect_signals(REGISTRY, text)
    assert first == detect_signals(REGISTRY, text)
    assert [(h.start, h.id) for h in first.hits] == sorted((h.start, h.id) for h in first.hits)
    for hit in first.hits:
        assert text[hit.start : hit.end] == hit.text
        assert hit.spans[0] == (hit.start, hit.end)


def test_hits_keep_every_span_so_negated_mentions_can_be_told_apart() -> None:
    text = normalize_text("不要改页面，只修后端；页面以后再说")
    hit = detect_signals(REGISTRY, text).hit("ui_surface")
    assert hit is not None and len(hit.spans) == 2


def _fresh_registry() -> Registry:
    return registry_from_data(bundled_registry_data())


def test_regexes_whose_anchors_are_absent_are_never_compiled() -> None:
    registry = _fresh_registry()
    detect_signals(registry, normalize_text("hello there, nice day"))
    assert registry.compiled_patterns() == ()
    text = normalize_text("please review this")
    detect_signals(registry, text)
    expected = {
        rule.pattern
        for signal in registry.signals
        for rule in signal.regexes
        if any(anchor in text for anchor in rule.anchors)
    }
    assert expected and set(registry.compiled_patterns()) == expected


def test_anchor_gating_skips_even_an_uncompilable_pattern() -> None:
    data = bundled_registry_data()
    data = {**data, "signals": [dict(s) for s in data["signals"]]}
    probe = next(s for s in data["signals"] if s["id"] == "ui_surface")
    probe["regex"] = [{"pattern": "([unclosed", "anchors": ["zqxj"]}]
    registry = registry_from_data(data)
    assert "ui_surface" in detect_signals(registry, "fix the settings page layout").fired_ids
    assert "([unclosed" not in registry.compiled_patterns()


def test_anchors_are_sound_on_every_example() -> None:
    """Whenever a bundled regex matches an example, one of its anchors is in the text."""
    texts = [normalize_text(row.prompt) for row in EXAMPLES]
    registry = _fresh_registry()
    for signal in registry.signals:
        for rule in signal.regexes:
            compiled = regex.compile(rule.pattern, regex.ASCII)
            for text in texts:
                if compiled.search(text) and rule.anchors:
                    assert any(a in text for a in rule.anchors), (signal.id, rule.pattern, text)


def test_stdlib_re_and_regex_agree_on_every_bundled_pattern() -> None:
    """The hook compiles with `re` when it can; it must find what `regex` finds."""
    texts = [normalize_text(row.prompt) for row in EXAMPLES]
    for signal in REGISTRY.signals:
        for rule in signal.regexes:
            fast = compile_pattern(rule.pattern)
            reference = regex.compile(rule.pattern, regex.ASCII)
            for text in texts:
                found = [m.span() for m in fast.finditer(text)]
                assert found == [m.span() for m in reference.finditer(text)], rule.pattern


@pytest.mark.parametrize(
    ("unknown", "nearest"),
    [
        ("ui_surfce", "ui_surface"),
        ("goal-execute", "goal_execute"),
        ("explain only", "explain_only"),
        ("worktree_diff", "worktree_diff_operation"),
        ("FORCE_PUSH", "force_push"),
    ],
)
def test_nearest_signal_ids_suggests_the_intended_id(unknown: str, nearest: str) -> None:
    suggestions = nearest_signal_ids(REGISTRY, unknown)
    assert suggestions[0] == nearest
    assert len(suggestions) <= 3


def test_nearest_signal_ids_is_empty_for_nonsense() -> None:
    assert nearest_signal_ids(REGISTRY, "zzqqxx") == ()


def test_unknown_signal_ids_keeps_first_seen_order() -> None:
    ids = ["ui_surface", "ui_surfce", "nope", "ui_surfce"]
    assert unknown_signal_ids(REGISTRY, ids) == ("ui_surfce", "nope")


@pytest.mark.parametrize(
    ("triggers", "required", "mode", "violations"),
    [
        (["real browser", "check it in the browser"], ["ui_surface"], "all", []),
        (["update the readme"], ["ui_surface"], "all", [("update the readme", "ui_surface")]),
        (
            ["force push"],
            ["force_push", "worktree_diff_operation"],
            "all",
            [("force push", "worktree_diff_operation")],
        ),
        (["force push"], ["force_push", "worktree_diff_operation"], "any", []),
        (
            ["rename a file"],
            ["force_push", "git_operation"],
            "any",
            [("rename a file", "force_push"), ("rename a file", "git_operation")],
        ),
        (["强制推送"], ["force_push"], "all", []),
        (["anything"], ["not_a_signal"], "all", []),
    ],
)
def test_trigger_contract_violations(
    triggers: list[str],
    required: list[str],
    mode: Literal["all", "any"],
    violations: list[tuple[str, str]],
) -> None:
    found = trigger_contract_violations(REGISTRY, triggers, required, mode=mode)
    assert list(found) == violations


def test_a_suppressed_signal_does_not_satisfy_the_trigger_contract() -> None:
    found = trigger_contract_violations(REGISTRY, ["the ui is just noise"], ["ui_surface"])
    assert found == (("the ui is just noise", "ui_surface"),)


@pytest.mark.parametrize(
    ("text", "concept"),
    [
        ("强制推送到远程", "force_push"),
        ("git push --force", "force_push"),
        ("回滚上一个版本", "rollback"),
        ("revert the release", "rollback"),
        ("把密钥放到环境变量", "secret"),
        ("退款失败", "refund"),
    ],
)
def test_find_concepts_matches_either_language(text: str, concept: str) -> None:
    assert concept in [c.id for c in find_concepts(REGISTRY, normalize_text(text))]


def test_lexicon_is_large_and_every_concept_is_bilingual() -> None:
    concepts = REGISTRY.vocabulary.concepts
    assert len(concepts) >= 150
    for concept in concepts:
        assert any(_has_han(t) for t in concept.terms), concept.id
        assert any(not _has_han(t) for t in concept.terms), concept.id


def test_vocabulary_is_loaded() -> None:
    vocabulary = REGISTRY.vocabulary
    assert {"the", "please"} <= vocabulary.stopwords_en
    assert {"的", "一下"} <= vocabulary.stopwords_zh
    assert {"don't", "不要", "不涉及"} <= set(vocabulary.negation_cues)
    assert "ui" in dict(vocabulary.task_types)
    assert "frontend" in dict(vocabulary.surfaces)
    assert "rollback" in dict(vocabulary.operations)


@pytest.mark.parametrize(
    ("raw", "normalised"),
    [
        ("ＵＩ　等噪声", "ui 等噪声"),
        ("Don\u2019t Change Anything", "don't change anything"),
        ("ＧＩＴ ＰＵＳＨ", "git push"),
    ],
)
def test_normalize_text(raw: str, normalised: str) -> None:
    assert normalize_text(raw) == normalised


def test_signals_module_is_pure() -> None:
    tree = ast.parse(Path(__file__).resolve().parents[1].joinpath("ome/signals.py").read_text())
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {
        (node.module or "").split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
    }
    assert not imported & {"os", "pathlib", "time", "random", "subprocess", "click"}
