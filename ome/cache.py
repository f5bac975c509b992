"""The compiled card index cache (SPEC §9): each card is parsed and analysed once, then reused.

One part per library layer lives in `<cache dir>/index/<layer>-<hash>/`: a `manifest.json`
(file stats, the term table, BM25F totals) and immutable `seg-*.bin` segments holding each
card's analysed record and the postings. A hook run stats the card files, reads the manifest and
decodes only what recall touches. A changed file is re-parsed alone and written as a small new
segment; a manifest that does not load, or was written by other code, is rebuilt, never trusted.
Writes are a temp file plus a rename, so concurrent hooks never see half a cache.
"""

from __future__ import annotations

import gc
import os
import re
import sys
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields, is_dataclass, replace
from itertools import compress
from operator import is_, itemgetter
from pathlib import Path
from typing import Any, NamedTuple, cast

import orjson

from ome import params
from ome.atomic import write_atomic
from ome.cards import Status
from ome.concepts import ConceptMatcher
from ome.config import CACHE_DIR, load_config_cached
from ome.errors import CardError, UnsafeIdError
from ome.glosses import glosses_path
from ome.index import CardIndex, IndexedCard, build_index, card_postings, index_card
from ome.library import CardFile, InvalidCard, Library, Source, read_card_file
from ome.resources import resource_dir
from ome.signals import Registry, Vocabulary

CACHE_SCHEMA = "ome-index-cache/1"
INDEX_DIR = "index"
MANIFEST = "manifest.json"
SHIPPED_MATCHER_FILE = "matcher.json"  # beside the bundled registry, in signals/
SEGMENT_MAGIC = b"OMESEG1\n"
# A file modified this close to the scan may change again within one timestamp tick without
# its stat changing (git's "racy" entries): it is re-parsed on the next load.
RACY_NS = 1_000_000_000
# Parts are compacted (one segment, no dead slots) past these; a hook under a deadline leaves
# that to the background builder.
MAX_SEGMENTS = 8
# Unreferenced segments and stray temp files are removed once older than this.
GC_AGE_S = 600.0
# Cold builds of at least this many cards use every core (not under a deadline), handing
# the workers this many cards at a time.
PARALLEL_MIN_CARDS = 400
PARALLEL_CHUNK_CARDS = 200
# A serial build saves its progress this often.
SAVE_EVERY_S = 1.0
# A background builder that has held the lock this long is presumed dead.
BUILD_LOCK_STALE_S = 300.0
LARGE_SEGMENT_BYTES = 256 * 1024
# Han characters whose pinyin is stored (CJK Unified Ideographs, extension A, compatibility).
_HAN_CHARS = r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"  # compiled when building (~2 ms)
# The CardIndex shape whose statistics are merged card by card; any other shape is assembled
# with `build_index` from the cached cards (correct, slower).
_MERGEABLE_INDEX_FIELDS = (
    "cards",
    "doc_freq",
    "avg_field_len",
    "postings",
    "path_cards",
    "registry_digest",
)
# Modules whose code decides what a cached card record holds.
_CODE_MODULES = (
    "cards",
    "library",
    "analysis",
    "traditional",
    "concepts",
    "glosses",
    "index",
    "params",
    "cache",
)


class CacheError(Exception):
    """A cache file that cannot be used: it is discarded and rebuilt."""


class CacheUnsupported(Exception):
    """The index dataclasses hold a type the cache cannot store; recall runs uncached."""


@dataclass(frozen=True, slots=True)
class CacheStats:
    """What one load did: `parsed` counts card files read and parsed in this process."""

    cards: int
    invalid: int
    parsed: int
    reused: int
    removed: int
    complete: bool
    written: bool
    pending: bool
    mode: str  # "cached" | "generic" | "memory"
    elapsed_ms: float


@dataclass(frozen=True, slots=True)
class LoadedIndex:
    """The card index, the library it came from, what the load did and the pinyin table."""

    index: CardIndex
    library: Library
    stats: CacheStats
    pinyin: Mapping[str, str]


# --- generic codec: dataclasses as positional JSON arrays ---------------------------------------


# Internal records are NamedTuples: a dataclass costs the hook ~0.3 ms of import time each.
class _Codec(NamedTuple):
    encode: Callable[[Any], Any]
    decode: Callable[[Any], Any]
    schema: str


_CODECS: dict[type, _Codec] = {}


class _CodeGen:
    """Generates one encode and one decode function per dataclass from its type hints."""

    def __init__(self) -> None:
        self.namespace: dict[str, Any] = {"_sorted": sorted}
        self.lines: list[str] = []
        self.schemas: dict[type, str] = {}
        self.counter = 0

    def name(self, prefix: str) -> str:
        self.counter += 1
        return f"_{prefix}{self.counter}"

    def expr(self, tp: Any, value: str, depth: int) -> tuple[str, str, str]:
        """(decode expression, encode expression, schema text) for `value` of type `tp`."""
        import types
        import typing

        if tp in (str, int, float, bool, type(None)):
            return value, value, tp.__name__
        origin = typing.get_origin(tp)
        args = typing.get_args(tp)
        if origin is typing.Literal:
            return value, value, repr(tp)
        if origin in (typing.Union, types.UnionType):
            inner = [a for a in args if a is not type(None)]
            if len(inner) != 1 or len(args) != 2:
                raise CacheUnsupported(f"union {tp!r}")
            dec, enc, schema = self.expr(inner[0], value, depth)
            return (
                f"(None if {value} is None else {dec})",
                f"(None if {value} is None else {enc})",
                f"optional[{schema}]",
            )
        if is_dataclass(tp) and isinstance(tp, type):
            dec_name, enc_name, schema = self.dataclass(tp)
            return f"{dec_name}({value})", f"{enc_name}({value})", schema
        item = f"x{depth}"
        if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
            dec, enc, schema = self.expr(args[0], item, depth + 1)
            decode = f"tuple({value})" if dec == item else f"tuple([{dec} for {item} in {value}])"
            encode = value if enc == item else f"[{enc} for {item} in {value}]"
            return decode, encode, f"tuple[{schema}, ...]"
        if origin is tuple and args:
            parts = [self.expr(a, f"{value}[{i}]", depth) for i, a in enumerate(args)]
            if all(d == f"{value}[{i}]" for i, (d, _, _) in enumerate(parts)):
                decode = f"tuple({value})"
            else:
                decode = "(" + "".join(f"{d}, " for d, _, _ in parts) + ")"
            encode = "[" + ", ".join(e for _, e, _ in parts) + "]"
            return decode, encode, "tuple[" + ", ".join(s for _, _, s in parts) + "]"
        if origin in (frozenset, set) and args:
            dec, enc, schema = self.expr(args[0], item, depth + 1)
            if dec != item or enc != item:
                raise CacheUnsupported(f"set of non-scalars {tp!r}")
            return f"frozenset({value})", f"_sorted({value})", f"frozenset[{schema}]"
        if origin in (dict, Mapping) or (origin is not None and _is_mapping(origin)):
            key, val = f"k{depth}", f"v{depth}"
            kdec, kenc, kschema = self.expr(args[0], key, depth + 1)
            vdec, venc, vschema = self.expr(args[1], val, depth + 1)
            decode = f"{{{kdec}: {vdec} for {key}, {val} in {value}}}"
            encode = f"[[{kenc}, {venc}] for {key}, {val} in {value}.items()]"
            return decode, encode, f"mapping[{kschema}, {vschema}]"
        raise CacheUnsupported(f"type {tp!r}")

    def dataclass(self, cls: type) -> tuple[str, str, str]:
        import typing

        known = _CODECS.get(cls)
        if known is not None:
            dec_name, enc_name = self.name("dec"), self.name("enc")
            self.namespace[dec_name], self.namespace[enc_name] = known.decode, known.encode
            return dec_name, enc_name, known.schema
        hints = typing.get_type_hints(cls)
        dec_name, enc_name, cls_name = self.name("dec"), self.name("enc"), self.name("cls")
        self.namespace[cls_name] = cls
        args: list[str] = []
        encs: list[str] = []
        schema: list[str] = []
        for position, f in enumerate(fields(cls)):
            if not f.init:
                continue  # derived in __post_init__: rebuilt by construction
            dec, enc, text = self.expr(hints[f.name], f"v[{position}]", 0)
            args.append(f"{f.name}={dec}" if f.kw_only else dec)
            encs.append(enc.replace(f"v[{position}]", f"o.{f.name}"))
            schema.append(f"{f.name}:{text}")
        self.lines.append(f"def {dec_name}(v):\n    return {cls_name}({', '.join(args)})\n")
        self.lines.append(f"def {enc_name}(o):\n    return [{', '.join(encs)}]\n")
        text = f"{cls.__module__}.{cls.__qualname__}({','.join(schema)})"
        self.schemas[cls] = text
        return dec_name, enc_name, text


def _is_mapping(origin: Any) -> bool:
    return isinstance(origin, type) and issubclass(origin, Mapping)


def codec(cls: type) -> _Codec:
    """The positional-array codec of a dataclass, generated once per process from its hints."""
    known = _CODECS.get(cls)
    if known is not None:
        return known
    gen = _CodeGen()
    dec_name, enc_name, schema = gen.dataclass(cls)
    exec("\n".join(gen.lines), gen.namespace)  # noqa: S102 - code generated from type hints
    made = _Codec(gen.namespace[enc_name], gen.namespace[dec_name], schema)
    _CODECS[cls] = made
    return made


# --- keys ---------------------------------------------------------------------------------------


def _code_stamp() -> list[Any]:
    """Size and mtime of the modules and data that decide a record's content (a card's glosses
    come from the gloss table): edits invalidate."""
    package = os.path.dirname(os.path.abspath(__file__))
    files = [(name, os.path.join(package, name + ".py")) for name in _CODE_MODULES]
    stamp: list[Any] = []
    for name, path in [*files, ("glosses.tsv", str(glosses_path()))]:
        try:
            st = os.stat(path)
            stamp.append([name, st.st_size, st.st_mtime_ns])
        except OSError:
            stamp.append([name])
    return stamp


def _part_key(source: Source, statuses: Sequence[str], registry: Registry) -> dict[str, Any]:
    return {
        "schema": CACHE_SCHEMA,
        "engine": params.ENGINE_VERSION,
        "registry": registry.digest,
        "types": codec(IndexedCard).schema,
        "code": _code_stamp(),
        "layer": source.layer,
        "root": str(source.root),
        "statuses": list(statuses),
        "python": list(sys.version_info[:2]),
    }


def _part_dir(cache_dir: Path, source: Source, statuses: Sequence[str]) -> Path:
    label = f"{source.layer}\0{source.root}\0{','.join(statuses)}"
    return cache_dir / INDEX_DIR / f"{source.layer}-{zlib.crc32(label.encode()):08x}"


# --- files --------------------------------------------------------------------------------------


def _new_segment(part_dir: Path, content: bytes) -> str:
    """Write an immutable segment under a fresh name and return the name."""
    while True:
        name = f"seg-{time.time_ns():x}-{os.urandom(4).hex()}.bin"
        if not (part_dir / name).exists():
            write_atomic(part_dir / name, content, durable=False)
            return name


class _Segment:
    """An open segment: small ones are read whole, large ones read record by record.

    Records are read with `pread`, not a memory map: mapped pages (and their read-ahead) would
    count towards the hook's resident memory; read bytes are freed once decoded.
    """

    __slots__ = ("data", "fd")

    def __init__(self, path: Path, size: int) -> None:
        self.data: bytes | None = None
        self.fd = -1
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        except OSError as exc:
            raise CacheError(f"{path}: {exc}") from None
        try:
            actual = os.fstat(fd).st_size
            if actual != size:
                raise CacheError(f"{path}: {actual} bytes, the manifest says {size}")
            if size < LARGE_SEGMENT_BYTES or not hasattr(os, "pread"):
                with os.fdopen(os.dup(fd), "rb") as handle:
                    self.data = handle.read()
                os.close(fd)
            else:
                self.fd = fd
        except OSError as exc:
            os.close(fd)
            raise CacheError(f"{path}: {exc}") from None
        except CacheError:
            os.close(fd)
            raise

    def read(self, offset: int, length: int) -> bytes:
        if self.data is not None:
            return self.data[offset : offset + length]
        return os.pread(self.fd, length, offset)

    def __del__(self) -> None:
        if self.fd >= 0:
            try:
                os.close(self.fd)
            except OSError:
                pass


def _collect_garbage(part_dir: Path, keep: Iterable[str]) -> None:
    """Remove segments no manifest names and stray temp files, once they are old."""
    wanted = set(keep) | {MANIFEST}
    now = time.time()
    try:
        entries = list(os.scandir(part_dir))
    except OSError:
        return
    for entry in entries:
        if entry.name in wanted:
            continue
        try:
            if now - entry.stat().st_mtime > GC_AGE_S:
                os.unlink(entry.path)
        except OSError:
            pass


# --- scanning -----------------------------------------------------------------------------------


class _Folder(NamedTuple):
    """One scanned folder: sorted `*.md` names and their (size, mtime_ns, inode) stats."""

    path: str
    status: str
    names: list[str]
    stats: list[int]  # flat: size, mtime_ns, ino per name; -1s when stat failed


def _folders(source: Source, statuses: Sequence[Status]) -> list[tuple[Path, Status]]:
    # Mirrors `ome.library.card_files`: flat layers keep cards directly in `experiences/`.
    base = source.root / "experiences"
    if source.flat:
        return [(base, "active")] if "active" in statuses else []
    return [(base / status, status) for status in statuses]


def _scan(source: Source, statuses: Sequence[Status]) -> list[_Folder]:
    scanned: list[_Folder] = []
    for folder, status in _folders(source, statuses):
        try:
            names = sorted(name for name in os.listdir(folder) if name.endswith(".md"))
        except OSError:
            names = []
        scanned.append(_Folder(str(folder), status, names, _stat_names(folder, names)))
    return scanned


def _stat_names(folder: Path, names: list[str]) -> list[int]:
    """Flat (size, mtime_ns, inode) of each name; stat relative to the folder where possible."""
    stats: list[int] = []
    if not names:
        return stats
    fd = -1
    if os.stat in os.supports_dir_fd:
        try:
            fd = os.open(folder, os.O_RDONLY)
        except OSError:
            fd = -1
    try:
        for name in names:
            try:
                st = os.stat(name, dir_fd=fd) if fd >= 0 else os.stat(os.path.join(folder, name))
                stats += (st.st_size, st.st_mtime_ns, st.st_ino)
            except OSError:
                stats += (-1, -1, -1)
    finally:
        if fd >= 0:
            os.close(fd)
    return stats


# --- building records ---------------------------------------------------------------------------


class _Built(NamedTuple):
    """One parsed file: a card record and its index contribution, or its problems."""

    folder: int
    name: str
    blob: bytes  # empty for an invalid file
    problems: tuple[str, ...]
    terms: tuple[tuple[str, tuple[tuple[str, int], ...]], ...]  # term -> ((field, tf), ...)
    lengths: tuple[tuple[str, int], ...]
    has_paths: bool
    han: str


class _BuildContext(NamedTuple):
    source: Source
    matcher: ConceptMatcher
    vocabulary: Vocabulary
    digest: str


def contribution(
    item: IndexedCard, digest: str
) -> tuple[tuple[tuple[str, tuple[tuple[str, int], ...]], ...], tuple[tuple[str, int], ...], bool]:
    """One card's share of the index statistics: what `build_index` over that card alone holds
    (its postings by term, its field lengths, whether it declares paths), computed directly."""
    postings = card_postings(item)
    terms = tuple((term, tuple(postings[term])) for term in sorted(postings))
    totals = dict.fromkeys(params.FIELD_WEIGHTS, 0)
    for name, field_terms in item.fields:
        if name in totals:
            totals[name] += len(field_terms)
    return terms, tuple(totals.items()), bool(item.card.paths)


def _build_one(ctx: _BuildContext, folder: int, path: Path, status: Status) -> _Built:
    name = path.name
    try:
        card = read_card_file(path, ctx.source, status)
    except CardError as exc:
        return _Built(folder, name, b"", exc.problems, (), (), False, "")
    except (UnsafeIdError, OSError, UnicodeError) as exc:
        return _Built(folder, name, b"", (f"{path}: {exc}",), (), (), False, "")
    item = index_card(card, ctx.source.layer, str(path), ctx.matcher, ctx.vocabulary)
    blob = orjson.dumps(codec(IndexedCard).encode(item))
    terms, lengths, has_paths = contribution(item, ctx.digest)
    han = "" if blob.isascii() else "".join(sorted(set(re.findall(_HAN_CHARS, blob.decode()))))
    return _Built(folder, name, blob, (), terms, lengths, has_paths, han)


_WORKER_CONTEXT: _BuildContext | None = None


def _build_chunk(jobs: list[tuple[int, str, str]]) -> list[tuple[_Built, bytes]]:
    """A worker's share: each record with its statistics as JSON, which a worker encodes and
    the parent decodes several times faster than they pickle (a hundred small tuples a card)."""
    assert _WORKER_CONTEXT is not None
    out = []
    for folder, path, status in jobs:
        built = _build_one(_WORKER_CONTEXT, folder, Path(path), cast(Status, status))
        stats = orjson.dumps((built.terms, built.lengths))
        out.append((built._replace(terms=(), lengths=()), stats))
    return out


def _unpack(built: _Built, stats: bytes) -> _Built:
    terms, lengths = orjson.loads(stats)  # lists where _apply reads tuples: it only iterates
    return built._replace(terms=terms, lengths=lengths)


def _build_many(
    ctx: _BuildContext, jobs: list[tuple[int, str, str]], deadline: float | None
) -> tuple[list[_Built], int]:
    """Parse and index files; all cores for a large cold build. Returns (built, jobs left).

    A serial build stops at the deadline, and after SAVE_EVERY_S anyway so the caller can save
    what is done: a process killed mid-build (a hook past its deadline) still makes progress.
    """
    workers = min(os.cpu_count() or 1, 8)
    if deadline is None and len(jobs) >= PARALLEL_MIN_CARDS and workers > 1:
        built = _build_parallel(ctx, jobs, workers)
        if built is not None:
            return built, 0
    save_at = time.monotonic() + SAVE_EVERY_S
    out: list[_Built] = []
    for position, (folder, path, status) in enumerate(jobs):
        now = time.monotonic()
        if (deadline is not None and now >= deadline) or (position and now >= save_at):
            return out, len(jobs) - position
        out.append(_build_one(ctx, folder, Path(path), cast(Status, status)))
    return out, 0


def _build_parallel(
    ctx: _BuildContext, jobs: list[tuple[int, str, str]], workers: int
) -> list[_Built] | None:
    import multiprocessing
    import threading

    # Forking is only safe from a single-threaded process (the CLI, the background builder).
    if threading.active_count() > 1 or "fork" not in multiprocessing.get_all_start_methods():
        return None
    from concurrent.futures import ProcessPoolExecutor

    global _WORKER_CONTEXT
    _WORKER_CONTEXT = ctx
    # Small chunks keep both workers busy to the end; a chunk costs one message each way.
    size = max(min(len(jobs) // (workers * 4), PARALLEL_CHUNK_CARDS), 1)
    chunks = [jobs[i : i + size] for i in range(0, len(jobs), size)]
    try:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            return [_unpack(*b) for chunk in pool.map(_build_chunk, chunks) for b in chunk]
    except (OSError, RuntimeError):
        return None
    finally:
        _WORKER_CONTEXT = None


def _pinyin(chars: Iterable[str]) -> dict[str, str]:
    """Tone-less pinyin of single Han characters (pypinyin is imported only when building)."""
    wanted = sorted(set(chars))
    if not wanted:
        return {}
    try:
        from pypinyin import Style, lazy_pinyin
    except ImportError:
        return {}
    return {char: lazy_pinyin(char, style=Style.NORMAL)[0] for char in wanted}


# --- a part: one library layer's cache ----------------------------------------------------------


class _Part:
    """One layer's manifest and segments, with the slot tables recall needs."""

    def __init__(self, source: Source, part_dir: Path, manifest: dict[str, Any]) -> None:
        self.source = source
        self.dir = part_dir
        self.manifest = manifest
        self.segments: list[_Segment] = []
        self.field_names: list[str] = manifest["fields"]
        self.cards: list[int] = manifest["cards"]  # flat: segment, offset, length per slot
        self.terms: dict[str, list[int]] = manifest["terms"]  # df, then segment, offset, length...
        self.dead: frozenset[int] = frozenset(manifest["dead"])

    def open(self) -> None:
        names = self.manifest["segments"]
        sizes = self.manifest["segment_sizes"]
        self.segments = [_Segment(self.dir / n, s) for n, s in zip(names, sizes, strict=True)]

    def blob(self, segment: int, offset: int, length: int) -> Any:
        try:
            return orjson.loads(self.segments[segment].read(offset, length))
        except (orjson.JSONDecodeError, IndexError, OSError) as exc:
            _discard(self.dir)
            raise CacheError(f"{self.dir}: a damaged segment ({exc}); it will be rebuilt") from None

    def record(self, slot: int) -> IndexedCard:
        seg, off, length = self.cards[3 * slot : 3 * slot + 3]
        return cast(IndexedCard, codec(IndexedCard).decode(self.blob(seg, off, length)))

    def postings(self, term: str) -> list[int]:
        """Flat (slot, field index, tf) triples of a term, dead slots left out."""
        slots, field_indexes, tfs = self.columns(term)
        return [x for triple in zip(slots, field_indexes, tfs, strict=True) for x in triple]

    def columns(self, term: str) -> tuple[list[int], list[int], list[int]]:
        """A term's postings as three columns (slots, field indexes, tfs), dead slots left out."""
        entry = self.terms.get(term)
        if entry is None:
            return [], [], []
        flat: list[int] = []
        for i in range(1, len(entry), 3):
            flat += self.blob(entry[i], entry[i + 1], entry[i + 2])
        slots, field_indexes, tfs = flat[0::3], flat[1::3], flat[2::3]
        if self.dead and not self.dead.isdisjoint(slots):
            live = [slot not in self.dead for slot in slots]
            slots = list(compress(slots, live))
            field_indexes = list(compress(field_indexes, live))
            tfs = list(compress(tfs, live))
        return slots, field_indexes, tfs

    def slot_files(self) -> Iterator[tuple[int, int, str]]:
        """(slot, folder index, name) of every live card, in library order."""
        for folder_index, folder in enumerate(self.manifest["folders"]):
            for name, slot in zip(folder["names"], folder["slots"], strict=True):
                if slot >= 0:
                    yield slot, folder_index, name


def _discard(part_dir: Path) -> None:
    try:
        os.unlink(part_dir / MANIFEST)
    except OSError:
        pass


def _read_manifest(part_dir: Path, key: Mapping[str, Any]) -> dict[str, Any] | None:
    """The part's manifest if it exists, parses, has the expected shape and key; else None."""
    try:
        raw = (part_dir / MANIFEST).read_bytes()
    except OSError:
        return None
    try:
        manifest = orjson.loads(raw)
        if not isinstance(manifest, dict) or manifest.get("key") != key:
            return None
        for name, kind in _MANIFEST_SHAPE:
            if not isinstance(manifest.get(name), kind):
                return None
        cards = manifest["cards"]
        if len(cards) % 3 or len(manifest["segments"]) != len(manifest["segment_sizes"]):
            return None
        for folder in manifest["folders"]:
            n = len(folder["names"])
            if len(folder["stats"]) != 3 * n or len(folder["slots"]) != n:
                return None
    except (orjson.JSONDecodeError, KeyError, TypeError):
        return None
    return cast(dict[str, Any], manifest)


_MANIFEST_SHAPE: tuple[tuple[str, type], ...] = (
    ("fields", list),
    ("folders", list),
    ("invalid", list),
    ("cards", list),
    ("segments", list),
    ("segment_sizes", list),
    ("terms", dict),
    ("totals", dict),
    ("paths", list),
    ("dead", list),
    ("order", list),
    ("racy", list),
    ("pinyin", dict),
    ("pinyin_pending", list),
)


def _empty_manifest(key: Mapping[str, Any], field_names: list[str]) -> dict[str, Any]:
    return {
        "key": dict(key),
        "fields": field_names,
        "folders": [],
        "invalid": [],
        "cards": [],
        "segments": [],
        "segment_sizes": [],
        "terms": {},
        "totals": {name: 0 for name in field_names},
        "paths": [],
        "dead": [],
        "order": [],
        "racy": [],
        "pinyin": {},
        "pinyin_pending": [],
    }


class _PartResult(NamedTuple):
    part: _Part | None
    parsed: int
    reused: int
    removed: int
    complete: bool
    written: bool
    pending: bool


def _field_names(digest: str) -> list[str]:
    return list(build_index((), digest).avg_field_len)


def _update_part(
    source: Source,
    statuses: Sequence[Status],
    registry: Registry,
    matcher: ConceptMatcher,
    cache_dir: Path,
    deadline: float | None,
    fill_pinyin: bool,
) -> _PartResult:
    """Bring one layer's cache up to date with its files and open it."""
    part_dir = _part_dir(cache_dir, source, statuses)
    key = _part_key(source, statuses, registry)
    scan_ns = time.time_ns()
    scanned = _scan(source, statuses)
    warm = _warm_part(part_dir, key, scanned, fill_pinyin)
    if warm is not None:
        return warm
    old = _read_manifest(part_dir, key)
    if old is None:
        if not any(f.names for f in scanned) and not (part_dir / MANIFEST).exists():
            return _PartResult(None, 0, 0, 0, True, False, False)
        old = _empty_manifest(key, _field_names(registry.digest))
    old_folders = {(f["path"], f["status"]): (n, f) for n, f in enumerate(old["folders"])}
    old_invalid = {(i[0], i[1]): i[2] for i in old["invalid"]}
    old_racy = {(r[0], r[1]) for r in old["racy"]}

    jobs: list[tuple[int, str, str]] = []
    kept = _Kept()
    unchanged: list[tuple[int, int, dict[str, Any]]] = []
    prior_entry: dict[tuple[int, str], tuple[int, list[int], list[str]]] = {}
    removed: list[int] = []
    for n, folder in enumerate(scanned):
        prior_n, prior = old_folders.pop((folder.path, folder.status), (-1, None))
        if (
            prior is not None
            and prior["names"] == folder.names
            and prior["stats"] == folder.stats
            and not any(r[0] == prior_n for r in old["racy"])
            and -1 not in folder.stats[0::3]
        ):
            # The common case, checked in C: not one file of the folder changed.
            unchanged.append((n, prior_n, prior))
            continue
        at = {name: i for i, name in enumerate(prior["names"])} if prior else {}
        for i, name in enumerate(folder.names):
            stat = folder.stats[3 * i : 3 * i + 3]
            j = at.pop(name, None)
            if j is not None and prior is not None:
                slot = prior["slots"][j]
                old_stat = prior["stats"][3 * j : 3 * j + 3]
                problems = old_invalid.get((prior_n, name), [])
                if old_stat == stat and stat[0] >= 0 and (prior_n, name) not in old_racy:
                    kept.add((n, name), slot, problems)
                    continue
                prior_entry[(n, name)] = (slot, old_stat, problems)
            jobs.append((n, os.path.join(folder.path, name), folder.status))
        if prior is not None:
            removed += [prior["slots"][j] for j in at.values()]
    for _, prior in old_folders.values():
        removed += prior["slots"]
    removed = [slot for slot in removed if slot >= 0]
    if (
        not jobs
        and not removed
        and [(f["path"], f["status"]) for f in old["folders"]]
        == [(f.path, f.status) for f in scanned]
    ):
        written = False
        if old["pinyin_pending"] and (fill_pinyin or "pypinyin" in sys.modules):
            old["pinyin"] = dict(old["pinyin"], **_pinyin(old["pinyin_pending"]))
            old["pinyin_pending"] = []
            written = _save_manifest(part_dir, old)
        part = _Part(source, part_dir, old)
        part.open()
        _remember(part)
        return _unchanged(part, written)

    for n, prior_n, prior in unchanged:
        for name, slot in zip(prior["names"], prior["slots"], strict=True):
            kept.add((n, name), slot, old_invalid.get((prior_n, name), []))
    ctx = _BuildContext(
        source,
        matcher,
        registry.vocabulary,
        registry.digest,
    )
    built, left = _build_many(ctx, jobs, deadline)
    # New slots in card order, so a fresh part's slots are its positions (no mapping on lookup).
    built.sort(key=lambda b: (b.name[:-3], scanned[b.folder].path + os.sep + b.name))
    # A changed file the deadline left unparsed keeps its old record and its old stats, so the
    # next load sees it as changed again; a new one stays out until then.
    for n, path, _ in jobs[len(jobs) - left :]:
        entry = prior_entry.pop((n, os.path.basename(path)), None)
        if entry is not None:
            kept.add((n, os.path.basename(path)), entry[0], entry[2], entry[1])
    replaced = [slot for slot, _, _ in prior_entry.values() if slot >= 0]
    manifest = _apply(source, old, key, scanned, kept, built, removed + replaced, part_dir)
    manifest["racy"] = [
        [n, name]
        for n, folder in enumerate(scanned)
        for i, name in enumerate(folder.names)
        if folder.stats[3 * i + 1] + RACY_NS > scan_ns
    ]
    compact = len(manifest["segments"]) > MAX_SEGMENTS or len(manifest["dead"]) > max(
        64, len(manifest["order"]) // 4
    )
    pending = False
    if deadline is None and compact:
        manifest = _compact(manifest, part_dir, source, fill_pinyin)
    else:
        pending = pending or compact
    if manifest["pinyin_pending"] and (fill_pinyin or "pypinyin" in sys.modules):
        manifest["pinyin"] = dict(manifest["pinyin"], **_pinyin(manifest["pinyin_pending"]))
        manifest["pinyin_pending"] = []
    written = _save_manifest(part_dir, manifest)
    part = _Part(source, part_dir, manifest)
    part.open()
    _remember(part)
    return _PartResult(part, len(built), len(kept.slots), len(removed), left == 0, written, pending)


# --- what a long-lived process keeps open ----------------------------------------------------
# A process that loads the same library again (the warm hook server, one per data dir) reuses
# the parts it opened and the index it merged from them, with everything decoded since, while
# neither a card file nor the manifest on disk changed. A short-lived process never looks twice.
MAX_WARM = 16
_warm_parts: dict[str, tuple[list[tuple[int, int, int]], _Part]] = {}
_warm_indexes: dict[tuple[Any, ...], tuple[tuple[_Part, ...], LoadedIndex]] = {}
_warm_registries: dict[bytes, tuple[list[Any], Registry]] = {}
_warm_matchers: dict[str, tuple[list[Any], ConceptMatcher]] = {}


def _files_stat(part_dir: Path, manifest: Mapping[str, Any]) -> list[tuple[int, int, int]]:
    """(size, mtime_ns, inode) of the manifest and each segment it names: any rewrite shows."""
    stats = []
    for name in (MANIFEST, *manifest["segments"]):
        try:
            st = os.stat(part_dir / name)
            stats.append((st.st_size, st.st_mtime_ns, st.st_ino))
        except OSError:
            stats.append((-1, -1, -1))
    return stats


def _keep(memo: dict[Any, Any], key: Any, value: Any) -> None:
    """Store in a memo of at most MAX_WARM entries, forgetting the oldest first."""
    memo.pop(key, None)
    if len(memo) >= MAX_WARM:
        memo.pop(next(iter(memo)))
    memo[key] = value


def _remember(part: _Part) -> None:
    _keep(_warm_parts, str(part.dir), (_files_stat(part.dir, part.manifest), part))


def _warm_part(
    part_dir: Path, key: Mapping[str, Any], scanned: list[_Folder], fill_pinyin: bool
) -> _PartResult | None:
    """The part this process opened before, if its manifest and every card file are unchanged."""
    entry = _warm_parts.get(str(part_dir))
    if entry is None:
        return None
    stat, part = entry
    manifest = part.manifest
    if (
        stat != _files_stat(part_dir, manifest)
        or manifest["key"] != key
        or manifest["racy"]
        or (manifest["pinyin_pending"] and (fill_pinyin or "pypinyin" in sys.modules))
        or any(-1 in f.stats[0::3] for f in scanned)
        or [(f["path"], f["status"], f["names"], f["stats"]) for f in manifest["folders"]]
        != [(f.path, f.status, f.names, f.stats) for f in scanned]
    ):
        return None
    return _unchanged(part, False)


def _unchanged(part: _Part, written: bool) -> _PartResult:
    """The load of a part whose cards all came from its cache (none parsed or removed)."""
    manifest = part.manifest
    reused = sum(len(f["names"]) for f in manifest["folders"]) - len(manifest["invalid"])
    pending = len(manifest["segments"]) > MAX_SEGMENTS
    return _PartResult(part, 0, reused, 0, True, written, pending)


class _Kept:
    """Entries carried over unparsed: valid slots, invalid files' problems, stats to keep."""

    __slots__ = ("problems", "slots", "stats")

    def __init__(self) -> None:
        self.slots: dict[tuple[int, str], int] = {}
        self.problems: dict[tuple[int, str], list[str]] = {}
        self.stats: dict[tuple[int, str], list[int]] = {}

    def add(
        self, key: tuple[int, str], slot: int, problems: list[str], stats: list[int] | None = None
    ) -> None:
        if slot >= 0:
            self.slots[key] = slot
        else:
            self.problems[key] = problems
        if stats is not None:
            self.stats[key] = stats


def _apply(
    source: Source,
    old: dict[str, Any],
    key: Mapping[str, Any],
    scanned: list[_Folder],
    kept: _Kept,
    built: list[_Built],
    dead_now: list[int],
    part_dir: Path,
) -> dict[str, Any]:
    """The new manifest: kept slots stay, dead slots are forgotten, new records get a segment."""
    manifest = dict(old)
    manifest["key"] = dict(key)
    field_index = {name: i for i, name in enumerate(manifest["fields"])}
    cards = list(old["cards"])
    terms = {t: list(e) for t, e in old["terms"].items()}
    totals = dict(old["totals"])
    paths = set(old["paths"])
    dead = set(old["dead"])
    if dead_now:
        part = _Part(source, part_dir, old)
        part.open()
        for slot in sorted(set(dead_now)):
            item_terms, lengths, _ = contribution(part.record(slot), key["registry"])
            for term, _entries in item_terms:
                entry = terms.get(term)
                if entry is not None:
                    entry[0] -= 1
                    if entry[0] <= 0:
                        del terms[term]
            for name, length in lengths:
                totals[name] = totals.get(name, 0) - length
            cards[3 * slot] = -1
            paths.discard(slot)
            dead.add(slot)
    # New records go to one new segment: card blobs, then one postings piece per term.
    segment = len(old["segments"])
    chunks: list[bytes] = [SEGMENT_MAGIC]
    offset = len(SEGMENT_MAGIC)
    new_slot: dict[tuple[int, str], int] = {}
    pieces: dict[str, list[int]] = {}
    chars: set[str] = set()
    for b in built:
        if not b.blob:
            continue
        slot = len(cards) // 3
        cards += (segment, offset, len(b.blob))
        chunks.append(b.blob)
        offset += len(b.blob)
        new_slot[(b.folder, b.name)] = slot
        for term, entries in b.terms:
            flat = pieces.setdefault(term, [])
            for name, tf in entries:
                flat += (slot, field_index[name], tf)
        for name, length in b.lengths:
            totals[name] = totals.get(name, 0) + length
        if b.has_paths:
            paths.add(slot)
        chars.update(b.han)
    for term in sorted(pieces):
        flat = pieces[term]
        blob = orjson.dumps(flat)
        entry = terms.setdefault(term, [0])
        entry[0] += len(set(flat[0::3]))
        entry += (segment, offset, len(blob))
        chunks.append(blob)
        offset += len(blob)
    segments = list(old["segments"])
    sizes = list(old["segment_sizes"])
    if new_slot:
        part_dir.mkdir(parents=True, exist_ok=True)
        segments.append(_new_segment(part_dir, b"".join(chunks)))
        sizes.append(offset)
    problems_now = {(b.folder, b.name): list(b.problems) for b in built if not b.blob}
    folders = []
    invalid: list[list[Any]] = []
    ids: list[tuple[str, str, int]] = []
    for n, folder in enumerate(scanned):
        slots: list[int] = []
        stats = list(folder.stats)
        for i, name in enumerate(folder.names):
            k = (n, name)
            slot = new_slot.get(k, kept.slots.get(k, -1))
            slots.append(slot)
            if k in kept.stats:
                stats[3 * i : 3 * i + 3] = kept.stats[k]
            if slot >= 0:
                ids.append((name[:-3], folder.path + os.sep + name, slot))
            elif k in problems_now or k in kept.problems:
                invalid.append([n, name, problems_now.get(k) or kept.problems[k]])
            else:
                stats[3 * i : 3 * i + 3] = [-1, -1, -1]  # not parsed yet
        folders.append(
            {
                "path": folder.path,
                "status": folder.status,
                "names": folder.names,
                "stats": stats,
                "slots": slots,
            }
        )
    known = set(old["pinyin"]) | set(old["pinyin_pending"])
    manifest.update(
        folders=folders,
        invalid=invalid,
        cards=cards,
        segments=segments,
        segment_sizes=sizes,
        terms={term: terms[term] for term in sorted(terms)},
        totals=totals,
        paths=sorted(paths),
        dead=sorted(dead),
        order=[slot for _, _, slot in sorted(ids)],
        pinyin_pending=sorted((chars - known) | set(old["pinyin_pending"])),
    )
    return manifest


def _compact(
    manifest: dict[str, Any], part_dir: Path, source: Source, fill_pinyin: bool
) -> dict[str, Any]:
    """Rewrite a part as one segment: live records renumbered in order, postings merged."""
    part = _Part(source, part_dir, manifest)
    part.open()
    renumber = {slot: n for n, slot in enumerate(manifest["order"])}
    chunks: list[bytes] = [SEGMENT_MAGIC]
    offset = len(SEGMENT_MAGIC)
    cards: list[int] = []
    for slot in manifest["order"]:
        seg, off, length = manifest["cards"][3 * slot : 3 * slot + 3]
        chunks.append(part.segments[seg].read(off, length))
        cards += (0, offset, length)
        offset += length
    terms: dict[str, list[int]] = {}
    for term in sorted(manifest["terms"]):
        old_flat = part.postings(term)
        if not old_flat:
            continue
        triples = sorted(
            zip(
                map(renumber.__getitem__, old_flat[0::3]),
                old_flat[1::3],
                old_flat[2::3],
                strict=True,
            ),
            key=_first,
        )
        flat = [x for triple in triples for x in triple]
        blob = orjson.dumps(flat)
        terms[term] = [manifest["terms"][term][0], 0, offset, len(blob)]
        chunks.append(blob)
        offset += len(blob)
    name = _new_segment(part_dir, b"".join(chunks))
    folders = [
        dict(f, slots=[renumber[s] if s >= 0 else -1 for s in f["slots"]])
        for f in manifest["folders"]
    ]
    pending = manifest["pinyin_pending"]
    pinyin = dict(manifest["pinyin"], **_pinyin(pending)) if fill_pinyin and pending else None
    return dict(
        manifest,
        folders=folders,
        cards=cards,
        segments=[name],
        segment_sizes=[offset],
        terms=terms,
        paths=sorted(renumber[s] for s in manifest["paths"] if s in renumber),
        dead=[],
        order=list(range(len(manifest["order"]))),
        pinyin=pinyin if pinyin is not None else manifest["pinyin"],
        pinyin_pending=[] if pinyin is not None else pending,
    )


def _save_manifest(part_dir: Path, manifest: Mapping[str, Any]) -> bool:
    """Replace the manifest, unless a concurrent compaction removed a segment it names."""
    if not all((part_dir / name).exists() for name in manifest["segments"]):
        return False
    try:
        part_dir.mkdir(parents=True, exist_ok=True)
        write_atomic(part_dir / MANIFEST, orjson.dumps(manifest), durable=False)
    except OSError:
        return False
    _collect_garbage(part_dir, manifest["segments"])
    return True


# --- lazy views recall reads --------------------------------------------------------------------


class _Positions:
    """Global card order over all parts: position -> (part, slot), and back."""

    def __init__(self, parts: Sequence[_Part]) -> None:
        self.parts = parts
        self._keys: list[tuple[list[str], list[str]] | None] = [None] * len(parts)
        if len(parts) == 1:
            order = [(0, slot) for slot in parts[0].manifest["order"]]
        else:
            keyed: list[tuple[str, str, str, int, int]] = []
            for p, part in enumerate(parts):
                ids, paths = self.slot_keys(p)
                layer = part.source.layer
                keyed += [(ids[s], layer, paths[s], p, s) for s in part.manifest["order"]]
            keyed.sort()
            order = [(p, s) for _, _, _, p, s in keyed]
        self.order = order
        self.slot_position: list[list[int]] = [[-1] * (len(part.cards) // 3) for part in parts]
        for position, (p, s) in enumerate(order):
            self.slot_position[p][s] = position
        # A part whose slot numbers are its cards' positions needs no mapping (a fresh build).
        self.identity = [table == list(range(len(table))) for table in self.slot_position]

    def slot_keys(self, p: int) -> tuple[list[str], list[str]]:
        """(ids, paths) by slot of part `p`, from the file names: no card is decoded."""
        keys = self._keys[p]
        if keys is None:
            part = self.parts[p]
            size = len(part.cards) // 3
            ids = [""] * size
            paths = [""] * size
            for folder in part.manifest["folders"]:
                prefix = folder["path"] + os.sep
                for name, slot in zip(folder["names"], folder["slots"], strict=True):
                    if slot >= 0:
                        ids[slot] = name[:-3]
                        paths[slot] = prefix + name
            keys = self._keys[p] = (ids, paths)
        return keys


class LazyCards(Sequence[IndexedCard]):
    """`CardIndex.cards` decoded on first access, one card at a time."""

    def __init__(self, positions: _Positions) -> None:
        self._positions = positions
        self._memo: dict[int, IndexedCard] = {}

    def __len__(self) -> int:
        return len(self._positions.order)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self))))
        position = index + len(self) if index < 0 else index
        item = self._memo.get(position)
        if item is None:
            p, slot = self._positions.order[position]
            item = self._memo[position] = self._positions.parts[p].record(slot)
        return item

    def __iter__(self) -> Iterator[IndexedCard]:
        return (self[i] for i in range(len(self)))


class LazyPostings(Mapping[str, tuple[tuple[int, str, int], ...]]):
    """`CardIndex.postings` merged over parts on lookup, in card-position order."""

    def __init__(self, positions: _Positions) -> None:
        self._positions = positions
        self._memo: dict[str, tuple[tuple[int, str, int], ...]] = {}
        self._terms: list[str] | None = None

    def __getitem__(self, term: str) -> tuple[tuple[int, str, int], ...]:
        found = self._memo.get(term)
        if found is not None:
            return found
        merged: list[tuple[int, str, int]] = []
        for p, part in enumerate(self._positions.parts):
            slots, field_indexes, tfs = part.columns(term)
            if not slots:
                continue
            if not self._positions.identity[p]:
                slots = list(map(self._positions.slot_position[p].__getitem__, slots))
            names = map(part.field_names.__getitem__, field_indexes)
            merged += zip(slots, names, tfs, strict=True)
        if not merged:
            raise KeyError(term)
        merged.sort(key=_POSITION)  # stable: a card's fields keep their order
        result = self._memo[term] = tuple(merged)
        return result

    def __contains__(self, term: object) -> bool:
        return any(term in part.terms for part in self._positions.parts)

    def _all_terms(self) -> list[str]:
        if self._terms is None:
            self._terms = sorted({t for part in self._positions.parts for t in part.terms})
        return self._terms

    def __iter__(self) -> Iterator[str]:
        return iter(self._all_terms())

    def __len__(self) -> int:
        return len(self._all_terms())


def _doc_freq(parts: Sequence[_Part]) -> dict[str, int]:
    """`CardIndex.doc_freq` as a plain dict: recall looks terms up hundreds of times per card."""
    if len(parts) == 1:
        return {term: entry[0] for term, entry in parts[0].terms.items()}
    merged: dict[str, int] = {}
    for part in parts:
        for term, entry in part.terms.items():
            merged[term] = merged.get(term, 0) + entry[0]
    return {term: merged[term] for term in sorted(merged)}


def _first(entry: tuple[int, Any, int]) -> int:
    return entry[0]


_POSITION = itemgetter(0)  # `_first` in C: postings of common terms sort 10,000s of entries


class LazyCardFiles(Sequence[CardFile]):
    """`Library.cards` in library order (layer, folder, name), decoded on access."""

    def __init__(self, positions: _Positions, cards: LazyCards) -> None:
        self._positions = positions
        self._cards = cards
        self._list: list[tuple[int, int]] | None = None

    @property
    def _entries(self) -> list[tuple[int, int]]:
        if self._list is None:
            self._list = [
                (p, slot)
                for p, part in enumerate(self._positions.parts)
                for slot, _, _ in part.slot_files()
            ]
        return self._list

    def __len__(self) -> int:
        return len(self._positions.order)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self))))
        p, slot = self._entries[index]
        position = self._positions.slot_position[p][slot]
        item = self._cards[position]
        return CardFile(item.card, self._positions.parts[p].source.layer, Path(item.path))

    def __iter__(self) -> Iterator[CardFile]:
        return (self[i] for i in range(len(self)))

    def keys(self) -> tuple[tuple[str, str], ...]:
        """(id, path) of every card without decoding any: what telemetry fingerprints."""
        keys = [self._positions.slot_keys(p) for p in range(len(self._positions.parts))]
        return tuple((keys[p][0][slot], keys[p][1][slot]) for p, slot in self._entries)


def card_keys(cards: Sequence[CardFile]) -> tuple[tuple[str, str], ...]:
    """(id, path) of every card of a library; cheap for a cached library."""
    if isinstance(cards, LazyCardFiles):
        return cards.keys()
    return tuple((c.card.id, str(c.path)) for c in cards)


# --- the entry point ----------------------------------------------------------------------------


def load_index(
    sources: Iterable[Source],
    registry: Registry,
    matcher: ConceptMatcher,
    cache_dir: Path | None,
    deadline: float | None = None,
    statuses: Sequence[Status] = ("active",),
    fill_pinyin: bool = False,
) -> LoadedIndex:
    """The card index of these layers, reusing every unchanged card from `cache_dir`.

    With a `deadline` (a `time.monotonic()` value) parsing stops there: the index then holds
    what was ready, `stats.complete` is False, and `spawn_builder` should finish the job.
    Without a usable cache dir everything is parsed in memory. The pinyin of new Han characters
    is filled in with `fill_pinyin` (the builder) or when pypinyin is loaded anyway: a hook
    never imports it.
    """
    started = time.perf_counter()
    source_list = tuple(sources)
    if cache_dir is None or not _writable(cache_dir):
        return _load_in_memory(source_list, registry, matcher, statuses, started)
    try:
        codec(IndexedCard)
    except CacheUnsupported:
        return _load_in_memory(source_list, registry, matcher, statuses, started)
    results: list[_PartResult] = []
    for source in source_list:
        results.append(
            _load_part(source, statuses, registry, matcher, cache_dir, deadline, fill_pinyin)
        )
    parts = [r.part for r in results if r.part is not None]
    memo_key = (tuple(source_list), tuple(statuses), registry.digest)
    warm = _warm_indexes.get(memo_key)
    if warm is not None and len(warm[0]) == len(parts) and all(map(is_, warm[0], parts)):
        stats = replace(
            warm[1].stats,
            parsed=0,
            reused=sum(r.reused for r in results),
            removed=0,
            written=False,
            pending=any(r.pending for r in results),
            elapsed_ms=round((time.perf_counter() - started) * 1000, 3),
        )
        return replace(warm[1], stats=stats)
    positions = _Positions(parts)
    cards = LazyCards(positions)
    postings = LazyPostings(positions)
    mode = "cached"
    if tuple(f.name for f in fields(CardIndex)) == _MERGEABLE_INDEX_FIELDS:
        n = len(cards)
        names = parts[0].field_names if parts else _field_names(registry.digest)
        index = CardIndex(
            cards=cast(tuple[IndexedCard, ...], cards),
            doc_freq=_doc_freq(parts),
            avg_field_len={
                name: sum(part.manifest["totals"].get(name, 0) for part in parts) / max(n, 1)
                for name in names
            },
            postings=postings,
            path_cards=tuple(
                sorted(
                    positions.slot_position[p][s]
                    for p, part in enumerate(parts)
                    for s in part.manifest["paths"]
                )
            ),
            registry_digest=registry.digest,
        )
    else:
        mode = "generic"
        index = build_index(tuple(cards), registry.digest)
    invalid = tuple(
        InvalidCard(
            part.source.layer,
            Path(part.manifest["folders"][n]["path"]) / name,
            tuple(problems),
        )
        for part in parts
        for n, name, problems in part.manifest["invalid"]
    )
    library = Library(
        source_list, cast(tuple[CardFile, ...], LazyCardFiles(positions, cards)), invalid
    )
    pinyin: dict[str, str] = {}
    for part in parts:
        pinyin.update(part.manifest["pinyin"])
    stats = CacheStats(
        cards=len(cards),
        invalid=len(invalid),
        parsed=sum(r.parsed for r in results),
        reused=sum(r.reused for r in results),
        removed=sum(r.removed for r in results),
        complete=all(r.complete for r in results),
        written=any(r.written for r in results),
        pending=any(r.pending for r in results),
        mode=mode,
        elapsed_ms=round((time.perf_counter() - started) * 1000, 3),
    )
    loaded = LoadedIndex(index, library, stats, pinyin)
    if stats.complete:
        _keep(_warm_indexes, memo_key, (tuple(parts), loaded))
    return loaded


def _load_part(
    source: Source,
    statuses: Sequence[Status],
    registry: Registry,
    matcher: ConceptMatcher,
    cache_dir: Path,
    deadline: float | None,
    fill_pinyin: bool,
) -> _PartResult:
    """Update one layer slice by slice (each slice saved) until done or past the deadline."""
    parsed = removed = failures = 0
    while True:
        # Building makes millions of short-lived, acyclic objects (tokens, records): cyclic
        # collection passes over them would cost a tenth of a cold build (forked workers
        # inherit the pause).
        collecting = gc.isenabled()
        gc.disable()
        try:
            result = _update_part(
                source, statuses, registry, matcher, cache_dir, deadline, fill_pinyin
            )
        except CacheError:
            # A manifest naming a segment that is gone or damaged: rebuild this layer.
            failures += 1
            if failures > 2:
                raise
            _discard(_part_dir(cache_dir, source, statuses))
            continue
        finally:
            if collecting:
                gc.enable()
        parsed += result.parsed
        removed += result.removed
        past = deadline is not None and time.monotonic() >= deadline
        if result.complete or past or not result.parsed:
            return result._replace(
                parsed=parsed,
                removed=removed,
                pending=result.pending or not result.complete,
            )


def _writable(cache_dir: Path) -> bool:
    try:
        (cache_dir / INDEX_DIR).mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(cache_dir / INDEX_DIR, os.W_OK)


def _load_in_memory(
    sources: tuple[Source, ...],
    registry: Registry,
    matcher: ConceptMatcher,
    statuses: Sequence[Status],
    started: float,
) -> LoadedIndex:
    from ome.library import load_library

    library = load_library(sources, statuses)
    vocabulary = registry.vocabulary
    index = build_index(
        (index_card(cf.card, cf.layer, str(cf.path), matcher, vocabulary) for cf in library.cards),
        registry.digest,
    )
    stats = CacheStats(
        cards=len(library.cards),
        invalid=len(library.invalid),
        parsed=len(library.cards) + len(library.invalid),
        reused=0,
        removed=0,
        complete=True,
        written=False,
        pending=False,
        mode="memory",
        elapsed_ms=round((time.perf_counter() - started) * 1000, 3),
    )
    return LoadedIndex(index, library, stats, {})


# --- cached registry derivatives ------------------------------------------------------------------


def render_shipped_matcher(registry: Registry) -> bytes:
    """The concept matcher file shipped beside the bundled registry (`ome signals build`).

    Compiling the lexicon's tens of thousands of terms costs most of a second; a fresh install's
    first hooks (or several at once) decode this file instead.
    """
    coder = codec(ConceptMatcher)
    matcher = registry.vocabulary.concept_matcher()
    return orjson.dumps([[registry.digest, coder.schema], coder.encode(matcher)])


def _decode_matcher(path: Path, key: list[Any], coder: _Codec) -> ConceptMatcher | None:
    """The matcher stored at `path` under `key`; None when the file is missing, stale or bad."""
    try:
        doc = orjson.loads(path.read_bytes())
        if doc[0] == key:
            return cast(ConceptMatcher, coder.decode(doc[1]))
    except (OSError, orjson.JSONDecodeError, IndexError, KeyError, TypeError, ValueError):
        pass
    return None


def _shipped_matcher(registry: Registry, coder: _Codec) -> ConceptMatcher | None:
    """The matcher shipped beside the bundled registry, when this is that registry."""
    shipped = resource_dir("signals") / SHIPPED_MATCHER_FILE
    return _decode_matcher(shipped, [registry.digest, coder.schema], coder)


def load_matcher(registry: Registry, cache_dir: Path | None) -> ConceptMatcher:
    """The registry's concept matcher: from the cache when its digest matches, else the one
    shipped with the bundled registry when this is that registry, else compiled."""
    coder = codec(ConceptMatcher)
    if cache_dir is None:
        return _shipped_matcher(registry, coder) or registry.vocabulary.concept_matcher()
    path = cache_dir / "matcher.json"
    key = [CACHE_SCHEMA, registry.digest, coder.schema, _code_stamp()]
    warm = _warm_matchers.get(registry.digest)
    if warm is not None and warm[0] == key:
        return warm[1]
    matcher = _decode_matcher(path, key, coder) or _shipped_matcher(registry, coder)
    if matcher is None:
        matcher = registry.vocabulary.concept_matcher()
        try:
            cache_dir.mkdir(parents=True, exist_ok=True)
            write_atomic(path, orjson.dumps([key, coder.encode(matcher)]), durable=False)
        except OSError:
            pass
    _keep(_warm_matchers, registry.digest, (key, matcher))
    return matcher


def load_registry_cached(
    data_dir: Path, project_root: Path | None, cache_dir: Path | None
) -> Registry:
    """`load_registry`, reusing the merged registry while the user and project packs are unchanged.

    With no packs of its own a library uses the shipped compiled JSON directly; with packs,
    merging them parses YAML and derives regex anchors, which is done once per change.
    """
    from ome.registry import REGISTRY_FILE, load_registry, project_pack_paths, user_pack_paths

    packs = (*user_pack_paths(data_dir), *project_pack_paths(project_root))
    stamp: list[Any] = [CACHE_SCHEMA, _code_stamp(), str(data_dir), str(project_root)]
    for path in (resource_dir("signals") / REGISTRY_FILE, *packs):
        try:
            st = os.stat(path)
            stamp.append([str(path), st.st_size, st.st_mtime_ns, st.st_ino])
        except OSError:
            stamp.append([str(path)])
    label = f"{data_dir}\0{project_root}".encode()
    warm = _warm_registries.get(label)
    if warm is not None and warm[0] == stamp:
        return warm[1]
    if not packs or cache_dir is None:
        registry = load_registry(data_dir, project_root)
    else:
        registry = _merged_registry(data_dir, project_root, cache_dir, label, stamp)
    _keep(_warm_registries, label, (stamp, registry))
    return registry


def _merged_registry(
    data_dir: Path, project_root: Path | None, cache_dir: Path, label: bytes, stamp: list[Any]
) -> Registry:
    """The registry with the user and project packs merged, from its cache file when current."""
    from ome.registry import load_registry_data
    from ome.signals import registry_from_data

    path = cache_dir / f"registry-{zlib.crc32(label):08x}.json"
    try:
        doc = orjson.loads(path.read_bytes())
        if doc["stamp"] == stamp:
            return registry_from_data(doc["data"])
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        pass
    data = load_registry_data(data_dir, project_root)
    registry = registry_from_data(data)
    if time.time_ns() - max((s[3] for s in stamp[4:] if len(s) > 1), default=0) > RACY_NS:
        try:
            cache_dir.mkdir(parents=True, exist_ok=True)
            write_atomic(path, orjson.dumps({"stamp": stamp, "data": data}), durable=False)
        except (OSError, TypeError):
            pass
    return registry


# --- finishing in the background ---------------------------------------------------------------


def spawn_builder(data_dir: Path, project_root: Path | None, cache_dir: Path) -> bool:
    """Start a detached `python -m ome.cache` to finish the index; one at a time per cache."""
    lock = cache_dir / "build.lock"
    try:
        age = time.time() - lock.stat().st_mtime
        if age < BUILD_LOCK_STALE_S:
            return False
        lock.unlink()
    except OSError:
        pass
    try:
        fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except OSError:
        return False
    import subprocess

    try:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "ome.cache",
                "--data-dir",
                str(data_dir),
                "--project-root",
                str(project_root) if project_root else "",
                "--lock",
                str(lock),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=True,
            start_new_session=True,
        )
        os.write(fd, str(process.pid).encode())
    except OSError:
        os.close(fd)
        lock.unlink(missing_ok=True)
        return False
    os.close(fd)
    return True


def build_cache(
    data_dir: Path, project_root: Path | None, statuses: Sequence[Status] = ("active",)
) -> LoadedIndex:
    """Bring the whole cache of a data dir (and project) up to date, with no deadline."""
    from ome.library import library_sources

    cache_dir = data_dir / CACHE_DIR
    config = load_config_cached(data_dir, cache_dir)
    registry = load_registry_cached(data_dir, project_root, cache_dir)
    matcher = load_matcher(registry, cache_dir)
    sources = library_sources(config, project_root)
    return load_index(sources, registry, matcher, cache_dir, None, statuses, fill_pinyin=True)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m ome.cache [--data-dir D] [--project-root P]`: build the cache, print its stats."""
    import argparse

    from ome.config import resolve_data_dir

    parser = argparse.ArgumentParser(
        prog="python -m ome.cache",
        description="Build or refresh the compiled card index of a data dir (and a project).",
    )
    parser.add_argument("--data-dir", default="", help="the data dir (default: $OME_HOME)")
    parser.add_argument("--project-root", default="", help="also index this project's cards")
    parser.add_argument("--lock", default="", help=argparse.SUPPRESS)  # set by spawn_builder
    args = parser.parse_args(argv)
    try:
        data_dir = resolve_data_dir(args.data_dir or None)
        if not data_dir.is_dir():
            sys.stderr.write(f"{data_dir} is not a data dir; create it with `ome init`\n")
            return 1
        root = Path(args.project_root) if args.project_root else None
        stats = build_cache(data_dir, root).stats
        doc = {f.name: getattr(stats, f.name) for f in fields(stats)}
        sys.stdout.write(orjson.dumps(doc, option=orjson.OPT_SORT_KEYS).decode() + "\n")
    finally:
        if args.lock:
            try:
                os.unlink(args.lock)
            except OSError:
                pass
    return 0


__all__ = [
    "CACHE_DIR",
    "CACHE_SCHEMA",
    "CacheError",
    "CacheStats",
    "CacheUnsupported",
    "LazyCardFiles",
    "LazyCards",
    "LazyPostings",
    "LoadedIndex",
    "SHIPPED_MATCHER_FILE",
    "build_cache",
    "card_keys",
    "codec",
    "contribution",
    "load_registry_cached",
    "load_index",
    "load_matcher",
    "main",
    "render_shipped_matcher",
    "spawn_builder",
]

if __name__ == "__main__":
    # Run the imported module's `main`, so the builder shares one set of classes with the library.
    from ome.cache import main as _main

    raise SystemExit(_main())
