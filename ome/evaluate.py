"""Recall evaluation (SPEC §8): run suites through the hook's recall path and measure them.

Each suite runs in its own temporary library (removed afterwards) holding only the suite's cards
(plus `--noise` distractors), with starter cards off, through `ome.api.match_prompt`.

A case *expects nothing* when it says `expectNoMatches`, or lists neither expected nor allowed
extra cards. For a case, with `returned` the ids recall gave in rank order (at most k = limit):
  missing     expected cards not returned;
  unexpected  returned cards neither expected nor allowed (all of them when it expects nothing;
              a card the case lists in `unexpectedCards` is never an allowed extra);
  passed      nothing missing and nothing unexpected.
Metrics, each a mean over the cases named (a case-level macro average; vacuous value in brackets
when no case qualifies):
  pass_rate            passed cases / all cases.
  precision_at_k       over cases that returned something: share of returned cards that were
                       expected or allowed [1.0].
  recall_at_k          over cases with expected cards: share of them returned [1.0].
  mrr                  over cases with expected cards: 1 / rank of the first expected card
                       returned, 0 when none is [1.0].
  ndcg_at_k            over cases with expected cards: DCG / ideal DCG with binary gains (1 for an
                       expected card), log2(rank + 1) discount, ideal over min(|expected|, k)
                       (Järvelin & Kekäläinen 2002) [1.0].
  false_positive_rate  over cases expecting nothing: share that returned something [0.0].
  no_hit_rate          over cases with expected cards: share that returned nothing [0.0].
  over_recall_rate     over all cases: share that returned an unexpected card.
  abstention_accuracy  over cases expecting nothing: share that returned nothing [1.0].
  avg_returned_cards   over all cases: cards returned.
  avg_context_chars    over all cases: characters of the injected context (the temporary
                       library's path written as `~/.oh-my-experience`, so it does not vary).
  p50_ms, p95_ms       nearest-rank percentiles of the time `match_prompt` took per case.
Several suites pool their cases for the top-level metrics; each suite also gets its own block.
"""

from __future__ import annotations

import math
import random
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import orjson

from ome import params
from ome.api import Workspace, match_prompt, open_workspace, recall_options, result_json
from ome.cards import Card, card_from_mapping, card_front_matter, parse_card_text, render_body
from ome.errors import CardError, SuiteError
from ome.scoring import percentile

UNSPECIFIED = "unspecified"
NOISE_PREFIX = "noise-"
# Stands in for the temporary library's path in measured context, as a default install writes it.
DISPLAY_DATA_DIR = "~/.oh-my-experience"
METRIC_DIGITS = 4
MS_DIGITS = 3

METRIC_NAMES = (
    "pass_rate",
    "precision_at_k",
    "recall_at_k",
    "mrr",
    "ndcg_at_k",
    "false_positive_rate",
    "no_hit_rate",
    "over_recall_rate",
    "abstention_accuracy",
    "avg_returned_cards",
    "avg_context_chars",
    "p50_ms",
    "p95_ms",
)
HIGHER_IS_BETTER = (
    "pass_rate",
    "precision_at_k",
    "recall_at_k",
    "mrr",
    "ndcg_at_k",
    "abstention_accuracy",
)
LOWER_IS_BETTER = ("false_positive_rate", "no_hit_rate", "over_recall_rate", "p50_ms", "p95_ms")
# Timings vary between machines and runs; `--compare` shows them but never fails on them.
TIMING_METRICS = ("p50_ms", "p95_ms")

BoundKind = Literal["min", "max"]


@dataclass(frozen=True, slots=True)
class Bound:
    """A command-line bound on one metric."""

    metric: str
    kind: BoundKind
    flag: str


BOUNDS: tuple[Bound, ...] = (
    Bound("pass_rate", "min", "--min-pass-rate"),
    Bound("precision_at_k", "min", "--min-precision"),
    Bound("recall_at_k", "min", "--min-recall"),
    Bound("over_recall_rate", "max", "--max-over-recall"),
    Bound("false_positive_rate", "max", "--max-false-positive"),
)


# --- suites -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SuiteCase:
    """One prompt and what recall should return for it."""

    id: str
    prompt: str
    expected: tuple[str, ...] = ()
    allowed_extra: tuple[str, ...] = ()
    forbidden: tuple[str, ...] = ()
    expect_no_matches: bool = False
    difficulty: str = UNSPECIFIED
    tags: tuple[str, ...] = ()
    threshold: int | None = None
    cwd: str | None = None

    @property
    def expects_nothing(self) -> bool:
        return self.expect_no_matches or not (self.expected or self.allowed_extra)


@dataclass(frozen=True, slots=True)
class Suite:
    """A named set of cards and cases; `path` anchors relative `cwd` values."""

    name: str
    path: Path
    cards: tuple[Card, ...]
    cases: tuple[SuiteCase, ...]


def _read_document(path: Path) -> Any:
    """A JSON or YAML document (chosen by suffix; YAML is a superset, so it is the fallback)."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SuiteError(f"{path}: cannot read ({exc.strerror}); check the path") from None
    if path.suffix.lower() == ".json":
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise SuiteError(f"{path}: not valid JSON ({exc}); fix the file") from None
    import yaml

    try:
        return yaml.safe_load(raw.decode("utf-8"))
    except (UnicodeDecodeError, yaml.YAMLError) as exc:
        raise SuiteError(f"{path}: not valid YAML ({exc}); fix the file") from None


def _id_list(raw: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = raw.get(key)
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SuiteError(f"{where}: '{key}' must be a list of card ids")
    return tuple(dict.fromkeys(value))


def parse_case(raw: Any, where: str) -> SuiteCase:
    """One case of the original's format (camelCase keys); only `id` and `prompt` are required."""
    if not isinstance(raw, dict):
        raise SuiteError(f"{where}: a case must be a mapping with 'id' and 'prompt'")
    case_id, prompt = raw.get("id"), raw.get("prompt")
    if not isinstance(case_id, str) or not case_id:
        raise SuiteError(f"{where}: the case has no 'id'; give each case a unique id")
    where = f"{where} ({case_id})"
    if not isinstance(prompt, str):
        raise SuiteError(f"{where}: 'prompt' must be text")
    expected = _id_list(raw, "expectedCards", where)
    no_matches = raw.get("expectNoMatches", False)
    if not isinstance(no_matches, bool):
        raise SuiteError(f"{where}: 'expectNoMatches' must be true or false")
    if no_matches and expected:
        raise SuiteError(f"{where}: 'expectNoMatches' contradicts 'expectedCards'; keep one")
    threshold = raw.get("threshold")
    if threshold is not None and (
        isinstance(threshold, bool) or not isinstance(threshold, int) or not 0 <= threshold <= 100
    ):
        raise SuiteError(f"{where}: 'threshold' must be a whole number from 0 to 100")
    cwd = raw.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise SuiteError(f"{where}: 'cwd' must be a path")
    difficulty = raw.get("difficulty") or UNSPECIFIED
    return SuiteCase(
        id=case_id,
        prompt=prompt,
        expected=expected,
        allowed_extra=_id_list(raw, "allowedExtraCards", where),
        forbidden=_id_list(raw, "unexpectedCards", where),
        expect_no_matches=no_matches,
        difficulty=str(difficulty),
        tags=_id_list(raw, "tags", where),
        threshold=threshold,
        cwd=cwd,
    )


def parse_suite_card(raw: Any, where: str) -> Card:
    """A suite card: the front-matter shape as a mapping, plus a `rule` string."""
    if not isinstance(raw, dict):
        raise SuiteError(f"{where}: a card must be a mapping of front-matter keys")
    try:
        return card_from_mapping(raw, source=where)
    except CardError as exc:
        raise SuiteError("; ".join(exc.problems)) from None


def load_suite(path: Path) -> Suite:
    """Read a suite (JSON or YAML); `experiencesFile` is relative to the suite file."""
    data = _read_document(path)
    if not isinstance(data, dict) or not isinstance(data.get("cases"), list):
        raise SuiteError(f"{path}: a suite is a mapping with 'name', 'experiences' and 'cases'")
    raw_cards: Any = data.get("experiences")
    cards_where = str(path)
    if "experiencesFile" in data:
        cards_path = path.parent / str(data["experiencesFile"])
        cards_where = str(cards_path)
        raw_cards = _read_document(cards_path)
        if isinstance(raw_cards, dict):
            raw_cards = raw_cards.get("experiences")
    if not isinstance(raw_cards, list):
        raise SuiteError(f"{cards_where}: 'experiences' must be a list of cards")
    cards = tuple(
        parse_suite_card(raw, f"{cards_where}: experiences[{i}]") for i, raw in enumerate(raw_cards)
    )
    cases = tuple(parse_case(raw, f"{path}: cases[{i}]") for i, raw in enumerate(data["cases"]))
    if not cases:
        raise SuiteError(f"{path}: the suite has no cases; add at least one")
    _check_unique((c.id for c in cards), f"{cards_where}: card id")
    _check_unique((c.id for c in cases), f"{path}: case id")
    card_ids = {c.id for c in cards}
    for case in cases:
        unknown = [cid for cid in (*case.expected, *case.allowed_extra) if cid not in card_ids]
        if unknown:
            raise SuiteError(
                f"{path}: case {case.id} names cards the suite does not define:"
                f" {', '.join(unknown)}; add them to its experiences or fix the ids"
            )
    name = data.get("name")
    return Suite(
        name=name if isinstance(name, str) and name else path.stem,
        path=path,
        cards=cards,
        cases=cases,
    )


def _check_unique(ids: Iterable[str], what: str) -> None:
    seen: set[str] = set()
    for item in ids:
        if item in seen:
            raise SuiteError(f"{what} {item!r} appears twice; ids must be unique")
        seen.add(item)


# --- distractors ------------------------------------------------------------------------------

_QUALIFIERS = (
    "async", "batch", "cached", "distributed", "incremental", "legacy", "nightly", "offline",
    "partial", "primary", "read-only", "remote", "shared", "stale", "streaming", "temporary",
    "upstream", "versioned", "internal", "public",
)  # fmt: skip
_COMPONENTS = (
    "cache", "queue", "scheduler", "worker pool", "gateway", "parser", "serializer", "search index",
    "pipeline", "resolver", "connector", "plugin", "proxy", "router", "snapshot", "template",
    "validator", "webhook", "config loader", "build step", "release job", "test fixture",
    "database pool", "api client", "deploy script", "log shipper", "feature flag", "cron job",
    "session store", "rate limiter",
)  # fmt: skip
_ACTIONS = (
    "rotate", "throttle", "paginate", "debounce", "shard", "replay", "reconcile", "compact",
    "prune", "warm up", "drain", "rebalance", "retry", "audit", "profile", "benchmark", "pin",
    "backfill", "deprecate", "version",
)  # fmt: skip
_CONCERNS = (
    "latency", "timeouts", "quota limits", "backpressure", "checksums", "retention", "throughput",
    "consistency", "idempotency", "message ordering", "memory usage", "error budget",
    "cardinality", "log volume", "cold starts", "lock contention", "schema drift", "clock skew",
)  # fmt: skip
_CATEGORIES = (
    "performance", "reliability", "operations", "data", "tooling", "architecture",
    "observability", "maintenance",
)  # fmt: skip
_ZH_TERMS = (
    "缓存", "队列", "日志", "配置", "发布", "测试", "数据库", "接口", "性能", "超时", "重试",
    "限流", "索引", "快照",
)  # fmt: skip
_RISKS = ("low", "medium", "high")
_ZH_ALIAS_SHARE = 0.3


def noise_card_id(number: int) -> str:
    return f"{NOISE_PREFIX}{number:04d}"


def generate_noise_cards(count: int) -> tuple[Card, ...]:
    """`count` plausible distractor cards from generic engineering words, seeded by `count`."""
    rng = random.Random(count)
    cards = []
    for number in range(1, count + 1):
        qualifier = rng.choice(_QUALIFIERS)
        component, other = rng.sample(_COMPONENTS, 2)
        action, action2 = rng.sample(_ACTIONS, 2)
        concern, concern2 = rng.sample(_CONCERNS, 2)
        mapping: dict[str, Any] = {
            "id": noise_card_id(number),
            "title": f"{action.capitalize()} the {qualifier} {component} to contain {concern}",
            "category": rng.choice(_CATEGORIES),
            "summary": (
                f"When the {qualifier} {component} shows {concern}, {action} it in small steps"
                f" and compare {concern2} before and after each change."
            ),
            "criteria": {
                "use_when": [
                    f"the {qualifier} {component} suffers from {concern}",
                    f"{action2} the {component} after an incident",
                ],
                "ignore_when": [f"{other} only"],
            },
            "recall": {
                "policy": "should",
                "risk": rng.choice(_RISKS),
                "confidence": "medium",
                "triggers": [
                    f"{qualifier} {component}",
                    f"{action} {component}",
                    f"{component} {concern}",
                ],
                "topics": [component.split()[0], concern.split()[0]],
            },
            "rule": (
                f"Measure {concern} on the {qualifier} {component} first, {action} it in small"
                f" steps, and keep the {concern2} baseline in the change description."
            ),
        }
        if rng.random() < _ZH_ALIAS_SHARE:
            first, second = rng.sample(_ZH_TERMS, 2)
            mapping["recall"]["aliases"] = {"zh-CN": [f"{first}{second}"]}
        cards.append(card_from_mapping(mapping, source=f"noise card {number}"))
    return tuple(cards)


# --- outcomes and metrics (pure) --------------------------------------------------------------


ExplanationKind = Literal["missing", "unexpected"]
# The rejection shown for a card that shared no query term with the prompt (never scored).
NOT_RETRIEVED = "not_retrieved"


@dataclass(frozen=True, slots=True)
class Explanation:
    """Why an expected card was missing or an unexpected one was returned (from `--explain`)."""

    id: str
    kind: ExplanationKind
    score: int | None
    rejection: str
    families: tuple[str, ...] = ()
    failed_gates: tuple[str, ...] = ()
    evidence: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CaseOutcome:
    """What recall returned for one case (ids in rank order) and what it cost."""

    case: SuiteCase
    returned: tuple[str, ...]
    scores: tuple[tuple[str, int], ...] = ()
    context_chars: int = 0
    abstain_reason: str = ""
    threshold: int = params.DEFAULT_THRESHOLD
    elapsed_ms: float = 0.0
    explanations: tuple[Explanation, ...] = ()
    suite: str = ""

    @property
    def missing(self) -> tuple[str, ...]:
        return missing_cards(self.case, self.returned)

    @property
    def unexpected(self) -> tuple[str, ...]:
        return unexpected_cards(self.case, self.returned)

    @property
    def passed(self) -> bool:
        return case_passed(self.case, self.returned)


def missing_cards(case: SuiteCase, returned: Sequence[str]) -> tuple[str, ...]:
    """Expected cards recall did not return."""
    return tuple(cid for cid in case.expected if cid not in returned)


def unexpected_cards(case: SuiteCase, returned: Sequence[str]) -> tuple[str, ...]:
    """Returned cards that are neither expected nor allowed extras (all, if it expects nothing)."""
    if case.expects_nothing:
        return tuple(returned)
    allowed = set(case.allowed_extra) - set(case.forbidden)
    return tuple(cid for cid in returned if cid not in case.expected and cid not in allowed)


def case_passed(case: SuiteCase, returned: Sequence[str]) -> bool:
    """SPEC §8: every expected card returned and nothing else, except allowed extras."""
    return not missing_cards(case, returned) and not unexpected_cards(case, returned)


def _mean(values: Sequence[float], vacuous: float) -> float:
    return sum(values) / len(values) if values else vacuous


def _with_expectations(outcomes: Sequence[CaseOutcome]) -> list[CaseOutcome]:
    return [o for o in outcomes if o.case.expected]


def _expecting_nothing(outcomes: Sequence[CaseOutcome]) -> list[CaseOutcome]:
    return [o for o in outcomes if o.case.expects_nothing]


def pass_rate(outcomes: Sequence[CaseOutcome]) -> float:
    return _mean([float(o.passed) for o in outcomes], 1.0)


def precision_at_k(outcomes: Sequence[CaseOutcome]) -> float:
    """Share of returned cards that were expected or allowed, over cases that returned any."""
    return _mean([1 - len(o.unexpected) / len(o.returned) for o in outcomes if o.returned], 1.0)


def recall_at_k(outcomes: Sequence[CaseOutcome]) -> float:
    return _mean(
        [
            sum(1 for cid in o.case.expected if cid in o.returned) / len(o.case.expected)
            for o in _with_expectations(outcomes)
        ],
        1.0,
    )


def reciprocal_rank(expected: Sequence[str], returned: Sequence[str]) -> float:
    """1 / rank of the first expected card in `returned`, 0 when none is there."""
    for rank, cid in enumerate(returned, start=1):
        if cid in expected:
            return 1 / rank
    return 0.0


def mean_reciprocal_rank(outcomes: Sequence[CaseOutcome]) -> float:
    return _mean(
        [reciprocal_rank(o.case.expected, o.returned) for o in _with_expectations(outcomes)], 1.0
    )


def ndcg(expected: Sequence[str], returned: Sequence[str], k: int) -> float:
    """nDCG@k with binary gains and a log2(rank + 1) discount (Järvelin & Kekäläinen 2002)."""
    dcg = sum(
        1 / math.log2(rank + 1) for rank, cid in enumerate(returned[:k], start=1) if cid in expected
    )
    ideal = sum(1 / math.log2(rank + 1) for rank in range(1, min(len(expected), k) + 1))
    return dcg / ideal if ideal else 0.0


def ndcg_at_k(outcomes: Sequence[CaseOutcome], k: int) -> float:
    return _mean([ndcg(o.case.expected, o.returned, k) for o in _with_expectations(outcomes)], 1.0)


def false_positive_rate(outcomes: Sequence[CaseOutcome]) -> float:
    return _mean([float(bool(o.returned)) for o in _expecting_nothing(outcomes)], 0.0)


def no_hit_rate(outcomes: Sequence[CaseOutcome]) -> float:
    return _mean([float(not o.returned) for o in _with_expectations(outcomes)], 0.0)


def over_recall_rate(outcomes: Sequence[CaseOutcome]) -> float:
    return _mean([float(bool(o.unexpected)) for o in outcomes], 0.0)


def abstention_accuracy(outcomes: Sequence[CaseOutcome]) -> float:
    return _mean([float(not o.returned) for o in _expecting_nothing(outcomes)], 1.0)


@dataclass(frozen=True, slots=True)
class Metrics:
    """The report's metrics block; see the module docstring for each definition."""

    pass_rate: float
    precision_at_k: float
    recall_at_k: float
    mrr: float
    ndcg_at_k: float
    false_positive_rate: float
    no_hit_rate: float
    over_recall_rate: float
    abstention_accuracy: float
    avg_returned_cards: float
    avg_context_chars: float
    p50_ms: float
    p95_ms: float


def compute_metrics(outcomes: Sequence[CaseOutcome], k: int) -> Metrics:
    """All metrics of a set of case outcomes at cut-off k (the recall limit)."""
    timings = [o.elapsed_ms for o in outcomes]
    return Metrics(
        pass_rate=pass_rate(outcomes),
        precision_at_k=precision_at_k(outcomes),
        recall_at_k=recall_at_k(outcomes),
        mrr=mean_reciprocal_rank(outcomes),
        ndcg_at_k=ndcg_at_k(outcomes, k),
        false_positive_rate=false_positive_rate(outcomes),
        no_hit_rate=no_hit_rate(outcomes),
        over_recall_rate=over_recall_rate(outcomes),
        abstention_accuracy=abstention_accuracy(outcomes),
        avg_returned_cards=_mean([float(len(o.returned)) for o in outcomes], 0.0),
        avg_context_chars=_mean([float(o.context_chars) for o in outcomes], 0.0),
        p50_ms=percentile(timings, 50),
        p95_ms=percentile(timings, 95),
    )


def metrics_json(metrics: Metrics) -> dict[str, float]:
    """The metrics block, rounded once for output."""
    return {
        name: round(getattr(metrics, name), MS_DIGITS if name in TIMING_METRICS else METRIC_DIGITS)
        for name in METRIC_NAMES
    }


def pass_rate_groups(
    outcomes: Sequence[CaseOutcome], key: Literal["difficulty", "tags"]
) -> dict[str, dict[str, float]]:
    """`{group: {cases, passed, pass_rate}}` by difficulty, or by tag (a case counts per tag)."""
    groups: dict[str, list[bool]] = {}
    for o in outcomes:
        names = o.case.tags if key == "tags" else (o.case.difficulty,)
        for name in names:
            groups.setdefault(name, []).append(o.passed)
    return {
        name: {
            "cases": len(passes),
            "passed": sum(passes),
            "pass_rate": round(sum(passes) / len(passes), METRIC_DIGITS),
        }
        for name, passes in sorted(groups.items())
    }


# --- running ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SuiteRun:
    """One suite's outcomes and the size of the library it ran against."""

    suite: Suite
    library_size: int
    outcomes: tuple[CaseOutcome, ...]
    limit: int
    threshold: int


@dataclass(frozen=True, slots=True)
class Evaluation:
    """Every suite run, with the limit and default threshold they used."""

    runs: tuple[SuiteRun, ...]
    limit: int
    threshold: int
    noise: int = 0

    @property
    def outcomes(self) -> tuple[CaseOutcome, ...]:
        return tuple(o for run in self.runs for o in run.outcomes)


def card_file_text(card: Card) -> str:
    """The Markdown card file of a suite card (front matter as YAML, then the body)."""
    import yaml

    front = yaml.safe_dump(card_front_matter(card), allow_unicode=True, sort_keys=False, width=1000)
    return f"---\n{front}---\n\n{render_body(card)}"


def write_library(data_dir: Path, cards: Sequence[Card]) -> None:
    """A data dir holding exactly these cards (starter cards off), each checked to round-trip."""
    (data_dir / "config.yaml").parent.mkdir(parents=True, exist_ok=True)
    (data_dir / "config.yaml").write_text("library:\n  starter_cards: false\n", encoding="utf-8")
    for card in cards:
        folder = data_dir / "experiences" / card.status
        folder.mkdir(parents=True, exist_ok=True)
        text = card_file_text(card)
        if parse_card_text(text, card.id, expected_id=card.id).rule != card.rule:
            raise SuiteError(
                f"card {card.id}: its rule does not survive being written as a card file;"
                " remove ``` fences from the rule"
            )
        (folder / f"{card.id}.md").write_text(text, encoding="utf-8")


def _explain(result_doc: Mapping[str, Any], outcome: CaseOutcome) -> tuple[Explanation, ...]:
    candidates: dict[str, Mapping[str, Any]] = {}
    for cand in result_doc["diagnostics"]["candidates"]:
        candidates.setdefault(cand["id"], cand)
    wanted: list[tuple[str, ExplanationKind]] = [(cid, "missing") for cid in outcome.missing]
    wanted += [(cid, "unexpected") for cid in outcome.unexpected]
    explanations = []
    for cid, kind in wanted:
        cand = candidates.get(cid)
        if cand is None:
            explanations.append(Explanation(cid, kind, None, NOT_RETRIEVED))
            continue
        explanations.append(
            Explanation(
                id=cid,
                kind=kind,
                score=int(cand["score"]),
                rejection=cand["rejection"] or "returned",
                families=tuple(cand["families"]),
                failed_gates=tuple(
                    f"{g['gate']}: {g['detail']}" if g["detail"] else g["gate"]
                    for g in cand["gates"]
                    if not g["passed"]
                ),
                evidence=tuple(
                    f"{e['family']} {e['strength']:g} {e['detail']}".rstrip()
                    for e in cand["evidence"]
                ),
            )
        )
    return tuple(explanations)


def run_case(
    workspace: Workspace, case: SuiteCase, limit: int | None, threshold: int | None, suite: str
) -> CaseOutcome:
    """Recall one case as the hook would, timing only `match_prompt`."""
    options = recall_options(
        workspace, limit, case.threshold if case.threshold is not None else threshold
    )
    started = time.perf_counter()
    result = match_prompt(workspace, case.prompt, options)
    elapsed_ms = (time.perf_counter() - started) * 1000
    context = result.context.replace(str(workspace.data_dir), DISPLAY_DATA_DIR)
    outcome = CaseOutcome(
        case=case,
        returned=tuple(m.id for m in result.matches),
        scores=tuple((m.id, m.score) for m in result.matches),
        context_chars=len(context),
        abstain_reason=result.abstain_reason,
        threshold=options.threshold,
        elapsed_ms=elapsed_ms,
        suite=suite,
    )
    if outcome.passed:
        return outcome
    return replace(outcome, explanations=_explain(result_json(result, explain=True), outcome))


def run_suite(
    suite: Suite,
    limit: int | None = None,
    threshold: int | None = None,
    noise: int = 0,
    tmp_root: Path | None = None,
) -> SuiteRun:
    """Run every case of a suite in a fresh temporary library, removed afterwards."""
    distractors = generate_noise_cards(noise) if noise else ()
    clash = {c.id for c in suite.cards} & {c.id for c in distractors}
    if clash:
        raise SuiteError(
            f"{suite.path}: card ids {', '.join(sorted(clash))} clash with --noise distractors;"
            f" rename them (ids starting with '{NOISE_PREFIX}' are reserved)"
        )
    cards = (*suite.cards, *distractors)
    with tempfile.TemporaryDirectory(prefix="ome-eval-", dir=tmp_root) as tmp:
        root = Path(tmp).absolute()
        data_dir = root / "data"
        # A project root inside the temp dir, so no library above it can leak into the run.
        project = root / "project"
        (project / ".oh-my-experience").mkdir(parents=True)
        write_library(data_dir, cards)
        workspaces = {project: open_workspace(data_dir=data_dir, cwd=project)}
        outcomes = []
        for case in suite.cases:
            cwd = (suite.path.parent / case.cwd).absolute() if case.cwd else project
            if cwd not in workspaces:
                workspaces[cwd] = open_workspace(data_dir=data_dir, cwd=cwd)
            outcomes.append(run_case(workspaces[cwd], case, limit, threshold, suite.name))
        options = recall_options(workspaces[project], limit, threshold)
        return SuiteRun(
            suite=suite,
            library_size=workspaces[project].index.size,
            outcomes=tuple(outcomes),
            limit=options.limit,
            threshold=options.threshold,
        )


def evaluate_suites(
    paths: Sequence[Path],
    limit: int | None = None,
    threshold: int | None = None,
    noise: int = 0,
    tmp_root: Path | None = None,
) -> Evaluation:
    """Load and run each suite; the limit and threshold default to the product defaults."""
    if not paths:
        raise SuiteError("no suite given; pass --suite FILE")
    suites = [load_suite(Path(p)) for p in paths]
    runs = tuple(run_suite(s, limit, threshold, noise, tmp_root) for s in suites)
    return Evaluation(runs=runs, limit=runs[0].limit, threshold=runs[0].threshold, noise=noise)


# --- the report -------------------------------------------------------------------------------


def case_json(outcome: CaseOutcome) -> dict[str, Any]:
    case = outcome.case
    return {
        "id": case.id,
        "suite": outcome.suite,
        "prompt": case.prompt,
        "passed": outcome.passed,
        "expected": list(case.expected),
        "allowed_extra": list(case.allowed_extra),
        "expects_nothing": case.expects_nothing,
        "returned": list(outcome.returned),
        "missing": list(outcome.missing),
        "unexpected": list(outcome.unexpected),
        "scores": dict(outcome.scores),
        "tags": list(case.tags),
        "difficulty": case.difficulty,
        "threshold": outcome.threshold,
        "context_chars": outcome.context_chars,
        "abstain_reason": outcome.abstain_reason,
        "explain": [
            {
                "id": e.id,
                "kind": e.kind,
                "score": e.score,
                "rejection": e.rejection,
                "families": list(e.families),
                "failed_gates": list(e.failed_gates),
                "evidence": list(e.evidence),
            }
            for e in outcome.explanations
        ],
        "ms": round(outcome.elapsed_ms, MS_DIGITS),
    }


def report_json(evaluation: Evaluation) -> dict[str, Any]:
    """The `--json` report: pooled metrics and cases at the top level, one block per suite."""
    k = evaluation.limit
    outcomes = evaluation.outcomes
    return {
        "suite": "+".join(run.suite.name for run in evaluation.runs),
        "engine": params.ENGINE_VERSION,
        "limit": evaluation.limit,
        "threshold": evaluation.threshold,
        "noise": evaluation.noise,
        "metrics": metrics_json(compute_metrics(outcomes, k)),
        "by_difficulty": pass_rate_groups(outcomes, "difficulty"),
        "by_tag": pass_rate_groups(outcomes, "tags"),
        "cases": [case_json(o) for o in outcomes],
        "suites": [
            {
                "suite": run.suite.name,
                "cards": run.library_size,
                "cases": len(run.outcomes),
                "passed": sum(o.passed for o in run.outcomes),
                "metrics": metrics_json(compute_metrics(run.outcomes, k)),
                "by_difficulty": pass_rate_groups(run.outcomes, "difficulty"),
                "by_tag": pass_rate_groups(run.outcomes, "tags"),
            }
            for run in evaluation.runs
        ],
    }


def check_bounds(
    metrics: Mapping[str, float], limits: Mapping[str, float | None]
) -> tuple[str, ...]:
    """One message per missed bound, e.g. `pass_rate 0.83 < --min-pass-rate 0.9`."""
    missed = []
    for bound in BOUNDS:
        limit = limits.get(bound.metric)
        if limit is None:
            continue
        value = metrics[bound.metric]
        if bound.kind == "min" and value < limit:
            missed.append(f"{bound.metric} {value:g} < {bound.flag} {limit:g}")
        elif bound.kind == "max" and value > limit:
            missed.append(f"{bound.metric} {value:g} > {bound.flag} {limit:g}")
    return tuple(missed)


# --- comparing two saved reports --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Comparison:
    """Regressions fail `--compare`; changes list every metric that moved, for reading."""

    regressions: tuple[str, ...]
    changes: tuple[str, ...]


def read_report(path: Path) -> dict[str, Any]:
    """A saved `ome eval recall --json` report."""
    data = _read_document(path)
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("metrics"), dict)
        or not isinstance(data.get("cases"), list)
    ):
        raise SuiteError(f"{path}: not a report; save one with `ome eval recall --json > FILE`")
    return data


def _case_results(report: Mapping[str, Any]) -> dict[tuple[str, str], bool]:
    default_suite = str(report.get("suite", ""))
    return {
        (str(c.get("suite") or default_suite), str(c["id"])): bool(c.get("passed"))
        for c in report["cases"]
    }


def compare_reports(old: Mapping[str, Any], new: Mapping[str, Any]) -> Comparison:
    """Direction-aware metric regressions (timings excluded) and cases that went pass -> fail."""
    regressions, changes = [], []
    for name in (*HIGHER_IS_BETTER, *LOWER_IS_BETTER):
        before, after = old["metrics"].get(name), new["metrics"].get(name)
        if not isinstance(before, (int, float)) or not isinstance(after, (int, float)):
            continue
        if before == after:
            continue
        worse = after < before if name in HIGHER_IS_BETTER else after > before
        better = "higher" if name in HIGHER_IS_BETTER else "lower"
        line = f"{name} {before:g} -> {after:g} ({better} is better)"
        changes.append(line)
        if worse and name not in TIMING_METRICS:
            regressions.append(line)
    old_cases, new_cases = _case_results(old), _case_results(new)
    for key in sorted(old_cases):
        if old_cases[key] and new_cases.get(key) is False:
            regressions.append(f"case {key[0]}/{key[1]} passed before and fails now")
    return Comparison(tuple(regressions), tuple(changes))


__all__ = [
    "BOUNDS",
    "Bound",
    "CaseOutcome",
    "Comparison",
    "Evaluation",
    "Explanation",
    "METRIC_NAMES",
    "Metrics",
    "Suite",
    "SuiteCase",
    "SuiteRun",
    "abstention_accuracy",
    "card_file_text",
    "case_json",
    "case_passed",
    "check_bounds",
    "compare_reports",
    "compute_metrics",
    "evaluate_suites",
    "false_positive_rate",
    "generate_noise_cards",
    "load_suite",
    "mean_reciprocal_rank",
    "metrics_json",
    "missing_cards",
    "ndcg",
    "ndcg_at_k",
    "no_hit_rate",
    "noise_card_id",
    "over_recall_rate",
    "parse_case",
    "parse_suite_card",
    "pass_rate",
    "pass_rate_groups",
    "precision_at_k",
    "read_report",
    "recall_at_k",
    "reciprocal_rank",
    "report_json",
    "run_case",
    "run_suite",
    "unexpected_cards",
    "write_library",
]
