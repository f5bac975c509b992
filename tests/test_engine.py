"""Recall engine behaviour as tables over a small library written to a temp data dir."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from ome.api import match_prompt, open_workspace, recall_options, result_json
from ome.cli import cli
from ome.cli.common import to_json
from ome.envelope import Envelope, build_envelope
from ome.evaluate import load_suite
from ome.evaluate import write_library as write_suite_library
from ome.params import (
    ANCHOR_MAX,
    BACKGROUND_WEIGHT,
    DESCRIPTION_MAX,
    FAMILY_MIN_STRENGTH,
    LONG_PROMPT_STAND_IN_SCORE,
    PARTIAL_COVER,
    RELATED_DECAY,
    RELATIVE_FLOOR,
    ROUTING_BYPASS_SCORE,
    SECOND_TASK_SCORE,
    SETTLED_WEIGHT,
)
from ome.registry import load_registry
from ome.render import RenderCard, render_context

CARDS: dict[str, dict[str, Any]] = {
    "force-push-shared": {
        "title": "Never force-push a shared branch",
        "summary": "Rewriting the history of a branch others use destroys their work.",
        "criteria": {
            "use_when": ["pushing rewritten history to a shared branch"],
            "ignore_when": ["my own personal branch"],
        },
        "engine_hints": {"positive": ["force_push"]},
        "recall": {
            "policy": "must",
            "risk": "high",
            "triggers": ["force push", "git push --force", "rewrite shared history"],
            "aliases": {"zh-CN": ["强制推送"]},
            "topics": ["git"],
        },
    },
    "db-migration-locks": {
        "title": "Reversible, lock-aware database migrations",
        "summary": "Schema migrations need a tested downgrade and must not lock big tables.",
        "criteria": {
            "use_when": ["writing a schema migration"],
            "ignore_when": ["no schema change is involved"],
        },
        "recall": {
            "triggers": ["schema migration", "alembic revision", "ALTER TABLE"],
            "aliases": {"zh-CN": ["数据库迁移"]},
            "topics": ["database", "migration"],
        },
        "paths": ["**/alembic/versions/*.py"],
    },
    "goal-runner": {
        "title": "Run an agent goal to completion",
        "summary": "When an agent goal is started, carry it through implementation and checks.",
        "criteria": {
            "use_when": ["start an agent goal"],
            "ignore_when": [],
            "intent_modes": {"exclude": ["explain"]},
        },
        "engine_hints": {"positive": ["goal_execute"], "negative": ["explain_only"]},
        "recall": {"triggers": ["create a goal", "run the goal"], "topics": ["agent"]},
    },
    "browser-check": {
        "title": "Check UI changes in a real browser",
        "summary": "Static checks do not prove a page works; open it in a real browser.",
        "criteria": {"use_when": ["a visible UI change"], "ignore_when": ["backend only"]},
        "engine_hints": {"required_all": ["ui_surface", "real_validation"]},
        "recall": {
            "policy": "should",
            "triggers": ["real browser", "browser validation"],
            "topics": ["frontend"],
        },
    },
    "unknown-hint-card": {
        "title": "Rotate leaked credentials",
        "summary": "A leaked token must be revoked and rotated, not just deleted from the repo.",
        "criteria": {"use_when": ["a credential leaked"], "ignore_when": []},
        "engine_hints": {"positive": ["no_such_signal_xyz"]},
        "recall": {"triggers": ["leaked token", "rotate the key"], "topics": ["security"]},
    },
}


def write_library(root: Path, cards: dict[str, dict[str, Any]]) -> None:
    active = root / "experiences" / "active"
    active.mkdir(parents=True, exist_ok=True)
    (root / "config.yaml").write_text("library:\n  starter_cards: false\n", "utf-8")
    for card_id, fields in cards.items():
        rule = fields.get("rule", f"The rule of {card_id}.")
        front = {"schema": "ome-card", "id": card_id, "status": "active", **fields}
        front.pop("rule", None)
        text = "---\n" + yaml.safe_dump(front, allow_unicode=True, sort_keys=False) + "---\n"
        text += f"\n## Full Rule\n\n```text\n{rule}\n```\n"
        (active / f"{card_id}.md").write_text(text, "utf-8")


@pytest.fixture
def library(data_dir: Path) -> Path:
    write_library(data_dir, CARDS)
    return data_dir


def recall_ids(library: Path, prompt: str, **options: Any) -> list[str]:
    workspace = open_workspace(library, library)
    result = match_prompt(workspace, prompt, recall_options(workspace, **options))
    return [m.id for m in result.matches]


def explain(library: Path, prompt: str) -> dict[str, Any]:
    workspace = open_workspace(library, library)
    return result_json(match_prompt(workspace, prompt, recall_options(workspace)), explain=True)


def candidate_rows(library: Path, prompt: str) -> dict[str, dict[str, Any]]:
    """Every candidate's explain row for a prompt, by card id."""
    return {c["id"]: c for c in explain(library, prompt)["diagnostics"]["candidates"]}


def envelope_of(prompt: str) -> Envelope:
    """The task envelope of a prompt under the bundled registry."""
    registry = load_registry()
    return build_envelope(prompt, registry, registry.vocabulary.concept_matcher())


def way_back_card(summary: str, trigger: str) -> dict[str, Any]:
    """A card of one summary and one trigger; its other fields share nothing with the tests."""
    return {
        "title": "Keep a way back",
        "summary": summary,
        "criteria": {"use_when": ["before a risky release"], "ignore_when": []},
        "recall": {"triggers": [trigger], "topics": ["operations"]},
    }


def lone_card(data_dir: Path, summary: str, trigger: str, prompt: str) -> dict[str, Any]:
    """The explain row of the only card of a library, for a prompt."""
    write_library(data_dir, {"lone": way_back_card(summary, trigger)})
    (row,) = explain(data_dir, prompt)["diagnostics"]["candidates"]
    return dict(row)


def overlap_detail(row: dict[str, Any]) -> str:
    """The detail of a candidate's one description-overlap evidence item."""
    (detail,) = [e["detail"] for e in row["evidence"] if e["family"] == "overlap"]
    return str(detail)


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("Force push my rebased branch to the shared main branch.", ["force-push-shared"]),
        ("把我的分支强制推送到共享的 main 分支", ["force-push-shared"]),
        ("Write an alembic revision that adds an ALTER TABLE for orders", ["db-migration-locks"]),
        ("Review alembic/versions/20240101_add_index.py before merging", ["db-migration-locks"]),
        ("Please create a goal and run it to the end", ["goal-runner"]),
        ("Someone leaked token in the logs, rotate the key now", ["unknown-hint-card"]),
        (
            "Force push the shared branch, then write the schema migration for orders",
            ["force-push-shared", "db-migration-locks"],
        ),
        ("What is the capital of France?", []),
        ("Write a short poem about autumn leaves", []),
        ("push", []),
        ("", []),
    ],
    ids=[
        "exact-trigger",
        "chinese-alias",
        "two-technical-triggers",
        "path-glob",
        "goal-signal",
        "unknown-hint-ignored",
        "two-tasks",
        "unrelated",
        "chatter",
        "single-word",
        "empty",
    ],
)
def test_recall_table(library: Path, prompt: str, expected: list[str]) -> None:
    assert sorted(recall_ids(library, prompt)) == sorted(expected)


@pytest.mark.parametrize(
    ("prompt", "card_id", "rejection"),
    [
        ("Force push my own personal branch after the rebase", "force-push-shared", "ignore_rule"),
        (
            "Refactor the orders query; no schema change is involved in this schema migration",
            "db-migration-locks",
            "ignore_rule",
        ),
        (
            "Force push the rebased release branch everyone shares; this is not about my own"
            " personal branch",
            "force-push-shared",
            "",
        ),
        (
            "Just explain how a goal works, only explain, do not create a goal",
            "goal-runner",
            "blocked_by_signal",
        ),
        (
            "Fix the settings page, then do a browser validation in a real browser",
            "browser-check",
            "",
        ),
        (
            "Open the export API response in the browser, it renders as raw JSON",
            "browser-check",
            "required_signal_missing",
        ),
    ],
    ids=[
        "ignore-when",
        "ignore-when-inside-exclusion",
        "ignore-when-excluded",
        "negative-signal",
        "required-ok",
        "required",
    ],
)
def test_rejections_read_as_reason_codes(
    library: Path, prompt: str, card_id: str, rejection: str
) -> None:
    doc = explain(library, prompt)
    rows = {c["id"]: c for c in doc["diagnostics"]["candidates"]}
    assert card_id in rows
    if rejection:
        assert rows[card_id]["rejection"] == rejection
        assert card_id not in [m["id"] for m in doc["matches"]]
    else:
        assert rows[card_id]["selected"]


def test_a_fired_signal_alone_never_admits(library: Path) -> None:
    doc = explain(library, "git push -f origin HEAD")
    returned = [m["id"] for m in doc["matches"]]
    rows = {c["id"]: c for c in doc["diagnostics"]["candidates"]}
    if "force-push-shared" in rows:
        families = rows["force-push-shared"]["families"]
        assert families != ["signals"] or "force-push-shared" not in returned


def test_must_cards_come_first(data_dir: Path) -> None:
    cards = {
        "should-card": {
            "title": "Deploy checklist for staging",
            "summary": "Check the staging deploy checklist.",
            "criteria": {"use_when": ["staging deploy"], "ignore_when": []},
            "recall": {"policy": "should", "triggers": ["staging deploy checklist"]},
        },
        "must-card": {
            "title": "Confirm the deploy target",
            "summary": "Confirm which environment a deploy goes to.",
            "criteria": {"use_when": ["deploy target"], "ignore_when": []},
            "recall": {"policy": "must", "triggers": ["deploy target"]},
        },
    }
    write_library(data_dir, cards)
    ids = recall_ids(data_dir, "Run the staging deploy checklist and confirm the deploy target")
    assert ids == ["must-card", "should-card"]


def test_limit_caps_the_result(library: Path) -> None:
    prompt = "Force push the shared branch, then write the schema migration for orders"
    assert len(recall_ids(library, prompt, limit=1)) == 1


def test_project_card_beats_global_copy(library: Path, tmp_path: Path) -> None:
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    write_library(project / ".oh-my-experience", {"force-push-shared": CARDS["force-push-shared"]})
    workspace = open_workspace(library, project)
    result = match_prompt(workspace, "Force push to the shared branch", recall_options(workspace))
    assert [(m.id, m.layer) for m in result.matches] == [("force-push-shared", "project")]
    assert "--scope project" in result.context


def test_threshold_is_respected(library: Path) -> None:
    assert recall_ids(library, "Force push to the shared branch", threshold=100) == []


def render_cards(count: int, summary: str = "A lesson summary. " * 8) -> list[RenderCard]:
    return [
        RenderCard(
            id=f"card-{i}",
            title=f"Card {i}",
            summary=summary,
            risk="high",
            policy="must",
            use_when=("a situation",),
            ignore_when=("another",),
            matched_by=('phrase "x"',),
            link=f"/lib/card-{i}.md",
            scope_flag="",
        )
        for i in range(count)
    ]


@pytest.mark.parametrize("budget", [200, 600, 900, 1500, 3000, 6000, 20000])
def test_render_never_exceeds_budget_and_never_cuts_a_card(budget: int) -> None:
    cards = render_cards(6)
    text, kept = render_context(cards, budget)
    assert len(text) <= min(budget, 9000)
    for card_id in kept:
        assert f"({card_id})" in text and f"show {card_id} --section rule" in text
    for card in cards:
        if card.id not in kept:
            assert f"({card.id})" not in text
    assert list(kept) == [c.id for c in cards[: len(kept)]]


def test_render_drops_lowest_ranked_first_then_shortens() -> None:
    cards = render_cards(3, summary="word " * 200)
    full, kept_full = render_context(cards, 9000)
    assert kept_full == ("card-0", "card-1", "card-2")
    tight, kept = render_context(cards, len(full) - 10)
    assert kept == ("card-0", "card-1")
    single, kept_single = render_context(cards[:1], 700)
    assert kept_single == ("card-0",) and "…" in single


def test_context_snapshot(library: Path, snapshot: Any) -> None:
    workspace = open_workspace(library, library)
    result = match_prompt(
        workspace, "Force push my branch to the shared main", recall_options(workspace)
    )
    assert result.context.replace(str(library), "<data>") == snapshot


def test_explain_snapshot(library: Path, snapshot: Any) -> None:
    doc = explain(library, "Write the schema migration, then force push the shared branch")
    assert to_json(doc).replace(str(library), "<data>") == snapshot


def test_output_is_identical_across_hash_seeds(library: Path) -> None:
    prompt = "Force push the shared branch, then write the schema migration for orders"
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "ome",
                "match",
                prompt,
                "--json",
                "--explain",
                "--data-dir",
                str(library),
            ],
            capture_output=True,
            env=env,
            check=True,
            cwd=library,
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1


def test_a_quoted_ignore_phrase_shows_as_an_ignore_rejection(data_dir: Path) -> None:
    card = {
        "title": "Export the invoice ledger as CSV",
        "summary": "Operators need a downloadable ledger, not an on-screen total.",
        "criteria": {"use_when": ["invoice ledger export"], "ignore_when": ["dashboard only"]},
        "recall": {"triggers": ["invoice ledger export"]},
    }
    write_library(data_dir, {"invoice-export": card})
    doc = explain(data_dir, "Show the invoice totals on the dashboard only")
    rows = {c["id"]: c for c in doc["diagnostics"]["candidates"]}
    assert rows["invoice-export"]["rejection"] == "ignore_rule"
    failed = [g for g in rows["invoice-export"]["gates"] if not g["passed"]]
    assert failed == [{"gate": "ignore_rule", "passed": False, "detail": "dashboard only"}]


RETRY_CARD = {
    "title": "Give client retries a budget",
    "summary": "Unbounded retries turn a slow dependency into an outage.",
    "criteria": {
        "use_when": ["retrying failed HTTP calls"],
        "ignore_when": ["idempotent reads served from a local cache"],
    },
    "recall": {"triggers": ["retry budget"]},
}


@pytest.mark.parametrize(
    ("prompt", "rejection"),
    [
        # The ignore phrase's units in another order, in one sentence: the card steps aside.
        (
            "Add a retry budget for the idempotent reads our local cache serves",
            "ignore_rule",
        ),
        # The same words across two sentences: the second may be what the card is for.
        ("Add a retry budget. It is for the idempotent reads our local cache serves.", ""),
    ],
)
def test_an_ignore_phrase_in_other_words_rejects_a_one_sentence_prompt(
    data_dir: Path, prompt: str, rejection: str
) -> None:
    write_library(data_dir, {"retry-budget": RETRY_CARD})
    row = candidate_rows(data_dir, prompt)
    assert row["retry-budget"]["rejection"] == rejection
    assert row["retry-budget"]["penalty"] > 0
    failed = [g["detail"] for g in row["retry-budget"]["gates"] if not g["passed"]]
    assert failed == ([RETRY_CARD["criteria"]["ignore_when"][0]] if rejection else [])


def test_a_prompt_holding_what_an_ignore_phrase_names_as_absent_does_not_meet_it(
    data_dir: Path,
) -> None:
    card = {
        "title": "Path filters skip required checks",
        "summary": "A required status check that never runs blocks the merge forever.",
        "criteria": {
            "use_when": ["adding path filters to a CI workflow"],
            "ignore_when": ["release workflows that are not required checks"],
        },
        "recall": {"triggers": ["path filters"]},
    }
    write_library(data_dir, {"path-filters": card})
    prompt = "Add path filters to our release workflow, which is a required check"
    row = candidate_rows(data_dir, prompt)
    assert row["path-filters"]["rejection"] == ""
    assert row["path-filters"]["penalty"] == 0


@pytest.mark.parametrize(
    ("prompt", "rejection"),
    [
        ("Rotate the zorbic quintal that holds the secret.", "ignore_rule"),
        # A private key is a kind of secret: implied, not said.
        ("Rotate the zorbic quintal that holds the private key.", ""),
    ],
    ids=["said", "implied"],
)
def test_a_concept_only_implied_says_no_word_of_an_ignore_phrase(
    data_dir: Path, prompt: str, rejection: str
) -> None:
    card = {
        "title": "Rotate the zorbic quintal",
        "summary": "The zorbic quintal drifts unless it is rotated each week.",
        "criteria": {
            "use_when": ["rotating the zorbic quintal"],
            "ignore_when": ["a quintal secret"],
        },
        "recall": {"triggers": ["zorbic quintal"], "topics": ["gizmos"]},
    }
    write_library(data_dir, {"quintal": card})
    assert ("§secret" in envelope_of(prompt).implied) == (not rejection)
    assert candidate_rows(data_dir, prompt)["quintal"]["rejection"] == rejection


ECHO_CARDS = {
    "chunked-upload": {
        "title": "Stream big uploads in chunks",
        "summary": (
            "Reading a whole request body into memory takes the server down on large files; "
            "stream each part to object storage, verify checksums, expire abandoned parts, cap "
            "the total size and report progress to the caller."
        ),
        "criteria": {"use_when": ["accepting file uploads"], "ignore_when": []},
        "recall": {"triggers": ["split the upload into resumable parts"], "topics": ["storage"]},
    },
    "pin-base-image": {
        "title": "Pin base images",
        "summary": "Unpinned images drift.",
        "criteria": {"use_when": ["writing a dockerfile"], "ignore_when": []},
        "recall": {"triggers": ["docker base image"]},
    },
    # Never admitted here (its required signal does not fire); its words make the prompt's
    # other words known to the library.
    "rotate-keys": {
        "title": "Rotate leaked keys",
        "summary": "A leaked key in a desktop sync client app is compromised for every user today.",
        "criteria": {"use_when": ["a key leaked"], "ignore_when": []},
        "recall": {"triggers": ["leaked api key"]},
        "engine_hints": {"required_all": ["force_push"]},
    },
}


CACHE_WRITE_CARD = {
    "title": "Invalidate cached entries on every write",
    "summary": "An entry cached before an update is served stale until it expires; delete or "
    "refresh it in the same code path that writes.",
    "criteria": {
        "use_when": ["adding a read-through layer in front of the database"],
        "ignore_when": [],
    },
    "recall": {"triggers": ["redis cache"]},
}


@pytest.mark.parametrize(
    ("card", "prompt", "family", "rejection"),
    [
        # Half the trigger, and the description shares nothing but those same words.
        (
            "chunked-upload",
            "Make the upload resumable for our desktop sync client app today",
            "coverage",
            "insufficient_evidence",
        ),
        # The description also shares words of its own: two families.
        (
            "chunked-upload",
            "Make the upload resumable for our desktop sync client app today; "
            "stream each part and verify checksums",
            "coverage",
            "",
        ),
        # "cache" meets a one-concept trigger, and the description shares only that word.
        (
            "cache-invalidation",
            "Put an lru cache decorator on the fibonacci helper",
            "concepts",
            "insufficient_evidence",
        ),
        (
            "cache-invalidation",
            "Cache the price lookups, and delete each cached entry in the code path that "
            "writes so no stale price is served",
            "concepts",
            "",
        ),
    ],
)
def test_a_phrase_met_unanchored_and_its_own_words_in_the_description_are_one_family(
    data_dir: Path, card: str, prompt: str, family: str, rejection: str
) -> None:
    write_library(data_dir, {**ECHO_CARDS, "cache-invalidation": CACHE_WRITE_CARD})
    rows = candidate_rows(data_dir, prompt)
    row = rows[card]
    assert {e["family"] for e in row["evidence"]} == {family, "overlap"}
    assert row["rejection"] == rejection
    note = "covered" if family == "coverage" else "matched"
    assert overlap_detail(row).endswith(f"echoes the {note} phrase") is bool(rejection)


MIGRATION_CARD = {
    "title": "Ship schema changes in steps",
    "summary": "Dropping a column in the same deploy as the code breaks old pods still serving.",
    "criteria": {"use_when": ["dropping a column that old code still reads"], "ignore_when": []},
    "recall": {"triggers": ["alembic migration"]},
    "engine_hints": {"positive": ["data_migration"]},
}


@pytest.mark.parametrize(
    ("prompt", "rejection"),
    [
        # "migration" meets the one-concept trigger and fires the signal: one word, one family.
        ("Plot the bird migration routes on a map, one colour each", "insufficient_evidence"),
        # The signal also fired on words of its own ("backfill"): two families.
        ("Write the migration, then backfill the orders table in batches", ""),
    ],
)
def test_a_signal_fired_by_the_word_that_met_a_concept_phrase_is_not_a_second_family(
    data_dir: Path, prompt: str, rejection: str
) -> None:
    write_library(data_dir, {**ECHO_CARDS, "schema-steps": MIGRATION_CARD})
    rows = candidate_rows(data_dir, prompt)
    row = rows["schema-steps"]
    details = {e["family"]: e["detail"] for e in row["evidence"]}
    assert details["concepts"] == "alembic migration"
    assert details["signals"].endswith("echoes the matched phrase") is bool(rejection)
    assert row["rejection"] == rejection


WARMUP_CARD = {
    "title": "Warm caches before a cutover",
    "summary": (
        "Switching traffic to a fresh cluster with empty caches floods the primary database."
    ),
    "criteria": {"use_when": ["moving traffic to a new cluster"], "ignore_when": []},
    "recall": {"triggers": ["prefill the cache before switching traffic"]},
}
TOPIC_CARD = {
    "title": "Warm up before a cutover",
    "summary": "Switching traffic to a fresh cluster before a demo floods the primary database.",
    "criteria": {"use_when": ["moving traffic to a new cluster"], "ignore_when": []},
    "recall": {"triggers": ["prefill before switching traffic"], "topics": ["cache"]},
}
# Shares "demo" with TOPIC_CARD, so that word is on two cards and weighs less.
DEMO_CARD = {
    "title": "Rehearse the demo",
    "summary": "A demo that was never rehearsed fails in front of the customer.",
    "criteria": {"use_when": ["preparing a product demo"], "ignore_when": []},
    "recall": {"triggers": ["demo script"]},
}
COVERED = ["overlap", "coverage"]


@pytest.mark.parametrize(
    ("card", "prompt", "families", "rejection", "note"),
    [
        # Half the trigger, and a close description made of nothing but those same words.
        (
            WARMUP_CARD,
            "Prefill the cache for the staging demo",
            COVERED,
            "insufficient_evidence",
            "covered",
        ),
        # One word of the card's own beyond the trigger: the description admits it alone.
        (WARMUP_CARD, "Prefill the cache for the fresh staging demo", COVERED, "", "covered"),
        # More of the card's own words: the overlap is a second family as well.
        (WARMUP_CARD, "Prefill the cache on the fresh cluster for the demo", COVERED, "", ""),
        # A topic word and its concept (one word said once: one and a half units), plus less
        # than one word of the card's own besides: too little to admit alone.
        (
            TOPIC_CARD,
            "Add a cache for the demo",
            ["overlap", "exact"],
            "insufficient_evidence",
            "",
        ),
        (TOPIC_CARD, "Add a cache on the fresh cluster", ["overlap", "exact"], "", ""),
    ],
)
def test_a_description_that_only_echoes_the_matched_phrase_does_not_admit_alone(
    data_dir: Path,
    card: dict[str, Any],
    prompt: str,
    families: list[str],
    rejection: str,
    note: str,
) -> None:
    write_library(data_dir, {**ECHO_CARDS, "demo-rehearsal": DEMO_CARD, "cutover-warmup": card})
    rows = candidate_rows(data_dir, prompt)
    row = rows["cutover-warmup"]
    assert [e["family"] for e in row["evidence"]] == families
    assert row["rejection"] == rejection
    overlap = row["evidence"][0]["detail"]
    assert overlap.endswith(f"echoes the {note} phrase") if note else "echoes" not in overlap


# A card written in Chinese with an English topic word, and a card that shares its "customer"
# concept, among lessons that share nothing with the prompts: "customer" is on two cards of
# twenty-two, so it weighs a little less than a word on one card.
WINE_AGE_CARDS = {
    "wine-age-check": {
        "title": "网上卖酒要先核对年龄",
        "summary": "网店卖酒，结账时要核对顾客年龄，送货上门时快递员还要查证件。",
        "criteria": {"use_when": ["在网上卖酒"], "ignore_when": []},
        "recall": {"triggers": ["交货时出示年龄证明"], "topics": ["winery"]},
    },
    "csv-quoting": {
        "title": "Export lists as CSV",
        "summary": "Quote every field when the customer list goes out as CSV.",
        "criteria": {"use_when": ["csv export"], "ignore_when": []},
        "recall": {"triggers": ["csv quoting"]},
    },
    **{
        f"filler-{n}": way_back_card(f"Lesson number {n} of the filler set.", f"filler {n}")
        for n in range(20)
    },
}


@pytest.mark.parametrize(
    ("prompt", "rejection", "echoed"),
    [
        # The topic word, and translations of the card's words: the phrase and its echo.
        ("Our winery webshop must check the age.", "insufficient_evidence", True),
        # The "customer" concept besides: less than one word on one card, but across languages
        # the bar on what the description shares beyond the phrase takes the same share as the
        # description bars, so it admits the card alone.
        ("Our winery webshop must check each customer's age.", "", False),
    ],
)
def test_across_languages_a_description_beyond_the_phrase_takes_the_cross_language_share(
    data_dir: Path, prompt: str, rejection: str, echoed: bool
) -> None:
    write_library(data_dir, WINE_AGE_CARDS)
    row = candidate_rows(data_dir, prompt)["wine-age-check"]
    assert [e["detail"] for e in row["evidence"] if e["family"] == "exact"] == ["winery"]
    assert row["rejection"] == rejection
    assert overlap_detail(row).endswith("echoes the matched phrase") is echoed


TWO_TASK_CARDS = {
    "icon-button-name": {
        "title": "Give icon-only buttons an accessible name",
        "summary": "A screen reader announces an unnamed icon button as just 'button'.",
        "criteria": {"use_when": ["an icon button without visible text"], "ignore_when": []},
        "recall": {"triggers": ["icon button label", "aria-label"], "topics": ["accessibility"]},
    },
    "icu-plural-messages": {
        "title": "Build plural sentences as one ICU message",
        "summary": "Gluing translated fragments together breaks grammar in other languages; "
        "write one ICU message with plural rules.",
        "criteria": {
            "use_when": ["a sentence assembled from translated pieces"],
            "ignore_when": [],
        },
        "recall": {"triggers": ["ICU message format", "plural rules"], "topics": ["i18n"]},
    },
}
TWO_TASKS = (
    "the settings gear icon button has no visible text and no aria-label for screen readers, "
    "and the cart total message is joined from translated fragments."
)


@pytest.mark.parametrize(
    ("prompt", "expected", "second_rejection"),
    [
        ("The " + TWO_TASKS, ["icon-button-name"], "below_relative_floor"),
        ("Two things: " + TWO_TASKS, ["icon-button-name", "icu-plural-messages"], ""),
        ("两件事：" + TWO_TASKS, ["icon-button-name", "icu-plural-messages"], ""),
    ],
    ids=["one-task-reading", "announced-two-tasks", "announced-in-chinese"],
)
def test_an_announced_second_task_is_weighed_against_its_own_clause(
    data_dir: Path, prompt: str, expected: list[str], second_rejection: str
) -> None:
    """The weaker card of a second task stays when the prompt says it holds several tasks."""
    write_library(data_dir, TWO_TASK_CARDS)
    doc = explain(data_dir, prompt)
    assert [m["id"] for m in doc["matches"]] == expected
    rows = {c["id"]: c for c in doc["diagnostics"]["candidates"]}
    assert rows["icu-plural-messages"]["rejection"] == second_rejection
    assert doc["envelope"]["multi_task"] is (len(expected) == 2)


CONTEXT_CARDS = {
    "retry-budget": {
        "title": "Give client retries a budget",
        "summary": "Unbounded client retries multiply the load on a struggling upstream service "
        "and turn a short outage into a long one.",
        "criteria": {"use_when": ["adding retries to a service client"], "ignore_when": []},
        "recall": {"triggers": ["retry budget"]},
    },
    "disk-full-logs": {
        "title": "Sample debug logs on hot paths",
        "summary": "Debug logging on every request fills the disk and slows the hot path.",
        "criteria": {"use_when": ["turning on verbose logging in production"], "ignore_when": []},
        "recall": {"triggers": ["log sampling"]},
    },
}
RETRIES = (
    "Unbounded retries multiply the load on a struggling upstream and turn a short outage "
    "into a long one. "
)


@pytest.mark.parametrize(
    ("prompt", "expected", "multi_task"),
    [
        # The logging sentence reads closer: the retry sentence is its context.
        (
            RETRIES + "Debug logging on every request fills the disk and slows everything.",
            ["disk-full-logs"],
            False,
        ),
        # Both descriptions at the cap and nothing else: nothing tells the readings apart.
        (
            RETRIES + "Logging on every request fills the disk.",
            ["disk-full-logs", "retry-budget"],
            False,
        ),
        (
            RETRIES + "Also, debug logging on every request fills the disk and slows everything.",
            ["disk-full-logs", "retry-budget"],
            True,
        ),
    ],
    ids=["one-task", "equal-evidence", "announced-second-task"],
)
def test_a_short_prompt_announcing_no_second_task_is_one_task_in_every_sentence(
    data_dir: Path, prompt: str, expected: list[str], multi_task: bool
) -> None:
    """Two unanchored cards from different sentences of a short prompt are one task read twice,
    unless the prompt announces another task or their lexical evidence is equal."""
    write_library(data_dir, CONTEXT_CARDS)
    doc = explain(data_dir, prompt)
    assert [m["id"] for m in doc["matches"]] == expected
    assert doc["envelope"]["multi_task"] is multi_task
    rows = {c["id"]: c for c in doc["diagnostics"]["candidates"]}
    assert not any(rows[card]["strong_anchor"] for card in CONTEXT_CARDS)
    if len(expected) == 1:
        assert rows["retry-budget"]["rejection"] == "weaker_reading_of_one_task"
        assert rows["retry-budget"]["score"] >= 0.8 * rows["disk-full-logs"]["score"]


# With the two cards on batches, "batch" and "window" are on most cards and the phrase "batch
# window" is all the prompt shares with its card; without them, its description shares the
# phrase's words again (an echo of the phrase, not a second way of meeting it).
SETTING_CARDS = {
    "batch-window-hours": {
        "title": "Keep heavy jobs inside the batch window",
        "summary": "Reports that spill past 06:00 compete with morning traffic.",
        "criteria": {"use_when": ["scheduling a heavy report job"], "ignore_when": []},
        "recall": {"triggers": ["batch window"]},
    },
    "batch-size-cap": {
        "title": "Cap the batch size of jobs in a window",
        "summary": "A batch that loads a whole window at once runs out of memory.",
        "criteria": {"use_when": ["sizing a batch"], "ignore_when": []},
        "recall": {"triggers": ["batch size"]},
    },
    "batch-retry-window": {
        "title": "Retry a failed batch inside its window",
        "summary": "A batch retried after its window closes overlaps the next one.",
        "criteria": {"use_when": ["rerunning a failed batch"], "ignore_when": []},
        "recall": {"triggers": ["batch retry"]},
    },
    "release-connections-before-calls": {
        "title": "Release database connections before slow calls",
        "summary": "Workers that hold database connections while waiting on slow HTTP calls "
        "exhaust the connection pool.",
        "criteria": {
            "use_when": ["workers holding connections during slow calls"],
            "ignore_when": [],
        },
        "recall": {"triggers": ["connection pool exhausted"]},
    },
}
HELD_CONNECTIONS = (
    "the workers held their database connections while waiting on slow HTTP calls, and the "
    "connection pool ran dry."
)


SETTING_PROMPTS = [
    ("During the batch window " + HELD_CONNECTIONS + " Fix the workers.", False),
    ("Move the batch window to 02:00.", True),
    ("Two things: move the batch window to 02:00, and " + HELD_CONNECTIONS, True),
]


@pytest.mark.parametrize(
    ("prompt", "kept", "dropped", "families"),
    [
        (prompt, kept, dropped, families)
        for dropped, families in (
            ((), ["exact"]),
            (("batch-size-cap", "batch-retry-window"), ["exact", "overlap"]),
        )
        for prompt, kept in SETTING_PROMPTS
    ],
    ids=[
        f"{library}-{case}"
        for library in ("phrase-alone", "phrase-and-echo")
        for case in ("setting-of-one-task", "the-task-itself", "announced-second-task")
    ],
)
def test_a_card_met_by_one_phrase_alone_gives_way_to_the_task_met_in_several_ways(
    data_dir: Path, prompt: str, kept: bool, dropped: tuple[str, ...], families: list[str]
) -> None:
    """In a one-task prompt, a card whose phrase is all the prompt shares with it (its
    description at most echoing the phrase) names the task's setting when another card is met by
    a phrase and its description; alone, or in a prompt of two tasks, it stays."""
    write_library(data_dir, {k: v for k, v in SETTING_CARDS.items() if k not in dropped})
    doc = explain(data_dir, prompt)
    returned = [m["id"] for m in doc["matches"]]
    assert ("batch-window-hours" in returned) is kept
    assert ("release-connections-before-calls" in returned) is ("held" in prompt)
    row = {c["id"]: c for c in doc["diagnostics"]["candidates"]}["batch-window-hours"]
    assert row["strong_anchor"]
    if not kept:
        assert row["families"] == families
        assert row["rejection"] == "weaker_reading_of_one_task"


LOOSE_COVER_CARDS = {
    "zorb-gateway-backoff": {
        "title": "Back off before retrying the zorb gateway",
        "summary": "Retrying the zorb gateway in a tight loop floods it.",
        "criteria": {"use_when": ["retrying zorb gateway calls"], "ignore_when": []},
        "recall": {"triggers": ["zorb gateway retry"]},
    },
    "quintal-ledger-freeze": {
        "title": "Freeze the quintal ledger at month end",
        "summary": "Edits posted after the books close break the totals that finance already "
        "signed off, and the correction entries then need a second approval round with "
        "reconciliation reports for every affected cost centre. Controllers lock each period "
        "in the accounting system, export trial balances to the consolidation workbook, and "
        "investigate variances against budget before the board pack goes to directors.",
        "criteria": {"use_when": ["quintal ledger"], "ignore_when": []},
        "recall": {"triggers": ["ledger freeze"]},
    },
}
LEDGER_BACKGROUND = "In spring the numbers went into the ledger for quintal on time."


def status_report(background: str, task: str) -> str:
    """A long prompt of one task: context sentences, `background` among them, then `task`."""
    return (
        "Some context first. The team is small and the release is next week. "
        f"{background} Marketing also wants a new banner. {task}"
    )


def test_a_phrase_said_apart_anchors_its_card_but_not_beside_another_task(
    data_dir: Path,
) -> None:
    """A cover (a phrase's words said apart in one sentence) admits its card; beside a card met
    whole in a long prompt, with little else of its own description said, it is no second task."""
    write_library(data_dir, LOOSE_COVER_CARDS)
    alone = explain(data_dir, LEDGER_BACKGROUND)
    assert [m["id"] for m in alone["matches"]] == ["quintal-ledger-freeze"]
    long = explain(
        data_dir,
        status_report(
            LEDGER_BACKGROUND,
            "Right now a zorb gateway retry in a tight loop floods it, please fix that.",
        ),
    )
    assert long["envelope"]["long_prompt"]
    assert [m["id"] for m in long["matches"]] == ["zorb-gateway-backoff"]
    rows = {c["id"]: c for c in long["diagnostics"]["candidates"]}
    ledger = rows["quintal-ledger-freeze"]
    assert ledger["strong_anchor"] and ledger["loose_anchor"]
    assert ledger["families"] == ["coverage", "overlap"]
    assert ledger["rejection"] == "long_prompt_one_task"
    assert not rows["zorb-gateway-backoff"]["loose_anchor"]


PASSING_PHRASE_CARDS = {
    "gizmo-nap-wake": {
        "title": "Wake napping gizmos before a quintal sync",
        "summary": "A quintal sync sent to a napping gizmo is dropped without an error; wake the "
        "gizmo first and confirm its heartbeat.",
        "criteria": {"use_when": ["syncing quintal data to gizmos"], "ignore_when": []},
        "recall": {"triggers": ["gizmo wake call"]},
    },
    "zorb-ledger-export": {
        "title": "Export the zorb ledger in pages",
        "summary": "One export of the whole zorb ledger runs out of memory on the reporting "
        "host, stalls the nightly finance jobs and leaves half-written files behind. Page "
        "through the accounts in chunks, stream each chunk to storage, record a cursor after "
        "every page so a restarted export resumes, and compare row counts with the source. "
        "Keep exports off the primary database, schedule them outside the settlement "
        "window, compress archives before upload, and alert treasury when totals drift.",
        "criteria": {"use_when": ["exporting ledgers for finance"], "ignore_when": []},
        "recall": {"triggers": ["zorb ledger"]},
    },
}
ZORB_STATUS = (
    "The regional managers signed the quarterly pack with the zorb ledger numbers in it "
    "without comments."
)
GIZMO_TASK = (
    "Right now every quintal sync to a napping gizmo is dropped with no error, and the "
    "heartbeat never comes back; please fix the sync."
)


def test_a_phrase_met_in_passing_in_a_long_prompt_does_not_take_its_task(
    data_dir: Path,
) -> None:
    """In a long prompt of one task, a card whose phrase a status sentence names in passing
    (little else of its description said) does not take the task from a card the prompt
    describes closely; in a short prompt the same phrase still anchors its card."""
    write_library(data_dir, PASSING_PHRASE_CARDS)
    short = explain(data_dir, "Check the zorb ledger export, it ran out of memory.")
    assert [m["id"] for m in short["matches"]] == ["zorb-ledger-export"]
    long = explain(data_dir, status_report(ZORB_STATUS, GIZMO_TASK))
    assert long["envelope"]["long_prompt"] and not long["envelope"]["multi_task"]
    assert [m["id"] for m in long["matches"]] == ["gizmo-nap-wake"]
    rows = {c["id"]: c for c in long["diagnostics"]["candidates"]}
    zorb = rows["zorb-ledger-export"]
    assert zorb["strong_anchor"] and zorb["loose_anchor"]
    assert zorb["rejection"] == "long_prompt_one_task"


BACKGROUND_HOLDER_CARDS = {
    "quintal-report-masking": {
        "title": "Mask quintal numbers in zorb report exports",
        "summary": "Zorb report exports carry customer phone numbers; mask phone numbers in "
        "every zorb report export and have legal check the masked exports.",
        "criteria": {"use_when": ["sending plover files to auditors"], "ignore_when": []},
        "recall": {"triggers": ["quintal masking"]},
    },
    "gizmo-drawer-browser-check": {
        "title": "Open a changed gizmo drawer in a browser before a demo",
        "summary": "Type checks and unit tests do not show how a gizmo drawer looks; open the "
        "page, click the fold button and look at the overlay before calling it ready.",
        "criteria": {"use_when": ["demoing a wobble panel"], "ignore_when": []},
        "recall": {"triggers": ["wobble review"]},
    },
}
MASKING_DONE = (
    "The quintal masking in the zorb report exports is done, and legal checked every masked "
    "zorb report export."
)


def test_a_card_the_request_describes_takes_a_long_prompts_task_from_the_background(
    data_dir: Path,
) -> None:
    """In a long prompt of one task, a card ranked first for a status sentence (its trigger
    said there) gives the task up to a card that the request sentence describes."""
    write_library(data_dir, BACKGROUND_HOLDER_CARDS)
    assert recall_ids(data_dir, MASKING_DONE) == ["quintal-report-masking"]
    long = explain(
        data_dir,
        status_report(
            MASKING_DONE, "Please check whether the new gizmo drawer is ready for the demo today."
        ),
    )
    assert long["envelope"]["long_prompt"] and not long["envelope"]["multi_task"]
    assert [m["id"] for m in long["matches"]] == ["gizmo-drawer-browser-check"]
    rows = {c["id"]: c for c in long["diagnostics"]["candidates"]}
    masking = rows["quintal-report-masking"]
    assert masking["bm25f_rank"] == masking["evidence_rank"] == 1
    assert "exact" in masking["families"]
    assert masking["rejection"] == "long_prompt_one_task"


LOOSE_OR_CLOSE_CARDS = {
    "gizmo-sync-wake": {
        "title": "Wake a gizmo before its quintal sync",
        "summary": "A quintal sync sent to a napping gizmo is dropped silently, and its heartbeat "
        "never comes back.",
        "criteria": {"use_when": ["planning gizmo maintenance"], "ignore_when": []},
        "recall": {"triggers": ["gizmo wake call"]},
    },
    "heartbeat-sync-alarm": {
        "title": "Page the owner when a heartbeat sync alarm fires",
        "summary": "Alarms routed to an unowned pager rota go unanswered over weekends; keep an "
        "owner, an escalation chain and a runbook link on every alarm definition. Review "
        "thresholds quarterly, silence flapping checks with an expiry date, record who "
        "acknowledged each incident, and test the paging path after every vendor change so "
        "a broken integration is found during office hours rather than at night.",
        "criteria": {"use_when": ["defining alarms"], "ignore_when": []},
        "recall": {"triggers": ["zorble pager"]},
    },
}


def test_a_loose_anchor_gives_way_to_a_close_description(data_dir: Path) -> None:
    """Two readings of one task: a card held only by a phrase said apart loses to the card the
    prompt describes closely, though its evidence adds up to more."""
    write_library(data_dir, LOOSE_OR_CLOSE_CARDS)
    doc = explain(
        data_dir,
        "Every quintal sync to a napping gizmo is dropped silently over the weekend, the pager "
        "of the zorble owner stays quiet, and the heartbeat never comes back.",
    )
    assert [m["id"] for m in doc["matches"]] == ["gizmo-sync-wake"]
    rows = {c["id"]: c for c in doc["diagnostics"]["candidates"]}
    alarm = rows["heartbeat-sync-alarm"]
    assert alarm["loose_anchor"] and alarm["score"] > rows["gizmo-sync-wake"]["score"]
    assert alarm["rejection"] == "weaker_reading_of_one_task"


def test_a_loose_anchor_sets_no_bar_for_a_closely_described_card(data_dir: Path) -> None:
    """A card held by a loose anchor scores high on its cover; the card the prompt describes
    closely is not measured against that score (the relative floor), and takes the task."""
    write_library(data_dir, LOOSE_OR_CLOSE_CARDS)
    doc = explain(
        data_dir,
        "A sync to the napping gizmo is dropped silently over the weekend, the pager of the "
        "zorble owner stays quiet, and the heartbeat never comes back.",
    )
    assert [m["id"] for m in doc["matches"]] == ["gizmo-sync-wake"]
    rows = {c["id"]: c for c in doc["diagnostics"]["candidates"]}
    alarm, wake = rows["heartbeat-sync-alarm"], rows["gizmo-sync-wake"]
    assert alarm["loose_anchor"] and wake["score"] < alarm["score"] * RELATIVE_FLOOR


GAUGE_ROUTINE = (
    "calibrate it against a dipstick each season, log the offset, replace the float when the "
    "offset grows past a centimetre, and keep the spare parts list next to the pump room door."
)


def write_sump_cards(
    data_dir: Path, valve_summary: str, gauge_summary: str, gauge_use_when: str, gauge_trigger: str
) -> None:
    """Two lessons of one pump room: cool the valve before draining, calibrate the gauge."""
    write_library(
        data_dir,
        {
            "brindle-valve-cooldown": {
                "title": "Let the brindle valve cool first",
                "summary": valve_summary,
                "criteria": {"use_when": ["servicing the sump"], "ignore_when": []},
                "recall": {"triggers": ["cooldown interlock"]},
            },
            "sump-gauge-calibration": {
                "title": "Calibrate the sump gauge every season",
                "summary": gauge_summary,
                "criteria": {"use_when": [gauge_use_when], "ignore_when": []},
                "recall": {"triggers": [gauge_trigger]},
            },
        },
    )


def valve_reading_wins(data_dir: Path, prompt: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The gauge and valve cards' explain rows for a prompt that the valve card alone reads,
    the gauge card losing to it as a weaker reading of the one task."""
    doc = explain(data_dir, prompt)
    assert [m["id"] for m in doc["matches"]] == ["brindle-valve-cooldown"]
    rows = {c["id"]: c for c in doc["diagnostics"]["candidates"]}
    gauge, valve = rows["sump-gauge-calibration"], rows["brindle-valve-cooldown"]
    assert gauge["rejection"] == "weaker_reading_of_one_task"
    return gauge, valve


def test_of_two_readings_the_closer_description_wins_past_its_cap(data_dir: Path) -> None:
    """Both descriptions match at full strength; a one-word trigger adds to the farther one. The
    description twice as close is the better reading: its cosine counts past the cap here."""
    write_sump_cards(
        data_dir,
        "Draining the sump while the brindle valve is hot cracks its seal.",
        "A drifting gauge reads the sump level wrong for months; " + GAUGE_ROUTINE,
        "reading gauges",
        "gasket",
    )
    gauge, valve = valve_reading_wins(
        data_dir,
        "We drained the sump while the brindle valve was hot; the seal and the gasket cracked "
        "and the level reads wrong.",
    )
    assert gauge["score"] > valve["score"]
    assert "cosine 0.57" in overlap_detail(valve) and "cosine 0.31" in overlap_detail(gauge)


def test_two_descriptions_at_their_cap_are_told_apart_by_their_cosines(data_dir: Path) -> None:
    """Two cards met by their descriptions alone, both at full strength: in a short prompt of
    one task, the closer description reads it, where equal evidence would keep both."""
    write_sump_cards(
        data_dir,
        "Draining the sump while the brindle valve is hot cracks its seal; wait an hour, open "
        "the vent, check the pressure and write the time in the pump log.",
        "A drifting gauge reads the sump level wrong for months when the valve is hot; "
        + GAUGE_ROUTINE,
        "servicing instruments",
        "dipstick offset",
    )
    gauge, valve = valve_reading_wins(
        data_dir,
        "We drained the sump while the brindle valve was hot, the seal cracked and the gauge "
        "reads the level wrong.",
    )
    assert gauge["evidence"][0]["strength"] == valve["evidence"][0]["strength"] == DESCRIPTION_MAX
    assert "cosine 0.38" in overlap_detail(valve) and "cosine 0.32" in overlap_detail(gauge)


# Only the rule names a presigned URL on the first card; the second card's summary indexes it.
RULE_CARDS = {
    "short-lived-document-links": {
        "title": "Share documents through short-lived links",
        "summary": "Links to client documents must stop working soon after they are sent.",
        "criteria": {"use_when": ["sharing documents outside the firm"], "ignore_when": []},
        "recall": {"triggers": ["document sharing"]},
        "rule": "Issue a presigned URL that expires within minutes, after checking access.",
    },
    "private-buckets": {
        "title": "Keep storage buckets private",
        "summary": "A public bucket exposes every file; serve files through a presigned URL.",
        "criteria": {"use_when": ["creating a bucket"], "ignore_when": []},
        "recall": {"triggers": ["bucket policy"]},
        "rule": "Block public access on every bucket.",
    },
}


def test_the_concepts_a_rule_names_are_part_of_its_card_description(data_dir: Path) -> None:
    """A Chinese prompt naming a presigned link meets the English card whose rule says it."""
    write_library(data_dir, RULE_CARDS)
    doc = explain(data_dir, "发给客户的预签名链接三个月后还能打开，帮我改一下。")
    assert [m["id"] for m in doc["matches"]] == ["short-lived-document-links"]
    rows = {c["id"]: c for c in doc["diagnostics"]["candidates"]}
    assert rows["short-lived-document-links"]["families"] == ["overlap"]
    # The bucket card shares the presigned link too, but the links card shares it and more: the
    # bucket card is its narrower reading.
    assert rows["private-buckets"]["rejection"] == "subsumed_by_broader_match"


CERT_CARD = {
    "title": "Alert on certificate expiry",
    "summary": "A TLS certificate that expires unnoticed takes the whole site down, usually on a "
    "weekend.",
    "criteria": {"use_when": ["renewing TLS certificates by hand"], "ignore_when": []},
    "recall": {"triggers": ["certificate expiry alert"]},
}
THREE_READINGS = (
    RETRIES + "Also, debug logging on every request fills the disk and slows everything. "
    "A TLS certificate that expired unnoticed took the whole site down on a weekend."
)


@pytest.mark.parametrize(
    ("opening", "two_tasks", "expected", "cert_rejection"),
    [
        ("Two things. ", True, ["disk-full-logs", "retry-budget"], "weaker_reading_of_one_task"),
        ("Three things. ", False, ["cert-expiry", "disk-full-logs", "retry-budget"], ""),
        ("", False, ["disk-full-logs", "retry-budget"], "weaker_reading_of_one_task"),
    ],
    ids=["two-counted", "three-counted", "chained-by-also"],
)
def test_a_prompt_counting_two_tasks_returns_two_unanchored_cards(
    data_dir: Path, opening: str, two_tasks: bool, expected: list[str], cert_rejection: str
) -> None:
    """Three unanchored readings, "Also" opening the second sentence: it cuts the prompt into two
    tasks, and the third sentence belongs to the second one, whose weaker reading gives way. A
    prompt counting three tasks is not cut into two: each sentence is a task of its own."""
    write_library(data_dir, {**CONTEXT_CARDS, "cert-expiry": CERT_CARD})
    doc = explain(data_dir, opening + THREE_READINGS)
    assert doc["envelope"]["multi_task"]
    assert sorted(m["id"] for m in doc["matches"]) == expected
    rows = {c["id"]: c for c in doc["diagnostics"]["candidates"]}
    assert not any(row["strong_anchor"] for row in rows.values())
    assert rows["cert-expiry"]["rejection"] == cert_rejection
    assert envelope_of(opening + THREE_READINGS).two_tasks is two_tasks


@pytest.mark.parametrize(
    ("prompt", "two_tasks"),
    [
        ("Two things: bump the pin. Then fix the flaky test.", True),
        ("1) bump the pin; 2) fix the flaky test", True),
        ("一是升级依赖；二是修复测试", True),
        ("这周：① 升级依赖；② 修复不稳定的测试。", True),
        ("Three things: bump the pin, fix the flaky test, and tag it.", False),
        ("1) bump the pin; 2) fix the flaky test; 3) tag the release", False),
        ("一是升级依赖；二是修复测试；三是打 tag", False),
        ("① 升级依赖 ② 修复测试 ③ 打 tag", False),
        ("Please (a) bump the pin, (b) fix the flaky test and (c) tag it.", False),
        # One cue cutting a prompt of one or two sentences in two: two tasks.
        ("Bump the pin, then fix the flaky test.", True),
        ("升级一下依赖；顺便把那个不稳定的测试修了。", True),
        # A longer chain may hold more matters than it has cues.
        (
            "The retries pile up on the upstream. Also the debug logs fill the disk. "
            "The certificate expired unnoticed last weekend.",
            False,
        ),
        ("Bump the pin, then fix the flaky test, and also tag the release.", False),
        ("Two replicas crashed after the deploy.", False),
    ],
    ids=[
        "two-counted",
        "two-numbered",
        "zh-two-numbered",
        "zh-two-circled",
        "three-counted",
        "three-numbered",
        "zh-three-numbered",
        "zh-three-circled",
        "three-lettered",
        "chained",
        "zh-chained",
        "chained-three-sentences",
        "chained-twice",
        "one",
    ],
)
def test_a_prompt_says_when_it_counts_two_tasks(prompt: str, two_tasks: bool) -> None:
    assert envelope_of(prompt).two_tasks is two_tasks


@pytest.mark.parametrize(
    ("prompt", "multi_task"),
    [
        (
            "Two things for today. The import job runs out of memory on the March file and "
            "nobody knows why. Also the export drops the header row on every run. Can you fix "
            "both?",
            True,
        ),
        # The count sits in a background sentence: it counts the meeting's matters.
        (
            "Notes from the quarterly review: a few things came up, each a separate ticket. The "
            "import job runs out of memory on the March file and nobody knows why. Also the "
            "logs are noisy. Can you look at the import?",
            False,
        ),
        # So does a list in one: the meeting's matters are numbered, the request is not.
        (
            "Notes from the sync, for context: (1) the dashboards are live, (2) the billing "
            "team wants help next sprint, (3) the import incident, which is what I need you "
            "on. The import job runs out of memory on the March file. It started after the "
            "upgrade. Can you look at it?",
            False,
        ),
        (
            "Two things for today, both in the import service. 1) The job runs out of memory on "
            "the March file and nobody knows why. 2) The export drops the header row on every "
            "run. Can you fix both?",
            True,
        ),
    ],
    ids=["counted-in-the-request", "counted-in-background", "numbered-in-background", "numbered"],
)
def test_a_count_in_a_background_sentence_counts_no_tasks(prompt: str, multi_task: bool) -> None:
    env = envelope_of(prompt)
    assert env.long_prompt
    assert env.multi_task is multi_task


def test_a_second_yibian_after_a_comma_announces_a_second_task() -> None:
    """一边 X，一边 Y does two things at once; 一边写代码一边听歌 tells how one thing is done."""
    assert envelope_of("一边给内测用户发新版，一边把离线表单丢失的 bug 修掉。").multi_task
    assert not envelope_of("一边写代码一边听歌，帮我把导出按钮加上。").multi_task


@pytest.mark.parametrize(
    ("prompt", "said", "unsaid"),
    [
        # A class the user names says what the prompt is about, in a dotted name or alone.
        ("Why does `LedgerExporter.flush` drop rows?", {"ledger", "exporter"}, set()),
        ("ParcelTracker polls too often", {"parcel", "tracker"}, set()),
        # A name the lexicon knows stays whole: `github` never yields `git`.
        ("Research GitHub issues about retrieval", {"github"}, {"git", "hub"}),
        # Only two capitalised words make a pair: not an acronym, not a letter and a digit.
        ("Bump the S3 client in HTTPServer", {"s3", "httpserver"}, {"s", "http", "server"}),
    ],
    ids=["dotted", "alone", "known-name", "no-pair"],
)
def test_a_prompt_reads_a_two_word_class_name_as_its_words(
    prompt: str, said: set[str], unsaid: set[str]
) -> None:
    env = envelope_of(prompt)
    segment_terms = set().union(*(s.terms for s in env.segments))
    for terms in (set(env.terms), segment_terms):
        assert said <= terms
        assert not unsaid & terms


# Cards whose phrases share no character between the scripts: 凭证轮换 is 憑證輪換, 读写分离 is
# 讀寫分離, 开发环境 is 開發環境.
SCRIPT_CARDS = {
    "credential-rotation": {
        "title": "凭证轮换要先发新凭证再撤旧凭证",
        "summary": "轮换时新旧凭证并存一段时间，所有服务切到新凭证以后再撤销旧的。",
        "criteria": {"use_when": ["凭证轮换"], "ignore_when": []},
        "recall": {"triggers": ["凭证轮换"]},
    },
    "read-write-split": {
        "title": "讀寫分離後注意主從延遲",
        "summary": "寫入後立刻讀取要走主庫，否則會讀到從庫的舊數據。",
        "criteria": {"use_when": ["讀寫分離"], "ignore_when": ["開發環境"]},
        "recall": {"triggers": ["讀寫分離"]},
    },
}


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("幫我安排一次憑證輪換。", ["credential-rotation"]),
        ("帮我给订单库做读写分离。", ["read-write-split"]),
    ],
    ids=["traditional-prompt", "traditional-card"],
)
def test_traditional_and_simplified_chinese_meet(
    data_dir: Path, prompt: str, expected: list[str]
) -> None:
    write_library(data_dir, SCRIPT_CARDS)
    assert recall_ids(data_dir, prompt) == expected


@pytest.mark.parametrize(
    ("prompt", "concept"),
    [("詳情頁快取還是舊的。", "cache"), ("伺服器的記憶體快滿了。", "memory")],
    ids=["cache", "memory"],
)
def test_taiwan_usage_names_the_lexicon_concepts(prompt: str, concept: str) -> None:
    """Taiwan's words (快取 for 缓存, 記憶體 for 内存) are terms of the mainland word's concept."""
    assert concept in envelope_of(prompt).concepts


def test_an_ignore_phrase_in_traditional_rejects_a_simplified_prompt(data_dir: Path) -> None:
    write_library(data_dir, SCRIPT_CARDS)
    rows = candidate_rows(data_dir, "帮我在开发环境里给订单库做读写分离。")
    assert rows["read-write-split"]["rejection"] == "ignore_rule"


TIMEOUT_AND_CONSUMER_CARDS = {
    "http-timeouts": {
        "title": "Set timeouts on outbound HTTP calls",
        "summary": "An HTTP call without a timeout can hang a worker forever when the other side "
        "stalls; set connect and read timeouts.",
        "criteria": {
            "use_when": [
                "calling a third-party API from a request handler",
                "workers hang waiting on a slow upstream service",
            ],
            "ignore_when": [],
        },
        "recall": {"triggers": ["request timeout", "upstream hangs"]},
    },
    "idempotent-consumer": {
        "title": "Make queue consumers idempotent",
        "summary": "Brokers deliver a message more than once; a consumer that charges or ships on "
        "every delivery does it twice.",
        "criteria": {"use_when": ["a message is redelivered after a crash"], "ignore_when": []},
        "recall": {"triggers": ["idempotent consumer", "exactly once"]},
    },
}


@pytest.mark.parametrize(
    "template",
    ["First, {first}. Second, {second}.", "{first}, and also {second}."],
    ids=["two-sentences", "one-sentence"],
)
def test_each_task_of_a_prompt_is_measured_against_its_own_words(
    data_dir: Path, template: str
) -> None:
    """A first task's card shares as much with its sentence, or its part of one sentence, as when
    it stands alone: the second task's words do not dilute it."""
    write_library(data_dir, TIMEOUT_AND_CONSUMER_CARDS)
    first = "the checkout call to the shipping API hangs forever sometimes"
    second = "the Kafka consumer charges the card twice when a message is redelivered"
    alone = explain(data_dir, first.capitalize() + ".")["diagnostics"]["candidates"]
    doc = explain(data_dir, template.format(first=first, second=second).capitalize())
    both = {c["id"]: c for c in doc["diagnostics"]["candidates"]}
    assert doc["envelope"]["multi_task"]
    assert [m["id"] for m in doc["matches"]] == ["idempotent-consumer", "http-timeouts"]
    timeouts = next(c for c in alone if c["id"] == "http-timeouts")
    assert both["http-timeouts"]["evidence"] == timeouts["evidence"]


PROJECT_SUITE = Path(__file__).resolve().parents[1] / "evals" / "suites" / "dev.json"


@pytest.mark.parametrize(
    "prompt",
    [
        "帮我把 new_checkout 这个开关相关的代码删掉，已经全量三周了。"
        "删完跑测试一堆 jest 快照对不上，直接 -u 全部更新掉可以吗？",
        "new_checkout 开关全量三周了，把相关代码删掉。"
        "删完跑测试一堆 jest 快照对不上，-u 全部更新掉可以吗？",
    ],
    ids=["asks-first", "states-first"],
)
def test_two_cards_each_meeting_a_whole_phrase_in_a_short_prompt_are_two_tasks(
    data_dir: Path, prompt: str
) -> None:
    """A short prompt that announces no second task still holds two when each of two cards
    met one of its own phrases whole, in different sentences: neither reads the other's task."""
    write_suite_library(data_dir, load_suite(PROJECT_SUITE).cards)
    doc = explain(data_dir, prompt)
    assert not doc["envelope"]["multi_task"]
    rows = {c["id"]: c for c in doc["diagnostics"]["candidates"]}
    for card in ("stale-flag-cleanup", "snapshot-update-review"):
        assert not rows[card]["strong_anchor"]
        assert any(
            e["family"] == "coverage" and e["strength"] >= 0.65 for e in rows[card]["evidence"]
        )
    assert sorted(m["id"] for m in doc["matches"]) == [
        "snapshot-update-review",
        "stale-flag-cleanup",
    ]


SPLIT_AND_GATE_CARDS = {
    "split-service": {
        "title": "Split a service that does two jobs",
        "summary": "When one payment service handles orders and reconciliation, split it by "
        "responsibility and fix the bug at its root instead of adding special cases; check "
        "the result before release.",
        "criteria": {"use_when": ["a payment service with two responsibilities"]},
        "recall": {"triggers": ["split by responsibility"]},
    },
    "release-gate": {
        "title": "Final check before release",
        "summary": "Before release, give a verdict with evidence.",
        "criteria": {"use_when": ["deciding whether work can ship"]},
        "recall": {"triggers": ["check before release"]},
    },
}


def test_a_card_of_another_announced_task_is_not_a_narrower_reading(data_dir: Path) -> None:
    """A card explaining a subset of a broader card's words is its narrower reading only
    within one task: in a prompt announcing two, it may be the other task's card."""
    write_library(data_dir, SPLIT_AND_GATE_CARDS)
    one = (
        "Split the payment service by responsibility and fix the bug at its root, "
        "check before release"
    )
    doc = explain(data_dir, one)
    rows = {c["id"]: c for c in doc["diagnostics"]["candidates"]}
    assert rows["release-gate"]["rejection"] == "subsumed_by_broader_match"
    doc = explain(
        data_dir,
        one.replace("Split", "Two things: first, split", 1).replace(
            ", check", "; second, check", 1
        ),
    )
    assert doc["envelope"]["multi_task"]
    assert sorted(m["id"] for m in doc["matches"]) == ["release-gate", "split-service"]


@pytest.mark.parametrize(
    ("prompt", "multi_task"),
    [
        ("Two things: bump the lodash pin, and fix the flaky login test.", True),
        ("Rename the column and backfill it in batches. Do both today.", True),
        ("另外，把登录页的报错也修一下，日志里别打印手机号。", True),
        ("Update the docs and the changelog for the release.", False),
        ("Both replicas crashed", False),
        ("Two things. Bump the version. Then tag it. Also fix the docs.", True),
        (
            "Some background first. We run both services on one cluster. The team is small. "
            "Logs go to Loki. The real problem: the deploy hangs, and the health check fails.",
            False,
        ),
        (
            "Some background first. We run two services on one cluster. The team is small. "
            "1) The deploy hangs; find out why. 2) The health check fails on the replica.",
            True,
        ),
        ("1、帮我把日志脱敏；2、把 lodash 升到 4.17.21，然后跑测试", True),
        ("Bump v1.2 to v2.0 and fix 1.5s latency", False),
        (
            "First, the homepage jumps while the hero image loads, so fix the markup there. "
            "Second, a 2GB video got committed last week; how do we get rid of it properly?",
            True,
        ),
        ("一是把老数据的等级字段补上；二是 hotfix 分支推不上去了，怎么处理", True),
        ("First run the tests and push it; we need a second pair of eyes on it.", False),
        ("Bump the lodash pin, then rerun the flaky login test.", True),
        ("先把日志里的手机号脱敏，然后把 lodash 升到 4.17.21", True),
        ("If the cache is cold then the first request is slow", False),
        (
            "Two tickets for you. We run both services on one cluster. The team is small. "
            "Logs go to Loki. The deploy hangs, and the health check fails on the replica.",
            True,
        ),
        (
            "Some background first. We run both services on one cluster. The team is small. "
            "Logs go to Loki. Also, the deploy hangs, and the health check fails on a replica.",
            False,
        ),
        ("需求两个：A) 后台支持上传主题包；B) 路由改成 loader 预取数据", True),
        ("Please (a) add the webhook endpoint and (b) fix the refund amount type.", True),
        ("Why does f(a) call g(b) twice, and how do I stop it?", False),
        (
            "Two CI things. We run our services on one cluster in Frankfurt, and the team is "
            "small. Logs go to Loki. The deploy hangs, and the health check fails on a replica.",
            True,
        ),
        (
            "Two small security tickets. We run our services on one cluster in Frankfurt. Logs "
            "go to Loki. The session cookie is readable from JS, and the login redirect is open.",
            True,
        ),
        ("We spent two hours on these things, and the build still fails.", False),
        ("The drawer traps no focus. Its close icon has no label. Please implement both.", True),
        (
            "Two quick ones. We run our services on one cluster in Frankfurt. Logs go to Loki. "
            "Should the list endpoint return a bare array? Is verify=False fine for now?",
            True,
        ),
        (
            "The CI bill doubled this month. We run our services on one cluster. Logs go to "
            "Loki. Jobs hang until they are killed, and old preview stacks stay up. Fix both.",
            True,
        ),
        ("日报有两个查询很慢：一个是按日期过滤的，另一个是按渠道汇总的。", True),
        ("其中一个服务挂了，日志里什么也没有", False),
        ("监听器重启后会重复处理消息，帮忙加个去重；还有，仓库的截单时间算错了，也修一下。", True),
        ("这个服务还有问题，重启以后还是会重复处理消息", False),
        ("Put the reports job behind a flag. Also fix the export button.", True),
        ("The export fails on Safari. It also fails on Firefox.", False),
        ("Resize the avatar thumbnails on upload. Then purge the old ones from the bucket.", True),
        (
            "Two unrelated bits for the app. The contract needs new prices from March. The route "
            "optimizer needs a kill switch.",
            True,
        ),
        ("Both replicas restarted after the deploy, and the cache hit rate dropped.", False),
        ("Weekend call-outs are billed at weekday rates, fix that. And cap the travel fee.", True),
        (
            "Make the signup form usable with the keyboard alone. When you're done, run the "
            "end-to-end suite and send me the report.",
            True,
        ),
        (
            "Cap the nightly export at 10k rows. Unrelated, rename the audit table's owner column.",
            True,
        ),
        ("Speed up the orders query. While you're in there, drop the unused helper.", True),
        ("Rotate the signing key this week. Before that, pin the old key in the verifier.", True),
        ("Add a retry to the mailer. Independently, the invoice total rounds the wrong way.", True),
        ("Task 1: add the cancelled_at column. Task 2: show it in the admin filter.", True),
        ("任务一：给导出加上币种列。任务二：把登录页的报错文案改一下。", True),
        ("两个 task：第一个，把批量导入改成分批提交；第二个，给导入页加个进度条。", True),
        ("把导出的列补齐，写完以后在浏览器里点一遍确认。", True),
        ("发票抬头错了，税号也少了一位，两个都要改。", True),
        ("客服和物流各一件：客服的退款要记原因；物流要按时段出配送单。", True),
        ("- The export drops the VAT column.\n- The login page forgets the remember-me box.", True),
        ("分词器换掉，改完之后几百万条数据都得重新导一遍，线上还不能停。", False),
        ("订阅买完之后没有做服务端校验，帮我补上。", False),
        ("The flag is on for everyone - we can remove it, and the docs too.", False),
        ("- The export drops the VAT column, and the total is wrong.", False),
    ],
    ids=[
        "two-things",
        "do-both",
        "zh-another",
        "one-task-with-and",
        "one-clause",
        "short-sentences",
        "long-prompt",
        "long-numbered",
        "zh-numbered",
        "versions-are-no-list",
        "first-second",
        "yi-shi-er-shi",
        "first-as-a-word",
        "then",
        "zh-then",
        "if-then-one-clause",
        "long-counted",
        "long-also-is-background",
        "zh-lettered",
        "en-lettered",
        "call-arguments-are-no-list",
        "long-counted-with-a-word-between",
        "long-counted-with-two-words-between",
        "count-of-something-else",
        "implement-both",
        "long-counted-by-a-pronoun",
        "long-with-fix-both",
        "zh-one-and-the-other",
        "zh-one-of-them-is-no-list",
        "zh-also-comma",
        "zh-still-is-no-cue",
        "sentence-opening-also",
        "also-inside-a-sentence",
        "sentence-opening-then",
        "two-unrelated-bits",
        "both-of-two-things",
        "sentence-opening-and",
        "when-you-are-done",
        "unrelated-comma",
        "while-you-are-in-there",
        "before-that",
        "independently",
        "task-one-task-two",
        "zh-task-one-task-two",
        "zh-the-first-one-the-second-one",
        "zh-once-written",
        "zh-both-to-change",
        "zh-one-each",
        "bullets",
        "zh-after-changing-is-no-cue",
        "zh-after-buying-is-no-cue",
        "a-dash-inside-a-line-is-no-bullet",
        "one-bullet-is-no-list",
    ],
)
def test_a_prompt_announcing_or_numbering_several_tasks_is_read_as_several(
    prompt: str, multi_task: bool
) -> None:
    env = envelope_of(prompt)
    assert env.multi_task is multi_task


@pytest.mark.parametrize(("bullets", "two_tasks"), [(2, True), (3, False)], ids=["two", "three"])
def test_bullets_opening_lines_cut_a_prompt_into_its_items(bullets: int, two_tasks: bool) -> None:
    # The comma inside the first item cuts nothing: the items are the tasks.
    items = [
        "The export drops the VAT column, and the total is wrong.",
        "The login page forgets the remember-me box.",
        "Cache the rates for an hour.",
    ][:bullets]
    env = envelope_of("Please look at these:\n" + "".join(f"- {item}\n" for item in items))
    assert env.multi_task
    assert len(env.clauses) == bullets
    assert env.two_tasks is two_tasks


def test_bullets_under_numbered_items_are_their_details() -> None:
    env = envelope_of(
        "1) The export drops the VAT column:\n- on the March file\n- and on the April file\n"
        "2) The login page forgets the remember-me box."
    )
    assert env.two_tasks
    assert len(env.clauses) == 2


def workflow_card(title: str, trigger: str, paths: list[str]) -> dict[str, Any]:
    return {
        "title": title,
        "summary": f"{title} in every pipeline.",
        "criteria": {"use_when": [f"editing {trigger}"], "ignore_when": []},
        "recall": {"triggers": [trigger]},
        "paths": paths,
    }


@pytest.mark.parametrize(
    ("prompt", "matched", "anchored"),
    [
        # Both workflow cards' globs match: the file is evidence for each, an anchor for neither.
        ("Fix .github/workflows/deploy.yml", {"ci-concurrency", "ci-pin-sha"}, set()),
        # Only one card's glob matches this file: it anchors that card.
        ("Fix .github/workflows/release.yml", {"ci-pin-sha"}, {"ci-pin-sha"}),
    ],
)
def test_a_file_that_several_cards_globs_match_anchors_none_of_them(
    data_dir: Path, prompt: str, matched: set[str], anchored: set[str]
) -> None:
    write_library(
        data_dir,
        {
            "ci-concurrency": workflow_card(
                "Serialise deploys", "deploy concurrency", [".github/workflows/deploy*.yml"]
            ),
            "ci-pin-sha": workflow_card(
                "Pin actions to a commit", "pinned action", [".github/workflows/*.yml"]
            ),
        },
    )
    rows = explain(data_dir, prompt)["diagnostics"]["candidates"]
    assert {r["id"] for r in rows if "technical" in r["families"]} == matched
    assert {r["id"] for r in rows if r["strong_anchor"]} == anchored


def plain_card(
    title: str, summary: str, triggers: list[str], topic: str, use_when: list[str]
) -> dict[str, Any]:
    """A card of the common fields only, with no `ignore_when`."""
    return {
        "title": title,
        "summary": summary,
        "criteria": {"use_when": use_when, "ignore_when": []},
        "recall": {"triggers": triggers, "topics": [topic]},
    }


def test_a_weak_second_family_still_counts_above_a_lone_common_word(data_dir: Path) -> None:
    write_library(
        data_dir,
        {
            "sso-clock-skew": plain_card(
                "SAML 断言作废先查时钟偏差",
                "SAML 断言带有效期，服务器时钟不准时 IdP 签发的断言会被判定为尚未生效或已过期；"
                "先检查各节点 NTP 同步，再看负载均衡后面哪几台机器的时间漂移最大，必要时给校验"
                "加上几十秒的容差，并在监控里加一条时钟偏移告警，排查时记录每台机器的时间，再通知值班同事。",
                ["SAML", "时钟偏差", "NotBefore"],
                "identity",
                ["SAML", "时钟偏差", "NotBefore"],
            ),
            "cache-on-write": plain_card(
                "Invalidate the cache on write",
                "After a write, delete the cached entry, or a read fails to see fresh data.",
                ["stale cache"],
                "cache",
                ["readers see old values"],
            ),
            "flaky-quarantine": plain_card(
                "Quarantine flaky tests",
                "A test that flakes now and then on CI is quarantined with an owner.",
                ["flaky test"],
                "testing",
                ["a test is intermittent"],
            ),
            "index-concurrently": plain_card(
                "Build indexes concurrently",
                "On a large table, CREATE INDEX locks writes; use CONCURRENTLY.",
                ["create index concurrently"],
                "database",
                ["adding an index to a big table"],
            ),
            "autoscaling-warmup": plain_card(
                "Warm new replicas before traffic",
                "New servers in an autoscaling group serve slow first requests; warm them up "
                "before they receive traffic.",
                ["warm up"],
                "scaling",
                ["first requests on new servers are slow"],
            ),
        },
    )
    prompt = "Single sign-on fails for some staff on one new server and we added an alert on CI."
    row = next(
        r
        for r in explain(data_dir, prompt)["diagnostics"]["candidates"]
        if r["id"] == "sso-clock-skew"
    )
    strengths = {e["family"]: e["strength"] for e in row["evidence"]}
    # The overlap is weak (just above the family minimum), the concept a family of its own.
    assert FAMILY_MIN_STRENGTH <= strengths["overlap"] < FAMILY_MIN_STRENGTH + 0.1
    assert strengths["concepts"] >= 0.3
    assert row["rejection"] == ""


SECOND_TASK_CARDS = {
    "changelog-line": plain_card(
        "Every user-visible change gets a changelog line",
        "Keep the changelog current: each user-visible change adds a line under Unreleased.",
        ["changelog"],
        "housekeeping",
        ["a user-visible change ships"],
    ),
    "restore-drill": plain_card(
        "A backup counts once it restores",
        "Set up backups together with a restore drill into a scratch database.",
        ["daily backup", "restore drill"],
        "database",
        ["setting up database backups"],
    ),
}


@pytest.mark.parametrize(
    ("opening", "expected"),
    [
        ("Two things: set", ["restore-drill", "changelog-line"]),
        # Not announced as two tasks: the synonym and its echo stay one piece of evidence.
        ("Set", ["restore-drill"]),
    ],
    ids=["two-tasks", "one-request"],
)
def test_a_second_task_takes_its_best_card_one_family_short(
    data_dir: Path, opening: str, expected: list[str]
) -> None:
    write_library(data_dir, SECOND_TASK_CARDS)
    prompt = (
        f"{opening} up a daily backup of the orders database, and write the release notes "
        "for the new export feature."
    )
    assert recall_ids(data_dir, prompt) == expected
    rows = {row["id"]: row for row in explain(data_dir, prompt)["diagnostics"]["candidates"]}
    assert rows["changelog-line"]["score"] >= SECOND_TASK_SCORE


@pytest.mark.parametrize("background_policy", ["should", "must"])
def test_a_long_prompt_is_one_task_among_background(data_dir: Path, background_policy: str) -> None:
    """A second unanchored card found in a long prompt's background is not a second task.

    A `must` card comes first among returned cards, but it does not take the one task from a
    card ranked above it.
    """
    plural = TWO_TASK_CARDS["icu-plural-messages"]
    recall = {**plural["recall"], "policy": background_policy}
    write_library(data_dir, {**TWO_TASK_CARDS, "icu-plural-messages": {**plural, "recall": recall}})
    icons = "the settings gear icon button has no visible text and no aria-label for screen readers"
    plurals = "the cart total sentence is glued together from translated pieces"
    short = explain(data_dir, f"{plurals.capitalize()}, and {icons}.")
    assert not short["envelope"]["long_prompt"]
    assert sorted(m["id"] for m in short["matches"]) == ["icon-button-name", "icu-plural-messages"]
    long = explain(
        data_dir,
        "Some context first. Our web shop ships in nine languages and the team is small. "
        f"Last month we noticed {plurals}, which we plan to fix later. "
        f"Marketing also wants a new banner. Right now {icons}, please fix it.",
    )
    assert long["envelope"]["long_prompt"]
    assert [m["id"] for m in long["matches"]] == ["icon-button-name"]
    rows = {c["id"]: c for c in long["diagnostics"]["candidates"]}
    assert rows["icu-plural-messages"]["rejection"] == "long_prompt_one_task"
    numbered = explain(
        data_dir,
        "Some context first. Our web shop ships in nine languages and the team is small. "
        f"Marketing also wants a new banner. 1) In the cart, {plurals}. 2) Right now {icons}.",
    )
    assert numbered["envelope"]["long_prompt"] and numbered["envelope"]["multi_task"]
    assert sorted(m["id"] for m in numbered["matches"]) == [
        "icon-button-name",
        "icu-plural-messages",
    ]


FORCE_PUSH = "Force-push to main; the platform is waiting."
UI_FIX = "Fix the button on the settings page; the platform is waiting."


@pytest.mark.parametrize(
    ("hints", "prompt", "admitted"),
    [
        (["force_push"], FORCE_PUSH, True),
        ([], FORCE_PUSH, False),
        # A broad signal (any UI word fires it) is no second witness.
        (["ui_surface"], UI_FIX, False),
    ],
    ids=["specific-hint", "no-hint", "broad-hint"],
)
def test_a_fired_specific_hint_and_one_shared_description_word_admit_together(
    data_dir: Path, hints: list[str], prompt: str, admitted: bool
) -> None:
    card = {
        "title": "Give the platform group a heads-up",
        "summary": "Other people build on that branch; tell them first.",
        "criteria": {"use_when": ["others build on the branch"], "ignore_when": []},
        "engine_hints": {"positive": hints},
        "recall": {"triggers": ["heads-up to the platform group"], "topics": ["teamwork"]},
    }
    write_library(data_dir, {"heads-up-first": card})
    doc = explain(data_dir, prompt)
    row = next(c for c in doc["diagnostics"]["candidates"] if c["id"] == "heads-up-first")
    assert set(hints) <= set(doc["envelope"]["signals"])
    assert ("heads-up-first" in [m["id"] for m in doc["matches"]]) is admitted
    assert ("overlap" in row["families"]) is admitted


@pytest.mark.parametrize(
    ("prompt", "excluded"),
    [
        ("No more design debate - now test it in a real browser", "no more design debate"),
        ("No more design debate — now test it in a real browser", "no more design debate"),
        ("不涉及数据迁移——只改前端样式", "不涉及数据迁移"),
        ("no schema change, only rename the field", "no schema change"),
        ("Use the built-in cache, no extra-large pages", "no extra-large pages"),
        ("no schema.sql change, only rename the field", "no schema.sql change"),
        ("no bump past python:3.12.4: pin it", "no bump past python:3.12.4"),
        ("This isn't a schema change, just rename the label", "isn't a schema change"),
        ("The ticket is not about speed: fix the copy", "not about speed"),
        (
            "Restyle the page; nothing about how totals are computed changes",
            "nothing about how totals are computed changes",
        ),
        # What follows 就能 is what happens; what follows 以外 is everything but the exception.
        ("不需要登录就能访问管理后台的接口", "不需要登录"),
        ("除了 Chrome 以外其他浏览器都白屏", "除了 chrome"),
        # "Don't touch X" leaves X out of the task; it is no lesson's prohibition.
        ("帮我把金额计算改对，另外别碰定价实验相关的代码", "别碰定价实验相关的代码"),
        ("Fix the acceptance path. Don't touch the ranking logic", "don't touch the ranking logic"),
        # Chinese names what a task is not about first: 跟 X 没关系 leaves X out.
        ("把报表导出改快一点，超时的请求要重试。跟登录没关系。", "跟登录没关系"),
        ("这个 bug 和缓存无关，是登录的问题", "和缓存无关"),
        # A colon ends the clause: full-width, or half-width beside a Han character.
        ("跟报表无关：给订单表加一个备注列", "跟报表无关"),
        ("先不动旧数据:只给订单表加一列", "不动旧数据"),
        ("this time no schema change：just fill users.region", "no schema change"),
        # What does not happen is not the matter: "nothing is printed twice".
        (
            "The label job stalls on one bad row; nothing is printed twice, it just stops",
            "nothing is printed twice",
        ),
    ],
)
def test_an_exclusion_ends_at_its_clause(prompt: str, excluded: str) -> None:
    env = envelope_of(prompt)
    assert [env.text[a:b].strip() for a, b in env.exclusion_spans] == [excluded]


@pytest.mark.parametrize(
    ("prompt", "excluded"),
    [
        # A closer leaves out the clause it ends, from the clause's first word.
        (
            "把界面文字抽出来。日期金额的格式这次不用管，另一个同事在做。",
            ["日期金额的格式这次不用管"],
        ),
        ("Fix the export. Royalties are out of scope.", ["royalties are out of scope"]),
        ("Redis 缓存先不管了，CI 的缓存要清掉", ["redis 缓存先不管"]),
        ("日志改成 JSON。告警规则不用改。", ["告警规则不用改"]),
        ("告警规则不用管\n其他照旧，把日志改成 JSON", ["告警规则不用管"]),
        # A closer with its object after it, or inside a longer word, closes nothing.
        ("你不用管这些，直接修登录的 bug", []),
        ("不用改代码，只改配置", []),
        ("这个接口不用管理员权限就能调，加上鉴权", []),
        # "这些都先不管" points back at sentences before; the background weighting reads those.
        ("移动端要加暗色主题。这些都先不管。真正的问题是日志对不上", []),
        ("前端在改版，但是这些都不用管，修登录的 bug", []),
    ],
)
def test_a_closer_leaves_out_the_clause_it_ends(prompt: str, excluded: list[str]) -> None:
    env = envelope_of(prompt)
    assert [env.text[a:b].strip(" 。,;.:") for a, b in env.exclusion_spans] == excluded


@pytest.mark.parametrize(
    ("prompt", "rejection"),
    [
        ("界面文字全部抽出来做成资源文件，日期金额的本地化格式也要处理。", "ignore_rule"),
        ("界面文字全部抽出来做成资源文件。日期金额的本地化格式这次不用管。", ""),
    ],
)
def test_an_ignore_phrase_in_a_clause_left_out_rejects_nothing(
    data_dir: Path, prompt: str, rejection: str
) -> None:
    card = way_back_card("界面文字抽到资源文件里，每种语言一份。", "资源文件")
    card["criteria"] = {"use_when": ["界面文字抽取"], "ignore_when": ["日期金额的本地化格式"]}
    write_library(data_dir, {"i18n-strings": card})
    assert candidate_rows(data_dir, prompt)["i18n-strings"]["rejection"] == rejection


@pytest.mark.parametrize(
    ("prompt", "defect"),
    [
        ("The checkout page is not loading after the deploy", "load"),
        ("The consumer isn't idempotent, so customers get charged twice", "§idempotency"),
        ("The migration was not backward compatible with the old pods", "§compatibility"),
        ("Users are not able to log in with SSO since this morning", "§login"),
        ("Without a timeout the worker hangs forever on the vendor API", "§hang"),
        ("Migrate the orders table without downtime", "§downtime"),
        ("No one reviewed the migration before it ran in prod", "§migration"),
        ("The cron job no longer runs after the upgrade", "§cron"),
        # An error message reports a symptom, quoted or not; "there is no" names a defect.
        ("Login fails with 'No valid session token'", "§session"),
        ("Every webhook fails with No signatures found for payload", "§signature"),
        ("The worker dies with no space left on device", "§disk_full"),
        ("There is no index on orders.customer_id", "§index"),
    ],
)
def test_a_defect_or_a_constraint_is_no_exclusion(prompt: str, defect: str) -> None:
    env = envelope_of(prompt)
    assert env.exclusion_spans == ()
    assert defect in env.terms


@pytest.mark.parametrize(
    ("prompt", "excluded", "force_push"),
    [
        ("看看布局是不是符合 DESIGN.md 的规范", [], False),  # an A-not-A question asks
        ("这不是布局问题，是接口超时", ["不是布局问题"], False),
        ("不是不能改，是先别改", ["不是不能改"], False),
        ("要不要强制推送到 main", [], True),
        ("不要强制推送到 main", [], False),  # a prohibition negates; it excludes nothing
        ("别的分支已经强制推送到 main 了", [], True),  # 别的 is "other", not "don't"
        ("特别是强制推送到 main 的时候", [], True),
        ("我删除了旧标签，然后强制推送到 main", [], True),  # 删除了 holds 除了 ("except")
        ("别强制推送到 main", [], False),
        ("make the force push a no-op on main", [], True),
        ("not only force push main but tag it", [], True),
        # What a thing "has no" is the defect to fix, not something the task leaves out.
        ("the branch has no upstream, so force push main", [], True),
        ("the button has no label and no alt text", ["no alt text"], False),
    ],
)
def test_an_a_not_a_question_or_a_false_friend_is_not_a_negation(
    prompt: str, excluded: list[str], force_push: bool
) -> None:
    env = envelope_of(prompt)
    assert [env.text[a:b].strip() for a, b in env.exclusion_spans] == excluded
    assert ("force_push" in env.fired) is force_push


@pytest.mark.parametrize(
    ("prompt", "admitted"),
    [
        ("zorbic quintal 鹦鹉", True),  # two words and a Han bigram: 2.5 units
        ("zorbic quintal 骆驼", False),  # two words: overlap alone is not enough
    ],
)
def test_a_close_description_admits_alone_from_two_and_a_half_units(
    data_dir: Path, prompt: str, admitted: bool
) -> None:
    row = lone_card(
        data_dir, "The zorbic quintal 鹦鹉 drifts when the gizmo naps.", "ceasefire", prompt
    )
    assert row["families"] == ["overlap"]
    assert (row["rejection"] == "") is admitted


# One garden rota in two languages: no concept of the lexicon names a gardener or a cucumber,
# so only their dictionary senses bridge the two.
GARDEN_EN = "GrowBot: the gardener waters the tomato and cucumber beds at noon every day."
GARDEN_ZH = "GrowBot：园丁每天中午给番茄和黄瓜浇水。"
GARDEN_PROMPT = "GrowBot: the gardener waters the tomatoes and cucumbers at noon every day"


def rota_card(title: str, summary: str, trigger: str) -> dict[str, Any]:
    return {"title": title, "summary": summary, "recall": {"triggers": [trigger]}}


def test_a_description_in_the_other_language_meets_through_the_dictionary(
    data_dir: Path,
) -> None:
    """A Chinese prompt meets an English card through its words' senses. (The shared name finds
    the card; alone it is too little to admit it.)"""
    row = lone_card(data_dir, GARDEN_EN, "ceasefire", "GrowBot 园丁每天中午给番茄和黄瓜浇水")
    assert overlap_detail(row).endswith("3 through glosses")
    assert row["rejection"] == ""


@pytest.mark.parametrize(
    ("prompt", "admitted"),
    [
        # The name and two words through the dictionary (half a word each) admit across
        # languages, where only concepts and glosses can meet ...
        ("GrowBot：记得提醒园丁去浇水", True),
        # ... while two words said in the card's own language are too little.
        ("GrowBot: remind the gardener, please", False),
    ],
)
def test_a_description_in_the_other_language_admits_on_less_shared_weight(
    data_dir: Path, prompt: str, admitted: bool
) -> None:
    row = lone_card(data_dir, GARDEN_EN, "ceasefire", prompt)
    assert overlap_detail(row).startswith("2 units")
    assert row["families"] == ["overlap"]
    assert (row["rejection"] == "") is admitted


def test_a_chinese_card_meets_an_english_prompt_through_its_glosses(data_dir: Path) -> None:
    """The other way round; a word weighs what it weighs in the library, so an English card
    that knows these words gives the Chinese card's glosses their weight."""
    cards = {
        "english": rota_card("Garden rota", GARDEN_EN, "rota"),
        "chinese": rota_card("菜园值班", GARDEN_ZH, "值班表"),
    }
    write_library(data_dir, cards)
    row = candidate_rows(data_dir, GARDEN_PROMPT)["chinese"]
    assert overlap_detail(row).endswith("3 through glosses")


def test_a_gloss_no_card_writes_in_english_weighs_as_a_word_of_one_card(data_dir: Path) -> None:
    """In a library written in Chinese, the English words of a prompt are on no card; the card
    whose glosses hold them says them all the same, so they weigh as words of one card."""
    cards = {
        "garden": rota_card("菜园值班", GARDEN_ZH, "值班表"),
        "kitchen": rota_card("厨房排班", "厨师每天晚上清洗炉灶。", "排班表"),
    }
    write_library(data_dir, cards)
    row = candidate_rows(data_dir, GARDEN_PROMPT)["garden"]
    assert overlap_detail(row).endswith("3 through glosses")


@pytest.mark.parametrize(
    ("prompt", "through"),
    [
        # 花匠, 西红柿, 胡瓜 and 浇灌 say 园丁, 番茄, 黄瓜 and 浇水 in other words: four senses
        # the two sides share through the dictionary, a quarter of a word each.
        ("GrowBot：花匠每天中午给西红柿和胡瓜浇灌。", ", 1 through glosses"),
        # The card's own words share their bigrams; their senses are not counted again.
        ("GrowBot：园丁每天中午给番茄和黄瓜浇水。", ""),
    ],
)
def test_two_chinese_words_of_one_sense_meet_through_the_dictionary(
    data_dir: Path, prompt: str, through: str
) -> None:
    row = lone_card(data_dir, GARDEN_ZH, "ceasefire", prompt)
    assert overlap_detail(row).split("cosine ")[1][4:] == through


@pytest.mark.parametrize(
    ("prompt", "covered"),
    [
        ("GrowBot: remind the gardener to water the beds", True),  # 园丁 "gardener", 浇水 "water"
        ("GrowBot: remind the gardener about the beds", False),  # 浇水 unsaid
    ],
)
def test_an_english_prompt_covers_a_chinese_phrase_through_the_dictionary(
    data_dir: Path, prompt: str, covered: bool
) -> None:
    """Said word for word in English, a Chinese trigger is covered, weakly: the cover adds to
    the score and is no family of evidence on its own."""
    row = lone_card(data_dir, GARDEN_ZH, "园丁浇水", prompt)
    cover = [(e["detail"], e["strength"]) for e in row["evidence"] if e["family"] == "coverage"]
    assert cover == ([("园丁浇水", pytest.approx(0.243))] if covered else [])


def test_chinese_no_dictionary_translates_does_not_dilute_an_english_match(
    data_dir: Path,
) -> None:
    """An English prompt reads a Chinese card in English: Han text the dictionary glosses with
    nothing (rare characters here) cannot meet the prompt, so it leaves the cosine as it is."""
    cards = {
        "plain": rota_card("菜园值班", GARDEN_ZH, "值班表"),
        "padded": rota_card("菜园值班", GARDEN_ZH + "龘靐齉爩", "值班表"),
        "kitchen": rota_card("厨房排班", "厨师每天晚上清洗炉灶。", "排班表"),
        "english": rota_card("Garden rota", GARDEN_EN, "rota"),
    }
    write_library(data_dir, cards)
    rows = candidate_rows(data_dir, GARDEN_PROMPT)
    assert overlap_detail(rows["plain"]) == overlap_detail(rows["padded"])


def test_a_concept_the_lexicon_bridges_is_not_counted_again_through_its_gloss(
    data_dir: Path,
) -> None:
    # 缓存 is the lexicon's cache concept; its gloss "cache" adds nothing beside it.
    row = lone_card(
        data_dir, "Warm the cache before the gardener arrives.", "ceasefire", "把缓存预热"
    )
    assert "through glosses" not in overlap_detail(row)


def test_a_short_last_sentence_does_not_hide_the_window_that_holds_the_overlap(
    data_dir: Path,
) -> None:
    # "Gizmo." alone is the closest window (one unit in a tiny window), but only the window of
    # both sentences shares enough units to count.
    card = way_back_card("The zorbic quintal 鹦鹉 drifts when the gizmo naps.", "ceasefire")
    other = {
        "title": "Paint the widget",
        "summary": "A teal amber orange purple widget dashboard wobbles at dawn.",
        # Closer to the prompt than `lone`, it would take the task: its ignore rule keeps it out.
        "criteria": {"use_when": ["painting"], "ignore_when": ["tune the zorbic quintal"]},
        "recall": {"triggers": ["paint"]},
    }
    write_library(data_dir, {"lone": card, "other": other})
    prompt = "Tune the zorbic quintal for the teal amber orange purple widget dashboard. Gizmo."
    rows = candidate_rows(data_dir, prompt)
    assert [e["detail"] for e in rows["lone"]["evidence"]] == ["3 units, cosine 0.26"]
    assert rows["lone"]["rejection"] == ""


@pytest.mark.parametrize(
    ("prompt", "rejection"),
    [
        ("zorbic quintal 鹦鹉", ""),
        ("What is a zorbic quintal 鹦鹉?", "question_without_covered_phrase"),
        # The question names a situation of the card (a use_when phrase): the lesson applies.
        ("Why does a zorbic quintal 鹦鹉 matter before a risky release?", ""),
        # Why next to a symptom asks for a cause to fix: debugging, not an explanation.
        ("How does a zorbic quintal 鹦鹉 work?", "question_without_covered_phrase"),
        ("Why does the zorbic quintal 鹦鹉 crash twice a day?", ""),
        ("为什么 zorbic quintal 鹦鹉 每天都报错？", ""),
        ("What is a zorbic quintal 鹦鹉? Our shop runs one.", "question_without_covered_phrase"),
        # Asking to understand it and talk it through is still no request to change anything
        # (and saying it is only a discussion declines any change).
        (
            "想了解一下 zorbic quintal 鹦鹉 的原理，只是讨论一下。",
            "question_declining_action",
        ),
        (
            "What do you think: how does a zorbic quintal 鹦鹉 work?",
            "question_without_covered_phrase",
        ),
        # A failure told in another sentence makes the question a diagnosis too.
        ("Our zorbic quintal 鹦鹉 crashes every night. What is going on?", ""),
        ("我们的 zorbic quintal 鹦鹉 每晚都失败。这是什么原因？", ""),
    ],
)
def test_a_how_or_why_question_needs_a_covered_phrase(
    data_dir: Path, prompt: str, rejection: str
) -> None:
    row = lone_card(
        data_dir, "The zorbic quintal 鹦鹉 drifts when the gizmo naps.", "ceasefire", prompt
    )
    assert "overlap" in row["families"]
    assert row["rejection"] == rejection


@pytest.mark.parametrize(
    ("prompt", "declines", "rejection"),
    [
        # A phrase of several words met whole answers a question about it ...
        ("How does zorbic quintal drift work?", False, ""),
        # ... but not one that says nothing is to be done.
        (
            "Just explain how zorbic quintal drift works, no code changes.",
            True,
            "question_declining_action",
        ),
        (
            "想了解一下 zorbic quintal drift 的原理，只是讨论一下，不做开发。",
            True,
            "question_declining_action",
        ),
        (
            "What are the trade-offs of zorbic quintal drift? It's for a blog post, not changing "
            "our code.",
            True,
            "question_declining_action",
        ),
        (
            "What are the trade-offs of zorbic quintal drift? Just discuss; we're not changing "
            "anything yet.",
            True,
            "question_declining_action",
        ),
        ("想了解一下 zorbic quintal drift 的原理，我就是好奇。", True, "question_declining_action"),
        (
            "能讲讲 zorbic quintal drift 的思路吗？我只是想理解一下。",
            True,
            "question_declining_action",
        ),
        (
            "解释一下 zorbic quintal drift 为什么会发生，只是学习一下，不用写代码。",
            True,
            "question_declining_action",
        ),
        (
            "How does zorbic quintal drift work? Just for learning, no code needed.",
            True,
            "question_declining_action",
        ),
        # A short prompt that asks for nothing in words an intent reads, and declines any
        # change, asks for knowledge; a long one may decline something in its background.
        (
            "Zorbic quintal drift on big tables, for my own learning; no code needed.",
            True,
            "question_declining_action",
        ),
        (
            "Some context first. The nightly zorbic quintal drift report went out late again on "
            "Monday. The team lead said no code changes this week for the billing side. "
            "Marketing moved the launch to March. The zorbic quintal drift numbers need a new "
            "column for the region.",
            True,
            "",
        ),
        # Words for people (a friendly message, slogans) change no system.
        (
            "Can you draft a friendly email to the members about zorbic quintal drift?",
            True,
            "question_declining_action",
        ),
        ("帮我想几个 zorbic quintal drift 的口号，押韵一点。", True, "question_declining_action"),
        ("zorbic quintal drift 小组周五团建，带什么零食好？", True, "question_declining_action"),
        ("帮我想几个咖啡店名，和 zorbic quintal drift 有关。", True, "question_declining_action"),
        # So is an opinion asked in passing or thinking aloud.
        (
            "Just brainstorming here: what should a zorbic quintal drift tour cost?",
            True,
            "question_declining_action",
        ),
        ("随便问问，zorbic quintal drift 一般要多久？", True, "question_declining_action"),
        # So is a diagram to draw.
        (
            "Draw a sequence diagram of the zorbic quintal drift for the handbook.",
            True,
            "question_declining_action",
        ),
        (
            "帮我画一张流程图，讲清楚 zorbic quintal drift 的各个步骤。",
            True,
            "question_declining_action",
        ),
        # Talking a review practice through is no review: only a request to act takes the card.
        (
            "聊聊你对 zorbic quintal drift 评审的看法，纯讨论，不针对具体的 PR。",
            True,
            "question_declining_action",
        ),
        (
            "Let's talk about how reviews of zorbic quintal drift should start. Just discussing, "
            "no code changes.",
            True,
            "question_declining_action",
        ),
        # A why-question asked out of curiosity or for an interview tracks down no failure of
        # ours, whatever symptom it names; asked to find out why before changing anything, it
        # does.
        (
            "Why does zorbic quintal drift fail twice a day? Just curious, not changing anything.",
            True,
            "question_declining_action",
        ),
        (
            "为什么 zorbic quintal drift 会重复出错？我在准备面试，不用改代码。",
            True,
            "question_declining_action",
        ),
        (
            "Don't change anything yet: find out why zorbic quintal drift fails twice a day.",
            True,
            "",
        ),
        # Asked to act as well, or to review what changed, the lesson applies.
        ("Explain zorbic quintal drift and then fix it.", False, ""),
        ("Review the zorbic quintal drift diff, don't change anything.", True, ""),
    ],
)
def test_a_question_that_declines_any_change_takes_no_card(
    data_dir: Path, prompt: str, declines: bool, rejection: str
) -> None:
    assert envelope_of(prompt).declines_action is declines
    row = lone_card(
        data_dir,
        "The zorbic quintal 鹦鹉 drifts when the gizmo naps.",
        "zorbic quintal drift",
        prompt,
    )
    assert row["families"]
    assert row["rejection"] == rejection


@pytest.mark.parametrize(
    ("prompt", "rejection"),
    [
        ("Set up ZorbQL for the zorbic quintal 鹦鹉 drift.", ""),
        ("What is ZorbQL in a zorbic quintal 鹦鹉?", "question_without_covered_phrase"),
        ("What is ZorbQL cache drift in a zorbic quintal 鹦鹉?", ""),
        # A question about a step the user is about to take plans that step: the lesson applies.
        ("Before I run ZorbQL, what is a zorbic quintal 鹦鹉?", ""),
        ("I'm about to run ZorbQL. What is a zorbic quintal 鹦鹉?", ""),
        ("我准备跑 ZorbQL，什么是 zorbic quintal 鹦鹉？", ""),
        # "before I" inside a sentence tells when something happened, not a plan.
        (
            "What is ZorbQL that broke before I slept in a zorbic quintal 鹦鹉?",
            "question_without_covered_phrase",
        ),
    ],
)
def test_a_one_word_anchor_does_not_answer_a_question(
    data_dir: Path, prompt: str, rejection: str
) -> None:
    """A one-word technical trigger anchors a request, but a question about that thing asks for
    knowledge: a phrase of several words met whole still answers for the lesson."""
    card = way_back_card("The zorbic quintal 鹦鹉 drifts when the gizmo naps.", "ZorbQL")
    card["recall"]["triggers"].append("ZorbQL cache drift")
    write_library(data_dir, {"lone": card})
    (row,) = explain(data_dir, prompt)["diagnostics"]["candidates"]
    assert row["strong_anchor"]
    assert row["rejection"] == rejection


@pytest.mark.parametrize(
    ("trigger", "prompt", "anchored"),
    [
        ("ZORBKEYS *", "the cleanup job runs ZORBKEYS * on the box", True),
        ("ZORBKEYS *", "the cleanup job lists zorbkeys on the box", False),
        ("zorbify()", "the worker calls zorbify() twice", True),
        ("zorbify", "the worker calls zorbify twice", False),
    ],
)
def test_a_trigger_written_as_a_command_anchors_when_met_exactly(
    data_dir: Path, trigger: str, prompt: str, anchored: bool
) -> None:
    """A command's marks (`*`, `()`) make a one-word trigger as specific as a path."""
    row = lone_card(data_dir, "The 鹦鹉 gateway needs a tested exit.", trigger, prompt)
    assert row["strong_anchor"] is anchored


@pytest.mark.parametrize(
    ("prompt", "admitted"),
    [
        ("revert the 鹦鹉 now", True),  # the trigger through a synonym, and 鹦鹉 besides
        ("先回滚鹦鹉", True),
        ("revert it now", False),  # the synonym alone: one witness, not two
        ("先回滚", False),
    ],
)
def test_a_trigger_met_through_a_synonym_needs_one_more_shared_unit(
    data_dir: Path, prompt: str, admitted: bool
) -> None:
    row = lone_card(data_dir, "The 鹦鹉 gateway needs a tested exit.", "rollback", prompt)
    assert row["evidence"][-1]["family"] == "concepts"
    assert (row["rejection"] == "") is admitted


@pytest.mark.parametrize(
    ("trigger", "prompt", "covered"),
    [
        # "delete the bucket" is one concept of the lexicon (a destructive operation): said in
        # other words its parts still cover it, as a part of the phrase would.
        ("delete the bucket", "Get rid of the old 鹦鹉 bucket for good.", True),
        ("delete the bucket", "Describe the old 鹦鹉 bucket.", False),  # one part: no cover
        # A Chinese compound is one word: its characters are no parts.
        ("强制推送", "把 鹦鹉 的代码强制再推送一次", False),
    ],
)
def test_a_phrase_that_is_one_concept_is_covered_by_its_parts_without_anchoring(
    data_dir: Path, trigger: str, prompt: str, covered: bool
) -> None:
    row = lone_card(data_dir, "The 鹦鹉 gateway needs a tested exit.", trigger, prompt)
    covers = [e for e in row["evidence"] if e["family"] == "coverage"]
    assert bool(covers) is covered
    if covered:
        assert covers[0]["detail"] == trigger
        assert covers[0]["strength"] == pytest.approx(ANCHOR_MAX * PARTIAL_COVER)
        assert row["strong_anchor"] is False


LIGHT = BACKGROUND_WEIGHT


@pytest.mark.parametrize(
    ("prompt", "weights"),
    [
        # What precedes the request ("the thing I need", 正事) is background.
        (
            "Quick recap of the week. The dashboards are live. The cost review is done. "
            "The thing I need: the export job times out after ten minutes.",
            [LIGHT, LIGHT, LIGHT, 1.0],
        ),
        (
            "今天事情比较杂。先说下进度：看板已经上线了。成本评审也做完了。然后正事：导出任务跑十分钟就超时。",
            [LIGHT, LIGHT, LIGHT, 1.0],
        ),
        # A focus cue in a sentence that announces background marks nothing.
        (
            "Morning! Quick status before the actual ask. The dashboards are live. "
            "The cost review is done. OK, the real thing: the export job times out.",
            [LIGHT, LIGHT, LIGHT, LIGHT, 1.0],
        ),
        # A deferred matter ("slid to next Thursday", 延后到下周) is not the task of the prompt.
        (
            "The dashboards are live. The cost review with finance slid to next Thursday. "
            "The export job times out after ten minutes. Can you look at it?",
            [1.0, LIGHT, 1.0, 1.0],
        ),
        (
            "看板已经上线了。成本评审延后到下周了。导出任务跑十分钟就超时。帮我看一下。",
            [1.0, LIGHT, 1.0, 1.0],
        ),
        (
            "Notes from the planning call. We moved the service to Java 17 and finance signed "
            "off on the report, so none of that is blocking. The import job runs out of memory "
            "on the March file. Can you look at it?",
            [1.0, LIGHT, 1.0, 1.0],
        ),
        (
            "Notes from the planning call today. The bucket cleanup is parked until next "
            "quarter. The import job runs out of memory on the March file and nobody knows why. "
            "Can you look at it?",
            [1.0, LIGHT, 1.0, 1.0],
        ),
        # A matter left for later ("which we plan to fix later") is not today's request.
        (
            "Notes from the planning call. Last month we noticed the cart total is glued "
            "together, which we plan to fix later. The import job runs out of memory on the "
            "March file. Can you look at it?",
            [1.0, LIGHT, 1.0, 1.0],
        ),
        (
            "看板已经上线了。上个月发现购物车总价是拼起来的，之后再处理。导入任务跑三月份的文件会内存溢出。"
            "帮我看一下。",
            [1.0, LIGHT, 1.0, 1.0],
        ),
        # A status update (work done, or in someone else's hands) is background wherever it
        # stands in a long prompt ...
        (
            "Notes from standup today. The billing export is merged and deployed. Tom is still "
            "chasing the login ticket with support. The import job runs out of memory on the "
            "March file. Can you look at it?",
            [1.0, LIGHT, LIGHT, 1.0, 1.0],
        ),
        (
            "周五下午记一下这周的情况，顺便提一个需求，内容有点多，大家见谅，我尽量写清楚一些。"
            "用户数据导出那块的脱敏也做了，法务那边也确认过，没有别的意见。支付回调的重试问题"
            "他们自己处理，我们这边不用跟进。然后现在导入任务在处理三月份那个大文件的时候会内存溢出，"
            "日志里只有一行 Killed，别的什么都没有。帮我看一下应该怎么改，最好今天能给个方案。",
            [1.0, LIGHT, LIGHT, 1.0, 1.0],
        ),
        # ... but not a sentence that goes on past a break, or tells a failure.
        (
            "Notes from standup today. The billing export is merged, but the totals are off. "
            "The new importer is deployed and crashes on every March file. The dashboards are "
            "live. Can you look at the totals?",
            [1.0, 1.0, 1.0, LIGHT, 1.0],
        ),
        # A failure in other hands is theirs: the sentence is background all the same.
        (
            "Notes from standup today. One snapshot test is flaky but Jonas is on it. The "
            "import job runs out of memory on the March file and nobody knows why. Can you "
            "look at it?",
            [1.0, LIGHT, 1.0, 1.0],
        ),
        # A short prompt has no status around a request: "is merged" may be the matter itself.
        ("The branch with the key in it is merged. How do we purge the key?", [1.0, 1.0]),
        # A sentence announcing background stays background through the clauses its
        # semicolons join, to its full stop.
        (
            "最近事情比较多，先说背景：新版本下周一发，文案已经定了；周三凌晨要停服维护，运维在排期；"
            "翻译那边也在做。导入任务处理三月份的大文件时会内存溢出。帮我看一下怎么改。",
            [LIGHT, LIGHT, LIGHT, 1.0, 1.0],
        ),
        # A status line and a request said in a word each ("Status:", "For today:").
        (
            "Morning! Status: the payout job moved to the new queue and the cache alarm got new "
            "limits. For today: the export job times out after ten minutes. Can you look at it?",
            [LIGHT, LIGHT, 1.0, 1.0],
        ),
        # A matter left to others ("这些都不用你管") is not the request.
        (
            "导入任务处理三月份的大文件时会内存溢出。下周有大促，流量可能翻倍，这些都不用你管。"
            "日志里只有一行 Killed。帮我看一下怎么改。",
            [1.0, LIGHT, 1.0, 1.0],
        ),
        # Meeting notes hand over their action ("Action for you:"), a status report names its
        # last piece, a Chinese one today's matter (今天的事情是, 今天这个是).
        (
            "Notes from the ops call. Volumes are up this week. Two small breaks in the ledger, "
            "both explained. Action for you: the export job times out after ten minutes.",
            [LIGHT, LIGHT, LIGHT, 1.0],
        ),
        (
            "Status: the new admin console is almost ready. Search works and the list view "
            "pages properly, and the audit page shows every change. The last piece is the "
            "export button, which times out after ten minutes. Can you look at it?",
            [LIGHT, LIGHT, 1.0, 1.0],
        ),
        (
            "这周情况比较多：看板换了新主题；成本评审排在下周。今天的事情是：导入任务跑三月份的文件会内存溢出。"
            "帮我看一下。",
            [LIGHT, LIGHT, 1.0, 1.0],
        ),
        (
            "早上帮运营查了一个配置问题，结论是配置错了。中午和财务对了一下报表。"
            "今天这个是插进来的：导入任务跑三月份的文件会内存溢出。帮我看一下。",
            [LIGHT, LIGHT, 1.0, 1.0],
        ),
        # Notes of a sync call are background to the request they bring.
        (
            "Weekly sync notes plus one request. The dashboards got a new theme. The import "
            "job runs out of memory on the March file. Can you look at it?",
            [LIGHT, 1.0, 1.0, 1.0],
        ),
        # A background sentence pointing back ("这些都先不管。") calls the ones before it so.
        (
            "最近事情很多：定金规则上周改完了；设计稿还在等。这些都先不管。导入任务跑三月份的文件会内存溢出。"
            "帮我看一下。",
            [LIGHT, LIGHT, LIGHT, 1.0, 1.0],
        ),
        (
            "The dashboards got a new theme. The cost review moved to Friday. None of that is "
            "blocking. The export job times out after ten minutes. Can you look at it?",
            [LIGHT, LIGHT, LIGHT, 1.0, 1.0],
        ),
        # So are a meeting's minutes (纪要).
        (
            "周五例会纪要顺便发你：看板换了新主题；成本评审排在下周。导入任务跑三月份的文件会内存溢出。"
            "帮我看一下。",
            [LIGHT, LIGHT, 1.0, 1.0],
        ),
        # An update that names matters as someone else's, and an account of how things stand
        # (介绍一下情况), are background; so is what precedes "now the ask" or 说了个问题.
        (
            "Update from the data side. The export moved to a bigger box. The billing team "
            "wants a new CSV column, neither of which is mine. The import job drops rows with "
            "accents. Can you fix it?",
            [LIGHT, 1.0, LIGHT, 1.0, 1.0],
        ),
        (
            "The dashboards got a new theme. The cost review moved to Friday. Now the ask: the "
            "export job times out after ten minutes. Can you look at it?",
            [LIGHT, LIGHT, 1.0, 1.0],
        ),
        (
            "看板换了新主题，成本评审排在下周。财务今天找我说了个问题：导入任务跑三月份的文件会内存溢出。"
            "帮我看一下。",
            [LIGHT, 1.0, 1.0],
        ),
        (
            "介绍一下情况：看板换了新主题；成本评审排在下周。导入任务跑三月份的文件会内存溢出。帮我看一下。",
            [LIGHT, LIGHT, 1.0, 1.0],
        ),
        # A matter said to wait ("that can wait", 以后再说, 都不急) is put off like one
        # deferred to a date.
        (
            "The dashboards need a new theme, but that can wait. The cost review moved to "
            "Friday. The import job runs out of memory on the March file. Can you look at it?",
            [LIGHT, 1.0, 1.0, 1.0],
        ),
        (
            "看板换了新主题，这个以后再说。成本评审排在下周。导入任务跑三月份的文件会内存溢出。帮我看一下。",
            [LIGHT, 1.0, 1.0, 1.0],
        ),
        (
            "几个小事都不急：看板换新主题，成本评审排在下周。导入任务跑三月份的文件会内存溢出。帮我看一下。",
            [LIGHT, 1.0, 1.0],
        ),
        # 近况 announces a status update; what the user only needs (你只需要, "all I need") is
        # the request.
        (
            "近况如下：看板换了新主题。成本评审排在下周。今天你只需要处理导入任务：跑三月份的文件会内存溢出。",
            [LIGHT, LIGHT, 1.0],
        ),
        (
            "The dashboards got a new theme. The cost review moved to Friday. The team lunch is "
            "on Monday. All I need today: the export job times out after ten minutes.",
            [LIGHT, LIGHT, LIGHT, 1.0],
        ),
        # What is urgent (急的是) is the request; what comes before it is not.
        (
            "看板换了新主题，成本评审排在下周，定金规则也改完了。急的是导入任务跑三月份的文件会内存溢出，"
            "日志里只有一行 Killed，重跑也一样。帮我看一下怎么改，改动放在 jobs/import 下面。",
            [LIGHT, 1.0, 1.0],
        ),
        # The request may be named as the user's for the agent ("the thing for you", 你做第 N 条),
        # and a matter may be said to be no concern of the agent's ("not your problem", 不用你操心).
        # "Not urgent" and 先别管 are no cue: they often sit in the request itself ("not urgent,
        # but ...", 先别管性能，先把 ...).
        (
            "The dashboards got a new theme. The cost review moved to Friday. The team lunch is "
            "on Monday. Now the thing for you: the export job times out after ten minutes.",
            [LIGHT, LIGHT, LIGHT, 1.0],
        ),
        (
            "看板换了新主题。成本评审排在下周。定金规则也改完了。你做第三件：导入任务跑三月份的文件会内存溢出。",
            [LIGHT, LIGHT, LIGHT, 1.0],
        ),
        (
            "The dashboards need a new theme, not your problem. The cost review moved to Friday. "
            "The import job runs out of memory on the March file. Can you look at it?",
            [LIGHT, 1.0, 1.0, 1.0],
        ),
        (
            "看板换了新主题，这个不用你操心。成本评审排在下周。导入任务跑三月份的文件会内存溢出。帮我看一下。",
            [LIGHT, 1.0, 1.0, 1.0],
        ),
        # "None of that matters" says the sentences before it are background; 说下情况 followed by a
        # colon opens a status sentence, as 背景 does. Asked of the agent ("跟客户说一下情况") it
        # is the request.
        (
            "The dashboards got a new theme and the cost review moved to Friday. None of that "
            "matters here. The export job times out after ten minutes. Can you look at it?",
            [LIGHT, LIGHT, 1.0, 1.0],
        ),
        (
            "说下情况：看板换了新主题。成本评审排在下周。导入任务跑三月份的文件会内存溢出。帮我看一下。",
            [LIGHT, 1.0, 1.0, 1.0],
        ),
        (
            "看板换了新主题。成本评审排在下周。三月的订单延迟了，帮我写封邮件跟客户说一下情况。导入任务也要看一下。",
            [1.0, 1.0, 1.0, 1.0],
        ),
        (
            "The dashboards got a new theme. The cost review moved to Friday. The team lunch is "
            "on Monday. This is not urgent, but the export job times out after ten minutes.",
            [1.0, 1.0, 1.0, 1.0],
        ),
        (
            "看板换了新主题。成本评审排在下周。定金规则也改完了。先别管性能，导入任务跑三月份的文件会内存溢出。",
            [1.0, 1.0, 1.0, 1.0],
        ),
        # "Bad news:" and 有个坏消息 mark where the request starts; "update:" opens a status
        # sentence; a weekly report run as a job (跑周报) is the task, not a heading.
        (
            "Friday update: the dashboards got a new theme. The cost review moved to Friday. "
            "Bad news: the export job times out after ten minutes. Can you look at it?",
            [LIGHT, LIGHT, 1.0, 1.0],
        ),
        (
            "周五的进展：看板换了新主题，值班表也发出去了。成本评审排在下周。然后有个坏消息：导入任务跑三月份的"
            "文件会内存溢出。帮我看一下。",
            [LIGHT, LIGHT, 1.0, 1.0],
        ),
        (
            "看板换了新主题。成本评审排在下周。导入任务每周一跑周报的时候会内存溢出。帮我看一下。",
            [1.0, 1.0, 1.0, 1.0],
        ),
        (
            "看板换了新主题。成本评审排在下周。你负责导入这部分：跑三月份的文件会内存溢出。帮我看一下。",
            [LIGHT, LIGHT, 1.0, 1.0],
        ),
        (
            "先更新一下：看板换了新主题；移动端 3.1 正在商店审核。导入任务跑三月份的文件会内存"
            "溢出。帮我看一下。",
            [LIGHT, LIGHT, 1.0, 1.0],
        ),
        (
            "看板换了新主题，财务那边很满意，下周还要再加两个图表，颜色也要跟品牌手册对齐，"
            "字体也换成公司统一的那一套。日期格式 Ken 已经在改，离线同步也有人在做。"
            "导入任务跑三月份的文件会内存溢出，日志里看到 worker 被系统杀掉了，重跑了三次也一样。"
            "帮我看一下到底是哪里占了这么多内存，怎么改才能稳定跑完。",
            [1.0, LIGHT, 1.0, 1.0],
        ),
        (
            "看板换了新主题，财务那边很满意，下周还要再加两个图表，颜色也要跟品牌手册对齐，"
            "字体也换成公司统一的那一套。移动端 3.1 的安装包昨天下午也已经发出去了。"
            "导入任务跑三月份的文件会内存溢出，日志里看到 worker 被系统杀掉了，重跑了三次也一样。"
            "帮我看一下到底是哪里占了这么多内存，怎么改才能稳定跑完。",
            [1.0, LIGHT, 1.0, 1.0],
        ),
    ],
    ids=[
        "request-en",
        "request-zh",
        "announcing-focus-cue",
        "deferred-en",
        "deferred-zh",
        "not-blocking",
        "parked",
        "fix-later-en",
        "fix-later-zh",
        "status-en",
        "status-zh",
        "status-break-or-failure",
        "handoff-with-failure",
        "status-short-prompt",
        "announced-through-semicolons",
        "status-and-today",
        "not-yours-zh",
        "action-for-you",
        "last-piece",
        "today-zh",
        "this-one-today-zh",
        "sync-notes",
        "pointing-back-zh",
        "pointing-back-en",
        "minutes-zh",
        "update-not-mine",
        "now-the-ask",
        "told-of-a-problem-zh",
        "how-things-stand-zh",
        "can-wait-en",
        "later-zh",
        "not-urgent-zh",
        "status-update-zh",
        "all-i-need-en",
        "urgent-zh",
        "thing-for-you-en",
        "you-take-item-zh",
        "not-your-problem-en",
        "not-your-worry-zh",
        "none-matters-en",
        "how-things-are-zh",
        "telling-the-customer-zh",
        "not-urgent-but-en",
        "leave-aside-zh",
        "bad-news-en",
        "bad-news-zh",
        "weekly-report-as-a-job-zh",
        "your-part-zh",
        "update-through-semicolons-zh",
        "in-other-hands-zh",
        "sent-out-zh",
    ],
)
def test_a_long_prompt_weighs_its_background_sentences_light(
    prompt: str, weights: list[float]
) -> None:
    assert [s.weight for s in envelope_of(prompt).segments] == weights


@pytest.mark.parametrize(
    ("prompt", "count"),
    [
        ("Background: the app (3.22) has a new screen. The export job times out.", 2),
        ("密钥写在 payment.js 里了，仓库是公开的。现在怎么办？", 2),
        ("We pointed shop.example.com at the new CDN. Some users still hit the old box.", 2),
        ("It broke after v2.4.0. Why is the export slow?", 2),
        ("Fix the export. Then test the import! Is the report right?", 3),
    ],
)
def test_a_dot_inside_a_token_ends_no_sentence(prompt: str, count: int) -> None:
    """A version, a file name or a host keeps its sentence whole: "(3.22)" does not cut off a
    background cue from the background it announces."""
    assert len(envelope_of(prompt).segments) == count


@pytest.mark.parametrize(
    ("prompt", "weights", "long"),
    [
        # Chinese joins a whole status update into one sentence: three sentences are long.
        (
            "先说下进度：看板已经上线了，日志脱敏也做完了，值班表也发到群里了，成本评审那边财务还在看，"
            "暂时不用管。现在的问题是这个：合作方调用创建付款的接口超时以后会自动重试，上周有两个客户"
            "被扣了两次钱，客服已经手动退款了。我想在接口层面根治这个问题，你先出一个设计方案，"
            "改动放在 services/payments 下面。",
            [LIGHT, 1.0, 1.0],
            True,
        ),
        # Three English sentences are not: they may chain three tasks.
        (
            "Quick status first: the dashboards are live, log redaction is finished and the rota "
            "is out. The problem is this: partners retry the create-payment call after a timeout "
            "and two customers were charged twice. Please propose a design to fix it at the API "
            "layer.",
            [1.0, 1.0, 1.0],
            False,
        ),
    ],
    ids=["zh", "en"],
)
def test_a_chinese_prompt_of_three_sentences_is_long(
    prompt: str, weights: list[float], long: bool
) -> None:
    env = envelope_of(prompt)
    assert [s.weight for s in env.segments] == weights
    assert env.long_prompt is long


@pytest.mark.parametrize(
    ("prompt", "covered"),
    [
        # 提交 and 交了 are two units of the phrase, but one word of it: nothing is covered.
        ("帮我把这个 bug fix 提交了，commit message 写清楚点。", False),
        ("env 文件我刚才提交了，怎么撤回？", True),
    ],
    ids=["one-short-word", "both-words"],
)
def test_pieces_of_one_short_han_word_cover_no_phrase(
    data_dir: Path, prompt: str, covered: bool
) -> None:
    row = lone_card(data_dir, "Rotate the key first.", "提交了 .env", prompt)
    assert ("coverage" in row["families"]) is covered


@pytest.mark.parametrize(
    ("prompt", "units"),
    [
        # "spark" and its concept token are one word said once: 0.5 + 1, and "zebra" 1.
        ("The spark zebra.", "2.5 units"),
        # Said through another term of the concept, the word itself is not shared.
        ("The PySpark zebra.", "2 units"),
        ("The zebra quagga.", "2 units"),
    ],
    ids=["word-and-its-concept", "concept-alone", "plain-words"],
)
def test_a_word_and_its_concept_count_once_and_a_half_in_the_description(
    data_dir: Path, prompt: str, units: str
) -> None:
    row = lone_card(data_dir, "Spark zebra quagga.", "okapi", prompt)
    (overlap,) = (e for e in row["evidence"] if e["family"] == "overlap")
    assert overlap["detail"].startswith(units + ",")


@pytest.mark.parametrize(
    ("prompt", "clauses"),
    [
        # "and also" cuts two tasks; the first one's semicolon does not cut it again.
        (
            "The zorb export of every record times out; it reads the quintal ledger, and also "
            "the gizmo button has no label.",
            [{"export", "quintal"}, {"gizmo", "label"}],
        ),
        (
            "把导出任务改成分页，它读账本的时候会超时，另外设置页的按钮没有标签。",
            [{"任务", "账本"}, {"按钮"}],
        ),
        # A cut before the last word ("Fix both.") leaves no second task: the clauses stay.
        (
            "The message text is glued together from translated pieces, and the bell button has "
            "no label. Fix both.",
            [{"messag", "piec"}, {"bell", "label"}, {"fix"}],
        ),
        # A word that counts the tasks ("两处") cuts nothing: the clauses stay, the colon ending
        # the first as it does in English.
        (
            "结账页有两处问题：按钮文字写死在组件里；金额显示要按用户地区格式化。",
            [{"两处"}, {"§button"}, {"地区"}],
        ),
        # A third list marker starts a third task.
        (
            "1) bump the zorb pin; 2) the quintal test times out, it waits on the ledger; "
            "3) tag the gizmo release",
            [{"zorb"}, {"quintal", "ledger"}, {"gizmo"}],
        ),
        # A prompt counting three tasks is not cut into two.
        (
            "Three things: the zorb export times out; it reads the quintal ledger, and also the "
            "gizmo button has no label.",
            [{"thre"}, {"export"}, {"quintal"}, {"gizmo"}],
        ),
    ],
    ids=["and-also", "另外", "fix-both", "两处", "three-numbered", "three-counted"],
)
def test_a_prompt_cut_into_tasks_has_one_clause_per_task(
    prompt: str, clauses: list[set[str]]
) -> None:
    """A card's home clause is the task it serves: two cards reading two commas of one task are
    one task read twice, not two tasks. A cut that leaves no second task, or a prompt counting
    more tasks than the cuts make, keeps the clauses."""
    env = envelope_of(prompt)
    assert env.multi_task
    assert len(env.clauses) == len(clauses)
    assert all(words <= clause for words, clause in zip(clauses, env.clauses, strict=True))


TASK_READ_TWICE_CARDS = {
    "zorb-export-paging": {
        "title": "Page the zorb export",
        "summary": "One zorb export of every record times out; page through the records in chunks.",
        "criteria": {"use_when": ["exporting zorb records"], "ignore_when": []},
        "recall": {"triggers": ["zorb export paging"]},
    },
    "quintal-ledger-locks": {
        "title": "Send slow reads to the replica",
        "summary": "Reads of the quintal ledger time out while the nightly job holds its locks; "
        "read from the replica.",
        "criteria": {"use_when": ["nightly plover jobs"], "ignore_when": []},
        "recall": {"triggers": ["plover lock"]},
    },
    "gizmo-button-label": {
        "title": "Label the gizmo button",
        "summary": "An icon-only gizmo button needs a label that screen readers announce.",
        "criteria": {"use_when": ["adding gizmo buttons"], "ignore_when": []},
        "recall": {"triggers": ["gizmo button label"]},
    },
}


def test_a_card_reading_one_task_again_is_measured_against_that_tasks_card(
    data_dir: Path,
) -> None:
    """In a prompt of two tasks, a card found in the second clause of the first task is held to
    RELATIVE_FLOOR of that task's best card, not counted as a third task."""
    write_library(data_dir, TASK_READ_TWICE_CARDS)
    prompt = (
        "The zorb export of every record times out; it reads the quintal ledger, and also the "
        "gizmo button has no label."
    )
    result = explain(data_dir, prompt)
    assert [m["id"] for m in result["matches"]] == ["gizmo-button-label", "zorb-export-paging"]
    rows = {c["id"]: c for c in result["diagnostics"]["candidates"]}
    assert rows["quintal-ledger-locks"]["rejection"] == "below_relative_floor"
    assert (
        rows["quintal-ledger-locks"]["score"] < RELATIVE_FLOOR * rows["zorb-export-paging"]["score"]
    )


@pytest.mark.parametrize(
    ("tail", "long"),
    [
        # Three sentences, one with a semicolon: not long, so "And also" chains a second task.
        ("inserts row by row; rework it so it batches its inserts.", False),
        ("inserts row by row. Rework it so it batches its inserts.", True),
    ],
    ids=["semicolon", "full-stop"],
)
def test_a_semicolon_ends_no_sentence_of_a_long_prompt(tail: str, long: bool) -> None:
    env = envelope_of(
        "Can you merge my branch for the exporter config without waiting for review? I already "
        "applied it by hand on the hosts anyway. And also, the new writer for the audit table "
        + tail
    )
    assert env.long_prompt is long
    assert env.multi_task is not long


def test_a_concept_met_in_background_weighs_as_its_sentence(data_dir: Path) -> None:
    def concept_strength(prompt: str) -> float:
        row = lone_card(data_dir, "The 鹦鹉 gateway needs a tested exit.", "rollback", prompt)
        return next(e["strength"] for e in row["evidence"] if e["family"] == "concepts")

    said = "We did a revert of the 鹦鹉 gateway"
    background = f"Some background. {said} last week. The team is small. The problem is the queue."
    focus = f"Some background. The team is small. The queue is fine. The problem is: {said}."
    assert concept_strength(background) == pytest.approx(
        BACKGROUND_WEIGHT * concept_strength(focus)
    )


def test_a_phrase_said_only_in_background_is_no_family_of_evidence(data_dir: Path) -> None:
    """A card's phrase in a background sentence ("the force push was reviewed") adds to its
    score, but a card with nothing else than a few shared words does not hold the task."""
    history = way_back_card("Warn the zebra crew before rewriting a shared history.", "force push")
    ledger = way_back_card(
        "A ledger export that comes back empty read rows the filter dropped.", "filter order"
    )
    write_library(data_dir, {"history": history, "ledger": {**ledger, "title": "Check the filter"}})
    prompt = (
        "Quick recap of the week. The force push to main was reviewed. The dashboards are live. "
        "The cost review is done. The thing I need: the zebra crew ledger export comes back empty."
    )
    result = explain(data_dir, prompt)
    assert [m["id"] for m in result["matches"]] == ["ledger"]
    row = {c["id"]: c for c in result["diagnostics"]["candidates"]}["history"]
    assert row["families"] == ["exact", "overlap"]
    assert row["rejection"] == "insufficient_evidence"
    said = prompt.replace("The thing I need:", "The thing I need: a force push, since")
    assert [m["id"] for m in explain(data_dir, said)["matches"]][0] == "history"


@pytest.mark.parametrize(
    ("prompt", "weights"),
    [
        (
            "Every log line carries a request id, that part's fine. "
            "We cannot chart failures per provider.",
            [SETTLED_WEIGHT, 1.0],
        ),
        ("日志格式已经统一了，这部分没问题。现在要按供应商统计失败次数。", [SETTLED_WEIGHT, 1.0]),
        ("汇率没有问题，商品都用欧元定价。每行单独算税，合计差一分。", [SETTLED_WEIGHT, 1.0]),
        (
            "Single-node runs are fine. The four-node job hangs at the first gradient sync.",
            [SETTLED_WEIGHT, 1.0],
        ),
        ("Android 没这个问题。iPhone 锁屏二十分钟后后台就收不到定位了。", [SETTLED_WEIGHT, 1.0]),
        # Inside a sentence, "is fine" is the contrast a diagnosis needs.
        (
            "The same Dockerfile is fine in the pipeline but fails on my laptop. "
            "The build stops at npm ci.",
            [1.0, 1.0],
        ),
        # The sentence goes on past a break after its cue: what follows is still wrong.
        (
            "Staging deploys, no problem there, but prod hangs on start. The logs are empty.",
            [1.0, 1.0],
        ),
        # Every sentence says so: nothing to tell apart.
        ("The tests pass, that part's fine. The build works, no problem there.", [1.0, 1.0]),
        (
            "The file names are all correct, I checked. The import crashes on Linux.",
            [SETTLED_WEIGHT, 1.0],
        ),
        (
            "The widget still posts to the old endpoint, but that's fine for now. "
            "The export drops its header row.",
            [SETTLED_WEIGHT, 1.0],
        ),
        (
            "The disk alert on the cache host was a false positive. "
            "The export drops its header row.",
            [SETTLED_WEIGHT, 1.0],
        ),
        ("文件名上次已经核对过了。导入在 Linux 上崩溃。", [SETTLED_WEIGHT, 1.0]),
        ("支付回调其实已经是幂等的了。问题是一条坏消息会被反复重试。", [SETTLED_WEIGHT, 1.0]),
        ("版本号和 tag 都弄好了。现在只想看看 wheel 里打进去了哪些文件。", [SETTLED_WEIGHT, 1.0]),
        ("扣款通知发得挺正常。经销商拉订单的接口一次返回所有历史订单。", [SETTLED_WEIGHT, 1.0]),
        # A sentence telling a failure is not settled, whatever else it says.
        ("The import crashes on Linux, I checked twice. Nobody looked at the casing.", [1.0, 1.0]),
    ],
    ids=[
        "en",
        "zh",
        "zh-full-form",
        "ends-in-fine",
        "zh-not-here",
        "fine-inside-a-sentence",
        "break-after-cue",
        "all-settled",
        "checked",
        "fine-for-now",
        "false-positive",
        "checked-zh",
        "actually-already-zh",
        "all-done-zh",
        "going-fine-zh",
        "failure-in-sentence",
    ],
)
def test_a_sentence_calling_its_matter_settled_weighs_less(
    prompt: str, weights: list[float]
) -> None:
    assert [s.weight for s in envelope_of(prompt).segments] == weights


LOG_CARDS = {
    "log-request-id": {
        "title": "Carry a request id on every log line",
        "summary": "Without a request id, the lines of one request cannot be followed.",
        "criteria": {"use_when": ["following one request through the logs"], "ignore_when": []},
        "recall": {"triggers": ["request id in logs"], "topics": ["logging"]},
    },
    "log-structured-fields": {
        "title": "Log values as structured fields, not inside the message text",
        "summary": "Values baked into message text cannot be filtered or charted per provider.",
        "criteria": {"use_when": ["charting log values per provider"], "ignore_when": []},
        "recall": {"triggers": ["structured log fields"], "topics": ["logging"]},
    },
}


def test_a_look_alike_the_prompt_calls_settled_is_not_returned(data_dir: Path) -> None:
    write_library(data_dir, LOG_CARDS)
    ask = "We cannot chart failures per provider: the provider is only inside the message text."
    done = "Every log line carries a request id so one request can be followed"
    assert recall_ids(data_dir, f"{done}. {ask}") == ["log-request-id", "log-structured-fields"]
    assert recall_ids(data_dir, f"{done}, that part's fine. {ask}") == ["log-structured-fields"]


STAND_IN_CARDS = {
    "spot-checkpoint": plain_card(
        "Checkpoint long GPU jobs on preemptible nodes",
        "Spot or preemptible nodes can be reclaimed at any moment: a job that runs for hours "
        "must save its progress regularly and resume from the last checkpoint instead of "
        "starting over. Write checkpoints to object storage, keep the last three, and test "
        "resuming on a small run before launching the big one.",
        ["spot instance checkpoint", "preemptible GPU training"],
        "gpu",
        ["training on spot nodes"],
    ),
    "cdn-private": plain_card(
        "Keep personal responses out of the CDN cache",
        "Responses that carry a user's data must be marked private so the CDN never serves "
        "them to someone else.",
        ["cdn cache private", "cache-control private"],
        "cdn",
        ["personal data behind a cdn"],
    ),
}


LONG_STAND_IN_PROMPT = (
    "Weekly notes and one request. Some background first: the subtitles team hired two "
    "people; the hosting bill went down; the autoscaler got new limits. The request "
    "itself: we need to recompute embeddings for all 1.2 million clips, more than a day "
    "on eight GPUs. For cost reasons we want cheap machines that the cloud can take back "
    "whenever it likes, and right now the script walks the clips in a single loop and "
    "writes every result at the end. Please update the script and kick it off."
)


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        (LONG_STAND_IN_PROMPT, ["spot-checkpoint"]),
        # The same request said in one sentence shows the card as much: one family is short.
        (
            "We want to recompute embeddings for all 1.2 million clips, more than a day on eight "
            "GPUs, on cheap machines that the cloud can take back whenever it likes; the script "
            "walks the clips in a single loop and writes every result at the end.",
            [],
        ),
    ],
    ids=["long", "short"],
)
def test_a_long_prompt_that_finds_no_card_takes_its_best_one_family_short(
    data_dir: Path, prompt: str, expected: list[str]
) -> None:
    """The request of a long prompt is a few sentences among background: its best card, one
    evidence family short, stands in when nothing else was returned and it scored well."""
    write_library(data_dir, STAND_IN_CARDS)
    assert recall_ids(data_dir, prompt) == expected
    row = candidate_rows(data_dir, prompt)["spot-checkpoint"]
    assert row["score"] >= LONG_PROMPT_STAND_IN_SCORE
    assert [e["family"] for e in row["evidence"] if e["strength"] >= FAMILY_MIN_STRENGTH] == [
        "overlap"
    ]


def test_a_long_prompts_stand_in_is_the_card_its_request_describes(data_dir: Path) -> None:
    """Of the cards one evidence family short, the first in rank order was met in the
    background ("the autoscaler got new limits"); the card the request sentences describe
    stands in."""
    background = plain_card(
        "Autoscaler limits",
        "Autoscaler limits, reviewed.",
        ["autoscaler limits review"],
        "autoscaler",
        ["autoscaler limits review"],
    )
    write_library(data_dir, {**STAND_IN_CARDS, "autoscaler-limits": background})
    rows = candidate_rows(data_dir, LONG_STAND_IN_PROMPT)
    assert rows["autoscaler-limits"]["rejection"] == "insufficient_evidence"
    assert rows["autoscaler-limits"]["fused"] > rows["spot-checkpoint"]["fused"]
    assert recall_ids(data_dir, LONG_STAND_IN_PROMPT) == ["spot-checkpoint"]


def test_a_look_alike_named_in_a_status_update_is_not_returned(data_dir: Path) -> None:
    write_library(data_dir, LOG_CARDS)
    ask = (
        "We cannot chart failures per provider: the provider is only inside the message text."
        " Can you change how we log it?"
    )
    status = "Every log line carries a request id so one request can be followed"
    opening = "Notes from the week, then one request. The on-call rota for next month is drafted."
    # Read as one task among background, the prompt goes to the card its status sentence names.
    assert recall_ids(data_dir, f"{opening} {status}. {ask}") == ["log-request-id"]
    assert recall_ids(data_dir, f"{opening} {status}, and that work is merged. {ask}") == [
        "log-structured-fields"
    ]


@pytest.mark.parametrize(
    ("prompt", "build"),
    [
        ("Write a SQL query that returns the top five customers.", True),
        ("  Convert the settings page to function components.", True),
        ("Rename lockAccount to suspendAccount everywhere.", True),
        ("Add a dark mode toggle to the settings page.", True),
        # Only the opening verb counts, and only as a whole word.
        ("Rewrite the loader in Rust.", False),
        ("Writes to the ledger hang after the deploy.", False),
        ("Adding the index locked the table for an hour.", False),
        ("The importer should write a summary line. Convert it later.", False),
        ("帮我写个脚本，把日志按天归档", True),
        ("Build a status page that polls every service.", True),
        ("Translate the onboarding copy into German.", True),
        ("加一个 make target，跑一遍格式检查", True),
        # A bare "build" opens reports as often as requests.
        ("Build times doubled since Monday.", False),
        ("把配置里的端口换成 8080", True),
        ("帮我把日志级别调成 debug", True),
        ("我把配置改了以后服务起不来", False),
        # A request whose one operation is a deletion is judged as that deletion, code or not.
        ("把去年的临时表全部删掉，腾出空间", False),
        ("Write a job that will delete old carts.", False),
        ("Add a button that deletes the draft.", True),
    ],
    ids=[
        "write",
        "leading-space",
        "rename",
        "add",
        "rewrite",
        "writes",
        "adding",
        "not-opening",
        "zh",
        "build-a",
        "translate",
        "zh-add",
        "build-times",
        "zh-ba",
        "zh-help-ba",
        "zh-ba-not-opening",
        "zh-ba-delete-only",
        "write-delete-only",
        "add-and-delete",
    ],
)
def test_a_prompt_opening_with_a_build_verb_is_a_build_request(prompt: str, build: bool) -> None:
    assert envelope_of(prompt).build_request is build


# A long description of filler words: three shared words make a loose match, not a close one.
FILLER = " ".join(f"{a}{b}ix" for a, b in itertools.product("bcdfgklmnp", "aeiou"))
ZORBIC_SUMMARY = f"The zorbic quintal 鹦鹉 drifts when the gizmo naps: {FILLER}."


@pytest.mark.parametrize(
    ("prompt", "rejection"),
    [
        ("Write a zorbic quintal 鹦鹉 gizmo exporter.", "build_request_without_anchor"),
        ("写一个 zorbic quintal 鹦鹉 gizmo 的导出工具", "build_request_without_anchor"),
        ("Our zorbic quintal 鹦鹉 gizmo needs an exporter.", ""),
        # A failure told beside the request, a phrase of the card, or a close description admit.
        ("Write a fix: the zorbic quintal 鹦鹉 gizmo crashes twice a day.", ""),
        ("Write a zorbic quintal 鹦鹉 gizmo exporter before a risky release.", ""),
        ("Write a zorbic quintal 鹦鹉 gizmo exporter: " + " ".join(FILLER.split()[:40]), ""),
    ],
    ids=["build", "build-zh", "no-build-verb", "failure", "phrase", "close-description"],
)
def test_a_build_request_needs_more_than_a_few_shared_words(
    data_dir: Path, prompt: str, rejection: str
) -> None:
    """A request for new code shares topic words with many lessons: a loose description overlap
    alone does not make a lesson apply to it."""
    row = lone_card(data_dir, ZORBIC_SUMMARY, "ceasefire", prompt)
    assert "overlap" in row["families"]
    assert row["rejection"] == rejection


# Chinese words with plain dictionary glosses, and many more the prompts below do not share.
PARROT_SUMMARY = (
    "鹦鹉网关的导出工具在周末漂移。园丁给番茄浇水，邮差骑着自行车送报纸，厨师在厨房里切洋葱，"
    "画家用油彩描绘山峰，渔夫划船捕捞螃蟹，木匠锯开松树做椅子，农民收割小麦晒稻谷，护士测量体温"
    "记录血压，裁缝缝补衬衫熨烫裤子，歌手弹奏吉他演唱民谣，司机加油洗车换轮胎。"
)


@pytest.mark.parametrize(
    ("summary", "prompt", "rejection"),
    [
        # Close (cosine 0.29), but not close enough for new code in the card's area.
        (
            ZORBIC_SUMMARY,
            "Write a zorbic quintal 鹦鹉 gizmo exporter: baix beix",
            "build_request_without_anchor",
        ),
        (ZORBIC_SUMMARY, "Write a zorbic quintal 鹦鹉 gizmo exporter: baix beix biix boix", ""),
        (ZORBIC_SUMMARY, "Our zorbic quintal 鹦鹉 gizmo needs an exporter: baix beix", ""),
        # Across languages the same meaning shares less: close (cosine 0.27) is enough.
        (PARROT_SUMMARY, "Write a parrot gateway export tool.", ""),
    ],
    ids=["close", "closer", "no-build-verb", "across-languages"],
)
def test_a_build_request_needs_a_closer_description_than_close(
    data_dir: Path, summary: str, prompt: str, rejection: str
) -> None:
    """New code in a card's area shares many of its topic words without its lesson: a build
    request joins a card on its description only when it is closer than close, in one language."""
    row = lone_card(data_dir, summary, "ceasefire", prompt)
    assert [(e["family"], e["strength"]) for e in row["evidence"]] == [("overlap", 0.7)]
    assert row["rejection"] == rejection


@pytest.mark.parametrize(
    ("trigger", "prompt"),
    [
        ("拆分组件", "Split the checkout page into smaller components."),
        ("用法示例", "Update the usage examples in the README."),
        ("停止服务", "Stop the preview service you started."),
        ("stop the service", "把你起的预览服务停掉"),
        ("sudo", "pip 装包没权限，我用管理员身份再装一遍？"),
        ("iOS", "The hero video shows a black box on the iPhone."),
    ],
)
def test_a_plain_word_meets_its_translation(data_dir: Path, trigger: str, prompt: str) -> None:
    """A terse card's trigger is met by a prompt that says it in the other language or by
    another common name (iPhone for iOS), word for word."""
    row = lone_card(data_dir, "The 鹦鹉 gateway needs a tested exit.", trigger, prompt)
    assert {e["family"] for e in row["evidence"]} & {"coverage", "concepts"}
    assert any(trigger.lower() == e["detail"] for e in row["evidence"])


SECRET_CARDS = {
    "secrets-out-of-code": plain_card(
        "Keep secrets out of code",
        "Read them from the environment; rotate one that reached the repository.",
        ["secret"],
        "housekeeping",
        ["a secret in source"],
    ),
    "private-key-storage": plain_card(
        "Store private keys in the key vault",
        "Signing material lives in the vault, never on a laptop.",
        ["private key"],
        "housekeeping",
        ["a private key on disk"],
    ),
}


@pytest.mark.parametrize(
    "prompt",
    ["I pasted the deploy private key into config.js", "把部署用的私钥直接写进 config.js 了"],
    ids=["en", "zh"],
)
def test_a_prompt_naming_a_kind_of_thing_meets_the_general_word(
    data_dir: Path, prompt: str
) -> None:
    """The lexicon says a private key is a kind of secret: a prompt naming one meets a card's
    phrase in the general word, through the concept."""
    write_library(data_dir, SECRET_CARDS)
    assert {"private_key", "secret"} <= set(envelope_of(prompt).concepts)
    evidence = candidate_rows(data_dir, prompt)["secrets-out-of-code"]["evidence"]
    assert {"family": "concepts", "detail": "secret"} in [
        {k: e[k] for k in ("family", "detail")} for e in evidence
    ]


def test_a_general_word_names_no_kind_of_it(data_dir: Path) -> None:
    """A prompt about secrets is not about private keys: the link goes one way."""
    write_library(data_dir, SECRET_CARDS)
    prompt = "Where should the secrets for the deploy job live, in the environment?"
    assert "private_key" not in envelope_of(prompt).concepts
    rows = candidate_rows(data_dir, prompt)
    assert rows["private-key-storage"]["evidence"] == []
    assert recall_ids(data_dir, prompt) == ["secrets-out-of-code"]


@pytest.mark.parametrize(
    ("prompt", "concept", "named"),
    [
        # A phone with no signal or no network is disconnected, and that is a kind of offline.
        (
            "The nurses have no signal on the ward and their notes are lost.",
            "network_disconnect",
            True,
        ),
        ("The nurses have no signal on the ward and their notes are lost.", "offline", True),
        ("仓库里手机没信号，扫码记录就丢了。", "network_disconnect", True),
        ("仓库里手机没信号，扫码记录就丢了。", "offline", True),
        (
            "Inspectors fill in the form in basements where there is no reception.",
            "network_disconnect",
            True,
        ),
        ("Inspectors fill in the form in basements where there is no reception.", "offline", True),
        ("The app lost connection on the train and the form was gone.", "network_disconnect", True),
        ("The app lost connection on the train and the form was gone.", "offline", True),
        # A concept whose term starts with a negation cue is named by it, not negated.
        ("Drivers scan parcels in tunnels with no connectivity.", "network_disconnect", True),
        ("Drivers scan parcels in tunnels with no connectivity.", "offline", True),
        # Dropping out of something is no lost connection.
        ("Two volunteers dropped out of the weekend shift.", "offline", False),
        # Another checkout or working directory beside the current one is a worktree; a
        # shop's checkout is no copy of the repository.
        ("Open a separate checkout for the hotfix and leave my changes alone.", "worktree", True),
        ("给这个补丁另起一个独立的工作目录。", "worktree", True),
        ("另外开一个干净的 checkout 来跑这个实验。", "worktree", True),
        ("The checkout page shows the old price after the coupon is applied.", "worktree", False),
        # A partial month or the remaining months of a term, charged for alone, is proration.
        ("A subscriber upgrades on the 17th; bill the partial month.", "proration", True),
        (
            "Students who enrol late pay only for the remaining months of the term.",
            "proration",
            True,
        ),
        ("不足一个月的按实际天数收费。", "proration", True),
        ("Send every member the monthly invoice on the first of the month.", "proration", False),
        # Dozens of queries for one page are one query per row.
        ("The orders page fires 240 SQL queries for one request.", "n_plus_one", True),
        ("报表页每次打开都会发出 120 多条 SQL。", "n_plus_one", True),
        ("Only 3 queries run per request.", "n_plus_one", False),
        ("这条 SQL 要跑 40 秒。", "n_plus_one", False),
        # Adding a package with the package manager's own command is adding a dependency.
        ("Just pnpm add zod and use it for the forms.", "add_dependency", True),
        ("日期处理太麻烦，直接装个库吧。", "add_dependency", True),
        ("The menu board keeps showing the old specials after the chef edits them.", "stale", True),
        ("Show me the test output before telling me the bug is gone.", "claim_done", True),
        ("Keep a progress note in the repo in case the session dies.", "session_handoff", True),
        ("The button label gets cut off on small phones.", "session_handoff", False),
        ("The grpc stubs under gen/ are missing a field.", "code_generation", True),
        ("Regenerate api_pb2.py after the proto change.", "code_generation", True),
        ("Turn off the failing checks so the build passes.", "skip_test", True),
        ("Turn off the dark mode toggle for now.", "skip_test", False),
        ("The handler returned a constant while the backend was down.", "placeholder", True),
        ("The template still ships a hardcoded list of stores.", "mock_in_delivery", True),
        # Clocks change at the end of March; a deadline there is no clock change.
        ("Reminders have gone out an hour late since the end of March.", "daylight_saving", True),
        ("The report is due by the end of March.", "daylight_saving", False),
        ("Both workers read the balance before any of them wrote it back.", "race_condition", True),
        ("The class got more confirmations than seats.", "double_booking", True),
        ("Every hour the cache entry expires and the database falls over.", "cache_stampede", True),
        # A change that shows only after a while is held by a cache; stale docs are not.
        ("店员改了营业时间，小程序上要过半小时才更新。", "cache_inconsistency", True),
        ("店员改了营业时间，小程序上要过半小时才更新。", "stale", True),
        (
            "The kiosk keeps showing the old opening hours after the manager edits them.",
            "cache_inconsistency",
            True,
        ),
        ("Edits to a tour reach the site only when the TTL runs out.", "cache_inconsistency", True),
        ("The setup guide is out of date.", "cache_inconsistency", False),
        ("这份部署文档已经过时了。", "cache_inconsistency", False),
        # Work of several days, and a session that may be cut short, want a progress note.
        (
            "Porting the billing screens to the new framework will take days.",
            "long_running_job",
            True,
        ),
        ("给新仓库补齐类型注解要干好几天。", "long_running_job", True),
        ("The report runs for a few seconds.", "long_running_job", False),
        ("Keep notes in the repo; I may interrupt you at any time.", "session_handoff", True),
        ("评审会随时可能打断这次迁移，进度写进 NOTES.md。", "session_handoff", True),
        # Its own checkout for each agent, two branches side by side on disk: worktrees.
        ("Two agents work at once; each gets its own checkout and branch.", "worktree", True),
        ("I want the release branch and my feature branch side by side on disk.", "worktree", True),
        ("The shop has its own checkout page.", "worktree", False),
        # Asked for proof before the word "done".
        ("After the import, paste what it printed.", "show_evidence", True),
        ("Check the numbers before you call it finished.", "claim_done", True),
        ("部署完把结果贴给我，确认没问题再下结论。", "claim_done", True),
        ("部署完把结果贴给我，确认没问题再下结论。", "show_evidence", True),
        ("Last week you claimed it worked and the build was red.", "claim_done", True),
        # A library by name is a new dependency; a product's package is not.
        ("I found a library called tinydate that parses these.", "add_dependency", True),
        ("Add a membership package called Premium.", "add_dependency", False),
        # The server's local clock, stored as is, is a time-zone matter.
        ("The order date comes from datetime.now() on the server.", "timezone", True),
        # How a locale writes numbers, money and dates; copy that skips the translations.
        ("German users want a decimal comma in prices.", "number_format", True),
        ("The price list has a comma after every item.", "number_format", False),
        ("Yen has no decimals, but the shop shows ¥1,200.00.", "currency_format", True),
        ("报表里的日期用的是月/日/年，欧洲客户看不懂。", "date_format", True),
        ("错误提示直接写在 JSX 里，没走翻译文件。", "hardcoded_strings", True),
        # Interfaces kept compatible, columns renamed, libraries brought in, work claimed done.
        ("两边的接口要保持兼容。", "compatibility", True),
        ("订单表要改列名，把 amt 换成 amount。", "alter_column", True),
        ("别随便引入第三方库。", "add_dependency", True),
        ("跑完冒烟测试再说完成。", "claim_done", True),
        ("别在没跑测试的情况下宣称完成。", "claim_done", True),
        ("导入中断了要能断点续做。", "resume_job", True),
        ("修 bug 的时候别顺手重构别的模块。", "unrelated_changes", True),
        ("rebase 完想顺手把旧分支也删了。", "unrelated_changes", False),
        # Work of a week or weeks, or left running overnight, in sessions that lose context: a
        # progress log, kept where the next session reads it.
        ("这次升级框架要做一个多星期。", "long_running_job", True),
        ("The data model rewrite will take weeks.", "long_running_job", True),
        ("今晚把这些脚本都迁完，我明早来看。", "long_running_job", True),
        ("We'll do it in separate sessions, an hour at a time.", "session_handoff", True),
        ("明天开新对话的时候你得知道做到哪一步了。", "session_handoff", True),
        ("Note where you left off so we can continue.", "session_handoff", True),
        ("这么长的任务你中途会丢上下文。", "context_loss", True),
        ("Keep a progress file with what's done and what's next.", "progress_log", True),
        ("在仓库里维护一份进度记录。", "progress_log", True),
        ("每迁完一批就记一下做到哪了。", "progress_log", True),
        ("The progress bar freezes at 90%.", "progress_log", False),
        # Columns added and filled, errors hidden, caches rebuilt at once or waited out.
        ("给 orders 表新增列 channel。", "add_column", True),
        ("新列加好了，老记录都要填上值。", "backfill", True),
        ("Don't hide the ValueError behind a catch-all.", "swallowed_exception", True),
        ("别加个 try catch 就算修好了。", "swallowed_exception", True),
        ("When the key lapses the workers all try to rebuild it.", "cache_stampede", True),
        ("改了库存之后要等缓存过期才看得到。", "delayed_update", True),
        (
            "The profile endpoint keeps returning the old address after an edit.",
            "delayed_update",
            True,
        ),
        # Someone else takes the work over; an ask that reads two ways.
        ("A colleague takes over the import work on Monday.", "handover", True),
        ("Write down where things stand for whoever continues.", "handover", True),
        ("今天做完，写清楚留给下一个人。", "handover", True),
        ("这句需求有歧义，先问我。", "clarify_requirements", True),
        (
            "If it's not clear which one I mean, ask; don't just pick one.",
            "clarify_requirements",
            True,
        ),
        # Lock files and packages, ports held, logs with no shared id, rows sent all at once.
        ("提交之前看看锁定文件有没有变化。", "lockfile", True),
        ("加第三方包之前先问我。", "add_dependency", True),
        ("Something is already listening on 8080 and the server won't start.", "port_in_use", True),
        (
            "Tell me whether it's our bug or my machine before touching code.",
            "environment_issue",
            True,
        ),
        (
            "I can't follow a request across the services; the log lines have no shared id.",
            "request_log_correlation",
            True,
        ),
        ("The endpoint returns all rows at once and the page hangs.", "pagination", True),
        ("The event times were saved without an offset.", "timezone", True),
        ("迁完以后把旧库清掉数据库再退机器。", "destructive_operation", True),
        ("首页的图表数据是写死在组件里的，要换成真实接口。", "mock_in_delivery", True),
        ("Wire it to the real endpoint before the launch.", "mock_in_delivery", True),
        ("The front desk and the website booked it in the same second.", "double_booking", True),
        ("Show French customers amounts in their own conventions.", "locale", True),
        ("就提交这次改的那个脚本。", "selective_commit", True),
        # A skipped or swallowed failure, caches missed at once, a package, two sales both through.
        ("The flaky test keeps failing, just put a skip decorator on it.", "skip_test", True),
        ("The loop has an except: pass around the parser.", "swallowed_exception", True),
        ("When the token cache expires, all the workers all miss at once.", "cache_stampede", True),
        ("为了解析 PDF，要不要装个包？", "add_dependency", True),
        ("换了新图标，很多用户还是看到旧图标。", "stale", True),
        ("Two cashiers sold the last ticket and both went through.", "race_condition", True),
        # A message that never goes through, a column filled for old rows, my files left out.
        (
            "The webhook worker keeps retrying it forever and the rest of the queue waits.",
            "poison_message",
            True,
        ),
        ("坏掉的那条消息消费失败后立刻重新投递，后面的都卡住了。", "poison_message", True),
        ("The column is live; now fill it in for the old invoices.", "backfill", True),
        ("把三年前的订单都补上值。", "backfill", True),
        ("Commit it, but leave my stuff in config/ alone.", "selective_commit", True),
        ("我自己改的那两个文件别提交。", "selective_commit", True),
        # Sample data still on a page is a placeholder; a secret written into the code.
        (
            "The stats card still has hardcoded sample numbers from the mockup.",
            "mock_in_delivery",
            True,
        ),
        ("The stats card still has hardcoded sample numbers from the mockup.", "placeholder", True),
        ("报表页现在是假数据，上线前换成真实查询。", "mock_in_delivery", True),
        ("The Mailgun key is hard-coded in settings.py.", "secret_leak", True),
        # Old and new code running side by side during a deploy: change the schema in two steps.
        ("During a deploy, pods on the old build keep writing the table.", "expand_contract", True),
        ("During a deploy, pods on the old build keep writing the table.", "rolling_update", True),
        ("发版的十几分钟里新旧版本同时跑。", "expand_contract", True),
        ("The old build is archived on the release page.", "expand_contract", False),
        # Words card phrases use for their matter: generated code, progress and handover files,
        # number formats, the last seat, a resource replaced, retries without end.
        ("Run protoc again after editing the schema.", "code_generation", True),
        ("Keep PROGRESS.md up to date as you go.", "progress_log", True),
        ("Leave a NEXT_STEPS.md for whoever picks this up.", "handover", True),
        ("Format the totals with Intl.NumberFormat.", "number_format", True),
        ("The classic 0.1 + 0.2 problem shows up in the cart.", "floating_point", True),
        ("Open webpack-bundle-analyzer and see what grew.", "bundle_size", True),
        ("Start npm run dev and keep working.", "run_in_background", True),
        ("The Stripe key leaked in a screenshot.", "secret_leak", True),
        ("Two fans bought the last seat.", "oversell", True),
        ("The plan says the database must be replaced.", "tf_replacement", True),
        ("The adapter multiplies by 100 for every currency.", "minor_units", True),
        ("Turn on Block Public Access for the bucket.", "public_bucket", True),
        # 多个代理, 分阶段发布, 审查代码, 修数, 跳过检查, 绕过, 贴出: said in the cards' own words.
        ("让多个代理同时改同一个仓库。", "parallel_agents", True),
        ("新功能分阶段发布。", "canary", True),
        ("帮我审查代码。", "code_review", True),
        ("直接 UPDATE 全表。", "single_statement_update", True),
        ("线上修数要留记录。", "data_fix", True),
        ("提交时别跳过检查。", "skip_hooks", True),
        ("先绕过这个报错。", "workaround", True),
        ("改完贴出测试日志。", "show_evidence", True),
        ("The consumer retries forever on a bad message.", "unbounded_retry", True),
        ("失败了就无限重试。", "unbounded_retry", True),
        ("Retry once after a timeout.", "unbounded_retry", False),
        # A live key or an auth string is a secret; the environment dumped into a chat leaks it.
        ("代码里有一串 sk_live 开头的字符串。", "secret", True),
        ("把 Twilio 的认证串放进环境变量。", "secret", True),
        ("Don't dump the environment into the chat while debugging.", "secrets_in_logs", True),
        ("排查时别打印环境变量。", "secrets_in_logs", True),
        ("The export endpoint sends everything in one response.", "pagination", True),
        ("Someone pasted our key into the wiki.", "secret_leak", True),
        ("The Stripe key sits in the settings module.", "secret", True),
        ("The chart is not wired up yet to the reporting service.", "placeholder", True),
        ("后端接口还没接上，页面先用着。", "placeholder", True),
        ("Phone builds from last year still call this endpoint.", "old_version", True),
        ("The inspectors work in cellars with zero reception.", "network_disconnect", True),
        ("把测试库里的旧记录全删了。", "destructive_operation", True),
        ("他在调用外面包一层 except 就算修好了。", "swallowed_exception", True),
        ("先查清楚问题到底出在哪。", "root_cause", True),
        ("测试里把数据库客户端换成假的。", "mock", True),
        ("PR 上的检查一直是红的。", "ci_failure", True),
        ("Please go over this PR before lunch.", "code_review", True),
        ("旧的后台服务还在读这张表。", "mixed_versions", True),
        ("每次循环都查一遍用户表。", "n_plus_one", True),
        ("Someone is slapping a retry on the timeout.", "blind_retry", True),
        ("这个用例单独跑能过。", "flaky", True),
        ("他想先把断言从等于改成大于等于。", "test_tampering", True),
        ("The rebase stopped halfway; just take my version of the config.", "conflict", True),
        ("Earlier you told me it worked, and it didn't.", "claim_done", True),
        ("把日志表清空重建一下。", "truncate_table", True),
        ("把那个存储桶整个删掉。", "destructive_operation", True),
        ("The client wraps the call in a loop that tries until it succeeds.", "blind_retry", True),
        ("There's a package on npm that formats dates.", "add_dependency", True),
        ("先做一个能稳定出现这个问题的用例。", "reproduce", True),
        ("Fix the type in src/models/user.gen.ts.", "code_generation", True),
        ("Apps in the wild still send the old header.", "old_version", True),
        ("Users have to press Ctrl+F5 to see the new page.", "browser_cache", True),
        ("When the worker fails twice the message just vanishes.", "message_loss", True),
        ("The previous version is still serving traffic in the deploy.", "mixed_versions", True),
        ("我现在每天在一个目录里来回切分支。", "worktree", True),
        ("After the release some users still get the old JS.", "static_assets", True),
        ("两个服务的输出对不上哪几行属于同一次请求。", "request_log_correlation", True),
        ("We cannot correlate logs across the two services.", "correlation_id", True),
        ("The worker logs are free-text lines, nothing else.", "structured_logging", True),
        ("你找个日期库直接装上吧。", "add_dependency", True),
        ("订单返回里的状态字段要改。", "response", True),
        ("安卓那边还有不少人没更新。", "old_version", True),
        ("好几家商户还在调这个接口。", "api_consumers", True),
        ("The chart shows canned numbers from a fixture.", "placeholder", True),
        ("首页模块放了几个假名字撑场面。", "placeholder", True),
        ("Please look over the changes in that branch.", "code_review", True),
        ("The client is produced by a tool from the schema.", "code_generation", True),
        ("Track down where it actually comes from.", "root_cause", True),
        ("The job should catch it and carry on with the next row.", "swallowed_exception", True),
        ("他加了个防抖就糊过去了。", "workaround", True),
        ("The old token is still in the history of that repo.", "secret_leak", True),
        ("草稿先存在手机上，联网后再同步。", "offline", True),
        ("The module has inconsistent quotes everywhere.", "code_formatting", True),
        (
            "Spin up a separate worktree for the fix so it stays out of my branch.",
            "separate_worktree",
            True,
        ),
        ("给这个实验单独开一个 worktree。", "separate_worktree", True),
        ("The push is rejected; can we just overwrite it by 把远端覆盖掉?", "force_push", True),
        (
            "Check that none of my stuff ends up in the release commit.",
            "selective_commit",
            True,
        ),
        ("提交的时候只带上你改的那两个文件。", "selective_commit", True),
        ("别为了一个小功能多拉一个库。", "add_dependency", True),
        ("你上回顺带升了 eslint 的版本。", "unrelated_changes", True),
        ("Fix only the rounding, with the diff as small as possible.", "minimal_change", True),
        ("修这个 bug 的 diff 越小越好。", "minimal_change", True),
        ("When we come back I want to see what's blocked and what is next.", "progress_log", True),
        (
            "The plan was catching it and moving on; I want the cause instead.",
            "swallowed_exception",
            True,
        ),
        ("别用编出来的数字把图表撑起来。", "placeholder", True),
        ("把这几个提交合成一个干净的提交。", "squash", True),
        ("我们要照顾视障用户。", "accessibility", True),
        ("只用键盘没法完成结账。", "keyboard_navigation", True),
        ("先算一下首屏要多下载多少。", "bundle_size", True),
        ("老app 还在用旧字段。", "old_version", True),
        ("消费组重启后 offset 回退了。", "duplicate_consumption", True),
        ("The script runs with read-write credentials.", "prod_access", True),
        ("Dig into why the cron job skips Mondays.", "root_cause", True),
        ("The scanner app breaks when pickers lose signal.", "network_disconnect", True),
        ("Provision it from the infra code; no hand edits.", "infrastructure_as_code", True),
        ("Someone was clicking around in the console again.", "out_of_band_change", True),
        ("The cache warms up slowly every time we deploy.", "after_deploy", True),
        ("You told me it was fixed; the export still crashes.", "claim_done", True),
        ("These tests pass no matter what the function returns.", "over_mocking", True),
        ("Change just that line; nothing else.", "minimal_change", True),
        ("用户说被扣两次款了。", "double_charge", True),
        ("支付页卡住时用户点了两下，结果生成两笔订单。", "duplicate_order", True),
        ("Write down where you got to before you stop.", "progress_log", True),
        ("A fresh session should be able to carry on.", "session_handoff", True),
        ("值班的人昨晚被吵醒三次。", "page_oncall", True),
        ("Our SDK is produced from openapi definitions at build time.", "code_generation", True),
        ("Show a friendly hint when there is no data.", "empty_state", True),
        ("回调不管处理几次，积分只加一次。", "idempotency", True),
        ("报销单里审批人不能是申请人，服务端要校验。", "separation_of_duties", True),
        ("Big refunds go through a second level of approval.", "approval_workflow", True),
        ("第三方接口报错时，不要只加 try/except 了事。", "swallowed_exception", True),
        ("先找原因，别急着改代码。", "root_cause", True),
        ("他把 Redis 密码直接写进 settings.py 了。", "secret_leak", True),
        ("Every rider signs a release form at the front desk.", "liability_waiver", True),
        ("报名前要先签责任豁免才能上课。", "liability_waiver", True),
        ("Minors need a parent signature before they can book.", "guardian_consent", True),
        ("未成年学员报名要家长签字确认。", "guardian_consent", True),
        ("The scanner stops uploading in a dead zone.", "network_disconnect", True),
        ("Those totals are numbers you made up, aren't they?", "placeholder", True),
        ("After a restart the shipment event arrives twice.", "duplicate_consumption", True),
        ("Trigger it on demand, then we talk fixes.", "reproduce", True),
        ("列一下哪些还卡着。", "completion_report", True),
        ("图表这么简单，也要加新包吗？", "add_dependency", True),
        ("Renovate opened a PR for the new React version.", "dependency_upgrade", True),
        ("把测试桶里的东西整个清空。", "destructive_operation", True),
        ("这笔调账没有任何人批准就执行了。", "human_approval", True),
        ("Rebuild the returns flow so returned items wait for a check.", "return_goods", True),
        ("干脆给这个函数挂个 admin 角色算了。", "broad_permissions", True),
        ("They bypass the frontend with curl and post bad data.", "input_validation", True),
        ("The age limit is only checked in the browser.", "input_validation", True),
        ("After the release our 500s jumped to five percent.", "error_rate", True),
        ("Push the new build out to the registry after tagging.", "publish_package", True),
        ("Add short notes on what changed for the shop owners.", "changelog", True),
        ("The nightly report runs against the primary and slows checkout.", "replication", True),
        ("这个统计查询要跑十分钟。", "analytics", True),
        ("在用例上加个装饰器让它不执行。", "skip_test", True),
        ("Run two agents on separate tasks in this repo.", "parallel_agents", True),
        ("The consumer picked the job up again when it restarted.", "duplicate_consumption", True),
        ("把 status 为空的记录全部补成 active。", "backfill", True),
        ("Mark the lint step allow_failure so merges go through.", "mask_ci_failure", True),
        ("Mark the lint step allow_failure so merges go through.", "ci_failure", True),
        ("Heading out for the weekend now, so carry on with the port.", "autonomous_task", True),
        ("The chart reads from a fixed array for now.", "placeholder", True),
        ("改 bug 就改 bug，别自作主张重命名文件。", "unrelated_changes", True),
        ("Those scratch notes should stay out of the commit for now.", "unrelated_changes", True),
        ("The deploy job had been red all week.", "ci_failure", True),
        ("There is a Twilio key pasted in the settings module.", "secret_leak", True),
        ("Warn us before the notice window on the lease closes.", "contract_renewal", True),
        ("Show totals the way their region writes numbers.", "locale", True),
        ("Just bump the wait to five seconds in that test.", "sleep_wait", True),
        ("超时工资按一点五倍算。", "overtime", True),
        ("超时工资按一点五倍算。", "timeout", False),
        ("Let members skip a week of deliveries.", "pause_subscription", True),
        ("每处理一批就记一条日志。", "batch", True),
        ("Two clerks can get the same number on a receipt.", "document_numbering", True),
        ("只发给同意接收推广的会员。", "consent", True),
        ("Email everyone on the list about the new hours.", "mass_messaging", True),
        ("Leave my half-finished work alone.", "dirty_worktree", True),
        ("We saw the expiries line up at midnight.", "cache_avalanche", True),
        ("All the workers hit the database at once after the deploy.", "db_overload", True),
        ("没有证据就别说改好了。", "claim_done", True),
        ("为了这点功能多一个库不值得。", "add_dependency", True),
        ("Review the code itself, not just the PR description.", "diff", True),
        ("The manual still uses the old flag in every example.", "outdated_docs", True),
        ("I want a check which fails today, before any fix.", "reproduce", True),
        ("年底盘点后用调整单改库存。", "stock_adjustment", True),
        ("The SDK file comes from openapi, so edit the spec instead.", "code_generation", True),
        ("Keep the new check so it can't come back next release.", "regression_test", True),
        ("Write a small script that shows it happening on demand.", "reproduce", True),
        ("During the deploy old and new pods will both be live.", "mixed_versions", True),
        ("这个字段还有老版本在用，先别删。", "mixed_versions", True),
        ("Our pods update one at a time during a release.", "rolling_update", True),
        ("改完要过五分钟才显示新内容。", "delayed_update", True),
        ("先给新服务切一小部分 traffic 看看。", "canary", True),
        ("出问题就立刻切回旧版本。", "deploy_rollback", True),
        ("高峰时线程池被占满，请求都在排队。", "thread_pool_exhaustion", True),
        ("Show me what the database is actually doing for this report.", "explain_plan", True),
        ("Anyone working over 40 hours gets time and a half.", "overtime", True),
        ("日期要按当地习惯显示。", "locale", True),
        ("退货时别去改原发票的金额。", "credit_note", True),
        ("Managers must not sign off their own expense claims.", "separation_of_duties", True),
        ("The pager phone went off all night for nothing.", "alert_fatigue", True),
        ("Totals use a dot instead of a comma in the Italian shop.", "number_format", True),
        ("Our usage guide lists the old port number.", "documentation", True),
        ("Charging the card and saving the order is all or nothing.", "atomicity", True),
        ("Those callbacks arrive several times per payment.", "duplicate_consumption", True),
        ("这里的图表数据是随便填的。", "placeholder", True),
        ("确认这个列表查询能走上索引。", "missing_index", True),
        ("帮助文本里还写着老参数。", "update_docs", True),
        ("After the bump, mark the commit for the release.", "git_tag", True),
        ("Say what changed for users.", "changelog", True),
        ("改完库存后页面还显示原来的数量。", "delayed_update", True),
        ("The workflow pulls its steps from their main branch.", "pin_version", True),
        ("The scanner loses entries when there is no phone signal.", "network_disconnect", True),
        ("A blind user cannot reach the checkout button.", "screen_reader", True),
        ("会员点了暂停以后还在发货。", "pause_subscription", True),
        ("List the findings, most serious first.", "severity", True),
        ("每次重新开始都要把背景再讲一遍。", "session_handoff", True),
        ("I have uncommitted edits in the pricing folder.", "dirty_worktree", True),
        ("在窄的屏幕上按钮被挡住了。", "responsive", True),
        ("I will check in Monday, so carry on until then.", "autonomous_task", True),
        ("The client prints request headers to stdout on failure.", "secrets_in_logs", True),
        ("别再包个 try 就完事。", "swallowed_exception", True),
        ("The totals look odd; are those real?", "placeholder", True),
        ("这个 PR 只留必要的改动。", "unrelated_changes", True),
        ("别顺手做 import 重新排序。", "code_formatting", True),
        ("Our web nodes deploy one at a time.", "rolling_update", True),
        ("Can we rename the field and change it in place?", "breaking_change", True),
        ("这条任务失败后就永远循环。", "poison_message", True),
        ("A double-tap on Pay creates two charges.", "double_submit", True),
        ("合计和手算的差了 1 分。", "off_by_a_cent", True),
        ("另外起一个分支修这个问题。", "separate_worktree", True),
        ("接口调用有时一分钟都不返回。", "hang", True),
        ("这个导入脚本就算重复跑也只能记一次账。", "idempotency", True),
        ("That staging password has been on GitHub since March.", "secret_leak", True),
        ("The pipeline installs packages from scratch on each run.", "build_cache", True),
        ("请别动我现在目录里的东西。", "separate_worktree", True),
        ("客人要先签免责才能上课。", "liability_waiver", True),
        ("Two cashiers sold the last ticket at the same moment.", "race_condition", True),
        ("It fails on every run; it isn't intermittent.", "flaky", False),
        ("Never tell me something is complete without proof.", "claim_done", True),
        ("He told me it was finished; CI disagreed.", "claim_done", True),
        ("Only post 'done' once the checks pass.", "claim_done", True),
        ("Check the page with your own eyes before closing it.", "verify", True),
        ("Say you've seen it pass before you close the ticket.", "verify", True),
        ("部署后请亲眼看到页面正常再告诉我。", "verify", True),
        ("Leave yourself a trail so the next session knows the state.", "progress_log", True),
        ("Keep a note of what's finished and what remains.", "progress_log", True),
        ("If the run dies, avoid starting from zero next time.", "resume_job", True),
        ("重启以后不要从头再来，先读进度。", "resume_job", True),
        ("明天接着上次做到的那一步继续。", "resume_job", True),
        ("脚本挂了要能从上次的位置接着跑。", "resume_job", True),
        ("把测试环境里的旧日志全部清掉。", "bulk_delete", True),
        ("Please go over my colleague's change to the billing job.", "code_review", True),
        ("Read it once more before I approve the merge.", "code_review", True),
        ("List what's wrong with it before Friday's merge.", "code_review", True),
        ("The price list is written into the component itself.", "hardcoded", True),
        ("菜单项直接写在组件里了。", "hardcoded", True),
        ("你把整个仓库跑了一遍 black。", "code_formatting", True),
        ("Someone ran black over the whole package.", "code_formatting", True),
        ("我不知道他要的是周报还是月报。", "clarify_requirements", True),
        ("I'm not sure whether they want CSV or a PDF.", "clarify_requirements", True),
        ("支付服务一分钟都不能停。", "downtime", True),
        ("Our main database keeps serving live traffic the whole time.", "downtime", True),
        ("Every row needs that column filled in.", "backfill", True),
        ("把老订单的来源字段填上。", "backfill", True),
        ("比赛结束后给获奖者打钱。", "payout", True),
        ("钱一点就付出去了，没人审核。", "payment", True),
        ("Is the revenue widget ever wired to the database at all?", "mock_in_delivery", True),
        ("The stats panel was never wired up at all.", "mock_in_delivery", True),
        ("首页要 6 秒才出来。", "page_load", True),
        ("晚上的订单都算到了第二天。", "wrong_time", True),
        ("Sales after 8pm get counted on the next day.", "wrong_time", True),
        ("台风天门店临时关门。", "closure_days", True),
        ("果园周日闭园维护。", "closure_days", True),
        ("The shop had a weather closure on Friday.", "closure_days", True),
        ("不来的客人把钱退回去。", "refund", True),
        ("The app should keep nudging staff each week.", "notification", True),
        ("We need a write-off entry for the expired stock.", "stock_writeoff", True),
        ("过期的货要做报损。", "stock_writeoff", True),
        ("We threw out two crates of milk.", "stock_writeoff", True),
        ("Three bottles arrived smashed in the parcel.", "shipping_damage", True),
        ("收到时已经碎了两罐。", "shipping_damage", True),
        ("因为暴雨取消了户外课。", "bad_weather", True),
        ("The match was a rain-out; move everyone to Sunday.", "bad_weather", True),
        ("Please add a non-null locale column on products.", "add_column", True),
        ("给用户表加一个不能为空的昵称列。", "add_column", True),
        ("给订单表加一个非空的渠道列。", "add_column", True),
        ("Change the code column from varchar to integer.", "alter_column", True),
        ("把备注列从 varchar 改成 text。", "alter_column", True),
        ("这个字段一改就把老 App 搞崩了。", "breaking_change", True),
        ("改返回格式之前想想会不会把它们弄挂。", "breaking_change", True),
        ("Renaming that field risks taking everyone down.", "breaking_change", True),
        ("改接口时别把老版本搞挂了。", "breaking_change", True),
        ("价格改了，过了十分钟还显示 38 元。", "delayed_update", True),
        ("过了五分钟了还显示旧价格。", "delayed_update", True),
        ("刷新后几分钟还是旧标题。", "delayed_update", True),
        ("PR 里有很多没关系的改动。", "unrelated_changes", True),
        ("Commit the fix as its own commit, nothing else.", "selective_commit", True),
        ("Each webhook sometimes arrives more than once.", "duplicate_consumption", True),
        ("He was poking at the live database to debug.", "direct_prod_change", True),
        ("A customer filed a data deletion request.", "privacy_law", True),
        ("Fix it now; the other Claude session owns the export branch.", "separate_worktree", True),
        ("You must not step on its files.", "separate_worktree", True),
        ("Moving its checkout out from under it is bad.", "separate_worktree", True),
        ("If you notice other stuff, mention it in your reply.", "unrelated_changes", True),
        ("只改这一处，其他问题列个清单给我。", "unrelated_changes", True),
        ("页面在接口还没回来时就渲染列表。", "loading_state", True),
        ("请求还没返回就去读字段了。", "loading_state", True),
        ("没有商品的时候显示一个提示。", "empty_state", True),
        ("晚上下的单在后台显示成第二天。", "wrong_time", True),
        ("换季以后预约时间偏了一个小时。", "wrong_time", True),
        ("Every call goes through isEnabled before rendering.", "feature_flag", True),
        ("That café already owes us two months of deliveries.", "accounts_receivable", True),
        ("Block orders past what they can owe.", "credit_limit", True),
        ("遇到雷暴就暂停户外项目。", "bad_weather", True),
        ("Give them a rain check for another day.", "bad_weather", True),
        ("Failed jobs get parked somewhere we can inspect later.", "dead_letter", True),
        ("Let support inspect and replay the failed events.", "dead_letter", True),
        ("That import was retried forever last night.", "unbounded_retry", True),
        ("说修好了，可我没看到任何测试结果。", "tests_not_run", True),
        ("这次把单测真正跑一遍。", "run_tests", True),
        ("钩子报错就修，别想办法绕过。", "skip_hooks", True),
        ("这次提交只能包含这两个文件。", "selective_commit", True),
        ("Log the daily mortality per tank.", "stock_writeoff", True),
        ("把历史记录的来源分批补上。", "backfill", True),
        ("把 region 字段从 null 补成默认值。", "backfill", True),
        ("找到原因以后如果要改数据，先告诉我。", "data_fix", True),
        ("Someone pushed the library to the registry by hand.", "publish_package", True),
        ("改之前，先在本地看到它错了再说。", "reproduce", True),
        ("我本地看不到这个现象。", "cannot_reproduce", True),
        ("我怎么点都看不到那个报错。", "cannot_reproduce", True),
        ("Nobody can follow a single order end to end.", "tracing", True),
        ("让一个请求在各服务之间能串起来查。", "tracing", True),
        ("Card numbers were sitting in Kibana for a week.", "secrets_in_logs", True),
        ("His reading software skips the labels.", "screen_reader", True),
        ("Make the form usable without a mouse.", "keyboard_navigation", True),
        ("表单要不用鼠标也能填完。", "keyboard_navigation", True),
        ("月底要出一份演出收入表。", "report", True),
        ("The chef signed it off himself, no one else.", "separation_of_duties", True),
        ("Purchases above a certain amount need a second person.", "threshold", True),
        ("报销超过一定金额要老板批。", "threshold", True),
        ("他把 AccessKey 直接写进脚本里了。", "hardcoded", True),
        ("查询接口返回的是固定的 10 条。", "hardcoded", True),
        ("支付平台的回调有时来两次。", "payment_callback", True),
        ("工资按打卡时间算。", "timesheet", True),
        ("打面单时选错了快递。", "shipping_label", True),
        ("For now the handler is just a pass statement.", "unimplemented", True),
        ("这个函数里只有一行 pass。", "unimplemented", True),
        ("给 items 表加一个 nullable 列。", "add_column", True),
        ("Email the shipping manifest to the inspector daily.", "shipping_manifest", True),
        ("每天的出货清单要带批号。", "shipping_manifest", True),
        ("贵的货寄出时要保价。", "shipping_insurance", True),
        ("Put the returned kit back on the shelf only after checking.", "return_to_stock", True),
        ("开箱品按折扣价卖。", "return_to_stock", True),
        ("Flag the seat as complimentary so it skips revenue.", "complimentary_ticket", True),
        ("赠票不能算进收入。", "complimentary_ticket", True),
        ("Run the suite once more and paste the output.", "run_tests", True),
        ("修 bug 的时候别把我的分支切走。", "separate_worktree", True),
        ("三个修复各用独立的目录和分支。", "separate_worktree", True),
        ("The settings call returns a hardcoded list for now.", "placeholder", True),
        ("Write the test first and confirm it fails.", "reproduce", True),
        ("只让你改标题，别碰别的。", "unrelated_changes", True),
        ("I only asked you to rename one button.", "unrelated_changes", True),
        ("The browser keeps an old bundle after each release.", "http_cache_headers", True),
        ("三月底那个任务提前了一个小时触发。", "daylight_saving", True),
        ("When the feed fails the page just shows nothing.", "empty_state", True),
        ("接口慢的时候列表什么都不显示。", "empty_state", True),
        ("日志都是拼接出来的字符串，没法检索。", "structured_logging", True),
        ("没法把同一个请求的几行放在一起看。", "correlation_id", True),
        ("用户的身份证号明文被打了进去。", "secrets_in_logs", True),
        ("连接串连同密码一起出现在输出里。", "secrets_in_logs", True),
        ("对方接口不响应了，我们只能等。", "hang", True),
        ("Some of the oysters died overnight in the tank.", "stock_writeoff", True),
        ("Staff just lower the count when stock goes missing.", "stock_adjustment", True),
        ("She asked us to stop emailing her.", "unsubscribe", True),
        ("Set the region for every existing account.", "backfill", True),
        ("Update the rows in chunks of five thousand.", "batch", True),
        ("Our Slack token ended up in a screenshot.", "secret_leak", True),
        ("明天海况很差，下午的船不开。", "bad_weather", True),
        ("The morning trip was off because of the swell.", "bad_weather", True),
        ("导航栏里还有写死的 label。", "hardcoded_strings", True),
        ("我想知道到底为什么会少一条。", "root_cause", True),
        ("上次有人加了个 round 就算修好了。", "workaround", True),
        ("这次 diff 要小，只动这个函数。", "minimal_change", True),
        ("You left running two dev servers from yesterday.", "run_in_background", True),
        ("8080 端口一直被占着。", "port_in_use", True),
        ("Drop the legacy key from the JSON we return.", "api_change", True),
        ("The form shows a white page after submit.", "blank_screen", True),
        ("I want our previous version serving traffic now.", "deploy_rollback", True),
        ("That release doubled the 500s on login.", "error_rate", True),
        ("Night orders appear on the next day's report.", "wrong_day", True),
        ("先让一小部分订单走新逻辑。", "canary", True),
        ("出了事要能立刻切回去，不用重新发布。", "kill_switch", True),
        ("超出的工时按法定倍数算。", "overtime", True),
        ("How much do we give back if she cancels?", "refund", True),
        ("把这两条客户记录并成一个。", "merge", True),
        ("老客户在系统里有两个档案。", "duplicate", True),
        ("Don't summarise the run; show me what it printed.", "show_evidence", True),
        ("Attach the actual command output to your reply.", "show_evidence", True),
        ("Put the actual test run output in the ticket.", "show_evidence", True),
        ("Paste the actual output of the migration here.", "show_evidence", True),
        ("想加个图表库？先别装，等我看一眼。", "install", True),
        ("先看看标准库能不能解析这个格式。", "add_dependency", True),
        ("See if the standard library can parse the header first.", "add_dependency", True),
        ("这个提交里不要重排 import。", "code_formatting", True),
        ("接口一次把所有订单都吐出来了。", "pagination", True),
        ("Give each fix its own directory and branch.", "separate_worktree", True),
        ("别在一个目录里来回 checkout。", "separate_worktree", True),
        ("This report eats too much memory.", "out_of_memory", True),
        ("每次导入大文件内存超了。", "out_of_memory", True),
        ("Limit how many come back in each call.", "pagination", True),
        ("Accept limit and cursor on the list call.", "cursor_pagination", True),
        ("这里出错了什么都不做，直接返回。", "swallowed_exception", True),
        ("这个装饰器把错误全吞了。", "swallowed_exception", True),
        ("There's an except Exception: pass in the loader.", "swallowed_exception", True),
        ("先弄清楚为什么超时再动代码。", "root_cause", True),
        ("要弄清楚为什么会重复扣款。", "root_cause", True),
        ("字段改了名，旧名字直接去掉了。", "breaking_change", True),
        ("群里天天响，值班的人都麻木了。", "alert_fatigue", True),
        ("报警响了，没人知道该干什么。", "runbook", True),
        ("队列里有条坏掉的消息。", "poison_message", True),
        ("一条出错，后面的消息全堵住了。", "poison_message", True),
        ("失败的消息又重新拿回来处理。", "unbounded_retry", True),
        ("没有记录时页面空白一片。", "empty_state", True),
        ("Refunds only add up to part of the sales.", "reconciliation", True),
        ("Every figure should be traceable to the source.", "reconciliation", True),
        ("Two riders took the last spot.", "oversell", True),
        ("卖掉的车网上还挂着。", "oversell", True),
        ("下架的商品店铺还挂着。", "oversell", True),
        ("Queue sign-ups once the class is full.", "waitlist", True),
        ("Users can't tab to a close icon.", "keyboard_navigation", True),
        ("How do we correct an issued invoice?", "invoice_edit", True),
        ("The column is live; populate it for old rows.", "backfill", True),
        ("The script touches the rows in one go.", "batch", True),
        ("Don't tell me it works before you try it.", "claim_done", True),
        ("Say so only after you've actually exercised it.", "verify", True),
        ("Run it and show me what happened.", "show_evidence", True),
        ("这个用例一直红。", "failing_test", True),
        ("别把 expected 改成现在的输出。", "test_tampering", True),
        ("为了让 pipeline 先过就跳过它？", "make_ci_green", True),
        ("Change the column from integer to bigint.", "alter_column", True),
        ("Split the tips fairly among staff.", "tip_pool", True),
        ("小费按工时分。", "tip_pool", True),
        ("顾客额外给的钱归谁？", "tip_pool", True),
        ("Each morning you start from a blank conversation.", "session_handoff", True),
        ("Nobody wants to re-explain where we are each day.", "session_handoff", True),
        ("I can't remind you where you were.", "session_handoff", True),
        ("The port may need several sessions.", "long_running_job", True),
        ("把那个提交从历史里彻底抹掉。", "purge_git_history", True),
        ("这个文件要从历史里抹掉。", "purge_git_history", True),
        ("Install the package in a clean venv.", "clean_environment", True),
        ("Find a way to make it happen on demand.", "reproduce", True),
        ("We can't trigger it reliably.", "reproduce", True),
        ("Get a reliable way to make it happen.", "reproduce", True),
        ("All alarms shifted by an hour in spring.", "daylight_saving", True),
        ("The totals are summed with floats.", "floating_point", True),
        ("EXPLAIN shows a nested loop.", "explain_plan", True),
        ("把旧订单的金额重新算一遍写进新字段。", "backfill", True),
        ("Extra hours paid next month must show on the slip.", "payroll_cutoff", True),
        ("List the commands you ran when you report back.", "claim_done", True),
        ("Tell me you looked at the output, then close the ticket.", "verify", True),
        ("Get the history presentable first.", "cleanup", True),
        ("点了按钮只弹出功能开发中。", "placeholder", True),
        ("The page looks finished but every number is fake.", "placeholder", True),
        ("页面看起来像做完了，其实全是假的。", "placeholder", True),
        ("He also reformatted two modules.", "unrelated_changes", True),
        ("We can't force people to update the tablet app.", "compatibility", True),
        ("合作方的系统没法让他们同步升级。", "compatibility", True),
        ("改字段时不能让没升级的客户端报错。", "compatibility", True),
        ("滚动发布时旧 pod 还会跑一会儿。", "mixed_versions", True),
        ("发布期间两个版本会同时写这张表。", "mixed_versions", True),
        ("把 email 字段改成必填。", "nullability", True),
        ("把所有旧发票的税额重新计算一遍再写回去。", "backfill", True),
        ("帮我登录阿里云控制台把安全组端口放开。", "out_of_band_change", True),
        ("worker 崩了以后消息会再发给另一个 worker。", "duplicate_consumption", True),
        ("Tell me how much he gets back for the unused weeks.", "refund", True),
        ("She has a 20-visit pass with 6 visits left.", "membership", True),
        ("顾客的次卡还剩三次。", "membership", True),
        ("Crew pay includes a bonus for night work.", "payroll", True),
        ("Instructor pay is off for cover lessons.", "payroll", True),
        ("We have to call off Sunday's tasting.", "cancel", True),
        ("Each guest gets a text and an email about it.", "sms", True),
        ("别动我当前的目录，另外单独开一个工作目录。", "separate_worktree", True),
        ("It has to fire once no matter how many replicas we run.", "duplicate_job_run", True),
        ("Paste the test results here before you move on.", "show_evidence", True),
        ("The Twilio key got committed last week.", "secret_leak", True),
        ("他把数据库密码直接写在脚本里了。", "secret_leak", True),
        ("The release branch is shared and everyone has already pulled it.", "shared_branch", True),
        ("这个测试把被测函数本身给 mock 了。", "over_mocking", True),
        ("先查清楚为什么会重复扣款。", "root_cause", True),
        ("I want to know why our job dies at midnight.", "root_cause", True),
        ("That handler is wrapped in a try and ignored.", "workaround", True),
        ("Show me the green output before you claim victory.", "claim_done", True),
        ("跑完测试再告诉我 done。", "claim_done", True),
        ("把 lint 和测试都跑一遍，贴结果。", "show_evidence", True),
        ("List what you'd drop and wait for my OK.", "human_approval", True),
        ("Show me the list before wiping anything.", "destructive_operation", True),
        ("Upload queued edits when the tablet is back on wifi.", "offline", True),
        ("A clerk raised the order and approved it themselves.", "separation_of_duties", True),
        ("Every fridge is tracked by serial number.", "serial_number", True),
        ("每台设备都有序列号。", "serial_number", True),
        ("The floor model was sold last week.", "display_model", True),
        ("展厅的样机要单独记库存。", "display_model", True),
        ("Split seedlings by growth stage.", "growth_stage", True),
        ("明天你从那里接着做。", "session_handoff", True),
        ("Log every discarded batch with a reason.", "stock_writeoff", True),
        ("前端数字是写死的，接口根本没接。", "mock_in_delivery", True),
        ("装上就完事，别自己写了。", "add_dependency", True),
        ("Pick a package for the calendar widget and add it.", "add_dependency", True),
        ("我没问清楚客户要的是哪一种。", "clarify_requirements", True),
        ("上次一条 sql 直接跑，把表锁了。", "batch", True),
        ("我分不清哪几行 log 属于同一次点击。", "request_log_correlation", True),
        ("Coach pay is wrong this season.", "payroll", True),
        ("Mr Lee covered her classes on Friday.", "substitute_teacher", True),
        ("代课老师的课时费要单独算。", "substitute_teacher", True),
        ("今天风太大，船都停运了。", "bad_weather", True),
        ("Rides stopped for high wind today.", "bad_weather", True),
        ("The API started returning 429s after a hundred calls.", "rate_limit", True),
        ("Our loop hammers it again at once.", "backoff", True),
        ("She missed class twice; give her a make-up credit.", "makeup_class", True),
        ("还有几个学员没报尺码。", "size_chart", True),
        ("Add an addendum; leave the signed lease as it is.", "contract_addendum", True),
        ("周报里的发行量要把赠阅分开。", "newspaper_circulation", True),
        ("They checked in the build output folder again.", "large_repo", True),
        ("CI 里 echo 了令牌，日志是公开的。", "secrets_in_logs", True),
        ("Our totals rely on JS floats.", "floating_point", True),
        ("发版后用户老拿到旧的脚本。", "stale", True),
        ("Stock count can't go negative when two people buy at once.", "oversell", True),
        ("把金额和日期改成本地化格式。", "number_format", True),
        ("提交修复，别带上我的 IDE 配置。", "selective_commit", True),
        ("别把断言改到能过就算了。", "test_tampering", True),
        ("The subtotal uses Math.round on a float.", "rounding", True),
        ("Above $500 we want a second approver.", "separation_of_duties", True),
        ("Staff may void an issued invoice once.", "void_invoice", True),
        ("Reissue the invoice to the new address.", "void_invoice", True),
        ("Our checkout refuses a tax number with dots.", "tax_id", True),
        ("上个月按整月收了他的钱。", "proration", True),
        ("We charged a full month for two weeks.", "proration", True),
        ("We would rather know why first.", "root_cause", True),
        ("先写个能复现这个错误的测试。", "tdd", True),
        ("Our treasurer gets the final say.", "approval", True),
        ("超过限额的要老板点头才能办。", "approval", True),
        ("Please reword the commits before the PR.", "commit_message", True),
        ("Two locale messages are absent in fr.", "i18n_key", True),
        ("Let's tear it all down and start over.", "destructive_operation", True),
        ("把表里的数据全删了再导入。", "truncate_table", True),
        ("每个门店都单独查一次库存。", "n_plus_one", True),
        ("The barn has no wifi at all.", "offline", True),
        ("Our tests fail every so often.", "flaky", True),
        ("别再手改这个文件了。", "code_generation", True),
        ("Regenerate it using the proto files.", "code_generation", True),
        ("Set a value on all historical rows.", "backfill", True),
        ("换个现成的库来做。", "dependency", True),
        ("The shop sells hats on consignment.", "consignment", True),
        ("寄卖的货按月结。", "consignment", True),
        ("确认真的通过了再跟我说。", "claim_done", True),
        ("先返回固定的 200 给前端。", "hardcoded", True),
        ("别让人以为已经接通了。", "temp_wiring", True),
        ("Ship it without breaking the old app.", "compatibility", True),
        ("Mind any driver who hasn't updated the app.", "old_version", True),
        ("The worker ran twice on one message.", "duplicate_consumption", True),
        ("Refund her unused days.", "proration", True),
        ("Let him move to annual billing.", "plan_change", True),
        ("顾客下了单还没付钱，货就锁住了。", "stock_reservation", True),
        ("别加个判空就算修好了。", "workaround", True),
        ("查一下这里为什么会是 null。", "root_cause", True),
        ("两个人都订上了同一个时段。", "double_booking", True),
        ("把那张旧表直接删掉。", "drop_table", True),
        ("Tutors get paid per lesson.", "payroll", True),
        ("grep found an AKIA key in a script.", "secret", True),
        ("那个提交已经推到 origin 了。", "pushed_commits", True),
        ("README 里还是旧写法。", "outdated_docs", True),
        ("参数改叫 --output 了。", "rename", True),
        ("Remove what you added for debugging.", "temp_files", True),
        ("把线上那些记录改回来。", "data_fix", True),
        ("Labels are baked into the JSX.", "hardcoded_strings", True),
        ("Put the copy in message files.", "i18n_key", True),
        ("按排队顺序通知下一位。", "waitlist", True),
        ("接口改成分批返回。", "pagination", True),
        ("Pick tyres first in first out.", "fifo", True),
        ("Phones with versions already installed still call it.", "old_version", True),
        ("新旧两版服务要能一起跑一阵。", "mixed_versions", True),
        ("Then drop the old field from the table.", "drop_column", True),
        ("Pick the library that has the most stars.", "add_dependency", True),
        ("The next build wiped my edit.", "code_generation", True),
        ("The endpoint sends every row in a single response.", "pagination", True),
        ("坏了扔掉的鞋要记一笔。", "stock_writeoff", True),
        ("Members can freeze membership for a month.", "pause_subscription", True),
        ("会员想先停卡两个月。", "pause_subscription", True),
        ("Put the real assertions back.", "test_tampering", True),
        ("Those are fake numbers for now.", "placeholder", True),
        ("The form says saved without calling the backend.", "mock_in_delivery", True),
        ("别在前端兜底，修后端。", "workaround", True),
        ("Block orders to a sanctioned country.", "export_control", True),
        ("发货前要看出口管制。", "export_control", True),
        ("We need to split the field into two.", "field_split", True),
        ("Run the linter and the type checker.", "type_check", True),
        ("Put the worst on top.", "severity", True),
        ("Please go over this diff.", "code_review", True),
        ("Stage just the two files.", "selective_commit", True),
        ("Keep my local experiments as they are.", "dirty_worktree", True),
        ("Which stores got stock from the same delivery?", "lot_tracking", True),
        ("List what is going into the package.", "npm_pack_tarball", True),
        ("有几条消息格式坏了。", "poison_message", True),
        ("退会时按剩余天数退钱。", "proration", True),
        ("Work out the steps that trigger the crash.", "reproduce", True),
        ("每次新开会话上下文就没了，之前的决定全忘了。", "context_loss", True),
        ("这个 PR 把变量名全换了，diff 根本看不过来。", "unrelated_changes", True),
        ("The discount code field should become mandatory at checkout.", "nullability", True),
        ("Last time an ALTER locked the table for ten minutes.", "online_ddl", True),
        ("Roll out the new schema while the app stays up.", "downtime", True),
        ("日志里把用户的完整地址和电话都打出来了。", "pii", True),
        ("日期和金额按他们的习惯来显示，不要写死美国格式。", "locale", True),
        ("The export shows US dates to French customers.", "date_format", True),
        ("租车时先冻结一笔押金，还车后再结算。", "pre_authorization", True),
        ("Once finance signs off, that month's numbers stay fixed.", "month_end_close", True),
        ("有人把 OAuth 的 client secret 直接写在脚本里提交了。", "secret_leak", True),
        ("中途退出的学员按剩下的场次退钱。", "proration", True),
        ("有个学员想退报名费，帮我算一下。", "refund", True),
        ("这张发票金额开错了，要怎么更正？", "credit_note", True),
        ("A manager has to okay any discount over twenty percent.", "approval", True),
        ("Hold the backup job while yesterday's run is still going.", "overlapping_runs", True),
        ("Fold them together into one record per supplier.", "merge", True),
        ("The walk-in customer paid in cash for the whole order.", "cash_payment", True),
        ("Block the job until the permit number is recorded.", "regulatory_permit", True),
        ("The label has to show every allergen in the recipe.", "allergen", True),
        ("Some of those branches hold commits never pushed anywhere.", "unpushed_commits", True),
        ("给 orders 表加个 NOT NULL 的字段，表很大。", "nullability", True),
        ("Several suppliers exist twice in the vendor list.", "duplicate", True),
        ("我 rebase 之后想让远端变成跟我本地一样。", "force_push", True),
        ("本地和远端分叉了，先别动。", "branch_diverged", True),
        ("参数改名了，说明和示例一起改掉。", "update_docs", True),
        ("The old bucket is unused now, just wipe it out.", "destructive_operation", True),
        ("When the service is down the screen stays blank.", "blank_screen", True),
        ("这家经销商还欠着我们两笔货款。", "credit_limit", True),
        ("超过额度的单子要先让财务点头。", "approval", True),
        ("The weekly total disagrees with the bank statement.", "mismatch", True),
        ("Find where the rounding actually goes wrong before patching it.", "root_cause", True),
        ("Once the real fix is in, remove the hacks we added.", "workaround", True),
        ("Don't silence the error, and don't just wrap it.", "workaround", True),
        ("这个报表查询为什么慢？", "slow", True),
        ("Agents keep stomping on each other in one clone.", "separate_worktree", True),
        ("另外开一个 checkout 做依赖升级。", "separate_worktree", True),
        ("别把你手上的改动混进这个提交。", "dirty_worktree", True),
        ("The admin password is in the public repo history.", "secret_leak", True),
        ("Before closing it, give me proof it actually works.", "show_evidence", True),
        ("Tell me what did you run to check the import.", "show_evidence", True),
        ("Before fixing it, show me it happening in a test.", "reproduce", True),
        ("UK invoices print the date month-first.", "date_format", True),
        ("会员列表一次全吐出来，太大了。", "pagination", True),
        ("第三方接口一挂就是好几分钟。", "hang", True),
        ("调用方等不到就早点放弃，别一直占着连接。", "timeout", True),
        ("网络抖动时让它多试几次。", "retry", True),
        ("老客的旧书放在店里代卖。", "consignment", True),
        ("供应商发来的贷项通知要对账。", "credit_note", True),
        ("字段要改名，怎么改才不影响老版本的客户端？", "compatibility", True),
        ("仓库里的 settings.py 明文写着短信平台的密钥。", "secret_leak", True),
        ("报表页上的数字还是样例值，没接后端。", "placeholder", True),
        ("演示前要接上真实查询，不能再用假数据。", "mock_in_delivery", True),
        ("Build a test that makes the double refund happen on demand.", "reproduce", True),
        ("Set yourself up somewhere else so my work stays put.", "separate_worktree", True),
        ("Please leave my working copy alone.", "dirty_worktree", True),
        ("Tenants read each other's reports by changing the id in the URL.", "idor", True),
        ("门店订单下午三点以后不能再改。", "order_cutoff", True),
        ("批发订单的截单时间按店铺时区算。", "order_cutoff", True),
        ("别给这几行写忽略注释，把类型错误修掉。", "lint_suppression", True),
        ("两个客户都订到了同一个场地。", "double_booking", True),
        ("仓库里信号很差，扫码经常失败。", "weak_network", True),
        ("先存在本地，等有网了再上传。", "offline", True),
        ("这两个修复别混在一块提交。", "unrelated_changes", True),
        ("仓库里有我改了一半的接口。", "dirty_worktree", True),
        ("Two agents keep stepping on each other in one clone.", "separate_worktree", True),
        ("Ship the new field without breaking old installs.", "old_version", True),
        ("Some orders got fulfilled twice after the retry.", "duplicate", True),
        ("总价是用 JS number 相乘算出来的。", "money_as_float", True),
        ("The old app still reads the legacy field for a month.", "mixed_versions", True),
        ("The test fails maybe once every twenty runs.", "flaky", True),
        ("Before you say done, show the actual commands you ran.", "show_evidence", True),
        ("Half our users never update, so the old field has to stay.", "old_version", True),
        ("worker 每天早上都因为 memory 被 kill 一次。", "out_of_memory", True),
        ("现在出了故障只能靠客户告诉我们。", "detected_by_customers", True),
        ("Each label here is literal English text, not a key.", "hardcoded_strings", True),
        ("有人绕过页面直接调了接口，把负数存进去了。", "input_validation", True),
        ("客人退货了，要把钱还给他。", "refund", True),
        ("客人已经买单走了，才发现多收了一杯。", "checkout", True),
        ("这桌还没结账，先把点错的菜去掉。", "unpaid", True),
        ("Stock is deducted per product, not per variant.", "inventory_deduction", True),
        ("I hadn't committed those edits and now they're gone.", "dirty_worktree", True),
        ("下面是 EXPLAIN 的输出：全表扫描。", "explain_plan", True),
        ("CI 每次都重新装一遍依赖，太慢了。", "build_cache", True),
        ("报表里的日期月和日搞反了。", "date_format", True),
        ("Store the token so that the key never lands in git.", "keep_out_of_git", True),
        ("The migration needs a down step that really works.", "down_migration", True),
        ("Record the use-by date when the crates arrive.", "expiry_date", True),
        ("这批是超市捐的蔬菜。", "donation", True),
        ("Formatting currency on the receipts is wrong for Swiss francs.", "currency_format", True),
        ("Each figure must drill down to its source rows.", "source_records", True),
        ("I pushed the auth token to the public repo by mistake.", "secret_leak", True),
        ("Catching the exception and moving on just hides the bug.", "swallowed_exception", True),
        ("We haven't decided which export format they want.", "clarify_requirements", True),
        ("The booking site can't go down during the switch.", "downtime", True),
        ("Keep a way to back it out if the numbers look wrong.", "rollback", True),
        ("营地时钟往回拨一小时那晚，账单多算了一晚。", "daylight_saving", True),
        ("这个接口一次吐出全部订单，页面直接卡死。", "pagination", True),
        ("Big discounts wait for someone senior to OK them.", "approval", True),
        ("把九个旧的检出目录都删了。", "worktree", True),
        ("先把实际跑的命令贴出来。", "show_evidence", True),
        ("这个合并请求你帮我过一遍。", "code_review", True),
        ("回填的时候别把库锁死了。", "table_lock", True),
        ("维修超出了客户签字同意的金额。", "estimate", True),
        ("新配方含坚果，标签要改。", "allergen", True),
        ("Harvest crews get paid by the kilo for what they pick.", "piece_rate", True),
        ("把已付的定金退回支付宝。", "refund", True),
        ("The deposit goes back on her card tomorrow.", "refund", True),
        ("出了投诉要能一路追到那一批货。", "lot_tracking", True),
        ("The job died with LockNotAvailable halfway through.", "table_lock", True),
        ("同事想把断言放宽一点让测试过。", "test_tampering", True),
        ("回报进展时附上退出码。", "show_evidence", True),
        ("这个部署角色的权限收窄一下。", "least_privilege", True),
        ("Fix the bug only; do not reorganise the module.", "refactor", True),
        ("Do not run black on the vendored folder.", "code_formatting", True),
        ("把存量订单的金额重新算一遍写回去。", "backfill", True),
        ("中途断了也没关系，下次接着干。", "resume_job", True),
        ("lint 那一步设成失败也算通过。", "mask_ci_failure", True),
        ("每一步都记下做了什么。", "progress_log", True),
        ("The API trusts the browser to check the quantity.", "input_validation", True),
        ("改之前，补一个能稳定 fail 的测试。", "tdd", True),
        ("Move the fee column from float to decimal.", "alter_column", True),
        ("同事提的合并请求，帮我看看能不能合。", "code_review", True),
        ("生产上那几个老表直接清掉吧。", "destructive_operation", True),
        ("下个月起咖啡降价两块。", "price_change", True),
        ("Go back over every line you changed this morning.", "self_review", True),
        ("The catalogue still shows made-up prices from the demo.", "placeholder", True),
        ("提交时只放你这次改的文件。", "selective_commit", True),
        ("Note that the commit should only include parser.py.", "selective_commit", True),
        ("First print how many rows it touches.", "dry_run", True),
        ("金额格式要跟着用户所在地区变。", "locale", True),
        ("领料总是拿最新到的那批木料。", "fifo", True),
        ("日志要能按请求串起来。", "tracing", True),
        ("今天先做到这，明天接着干。", "resume_job", True),
        ("文件里写清楚已经做完什么。", "progress_log", True),
        ("挂了就点重新运行，没人查原因。", "blind_retry", True),
        ("滚动升级时新旧版本会并存。", "mixed_versions", True),
        ("半夜的订单都算到了前一天。", "wrong_day", True),
        ("客人给的心意钱要按人平分。", "tip_pool", True),
        ("Edits to a closed week must leave a trail.", "audit", True),
        ("Get it failing, red for the right reason.", "tdd", True),
        ("The reviewer left nine comments on my PR; answer each of them.", "review_comments", True),
        ("A teammate's token sat in a public GitHub gist for a week.", "secret_leak", True),
        ("群里有人把数据库密码贴出来了，怎么补救？", "secret_leak", True),
        ("Write it down in case the context gets wiped halfway.", "session_handoff", True),
        ("Visitors still see yesterday's opening hours after we edit them.", "stale", True),
        ("Bad events are silently dropped by the consumer.", "message_loss", True),
        ("失败的消息没办法重新处理，只能手工补。", "dead_letter", True),
        ("值班的人昨晚被叫醒了好几次，都是磁盘的提醒。", "alert_fatigue", True),
        ("The handler has only a pass statement in its body.", "unimplemented", True),
        ("Show an empty state rather than faking it with sample numbers.", "placeholder", True),
        ("In our service output every line is free text.", "unstructured_logs", True),
        ("The refund webhook can't be tested here; say so.", "tests_not_run", True),
        ("Clean out the schema from the old pilot.", "destructive_operation", True),
        ("德国用户那边要用逗号做小数点。", "number_format", True),
        ("We can't follow it across the two services' output.", "correlation_id", True),
        ("Somebody typed them straight into the email template by hand.", "hardcoded", True),
        ("We are tempted to bring in a date library for this.", "add_dependency", True),
        ("Please leave yourself notes so the next run can carry on.", "progress_log", True),
        ("用户照着使用说明操作，结果命令报错了。", "outdated_docs", True),
        ("改表之后要能退回原来的表结构。", "down_migration", True),
        ("首页的数字还是演示用的假数据。", "placeholder", True),
        ("The two tickets contradict each other on shipping.", "clarify_requirements", True),
        ("产品给的两条需求自相矛盾。", "clarify_requirements", True),
        ("Drivers log their travel costs in the app each week.", "expense_reimbursement", True),
        ("先把旧字段的值搬到新的列，再删旧字段。", "backfill", True),
        ("The page renders the raw key instead of the label.", "missing_translation", True),
        ("After the rebase the file is full of angle-bracket blocks.", "conflict_markers", True),
        ("The page stops it; the backend doesn't check the size.", "input_validation", True),
        ("前端拦住了，可后端不校验这个字段。", "input_validation", True),
        ("The build broke because the action pulled a new major version.", "pin_version", True),
        ("现在管理员能改历史记录，这样不行。", "tamper_proof_logs", True),
        ("After the import we had two records for the same supplier.", "deduplicate", True),
        ("The upload test fails on every few CI runs.", "flaky", True),
        ("网关和队列的输出要能串起来看。", "request_log_correlation", True),
        ("A shopper saw someone else's address on the receipt page.", "session_mixup", True),
        ("把旧库里的表都清掉，换一套新的。", "destructive_operation", True),
        ("把这个目录处理掉，连同备份一起。", "destructive_operation", True),
        ("Go ahead and wipe the backups older than last spring.", "destructive_operation", True),
        ("The last patch renamed half the utility functions.", "unrelated_changes", True),
        ("只改这一行，别的文件哪怕看着别扭也不要改。", "unrelated_changes", True),
        ("先看看这个图表库值不值得引进。", "add_dependency", True),
        ("Totals are summed as plain JS numbers on the invoice page.", "floating_point", True),
        ("新加的列全是空的，得按旧字段补一下。", "backfill", True),
        ("We need to fill it for the existing vendors too.", "backfill", True),
        ("把旧的 tag 字段 fill 进去。", "backfill", True),
        ("告警一响大家各查各的，没人统筹。", "incident_response", True),
        ("A rider's phone loses connectivity in tunnels.", "network_disconnect", True),
        ("信号一断上传就失败。", "network_disconnect", True),
        ("上次的提交把缩进全改了。", "unrelated_changes", True),
        ("金额现在用 double 存。", "floating_point", True),
        ("Each amount is stored as a double in that table.", "floating_point", True),
        ("The listener gets the same message several times.", "duplicate_consumption", True),
        ("同一条消息收到好几次，结果发了两封邮件。", "duplicate_consumption", True),
        ("Use whatever library is most popular for dates.", "add_dependency", True),
        ("我想用个库来生成 PDF，你推荐一个装上吧。", "add_dependency", True),
        ("这个用例老是挂，先注释掉让流水线能过。", "test_tampering", True),
        ("Keep running notes so the next session knows where we are.", "progress_log", True),
        ("出库时先扣早到的那批货。", "fifo", True),
        ("三个服务的日志对不上，查不到同一个请求。", "request_log_correlation", True),
        ("At the end, tell me which parts you actually ran.", "completion_report", True),
        ("日志全是 print 拼出来的字符串。", "structured_logging", True),
        ("Wipe them all so the storage bill goes down.", "delete", True),
        ("Members get charged every quarter with no heads-up.", "recurring_payment", True),
        ("When billing the club, handle declines properly.", "payment_failed", True),
        ("Take the rotted seedlings off the books with a reason.", "stock_writeoff", True),
        ("Nobody has written up what changed since the last release.", "changelog", True),
        ("Just change the expected number so the pipeline goes green.", "test_tampering", True),
        ("Show me the command output before you report back.", "claim_done", True),
        ("We're three majors behind on Django.", "upgrade", True),
        ("Our inspectors fill in forms in basements with zero bars.", "network_disconnect", True),
        ("Keep the submissions until the phone is back online.", "offline", True),
        ("Just wipe the schema and recreate it.", "destructive_operation", True),
        ("The checkout folders are lying around; tidy them away.", "cleanup", True),
        ("Drop the directories of branches that landed weeks ago.", "merge", True),
        ("Keep anything that never made it into main.", "merge_to_main", True),
        ("测试里的假对象返回的是 dict。", "mock", True),
        ("worker 有时候同一条消息处理两三次，客户收到重复邮件。", "duplicate_consumption", True),
        ("格式错误的 message 被反复 retry，永远处理不成功。", "poison_message", True),
        ("Traffic was sent to pods that were still warming up.", "probe", True),
        ("顾客说要清浏览器记录才正常。", "browser_cache", True),
        ("The sync test goes red about one in five pipeline runs.", "flaky", True),
        ("test_lock 每跑十次会挂两次，查一下原因。", "flaky", True),
        ("It passes on my laptop but not on the runner.", "works_locally", True),
        ("这个用例本地怎么跑都能过。", "works_locally", True),
        ("The page keeps displaying the previous price after an edit.", "delayed_update", True),
        ("后台改了价格，详情页过了十分钟还是老价格。", "delayed_update", True),
        ("Failed events sit in a side queue nobody reads.", "dead_letter", True),
        ("日志全是 printf 拼出来的，没法检索。", "unstructured_logs", True),
        ("接口先 return 一个固定的数组给前端联调。", "placeholder", True),
        ("这个按钮文字没走 t()，帮我改掉。", "hardcoded_strings", True),
        ("提交时只放分页的文件，其他的留在工作区。", "selective_commit", True),
        ("Tomorrow you should know exactly where we stopped.", "session_handoff", True),
        ("broker 又投了一次，账户被扣了两遍。", "duplicate_consumption", True),
        ("It was delivered a second time after the ack.", "duplicate_consumption", True),
        ("新版本上线十分钟后报错就多了。", "after_deploy", True),
        ("The 500s went up right after lunch.", "error_rate", True),
        ("Old app versions will keep calling that endpoint for a year.", "breaking_change", True),
        ("Partner integrations parse the current string format.", "breaking_change", True),
        ("Just wipe the whole staging schema and start over.", "destructive_operation", True),
        ("想用 dayjs 格式化日期，装上就行。", "add_dependency", True),
        ("先写一个针对这种输入会失败的测试。", "tdd", True),
        ("同事把数据库密码贴进了群聊。", "secret_leak", True),
        ("Scans get lost where there is zero cell coverage.", "network_disconnect", True),
        ("本地改的 vite.config.ts 别把它一起加进提交。", "selective_commit", True),
        ("年终盘点发现实物比系统里少 14 桶。", "stocktake", True),
        ("Set the grade for all historic rows in chunks.", "backfill", True),
        ("Tell me first whether we really need another package for this.", "add_dependency", True),
        ("Checkout is returning 500s for a third of requests.", "error_rate", True),
        ("Make the consumer safe to replay from the start.", "event_replay", True),
        ("复盘文档里写清楚后续要做的改进。", "action_items", True),
        ("List who owns each item in the incident notes.", "action_items", True),
        ("修复在 main 上了，怎么弄到正在运营的那个版本里？", "backport", True),
        ("这些文案要能正确处理单数和多个。", "plural", True),
        ("The bad message keeps getting redelivered endlessly.", "poison_message", True),
        ("Everything queued behind it is stuck until we skip it.", "poison_message", True),
        ("The tests patch out its own helper methods.", "over_mocking", True),
        ("公式写错了测试照样是绿的。", "over_mocking", True),
        ("Patch out the clock call in the test.", "mock", True),
        ("The exception is thrown out of the handler.", "stock_writeoff", False),
        ("把历史数据的图表展示出来。", "backfill", False),
        ("需求要改数据结构。", "data_fix", False),
        ("Follow a single naming style across modules.", "tracing", False),
        ("举例的时候引一个真实场景。", "add_dependency", False),
        ("We scrubbed the emails from the logs.", "cancel", False),
        ("Add a LICENSE file in the public repo.", "secret_leak", False),
        ("Email an issued invoice as a PDF.", "invoice_edit", False),
        ("The job is pulling in a lot of rows.", "add_dependency", False),
        ("The invoice gets paid next month.", "payroll_cutoff", False),
        ("That question is set aside for now.", "stock_reservation", False),
        ("已经发出去的包裹要拦截回来。", "old_version", False),
        ("Errors should be traceable to a request id.", "reconciliation", False),
        ("Convert the id from integer to string in the JSON.", "alter_column", False),
        ("I need to know which stores replied.", "least_privilege", False),
        ("Add a coming soon banner to the shop page.", "placeholder", False),
        ("旧系统下个月停运。", "closure_days", False),
        ("把代码改到能过编译。", "test_tampering", False),
        ("Our webpack output is 2MB.", "large_repo", False),
        ("The courier will pick up from there.", "session_handoff", False),
        ("The migration got committed to git.", "secret_leak", False),
        ("Make it required on the signup page.", "nullability", False),
        ("Can you fill it in for me?", "backfill", False),
        ("登录控制台看一下日志。", "out_of_band_change", False),
        ("The site is back online after the outage.", "offline", False),
        ("We have already pulled those tags.", "shared_branch", False),
        ("合同变更单上周上线了。", "contract_addendum", False),
        ("The serial no longer matches the board.", "serial_number", False),
        ("这个方案值不值得引入缓存？", "add_dependency", False),
        ("We paste the results into the weekly doc.", "show_evidence", False),
        ("Clear the discarded items from the cart.", "stock_writeoff", False),
        ("改完 .proto 要重新生成代码。", "prototype_pollution", False),
        ("这两个需求的逻辑串不起来。", "request_log_correlation", False),
        ("单独查一次这个用户的订单。", "n_plus_one", False),
        ("Tear down the whole fixture when each test ends.", "destructive_operation", False),
        ("We sync later, at night.", "offline", False),
        ("That job fails for no reason at all.", "flaky", False),
        ("代码都拉下来了吗？", "pushed_commits", False),
        ("下一批需求下周排。", "pagination", False),
        ("Keep that left inline for now.", "hardcoded_strings", False),
        ("Revert whatever you added to the config.", "temp_files", False),
        ("Sort the list oldest first.", "fifo", False),
        ("Grab whichever one is closest.", "add_dependency", False),
        ("不调后端，直接读缓存。", "mock_in_delivery", False),
        ("前端再算一遍总价。", "workaround", False),
        ("Split the column header into two lines.", "field_split", False),
        ("The press embargo lifts Monday.", "export_control", False),
        ("The exact steps are in the wiki.", "reproduce", False),
        ("These rows came from the same batch job.", "lot_tracking", False),
        ("What's in the package.json scripts?", "npm_pack_tarball", False),
        ("Reword them so they sound friendlier.", "commit_message", False),
        ("Run local experiments on the GPU first.", "dirty_worktree", False),
        ("有个学员想退报名费，帮我算一下。", "newspaper_circulation", False),
        ("Keep the results in cache for an hour.", "cash_payment", False),
        ("Send the request straight to the API without the SDK.", "input_validation", False),
        ("Populate the new dropdown with the list of countries.", "backfill", False),
        ("Late corrections to the translation file are fine.", "month_end_close", False),
        ("按剩下的步骤继续做。", "proration", False),
        ("Read about the hacks in the news.", "workaround", False),
        ("Tell me what came out of the meeting.", "show_evidence", False),
        ("The reviewer disagrees with the design.", "mismatch", False),
        ("我再试几次看看能不能登录。", "retry", False),
        ("The buyer sent back a message asking for the invoice.", "return_goods", False),
        ("上线以后不能再改这个配置。", "order_cutoff", False),
        ("Store the logs somewhere separate from the app.", "separate_worktree", False),
        ("把缓存直接清掉再试一次。", "destructive_operation", False),
        ("把代码重排了缩进，别的没动。", "rerank", False),
        ("Make sure the fix lands in git history as one commit.", "keep_out_of_git", False),
        ("The commands you ran are in the shell history.", "show_evidence", False),
        ("The price can't go down below cost.", "downtime", False),
        ("日志一次吐出几千行错误。", "pagination", False),
        ("He pushed the token bucket size up.", "secret_leak", False),
        ("回填的时候别把库锁死了。", "deadlock", False),
        ("帮我把流程过一遍。", "code_review", False),
        ("It only takes a couple of minutes to build.", "coupling", False),
        ("Customers edit the shipping address before dispatch.", "deploy", False),
        ("Store each member's phone number in E.164.", "mobile", False),
        ("Follow the getting-started guide to set it up.", "uuid", False),
        ("The rowing club wants a new booking page.", "row", False),
        ("Our thrift store lists donated coats.", "rpc", False),
        ("Print the market stall fee receipts.", "hang", False),
        ("Each coach has a certification level.", "certificate", False),
        ("The state filing deadline is next month.", "terraform_state", False),
        ("The state filing deadline is next month.", "file", False),
        ("会员积分过期的规则要改一下。", "installment", False),
        ("把死信里的消息再投递回主题。", "recursion", False),
        ("先把重复数据清洗掉。", "plural", False),
        ("我在两个需求之间来回切分支。", "split", False),
        ("升级以后老客户端还能登录吗？", "customer", False),
        ("这个配置我直接手改了。", "take_over", False),
        ("另外网站首页换了新图。", "public_network", False),
        ("缓存的 key 没有区分销售渠道。", "affiliate", False),
        ("师傅填完检查单就提交。", "payment_status_query", False),
        ("Once the check is green we can merge it.", "cannot_merge", False),
        ("Add a helper that validates the coupon code format.", "verify", False),
        ("提交说明写成符合规范的格式。", "compliance", False),
        ("The upload resumes later if the connection drops.", "session_handoff", False),
        ("Click Resolve on the incident once the pager goes quiet.", "review_comments", False),
        ("There is no way to replay the video after the stream ends.", "dead_letter", False),
        ("Users stay signed in over many sessions.", "session_handoff", False),
        ("As you work, keep breadcrumbs in the repo for later.", "breadcrumb", False),
        ("This is just upgrading an existing dependency to its next minor.", "upgrade", False),
        ("这个依赖版本太旧了。", "version", False),
        ("发版前记得写更新日志。", "log", False),
        ("Work out the meal costs per portion for the new menu.", "expense_reimbursement", False),
        ("The German page renders the raw key on screen for that label.", "secret_leak", False),
        ("Normalise the phone formats before saving the contact.", "mobile", False),
        ("给注册表单加一个邮箱格式校验。", "verify", False),
        ("帮我写个校验邮编的正则。", "verify", False),
        ("Auto-fill it for all the fields on the signup form.", "backfill", False),
        ("他用别人的名字注册了账号。", "session_mixup", False),
        ("包裹寄到了别人的地址。", "session_mixup", False),
        ("我已经把这些接口都改了名，帮我更新调用方。", "unrelated_changes", False),
        ("Which chart library is the most popular on our team?", "add_dependency", False),
        ("这段注释写得不对，帮我改一下。", "test_tampering", False),
        ("I keep notes on the release in the wiki.", "progress_log", False),
        ("把日志对齐到同一个时区。", "request_log_correlation", False),
        ("Take the rotted seedlings off the books with a reason.", "booking", False),
        ("The card layout fails on small screens.", "payment_failed", False),
        ("Swipe left to archive the message.", "delete", False),
        ("The service came back online after the restart.", "offline", False),
        ("The plane landed on time in Lisbon.", "merge", False),
        ("The dev server is still starting up.", "probe", False),
        ("这个接口我处理了好几次，还是报错。", "duplicate_consumption", False),
        ("这个 bug 我处理了两三次，还是没好。", "duplicate_consumption", False),
        ("这次会挂吗？先跑一下看看。", "flaky", False),
        ("We ran it five times in a row for the benchmark.", "flaky", False),
        ("The laptop fan is loud when the tests run.", "works_locally", False),
        ("Show the previous price crossed out next to the sale price.", "delayed_update", False),
        ("Add a side panel that lists the queued jobs.", "dead_letter", False),
        ("Use printf to format the column widths in the CLI table.", "unstructured_logs", False),
        ("Return a fixed-size array from the parser.", "placeholder", False),
        ("A second delivery van joins the route on Fridays.", "duplicate_consumption", False),
        ("We have 500 从业人员 in the warehouse.", "error_rate", False),
        ("Wrap the form fields with an if so the optional ones hide.", "workaround", False),
        ("The whole team will review the schema tomorrow.", "destructive_operation", False),
        ("The new module is at zero coverage in the report.", "network_disconnect", False),
        ("The monorepo has another package for billing.", "add_dependency", False),
        ("The parcel was redelivered on Monday.", "poison_message", False),
        ("谁负责这个模块？", "action_items", False),
        ("Sound is patched in the next release.", "mock", False),
    ],
)
def test_a_situation_told_in_plain_words_names_its_concept(
    prompt: str, concept: str, named: bool
) -> None:
    """What a prompt tells instead of naming ("240 queries for one request", "if the session
    dies", "turn off the failing checks", "no signal") is the engineering concept a card is
    about, whatever word the prompt uses for it."""
    assert (concept in envelope_of(prompt).concepts) is named


def test_renaming_a_field_is_a_rename_but_renaming_a_struct_is_no_field_rename() -> None:
    """字段改名 names a field; a card saying it is not met by any rename ("Rename the struct")."""
    field = envelope_of("把 user_name 字段改名为 nickname").concepts
    assert {"field_rename", "rename"} <= set(field)
    concepts = envelope_of("Rename the SurgeCalculator struct to SurgeEngine").concepts
    assert "rename" in concepts
    assert "field_rename" not in concepts


@pytest.mark.parametrize(
    ("prompt", "rejection"),
    [
        ("Write a zorbic quintal 鹦鹉 gizmo exporter.", "build_request_without_anchor"),
        ("Write a relay exporter for the zorbic quintal 鹦鹉 gizmo.", ""),
    ],
    ids=["part-of-a-phrase", "whole-phrase"],
)
def test_a_build_request_takes_a_card_on_a_whole_phrase_not_on_part_of_one(
    data_dir: Path, prompt: str, rejection: str
) -> None:
    """Two words of a three-word trigger are shared topic words, not the card's phrase said."""
    row = lone_card(data_dir, ZORBIC_SUMMARY, "zorbic quintal relay", prompt)
    assert set(row["families"]) == {"coverage", "overlap"}
    assert row["rejection"] == rejection


WOMBAT_CARD = {
    "title": "Count the wombats",
    "summary": "Count every wombat in the burrow before dusk.",
    "criteria": {"use_when": ["counting wombats"], "ignore_when": ["a brand new wombat ledger"]},
    "recall": {"triggers": ["wombat census"], "topics": ["wildlife"]},
}


@pytest.mark.parametrize(
    ("summary", "prompt", "rejection"),
    [
        (ZORBIC_SUMMARY, "Our zorbic quintal 鹦鹉 gizmo needs an exporter.", ""),
        (
            ZORBIC_SUMMARY,
            "Our zorbic quintal 鹦鹉 gizmo needs an exporter for a brand new wombat ledger.",
            "outside_bounds_the_prompt_draws",
        ),
        # The card whose description says a word of the phrase is what the bounds point to.
        (
            ZORBIC_SUMMARY.replace("naps", "naps on the ledger"),
            "Our zorbic quintal 鹦鹉 gizmo needs an exporter for a brand new wombat ledger.",
            "",
        ),
        # A close description (cosine 0.32) is the card's own evidence.
        (
            "The zorbic quintal 鹦鹉 drifts when the gizmo naps: " + " ".join(FILLER.split()[:12]),
            "Our zorbic quintal 鹦鹉 gizmo needs an exporter for a brand new wombat ledger.",
            "",
        ),
        # A phrase said only in background names another matter: it draws no bounds.
        (
            ZORBIC_SUMMARY,
            "For context, the wildlife team also plans a brand new wombat ledger next year. "
            "The burrow survey tool is slow. Nobody has touched it in months. "
            "Our zorbic quintal 鹦鹉 gizmo needs an exporter.",
            "",
        ),
    ],
    ids=[
        "no-bounds",
        "topic-words-only",
        "shares-the-phrase",
        "close-description",
        "said-in-background",
    ],
)
def test_a_prompt_saying_an_ignore_phrase_takes_other_cards_on_their_own_evidence(
    data_dir: Path, summary: str, prompt: str, rejection: str
) -> None:
    """A prompt that says one card's ignore_when phrase names its situation by what it is not;
    a card sharing only topic words with it, and no word of that phrase, stays out."""
    write_library(
        data_dir, {"lone": way_back_card(summary, "tangerine harbour"), "wombats": WOMBAT_CARD}
    )
    rows = candidate_rows(data_dir, prompt)
    assert rows["lone"]["families"] == ["overlap"]
    assert rows["lone"]["rejection"] == rejection
    assert rows.get("wombats", {}).get("rejection", "") == (
        "ignore_rule" if "wombat" in prompt else ""
    )


def test_a_build_request_does_not_take_a_card_on_an_implied_concept_alone(data_dir: Path) -> None:
    """ "Write a script ..." joins a card on a phrase of its own; "private key" implies the card's
    "secret", which is evidence, not the card's phrase said. Told as a situation, the same
    matter still finds the card."""
    card = plain_card(
        "Keep secrets out of code",
        "A secret pasted into source code or a config file reaches every clone of the "
        "repository: read it from the environment at startup, rotate one that leaked, purge it "
        "from history and tell the owners of every service that used it. Note the incident in "
        "the weekly security review, with a timeline and a follow-up owner.",
        ["secret"],
        "housekeeping",
        ["a secret in source code"],
    )
    write_library(data_dir, {**CARDS, "secrets-out-of-code": card})
    build = "Write a script that copies the deploy private key into every clone of the mobile app."
    row = candidate_rows(data_dir, build)["secrets-out-of-code"]
    assert {e["family"] for e in row["evidence"]} == {"concepts", "overlap"}
    assert row["rejection"] == "build_request_without_anchor"
    told = "The deploy script copies the private key into every clone of the mobile app."
    assert "secrets-out-of-code" in recall_ids(data_dir, told)


WIPE_CARD = plain_card(
    "Ask before wiping anything",
    "Wiping a storage volume or a bucket cannot be undone: list what goes, show the size, and "
    "wait for a yes.",
    ["volume wipe checklist"],
    "safety",
    ["emptying a disk array"],
)
HOST_CARD = plain_card(
    "Name archive hosts by region",
    "Archive hosts carry their region in the name so a dashboard groups them.",
    ["archive host naming"],
    "naming",
    ["naming a new archive host"],
)


@pytest.mark.parametrize(
    ("prompt", "hints", "rejection", "signals"),
    [
        # "Drop the ... table" fires destructive_action through drop_table, a concept the card
        # does not say; its "cannot be undone" names destructive_operation, which fires it too.
        ("Drop the volume table and the bucket table on the backup host.", None, "", True),
        # "Hard delete" fires it through hard_delete, a kind of delete, which the card's "wiping"
        # names: that is the card's own words again, and the phrase they meet admits it.
        ("Hard delete every volume record and bucket record on the backup host.", None, "", False),
        # "unrecoverable" fires it through destructive_operation, the card's own concept: the
        # description overlap again (here enough to admit the card alone), no second witness.
        (
            "Flag each volume record and bucket record on the backup host as unrecoverable.",
            None,
            "",
            False,
        ),
        # Nothing destructive: the two shared words alone do not admit the card.
        (
            "Count every volume record and bucket record on the backup host.",
            None,
            "insufficient_evidence",
            False,
        ),
        # A card whose author chose its hints is hinted, and routed, by those alone.
        (
            "Drop the volume table and the bucket table on the backup host.",
            ["force_push"],
            "routing_signal_missing",
            False,
        ),
    ],
    ids=["drop-table", "hard-delete", "own-concept", "nothing-destructive", "own-hints"],
)
def test_a_card_without_hints_is_hinted_by_the_signals_its_concepts_fire(
    data_dir: Path, prompt: str, hints: list[str] | None, rejection: str, signals: bool
) -> None:
    """A card written without engine_hints takes the specific signals whose concepts its
    description names as its hints: met by its description alone, it gains a signal fired on
    other words as a second family of evidence, marked as implied."""
    card = {**WIPE_CARD, "engine_hints": {"positive": hints}} if hints else WIPE_CARD
    write_library(data_dir, {"ask-before-wiping": card, "archive-host-names": HOST_CARD})
    doc = explain(data_dir, prompt)
    assert ("ask-before-wiping" in [m["id"] for m in doc["matches"]]) is (not rejection)
    for match in doc["matches"]:
        assert ("task signal implied by its concepts" in match["matched_by"]) is signals
    row = {c["id"]: c for c in doc["diagnostics"]["candidates"]}["ask-before-wiping"]
    implied = [e["detail"] for e in row["evidence"] if e["family"] == "signals"]
    assert implied == (["destructive_action (implied by the card's concepts)"] if signals else [])
    assert row["rejection"] == rejection


BACKFILL_CARD = plain_card(
    "Backfill in batches",
    "Run a backfill in small batches with a checkpoint, so it can stop and resume.",
    ["backfill"],
    "data",
    ["running a backfill"],
)


@pytest.mark.parametrize(
    ("prompt", "rejection", "signals"),
    [
        # "Back-populate" meets the trigger through the backfill concept, and the fill of 12M
        # historical rows fires data_migration on more words than that synonym: a second witness.
        ("Back-populate tax_region on the 12M historical invoices.", "", True),
        # The synonym alone: one piece of evidence.
        ("Back-populate tax_region on the invoice screen.", "insufficient_evidence", False),
    ],
    ids=["signal-on-other-words", "synonym-alone"],
)
def test_a_card_met_through_a_synonym_is_witnessed_by_the_signals_its_concepts_fire(
    data_dir: Path, prompt: str, rejection: str, signals: bool
) -> None:
    """A card written without engine_hints and met through a synonym of its phrase, with no
    description overlap to back it, takes a signal its concepts imply, fired on other words, as
    the second family that admits it."""
    write_library(data_dir, {"backfill-in-batches": BACKFILL_CARD, "archive-host-names": HOST_CARD})
    doc = explain(data_dir, prompt)
    row = {c["id"]: c for c in doc["diagnostics"]["candidates"]}["backfill-in-batches"]
    implied = [e["detail"] for e in row["evidence"] if e["family"] == "signals"]
    assert implied == (["data_migration (implied by the card's concepts)"] if signals else [])
    assert row["rejection"] == rejection


ROUTED_WIPE_CARD = {
    **WIPE_CARD,
    "title": "Ask before retiring anything",
    "summary": "Retiring a storage volume or a bucket cannot be undone: list what goes, show the"
    " size, wait for a yes, note who asked, keep the last snapshot for a week and tell the owners"
    " of every dashboard that read from it.",
    "engine_hints": {"positive": ["force_push"]},
    # "wipe" is a delete word, as "Clear out" is: the card says neither, to be met by the rest
    # of its description alone.
    "recall": {"triggers": ["volume sign-off checklist"], "topics": ["safety"]},
}


@pytest.mark.parametrize(
    ("prompt", "rejection"),
    [
        ("Clear out the storage volume behind the archive hosts.", ""),
        (
            "Clear out the storage volume behind the archive hosts that carry their region in"
            " the name.",
            "routing_signal_missing",
        ),
    ],
    ids=["described", "barely-described"],
)
def test_a_missed_routing_signal_does_not_hide_a_card_its_description_admits(
    data_dir: Path, prompt: str, rejection: str
) -> None:
    """A card routed by its author's hint (here force_push, which no prompt below fires) still
    passes when its description alone admits it at ROUTING_BYPASS_SCORE: signals are heuristics,
    and a phrasing they miss must not hide the card."""
    write_library(
        data_dir, {"ask-before-wiping": ROUTED_WIPE_CARD, "archive-host-names": HOST_CARD}
    )
    row = candidate_rows(data_dir, prompt)["ask-before-wiping"]
    assert row["families"] == ["overlap"]
    assert row["rejection"] == rejection
    assert (row["score"] >= ROUTING_BYPASS_SCORE) is (not rejection)


@pytest.mark.parametrize(
    ("background", "task", "implied"),
    [
        (
            "Last sprint we dropped the old pigeon table, which is done.",
            "Now count every volume record and bucket record in the cellar.",
            False,
        ),
        (
            "The old pigeon table is still fine.",
            "Now drop the volume table and the bucket table in the cellar.",
            True,
        ),
    ],
    ids=["said-in-background", "said-in-the-request"],
)
def test_a_signal_said_only_in_background_implies_nothing(
    data_dir: Path, background: str, task: str, implied: bool
) -> None:
    """A long prompt's status sentence that fires a signal names another matter: it is no
    witness for a card its request sentences describe."""
    write_library(data_dir, {"ask-before-wiping": WIPE_CARD, "archive-host-names": HOST_CARD})
    row = candidate_rows(data_dir, status_report(background, task))["ask-before-wiping"]
    signals = [e["detail"] for e in row["evidence"] if e["family"] == "signals"]
    assert signals == (["destructive_action (implied by the card's concepts)"] if implied else [])


CARILLON_CARDS: dict[str, dict[str, Any]] = {
    "sign-carillon-firmware": {
        "title": "Sign every carillon firmware image",
        "summary": "Carillon controllers refuse unsigned images; sign with the release key first.",
        "criteria": {"use_when": ["uploading carillon firmware"], "ignore_when": []},
        "related": ["no-such-card", "carillon-spare-slot"],
        "recall": {"triggers": ["carillon firmware image"], "topics": ["firmware"]},
    },
    "carillon-spare-slot": {
        "title": "Keep the previous slot bootable",
        "summary": "Leave the old partition intact until the new one reports healthy.",
        "criteria": {"use_when": ["flashing a controller"], "ignore_when": ["bench prototype"]},
        "recall": {"triggers": ["spare partition"], "topics": ["devices"]},
    },
}
UPLOAD = "Upload the new carillon firmware image to the tower controllers; mind the partition."


@pytest.mark.parametrize(
    ("prompt", "options", "said", "rejection"),
    [
        (UPLOAD, {}, True, ""),
        (UPLOAD.replace("; mind the partition", ""), {}, False, "below_threshold"),
        (UPLOAD.replace("tower controllers", "bench prototype"), {}, True, "ignore_rule"),
        (UPLOAD, {"limit": 1}, True, "below_relative_floor"),
        (UPLOAD, {"threshold": 70}, True, "below_threshold"),
        (
            "The tower controllers refuse unsigned carillon images at upload; mind the old"
            " partition, it must stay intact.",
            {},
            True,
            "below_relative_floor",
        ),
    ],
    ids=[
        "anchored",
        "linked-card-unsaid",
        "ignore-phrase-said",
        "no-room",
        "under-threshold",
        "parent-not-anchored",
    ],
)
def test_an_anchored_card_brings_in_the_card_its_author_linked(
    data_dir: Path, prompt: str, options: dict[str, Any], said: bool, rejection: str
) -> None:
    """A card met by a strong anchor brings in the first existing card of its `related` list that
    the prompt meets in its own words (`said`), at RELATED_DECAY of its score at least, while the
    limit has room and that score clears the threshold; the linked card's gates still hold (its
    ignore_when phrase said keeps it out)."""
    write_library(data_dir, CARILLON_CARDS)
    workspace = open_workspace(data_dir, data_dir)
    doc = result_json(
        match_prompt(workspace, prompt, recall_options(workspace, **options)), explain=True
    )
    rows = {c["id"]: c for c in doc["diagnostics"]["candidates"]}
    parent, linked = rows["sign-carillon-firmware"], rows["carillon-spare-slot"]
    assert parent["selected"]
    assert parent["strong_anchor"] is prompt.startswith("Upload")
    own = [e for e in linked["evidence"] if e["family"] not in ("related", "signals")]
    assert bool(own) is said
    assert linked["rejection"] == rejection
    related = [e for e in linked["evidence"] if e["family"] == "related"]
    if not rejection:
        assert [m["id"] for m in doc["matches"]] == list(CARILLON_CARDS)
        assert linked["score"] >= round(parent["score"] * RELATED_DECAY)
        assert related == [
            {"family": "related", "strength": RELATED_DECAY, "detail": "sign-carillon-firmware"}
        ]
        assert doc["matches"][1]["matched_by"] == [
            "shared terms",
            'related to "sign-carillon-firmware"',
        ]
    else:
        assert [m["id"] for m in doc["matches"]] == ["sign-carillon-firmware"]
        assert related == []


BELL_CARDS: dict[str, dict[str, Any]] = {
    "bell-clapper-wear": {
        "title": "Turn a worn clapper a quarter",
        "summary": "A clapper worn flat cracks the bell; turn it a quarter before it does.",
        "criteria": {"use_when": ["inspecting clappers"], "ignore_when": []},
        "recall": {"triggers": ["clapper wear"], "topics": ["bells"]},
    },
    "bell-rope-tension": {
        "title": "Measure bell rope tension before ringing",
        "summary": "A slack rope throws the bell off balance; measure tension first.",
        "criteria": {"use_when": ["checking the bell ropes"], "ignore_when": []},
        "recall": {"triggers": ["rope tension"], "topics": ["bells"]},
    },
}


@pytest.mark.parametrize(
    ("dates", "policy", "stale"),
    [
        ({"updated": date(2026, 3, 2), "last_verified": date(2026, 1, 15)}, "should", True),
        ({"updated": "2026-03-02", "last_verified": "2026-01-15"}, "should", True),
        ({"updated": date(2026, 3, 2), "last_verified": date(2026, 3, 2)}, "should", False),
        ({"updated": date(2026, 3, 2)}, "should", False),
        ({"updated": date(2026, 3, 2), "last_verified": "last spring"}, "should", False),
        ({"updated": date(2026, 3, 2), "last_verified": date(2026, 1, 15)}, "must", True),
    ],
    ids=["edited-after", "as-strings", "same-day", "never-verified", "not-a-date", "must-first"],
)
def test_a_card_edited_since_it_was_verified_comes_after_the_others(
    data_dir: Path, dates: dict[str, object], policy: str, stale: bool
) -> None:
    """SPEC §11: a card changed after a person last verified it (`updated` later than
    `last_verified`) is listed after the cards of its policy that were not, and flagged in explain;
    it is never dropped for it."""
    clapper = BELL_CARDS["bell-clapper-wear"]
    recall = {**clapper["recall"], "policy": policy}
    edited = {**clapper, **dates, "recall": recall}
    write_library(data_dir, {**BELL_CARDS, "bell-clapper-wear": edited})
    prompt = "Check the rope tension and the clapper wear on the north tower bells."
    doc = explain(data_dir, prompt)
    ids = [m["id"] for m in doc["matches"]]
    after = stale and policy != "must"
    assert ids == (["bell-rope-tension", "bell-clapper-wear"] if after else list(BELL_CARDS))
    rows = {c["id"]: c for c in doc["diagnostics"]["candidates"]}
    assert rows["bell-clapper-wear"]["edited_since_verified"] is stale
    assert rows["bell-rope-tension"]["edited_since_verified"] is False
    table = CliRunner().invoke(cli, ["match", prompt, "--explain", "--data-dir", str(data_dir)])
    assert ("RETURNED (edited since verified)" in table.output) is stale
