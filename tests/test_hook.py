"""The agent hook run as agents run it: a real subprocess, payloads shaped like each agent's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ome.engine import is_maintenance_command
from ome.hook import SessionState, parse_args, read_payload
from ome.providers import MAX_OUTPUT_CHARS, PROVIDERS, check_output

PAYLOADS = Path(__file__).parent / "payloads"
MODULE_HOOK = [sys.executable, "-m", "ome.hook"]
CONSOLE_SCRIPT = shutil.which("ome", path=str(Path(sys.executable).parent)) or "ome"
CLI_HOOK = [CONSOLE_SCRIPT, "hook", "run"]

CARD_ID = "force-push-shared-branch"
CARD = """---
schema: ome-card
id: force-push-shared-branch
status: active
title: Do not force-push a shared branch
category: git
summary: Force-pushing a branch other people pull from rewrites their history.
criteria:
  use_when:
    - about to force push after a rebase
    - a push to a shared branch is rejected as non-fast-forward
  ignore_when:
    - explain what force push does
recall:
  policy: must
  risk: high
  triggers:
    - force push
    - shared branch
    - git push --force
  aliases:
    zh-CN: [强制推送, 共享分支, 强推]
  topics: [git]
---

# Do not force-push a shared branch

## Problem
A forced push replaces the history others built on.

## Usage
Use when pushing rewritten history.

## Full Rule

```text
Push rewritten work to a new branch; force only with the owner's consent and --force-with-lease.
```
"""

EN_PROMPT = "Please rebase my feature branch and force push it to the shared develop branch"
ZH_PROMPT = "帮我把 feature 分支 rebase 之后强制推送到共享的 develop 分支"
UNRELATED_PROMPT = "Add a dark mode toggle to the settings page of the web app"
EVENT_NAMES = {"claude": "UserPromptSubmit", "codex": "UserPromptSubmit", "gemini": "BeforeAgent"}


def write_card(folder: Path, card_id: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{card_id}.md"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def project(data_dir: Path, tmp_path: Path) -> Path:
    """A data dir holding only the force-push card (and one invalid card), and a project dir."""
    active = data_dir / "experiences" / "active"
    write_card(active, CARD_ID, CARD)
    write_card(
        active, "broken", "---\nschema: ome-card\nid: broken\nstatus: active\n---\nno rule\n"
    )
    # A generous deadline keeps these tests steady on a loaded machine; the 1.5 s default has
    # its own tests below.
    (data_dir / "config.yaml").write_text(
        "library:\n  starter_cards: false\nhook:\n  reminder_prompts: 2\n  deadline_ms: 10000\n",
        encoding="utf-8",
    )
    shop = tmp_path / "shop"
    (shop / ".git").mkdir(parents=True)
    return shop


def payload(name: str, **fields: Any) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((PAYLOADS / f"{name}.json").read_text(encoding="utf-8"))
    doc.update(fields)
    return doc


def run_hook(
    provider: str,
    stdin: bytes | dict[str, Any],
    *extra: str,
    command: list[str] = MODULE_HOOK,
    timeout: float = 20,
) -> subprocess.CompletedProcess[bytes]:
    data = json.dumps(stdin).encode("utf-8") if isinstance(stdin, dict) else stdin
    return subprocess.run(
        [*command, "--provider", provider, *extra],
        input=data,
        capture_output=True,
        timeout=timeout,
        check=False,
    )


def context_of(provider: str, stdout: bytes) -> str:
    doc = json.loads(stdout)
    assert doc == {
        "hookSpecificOutput": {
            "hookEventName": EVENT_NAMES[provider],
            "additionalContext": doc["hookSpecificOutput"]["additionalContext"],
        }
    }
    context = doc["hookSpecificOutput"]["additionalContext"]
    assert isinstance(context, str)
    return context


# --- the done-when table ------------------------------------------------------------------------


@pytest.mark.parametrize("command", [MODULE_HOOK, CLI_HOOK], ids=["python-m", "console-script"])
@pytest.mark.parametrize("provider", ["claude", "codex", "gemini"])
def test_force_push_prompt_injects_the_card(
    project: Path, provider: str, command: list[str]
) -> None:
    done = run_hook(
        provider, payload(provider, cwd=str(project), prompt=EN_PROMPT), command=command
    )
    assert done.returncode == 0, done.stderr
    context = context_of(provider, done.stdout)
    assert CARD_ID in context
    assert len(done.stdout.decode("utf-8")) <= MAX_OUTPUT_CHARS


@pytest.mark.parametrize("provider", ["claude", "codex", "gemini"])
def test_chinese_force_push_prompt_injects_the_card(project: Path, provider: str) -> None:
    done = run_hook(provider, payload(provider, cwd=str(project), prompt=ZH_PROMPT))
    assert done.returncode == 0, done.stderr
    assert CARD_ID in context_of(provider, done.stdout)


@pytest.mark.parametrize("provider", ["claude", "codex", "gemini"])
def test_unrelated_prompt_prints_nothing(project: Path, provider: str) -> None:
    done = run_hook(provider, payload(provider, cwd=str(project), prompt=UNRELATED_PROMPT))
    assert (done.returncode, done.stdout) == (0, b"")


@pytest.mark.parametrize(
    "inserted",
    [
        # A lone surrogate escaped as JavaScript's JSON.stringify writes half an emoji.
        pytest.param(b"\\ud83d ", id="half-emoji"),
        pytest.param(b"\xff\xfe ", id="bad-utf8"),
    ],
)
def test_a_damaged_prompt_still_recalls(project: Path, inserted: bytes) -> None:
    data = json.dumps(payload("claude", cwd=str(project), prompt=EN_PROMPT)).encode()
    done = run_hook("claude", data.replace(b"force push", inserted + b"force push"))
    assert done.returncode == 0 and not done.stderr, done.stderr
    assert CARD_ID in context_of("claude", done.stdout)


def test_an_invalid_card_beside_it_does_not_stop_the_match(project: Path, data_dir: Path) -> None:
    assert (data_dir / "experiences" / "active" / "broken.md").is_file()
    done = run_hook("claude", payload("claude", cwd=str(project), prompt=EN_PROMPT))
    assert CARD_ID in context_of("claude", done.stdout)


@pytest.mark.parametrize(
    "stdin",
    [
        pytest.param(os.urandom(4096), id="random-bytes"),
        pytest.param(b"", id="empty"),
        pytest.param(b'{"prompt": "force push', id="invalid-json"),
        pytest.param(b'["force push to the shared branch"]', id="json-array"),
        pytest.param(b"\xff\xfe\x00{}", id="not-utf8"),
        pytest.param(b"[" * 100_000 + b"]" * 100_000, id="deeply-nested"),
        pytest.param(
            json.dumps(
                {"prompt": "force push the shared branch " + "lorem ipsum " * 90_000}
            ).encode(),
            id="1mb-prompt",
        ),
    ],
)
@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_any_stdin_exits_0_within_5s_with_valid_output(
    project: Path, data_dir: Path, provider: str, stdin: bytes
) -> None:
    (data_dir / "config.yaml").write_text("library:\n  starter_cards: false\n")  # 1.5 s default
    start = time.monotonic()
    done = run_hook(provider, stdin)
    assert time.monotonic() - start < 5
    assert done.returncode == 0
    event = PROVIDERS[provider].events[0]
    assert check_output(PROVIDERS[provider], event, done.stdout) == ""


def test_past_the_deadline_the_agent_gets_the_empty_response(project: Path, data_dir: Path) -> None:
    """stdin that never closes: the one deadline (1.5 s by default) still ends the run."""
    (data_dir / "config.yaml").write_text("library:\n  starter_cards: false\n")
    start = time.monotonic()
    with subprocess.Popen(
        [*MODULE_HOOK, "--provider", "claude"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        returncode = proc.wait(timeout=5)  # stdin stays open: the payload never arrives
        stdout, stderr = proc.stdout.read(), proc.stderr.read()
    assert time.monotonic() - start < 5
    assert (returncode, stdout) == (0, b"")
    assert b"deadline" in stderr and stderr.count(b"\n") == 1


# One prompt answered with card parsing already past its deadline; prints library size, output.
PAST_DEADLINE = """
import json, sys, time
from ome.config import load_config, resolve_data_dir
from ome.hook import answer_prompt
from ome.providers import PROVIDERS
claude = PROVIDERS["claude"]
config = load_config(resolve_data_dir())
answer = answer_prompt(claude, claude.events[0], json.loads(sys.argv[1]), config, time.monotonic())
print(json.dumps([answer.run.library_size, answer.output.decode()]))
"""


def test_past_its_parse_deadline_a_hook_answers_from_the_cache_and_a_builder_finishes(
    project: Path, data_dir: Path
) -> None:
    """The hook's deadline reaches the card index: a cold library is not parsed past it."""
    body = json.dumps(payload("claude", cwd=str(project), prompt=EN_PROMPT))

    def answer() -> list[Any]:
        done = subprocess.run(
            [sys.executable, "-c", PAST_DEADLINE, body], capture_output=True, check=True
        )
        doc: list[Any] = json.loads(done.stdout)
        return doc

    assert answer() == [0, ""]  # nothing parsed yet: a background builder was started
    lock = data_dir / "cache" / "build.lock"  # which holds this until it is done
    give_up = time.monotonic() + 60
    while lock.exists() and time.monotonic() < give_up:
        time.sleep(0.05)
    size, output = answer()
    assert size == 1 and CARD_ID in output


def test_maintenance_commands_are_not_matched(project: Path) -> None:
    prompt = 'ome experience new --title "force push to the shared branch"'
    done = run_hook("claude", payload("claude", cwd=str(project), prompt=prompt))
    assert (done.returncode, done.stdout) == (0, b"")


@pytest.mark.parametrize(
    ("prompt", "maintenance"),
    [
        ("ome experience list", True),
        ("  $ ome config set recall.threshold 50", True),
        ("`ome hook install --provider claude`", True),
        ("python -m ome experience show x", True),
        ("\nome signals test 'force push'\nplease", True),
        ("force push after ome experience list", False),
        ("home experience matters", False),
        ("omelette recipe", False),
    ],
)
def test_is_maintenance_command(prompt: str, maintenance: bool) -> None:
    assert is_maintenance_command(prompt) is maintenance


# --- sessions -----------------------------------------------------------------------------------


def test_a_card_injected_in_full_is_a_reminder_for_the_next_prompts(project: Path) -> None:
    """reminder_prompts is 2 in the fixture: full, reminder, reminder, full again."""

    def ask(session: str) -> str:
        done = run_hook(
            "claude", payload("claude", cwd=str(project), prompt=EN_PROMPT, session_id=session)
        )
        return context_of("claude", done.stdout)

    shown = [ask("session-a") for _ in range(4)]
    assert ["Summary:" in c for c in shown] == [True, False, False, True]
    assert all(CARD_ID in c for c in shown)
    assert "shown earlier in this session" in shown[1]
    assert "Summary:" in ask("session-b")


def test_session_state_is_small_hashed_and_outside_the_project(
    project: Path, data_dir: Path
) -> None:
    before = sorted(p.relative_to(project) for p in project.rglob("*"))
    run_hook("claude", payload("claude", cwd=str(project), prompt=EN_PROMPT, session_id="s-1"))
    files = list((data_dir / "cache" / "sessions").glob("*.json"))
    assert len(files) == 1
    assert "s-1" not in files[0].name and len(files[0].stem) == 32
    assert json.loads(files[0].read_text()) == {"full": {CARD_ID: 1}, "prompts": 1}
    assert sorted(p.relative_to(project) for p in project.rglob("*")) == before


def test_session_state_windows() -> None:
    state = SessionState(Path("s.json"))
    seen = []
    for _ in range(5):
        reminders = state.reminder_ids(2)
        seen.append(sorted(reminders))
        state = state.advance([i for i in ["a"] if i not in reminders], 2)
    assert seen == [[], ["a"], ["a"], [], ["a"]]


# --- Cursor -------------------------------------------------------------------------------------


def test_cursor_session_start_indexes_project_then_workspace_cards(
    project: Path, data_dir: Path
) -> None:
    project_card = (
        "---\nschema: ome-card\nid: shop-release-checklist\nstatus: active\n"
        "title: Shop release checklist\nsummary: Tag the release and update the changelog.\n"
        "recall:\n  triggers: [cut a shop release]\n---\n\n# Shop release checklist\n\n"
        "## Full Rule\n\n```text\nTag, changelog, announce.\n```\n"
    )
    write_card(
        project / ".oh-my-experience" / "experiences" / "active",
        "shop-release-checklist",
        project_card,
    )
    (project / "README.md").write_text(
        "# Shop\n\nRelease tooling that can force push the shared branch after a rebase.\n",
        encoding="utf-8",
    )
    done = run_hook(
        "cursor",
        payload("cursor_session_start", workspace_roots=[str(project)]),
        "--event",
        "sessionStart",
    )
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert list(doc) == ["additional_context"]
    context = doc["additional_context"]
    assert context.index("shop-release-checklist") < context.index(CARD_ID)
    assert "--scope project" in context
    assert "cannot add context to each prompt" in context


def test_cursor_session_start_with_nothing_relevant_prints_nothing(
    project: Path, data_dir: Path
) -> None:
    (project / "README.md").write_text("# Recipes\n\nA cookbook of soups.\n", encoding="utf-8")
    done = run_hook("cursor", payload("cursor_session_start", workspace_roots=[str(project)]))
    assert (done.returncode, done.stdout) == (0, b"")


def test_cursor_before_submit_prompt_lets_the_prompt_through(project: Path) -> None:
    body = payload("cursor_before_submit_prompt", workspace_roots=[str(project)])
    for extra in (("--event", "beforeSubmitPrompt"), ()):
        done = run_hook("cursor", body, *extra)
        assert (done.returncode, json.loads(done.stdout)) == (0, {"continue": True})


# --- output bound, unknown provider, argument parsing -------------------------------------------


def test_output_stays_within_the_agent_cap(data_dir: Path, tmp_path: Path) -> None:
    """Summaries full of quotes double in JSON: the hook re-renders smaller, never overflows."""
    active = data_dir / "experiences" / "active"
    for n in range(4):
        card_id = f"widget-deploy-{n}"
        text = CARD.replace(CARD_ID, card_id).replace(
            "summary: Force-pushing a branch other people pull from rewrites their history.",
            "summary: '" + 'Deploy the widget with \\"care\\" ' * 40 + "'",
        )
        write_card(active, card_id, text.replace("force push", f"force push widget {n}"))
    (data_dir / "config.yaml").write_text(
        "library:\n  starter_cards: false\nrecall:\n  budget_chars: 9000\n"
        "hook:\n  deadline_ms: 10000\n",
        encoding="utf-8",
    )
    done = run_hook("codex", payload("codex", cwd=str(tmp_path), prompt=EN_PROMPT))
    assert done.returncode == 0
    assert len(done.stdout.decode("utf-8")) <= MAX_OUTPUT_CHARS
    assert check_output(PROVIDERS["codex"], PROVIDERS["codex"].events[0], done.stdout) == ""


def test_unknown_provider_exits_0_with_one_stderr_line(project: Path) -> None:
    done = run_hook("windsurf", payload("claude", cwd=str(project)))
    assert (done.returncode, done.stdout) == (0, b"")
    assert done.stderr.count(b"\n") == 1 and b"unknown provider" in done.stderr


def test_parse_args_and_payload() -> None:
    args = parse_args(["--provider=cursor", "--event", "sessionStart", "--unknown", "x"])
    assert (args.provider, args.event, args.data_dir) == ("cursor", "sessionStart", "")
    assert read_payload(b'{"prompt": "x", "future_field": [1]}')["future_field"] == [1]
    for bad in (b"", b"  ", b"[]", b"nope"):
        with pytest.raises(ValueError):
            read_payload(bad)


# --- the hook path stays lean -------------------------------------------------------------------

HEAVY = ("click", "ruamel", "pypinyin")


def test_importing_the_hook_loads_no_click_ruamel_or_pypinyin() -> None:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import ome.hook"],
        capture_output=True,
        check=True,
    )
    imported = {
        line.split("|")[-1].strip().split(".")[0] for line in done.stderr.decode().splitlines()
    }
    assert imported.isdisjoint(HEAVY)


def test_a_full_hook_run_loads_no_click_ruamel_or_pypinyin(project: Path) -> None:
    script = (
        "import sys, ome.hook\n"
        "sys.argv = ['ome.hook', '--provider', 'claude']\n"
        "ome.hook.main()\n"
        f"heavy = sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})\n"
        "sys.stderr.write('HEAVY=' + ','.join(heavy))\n"
    )
    body = json.dumps(payload("claude", cwd=str(project), prompt=EN_PROMPT)).encode()
    done = subprocess.run(
        [sys.executable, "-c", script], input=body, capture_output=True, check=True
    )
    assert CARD_ID in context_of("claude", done.stdout)
    assert done.stderr.decode().rsplit("HEAVY=", 1)[1] == ""


def test_an_unwritable_data_dir_still_answers_with_one_stderr_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    done = subprocess.run(
        [*MODULE_HOOK, "--provider", "claude"],
        input=json.dumps({"prompt": EN_PROMPT, "cwd": str(tmp_path), "session_id": "s"}).encode(),
        capture_output=True,
        env={**os.environ, "OME_HOME": str(blocker / "data")},
        timeout=30,
        check=False,
    )
    assert done.returncode == 0
    assert check_output(PROVIDERS["claude"], PROVIDERS["claude"].events[0], done.stdout) == ""
    assert done.stderr.count(b"\n") == 1
