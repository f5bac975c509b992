"""Telemetry (SPEC §7): one JSON line per hook run in `<data dir>/events.jsonl`, and `ome stats`.

Nothing derived from a prompt is kept in the clear: prompt and session ids are HMAC-SHA256 keyed
with a per-install random salt (`telemetry.salt`, mode 0600), so a dictionary cannot reverse
them; raw prompts only with `privacy.save_raw_prompt: true`. Concurrent hooks append whole lines
with one write under an advisory lock, which also covers rotation to `events.jsonl.1`.
"""

from __future__ import annotations

import functools
import importlib
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

import orjson

from ome.params import ENGINE_VERSION
from ome.scoring import percentile

EVENTS_FILE = "events.jsonl"
ROTATED_FILE = "events.jsonl.1"
LOCK_FILE = "events.lock"
SALT_FILE = "telemetry.salt"
SCHEMA_VERSION = 1
SALT_BYTES = 32
HASH_HEX_CHARS = 32  # 128 bits of the HMAC: collision-free at any realistic event count
FINGERPRINT_HEX_CHARS = 16
# A hook waits this long for the append lock, then writes without rotating: losing a rotation is
# harmless, blocking the agent is not.
LOCK_WAIT_S = 1.0
SALT_WAIT_S = 0.5  # another process may be between creating the salt file and writing it

Outcome = Literal["matched", "abstained", "ack", "deadline", "error"]


def load_salt(data_dir: Path) -> bytes:
    """The per-install HMAC key, created on first use (O_EXCL, mode 0600)."""
    path = data_dir / SALT_FILE
    give_up = time.monotonic() + SALT_WAIT_S
    while True:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            text = path.read_text(encoding="ascii", errors="replace").strip()
            if len(text) == SALT_BYTES * 2:
                try:
                    return bytes.fromhex(text)
                except ValueError:
                    pass
            if time.monotonic() > give_up:
                raise OSError(
                    f"{path} is not a telemetry salt; delete it and a new one is made"
                ) from None
            time.sleep(0.01)
            continue
        except FileNotFoundError:
            data_dir.mkdir(parents=True, exist_ok=True)
            continue
        salt = os.urandom(SALT_BYTES)
        try:
            os.write(fd, salt.hex().encode("ascii"))
        finally:
            os.close(fd)
        return salt


@functools.cache
def _sha256() -> Callable[[bytes], Any]:
    """CPython's built-in SHA-256: hashlib (and hmac) would load OpenSSL, ~2 ms of every hook."""
    for name in ("_sha256", "_sha2"):  # CPython 3.11, 3.12+
        try:
            return importlib.import_module(name).sha256  # type: ignore[no-any-return]
        except ImportError:
            continue
    import hashlib

    return hashlib.sha256


# RFC 2104: the key padded to SHA-256's 64-byte block, XORed with the inner and outer pads.
_BLOCK_BYTES = 64
_INNER_PAD = bytes(b ^ 0x36 for b in range(256))
_OUTER_PAD = bytes(b ^ 0x5C for b in range(256))


def _hmac_sha256(key: bytes, message: bytes) -> str:
    """HMAC-SHA256 (RFC 2104) as hex; equal to `hmac.new(key, message, 'sha256').hexdigest()`."""
    sha256 = _sha256()
    if len(key) > _BLOCK_BYTES:
        key = sha256(key).digest()
    key = key.ljust(_BLOCK_BYTES, b"\0")
    inner = sha256(key.translate(_INNER_PAD) + message).digest()
    return str(sha256(key.translate(_OUTER_PAD) + inner).hexdigest())


def keyed_hash(salt: bytes, purpose: str, value: str) -> str:
    """HMAC-SHA256 of a prompt-derived value, separated by purpose (prompt, session)."""
    message = f"{purpose}\x00{value}".encode("utf-8", "surrogatepass")
    return _hmac_sha256(salt, message)[:HASH_HEX_CHARS]


def library_fingerprint(cards: Iterable[tuple[str, str]]) -> str:
    """A short hash of the searched cards' ids and paths: stats compare runs of one library."""
    text = "".join(f"{card_id}\t{path}\n" for card_id, path in sorted(cards))
    digest = _sha256()(text.encode("utf-8", "surrogatepass")).hexdigest()
    return str(digest)[:FINGERPRINT_HEX_CHARS]


@dataclass(frozen=True, slots=True)
class HookRun:
    """One hook run as recorded: what was returned and why, never the prompt itself."""

    provider: str
    event: str
    kind: str
    outcome: Outcome
    duration_ms: float
    ids: tuple[str, ...] = ()
    scores: tuple[int, ...] = ()
    reminder_ids: tuple[str, ...] = ()
    abstain_reason: str = ""
    library: str = ""
    library_size: int = 0
    session: str = ""
    prompt_hmac: str = ""
    context_chars: int = 0
    error: str = ""
    raw_prompt: str | None = None
    engine: str = ENGINE_VERSION

    def to_line(self, now: float | None = None) -> bytes:
        """One JSON line, sorted keys; `prompt` only when the raw prompt was opted in."""
        doc: dict[str, Any] = asdict(self)
        raw = doc.pop("raw_prompt")
        if raw is not None:
            doc["prompt"] = raw
        doc["schema"] = SCHEMA_VERSION
        doc["duration_ms"] = round(self.duration_ms, 1)
        doc["ts"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now))
        return orjson.dumps(doc, option=orjson.OPT_SORT_KEYS) + b"\n"


def _acquire(fd: int) -> bool:
    try:
        import fcntl
    except ImportError:  # Windows: O_APPEND alone
        return False
    give_up = time.monotonic() + LOCK_WAIT_S
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() > give_up:
                return False
            time.sleep(0.002)


def _release(fd: int) -> None:
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_UN)


def append_line(data_dir: Path, line: bytes, max_bytes: int) -> None:
    """Append one whole line to events.jsonl, rotating it first when it would pass `max_bytes`."""
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / EVENTS_FILE
    lock_fd = os.open(data_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        locked = _acquire(lock_fd)
        try:
            if locked and max_bytes > 0:
                try:
                    size = os.stat(path).st_size
                except FileNotFoundError:
                    size = 0
                if size and size + len(line) > max_bytes:
                    os.replace(path, data_dir / ROTATED_FILE)
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                view = memoryview(line)
                while view:
                    view = view[os.write(fd, view) :]
            finally:
                os.close(fd)
        finally:
            if locked:
                _release(lock_fd)
    finally:
        os.close(lock_fd)


def record_run(data_dir: Path, run: HookRun, max_bytes: int) -> None:
    append_line(data_dir, run.to_line(), max_bytes)


def read_events(data_dir: Path) -> Iterator[dict[str, Any]]:
    """Every parseable event, oldest first (the rotated file, then the current one)."""
    for name in (ROTATED_FILE, EVENTS_FILE):
        try:
            data = (data_dir / name).read_bytes()
        except OSError:
            continue
        for raw in data.splitlines():
            try:
                doc = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            if isinstance(doc, dict):
                yield doc


@dataclass(frozen=True, slots=True)
class Stats:
    """`ome stats`: recall activity of one engine version and library (or of everything)."""

    engine: str
    library: str
    scope: Literal["current", "all"]
    runs: int
    matched_runs: int
    match_rate: float
    outcomes: tuple[tuple[str, int], ...]
    abstain_reasons: tuple[tuple[str, int], ...]
    providers: tuple[tuple[str, int], ...]
    card_counts: tuple[tuple[str, int], ...]
    never_returned: tuple[str, ...]
    median_ms: float
    p95_ms: float

    def to_json(self) -> dict[str, Any]:
        doc = asdict(self)
        for key in ("outcomes", "abstain_reasons", "providers", "card_counts"):
            doc[key] = dict(getattr(self, key))
        doc["never_returned"] = list(self.never_returned)
        return doc


def median(values: list[float]) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def _by_count(counter: Counter[str]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted(counter.items(), key=lambda kv: (-kv[1], kv[0])))


def compute_stats(
    events: Iterable[dict[str, Any]],
    active_ids: Iterable[str],
    engine: str,
    library: str,
    include_all: bool = False,
) -> Stats:
    """Aggregate recall runs (Cursor's pass-through acks are not runs)."""
    runs = [
        e
        for e in events
        if e.get("kind") != "ack"
        and (include_all or (e.get("engine") == engine and e.get("library") == library))
    ]
    cards: Counter[str] = Counter()
    for e in runs:
        cards.update(str(i) for i in e.get("ids") or ())
    matched = sum(1 for e in runs if e.get("ids"))
    durations = [
        float(e["duration_ms"]) for e in runs if isinstance(e.get("duration_ms"), int | float)
    ]
    return Stats(
        engine=engine,
        library=library,
        scope="all" if include_all else "current",
        runs=len(runs),
        matched_runs=matched,
        match_rate=round(matched / len(runs), 4) if runs else 0.0,
        outcomes=_by_count(Counter(str(e.get("outcome", "")) for e in runs)),
        abstain_reasons=_by_count(
            Counter(str(e["abstain_reason"]) for e in runs if e.get("abstain_reason"))
        ),
        providers=_by_count(Counter(str(e.get("provider", "")) for e in runs)),
        card_counts=_by_count(cards),
        never_returned=tuple(sorted(set(active_ids) - set(cards))),
        median_ms=round(median(durations), 1),
        p95_ms=round(percentile(durations, 95), 1),
    )


def collect_stats(
    data_dir: str | Path | None, cwd: str | Path | None, include_all: bool = False
) -> Stats:
    """Stats of the telemetry in the data dir against the library searched from `cwd`."""
    from ome.api import open_workspace

    workspace = open_workspace(data_dir, cwd)
    cards = workspace.library.cards
    return compute_stats(
        read_events(workspace.data_dir),
        (c.card.id for c in cards),
        ENGINE_VERSION,
        library_fingerprint((c.card.id, str(c.path)) for c in cards),
        include_all,
    )


__all__ = [
    "EVENTS_FILE",
    "ROTATED_FILE",
    "SALT_FILE",
    "SCHEMA_VERSION",
    "HookRun",
    "Outcome",
    "Stats",
    "append_line",
    "collect_stats",
    "compute_stats",
    "keyed_hash",
    "library_fingerprint",
    "load_salt",
    "median",
    "read_events",
    "record_run",
]
