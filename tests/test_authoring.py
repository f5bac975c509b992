"""Writing cards: slugs, new drafts and the six duplicate decisions, edits and lifecycle moves."""

from __future__ import annotations

import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest
from conftest import HAND_WRITTEN_CARD

from ome import authoring
from ome.authoring import (
    CardSpec,
    Located,
    Target,
    append_rule,
    apply_new,
    archive_card,
    delete_card,
    edit_card,
    edit_until_valid,
    enable_card,
    error_header,
    locate_card,
    plan_new,
    restore_card,
    slugify,
    strip_error_header,
    unique_id,
    verify_card,
)
from ome.cards import parse_card_text
from ome.errors import CardError, CardNotFoundError, UnsafeIdError
from ome.project import init_data_dir

DAY = date(2025, 3, 4)
LATER = date(2025, 5, 6)


@pytest.fixture
def target(data_dir: Path) -> Target:
    init_data_dir(data_dir, starter=False)
    return authoring.resolve_target(data_dir, data_dir, "global")


def write_card(target: Target, status: str = "active", text: str = HAND_WRITTEN_CARD) -> Path:
    path = target.root / "experiences" / status / "browser-check.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text.format(status=status), encoding="utf-8")
    return path


def spec(**kw: object) -> CardSpec:
    fields: dict[str, object] = {
        "title": "Validate UI in the browser",
        "summary": "Use the page in a browser before calling a UI change done.",
        "rule": "Load the page, click the changed parts, read the console.",
        "triggers": ("real browser", "ui check"),
    }
    fields.update(kw)
    return CardSpec(**fields)  # type: ignore[arg-type]


def locate(target: Target, card_id: str = "browser-check") -> Located:
    return locate_card(target.data_dir, target.data_dir, card_id, "global")


# --- ids -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "slug"),
    [
        pytest.param("浏览器验收", "liu-lan-qi-yan-shou", id="chinese-pinyin"),
        pytest.param("Don't force-push main!", "don-t-force-push-main", id="punctuation"),
        pytest.param("Git 强推", "git-qiang-tui", id="mixed"),
        pytest.param("Café  déjà vu", "cafe-deja-vu", id="accents"),
        pytest.param("Ｆｕｌｌ width", "full-width", id="nfkc"),
        pytest.param("!!!", "card", id="nothing-left"),
        pytest.param("word " * 30, ("word-" * 12).rstrip("-"), id="truncated-at-a-dash"),
    ],
)
def test_slugify(title: str, slug: str) -> None:
    assert slugify(title) == slug


def test_unique_id_adds_a_suffix_across_all_statuses(target: Target) -> None:
    for status, name in (("draft", "x"), ("archived", "x-2")):
        folder = target.root / "experiences" / status
        (folder / f"{name}.md").write_text("---\n---\n", encoding="utf-8")
    assert unique_id(target.root, "x") == "x-3"
    assert unique_id(target.root, "y") == "y"


def test_pypinyin_and_ruamel_are_imported_only_when_needed() -> None:
    code = (
        "import sys, ome.authoring, ome.cli.experience\n"
        "assert 'pypinyin' not in sys.modules, 'pypinyin'\n"
        "assert 'ruamel' not in sys.modules and 'ruamel.yaml' not in sys.modules, 'ruamel'\n"
        "ome.authoring.slugify('浏览器')\n"
        "assert 'pypinyin' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# --- new -------------------------------------------------------------------------------------


def test_new_writes_a_valid_draft_with_dates(target: Target) -> None:
    plan = plan_new(spec(aliases=(("zh-CN", ("浏览器验收",)),), topics=("ui",)), target, DAY)
    result = apply_new(plan, "create", DAY)
    assert result.created and result.decision == "create"
    assert result.card is not None
    path = target.root / "experiences" / "draft" / "validate-ui-in-the-browser.md"
    assert result.card.path == path
    text = path.read_text(encoding="utf-8")
    card = parse_card_text(text, str(path), "validate-ui-in-the-browser")
    assert (card.status, card.created, card.updated) == ("draft", "2025-03-04", "2025-03-04")
    assert card.aliases == (("zh-CN", ("浏览器验收",)),)
    assert "&id" not in text  # no YAML aliases for the repeated date


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        pytest.param({"title": " "}, "--title", id="no-title"),
        pytest.param({"summary": ""}, "--summary", id="no-summary"),
        pytest.param({"rule": ""}, "--rule", id="no-rule"),
        pytest.param({"policy": "always"}, "policy", id="bad-policy"),
        pytest.param({"rule": "a\n```\nb"}, "```", id="fence-in-rule"),
        pytest.param({"card_id": "../etc"}, "not a card id", id="unsafe-id"),
    ],
)
def test_new_refuses_incomplete_cards(
    target: Target, changes: dict[str, str], message: str
) -> None:
    with pytest.raises((CardError, UnsafeIdError), match=message):
        plan_new(spec(**changes), target, DAY)


def test_new_with_an_existing_explicit_id_is_refused(target: Target) -> None:
    write_card(target)
    with pytest.raises(CardError, match="already exists"):
        plan_new(spec(card_id="browser-check"), target, DAY)


def test_new_warns_about_secrets(target: Target) -> None:
    plan = plan_new(spec(summary="Log in as ops@example.com to check the page."), target, DAY)
    assert any("email address" in w for w in plan.warnings)


def test_new_finds_the_near_duplicate(target: Target) -> None:
    write_card(target)
    plan = plan_new(spec(), target, DAY)
    assert [d.existing.card.id for d in plan.duplicates] == ["browser-check"]
    assert plan.duplicates[0].similarity.score >= 0.5


def test_without_duplicates_every_decision_creates(target: Target) -> None:
    result = apply_new(plan_new(spec(), target, DAY), "merge", DAY)
    assert (result.decision, result.created) == ("create", True)


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_merge_unions_phrases_appends_the_rule_and_keeps_comments(target: Target) -> None:
    existing = write_card(target)
    plan = plan_new(spec(topics=("ui", "frontend"), aliases=(("zh-CN", ("浏览器验收",)),)), target)
    result = apply_new(plan, "merge", LATER)
    assert (result.created, result.changed) == (False, (existing,))
    assert not plan.path.exists()
    text = read(existing)
    card = parse_card_text(text, str(existing), "browser-check")
    assert card.triggers == ("real browser", "browser check", "ui check")
    assert card.topics == ("frontend", "ui")
    assert card.aliases == (("zh-CN", ("浏览器验收",)),)
    assert card.rule.startswith("Open the page in a real browser")
    assert card.rule.endswith(
        "(merged, review)\nLoad the page, click the changed parts, read the console."
    )
    assert card.updated == "2025-05-06"
    for kept in (
        "# why this card exists: a broken checkout page shipped",
        "team_owner: web-platform   # unknown key: must survive rewrites",
        "policy: must  # keep this must",
        "## Notes\n\nWritten after the checkout incident.",
    ):
        assert kept in text
    assert text.index("title:") < text.index("summary:") < text.index("team_owner:")


def test_merge_keeps_use_when_as_triggers_when_the_card_had_none(target: Target) -> None:
    text = HAND_WRITTEN_CARD.replace("  triggers: [real browser, browser check]\n", "")
    existing = write_card(target, text=text)
    apply_new(plan_new(spec(title="Browser check for UI"), target), "merge", LATER)
    card = parse_card_text(read(existing), str(existing), "browser-check")
    assert card.triggers[0] == "a UI change is about to be reported as done"


def test_skip_writes_nothing(target: Target) -> None:
    existing = write_card(target)
    before = read(existing)
    result = apply_new(plan_new(spec(), target), "skip", LATER)
    assert not result.created and result.changed == ()
    assert result.card is not None and result.card.card.id == "browser-check"
    assert read(existing) == before
    assert not list((target.root / "experiences" / "draft").iterdir())


def test_support_counts_confirmations(target: Target) -> None:
    existing = write_card(target)
    apply_new(plan_new(spec(), target), "support", DAY)
    apply_new(plan_new(spec(), target), "support", LATER)
    text = read(existing)
    assert "support:\n  count: 2\n  last: 2025-05-06\n" in text
    assert "team_owner: web-platform   # unknown key" in text
    assert not list((target.root / "experiences" / "draft").iterdir())


def test_contextualize_links_both_ways(target: Target) -> None:
    existing = write_card(target)
    result = apply_new(plan_new(spec(), target), "contextualize", DAY)
    assert result.created and result.card is not None
    new_id = result.card.card.id
    assert result.card.card.related == ("browser-check",)
    old = parse_card_text(read(existing), str(existing), "browser-check")
    assert old.related == (new_id,)


def test_contradict_marks_the_older_card_for_review(target: Target) -> None:
    existing = write_card(target)
    result = apply_new(plan_new(spec(), target), "contradict", DAY)
    assert result.created and result.card is not None
    text = read(existing)
    new_id = result.card.card.id
    assert f"review:\n  reason: contradicted by {new_id}\n  since: 2025-03-04\n" in text
    assert "updated: 2025-03-04" in text


def test_decisions_on_a_bundled_card_are_refused(data_dir: Path) -> None:
    init_data_dir(data_dir, starter=True)
    target = authoring.resolve_target(data_dir, data_dir, "global")
    plan = plan_new(spec(title="Never force push to main", triggers=("force push",)), target, DAY)
    assert plan.duplicates[0].existing.layer == "bundled"
    with pytest.raises(authoring.ReadOnlyCardError, match="read-only"):
        apply_new(plan, "merge", DAY)
    # contextualize links one way only: the bundled card is never written.
    result = apply_new(plan, "contextualize", DAY)
    assert result.created and result.changed == ()


def test_copy_plan_keeps_the_starter_id(data_dir: Path) -> None:
    init_data_dir(data_dir, starter=True)
    target = authoring.resolve_target(data_dir, data_dir, "global")
    result = apply_new(authoring.copy_plan("browser-validation", target, today=DAY), "create")
    assert result.card is not None
    assert result.card.path == target.root / "experiences" / "draft" / "browser-validation.md"
    assert result.card.card.status == "draft" and result.card.card.created == "2025-03-04"


# --- rule blocks and the editor loop ---------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param(
            "## Full Rule\n\n```text\nold\n```\n\n## Notes\nx\n",
            "## Full Rule\n\n```text\nold\n\nNEW\n```\n\n## Notes\nx\n",
            id="fenced",
        ),
        pytest.param(
            "## 完整规则\n\n````\nold\n```\ninner\n```\n````\n",
            "## 完整规则\n\n````\nold\n```\ninner\n```\n\nNEW\n````\n",
            id="zh-heading-long-fence",
        ),
        pytest.param(
            "## Full Rule\n\nplain rule\n\n## Notes\n",
            "## Full Rule\n\nplain rule\n\nNEW\n\n## Notes\n",
            id="plain",
        ),
    ],
)
def test_append_rule(body: str, expected: str) -> None:
    assert append_rule(body, "NEW") == expected


def test_error_header_round_trips() -> None:
    card_text = "---\nid: x\n---\n"
    shown = error_header(["x.md:2: bad", "x.md:3: worse"]) + card_text
    assert shown.startswith("# ome: ")
    assert strip_error_header(shown) == card_text


def scripted_editor(*answers: str | None) -> tuple[list[str], object]:
    """An editor that returns the given texts in turn and records what it was shown."""
    shown: list[str] = []
    queue = list(answers)

    def edit(text: str) -> str | None:
        shown.append(text)
        return queue.pop(0)

    return shown, edit


def test_edit_loop_reopens_with_the_error_then_accepts() -> None:
    def validate(text: str) -> str:
        if "good" not in text:
            raise CardError("card.md:2: not good enough")
        return text

    shown, editor = scripted_editor("bad", "good")
    outcome = edit_until_valid("original", validate, editor)  # type: ignore[arg-type]
    assert outcome.value == "good"
    assert shown[1].startswith("# ome: not saved") and "card.md:2: not good enough" in shown[1]
    assert shown[1].endswith("bad")


@pytest.mark.parametrize(
    ("answers", "reason"),
    [
        pytest.param((None,), "without saving", id="not-saved"),
        pytest.param(("  \n",), "empty", id="empty"),
        pytest.param(("original\n",), "nothing was changed", id="unchanged-original"),
        pytest.param(("bad", ""), "empty", id="empty-after-error"),
    ],
)
def test_edit_loop_gives_up(answers: tuple[str | None, ...], reason: str) -> None:
    def validate(text: str) -> str:
        raise CardError("bad card")

    _, editor = scripted_editor(*answers)
    outcome = edit_until_valid("original", validate, editor)  # type: ignore[arg-type]
    assert outcome.value is None and reason in outcome.reason


def test_edit_loop_gives_up_on_an_unchanged_bad_save() -> None:
    def validate(text: str) -> str:
        raise CardError("bad card")

    shown, editor = scripted_editor("bad", error_header(["bad card"]) + "bad")
    with pytest.raises(CardError, match="still invalid"):
        edit_until_valid("original", validate, editor)  # type: ignore[arg-type]
    assert len(shown) == 2


def test_edit_card_keeps_comments_and_sets_updated(target: Target) -> None:
    path = write_card(target)
    _, editor = scripted_editor(read(path).replace("risk: high", "risk: medium"))
    result = edit_card(locate(target), editor, LATER)  # type: ignore[arg-type]
    assert result.changed
    text = read(path)
    assert "risk: medium" in text and "updated: 2025-05-06" in text
    assert "# why this card exists" in text and "team_owner: web-platform" in text


def test_edit_card_refuses_a_status_change_and_secrets_in_active_cards(target: Target) -> None:
    path = write_card(target)
    original = read(path)
    moved = original.replace("status: active", "status: archived")
    secret = original.replace("click through", "use ghp_" + "a" * 36 + " to click through")
    shown, editor = scripted_editor(moved, secret, "")
    result = edit_card(locate(target), editor, LATER)  # type: ignore[arg-type]
    assert not result.changed
    assert "status must stay 'active'" in shown[1]
    assert "GitHub token" in shown[2]
    assert read(path) == original


# --- lifecycle -------------------------------------------------------------------------------


def test_enable_archive_restore_delete(target: Target) -> None:
    write_card(target, "draft")
    enabled = enable_card(locate(target), DAY)
    assert (enabled.from_status, enabled.status) == ("draft", "active")
    active = target.root / "experiences" / "active" / "browser-check.md"
    assert enabled.path == active and active.is_file()
    assert not (target.root / "experiences" / "draft" / "browser-check.md").exists()
    text = read(active)
    assert "status: active" in text and "team_owner: web-platform   # unknown key" in text
    assert "# why this card exists" in text and "policy: must  # keep this must" in text

    archived = archive_card(locate(target), "replaced by the playwright card", DAY)
    assert archived.status == "archived"
    assert "archived_reason: replaced by the playwright card" in read(archived.path)

    restored = restore_card(locate(target), LATER)
    assert restored.path == active
    assert "archived_reason" not in read(active) and "updated: 2025-05-06" in read(active)

    deleted = delete_card(locate(target))
    assert deleted.status is None and not active.exists()
    with pytest.raises(CardNotFoundError):
        locate(target)


def test_enable_refuses_secrets_and_wrong_states(target: Target) -> None:
    write_card(
        target, "draft", HAND_WRITTEN_CARD.replace("a real browser and", "AKIAABCDEFGHIJKLMNOP")
    )
    with pytest.raises(CardError, match="AWS access key"):
        enable_card(locate(target), DAY)
    assert (target.root / "experiences" / "draft" / "browser-check.md").is_file()
    write_card(target, "archived")
    with pytest.raises(CardError, match="more than one folder"):
        locate(target)


def test_enable_of_an_active_card_says_so(target: Target) -> None:
    write_card(target)
    with pytest.raises(CardError, match="already active"):
        enable_card(locate(target), DAY)


def test_verify_sets_last_verified(target: Target) -> None:
    path = write_card(target)
    verify_card(locate(target), LATER)
    text = read(path)
    assert "created: 2024-01-02\nupdated: 2025-05-06\nlast_verified: 2025-05-06\n" in text


def test_bundled_cards_are_read_only(data_dir: Path) -> None:
    init_data_dir(data_dir, starter=True)
    with pytest.raises(authoring.ReadOnlyCardError, match="new --from browser-validation"):
        locate_card(data_dir, data_dir, "browser-validation")


def test_a_link_out_of_the_library_is_refused(target: Target, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text(HAND_WRITTEN_CARD.format(status="active"), encoding="utf-8")
    link = target.root / "experiences" / "active" / "browser-check.md"
    link.symlink_to(outside)
    with pytest.raises(UnsafeIdError, match="outside"):
        locate(target)


def test_project_scope_writes_into_the_project_library(data_dir: Path, tmp_path: Path) -> None:
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    target = authoring.resolve_target(data_dir, project / "src", "project")
    result = apply_new(plan_new(spec(), target, DAY), "create", DAY)
    assert result.card is not None
    expected = project / ".oh-my-experience" / "experiences" / "draft"
    assert result.card.path.parent == expected
    assert result.card.card.scope_level == "project"
    # With no --scope, lookup finds it in the project library.
    located = locate_card(data_dir, project, result.card.card.id)
    assert located.target.scope == "project"
