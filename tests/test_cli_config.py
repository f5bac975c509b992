"""`ome config get|set|list` through CliRunner: values, validation, comments kept."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from ome.cli import cli
from ome.config import SETTINGS


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def run_json(*args: str) -> dict[str, Any]:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.output
    doc: dict[str, Any] = json.loads(result.stdout)
    return doc


@pytest.fixture
def initialised(data_dir: Path) -> Path:
    assert run("init").exit_code == 0
    return data_dir


@pytest.mark.parametrize(
    ("key", "value", "expected", "shown"),
    [
        pytest.param("recall.threshold", "55", 55, "55", id="int"),
        pytest.param("library.starter_cards", "no", False, "false", id="bool"),
        pytest.param("library.team", "/a, /b", ["/a", "/b"], "/a, /b", id="list"),
    ],
)
def test_set_then_get(initialised: Path, key: str, value: str, expected: Any, shown: str) -> None:
    assert run_json("config", "set", key, value)["value"] == expected
    assert run_json("config", "get", key)["value"] == expected
    assert run("config", "get", key).output.strip() == shown


def test_set_keeps_the_comments_of_config_yaml(initialised: Path) -> None:
    run_json("config", "set", "recall.limit", "2")
    text = (initialised / "config.yaml").read_text(encoding="utf-8")
    assert "limit: 2             # most cards returned for one prompt" in text
    assert text.startswith("# ome settings.")


def test_get_returns_the_default_without_a_config_file(data_dir: Path) -> None:
    assert run_json("config", "get", "hook.deadline_ms")["value"] == 1500


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(("set", "recall.nope", "1"), "unknown setting", id="unknown-key"),
        pytest.param(("get", "recall.nope"), "unknown setting", id="unknown-get"),
        pytest.param(("set", "recall.limit", "many"), "must be int", id="bad-int"),
        pytest.param(("set", "telemetry.enabled", "maybe"), "must be bool", id="bad-bool"),
    ],
)
def test_bad_keys_and_values_fail_with_a_message(
    initialised: Path, args: tuple[str, ...], message: str
) -> None:
    result = run("config", *args)
    assert result.exit_code == 1 and message in result.output
    doc = json.loads(run("config", *args, "--json").stdout)
    assert doc["ok"] is False and doc["error"]["code"] == "config_error"


def test_list_shows_every_setting(initialised: Path) -> None:
    run_json("config", "set", "recall.threshold", "60")
    doc = run_json("config", "list")
    rows = {row["key"]: row for row in doc["settings"]}
    assert list(rows) == [s.key for s in SETTINGS]
    assert rows["recall.threshold"]["value"] == 60 and rows["recall.threshold"]["default"] == 40
    text = run("config", "list").output
    assert "recall.threshold" in text and "(changed)" in text


def test_every_config_command_has_help() -> None:
    for command in ("get", "set", "list"):
        result = run("config", command, "--help")
        assert result.exit_code == 0 and "Usage:" in result.output
