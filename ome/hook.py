"""The agent hook (SPEC §6): the agent's JSON on stdin, the JSON it parses on stdout, exit 0.

Agents run this on every prompt as `python -m ome.hook --provider P`, so it imports neither
click, ruamel nor pypinyin. One deadline covers the whole run; past it, or on any error, the
agent gets its empty response and stderr gets one line. It writes only to the data dir (telemetry
and per-session reminder state), never to a project library.
"""

from __future__ import annotations

import gc

if __name__ == "__main__":
    import sys
    import time

    _started = time.monotonic()
    from ome import server

    # A warm server answers and ends this process here, before the imports below; without
    # one, `_forwarded` is None or the stdin bytes already read, which this process answers.
    _forwarded, _waited = server.forward(sys.argv[1:])
    # A short-lived process: collecting cycles (from the imports on) costs more than it frees.
    gc.disable()
    # Before the imports below define their dataclasses: their methods come compiled.
    from ome import dataclass_cache

    dataclass_cache.install()

import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from io import BytesIO
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from ome import server
from ome.atomic import write_atomic
from ome.engine import ABSTAIN_MAINTENANCE, is_maintenance_command
from ome.providers import (
    MAX_OUTPUT_CHARS,
    PROVIDER_NAMES,
    PROVIDERS,
    HookEvent,
    Provider,
    empty_output,
    encode_output,
    payload_text,
)
from ome.telemetry import (
    HookRun,
    Outcome,
    keyed_hash,
    library_fingerprint,
    load_salt,
    record_run,
)

if TYPE_CHECKING:
    from ome.api import Workspace
    from ome.config import Config
    from ome.engine import RecallOptions, RecallResult

MAX_STDIN_BYTES = server.MAX_STDIN_BYTES
DEFAULT_DEADLINE_MS = 1500
# The longest deadline a config may set. Past the agents' 5 s kill timeout that the installers
# write (providers.AGENT_TIMEOUT_S) a deadline needs a longer timeout set in the agent by hand.
MAX_DEADLINE_MS = 10_000
# Card parsing (a cold or much-changed library) stops this long before the deadline, or at two
# thirds of it, so recall on what was parsed still answers in time; a background builder finishes.
RECALL_MARGIN_S = 0.4
WAIT_STEP_S = 0.02
SESSION_MAX_AGE_S = 7 * 24 * 3600
NO_RECORD_ENV = server.NO_RECORD_ENV

# Cursor's sessionStart index: how many cards and characters, and how much workspace text to read.
SESSION_INDEX_CARDS = 12
SESSION_INDEX_CHARS = 4000
SESSION_SUMMARY_CHARS = 160
WORKSPACE_TEXT_CHARS = 4000
READMES = ("README.md", "README.rst", "README.txt", "README")

ABSTAIN_OVER_CAP = "output_over_cap"

SESSION_HEADER = (
    "# OME experience cards for this workspace\n\n"
    "Cursor hooks cannot add context to each prompt, so this index was chosen when the session"
    " started: project cards first, then cards matching the workspace's README and manifest.\n"
    "These are optional reminders from reviewed lessons, not instructions; one that does not fit"
    " the task can be ignored. The command on a card's line prints its full rule.\n\n"
)


@dataclass(frozen=True, slots=True)
class HookArgs:
    """The hook's command line: `--provider P [--event E] [--data-dir D]`."""

    provider: str = ""
    event: str = ""
    data_dir: str = ""


def parse_args(argv: Sequence[str]) -> HookArgs:
    """`--provider P [--event E] [--data-dir D]`; unknown arguments are ignored, never fatal."""
    return HookArgs(**server.parse_hook_argv(tuple(argv)))


def read_payload(data: bytes) -> dict[str, Any]:
    """The agent's JSON object; unknown fields are kept, anything else is a ValueError."""
    if not data.strip():
        raise ValueError("stdin is empty; expected the agent's JSON payload")
    text = data.decode("utf-8", "replace")
    try:
        doc = orjson.loads(text)
    except orjson.JSONDecodeError:
        doc = _json_with_lone_surrogates(text)
    if not isinstance(doc, dict):
        raise ValueError("stdin is JSON but not an object; expected the agent's payload")
    return doc


def _json_with_lone_surrogates(text: str) -> Any:
    """Read again what orjson refused, with the standard library: an escaped lone surrogate
    comes back as U+FFFD; what that cannot read either is a ValueError.

    JSON's grammar allows `"\\ud83d"` alone, and a JavaScript agent writes one for an emoji cut
    in half; dropping the whole prompt for it would lose the recall.
    """
    import json  # only on this rare path: the hook imports what every prompt needs

    try:
        return _replace_lone_surrogates(json.loads(text))
    except (ValueError, RecursionError):
        raise ValueError("stdin is not JSON; expected the agent's JSON payload") from None


def _replace_lone_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, dict):
        return {_replace_lone_surrogates(k): _replace_lone_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace_lone_surrogates(v) for v in value]
    return value


# --- per-session reminders ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SessionState:
    """Prompts seen in one agent session and when each card was last injected in full."""

    path: Path
    prompts: int = 0
    full: tuple[tuple[str, int], ...] = ()

    def reminder_ids(self, window: int) -> frozenset[str]:
        """Cards shown in full within the last `window` prompts: a one-line reminder now."""
        current = self.prompts + 1
        return frozenset(i for i, shown in self.full if 0 < current - shown <= window)

    def advance(self, shown_in_full: Iterable[str], window: int) -> SessionState:
        """The state after this prompt; entries whose reminder window has passed are dropped."""
        current = self.prompts + 1
        full = {i: shown for i, shown in self.full if current + 1 - shown <= window}
        full.update((i, current) for i in shown_in_full)
        return SessionState(self.path, current, tuple(sorted(full.items())))


def session_path(data_dir: Path, session_key: str) -> Path:
    return data_dir / "cache" / "sessions" / f"{session_key}.json"


def load_session(path: Path) -> SessionState:
    """The saved state, or a fresh one when missing or unreadable."""
    try:
        doc = orjson.loads(path.read_bytes())
        prompts = int(doc["prompts"])
        full = tuple(sorted((str(k), int(v)) for k, v in dict(doc["full"]).items()))
    except (OSError, ValueError, KeyError, TypeError, orjson.JSONDecodeError):
        return SessionState(path)
    return SessionState(path, prompts, full)


def save_session(state: SessionState, now: float | None = None) -> None:
    """Write atomically (temp file + rename); a new session also prunes stale ones."""
    folder = state.path.parent
    is_new = not state.path.exists()
    folder.mkdir(parents=True, exist_ok=True)
    doc = {"prompts": state.prompts, "full": dict(state.full)}
    write_atomic(state.path, orjson.dumps(doc, option=orjson.OPT_SORT_KEYS), durable=False)
    if is_new:
        prune_sessions(folder, now)


def prune_sessions(folder: Path, now: float | None = None) -> None:
    """Delete session files untouched for SESSION_MAX_AGE_S."""
    cutoff = (time.time() if now is None else now) - SESSION_MAX_AGE_S
    for path in sorted(folder.glob("*.json")):
        try:
            if path.stat().st_mtime < cutoff:
                path.unlink()
        except OSError:
            continue


# --- answers --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Answer:
    """What one run computed: the bytes for the agent, and what to record after writing them."""

    output: bytes
    run: HookRun
    config: Config
    session: SessionState | None = None
    warning: str = ""


def fit_output(
    provider: Provider,
    event: HookEvent,
    workspace: Workspace,
    prompt: str,
    result: RecallResult,
) -> tuple[bytes, RecallResult]:
    """The agent's bytes within MAX_OUTPUT_CHARS, re-rendering with a smaller budget if needed."""
    from ome.api import match_prompt

    output = encode_output(provider.build_output(event, result.context))
    options: RecallOptions = result.options
    while (over := len(output.decode("utf-8")) - MAX_OUTPUT_CHARS) > 0:
        budget = options.budget_chars - over - 200  # JSON escaping grows with the text
        if budget <= 0:
            return empty_output(provider, event), result
        options = replace(options, budget_chars=budget)
        result = match_prompt(workspace, prompt, options)
        output = encode_output(provider.build_output(event, result.context))
    return output, result


def _base_run(provider: Provider, event: HookEvent, outcome: Outcome = "abstained") -> HookRun:
    return HookRun(provider.name, event.name, event.kind, outcome, duration_ms=0.0)


def _salt(data_dir: Path) -> tuple[bytes, str]:
    """The telemetry salt and a warning: with a corrupt salt file the run goes on without hashes
    or reminders."""
    try:
        return load_salt(data_dir), ""
    except OSError as exc:
        return b"", str(exc)


def answer_prompt(
    provider: Provider,
    event: HookEvent,
    payload: dict[str, Any],
    config: Config,
    deadline: float | None = None,
) -> Answer:
    """Recall on the prompt (Claude Code, Codex, Gemini); card parsing stops at `deadline`."""
    from ome.api import library_keys, match_prompt, open_workspace, recall_options

    prompt = payload_text(payload, provider.prompt_fields)
    cwd = payload_text(payload, provider.cwd_fields) or None
    session_id = payload_text(payload, provider.session_fields)
    base = _base_run(provider, event)
    if is_maintenance_command(prompt):
        recorded = replace(base, abstain_reason=ABSTAIN_MAINTENANCE)
        return Answer(empty_output(provider, event), recorded, config)
    workspace = open_workspace(config.data_dir, cwd, deadline=deadline)
    salt, warning = _salt(workspace.data_dir)
    session_key = (
        keyed_hash(salt, "session", f"{provider.name}:{session_id}") if salt and session_id else ""
    )
    window = int(config.get("hook.reminder_prompts"))
    state = load_session(session_path(workspace.data_dir, session_key)) if session_key else None
    reminders = state.reminder_ids(window) if state else frozenset()
    result = match_prompt(workspace, prompt, recall_options(workspace, reminder_ids=reminders))
    output, result = fit_output(provider, event, workspace, prompt, result)
    ids = tuple(m.id for m in result.matches) if output else ()
    recorded = replace(
        base,
        outcome="matched" if ids else "abstained",
        ids=ids,
        scores=tuple(m.score for m in result.matches) if ids else (),
        reminder_ids=tuple(i for i in ids if i in reminders),
        abstain_reason="" if ids else (result.abstain_reason or ABSTAIN_OVER_CAP),
        library=library_fingerprint(library_keys(workspace)),
        library_size=len(workspace.library.cards),
        session=session_key,
        prompt_hmac=keyed_hash(salt, "prompt", prompt) if salt else "",
        context_chars=len(result.context) if ids else 0,
        raw_prompt=prompt if config.get("privacy.save_raw_prompt") else None,
    )
    session = state.advance((i for i in ids if i not in reminders), window) if state else None
    return Answer(output, recorded, config, session, warning)


def workspace_text(root: Path) -> str:
    """Words that say what a workspace is: README head, manifest name, description, keywords."""
    import tomllib

    parts: list[str] = []

    def read(path: Path) -> str:
        with path.open("rb") as handle:
            return handle.read(64 * 1024).decode("utf-8", "replace")

    def describe(doc: Any) -> None:
        if isinstance(doc, dict):
            for key in ("name", "description"):
                if isinstance(doc.get(key), str):
                    parts.append(doc[key])
            keywords = doc.get("keywords")
            if isinstance(keywords, list):
                parts.append(" ".join(k for k in keywords if isinstance(k, str)))

    for name, table in (("pyproject.toml", "project"), ("Cargo.toml", "package")):
        try:
            describe(tomllib.loads(read(root / name)).get(table))
        except (OSError, ValueError):
            pass
    try:
        describe(orjson.loads(read(root / "package.json")))
    except (OSError, ValueError):
        pass
    try:
        parts.append(read(root / "go.mod").splitlines()[0])
    except (OSError, IndexError):
        pass
    for name in READMES:
        try:
            parts.append(read(root / name)[:WORKSPACE_TEXT_CHARS])
            break
        except OSError:
            continue
    return "\n".join(p for p in parts if p.strip())[: WORKSPACE_TEXT_CHARS * 2]


def workspace_index(workspace: Workspace, cwd: Path) -> tuple[str, tuple[str, ...]]:
    """Cursor's sessionStart context: project cards, then cards matching the workspace's words."""
    from ome.api import match_prompt, recall_options

    cards = {(c.card.id, str(c.layer)): c for c in workspace.library.cards}
    chosen = [c for c in sorted(cards.values(), key=lambda c: c.card.id) if c.layer == "project"]
    text = workspace_text(workspace.project_root or cwd)
    if text:
        options = recall_options(workspace, limit=SESSION_INDEX_CARDS)
        for match in match_prompt(workspace, text, options).matches:
            found = cards.get((match.id, match.layer))
            if found is not None and found not in chosen:
                chosen.append(found)
    body = ""
    ids: list[str] = []
    for card_file in chosen[:SESSION_INDEX_CARDS]:
        card = card_file.card
        summary = " ".join(card.summary.split())
        if len(summary) > SESSION_SUMMARY_CHARS:
            summary = summary[: SESSION_SUMMARY_CHARS - 1].rstrip() + "…"
        scope = " --scope project" if card_file.layer == "project" else ""
        line = (
            f"- [{card.risk} risk][{card.policy}] {card.display_title} ({card.id}): {summary}"
            f" Rule: ome experience show {card.id} --section rule{scope}\n"
        )
        if len(SESSION_HEADER) + len(body) + len(line) > SESSION_INDEX_CHARS:
            break
        body += line
        ids.append(card.id)
    return (SESSION_HEADER + body if ids else ""), tuple(ids)


def answer_session(
    provider: Provider,
    event: HookEvent,
    payload: dict[str, Any],
    config: Config,
    deadline: float | None = None,
) -> Answer:
    """Cursor's sessionStart: a bounded index of the cards most relevant to the workspace."""
    from ome.api import library_keys, open_workspace

    cwd = payload_text(payload, provider.cwd_fields)
    workspace = open_workspace(config.data_dir, cwd or None, deadline=deadline)
    context, ids = workspace_index(workspace, Path(cwd) if cwd else Path.cwd())
    output = encode_output(provider.build_output(event, context))
    session_id = payload_text(payload, provider.session_fields)
    salt, warning = _salt(workspace.data_dir) if session_id else (b"", "")
    recorded = replace(
        _base_run(provider, event),
        outcome="matched" if ids else "abstained",
        ids=ids,
        abstain_reason="" if ids else "no_workspace_cards",
        library=library_fingerprint(library_keys(workspace)),
        library_size=len(workspace.library.cards),
        session=keyed_hash(salt, "session", f"{provider.name}:{session_id}") if salt else "",
        context_chars=len(context),
    )
    return Answer(output, recorded, config, warning=warning)


def answer_ack(
    provider: Provider,
    event: HookEvent,
    payload: dict[str, Any],
    config: Config,
    deadline: float | None = None,
) -> Answer:
    """Cursor's beforeSubmitPrompt: let the prompt through; it cannot carry context."""
    recorded = replace(_base_run(provider, event), outcome="ack")
    return Answer(encode_output(provider.build_output(event, "")), recorded, config)


ANSWERS = {"prompt": answer_prompt, "session": answer_session, "ack": answer_ack}


# --- the run: one deadline, a worker thread, bookkeeping after the answer -------------------


class _Run:
    """State shared between the waiting thread and the worker computing the answer."""

    def __init__(self, provider: Provider, args: HookArgs, start: float) -> None:
        self.provider = provider
        self.args = args
        self.start = start
        self.deadline = start + DEFAULT_DEADLINE_MS / 1000
        self.event = provider.event(args.event)
        self.config: Config | None = None
        self.answer: Answer | None = None
        self.error: BaseException | None = None
        self.done = threading.Event()

    def set_deadline(self, config: Config) -> None:
        ms = min(max(int(config.get("hook.deadline_ms")), 1), MAX_DEADLINE_MS)
        self.deadline = self.start + ms / 1000

    def parse_deadline(self) -> float:
        """When card parsing must stop so that recall on the parsed cards answers in time."""
        budget = self.deadline - self.start
        return self.deadline - min(RECALL_MARGIN_S, budget / 3)

    def work(self, stdin: Any) -> None:
        try:
            from ome.config import CACHE_DIR, load_config_cached, resolve_data_dir

            # The config first: it sets the deadline for everything after it. The cached copy
            # spares a warm run the YAML parser.
            data_dir = resolve_data_dir(self.args.data_dir or None)
            cache_dir = data_dir / CACHE_DIR if data_dir.is_dir() else None
            self.config = config = load_config_cached(data_dir, cache_dir)
            self.set_deadline(config)
            data = stdin.read(MAX_STDIN_BYTES + 1) if stdin is not None else b""
            if len(data) > MAX_STDIN_BYTES:
                raise ValueError(f"stdin is over {MAX_STDIN_BYTES} bytes")
            payload = read_payload(data)
            name = self.args.event or payload_text(payload, ("hook_event_name",))
            self.event = event = self.provider.event(name)
            answer = ANSWERS[event.kind]
            self.answer = answer(self.provider, event, payload, config, self.parse_deadline())
        except BaseException as exc:  # the hook lets nothing escape
            self.error = exc
        finally:
            self.done.set()

    def wait(self) -> bool:
        """Wait for the answer until the deadline (which the config may move); True if it came."""
        while not self.done.wait(WAIT_STEP_S):
            if time.monotonic() >= self.deadline:
                return self.done.is_set()
        return True


@dataclass(frozen=True, slots=True)
class Reply:
    """One hook run's result: the agent's bytes, one stderr line, and the bookkeeping to do once
    the agent has them (`finish` saves the session and records telemetry, returning a warning)."""

    output: bytes
    warning: str
    in_time: bool
    config: Config | None
    finish: Callable[[], str]


def handle(argv: Sequence[str], stdin: Any, start: float) -> Reply:
    """One hook run: argv and stdin (a binary stream) of the agent, the deadline counted from
    `start` (a `time.monotonic()` value). Never raises. Shared by the process and the server."""
    args = parse_args(argv)
    provider = PROVIDERS.get(args.provider)
    if provider is None:
        names = ", ".join(PROVIDER_NAMES)
        return Reply(
            b"", f"unknown provider {args.provider!r}; use one of: {names}", True, None, str
        )
    run = _Run(provider, args, start)
    threading.Thread(target=run.work, args=(stdin,), name="ome-hook", daemon=True).start()
    in_time = run.wait()
    answer = run.answer if in_time else None
    outcome: Outcome
    if answer is not None:
        outcome, error, output, warning = answer.run.outcome, "", answer.output, answer.warning
    else:
        output = empty_output(provider, run.event)
        if not in_time:
            outcome, error = "deadline", "deadline"
            warning = f"no answer within the {int((run.deadline - start) * 1000)} ms deadline"
        else:
            exc = run.error
            outcome, error = "error", type(exc).__name__
            warning = f"{type(exc).__name__}: {exc}{_where(exc)}"

    def finish() -> str:
        duration_ms = (time.monotonic() - start) * 1000
        return _record(run, run.answer, outcome, error, duration_ms)

    return Reply(output, warning, in_time, run.config, finish)


def _warn(message: str) -> None:
    """One line on stderr per run: the first problem, which is usually the cause of the rest."""
    try:
        sys.stderr.write(f"ome hook: {' '.join(message.split())[:300]}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _where(exc: BaseException | None) -> str:
    """` (at file:line)` of the innermost frame, so one stderr line is enough to find a bug."""
    if exc is None or exc.__traceback__ is None or isinstance(exc, ValueError):
        return ""
    import traceback

    frame = traceback.extract_tb(exc.__traceback__)[-1]
    return f" (at {Path(frame.filename).name}:{frame.lineno})"


def _write(output: bytes) -> None:
    try:
        sys.stdout.buffer.write(output)
        sys.stdout.buffer.flush()
    except (OSError, ValueError):
        pass


def _record(
    run: _Run, answer: Answer | None, outcome: Outcome, error: str, duration_ms: float
) -> str:
    """Save the session state and append the telemetry line; a failure is returned, not raised."""
    if os.environ.get(NO_RECORD_ENV):
        return ""
    try:
        if answer is None:
            if run.config is None:
                return ""  # no readable config: nowhere to record, and no telling if allowed
            root, config = run.config.data_dir, run.config
            recorded = replace(_base_run(run.provider, run.event, outcome), error=error)
        else:
            root, config, recorded = answer.config.data_dir, answer.config, answer.run
            if answer.session is not None and outcome != "deadline":
                save_session(answer.session)
            if outcome == "deadline":  # computed too late: the agent got nothing
                recorded = replace(
                    recorded, outcome=outcome, ids=(), scores=(), reminder_ids=(), context_chars=0
                )
        if config.get("telemetry.enabled"):
            recorded = replace(recorded, duration_ms=duration_ms)
            record_run(root, recorded, int(config.get("telemetry.max_bytes")))
    except Exception as exc:  # recording is best effort; the agent already has its answer
        return f"could not record the run ({type(exc).__name__}: {exc})"
    return ""


def main(
    argv: Sequence[str] | None = None,
    stdin: bytes | None = None,
    start: float | None = None,
    start_server: bool = False,
) -> int:
    """Run the hook for `--provider P`; always returns 0 (exits 0 directly past the deadline).

    `stdin` is what a failed `server.forward` already read (else the process's stdin is read);
    `start` when the run began; `start_server` starts the data dir's warm server afterwards.
    """
    collecting = gc.isenabled()
    gc.disable()  # the run allocates much and frees little: cycle collection is wasted time
    try:
        args = sys.argv[1:] if argv is None else argv
        stream = BytesIO(stdin) if stdin is not None else getattr(sys.stdin, "buffer", None)
        reply = handle(args, stream, time.monotonic() if start is None else start)
        _write(reply.output)
        record_warning = reply.finish()
        if reply.warning or record_warning:
            _warn(reply.warning or record_warning)
        if not reply.in_time:
            # The worker may still be inside recall; leave without waiting for it.
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(0)
        config = reply.config
        if start_server and config is not None and config.get("hook.server"):
            server.spawn(str(config.data_dir))
        return 0
    finally:
        if collecting:
            gc.enable()


__all__ = [
    "Answer",
    "HookArgs",
    "Reply",
    "SessionState",
    "answer_ack",
    "answer_prompt",
    "answer_session",
    "fit_output",
    "handle",
    "load_session",
    "main",
    "parse_args",
    "prune_sessions",
    "read_payload",
    "save_session",
    "session_path",
    "workspace_index",
    "workspace_text",
]

if __name__ == "__main__":
    # After a server that took the payload and did not answer, the deadline counts from the
    # process start (the agent's clock); otherwise from here, once the imports are done.
    status = main(stdin=_forwarded, start=_started if _waited else None, start_server=True)
    dataclass_cache.save()
    # Skip the interpreter's teardown (freeing every module and object, ~10 ms): the answer is
    # written and recorded, and nothing else is buffered.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
