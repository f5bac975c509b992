"""The hook path stays lean (SPEC §9): importing it, and a warm hook run, load no heavy module.

click, ruamel.yaml and pypinyin cost a hook 30-460 ms of imports; PyYAML is needed only to parse
a changed card or config, so a run over an unchanged, cached library must not load it either.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ome.cards import card_from_mapping
from ome.evaluate import card_file_text

NEVER = ("click", "ruamel", "pypinyin")
NOT_WHEN_CACHED = (*NEVER, "yaml")

REPORT = (
    "import sys\n"
    "heavy = sorted({{m.split('.')[0] for m in sys.modules}} & set({names!r}))\n"
    "sys.stderr.write('HEAVY=' + ','.join(heavy))\n"
)


def heavy_after(code: str, names: tuple[str, ...], stdin: bytes = b"") -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", code + REPORT.format(names=names)],
        input=stdin,
        capture_output=True,
        check=True,
    )
    report = done.stderr.decode().rsplit("HEAVY=", 1)[1]
    return [name for name in report.split(",") if name]


@pytest.mark.parametrize("module", ["ome.hook", "ome.api", "ome.cache", "ome.engine"])
def test_importing_the_hook_path_loads_no_heavy_module(module: str) -> None:
    assert heavy_after(f"import {module}\n", NOT_WHEN_CACHED) == []


@pytest.fixture
def library(data_dir: Path) -> Path:
    folder = data_dir / "experiences" / "active"
    folder.mkdir(parents=True)
    card = card_from_mapping(
        {
            "id": "rollback-plan",
            "title": "Write the rollback plan first",
            "summary": "A deploy without a rollback plan turns a bad release into an outage.",
            "recall": {"triggers": ["rollback plan", "回滚方案"]},
        },
        rule="Write down how to roll back before deploying.",
    )
    (folder / "rollback-plan.md").write_text(card_file_text(card), encoding="utf-8")
    # A busy CI machine must not hit the hook's deadline: this test is about imports.
    config = "library:\n  starter_cards: true\nhook:\n  deadline_ms: 10000\n"
    (data_dir / "config.yaml").write_text(config, encoding="utf-8")
    past = time.time() - 60
    for file in data_dir.rglob("*"):
        os.utime(file, (past, past))
    return data_dir


def hook_run(data_dir: Path, names: tuple[str, ...]) -> tuple[list[str], str]:
    payload = {
        "hook_event_name": "UserPromptSubmit",
        "prompt": "we have no rollback plan for the deploy, 回滚方案 in place?",
        "cwd": str(data_dir.parent),
        "session_id": "hot-path",
    }
    code = "import ome.hook\nome.hook.main(['--provider', 'claude'])\n"
    done = subprocess.run(
        [sys.executable, "-c", code + REPORT.format(names=names)],
        input=json.dumps(payload).encode(),
        capture_output=True,
        check=True,
        env={**os.environ, "OME_HOME": str(data_dir)},
    )
    report = done.stderr.decode().rsplit("HEAVY=", 1)[1]
    return [name for name in report.split(",") if name], done.stderr.decode()


def test_a_cold_hook_run_never_loads_click_ruamel_or_pypinyin(library: Path) -> None:
    heavy, _ = hook_run(library, NEVER)
    assert heavy == []


def test_a_warm_hook_run_never_loads_click_ruamel_or_pypinyin(library: Path) -> None:
    hook_run(library, NEVER)  # builds the cache
    heavy, stderr = hook_run(library, NEVER)
    assert heavy == [], stderr


def test_a_warm_workspace_parses_nothing_so_loads_no_yaml_either(library: Path) -> None:
    code = (
        "import sys\n"
        "from ome.api import match_prompt, open_workspace, recall_options\n"
        "ws = open_workspace(sys.argv[1], sys.argv[1])\n"
        "result = match_prompt(ws, 'is there a rollback plan', recall_options(ws))\n"
        "assert [m.id for m in result.matches] == ['rollback-plan'], result.matches\n"
    )
    for _ in range(2):  # the first run builds the cache
        done = subprocess.run(
            [sys.executable, "-c", code + REPORT.format(names=NOT_WHEN_CACHED), str(library)],
            capture_output=True,
            check=True,
        )
    assert done.stderr.decode().rsplit("HEAVY=", 1)[1] == ""
    assert (library / "cache" / "config.json").exists()


def test_a_warm_hook_run_loads_no_yaml_either(library: Path) -> None:
    hook_run(library, NEVER)
    heavy, stderr = hook_run(library, NOT_WHEN_CACHED)
    assert heavy == [], stderr
