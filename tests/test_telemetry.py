"""Telemetry: one private line per hook run, safe under concurrency, rotated, read by stats."""

from __future__ import annotations

import hashlib
import hmac
import json
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ome.cli import cli
from ome.params import ENGINE_VERSION
from ome.scoring import percentile
from ome.telemetry import (
    EVENTS_FILE,
    ROTATED_FILE,
    SALT_FILE,
    HookRun,
    append_line,
    compute_stats,
    keyed_hash,
    library_fingerprint,
    load_salt,
    read_events,
)

CARD = """---
schema: ome-card
id: force-push-shared-branch
status: active
title: Do not force-push a shared branch
summary: Force-pushing a branch other people pull from rewrites their history.
recall:
  triggers: [force push, shared branch]
---

# Do not force-push a shared branch

## Full Rule

```text
Push rewritten work to a new branch.
```
"""
IDLE_CARD = """---
schema: ome-card
id: rotate-api-keys
status: active
title: Rotate leaked API keys first
summary: A leaked key is revoked and replaced before anything else is cleaned up.
recall:
  triggers: [rotate the api keys]
---

# Rotate leaked API keys first

## Full Rule

```text
Revoke, replace, then clean history.
```
"""
PROMPT = "force push the zanzibar branch onto the shared branch"
LINE_KEYS = {
    "abstain_reason",
    "context_chars",
    "duration_ms",
    "engine",
    "error",
    "event",
    "ids",
    "kind",
    "library",
    "library_size",
    "outcome",
    "prompt_hmac",
    "provider",
    "reminder_ids",
    "schema",
    "scores",
    "session",
    "ts",
}


@pytest.fixture
def library(data_dir: Path) -> Path:
    active = data_dir / "experiences" / "active"
    active.mkdir(parents=True)
    (active / "force-push-shared-branch.md").write_text(CARD, encoding="utf-8")
    (active / "rotate-api-keys.md").write_text(IDLE_CARD, encoding="utf-8")
    configure(data_dir, "")
    return data_dir


def configure(data_dir: Path, extra: str) -> None:
    """Only the test cards; a deadline generous enough for a loaded machine."""
    (data_dir / "config.yaml").write_text(
        "library:\n  starter_cards: false\nhook:\n  deadline_ms: 10000\n" + extra,
        encoding="utf-8",
    )


def hook(prompt: str, session: str = "session-1", provider: str = "claude") -> bytes:
    body = {"session_id": session, "cwd": "/nowhere", "prompt": prompt, "hook_event_name": "x"}
    done = subprocess.run(
        [sys.executable, "-m", "ome.hook", "--provider", provider],
        input=json.dumps(body).encode(),
        capture_output=True,
        timeout=30,
        check=True,
    )
    return done.stdout


def lines(data_dir: Path, name: str = EVENTS_FILE) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (data_dir / name).read_text().splitlines()]


def test_a_hook_run_writes_one_line_and_never_the_prompt(library: Path) -> None:
    hook(PROMPT)
    raw = (library / EVENTS_FILE).read_text()
    (line,) = lines(library)
    assert set(line) == LINE_KEYS
    assert line["schema"] == 1 and line["engine"] == ENGINE_VERSION
    assert (line["provider"], line["event"], line["kind"]) == (
        "claude",
        "UserPromptSubmit",
        "prompt",
    )
    assert (line["outcome"], line["ids"]) == ("matched", ["force-push-shared-branch"])
    assert len(line["scores"]) == 1 and line["library_size"] == 2
    salt = load_salt(library)
    assert line["prompt_hmac"] == keyed_hash(salt, "prompt", PROMPT)
    assert line["session"] == keyed_hash(salt, "session", "claude:session-1")
    assert "zanzibar" not in raw and "session-1" not in raw


def test_the_salt_is_private_stable_and_per_install(library: Path, tmp_path: Path) -> None:
    hook(PROMPT)
    path = library / SALT_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    first = load_salt(library)
    assert load_salt(library) == first and len(first) == 32
    other = load_salt(tmp_path / "other-install")
    assert keyed_hash(first, "prompt", PROMPT) != keyed_hash(other, "prompt", PROMPT)


def test_a_corrupt_salt_is_reported_not_trusted(tmp_path: Path) -> None:
    (tmp_path / SALT_FILE).write_text("short")
    with pytest.raises(OSError, match="delete it"):
        load_salt(tmp_path)


def test_raw_prompts_only_with_the_opt_in(library: Path) -> None:
    configure(library, "privacy:\n  save_raw_prompt: true\n")
    hook(PROMPT)
    assert lines(library)[0]["prompt"] == PROMPT


def test_telemetry_can_be_switched_off(library: Path) -> None:
    configure(library, "telemetry:\n  enabled: false\n")
    assert hook(PROMPT)
    assert not (library / EVENTS_FILE).exists()


def test_the_file_rotates_by_size(tmp_path: Path) -> None:
    line = HookRun("claude", "UserPromptSubmit", "prompt", "abstained", 1.0).to_line()
    for _ in range(10):
        append_line(tmp_path, line, max_bytes=len(line) * 4)
    assert len(lines(tmp_path, ROTATED_FILE)) == 4
    assert len(lines(tmp_path)) == 2
    assert len(list(read_events(tmp_path))) == 6


def test_fifty_concurrent_hooks_each_record_a_whole_line_or_say_they_gave_up(library: Path) -> None:
    body = json.dumps({"session_id": "s", "cwd": "/nowhere", "prompt": PROMPT}).encode()
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "ome.hook", "--provider", "codex"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for _ in range(50)
    ]
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write(body)
        proc.stdin.close()
    assert [proc.wait(timeout=120) for proc in procs] == [0] * 50
    # Fifty processes on a small, busy machine: a run still starting when the default deadline
    # passes gives up, as it should, and says so on stderr. One that had read its config records
    # the give-up too; one that had not cannot tell where, or whether, to record.
    gave_up = 0
    for proc in procs:
        assert proc.stderr is not None
        with proc.stderr:
            gave_up += b"deadline" in proc.stderr.read()
    # A warm server records a run after it has answered it: its last lines may come a little
    # after the last client exited. Every line read must parse.
    waited_until = time.monotonic() + 60
    while len(events := lines(library)) < 50 - gave_up and time.monotonic() < waited_until:
        time.sleep(0.1)
    assert all(e["schema"] == 1 and e["provider"] == "codex" for e in events)
    assert {e["outcome"] for e in events} <= {"matched", "deadline"}
    matched = [e for e in events if e["outcome"] == "matched"]
    assert matched and all(e["ids"] == ["force-push-shared-branch"] for e in matched)
    assert all(e["error"] == "deadline" for e in events if e["outcome"] == "deadline")
    # No run is lost: each one matched and recorded it, or gave up and said so.
    assert len(matched) + gave_up == 50
    assert len(events) <= 50


# --- stats --------------------------------------------------------------------------------------


def event(ids: list[str], ms: float, **fields: Any) -> dict[str, Any]:
    doc = {"kind": "prompt", "engine": "e1", "library": "L", "ids": ids, "duration_ms": ms}
    doc.update(fields)
    return doc


def test_compute_stats_by_hand() -> None:
    events = [
        event(["a"], 10),
        event(["a", "b"], 20),
        event([], 30, abstain_reason="no_candidates"),
        event([], 40, abstain_reason="no_candidates"),
        event(["c"], 500, engine="e0"),
        event([], 1, kind="ack"),
    ]
    stats = compute_stats(events, ["a", "b", "c", "d"], "e1", "L")
    assert (stats.runs, stats.matched_runs, stats.match_rate) == (4, 2, 0.5)
    assert stats.card_counts == (("a", 2), ("b", 1))
    assert stats.never_returned == ("c", "d")
    assert (stats.median_ms, stats.p95_ms) == (25.0, 40.0)
    assert stats.abstain_reasons == (("no_candidates", 2),)
    everything = compute_stats(events, ["a", "b", "c", "d"], "e1", "L", include_all=True)
    assert (everything.runs, everything.never_returned) == (5, ("d",))


@pytest.mark.parametrize(("pct", "expected"), [(50, 3.0), (95, 5.0), (0, 1.0), (100, 5.0)])
def test_percentile_is_nearest_rank(pct: float, expected: float) -> None:
    assert percentile([5.0, 1.0, 4.0, 2.0, 3.0], pct) == expected


def test_ome_stats_reads_real_runs(library: Path) -> None:
    hook(PROMPT)
    hook("write a haiku about autumn")
    append_line(library, json.dumps(event(["old"], 1, engine="ancient")).encode() + b"\n", 0)
    result = CliRunner().invoke(cli, ["stats", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert (doc["runs"], doc["matched_runs"], doc["match_rate"]) == (2, 1, 0.5)
    assert doc["card_counts"] == {"force-push-shared-branch": 1}
    assert doc["never_returned"] == ["rotate-api-keys"]
    assert doc["engine"] == ENGINE_VERSION and doc["median_ms"] > 0
    every = json.loads(CliRunner().invoke(cli, ["stats", "--json", "--all"]).output)
    assert every["runs"] == 3 and every["card_counts"]["old"] == 1
    human = CliRunner().invoke(cli, ["stats"]).output
    assert "Matched: 1 (50.0%)" in human and "rotate-api-keys" in human


def test_library_fingerprint_ignores_order() -> None:
    cards = [("a", "/x/a.md"), ("b", "/x/b.md")]
    assert library_fingerprint(cards) == library_fingerprint(reversed(cards))
    assert library_fingerprint(cards) != library_fingerprint(cards[:1])


@pytest.mark.parametrize("salt_bytes", [0, 1, 32, 64, 65, 200])
@pytest.mark.parametrize("value", ["", "force push 到共享分支", "\ud800 lone surrogate"])
def test_keyed_hash_is_hmac_sha256(salt_bytes: int, value: str) -> None:
    """The hook hashes without loading OpenSSL; the result is the standard HMAC-SHA256."""
    salt = bytes(range(256))[:salt_bytes]
    message = f"prompt\x00{value}".encode("utf-8", "surrogatepass")
    expected = hmac.new(salt, message, hashlib.sha256).hexdigest()[:32]
    assert keyed_hash(salt, "prompt", value) == expected


def test_library_fingerprint_is_sha256_of_sorted_lines() -> None:
    cards = [("b", "/x/b.md"), ("a", "/x/a.md"), ("模板", "/x/模板.md")]
    lines = "".join(f"{i}\t{p}\n" for i, p in sorted(cards)).encode()
    assert library_fingerprint(cards) == hashlib.sha256(lines).hexdigest()[:16]


def test_lines_are_whole_and_sorted() -> None:
    run = HookRun("gemini", "BeforeAgent", "prompt", "matched", 12.345, ids=("x",), scores=(70,))
    raw = run.to_line(now=0)
    assert raw.endswith(b"\n") and raw.count(b"\n") == 1
    doc = json.loads(raw)
    assert list(doc) == sorted(doc)
    assert (doc["duration_ms"], doc["ts"]) == (12.3, "1970-01-01T00:00:00Z")
