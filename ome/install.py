"""Putting the hook into each agent's settings file safely, taking it out again, proving delivery.

Install merges one entry and keeps every other key and hook, backs the file up first
(`<file>.ome-backup-<n>`), refuses a file that is not valid JSON, and is idempotent: our entry is
the one whose command runs `-m ome.hook` (or `ome hook run`). Uninstall removes only that entry
and, when nothing else changed since, restores the backed-up bytes exactly.
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ome.atomic import write_atomic
from ome.config import resolve_data_dir
from ome.doctor import Check
from ome.errors import InstallError
from ome.hook import NO_RECORD_ENV
from ome.library import find_project_root
from ome.providers import AGENT_TIMEOUT_S, PROVIDERS, HookEvent, Provider, check_output

Scope = Literal["user", "project"]
SCOPES: tuple[Scope, ...] = ("user", "project")
Action = Literal["installed", "updated", "unchanged", "removed", "not_installed"]

BACKUP_MARK = ".ome-backup-"
DEFAULT_INDENT = 2
# Recognises our handler whatever interpreter path it was installed with.
_OUR_COMMAND = re.compile(r"-m\s+ome\.hook\b|\bome(?:\.exe)?['\"]?\s+hook\s+run\b")
DOCTOR_PROMPT = "git push --force to the shared main branch after the rebase"
DOCTOR_TIMEOUT_S = AGENT_TIMEOUT_S * 2


def get_provider(name: str) -> Provider:
    provider = PROVIDERS.get(name)
    if provider is None:
        raise InstallError(f"unknown provider '{name}'; use one of: {', '.join(PROVIDERS)}")
    return provider


def hook_command(provider: Provider, event: HookEvent, executable: str | None = None) -> str:
    """The lean command agents run: this interpreter's absolute path, `-m ome.hook`, no click."""
    parts = [os.path.abspath(executable or sys.executable), "-m", "ome.hook"]
    parts += ["--provider", provider.name]
    if len(provider.events) > 1:
        parts += ["--event", event.name]
    return subprocess.list2cmdline(parts) if os.name == "nt" else shlex.join(parts)


def is_our_command(command: object) -> bool:
    return isinstance(command, str) and bool(_OUR_COMMAND.search(command))


def settings_path(
    provider: Provider, scope: Scope, cwd: Path | None = None, data_dir: Path | None = None
) -> Path:
    """The agent's user settings file, or the one under the project root found from `cwd`."""
    if scope == "user":
        return Path.home() / provider.user_settings
    start = (cwd or Path.cwd()).absolute()
    root = find_project_root(start, data_dir or resolve_data_dir(None)) or start
    return root / provider.project_settings


def handler(provider: Provider, event: HookEvent, executable: str | None = None) -> dict[str, Any]:
    """Our entry for one event, in the shape and timeout unit the agent reads."""
    command = hook_command(provider, event, executable)
    if provider.entry_style == "flat":
        return {"command": command, "timeout": provider.timeout}
    return {"hooks": [{"type": "command", "command": command, "timeout": provider.timeout}]}


# --- reading and writing settings files -----------------------------------------------------


def read_settings(path: Path, provider: Provider) -> tuple[str | None, dict[str, Any]]:
    """The file's text (None when absent) and its JSON object; InstallError if unusable."""
    fix = f"fix it or move it aside, then run `ome hook install --provider {provider.name}` again"
    if not path.exists():
        return None, dict(provider.file_skeleton)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeError) as exc:
        raise InstallError(f"{path} cannot be read ({exc}); {fix}") from None
    if not text.strip():
        return text, dict(provider.file_skeleton)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InstallError(
            f"{path} is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno});"
            f" nothing was changed; {fix}"
        ) from None
    if not isinstance(data, dict):
        raise InstallError(f"{path} holds JSON but not an object; {fix}")
    hooks = data.get("hooks")
    if hooks is not None and not isinstance(hooks, dict):
        raise InstallError(f"{path}: `hooks` is not an object; {fix}")
    for event in provider.events:
        if hooks and event.name in hooks and not isinstance(hooks[event.name], list):
            raise InstallError(f"{path}: `hooks.{event.name}` is not a list; {fix}")
    return text, data


def detect_indent(text: str | None) -> str | int:
    """The indentation the file already uses (tab or N spaces); 2 for new or one-line files."""
    match = re.search(r"\n([ \t]+)\S", text or "")
    if match is None:
        return DEFAULT_INDENT
    indent = match.group(1)
    return "\t" if indent.startswith("\t") else len(indent)


def dump_settings(data: dict[str, Any], text: str | None) -> str:
    """Serialise with the file's own indentation, key order and final newline."""
    body = json.dumps(data, indent=detect_indent(text), ensure_ascii=False)
    return body + "\n" if text is None or text.endswith("\n") or not text.strip() else body


def backups(path: Path) -> list[Path]:
    """This file's backups, newest first."""
    numbered = []
    for candidate in path.parent.glob(f"{path.name}{BACKUP_MARK}*"):
        suffix = candidate.name[len(path.name) + len(BACKUP_MARK) :]
        if suffix.isdigit():
            numbered.append((int(suffix), candidate))
    return [p for _, p in sorted(numbered, reverse=True)]


def back_up(path: Path) -> Path:
    """Copy the file's exact bytes to the next `<file>.ome-backup-<n>`."""
    existing = backups(path)
    number = int(existing[0].name.rsplit("-", 1)[1]) + 1 if existing else 1
    backup = path.with_name(f"{path.name}{BACKUP_MARK}{number}")
    try:
        with open(backup, "xb") as handle:
            handle.write(path.read_bytes())
    except OSError as exc:
        raise InstallError(
            f"cannot back up {path} to {backup} ({exc}); nothing was changed"
        ) from None
    return backup


# --- our entries ----------------------------------------------------------------------------


def our_commands(data: dict[str, Any], provider: Provider) -> list[tuple[HookEvent, str]]:
    """Every (event, command) of ours in a settings object."""
    found: list[tuple[HookEvent, str]] = []
    hooks = data.get("hooks") if isinstance(data.get("hooks"), dict) else {}
    for event in provider.events:
        for item in (hooks or {}).get(event.name) or ():
            handlers = item.get("hooks") if isinstance(item, dict) else None
            for h in handlers if isinstance(handlers, list) else [item]:
                if isinstance(h, dict) and is_our_command(h.get("command")):
                    found.append((event, str(h["command"])))
    return found


def strip_ours(data: dict[str, Any], provider: Provider) -> tuple[dict[str, Any], int]:
    """A copy without our handlers; containers emptied by the removal are removed too."""
    result = copy.deepcopy(data)
    hooks = result.get("hooks")
    if not isinstance(hooks, dict):
        return result, 0
    removed = 0
    for event in provider.events:
        items = hooks.get(event.name)
        if not isinstance(items, list):
            continue
        kept: list[Any] = []
        for item in items:
            handlers = item.get("hooks") if isinstance(item, dict) else None
            if isinstance(handlers, list):
                mine = [
                    h for h in handlers if isinstance(h, dict) and is_our_command(h.get("command"))
                ]
                if mine:
                    removed += len(mine)
                    rest = [h for h in handlers if h not in mine]
                    if rest:
                        kept.append({**item, "hooks": rest})
                    continue
            elif isinstance(item, dict) and is_our_command(item.get("command")):
                removed += 1
                continue
            kept.append(item)
        if len(kept) != len(items) or kept != items:
            if kept:
                hooks[event.name] = kept
            else:
                del hooks[event.name]
    if removed and not hooks:
        del result["hooks"]
    return result, removed


def add_ours(data: dict[str, Any], provider: Provider, executable: str | None) -> dict[str, Any]:
    result = copy.deepcopy(data)
    for key, value in provider.file_skeleton:
        result.setdefault(key, value)
    hooks = result.setdefault("hooks", {})
    for event in provider.events:
        hooks.setdefault(event.name, []).append(handler(provider, event, executable))
    return result


def _normalised(data: Any, provider: Provider) -> Any:
    """Settings compared without empty hook lists and without the skeleton we would add."""
    if not isinstance(data, dict):
        return data
    result = copy.deepcopy(data)
    hooks = result.get("hooks")
    if isinstance(hooks, dict):
        for name in [k for k, v in hooks.items() if v == []]:
            del hooks[name]
        if not hooks:
            del result["hooks"]
    for key, value in provider.file_skeleton:
        if result.get(key) == value:
            del result[key]
    return result


# --- install, uninstall, status -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class InstallResult:
    """What install or uninstall did (or, with dry_run, would do) to one settings file."""

    provider: str
    scope: Scope
    path: Path
    action: Action
    dry_run: bool
    backup: Path | None
    diff: str
    commands: tuple[str, ...]


def _diff(path: Path, old: str | None, new: str | None) -> str:
    return "".join(
        difflib.unified_diff(
            (old or "").splitlines(keepends=True),
            (new or "").splitlines(keepends=True),
            fromfile=str(path) if old is not None else "/dev/null",
            tofile=str(path) if new is not None else "/dev/null",
        )
    )


def install_hook(
    provider_name: str,
    scope: Scope = "user",
    cwd: Path | None = None,
    dry_run: bool = False,
    executable: str | None = None,
) -> InstallResult:
    """Merge our entry into the agent's settings (replacing a stale one of ours)."""
    provider = get_provider(provider_name)
    path = settings_path(provider, scope, cwd)
    text, data = read_settings(path, provider)
    wanted = add_ours(strip_ours(data, provider)[0], provider, executable)
    commands = tuple(c for _, c in our_commands(wanted, provider))
    existing = our_commands(data, provider)
    if sorted(c for _, c in existing) == sorted(commands) and len(existing) == len(commands):
        return InstallResult(provider.name, scope, path, "unchanged", dry_run, None, "", commands)
    new_text = dump_settings(wanted, text)
    action: Action = "updated" if existing else "installed"
    diff = _diff(path, text, new_text)
    if dry_run:
        return InstallResult(provider.name, scope, path, action, True, None, diff, commands)
    backup = back_up(path) if text is not None else None
    write_atomic(path.resolve() if path.is_symlink() else path, new_text.encode("utf-8"))
    return InstallResult(provider.name, scope, path, action, False, backup, diff, commands)


def uninstall_hook(
    provider_name: str, scope: Scope = "user", cwd: Path | None = None, dry_run: bool = False
) -> InstallResult:
    """Remove our entry only; restore the pre-install bytes when the rest is unchanged."""
    provider = get_provider(provider_name)
    path = settings_path(provider, scope, cwd)
    if not path.exists():
        return InstallResult(provider.name, scope, path, "not_installed", dry_run, None, "", ())
    text, data = read_settings(path, provider)
    stripped, removed = strip_ours(data, provider)
    if not removed:
        return InstallResult(provider.name, scope, path, "not_installed", dry_run, None, "", ())
    target = _normalised(stripped, provider)
    new_bytes: bytes | None = None
    for candidate in backups(path):
        try:
            raw = candidate.read_bytes()
            before = json.loads(raw.decode("utf-8")) if raw.strip() else {}
        except (OSError, ValueError):
            continue
        if _normalised(before, provider) == target:
            new_bytes = raw
            break
    if new_bytes is None and target != {}:
        new_bytes = dump_settings(stripped, text).encode("utf-8")
    # new_bytes None: the file held nothing but our entry and no backup predates it: delete it.
    new_text = new_bytes.decode("utf-8") if new_bytes is not None else None
    diff = _diff(path, text, new_text)
    if dry_run:
        return InstallResult(provider.name, scope, path, "removed", True, None, diff, ())
    backup = back_up(path)
    if new_bytes is None:
        path.unlink()
    else:
        write_atomic(path.resolve() if path.is_symlink() else path, new_bytes)
    return InstallResult(provider.name, scope, path, "removed", False, backup, diff, ())


@dataclass(frozen=True, slots=True)
class HookStatus:
    """Whether our hook is in one settings file, and whether it is current."""

    provider: str
    scope: Scope
    path: Path
    exists: bool
    error: str
    commands: tuple[tuple[str, str], ...]  # (event, command)
    expected: tuple[tuple[str, str], ...]
    problems: tuple[str, ...]

    @property
    def installed(self) -> bool:
        return bool(self.commands)


def command_executable(command: str) -> str:
    try:
        parts = shlex.split(command, posix=os.name != "nt")
    except ValueError:
        return ""
    return parts[0] if parts else ""


def hook_status(provider_name: str, scope: Scope = "user", cwd: Path | None = None) -> HookStatus:
    """Read one settings file and say what of ours is in it and what is stale."""
    provider = get_provider(provider_name)
    path = settings_path(provider, scope, cwd)
    expected = tuple((e.name, hook_command(provider, e)) for e in provider.events)
    try:
        _, data = read_settings(path, provider)
    except InstallError as exc:
        return HookStatus(provider.name, scope, path, True, str(exc), (), expected, ())
    found = tuple((e.name, c) for e, c in our_commands(data, provider))
    problems: list[str] = []
    for event, command in found:
        exe = command_executable(command)
        if not exe or not (Path(exe).exists() if os.path.isabs(exe) else shutil.which(exe)):
            problems.append(f"{event}: the executable {exe or command!r} no longer exists")
        elif (event, command) not in expected:
            problems.append(f"{event}: runs another interpreter or options than this ome")
    if found:
        missing = {e for e, _ in expected} - {e for e, _ in found}
        problems.extend(f"{e}: no ome entry" for e in sorted(missing))
        if len(found) > len(expected):
            problems.append("more than one ome entry; run install again to keep one")
    return HookStatus(
        provider.name, scope, path, path.exists(), "", found, expected, tuple(problems)
    )


# --- doctor: prove delivery -----------------------------------------------------------------


def sample_payload(provider: Provider, event: HookEvent, cwd: Path) -> bytes:
    """A payload shaped like the agent's own, for the doctor's end-to-end run."""
    if provider.name == "cursor":
        doc: dict[str, Any] = {
            "conversation_id": "ome-doctor",
            "generation_id": "ome-doctor",
            "hook_event_name": event.name,
            "workspace_roots": [str(cwd)],
        }
        if event.kind == "ack":
            doc["prompt"] = DOCTOR_PROMPT
    else:
        doc = {
            "session_id": "ome-doctor",
            "hook_event_name": event.name,
            "cwd": str(cwd),
            "prompt": DOCTOR_PROMPT,
        }
    return json.dumps(doc).encode("utf-8")


def run_installed(
    provider: Provider, event: HookEvent, command: str, data_dir: Path, cwd: Path
) -> tuple[str, str]:
    """Run an installed command as the agent would; (problem or '', what it delivered)."""
    env = {**os.environ, "OME_HOME": str(data_dir), NO_RECORD_ENV: "1"}
    start = time.monotonic()
    try:
        done = subprocess.run(
            command,
            shell=True,
            input=sample_payload(provider, event, cwd),
            capture_output=True,
            timeout=DOCTOR_TIMEOUT_S,
            env=env,
            cwd=cwd if cwd.is_dir() else None,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"no answer within {DOCTOR_TIMEOUT_S} s", ""
    except OSError as exc:
        return f"cannot run it ({exc})", ""
    elapsed_ms = int((time.monotonic() - start) * 1000)
    if done.returncode != 0:
        err = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        return f"exit code {done.returncode} {err[0]}".strip(), ""
    problem = check_output(provider, event, done.stdout)
    if problem:
        return problem, ""
    said = f"{len(done.stdout)} bytes" if done.stdout.strip() else "nothing to add"
    return "", f"{said} in {elapsed_ms} ms"


def hook_checks(data_dir: str | Path | None, cwd: Path) -> list[Check]:
    """`ome doctor`: each installed hook, run end to end with a sample payload."""
    root = resolve_data_dir(data_dir)
    checks: list[Check] = []
    for name, provider in PROVIDERS.items():
        for scope in SCOPES:
            status = hook_status(name, scope, cwd)
            label = f"hook_{name}_{scope}"
            if status.error:
                checks.append(Check(label, "error", status.error))
                continue
            if not status.installed:
                continue
            problems = list(status.problems)
            delivered: list[str] = []
            for event_name, command in status.commands:
                if any(p.startswith(f"{event_name}: the executable") for p in problems):
                    continue
                problem, said = run_installed(
                    provider, provider.event(event_name), command, root, cwd
                )
                if problem:
                    problems.append(f"{event_name}: {problem}")
                else:
                    delivered.append(f"{event_name}: {said}")
            fix = f"run `ome hook install --provider {name} --scope {scope}`"
            if problems:
                checks.append(
                    Check(
                        label,
                        "error" if not delivered else "warning",
                        f"{provider.label} hook in {status.path} is stale or broken; {fix}",
                        tuple(problems + delivered),
                    )
                )
            else:
                checks.append(
                    Check(
                        label, "ok", f"{provider.label} delivers ({status.path})", tuple(delivered)
                    )
                )
    if not checks:
        checks.append(
            Check(
                "hooks",
                "warning",
                "no agent hook installed; run `ome hook install --provider claude`"
                " (or codex, gemini, cursor)",
            )
        )
    return checks


__all__ = [
    "HookStatus",
    "InstallResult",
    "SCOPES",
    "Scope",
    "add_ours",
    "back_up",
    "backups",
    "command_executable",
    "detect_indent",
    "dump_settings",
    "get_provider",
    "handler",
    "hook_checks",
    "hook_command",
    "hook_status",
    "install_hook",
    "is_our_command",
    "our_commands",
    "read_settings",
    "run_installed",
    "sample_payload",
    "settings_path",
    "strip_ours",
    "uninstall_hook",
]
