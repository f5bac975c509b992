"""Installers against real settings files in a temp home, and `ome doctor` proving delivery."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ome.cli import cli
from ome.errors import InstallError
from ome.install import (
    add_ours,
    backups,
    dump_settings,
    hook_checks,
    hook_command,
    hook_status,
    install_hook,
    is_our_command,
    our_commands,
    settings_path,
    uninstall_hook,
)
from ome.providers import PROVIDERS
from ome.resources import resource_dir

TEMPLATES = {
    "claude": "claude.settings.json",
    "codex": "codex.hooks.json",
    "gemini": "gemini.settings.json",
    "cursor": "cursor.hooks.json",
}
TIMEOUTS = {"claude": 5, "codex": 5, "gemini": 5000, "cursor": 5}

# Settings files as people have them: other keys, other hooks, their own indentation.
OTHER_HOOKS: dict[str, str] = {
    "claude": (
        "{\n"
        '    "model": "opus",\n'
        '    "permissions": {"allow": ["Bash(npm test)"]},\n'
        '    "hooks": {\n'
        '        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",'
        ' "command": "~/bin/guard.sh"}]}],\n'
        '        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "date"}]}]\n'
        "    }\n"
        "}\n"
    ),
    "codex": '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]}}',
    "gemini": (
        "{\n"
        '\t"theme": "GitHub",\n'
        '\t"hooksConfig": {"enabled": true},\n'
        '\t"hooks": {"BeforeTool": [{"matcher": "run_shell_command",'
        ' "hooks": [{"type": "command", "command": "./audit.sh", "timeout": 3000}]}]}\n'
        "}\n"
    ),
    "cursor": (
        '{\n  "version": 1,\n  "hooks": {\n    "afterFileEdit": [{"command": "./fmt.sh"}],\n'
        '    "beforeSubmitPrompt": [{"command": "./audit-prompt.sh"}]\n  }\n}\n'
    ),
}


def user_settings(provider: str) -> Path:
    return Path.home() / PROVIDERS[provider].user_settings


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def handlers(data: dict[str, Any], provider: str) -> list[dict[str, Any]]:
    """Our handlers in a settings object, flattened."""
    found = []
    for event in PROVIDERS[provider].events:
        for item in data["hooks"].get(event.name, []):
            for h in item.get("hooks", [item]):
                if is_our_command(h.get("command")):
                    found.append(h)
    return found


@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_install_keeps_everything_else_and_adds_one_entry_per_event(provider: str) -> None:
    path = write(user_settings(provider), OTHER_HOOKS[provider])
    original = path.read_bytes()
    result = install_hook(provider)
    assert result.action == "installed"
    data = json.loads(path.read_text())
    before = json.loads(original)
    for key in before:
        if key != "hooks":
            assert data[key] == before[key]
    for event, items in before["hooks"].items():
        assert data["hooks"][event][: len(items)] == items
    ours = handlers(data, provider)
    assert len(ours) == len(PROVIDERS[provider].events)
    for h in ours:
        assert h["command"].startswith(str(Path(sys.executable).absolute()))
        assert " -m ome.hook --provider " + provider in h["command"]
        assert h["timeout"] == TIMEOUTS[provider]
    assert result.backup is not None and result.backup.read_bytes() == original
    assert result.backup.name == path.name + ".ome-backup-1"


@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_installing_twice_leaves_one_entry(provider: str) -> None:
    path = write(user_settings(provider), OTHER_HOOKS[provider])
    install_hook(provider)
    after_first = path.read_bytes()
    assert install_hook(provider).action == "unchanged"
    assert path.read_bytes() == after_first
    assert len(handlers(json.loads(after_first), provider)) == len(PROVIDERS[provider].events)
    assert len(backups(path)) == 1


@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_uninstall_restores_the_rest_of_the_file_byte_for_byte(provider: str) -> None:
    path = write(user_settings(provider), OTHER_HOOKS[provider])
    original = path.read_bytes()
    install_hook(provider)
    assert uninstall_hook(provider).action == "removed"
    assert path.read_bytes() == original
    assert uninstall_hook(provider).action == "not_installed"


def test_uninstall_after_other_edits_keeps_them_and_the_indentation() -> None:
    path = write(user_settings("claude"), OTHER_HOOKS["claude"])
    install_hook("claude")
    data = json.loads(path.read_text())
    data["theme"] = "dark"
    path.write_text(dump_settings(data, path.read_text()))
    uninstall_hook("claude")
    after = json.loads(path.read_text())
    assert after["theme"] == "dark"
    assert not handlers(after, "claude")
    assert after["hooks"] == json.loads(OTHER_HOOKS["claude"])["hooks"]
    assert '\n    "model"' in path.read_text()


@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_a_file_created_by_install_is_removed_by_uninstall(provider: str) -> None:
    path = user_settings(provider)
    install_hook(provider)
    data = json.loads(path.read_text())
    assert data == add_ours(dict(PROVIDERS[provider].file_skeleton), PROVIDERS[provider], None)
    uninstall_hook(provider)
    assert not path.exists()


@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_an_invalid_file_is_never_touched(provider: str) -> None:
    path = write(user_settings(provider), '{"hooks": {,}')
    with pytest.raises(InstallError) as caught:
        install_hook(provider)
    message = str(caught.value)
    assert str(path) in message and "not valid JSON" in message and "fix it" in message
    assert path.read_text() == '{"hooks": {,}'
    assert backups(path) == []
    with pytest.raises(InstallError):
        uninstall_hook(provider)


def test_the_cli_reports_an_invalid_file_and_exits_1() -> None:
    path = write(user_settings("claude"), "not json")
    result = CliRunner().invoke(cli, ["hook", "install", "--provider", "claude"])
    assert result.exit_code == 1
    assert str(path) in result.output and "not valid JSON" in result.output
    result = CliRunner().invoke(cli, ["hook", "install", "--provider", "claude", "--json"])
    assert json.loads(result.output)["error"]["code"] == "install_error"


def test_dry_run_prints_a_diff_and_writes_nothing() -> None:
    path = write(user_settings("gemini"), OTHER_HOOKS["gemini"])
    result = CliRunner().invoke(cli, ["hook", "install", "--provider", "gemini", "--dry-run"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"--- {path}\n+++ {path}\n")
    assert '+            "timeout": 5000' in result.output or '"timeout": 5000' in result.output
    assert path.read_text() == OTHER_HOOKS["gemini"]
    assert backups(path) == []
    install_hook("gemini")
    result = CliRunner().invoke(cli, ["hook", "uninstall", "--provider", "gemini", "--dry-run"])
    assert "-" in result.output and "ome.hook" in result.output
    assert is_our_command(path.read_text())


def test_a_stale_entry_is_replaced_not_duplicated() -> None:
    stale = "/gone/venv/bin/python -m ome.hook --provider claude"
    path = write(
        user_settings("claude"),
        json.dumps(
            {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": stale}]}]}}
        ),
    )
    status = hook_status("claude")
    assert status.installed and any("no longer exists" in p for p in status.problems)
    assert install_hook("claude").action == "updated"
    commands = [c for _, c in our_commands(json.loads(path.read_text()), PROVIDERS["claude"])]
    assert commands == [hook_command(PROVIDERS["claude"], PROVIDERS["claude"].events[0])]
    assert hook_status("claude").problems == ()


def test_project_scope_writes_under_the_project_root(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "src" / "pkg").mkdir(parents=True)
    result = install_hook("codex", "project", root / "src" / "pkg")
    assert result.path == root / ".codex" / "hooks.json"
    assert settings_path(PROVIDERS["codex"], "project", root / "src") == result.path
    assert handlers(json.loads(result.path.read_text()), "codex")
    assert not user_settings("codex").exists()


def test_templates_are_what_install_writes() -> None:
    for provider, name in TEMPLATES.items():
        spec = PROVIDERS[provider]
        template = (resource_dir("hooks") / name).read_text(encoding="utf-8")
        expected = add_ours(dict(spec.file_skeleton), spec, "/ABSOLUTE/PATH/TO/python")
        assert template == dump_settings(expected, None), name


def test_status_and_install_json() -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["hook", "install", "--provider", "cursor", "--json"])
    doc = json.loads(result.output)
    assert doc["action"] == "installed" and doc["backup"] is None
    assert [c.rsplit(" ", 1)[-1] for c in doc["commands"]] == ["sessionStart", "beforeSubmitPrompt"]
    result = runner.invoke(
        cli, ["hook", "status", "--provider", "cursor", "--scope", "user", "--json"]
    )
    (hook,) = json.loads(result.output)["hooks"]
    assert hook["installed"] and hook["problems"] == []
    result = runner.invoke(cli, ["hook", "status"])
    assert result.exit_code == 0 and "cursor  user     installed" in result.output


# --- doctor -------------------------------------------------------------------------------------


def test_doctor_runs_each_installed_hook_end_to_end(data_dir: Path, tmp_path: Path) -> None:
    for provider in PROVIDERS:
        install_hook(provider)
    checks = {c.name: c for c in hook_checks(data_dir, tmp_path)}
    for provider in PROVIDERS:
        check = checks[f"hook_{provider}_user"]
        assert check.status == "ok", check
    assert "UserPromptSubmit" in checks["hook_claude_user"].details[0]
    assert not (data_dir / "events.jsonl").exists()  # the doctor's runs are not recorded


def test_doctor_reports_a_stale_or_broken_hook(data_dir: Path, tmp_path: Path) -> None:
    write(
        user_settings("codex"),
        json.dumps(
            {
                "hooks": {
                    "UserPromptSubmit": [
                        {"hooks": [{"type": "command", "command": "/gone/python -m ome.hook"}]}
                    ]
                }
            }
        ),
    )
    write(
        user_settings("gemini"),
        json.dumps(
            {
                "hooks": {
                    "BeforeAgent": [
                        {"hooks": [{"type": "command", "command": "echo hi # -m ome.hook"}]}
                    ]
                }
            }
        ),
    )
    write(user_settings("claude"), "{oops")
    checks = {c.name: c for c in hook_checks(data_dir, tmp_path)}
    assert checks["hook_codex_user"].status == "error"
    assert "ome hook install --provider codex" in checks["hook_codex_user"].message
    assert checks["hook_gemini_user"].status == "error"
    assert any("not one JSON document" in d for d in checks["hook_gemini_user"].details)
    assert checks["hook_claude_user"].status == "error"


def test_doctor_without_hooks_says_how_to_install(data_dir: Path, tmp_path: Path) -> None:
    (check,) = hook_checks(data_dir, tmp_path)
    assert check.status == "warning" and "ome hook install" in check.message


def test_ome_doctor_includes_the_hook_checks(data_dir: Path, tmp_path: Path) -> None:
    install_hook("claude")
    result = CliRunner().invoke(cli, ["doctor", "--json", "--cwd", str(tmp_path)])
    names = {c["name"]: c["status"] for c in json.loads(result.output)["checks"]}
    assert names["hook_claude_user"] == "ok"
