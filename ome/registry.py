"""Signal packs and vocabulary: read the YAML people edit, validate it, compile it to JSON.

The compiled `signals/registry.json` ships with the package and is all the hook loads (orjson,
no YAML). YAML is imported only on the slow path: `ome signals build`, and user or project packs
(`<data dir>/signals/*.yaml`, `<project>/.oh-my-experience/signals/*.yaml`), which override
bundled signals with the same id.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import orjson

from ome.analysis import has_han, is_han, tokenize
from ome.atomic import write_atomic
from ome.concepts import (
    COUNT_SLOT,
    ConceptMatcher,
    build_concept_matcher,
    matched_form,
    split_count_template,
)
from ome.errors import RegistryError
from ome.resources import resource_dir
from ome.signals import (
    INTENT_MODES,
    POLARITIES,
    REGISTRY_SCHEMA,
    REGISTRY_VERSION,
    Registry,
    normalize_text,
    registry_from_data,
)

Source = Literal["bundled", "user", "project"]

REGISTRY_FILE = "registry.json"
PACK_SUFFIXES = (".yaml", ".yml")
MAX_PACK_BYTES = 2_000_000
MAX_PHRASE_CHARS = 200
MAX_NEAR_WINDOW = 200
# Anchor sets larger than this stop being a cheap prefilter.
MAX_ANCHORS = 32
# Bounded repeats up to this count are expanded into literal alternatives when deriving anchors.
MAX_EXPANDED_REPEAT = 3

PACK_KEYS = frozenset({"pack", "description", "enabled", "signals"})
SIGNAL_KEYS = frozenset(
    {
        "id",
        "polarity",
        "weight",
        "reason",
        "routes",
        "intent",
        "suppresses",
        "targets",
        "patterns",
        "expand",
        "examples",
    }
)
PATTERN_KEYS = frozenset({"phrases", "regex", "near", "concepts"})
REGEX_KEYS = frozenset({"pattern", "anchors"})
NEAR_KEYS = frozenset({"groups", "window"})
EXAMPLE_KEYS = frozenset({"positive", "negative"})
STOPWORD_KEYS = frozenset({"en", "zh"})
# Cue lists of the envelope file: each maps a language to phrases.
CUE_KEYS = (
    "negation_cues",
    "cue_false_friends",
    "exclusion_cues",
    "exclusion_frame_openers",
    "exclusion_frame_closers",
    "exclusion_closers",
    "focus_cues",
    "background_cues",
    "back_reference_cues",
    "settled_cues",
    "status_cues",
    "handoff_cues",
    "build_cues",
    "multi_task_cues",
    "task_count_cues",
    "first_task_markers",
    "second_task_markers",
    "more_task_markers",
    "clause_connectors",
    "clause_breaks",
)
TOKEN_LIST_KEYS = ("command_programs", "path_extensions")
ENVELOPE_KEYS = frozenset({*CUE_KEYS, *TOKEN_LIST_KEYS, "task_types", "surfaces", "operations"})
LEXICON_KEYS = frozenset({"concepts", "han_infixes", "han_joiners", "word_infixes"})
CONCEPT_KEYS = frozenset({"id", "terms", "broader", "not_in", "counts"})
COUNT_KEYS = frozenset({"at_least", "as", "not_as"})

_ID = re.compile(r"^[a-z][a-z0-9_]*$")
_PACK_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class SignalExample:
    """One row of a pack's example table: `prompt` must (or must not) fire `signal_id`."""

    signal_id: str
    should_fire: bool
    prompt: str
    path: Path


@dataclass(frozen=True, slots=True)
class PackFile:
    """One pack file as read: its header, its raw signal entries and its example table."""

    path: Path
    name: str
    description: str
    enabled: bool
    signals: tuple[dict[str, Any], ...]
    examples: tuple[SignalExample, ...]


@dataclass(frozen=True, slots=True)
class BuildResult:
    """What compiling the bundled packs did: the registry file, whether it changed, its size."""

    path: Path
    stale: bool  # the registry or the concept matcher shipped beside it
    written: bool
    digest: str
    signal_count: int
    concept_count: int
    warnings: tuple[str, ...]


# --- reading YAML -------------------------------------------------------------------------


def _load_yaml(path: Path) -> Any:
    yaml = importlib.import_module("yaml")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise RegistryError(f"{path}: cannot read ({error.strerror}); check the path") from error
    if len(raw) > MAX_PACK_BYTES:
        raise RegistryError(f"{path}: larger than {MAX_PACK_BYTES} bytes; split the pack")
    try:
        return yaml.load(raw.decode("utf-8"), Loader=loader)
    except UnicodeDecodeError as error:
        raise RegistryError(f"{path}: not UTF-8; save the file as UTF-8") from error
    except yaml.YAMLError as error:
        where = getattr(error, "problem_mark", None)
        line = f" line {where.line + 1}" if where is not None else ""
        problem = getattr(error, "problem", None) or str(error)
        raise RegistryError(f"{path}:{line} invalid YAML ({problem}); fix the syntax") from error


def _normalize(text: str) -> str:
    return _SPACES.sub(" ", normalize_text(text)).strip()


class _Checker:
    """Validation helpers whose messages name the file, the signal and the fix."""

    def __init__(self, path: Path, where: str = "") -> None:
        self.path = path
        self.where = where

    def fail(self, problem: str) -> RegistryError:
        prefix = f"{self.path}: {self.where}: " if self.where else f"{self.path}: "
        return RegistryError(prefix + problem)

    def mapping(self, value: object, what: str, allowed: frozenset[str]) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(f"{what} must be a mapping, got {type(value).__name__}")
        unknown = sorted(str(key) for key in value if key not in allowed)
        if unknown:
            raise self.fail(
                f"unknown key {unknown[0]!r} in {what}; use one of {', '.join(sorted(allowed))}"
            )
        return value

    def strings(self, value: object, what: str, *, normalize: bool = True) -> tuple[str, ...]:
        if value is None:
            return ()
        if not isinstance(value, list):
            raise self.fail(f"{what} must be a list of strings")
        result: list[str] = []
        for item in value:
            if isinstance(item, bool) or item is None:
                raise self.fail(f'{what}: YAML read a word as {item!r}; quote it ("no", "on")')
            if not isinstance(item, str) or not item.strip():
                raise self.fail(f"{what} must hold non-empty strings, got {item!r}")
            text = _normalize(item) if normalize else item
            if len(text) > MAX_PHRASE_CHARS:
                raise self.fail(f"{what} entry {text[:40]!r}... is over {MAX_PHRASE_CHARS} chars")
            result.append(text)
        return tuple(dict.fromkeys(result))

    def ids(self, value: object, what: str) -> tuple[str, ...]:
        ids = self.strings(value, what)
        for signal_id in ids:
            if not _ID.match(signal_id):
                raise self.fail(f"{what} entry {signal_id!r} is not a signal id ([a-z][a-z0-9_]*)")
        return tuple(sorted(ids))


# --- anchors ------------------------------------------------------------------------------

_Strings = frozenset[str]


def _join(left: _Strings, right: _Strings) -> _Strings | None:
    if len(left) * len(right) > MAX_ANCHORS:
        return None
    return frozenset(a + b for a in left for b in right)


def _finite(name: str, value: Any) -> _Strings | None:
    """The exact set of strings an item matches, when small and literal; else None."""
    if name == "LITERAL":
        return frozenset({chr(value).lower()})
    if name in {"AT", "ASSERT", "ASSERT_NOT"}:
        return frozenset({""})
    if name == "IN":
        chars: set[str] = set()
        for item_op, item_value in value:
            item = str(item_op)
            if item == "LITERAL":
                chars.add(chr(item_value).lower())
            elif item == "RANGE" and item_value[1] - item_value[0] < 10:
                chars.update(chr(c).lower() for c in range(item_value[0], item_value[1] + 1))
            else:
                return None
        return frozenset(chars) if len(chars) <= MAX_ANCHORS else None
    if name == "SUBPATTERN":
        return _sequence(value[3])[1]
    if name == "ATOMIC_GROUP":
        return _sequence(value)[1]
    if name == "BRANCH":
        union: set[str] = set()
        for branch in value[1]:
            whole = _sequence(branch)[1]
            if whole is None:
                return None
            union.update(whole)
        return frozenset(union) if len(union) <= MAX_ANCHORS else None
    if name in {"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"}:
        low, high, body = value
        whole = _sequence(body)[1]
        if whole is None or high > MAX_EXPANDED_REPEAT:
            return None
        result: set[str] = set()
        power: _Strings | None = frozenset({""})
        for count in range(high + 1):
            if power is None:
                return None
            if count >= low:
                result.update(power)
            power = _join(power, whole)
        return frozenset(result) if len(result) <= MAX_ANCHORS else None
    return None


def _inner(name: str, value: Any) -> list[_Strings]:
    """Anchor candidates inside an item that is required but not a small literal set."""
    if name == "SUBPATTERN":
        return _sequence(value[3])[0]
    if name == "ATOMIC_GROUP":
        return _sequence(value)[0]
    if name in {"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"} and value[0] >= 1:
        candidates, whole = _sequence(value[2])
        return candidates + ([whole] if whole is not None else [])
    if name == "BRANCH":
        union: set[str] = set()
        for branch in value[1]:
            candidates, whole = _sequence(branch)
            best = _best(candidates + ([whole] if whole is not None else []))
            if not best:
                return []
            union.update(best)
        return [frozenset(union)] if len(union) <= MAX_ANCHORS else []
    return []


def _sequence(items: Iterable[tuple[Any, Any]]) -> tuple[list[_Strings], _Strings | None]:
    """Anchor candidates of a concatenation, and its exact string set when finite."""
    candidates: list[_Strings] = []
    run: _Strings = frozenset({""})
    whole: _Strings | None = frozenset({""})
    for op, value in items:
        name = str(op)
        finite = _finite(name, value)
        if finite is None:
            candidates.append(run)
            candidates.extend(_inner(name, value))
            run, whole = frozenset({""}), None
            continue
        joined = _join(run, finite)
        if joined is None:
            candidates.append(run)
            run = finite
        else:
            run = joined
        whole = _join(whole, finite) if whole is not None else None
    candidates.append(run)
    return candidates, whole


def _weight(anchor: str) -> int:
    # A Han character is far rarer in a prompt than an ASCII letter.
    return sum(1 if char.isascii() else 3 for char in anchor)


def _best(candidates: Iterable[_Strings]) -> tuple[str, ...]:
    best: tuple[str, ...] = ()
    best_key: tuple[int, int] | None = None
    for candidate in candidates:
        anchors = set(candidate)
        if not anchors or any(_weight(anchor.strip()) < 2 for anchor in anchors):
            continue
        # An anchor containing another anchor of the set adds nothing.
        minimal = tuple(sorted(a for a in anchors if not any(b != a and b in a for b in anchors)))
        # Past a few characters an anchor is selective enough; then fewer anchors is cheaper.
        key = (min(min(_weight(anchor) for anchor in minimal), 6), -len(minimal))
        if best_key is None or key > best_key or (key == best_key and minimal < best):
            best, best_key = minimal, key
    return best


def derive_anchors(pattern: str) -> tuple[str, ...]:
    """Literal substrings one of which every match of `pattern` contains; () when none is found.

    Uses the stdlib regex parser; patterns using `regex`-only syntax get no anchors.
    """
    parser = importlib.import_module("re._parser")
    try:
        tree = parser.parse(pattern, re.ASCII)
    except Exception:  # noqa: BLE001 - any parse failure just means "no anchors"
        return ()
    candidates, whole = _sequence(list(tree))
    return _best(candidates + ([whole] if whole is not None else []))


# --- packs --------------------------------------------------------------------------------


def _compile_regex(check: _Checker, rule: object) -> dict[str, Any]:
    if isinstance(rule, str):
        rule = {"pattern": rule}
    body = check.mapping(rule, "a regex entry", REGEX_KEYS)
    pattern = body.get("pattern")
    if not isinstance(pattern, str) or not pattern:
        raise check.fail("regex entry needs a non-empty `pattern` string")
    regex = importlib.import_module("regex")
    try:
        compiled = regex.compile(pattern, regex.ASCII)
    except regex.error as error:
        raise check.fail(f"bad regex {pattern!r} ({error}); fix the pattern") from error
    if compiled.search("") is not None:
        raise check.fail(f"regex {pattern!r} matches the empty string; make a part required")
    if "anchors" in body:
        anchors = tuple(sorted(check.strings(body["anchors"], "regex anchors")))
    else:
        anchors = derive_anchors(pattern)
    return {"pattern": pattern, "anchors": list(anchors)}


def _compile_near(check: _Checker, rule: object) -> dict[str, Any]:
    body = check.mapping(rule, "a near entry", NEAR_KEYS)
    groups = body.get("groups")
    if not isinstance(groups, list) or len(groups) < 2:
        raise check.fail("near entry needs `groups`: a list of at least two term lists")
    window = body.get("window")
    if not isinstance(window, int) or isinstance(window, bool) or not 0 <= window <= 200:
        raise check.fail(f"near `window` must be an integer 0..{MAX_NEAR_WINDOW}")
    compiled_groups = [list(check.strings(group, "a near group")) for group in groups]
    if not all(compiled_groups):
        raise check.fail("near groups must not be empty")
    return {"groups": compiled_groups, "window": window}


def _compile_signal(
    path: Path, pack: str, raw: object
) -> tuple[dict[str, Any], list[SignalExample]]:
    signal_id = raw.get("id") if isinstance(raw, Mapping) else None
    check = _Checker(path, f"signal {signal_id!r}" if signal_id else "a signal")
    body = check.mapping(raw, "a signal", SIGNAL_KEYS)
    if not isinstance(signal_id, str) or not _ID.match(signal_id):
        raise check.fail("`id` must match [a-z][a-z0-9_]* (for example `ui_surface`)")
    polarity = body.get("polarity")
    if polarity not in POLARITIES:
        raise check.fail(f"`polarity` is {polarity!r}; use `positive` or `negative`")
    weight = body.get("weight")
    if not isinstance(weight, int | float) or isinstance(weight, bool) or not 0 < weight <= 1:
        raise check.fail(f"`weight` is {weight!r}; use a number in (0, 1]")
    reason = body.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        raise check.fail("`reason` is missing; say in one line what the signal means")
    routes = body.get("routes", False)
    if not isinstance(routes, bool):
        raise check.fail("`routes` must be true or false")
    intent = body.get("intent")
    if intent is not None and intent not in INTENT_MODES:
        raise check.fail(f"`intent` is {intent!r}; use null or one of {', '.join(INTENT_MODES)}")
    suppresses = check.ids(body.get("suppresses"), "`suppresses`")
    targets = check.ids(body.get("targets"), "`targets`")
    if targets and polarity != "negative":
        raise check.fail("only negative signals may have `targets`; remove them or flip polarity")
    if signal_id in suppresses:
        raise check.fail("a signal cannot suppress itself; remove its own id from `suppresses`")
    patterns = check.mapping(body.get("patterns", {}), "`patterns`", PATTERN_KEYS)
    phrases = sorted(check.strings(patterns.get("phrases"), "`patterns.phrases`"))
    regexes = patterns.get("regex") or []
    nears = patterns.get("near") or []
    if not isinstance(regexes, list) or not isinstance(nears, list):
        raise check.fail("`patterns.regex` and `patterns.near` must be lists")
    concepts = sorted(set(check.strings(patterns.get("concepts"), "`patterns.concepts`")))
    if not (phrases or regexes or nears or concepts):
        raise check.fail(
            "no patterns; add `patterns.phrases`, `patterns.regex`, `patterns.near` or "
            "`patterns.concepts`"
        )
    examples = check.mapping(body.get("examples", {}), "`examples`", EXAMPLE_KEYS)
    rows = [
        SignalExample(signal_id, expected, prompt, path)
        for key, expected in (("positive", True), ("negative", False))
        for prompt in check.strings(examples.get(key), f"`examples.{key}`", normalize=False)
    ]
    compiled = {
        "id": signal_id,
        "pack": pack,
        "polarity": polarity,
        "weight": float(weight),
        "reason": " ".join(reason.split()),
        "routes": routes,
        "intent": intent,
        "suppresses": list(suppresses),
        "targets": list(targets),
        "phrases": phrases,
        "regex": [_compile_regex(check, rule) for rule in regexes],
        "near": [_compile_near(check, rule) for rule in nears],
        "concepts": concepts,
        "expand": list(check.strings(body.get("expand"), "`expand`")),
        "enabled": True,
    }
    return compiled, rows


def read_pack(path: Path) -> PackFile:
    """Read and validate one pack file; raise RegistryError naming the file and the fix."""
    check = _Checker(path)
    body = check.mapping(_load_yaml(path), "the pack file", PACK_KEYS)
    name = body.get("pack")
    if not isinstance(name, str) or not _PACK_NAME.match(name):
        raise check.fail("`pack` must name the pack ([a-z][a-z0-9_-]*), e.g. `pack: my-team`")
    description = body.get("description", "")
    enabled = body.get("enabled", True)
    if not isinstance(description, str) or not isinstance(enabled, bool):
        raise check.fail("`description` must be a string and `enabled` true or false")
    raw_signals = body.get("signals") or []
    if not isinstance(raw_signals, list):
        raise check.fail("`signals` must be a list")
    signals: list[dict[str, Any]] = []
    examples: list[SignalExample] = []
    seen: set[str] = set()
    for raw in raw_signals:
        compiled, rows = _compile_signal(path, name, raw)
        if compiled["id"] in seen:
            raise check.fail(f"signal {compiled['id']!r} is defined twice; keep one definition")
        seen.add(compiled["id"])
        signals.append(compiled)
        examples.extend(rows)
    return PackFile(
        path, name, " ".join(description.split()), enabled, tuple(signals), tuple(examples)
    )


def pack_examples(paths: Iterable[Path]) -> tuple[SignalExample, ...]:
    """Every example row of the given packs, in file order."""
    return tuple(row for path in paths for row in read_pack(path).examples)


def pack_paths(directory: Path) -> tuple[Path, ...]:
    """The pack files directly in `directory`, sorted by name; () when it does not exist."""
    if not directory.is_dir():
        return ()
    return tuple(
        sorted(p for p in directory.iterdir() if p.suffix in PACK_SUFFIXES and p.is_file())
    )


def bundled_pack_paths() -> tuple[Path, ...]:
    return pack_paths(resource_dir("signals") / "packs")


def user_pack_paths(data_dir: Path | None) -> tuple[Path, ...]:
    return pack_paths(data_dir / "signals") if data_dir is not None else ()


def project_pack_paths(project_root: Path | None) -> tuple[Path, ...]:
    if project_root is None:
        return ()
    return pack_paths(project_root / ".oh-my-experience" / "signals")


# --- vocabulary ---------------------------------------------------------------------------


def _labelled_terms(check: _Checker, value: object, what: str) -> dict[str, list[str]]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise check.fail(f"`{what}` must map a label to a list of terms")
    result: dict[str, list[str]] = {}
    for label, terms in value.items():
        if not isinstance(label, str) or not _ID.match(label):
            raise check.fail(f"`{what}` label {label!r} must match [a-z][a-z0-9_]*")
        result[label] = sorted(check.strings(terms, f"`{what}.{label}`"))
    return result


def _check_term_words(check: _Checker, term: str) -> None:
    """A term of several words must stay several words once analysed: flags and one-letter
    words are dropped, so 'push -f' would match every 'push' and 'p value' every 'value'."""
    if has_han(term) or len(term.split()) < 2:
        return
    words = [t.term for t in tokenize(normalize_text(term).lower()) if t.kind in ("word", "part")]
    if len(words) < 2:
        raise check.fail(
            f"term {term!r} analyses to the single word {''.join(words)!r} (flags and one-letter "
            "words are dropped); spell it out or leave it out"
        )


def _read_concepts(
    path: Path, body: Mapping[str, Any], items: Mapping[str, list[str]]
) -> list[dict[str, Any]]:
    check = _Checker(path)
    raw = body.get("concepts")
    if not isinstance(raw, list):
        raise check.fail("`concepts` must be a list of {id, terms}")
    concepts: dict[str, list[str]] = {}
    broader: dict[str, list[str]] = {}
    not_in: dict[str, list[str]] = {}
    counts: dict[str, list[dict[str, Any]]] = {}
    # term as matched -> (concept, term as written)
    owner: dict[tuple[str, tuple[str, ...]], tuple[str, str]] = {}
    for item in raw:
        concept_id = item.get("id") if isinstance(item, Mapping) else None
        item_check = _Checker(path, f"concept {concept_id!r}")
        entry = item_check.mapping(item, "a concept", CONCEPT_KEYS)
        if not isinstance(concept_id, str) or not _ID.match(concept_id):
            raise item_check.fail("`id` must match [a-z][a-z0-9_]*")
        if concept_id in concepts:
            raise item_check.fail("defined twice; merge the two entries")
        terms = item_check.strings(entry.get("terms"), "`terms`")
        if len(terms) < 2:
            raise item_check.fail("a concept needs at least two terms (a synonym set)")
        if len(terms) < len(entry["terms"]):
            written = [_normalize(term) for term in entry["terms"]]
            twice = next(term for term in terms if written.count(term) > 1)
            raise item_check.fail(f"term {twice!r} is written twice; keep one")
        for term in terms:
            _check_term_words(item_check, term)
            # As the matcher keeps it: "用 double" is "用double", "migrations" is "migration".
            key = matched_form(term)
            if key in owner:
                other, said = owner[key]
                raise item_check.fail(
                    f"term {term!r} is {said!r} again as the matcher reads it; keep one"
                    if other == concept_id
                    else f"term {term!r} is also in concept {other!r} (as {said!r}) as the matcher"
                    " reads it; keep it in one concept"
                )
            owner[key] = (concept_id, term)
        concepts[concept_id] = list(terms)
        broader[concept_id] = list(item_check.strings(entry.get("broader", []), "`broader`"))
        phrases = item_check.strings(entry.get("not_in", []), "`not_in`")
        not_in[concept_id] = []
        if phrases:
            # Each phrase is read by a matcher of the concept's own terms (`_false_friend`).
            own = build_concept_matcher(
                [(concept_id, terms)],
                items["han_infixes"],
                items["han_joiners"],
                items["word_infixes"],
            )
            not_in[concept_id] = [_false_friend(item_check, phrase, own) for phrase in phrases]
        if "counts" in entry:
            if not isinstance(entry["counts"], list):
                raise item_check.fail("`counts` must be a list of {at_least, as}")
            counts[concept_id] = [_count_rule(item_check, rule) for rule in entry["counts"]]
    closure = _broader_closure(path, broader)
    return [
        {
            "id": key,
            "terms": concepts[key],
            **({"broader": closure[key]} if closure[key] else {}),
            **({"not_in": not_in[key]} if not_in[key] else {}),
            **({"counts": counts[key]} if key in counts else {}),
        }
        for key in sorted(concepts)
    ]


def _count_template(check: _Checker, template: str) -> str:
    """A count template as kept: one English word before or after the figure's slot ("page #",
    "# row"), or Chinese around it without spaces ("第#页", "#行")."""
    if template.count(COUNT_SLOT) != 1:
        raise check.fail(f"`counts.as`: {template!r} must hold one {COUNT_SLOT} for the figure")
    prefix, suffix = split_count_template(template)
    english = (not prefix) != (not suffix) and _one_english_word(prefix or suffix)
    chinese = (prefix or suffix) and all(is_han(c) for c in prefix + suffix)
    if not (english or chinese):
        raise check.fail(
            f"`counts.as`: {template!r} is neither one English word before or after "
            f"{COUNT_SLOT} nor Chinese around it"
        )
    if chinese:
        return prefix + COUNT_SLOT + suffix
    return f"{prefix} {COUNT_SLOT}" if prefix else f"{COUNT_SLOT} {suffix}"


def _count_rule(check: _Checker, value: object) -> dict[str, Any]:
    """One rule of a concept's `counts`: a whole number of one or more, the templates a count
    is said in, and longer Chinese readings of a template that count something else."""
    rule = check.mapping(value, "a `counts` rule", COUNT_KEYS)
    at_least = rule.get("at_least")
    if isinstance(at_least, bool) or not isinstance(at_least, int) or at_least < 1:
        raise check.fail("`counts.at_least` must be a whole number of one or more")
    templates = check.strings(rule.get("as"), "`counts.as`")
    if not templates:
        raise check.fail(f'`counts.as` must name at least one template ("{COUNT_SLOT} row")')
    kept = sorted({_count_template(check, t) for t in templates})
    not_as = check.strings(rule.get("not_as", []), "`counts.not_as`")
    for reading in not_as:
        if not any(has_han(t) and reading.startswith(t) and len(reading) > len(t) for t in kept):
            raise check.fail(f"`counts.not_as`: {reading!r} does not go on from a Chinese template")
    return {
        "at_least": at_least,
        "as": kept,
        **({"not_as": sorted(not_as)} if not_as else {}),
    }


def _false_friend(check: _Checker, phrase: str, own: ConceptMatcher) -> str:
    """A `not_in` phrase, lower-cased as prompts are matched; it must hold one of the concept's
    terms as `own`, a matcher of those terms alone, reads it ("a couple of" holds "coupling":
    both are "coupl"; 积分过期 holds 分期 with the infix 过), or there is nothing in it to hide."""
    lowered = phrase.lower()
    if not own.find(lowered):
        raise check.fail(
            f"`not_in` phrase {phrase!r} holds none of the concept's terms, so it hides nothing; "
            "write a phrase around one of them ('roadmap review' for 'review')"
        )
    return lowered


def _did_you_mean(name: str, known: Sequence[str], cutoff: float) -> str:
    """A hint naming the known ids closest to an unknown one ("did you mean ...?"), or ""."""
    import difflib

    near = difflib.get_close_matches(name, known, n=3, cutoff=cutoff)
    return f" (did you mean {', '.join(near)}?)" if near else ""


def _broader_closure(path: Path, broader: Mapping[str, list[str]]) -> dict[str, list[str]]:
    """Each concept's broader concepts, theirs too, sorted: a private key is a secret, and what
    a secret is, so is a private key. A link to an unknown id, or a loop, is an error."""
    known = sorted(broader)
    for concept_id, targets in broader.items():
        for target in targets:
            if target not in broader:
                hint = _did_you_mean(target, known, 0.6)
                raise _Checker(path, f"concept {concept_id!r}").fail(
                    f"`broader` names unknown concept {target!r}{hint}; use a concept id"
                )
    closure: dict[str, list[str]] = {}
    for concept_id in known:
        seen: set[str] = set()
        stack = list(broader[concept_id])
        while stack:
            target = stack.pop()
            if target == concept_id:
                raise _Checker(path, f"concept {concept_id!r}").fail(
                    "`broader` leads back to the concept itself; a concept broader than "
                    "itself is a synonym: merge the two concepts"
                )
            if target not in seen:
                seen.add(target)
                stack.extend(broader[target])
        closure[concept_id] = sorted(seen)
    return closure


def _one_han_character(text: str) -> bool:
    return len(text) == 1 and is_han(text)


def _one_english_word(text: str) -> bool:
    return text.isascii() and text.isalpha() and text.islower()


# What each lexicon list of single items holds: a test of one item and its name in errors.
_LEXICON_ITEMS: dict[str, tuple[Callable[[str], bool], str]] = {
    "han_infixes": (_one_han_character, "one Han character"),
    "han_joiners": (_one_han_character, "one Han character"),
    "word_infixes": (_one_english_word, "one lower-case English word"),
}


def _read_lexicon_items(path: Path, body: Mapping[str, Any], key: str) -> list[str]:
    """A lexicon list of single items (`_LEXICON_ITEMS`), each checked, sorted."""
    fits, what = _LEXICON_ITEMS[key]
    check = _Checker(path)
    items = check.strings(body.get(key, []), f"`{key}`")
    for item in items:
        if not fits(item):
            raise check.fail(f"`{key}`: {item!r} is not {what}")
    return sorted(set(items))


def read_vocabulary(directory: Path) -> dict[str, Any]:
    """Stopwords, envelope vocabulary and lexicon from `directory`, validated and normalised."""
    stop_path = directory / "stopwords.yaml"
    stop_check = _Checker(stop_path)
    stopwords = stop_check.mapping(_load_yaml(stop_path), "the stopwords file", STOPWORD_KEYS)
    env_path = directory / "envelope.yaml"
    env_check = _Checker(env_path)
    envelope = env_check.mapping(_load_yaml(env_path), "the envelope file", ENVELOPE_KEYS)
    cues = {
        key: env_check.mapping(envelope.get(key, {}), f"`{key}`", STOPWORD_KEYS) for key in CUE_KEYS
    }
    lexicon_path = directory / "lexicon.yaml"
    lexicon = _Checker(lexicon_path).mapping(
        _load_yaml(lexicon_path), "the lexicon file", LEXICON_KEYS
    )
    items = {key: _read_lexicon_items(lexicon_path, lexicon, key) for key in _LEXICON_ITEMS}
    return {
        "stopwords": {
            lang: sorted(stop_check.strings(stopwords.get(lang), f"`{lang}`"))
            for lang in sorted(STOPWORD_KEYS)
        },
        **{
            key: {
                lang: sorted(env_check.strings(cues[key].get(lang), f"`{key}.{lang}`"))
                for lang in sorted(STOPWORD_KEYS)
            }
            for key in CUE_KEYS
        },
        "task_types": _labelled_terms(env_check, envelope.get("task_types"), "task_types"),
        "surfaces": _labelled_terms(env_check, envelope.get("surfaces"), "surfaces"),
        "operations": _labelled_terms(env_check, envelope.get("operations"), "operations"),
        **{
            key: sorted(env_check.strings(envelope.get(key, []), f"`{key}`"))
            for key in TOKEN_LIST_KEYS
        },
        "concepts": _read_concepts(lexicon_path, lexicon, items),
        **items,
    }


# --- compiling and merging ----------------------------------------------------------------


def registry_digest(data: Mapping[str, Any]) -> str:
    """sha256 of the canonical (sorted, compact) JSON of everything but the digest itself."""
    import hashlib

    body = {key: value for key, value in data.items() if key != "digest"}
    return hashlib.sha256(orjson.dumps(body, option=orjson.OPT_SORT_KEYS)).hexdigest()


def render_registry(data: Mapping[str, Any]) -> bytes:
    return orjson.dumps(data, option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2) + b"\n"


def _check_references(
    signals: Mapping[str, dict[str, Any]], origin: Mapping[str, Path], concepts: frozenset[str]
) -> None:
    known = sorted(signals)
    for signal_id in known:
        signal = signals[signal_id]
        for key in ("suppresses", "targets"):
            for other in signal[key]:
                if other not in signals:
                    hint = _did_you_mean(other, known, 0.5)
                    raise _Checker(origin[signal_id], f"signal {signal_id!r}").fail(
                        f"`{key}` names unknown signal {other!r}{hint}; use a registered id"
                    )
                if key == "targets" and signals[other]["polarity"] != "positive":
                    raise _Checker(origin[signal_id], f"signal {signal_id!r}").fail(
                        f"`targets` names {other!r}, which is not positive; target positive ids"
                    )
        for concept in signal.get("concepts", ()):
            if concept not in concepts:
                hint = _did_you_mean(concept, sorted(concepts), 0.6)
                raise _Checker(origin[signal_id], f"signal {signal_id!r}").fail(
                    f"`patterns.concepts` names unknown concept {concept!r}{hint}; use an id "
                    "from signals/vocabulary/lexicon.yaml"
                )


def merge_packs(
    data: Mapping[str, Any], layers: Sequence[tuple[Source, Sequence[Path]]]
) -> dict[str, Any]:
    """Add each layer's packs on top of compiled `data`; a later layer's id replaces earlier ones.

    A pack file may carry no signals and `enabled: false` to switch off a pack of that name.
    """
    signals = {item["id"]: dict(item) for item in data["signals"]}
    packs = {item["name"]: dict(item) for item in data["packs"]}
    origin = {signal_id: Path(f"<{signals[signal_id]['pack']} pack>") for signal_id in signals}
    for source, paths in layers:
        seen: dict[str, Path] = {}
        for pack in (read_pack(path) for path in paths):
            packs[pack.name] = {
                "name": pack.name,
                "description": pack.description,
                "enabled": pack.enabled,
                "source": source,
            }
            for signal in pack.signals:
                if signal["id"] in seen:
                    raise RegistryError(
                        f"{pack.path}: signal {signal['id']!r} is also defined in "
                        f"{seen[signal['id']]}; keep one definition per {source} layer"
                    )
                seen[signal["id"]] = pack.path
                signals[signal["id"]] = signal
                origin[signal["id"]] = pack.path
    _check_references(signals, origin, frozenset(c["id"] for c in data["vocabulary"]["concepts"]))
    for signal in signals.values():
        signal["enabled"] = bool(packs.get(signal["pack"], {}).get("enabled", True))
    merged: dict[str, Any] = {
        "schema": REGISTRY_SCHEMA,
        "version": REGISTRY_VERSION,
        "packs": [packs[name] for name in sorted(packs)],
        "signals": [signals[signal_id] for signal_id in sorted(signals)],
        "vocabulary": data["vocabulary"],
    }
    merged["digest"] = registry_digest(merged)
    return merged


def compile_registry(
    pack_paths: Sequence[Path], vocabulary_dir: Path, *, source: Source = "bundled"
) -> dict[str, Any]:
    """Compile pack files and the vocabulary into the registry document (with its digest)."""
    empty = {"signals": [], "packs": [], "vocabulary": read_vocabulary(vocabulary_dir)}
    return merge_packs(empty, [(source, pack_paths)])


def registry_warnings(data: Mapping[str, Any]) -> tuple[str, ...]:
    """Regexes with no anchors: they run on every prompt, which the hook pays for."""
    return tuple(
        f"{signal['pack']}/{signal['id']}: regex {rule['pattern']!r} has no literal anchor and "
        "runs on every prompt; add `anchors:`"
        for signal in data["signals"]
        for rule in signal["regex"]
        if not rule["anchors"]
    )


def _read_or_none(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def build_bundled_registry(check: bool = False, root: Path | None = None) -> BuildResult:
    """Compile the bundled packs; write `registry.json` and its concept matcher, or with `check`
    only report staleness."""
    from ome.cache import SHIPPED_MATCHER_FILE, render_shipped_matcher

    signals_dir = root if root is not None else resource_dir("signals")
    data = compile_registry(pack_paths(signals_dir / "packs"), signals_dir / "vocabulary")
    target = signals_dir / REGISTRY_FILE
    outputs = {
        target: render_registry(data),
        signals_dir / SHIPPED_MATCHER_FILE: render_shipped_matcher(registry_from_data(data)),
    }
    stale_paths = [path for path, content in outputs.items() if _read_or_none(path) != content]
    written = bool(stale_paths) and not check
    if written:
        for path in stale_paths:
            write_atomic(path, outputs[path])
    return BuildResult(
        path=target,
        stale=bool(stale_paths),
        written=written,
        digest=data["digest"],
        signal_count=len(data["signals"]),
        concept_count=len(data["vocabulary"]["concepts"]),
        warnings=registry_warnings(data),
    )


# --- loading ------------------------------------------------------------------------------


def bundled_registry_data() -> dict[str, Any]:
    """The shipped compiled registry; compiled from the packs if the JSON file is missing."""
    signals_dir = resource_dir("signals")
    path = signals_dir / REGISTRY_FILE
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return compile_registry(pack_paths(signals_dir / "packs"), signals_dir / "vocabulary")
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        raise RegistryError(f"{path}: not valid JSON; run `ome signals build`") from error
    if not isinstance(data, dict):
        raise RegistryError(f"{path}: not a registry document; run `ome signals build`")
    return data


def load_registry_data(
    data_dir: Path | None = None, project_root: Path | None = None
) -> dict[str, Any]:
    """Bundled registry data with user, then project packs layered on top."""
    data = bundled_registry_data()
    layers: list[tuple[Source, Sequence[Path]]] = [
        ("user", user_pack_paths(data_dir)),
        ("project", project_pack_paths(project_root)),
    ]
    if any(paths for _, paths in layers):
        return merge_packs(data, layers)
    return data


def load_registry(data_dir: Path | None = None, project_root: Path | None = None) -> Registry:
    """The registry the engine uses: the shipped JSON, plus any user and project packs."""
    return registry_from_data(load_registry_data(data_dir, project_root))


__all__ = [
    "BuildResult",
    "PackFile",
    "SignalExample",
    "build_bundled_registry",
    "bundled_pack_paths",
    "bundled_registry_data",
    "compile_registry",
    "derive_anchors",
    "load_registry",
    "load_registry_data",
    "merge_packs",
    "pack_examples",
    "pack_paths",
    "project_pack_paths",
    "read_pack",
    "read_vocabulary",
    "registry_digest",
    "registry_warnings",
    "render_registry",
    "user_pack_paths",
]
