"""`ome experience ...` through CliRunner: list/show/lint, new, edit and the lifecycle moves."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from conftest import HAND_WRITTEN_CARD

from ome.cli import cli

BROWSER_PROMPT = "改完页面以后要做浏览器验收，在真实浏览器里点一遍"
HAND_WRITTEN = HAND_WRITTEN_CARD.format(status="active")


def run(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)


def run_json(*args: str) -> dict[str, Any]:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.output
    doc: dict[str, Any] = json.loads(result.stdout)
    return doc


def matched_ids(prompt: str) -> list[tuple[str, str]]:
    return [(m["id"], m["layer"]) for m in run_json("match", prompt)["matches"]]


@pytest.fixture
def fresh(data_dir: Path) -> Path:
    assert run("init", "--no-starter").exit_code == 0
    return data_dir


def new_browser_card(*extra: str) -> dict[str, Any]:
    return run_json(
        "experience",
        "new",
        "--title",
        "浏览器验收",
        "--summary",
        "改完页面以后，要在真实浏览器里打开并点一遍，确认没有问题。",
        "--rule",
        "打开真实浏览器，走一遍改过的页面和交互，看控制台有没有报错。",
        "--trigger",
        "浏览器验收",
        "--trigger",
        "在真实浏览器里点一遍",
        *extra,
    )


def test_chinese_card_from_draft_to_recall_to_deletion(fresh: Path) -> None:
    doc = new_browser_card()
    card_id = doc["id"]
    assert card_id.startswith("liu-lan-qi-yan-shou")
    assert (doc["status"], doc["decision"], doc["new_card"]) == ("draft", "create", True)
    draft = Path(doc["path"])
    assert draft == fresh / "experiences" / "draft" / f"{card_id}.md"
    assert draft.is_file()
    assert matched_ids(BROWSER_PROMPT) == []  # drafts are never recalled

    enabled = run_json("experience", "enable", card_id)
    assert (enabled["from_status"], enabled["status"]) == ("draft", "active")
    assert matched_ids(BROWSER_PROMPT) == [(card_id, "global")]

    archived = run_json("experience", "archive", card_id, "--reason", "superseded")
    assert archived["status"] == "archived"
    assert "archived_reason: superseded" in Path(archived["path"]).read_text(encoding="utf-8")
    assert matched_ids(BROWSER_PROMPT) == []

    restored = run_json("experience", "restore", card_id)
    assert restored["status"] == "active"
    assert matched_ids(BROWSER_PROMPT) == [(card_id, "global")]

    deleted = run_json("experience", "delete", card_id, "--yes")
    assert deleted["action"] == "delete" and not Path(deleted["path"]).exists()
    assert matched_ids(BROWSER_PROMPT) == []


def test_show_refuses_a_path_instead_of_an_id(fresh: Path) -> None:
    result = run("experience", "show", "../../etc/passwd")
    assert result.exit_code != 0
    assert "not a card id" in result.output
    doc = json.loads(run("experience", "show", "../../etc/passwd", "--json").stdout)
    assert doc["error"]["code"] == "unsafe_id"


@pytest.mark.parametrize("command", ["enable", "archive", "restore", "delete", "verify", "edit"])
def test_lifecycle_commands_refuse_unsafe_ids(fresh: Path, command: str) -> None:
    result = run("experience", command, "../x", "--yes" if command == "delete" else "--json")
    assert result.exit_code != 0 and "not a card id" in result.output


def test_list_show_and_lint(fresh: Path) -> None:
    card_id = new_browser_card()["id"]
    listed = run_json("experience", "list", "--status", "draft")
    assert [c["id"] for c in listed["cards"]] == [card_id]
    assert run_json("experience", "list", "--status", "active")["cards"] == []
    rule = run("experience", "show", card_id, "--section", "rule")
    assert rule.exit_code == 0 and "打开真实浏览器" in rule.output
    assert run_json("experience", "show", card_id)["triggers"][0] == "浏览器验收"
    lint = run("experience", "lint")
    assert lint.exit_code == 0, lint.output
    bad = fresh / "experiences" / "active" / "bad.md"
    bad.write_text("---\nid: bad\nstatus: active\n---\nno rule\n", encoding="utf-8")
    lint = run("experience", "lint", str(bad))
    assert lint.exit_code == 1 and "summary" in lint.output
    listed = run_json("experience", "list")
    assert [i["path"] for i in listed["invalid_cards"]] == [str(bad)]


def test_lint_of_the_libraries_warns_of_a_related_id_naming_no_card(fresh: Path) -> None:
    active = fresh / "experiences" / "active"
    linked = HAND_WRITTEN.replace("created: 2024-01-02", "related: [no-such-card, spare-check]")
    (active / "browser-check.md").write_text(linked, encoding="utf-8")
    spare = HAND_WRITTEN.replace("id: browser-check", "id: spare-check")
    (active / "spare-check.md").write_text(spare, encoding="utf-8")
    doc = run_json("experience", "lint")
    assert doc["ok"] and doc["warnings"] == 1
    (finding,) = doc["findings"]
    path = str(active / "browser-check.md")
    assert (finding["code"], finding["path"]) == ("unknown_related", path)
    assert "'no-such-card'" in finding["message"]
    # One file linted alone cannot tell: the card it links to may be in another file.
    alone = run_json("experience", "lint", str(active / "browser-check.md"))
    assert alone["findings"] == []


def test_new_without_fields_and_without_a_terminal_says_what_is_missing(fresh: Path) -> None:
    result = run("experience", "new")
    assert result.exit_code == 2
    assert "missing --title, --summary, --rule" in result.output
    assert "$EDITOR" in result.output


def test_new_names_near_duplicates_on_stderr_and_creates(fresh: Path) -> None:
    first = new_browser_card()["id"]
    result = run(
        "experience", "new", "--title", "浏览器验收", "--summary", "看一眼页面", "--rule", "看一眼"
    )
    assert result.exit_code == 0
    assert first in result.stderr and "--on-duplicate" in result.stderr
    assert (fresh / "experiences" / "draft" / f"{first}-2.md").is_file()


def test_new_warns_about_personal_data_and_enable_refuses_it(fresh: Path) -> None:
    doc = run_json(
        "experience",
        "new",
        "--title",
        "Ask the release manager",
        "--summary",
        "Mail ops-lead@example.com before a release.",
        "--rule",
        "Write first.",
    )
    assert any("email address" in w for w in doc["warnings"])
    result = run("experience", "enable", doc["id"])
    assert result.exit_code == 1 and "email address" in result.output
    assert Path(doc["path"]).is_file()


def write_hand_written(library: Path) -> Path:
    path = library / "experiences" / "active" / "browser-check.md"
    path.write_text(HAND_WRITTEN, encoding="utf-8")
    return path


def test_merge_then_archive_restore_keep_comments_and_unknown_keys(fresh: Path) -> None:
    path = write_hand_written(fresh)
    doc = run_json(
        "experience",
        "new",
        "--title",
        "Real browser check for UI",
        "--summary",
        "Try UI changes in a browser.",
        "--rule",
        "Check the console too.",
        "--trigger",
        "browser check",
        "--trigger",
        "ui smoke test",
        "--on-duplicate",
        "merge",
    )
    assert (doc["decision"], doc["new_card"], doc["id"]) == ("merge", False, "browser-check")
    assert doc["duplicates"][0]["id"] == "browser-check"
    assert doc["triggers"] == ["real browser", "browser check", "ui smoke test"]
    run_json("experience", "archive", "browser-check")
    run_json("experience", "restore", "browser-check")
    text = path.read_text(encoding="utf-8")
    for kept in (
        "# why this card exists: a broken checkout page shipped",
        "team_owner: web-platform   # unknown key: must survive rewrites",
        "policy: must  # keep this must",
        "(merged, review)\nCheck the console too.",
    ):
        assert kept in text


def test_draft_enable_keeps_comments_and_unknown_keys(fresh: Path) -> None:
    draft = fresh / "experiences" / "draft" / "browser-check.md"
    draft.write_text(HAND_WRITTEN.replace("status: active", "status: draft"), encoding="utf-8")
    run_json("experience", "enable", "browser-check")
    text = (fresh / "experiences" / "active" / "browser-check.md").read_text(encoding="utf-8")
    assert "status: active" in text
    assert "team_owner: web-platform   # unknown key" in text and "# why this card" in text


@pytest.mark.parametrize(
    ("decision", "check"),
    [
        ("skip", lambda text, new_id: "updated:" not in text and new_id == "browser-check"),
        ("support", lambda text, new_id: "support:\n  count: 1\n" in text),
        ("contextualize", lambda text, new_id: f"related:\n  - {new_id}\n" in text),
        ("contradict", lambda text, new_id: f"reason: contradicted by {new_id}" in text),
    ],
)
def test_duplicate_decisions_from_the_command_line(fresh: Path, decision: str, check: Any) -> None:
    path = write_hand_written(fresh)
    doc = run_json(
        "experience",
        "new",
        "--title",
        "Browser check",
        "--summary",
        "s",
        "--rule",
        "r",
        "--trigger",
        "real browser",
        "--on-duplicate",
        decision,
    )
    assert doc["decision"] == decision
    assert check(path.read_text(encoding="utf-8"), doc["id"])


def test_delete_asks_and_refuses_without_a_terminal(fresh: Path) -> None:
    path = write_hand_written(fresh)
    result = run("experience", "delete", "browser-check")
    assert result.exit_code != 0 and "pass --yes" in result.output
    assert path.is_file()


def test_verify_records_the_date(fresh: Path) -> None:
    path = write_hand_written(fresh)
    doc = run_json("experience", "verify", "browser-check")
    assert doc["action"] == "verify"
    assert "last_verified: " in path.read_text(encoding="utf-8")


def test_bundled_cards_are_read_only(data_dir: Path) -> None:
    assert run("init").exit_code == 0
    result = run("experience", "archive", "browser-validation")
    assert result.exit_code == 1
    assert "read-only" in result.output and "new --from browser-validation" in result.output


def test_project_scope(fresh: Path, tmp_path: Path) -> None:
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    doc = new_browser_card("--scope", "project", "--cwd", str(project))
    assert Path(doc["path"]).parent == project / ".oh-my-experience" / "experiences" / "draft"
    enabled = run_json("experience", "enable", doc["id"], "--cwd", str(project))
    assert Path(enabled["path"]).parent.name == "active"


# --- the user's card over the starter card ---------------------------------------------------


def test_a_copied_starter_card_replaces_the_starter_at_recall(data_dir: Path) -> None:
    assert run("init").exit_code == 0
    assert ("browser-validation", "bundled") in matched_ids(BROWSER_PROMPT)
    copied = run_json("experience", "new", "--from", "browser-validation")
    assert copied["id"] == "browser-validation" and copied["status"] == "draft"
    run_json("experience", "enable", "browser-validation")
    matches = matched_ids(BROWSER_PROMPT)
    assert ("browser-validation", "global") in matches
    assert ("browser-validation", "bundled") not in matches


def test_a_users_own_card_wins_over_the_starter_it_duplicates(data_dir: Path) -> None:
    assert run("init").exit_code == 0
    doc = run_json(
        "experience",
        "new",
        "--title",
        "Validate UI changes in a real browser",
        "--summary",
        "Open the page in a real browser before calling a UI change done.",
        "--rule",
        "Open it, click through it, read the console.",
        "--trigger",
        "real browser",
        "--trigger",
        "browser validation",
        "--alias",
        "zh-CN=浏览器验收",
        "--alias",
        "zh-CN=在真实浏览器里验证",
    )
    assert doc["duplicates"][0]["id"] == "browser-validation"
    run_json("experience", "enable", doc["id"])
    matches = matched_ids(BROWSER_PROMPT)
    assert (doc["id"], "global") in matches
    assert ("browser-validation", "bundled") not in matches


# --- editing with a real $EDITOR ----------------------------------------------------------------

EDITOR_SCRIPT = """\
import json, pathlib, sys
path = pathlib.Path(sys.argv[1])
here = pathlib.Path(__file__).parent
counter = here / "count"
n = int(counter.read_text()) + 1 if counter.exists() else 1
counter.write_text(str(n))
text = path.read_text(encoding="utf-8")
(here / f"shown-{n}.txt").write_text(text, encoding="utf-8")
for old, new in json.loads((here / "steps.json").read_text(encoding="utf-8"))[n - 1]:
    text = text.replace(old, new)
path.write_text(text, encoding="utf-8")
"""


Steps = list[list[tuple[str, str]]]


def editor_env(tmp_path: Path, steps: Steps) -> tuple[dict[str, str], Path]:
    """EDITOR: a script applying the replacements of one step per opening, logging what it saw."""
    folder = tmp_path / "editor"
    folder.mkdir()
    (folder / "edit.py").write_text(EDITOR_SCRIPT, encoding="utf-8")
    (folder / "steps.json").write_text(json.dumps(steps), encoding="utf-8")
    return {"EDITOR": f'"{sys.executable}" "{folder / "edit.py"}"', "VISUAL": ""}, folder


def test_edit_reopens_a_bad_save_with_the_error_then_saves(fresh: Path, tmp_path: Path) -> None:
    path = write_hand_written(fresh)
    env, folder = editor_env(
        tmp_path,
        [
            [("risk: high", "risk: extreme")],
            [("risk: extreme", "risk: medium")],
        ],
    )
    result = run("experience", "edit", "browser-check", env=env)
    assert result.exit_code == 0, result.output
    second = (folder / "shown-2.txt").read_text(encoding="utf-8")
    assert second.startswith("# ome: not saved")
    assert "'recall.risk' is 'extreme'" in second
    text = path.read_text(encoding="utf-8")
    assert "risk: medium" in text and "updated: " in text
    assert "# why this card exists" in text and "team_owner: web-platform" in text
    assert "# ome:" not in text


def test_edit_gives_up_on_an_unchanged_bad_save(fresh: Path, tmp_path: Path) -> None:
    path = write_hand_written(fresh)
    env, folder = editor_env(tmp_path, [[("summary: A visible", "summary: [A visible")], []])
    result = run("experience", "edit", "browser-check", env=env)
    assert result.exit_code == 1
    assert "still invalid" in result.output and "unchanged" in result.output
    assert path.read_text(encoding="utf-8") == HAND_WRITTEN
    assert (folder / "count").read_text() == "2"


def test_edit_gives_up_on_an_empty_save(fresh: Path, tmp_path: Path) -> None:
    path = write_hand_written(fresh)
    env, _ = editor_env(tmp_path, [[(HAND_WRITTEN, "")]])
    result = run("experience", "edit", "browser-check", env=env)
    assert result.exit_code == 0 and "Not saved (an empty file was saved)" in result.output
    assert path.read_text(encoding="utf-8") == HAND_WRITTEN


def test_new_on_a_terminal_opens_a_template_in_the_editor(fresh: Path, tmp_path: Path) -> None:
    env, folder = editor_env(
        tmp_path,
        [
            [('title: ""', "title: 浏览器验收"), ('summary: ""', "summary: 没填规则")],
            [("```text\n```", "```text\n在真实浏览器里点一遍。\n```")],
        ],
    )
    controller, terminal = os.openpty()  # a real terminal on stdin: the template path
    try:
        done = subprocess.run(
            [sys.executable, "-m", "ome", "experience", "new", "--json"],
            stdin=terminal,
            capture_output=True,
            env={**os.environ, **env},
            timeout=60,
            check=False,
        )
    finally:
        os.close(terminal)
        os.close(controller)
    assert done.returncode == 0, done.stderr.decode()
    doc = json.loads(done.stdout)
    assert doc["id"] == "liu-lan-qi-yan-shou" and doc["rule"] == "在真实浏览器里点一遍。"
    assert "the card has no rule" in (folder / "shown-2.txt").read_text(encoding="utf-8")
    text = Path(doc["path"]).read_text(encoding="utf-8")
    assert "# The id is made from the title" in text and "status: draft" in text


def test_new_on_a_terminal_asks_what_to_do_with_a_duplicate(fresh: Path) -> None:
    path = write_hand_written(fresh)
    controller, terminal = os.openpty()
    try:
        os.write(controller, b"support\n")  # the answer to the question, typed ahead
        done = subprocess.run(
            [sys.executable, "-m", "ome", "experience", "new", "--json"]
            + ["--title", "Browser check", "--summary", "s", "--rule", "r"]
            + ["--trigger", "real browser"],
            stdin=terminal,
            capture_output=True,
            timeout=60,
            check=False,
        )
    finally:
        os.close(terminal)
        os.close(controller)
    assert done.returncode == 0, done.stderr.decode()
    assert b"browser-check" in done.stderr and b"support" in done.stderr
    assert json.loads(done.stdout)["decision"] == "support"
    assert "support:\n  count: 1\n" in path.read_text(encoding="utf-8")
