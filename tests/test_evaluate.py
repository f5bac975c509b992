"""Recall evaluation: pass rule, hand-computed metrics, suite loading, isolation, noise, compare."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml
from conftest import REFERENCE_SUITES, needs_reference

from ome.errors import SuiteError
from ome.evaluate import (
    METRIC_NAMES,
    CaseOutcome,
    SuiteCase,
    check_bounds,
    compare_reports,
    compute_metrics,
    evaluate_suites,
    generate_noise_cards,
    load_suite,
    metrics_json,
    ndcg,
    reciprocal_rank,
    report_json,
)
from ome.scoring import percentile

INV_LOG2_3 = 1 / math.log2(3)  # the discount of rank 2

CARDS: list[dict[str, Any]] = [
    {
        "id": "force-push-shared",
        "title": "Never force-push a shared branch",
        "category": "git",
        "summary": "Rewriting a shared branch loses other people's commits.",
        "criteria": {"use_when": ["force push to main"], "ignore_when": ["personal fork"]},
        "recall": {
            "policy": "must",
            "risk": "high",
            "triggers": ["force push", "git push --force"],
        },
        "rule": "Use --force-with-lease on your own branch; never force-push main.",
    },
    {
        "id": "browser-check",
        "title": "Check UI changes in a real browser",
        "summary": "Static checks miss layout and console errors.",
        "recall": {"triggers": ["real browser", "ui change"], "topics": ["frontend"]},
        "rule": "Open the page, click through the user path and read the console.",
    },
]
CASES: list[dict[str, Any]] = [
    {
        "id": "push",
        "prompt": "I need to git push --force to the shared main branch",
        "expectedCards": ["force-push-shared"],
        "unexpectedCards": ["browser-check"],
        "difficulty": "easy",
        "tags": ["git", "en"],
    },
    {
        "id": "ui",
        "prompt": "Validate the UI change in a real browser",
        "expectedCards": ["browser-check"],
        "allowedExtraCards": ["force-push-shared"],
        "tags": ["frontend"],
        "threshold": 35,
    },
    {"id": "soup", "prompt": "Write a recipe for tomato soup", "expectNoMatches": True},
    {"id": "bare", "prompt": "hello there"},
]


def write_json_suite(folder: Path, cases: list[dict[str, Any]] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "mini.cards.json").write_bytes(orjson.dumps({"experiences": CARDS}))
    suite = {"name": "mini", "experiencesFile": "./mini.cards.json", "cases": cases or CASES}
    path = folder / "mini.json"
    path.write_bytes(orjson.dumps(suite))
    return path


def write_yaml_suite(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "mini.cards.yaml").write_text(
        yaml.safe_dump({"experiences": CARDS}, allow_unicode=True), encoding="utf-8"
    )
    suite = {"name": "mini", "experiencesFile": "mini.cards.yaml", "cases": CASES}
    path = folder / "mini.yaml"
    path.write_text(yaml.safe_dump(suite, allow_unicode=True), encoding="utf-8")
    return path


def case(
    expected: tuple[str, ...] = (),
    allowed: tuple[str, ...] = (),
    forbidden: tuple[str, ...] = (),
    no_matches: bool = False,
) -> SuiteCase:
    return SuiteCase(
        id="c",
        prompt="p",
        expected=expected,
        allowed_extra=allowed,
        forbidden=forbidden,
        expect_no_matches=no_matches,
    )


def without_timings(report: dict[str, Any]) -> bytes:
    doc = orjson.loads(orjson.dumps(report))
    for block in (doc, *doc["suites"]):
        del block["metrics"]["p50_ms"], block["metrics"]["p95_ms"]
    for c in doc["cases"]:
        del c["ms"]
    return orjson.dumps(doc, option=orjson.OPT_SORT_KEYS)


# --- the pass rule ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("the_case", "returned", "passed", "missing", "unexpected"),
    [
        pytest.param(case(("a",)), ("a",), True, (), (), id="expected-returned"),
        pytest.param(case(("a",)), ("a", "b"), False, (), ("b",), id="extra-not-allowed"),
        pytest.param(case(("a",), ("b",)), ("a", "b"), True, (), (), id="allowed-extra"),
        pytest.param(case(("a",), ("b",)), ("a",), True, (), (), id="allowed-extra-absent"),
        pytest.param(
            case(("a",), ("b",), ("b",)),
            ("a", "b"),
            False,
            (),
            ("b",),
            id="forbidden-beats-allowed",
        ),
        pytest.param(case(("a", "b")), ("b",), False, ("a",), (), id="one-missing"),
        pytest.param(case(("a",)), (), False, ("a",), (), id="nothing-returned"),
        pytest.param(case(("a",)), ("b", "a"), False, (), ("b",), id="extra-ranked-first"),
        pytest.param(case(no_matches=True), (), True, (), (), id="no-match-abstains"),
        pytest.param(case(no_matches=True), ("a",), False, (), ("a",), id="no-match-returns"),
        pytest.param(case(), (), True, (), (), id="no-expectation-abstains"),
        pytest.param(case(), ("x",), False, (), ("x",), id="no-expectation-returns"),
        pytest.param(case(allowed=("b",)), ("b",), True, (), (), id="only-allowed-returned"),
        pytest.param(case(allowed=("b",)), (), True, (), (), id="only-allowed-abstains"),
    ],
)
def test_pass_rule(
    the_case: SuiteCase,
    returned: tuple[str, ...],
    passed: bool,
    missing: tuple[str, ...],
    unexpected: tuple[str, ...],
) -> None:
    outcome = CaseOutcome(the_case, returned)
    assert (outcome.passed, outcome.missing, outcome.unexpected) == (passed, missing, unexpected)


# --- metrics, computed by hand ----------------------------------------------------------------

# Six outcomes at k = 4 (expected | allowed | returned):
#   o1  a     |   | a      pass   P 1    R 1    RR 1    nDCG 1
#   o2  a,b   |   | c,a    fail   P 1/2  R 1/2  RR 1/2  nDCG (1/log2 3) / (1 + 1/log2 3)
#   o3  a     | b | b,a    pass   P 1    R 1    RR 1/2  nDCG 1/log2 3
#   o4  d     |   | -      fail   P -    R 0    RR 0    nDCG 0   (no hit)
#   o5  no match  | -      pass                                  (abstained)
#   o6  no match  | x      fail   P 0                            (false positive)
HAND_OUTCOMES = (
    CaseOutcome(case(("a",)), ("a",), context_chars=100, elapsed_ms=5.0),
    CaseOutcome(case(("a", "b")), ("c", "a"), context_chars=200, elapsed_ms=1.0),
    CaseOutcome(case(("a",), ("b",)), ("b", "a"), context_chars=300, elapsed_ms=3.0),
    CaseOutcome(case(("d",)), (), context_chars=0, elapsed_ms=2.0),
    CaseOutcome(case(no_matches=True), (), context_chars=0, elapsed_ms=4.0),
    CaseOutcome(case(no_matches=True), ("x",), context_chars=60, elapsed_ms=100.0),
)
HAND_METRICS = {
    "pass_rate": 3 / 6,
    "precision_at_k": (1 + 1 / 2 + 1 + 0) / 4,
    "recall_at_k": (1 + 1 / 2 + 1 + 0) / 4,
    "mrr": (1 + 1 / 2 + 1 / 2 + 0) / 4,
    "ndcg_at_k": (1 + INV_LOG2_3 / (1 + INV_LOG2_3) + INV_LOG2_3 + 0) / 4,
    "false_positive_rate": 1 / 2,
    "no_hit_rate": 1 / 4,
    "over_recall_rate": 2 / 6,
    "abstention_accuracy": 1 / 2,
    "avg_returned_cards": (1 + 2 + 2 + 0 + 0 + 1) / 6,
    "avg_context_chars": 660 / 6,
    "p50_ms": 3.0,  # nearest rank: ceil(0.5 * 6) = 3rd of 1, 2, 3, 4, 5, 100
    "p95_ms": 100.0,  # ceil(0.95 * 6) = 6th
}


@pytest.mark.parametrize(("name", "value"), HAND_METRICS.items(), ids=list(HAND_METRICS))
def test_metric_by_hand(name: str, value: float) -> None:
    metrics = compute_metrics(HAND_OUTCOMES, k=4)
    assert getattr(metrics, name) == pytest.approx(value)


def test_metrics_block_has_exactly_the_spec_names_rounded_once() -> None:
    block = metrics_json(compute_metrics(HAND_OUTCOMES, k=4))
    assert list(block) == list(METRIC_NAMES)
    assert block["over_recall_rate"] == 0.3333
    assert block["ndcg_at_k"] == round(HAND_METRICS["ndcg_at_k"], 4)


def test_vacuous_metrics_when_no_case_qualifies() -> None:
    metrics = compute_metrics((CaseOutcome(case(no_matches=True), ()),), k=4)
    assert (metrics.precision_at_k, metrics.recall_at_k, metrics.mrr, metrics.ndcg_at_k) == (
        1.0,
        1.0,
        1.0,
        1.0,
    )
    assert (metrics.no_hit_rate, metrics.false_positive_rate, metrics.abstention_accuracy) == (
        0.0,
        0.0,
        1.0,
    )


@pytest.mark.parametrize(
    ("expected", "returned", "k", "value"),
    [
        pytest.param(("a",), ("a",), 4, 1.0, id="hit-at-1"),
        pytest.param(("a",), ("b", "a"), 4, INV_LOG2_3, id="hit-at-2"),
        pytest.param(("a", "b"), ("b", "a"), 4, 1.0, id="both-any-order"),
        pytest.param(("a", "b"), ("a",), 4, 1 / (1 + INV_LOG2_3), id="one-of-two"),
        pytest.param(("a", "b", "c"), ("a", "b"), 2, 1.0, id="ideal-capped-at-k"),
        pytest.param(("a",), ("b", "c", "d", "e", "a"), 4, 0.0, id="beyond-k"),
        pytest.param(("a",), (), 4, 0.0, id="nothing"),
    ],
)
def test_ndcg(expected: tuple[str, ...], returned: tuple[str, ...], k: int, value: float) -> None:
    assert ndcg(expected, returned, k) == pytest.approx(value)


@pytest.mark.parametrize(
    ("returned", "value"),
    [(("a",), 1.0), (("b", "a"), 0.5), (("b", "c", "a"), 1 / 3), (("b",), 0.0), ((), 0.0)],
)
def test_reciprocal_rank(returned: tuple[str, ...], value: float) -> None:
    assert reciprocal_rank(("a",), returned) == pytest.approx(value)


@pytest.mark.parametrize(
    ("values", "pct", "value"),
    [([], 50, 0.0), ([7.0], 95, 7.0), ([1, 2, 3, 4], 50, 2), ([1, 2, 3, 4], 95, 4)],
)
def test_percentile_nearest_rank(values: list[float], pct: float, value: float) -> None:
    assert percentile(values, pct) == value


# --- bounds and comparison --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("limits", "messages"),
    [
        pytest.param({"pass_rate": 0.5}, (), id="met"),
        pytest.param(
            {"pass_rate": 0.9}, ("pass_rate 0.8333 < --min-pass-rate 0.9",), id="min-pass-rate"
        ),
        pytest.param(
            {"false_positive_rate": 0.1},
            ("false_positive_rate 0.25 > --max-false-positive 0.1",),
            id="max-false-positive",
        ),
        pytest.param(
            {"recall_at_k": 1.0, "over_recall_rate": 0.0},
            ("recall_at_k 0.9 < --min-recall 1", "over_recall_rate 0.2 > --max-over-recall 0"),
            id="two-missed",
        ),
    ],
)
def test_check_bounds(limits: dict[str, float], messages: tuple[str, ...]) -> None:
    metrics = {
        "pass_rate": 0.8333,
        "precision_at_k": 1.0,
        "recall_at_k": 0.9,
        "over_recall_rate": 0.2,
        "false_positive_rate": 0.25,
    }
    assert check_bounds(metrics, limits) == messages


def hand_report(metrics: dict[str, float], passes: dict[str, bool]) -> dict[str, Any]:
    base = dict.fromkeys(METRIC_NAMES, 0.5)
    return {
        "suite": "s",
        "metrics": {**base, **metrics},
        "cases": [{"id": cid, "suite": "s", "passed": ok} for cid, ok in passes.items()],
    }


@pytest.mark.parametrize(
    ("old", "new", "regressions"),
    [
        pytest.param({}, {}, (), id="same"),
        pytest.param(
            {"pass_rate": 0.9},
            {"pass_rate": 0.8},
            ("pass_rate 0.9 -> 0.8 (higher is better)",),
            id="pass-rate-drops",
        ),
        pytest.param({"pass_rate": 0.8}, {"pass_rate": 0.9}, (), id="pass-rate-rises"),
        pytest.param(
            {"false_positive_rate": 0.0},
            {"false_positive_rate": 0.1},
            ("false_positive_rate 0 -> 0.1 (lower is better)",),
            id="fpr-rises",
        ),
        pytest.param({"no_hit_rate": 0.2}, {"no_hit_rate": 0.1}, (), id="no-hit-drops"),
        pytest.param({"p95_ms": 1.0}, {"p95_ms": 50.0}, (), id="timing-ignored"),
        pytest.param(
            {"avg_returned_cards": 1.0}, {"avg_returned_cards": 3.0}, (), id="no-direction"
        ),
    ],
)
def test_compare_metrics(
    old: dict[str, float], new: dict[str, float], regressions: tuple[str, ...]
) -> None:
    passes = {"x": True}
    assert compare_reports(hand_report(old, passes), hand_report(new, passes)).regressions == (
        regressions
    )


def test_compare_flags_a_case_that_went_from_pass_to_fail() -> None:
    old = hand_report({}, {"x": True, "y": False, "z": True})
    new = hand_report({}, {"x": False, "y": True, "z": True})
    assert compare_reports(old, new).regressions == ("case s/x passed before and fails now",)


# --- suites -----------------------------------------------------------------------------------


def test_json_and_yaml_suites_load_the_same(tmp_path: Path) -> None:
    from_json = load_suite(write_json_suite(tmp_path / "json"))
    from_yaml = load_suite(write_yaml_suite(tmp_path / "yaml"))
    assert from_json.name == from_yaml.name == "mini"
    assert from_json.cases == from_yaml.cases
    assert from_json.cards == from_yaml.cards
    assert from_json.cases[1].threshold == 35
    assert from_json.cases[3] == SuiteCase(id="bare", prompt="hello there")


@needs_reference
def test_inline_experiences_and_original_suites_load(tmp_path: Path) -> None:
    path = tmp_path / "inline.json"
    path.write_bytes(orjson.dumps({"name": "inline", "experiences": CARDS, "cases": CASES}))
    assert load_suite(path).cards == load_suite(write_json_suite(tmp_path / "file")).cards
    sizes = {p.stem: len(load_suite(p).cases) for p in REFERENCE_SUITES}
    assert sizes == {"core": 23, "held-out": 6, "pairwise": 13}


@pytest.mark.parametrize(
    ("cases", "message"),
    [
        pytest.param([{"id": "a"}], "'prompt' must be text", id="no-prompt"),
        pytest.param([{"prompt": "x"}], "has no 'id'", id="no-id"),
        pytest.param(
            [
                {
                    "id": "a",
                    "prompt": "x",
                    "expectNoMatches": True,
                    "expectedCards": ["browser-check"],
                }
            ],
            "contradicts",
            id="contradiction",
        ),
        pytest.param(
            [{"id": "a", "prompt": "x", "expectedCards": ["nope"]}],
            "does not define: nope",
            id="unknown-card",
        ),
        pytest.param(
            [{"id": "a", "prompt": "x"}, {"id": "a", "prompt": "y"}], "appears twice", id="dup"
        ),
        pytest.param(
            [{"id": "a", "prompt": "x", "threshold": 101}], "from 0 to 100", id="bad-threshold"
        ),
    ],
)
def test_invalid_suites_name_the_problem(
    tmp_path: Path, cases: list[dict[str, Any]], message: str
) -> None:
    with pytest.raises(SuiteError, match=message):
        load_suite(write_json_suite(tmp_path, cases))


def test_missing_cards_file_is_a_suite_error(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_bytes(orjson.dumps({"experiencesFile": "gone.json", "cases": CASES}))
    with pytest.raises(SuiteError, match="gone.json: cannot read"):
        load_suite(path)


def test_invalid_card_is_a_suite_error(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_bytes(orjson.dumps({"experiences": [{"id": "x", "rule": "r"}], "cases": CASES}))
    with pytest.raises(SuiteError, match=r"experiences\[0\].*'summary' is required"):
        load_suite(path)


# --- running ----------------------------------------------------------------------------------


def test_run_reports_every_case_and_removes_its_library(tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    report = report_json(evaluate_suites([write_json_suite(tmp_path)], tmp_root=scratch))
    assert list(scratch.iterdir()) == []
    assert [c["id"] for c in report["cases"]] == ["push", "ui", "soup", "bare"]
    assert (report["suite"], report["limit"], report["threshold"]) == ("mini", 4, 40)
    assert [c["threshold"] for c in report["cases"]] == [40, 35, 40, 40]
    assert report["suites"][0]["cards"] == len(CARDS)
    for c in report["cases"]:
        assert list(c["scores"]) == c["returned"]
        assert c["passed"] == (not c["missing"] and not c["unexpected"])


def test_library_is_removed_when_a_run_fails(tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    suite = write_json_suite(tmp_path)
    fenced = [CARDS[0], {**CARDS[1], "rule": "Run:\n```\nnpx playwright test\n```"}]
    (tmp_path / "mini.cards.json").write_bytes(orjson.dumps({"experiences": fenced}))
    with pytest.raises(SuiteError, match="browser-check: its rule does not survive"):
        evaluate_suites([suite], tmp_root=scratch)
    assert list(scratch.iterdir()) == []


def test_noise_ids_may_not_clash_with_suite_cards(tmp_path: Path) -> None:
    suite = write_json_suite(tmp_path, [{"id": "c", "prompt": "x"}])
    clashing = [CARDS[0], {**CARDS[1], "id": "noise-0002"}]
    (tmp_path / "mini.cards.json").write_bytes(orjson.dumps({"experiences": clashing}))
    with pytest.raises(SuiteError, match="noise-0002 clash with --noise"):
        evaluate_suites([suite], noise=3)


def test_report_is_deterministic_apart_from_timings(tmp_path: Path) -> None:
    suite = write_json_suite(tmp_path)
    first = report_json(evaluate_suites([suite], noise=20))
    second = report_json(evaluate_suites([suite], noise=20))
    assert without_timings(first) == without_timings(second)


def test_noise_cards_are_seeded_and_never_expected(tmp_path: Path) -> None:
    cards = generate_noise_cards(50)
    assert cards == generate_noise_cards(50)
    assert [c.id for c in cards[:2]] == ["noise-0001", "noise-0002"] and cards[
        -1
    ].id == "noise-0050"
    assert len({c.title for c in cards}) > 40
    report = report_json(evaluate_suites([write_json_suite(tmp_path)], noise=50))
    assert report["noise"] == 50
    assert report["suites"][0]["cards"] == len(CARDS) + 50
    for c in report["cases"]:
        noise = [cid for cid in c["returned"] if cid.startswith("noise-")]
        assert set(noise) <= set(c["unexpected"])
