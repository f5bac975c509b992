"""The core commands through CliRunner: version, init, match, doctor, project, show."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from ome import __version__
from ome.cli import cli
from ome.resources import resource_dir

BUNDLED = str(resource_dir("experiences"))


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def run_json(*args: str) -> dict[str, Any]:
    result = run(*args, "--json")
    doc: dict[str, Any] = json.loads(result.output)
    return doc


def matched(prompt: str) -> list[str]:
    return [m["id"] for m in run_json("match", prompt)["matches"]]


def test_version() -> None:
    assert run("--version").output.strip() == f"ome, version {__version__}"


def test_python_dash_m_works_like_ome() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ome", "--version"], capture_output=True, text=True, check=True
    )
    assert __version__ in done.stdout


@pytest.mark.parametrize(
    ("prompt", "card_id"),
    [
        (
            "Fix the layout bug on the settings page and check it in a real browser before you"
            " say it is done.",
            "browser-validation",
        ),
        ("Force push my rebased branch to the shared main branch.", "no-force-push-shared-branch"),
        ("把数据库连接串和 API key 写进 .env 然后提交到仓库", "never-commit-secrets"),
    ],
    ids=["browser", "force-push", "secrets-zh"],
)
def test_bundled_cards_match_without_init(prompt: str, card_id: str, data_dir: Path) -> None:
    assert not data_dir.exists()
    assert card_id in matched(prompt)


@pytest.mark.parametrize(
    "prompt", ["What is the capital of France?", "Write a haiku about the sea", "thanks!"]
)
def test_unrelated_prompts_match_nothing(prompt: str) -> None:
    doc = run_json("match", prompt)
    assert doc["matches"] == [] and doc["context"] == ""
    assert doc["abstain_reason"]


def test_match_json_snapshot(snapshot: Any) -> None:
    doc = run_json("match", "Force push my rebased branch to the shared main branch.")
    assert json.dumps(doc, ensure_ascii=False, indent=1).replace(BUNDLED, "<bundled>") == snapshot


def test_match_explain_is_a_readable_table() -> None:
    output = run("match", "Force push my rebased branch to the shared main", "--explain").output
    assert "score" in output and "bm25f" in output and "decision" in output
    assert "no-force-push-shared-branch" in output and "RETURNED" in output


def test_match_options_limit_and_threshold() -> None:
    prompt = "Force push my rebased branch to the shared main branch."
    assert run_json("match", prompt, "--threshold", "100")["matches"] == []
    doc = run_json("match", prompt, "--explain", "--limit", "1")
    assert doc["diagnostics"]["limit"] == 1 and len(doc["matches"]) == 1


def test_init_creates_the_layout_and_keeps_config(data_dir: Path) -> None:
    doc = run_json("init")
    assert doc["ok"] and doc["starter_cards"]
    for status in ("draft", "active", "archived"):
        assert (data_dir / "experiences" / status).is_dir()
    config = (data_dir / "config.yaml").read_text("utf-8")
    assert "threshold: 40" in config
    assert run_json("init")["created"] == []
    assert (data_dir / "config.yaml").read_text("utf-8") == config


def test_init_no_starter_turns_bundled_cards_off(data_dir: Path) -> None:
    assert run_json("init", "--no-starter")["starter_cards"] is False
    assert matched("Force push my rebased branch to the shared main branch.") == []


def test_init_can_install_a_hook(isolated_home: Path) -> None:
    doc = run_json("init", "--provider", "claude")
    assert doc["hooks"][0]["action"] == "installed"
    settings = json.loads((isolated_home / ".claude" / "settings.json").read_text("utf-8"))
    command = settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    assert command.startswith("/") and "-m ome.hook --provider claude" in command


UNKNOWN_HINT_CARD = """---
schema: ome-card
id: rotate-leaked-keys
status: active
title: Rotate a leaked key
summary: A key that leaked must be revoked and rotated, not just deleted from the repository.
criteria:
  use_when: [a credential leaked]
  ignore_when: []
engine_hints:
  positive: [no_such_signal_xyz]
recall:
  triggers: [leaked api key, rotate the key]
---

## Full Rule

```text
Revoke, rotate, then clean history.
```
"""


def test_unknown_signal_is_reported_and_the_card_still_matches(data_dir: Path) -> None:
    run("init", "--no-starter")
    path = data_dir / "experiences" / "active" / "rotate-leaked-keys.md"
    path.write_text(UNKNOWN_HINT_CARD, "utf-8")
    doctor = run("doctor", "--json")
    assert "no_such_signal_xyz" in doctor.output
    lint = run_json("experience", "lint")
    assert any("no_such_signal_xyz" in f["message"] for f in lint["findings"])
    assert matched("We found a leaked api key in the logs, rotate the key") == [
        "rotate-leaked-keys"
    ]


def test_invalid_card_is_reported_and_others_still_match(data_dir: Path) -> None:
    run("init")
    broken = data_dir / "experiences" / "active" / "broken.md"
    broken.write_text("---\nid: broken\nsummary: [oops\n---\n", "utf-8")
    doc = run_json("match", "Force push my rebased branch to the shared main branch.")
    assert doc["matches"] and "broken.md" in doc["invalid_cards"][0]["path"]
    assert run("doctor").exit_code == 1


def test_doctor_json_lists_checks(data_dir: Path) -> None:
    run("init")
    doc = run_json("doctor")
    names = {c["name"] for c in doc["checks"]}
    assert {"data_dir", "config", "signals", "library", "unknown_signals"} <= names
    assert doc["ok"]


def test_project_init_and_status(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    sub = repo / "packages" / "web"
    sub.mkdir(parents=True)
    doc = run_json("project", "init", "--cwd", str(sub))
    assert doc["project_root"] == str(repo)
    assert (repo / ".oh-my-experience" / "experiences" / "active").is_dir()
    status = run_json("project", "status", "--cwd", str(sub))
    assert status["exists"] and status["counts"] == {"active": 0, "archived": 0, "draft": 0}


def test_show_rule_of_a_bundled_card() -> None:
    output = run("experience", "show", "no-force-push-shared-branch", "--section", "rule").output
    assert "force" in output.lower()


def test_show_refuses_a_path_as_an_id() -> None:
    result = CliRunner().invoke(cli, ["experience", "show", "../../etc/passwd"])
    assert result.exit_code != 0
    assert "not a card id" in result.output


def test_json_errors_have_a_code() -> None:
    result = CliRunner().invoke(cli, ["experience", "show", "no-such-card", "--json"])
    assert result.exit_code == 1
    doc = json.loads(result.output)
    assert doc == {
        "ok": False,
        "error": {"code": "card_not_found", "message": doc["error"]["message"]},
    }


def test_show_snapshot(snapshot: Any) -> None:
    assert run("experience", "show", "never-commit-secrets").output == snapshot
