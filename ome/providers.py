"""The agents ome hooks into, as one table: where their settings live, which event runs the hook,
which payload fields it reads and the exact JSON each agent parses (SPEC §6).

Adding an agent is a row in `PROVIDERS` plus a payload fixture and a test. This module is on the
hook path: standard library and orjson only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import orjson

HookKind = Literal["prompt", "session", "ack"]
TimeoutUnit = Literal["s", "ms"]
EntryStyle = Literal["grouped", "flat"]

# Claude Code and Codex cut hook output past 10,000 characters; every agent gets the same bound.
MAX_OUTPUT_CHARS = 10_000
# The agent-side kill timeout. Our own deadline (`hook.deadline_ms`, 1.5 s) answers well inside
# it; the margin covers interpreter start-up on a cold disk.
AGENT_TIMEOUT_S = 5


@dataclass(frozen=True, slots=True)
class HookEvent:
    """One event an agent runs the hook on: its name in the settings file and what we do."""

    name: str
    kind: HookKind  # prompt: recall on the prompt; session: workspace index; ack: let it through


Output = dict[str, Any]
OutputBuilder = Callable[[HookEvent, str], Output | None]


def hook_specific_output(event: HookEvent, context: str) -> Output | None:
    """Claude Code, Codex, Gemini: `hookSpecificOutput.additionalContext`; nothing when empty."""
    if not context:
        return None
    return {"hookSpecificOutput": {"hookEventName": event.name, "additionalContext": context}}


def cursor_output(event: HookEvent, context: str) -> Output | None:
    """Cursor: `additional_context` at sessionStart; `continue: true` for beforeSubmitPrompt."""
    if event.kind == "ack":
        return {"continue": True}
    return {"additional_context": context} if context else None


@dataclass(frozen=True, slots=True)
class Provider:
    """One agent: settings files, hook events, payload fields, timeout unit and output shape."""

    name: str
    label: str
    user_settings: str  # relative to the home directory
    project_settings: str  # relative to the project root
    events: tuple[HookEvent, ...]
    timeout_unit: TimeoutUnit
    entry_style: EntryStyle  # grouped: {"hooks": [handler]} per event; flat: handler per event
    file_skeleton: tuple[
        tuple[str, Any], ...
    ]  # top-level keys a settings file we create starts with
    prompt_fields: tuple[str, ...]
    cwd_fields: tuple[str, ...]
    session_fields: tuple[str, ...]
    build_output: OutputBuilder

    @property
    def timeout(self) -> int:
        """The agent-side timeout in the unit this agent reads."""
        return AGENT_TIMEOUT_S * 1000 if self.timeout_unit == "ms" else AGENT_TIMEOUT_S

    def event(self, name: str | None) -> HookEvent:
        """The event called `name` (case-insensitive), else this agent's first event."""
        if name:
            for event in self.events:
                if event.name.lower() == name.lower():
                    return event
        return self.events[0]


PROVIDERS: Mapping[str, Provider] = {
    p.name: p
    for p in (
        Provider(
            name="claude",
            label="Claude Code",
            user_settings=".claude/settings.json",
            project_settings=".claude/settings.json",
            events=(HookEvent("UserPromptSubmit", "prompt"),),
            timeout_unit="s",
            entry_style="grouped",
            file_skeleton=(),
            prompt_fields=("prompt",),
            cwd_fields=("cwd",),
            session_fields=("session_id",),
            build_output=hook_specific_output,
        ),
        Provider(
            name="codex",
            label="Codex CLI",
            user_settings=".codex/hooks.json",
            project_settings=".codex/hooks.json",
            events=(HookEvent("UserPromptSubmit", "prompt"),),
            timeout_unit="s",
            entry_style="grouped",
            file_skeleton=(),
            prompt_fields=("prompt",),
            cwd_fields=("cwd",),
            session_fields=("session_id",),
            build_output=hook_specific_output,
        ),
        Provider(
            name="gemini",
            label="Gemini CLI",
            user_settings=".gemini/settings.json",
            project_settings=".gemini/settings.json",
            events=(HookEvent("BeforeAgent", "prompt"),),
            timeout_unit="ms",
            entry_style="grouped",
            file_skeleton=(),
            prompt_fields=("prompt",),
            cwd_fields=("cwd",),
            session_fields=("session_id",),
            build_output=hook_specific_output,
        ),
        Provider(
            name="cursor",
            label="Cursor",
            user_settings=".cursor/hooks.json",
            project_settings=".cursor/hooks.json",
            # beforeSubmitPrompt cannot add context, so the lessons arrive once, at sessionStart.
            events=(HookEvent("sessionStart", "session"), HookEvent("beforeSubmitPrompt", "ack")),
            timeout_unit="s",
            entry_style="flat",
            file_skeleton=(("version", 1),),
            prompt_fields=("prompt",),
            cwd_fields=("workspace_roots", "cwd"),
            session_fields=("conversation_id", "session_id"),
            build_output=cursor_output,
        ),
    )
}
PROVIDER_NAMES: tuple[str, ...] = tuple(PROVIDERS)


def payload_text(payload: Mapping[str, Any], fields: tuple[str, ...]) -> str:
    """The first non-empty string among `fields` (the first string of a list field)."""
    for name in fields:
        value = payload.get(name)
        if isinstance(value, list):
            value = next((v for v in value if isinstance(v, str) and v), None)
        if isinstance(value, str) and value:
            return value
    return ""


def encode_output(doc: Output | None) -> bytes:
    """The bytes written to stdout: one compact JSON line, or nothing at all."""
    if doc is None:
        return b""
    return orjson.dumps(doc) + b"\n"


def empty_output(provider: Provider, event: HookEvent) -> bytes:
    """What the agent gets when there is nothing to say, past the deadline or on any error."""
    return encode_output(provider.build_output(event, ""))


_ANY_TEXT = "\x00context"


def _same_shape(expected: Any, actual: Any) -> bool:
    if isinstance(expected, dict):
        return (
            isinstance(actual, dict)
            and set(actual) == set(expected)
            and all(_same_shape(expected[k], actual[k]) for k in expected)
        )
    if expected == _ANY_TEXT:
        return isinstance(actual, str) and bool(actual)
    return type(actual) is type(expected) and actual == expected


def check_output(provider: Provider, event: HookEvent, stdout: bytes) -> str:
    """Why `stdout` is not what this agent parses for `event` ('' when it is)."""
    text = stdout.strip()
    if not text:
        return ""
    try:
        doc = orjson.loads(text)
    except orjson.JSONDecodeError:
        return "stdout is not one JSON document"
    expected = provider.build_output(event, _ANY_TEXT)
    if expected is None or not _same_shape(expected, doc):
        return f"stdout is not the {provider.label} {event.name} shape: {text[:120]!r}"
    if len(text.decode("utf-8", "replace")) > MAX_OUTPUT_CHARS:
        return f"stdout is over {MAX_OUTPUT_CHARS} characters"
    return ""


__all__ = [
    "AGENT_TIMEOUT_S",
    "MAX_OUTPUT_CHARS",
    "PROVIDERS",
    "PROVIDER_NAMES",
    "HookEvent",
    "HookKind",
    "Provider",
    "check_output",
    "cursor_output",
    "empty_output",
    "encode_output",
    "hook_specific_output",
    "payload_text",
]
