"""The library-level entry points the command line, the hook and the evaluator share.

`open_workspace` gathers config, libraries, the signal registry and the card index for a
working directory; `match_prompt` runs recall exactly as the hook does.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ome import params
from ome.cache import (
    card_keys,
    load_index,
    load_matcher,
    load_registry_cached,
    spawn_builder,
)
from ome.concepts import ConceptMatcher
from ome.config import CACHE_DIR, Config, load_config_cached, resolve_data_dir
from ome.engine import RecallOptions, RecallResult, recall
from ome.index import CardIndex, build_index, index_card
from ome.library import InvalidCard, Library, find_project_root, library_sources
from ome.signals import Registry


@dataclass(frozen=True, slots=True)
class Workspace:
    """Everything recall needs for one working directory."""

    data_dir: Path
    config: Config
    project_root: Path | None
    registry: Registry
    matcher: ConceptMatcher
    library: Library
    index: CardIndex

    @property
    def invalid(self) -> tuple[InvalidCard, ...]:
        return self.library.invalid


@functools.lru_cache(maxsize=4)
def _matcher_for(digest: str, registry: Registry) -> ConceptMatcher:
    return registry.vocabulary.concept_matcher()


def concept_matcher(registry: Registry) -> ConceptMatcher:
    """The concept matcher of a registry, built once per process and registry digest."""
    return _matcher_for(registry.digest, registry)


def index_library(library: Library, registry: Registry, matcher: ConceptMatcher) -> CardIndex:
    """Analyse every loaded card into a card index."""
    vocabulary = registry.vocabulary
    return build_index(
        (index_card(cf.card, cf.layer, str(cf.path), matcher, vocabulary) for cf in library.cards),
        registry.digest,
    )


def open_workspace(
    data_dir: str | Path | None = None,
    cwd: str | Path | None = None,
    deadline: float | None = None,
) -> Workspace:
    """Resolve the data dir and project, load registry and cards, and index them.

    Cards come from the compiled index in `<data dir>/cache/` (only new or changed files are
    parsed). With a `deadline` (`time.monotonic()` value) parsing stops there and a background
    builder finishes the index; without a data dir to write to, everything is parsed in memory.
    """
    resolved = resolve_data_dir(data_dir)
    cache_dir = resolved / CACHE_DIR if resolved.is_dir() else None
    config = load_config_cached(resolved, cache_dir)
    project_root = find_project_root(Path(cwd or Path.cwd()), resolved)
    registry = load_registry_cached(resolved, project_root, cache_dir)
    matcher = load_matcher(registry, cache_dir)
    loaded = load_index(
        library_sources(config, project_root), registry, matcher, cache_dir, deadline
    )
    if loaded.stats.pending and cache_dir is not None:
        spawn_builder(resolved, project_root, cache_dir)
    return Workspace(
        data_dir=resolved,
        config=config,
        project_root=project_root,
        registry=registry,
        matcher=matcher,
        library=loaded.library,
        index=loaded.index,
    )


def library_keys(workspace: Workspace) -> tuple[tuple[str, str], ...]:
    """(id, path) of every searched card, without decoding cached cards (for fingerprints)."""
    return card_keys(workspace.library.cards)


def recall_options(
    workspace: Workspace,
    limit: int | None = None,
    threshold: int | None = None,
    budget_chars: int | None = None,
    reminder_ids: frozenset[str] = frozenset(),
) -> RecallOptions:
    """Options from explicit values, else the workspace config, else the product defaults."""
    config = workspace.config
    return RecallOptions(
        limit=limit if limit is not None else config.limit,
        threshold=threshold if threshold is not None else config.threshold,
        budget_chars=min(
            budget_chars if budget_chars is not None else config.budget_chars,
            params.MAX_BUDGET_CHARS,
        ),
        reminder_ids=reminder_ids,
    )


def match_prompt(workspace: Workspace, prompt: str, options: RecallOptions) -> RecallResult:
    """Run recall on the workspace's index."""
    return recall(workspace.index, workspace.registry, workspace.matcher, prompt, options)


def result_json(result: RecallResult, explain: bool = False) -> dict[str, Any]:
    """The `ome match --json` document (snake_case keys; `--explain` adds diagnostics)."""
    doc: dict[str, Any] = {
        "ok": True,
        "engine": params.ENGINE_VERSION,
        "matches": [
            {
                "id": m.id,
                "title": m.title,
                "score": m.score,
                "layer": m.layer,
                "path": m.path,
                "policy": m.policy,
                "risk": m.risk,
                "families": list(m.families),
                "matched_by": list(m.matched_by),
            }
            for m in result.matches
        ],
        "context": result.context,
        "abstain_reason": result.abstain_reason,
    }
    if not explain:
        return doc
    env = result.envelope
    doc["envelope"] = (
        {
            "language": env.language,
            "files": list(env.files),
            "commands": list(env.commands),
            "symbols": list(env.symbols),
            "exclusion_spans": [env.text[a:b] for a, b in env.exclusion_spans],
            "signals": list(env.fired),
            "suppressed_signals": [{"id": s.id, "by": s.by} for s in env.detection.suppressed],
            "intent_modes": list(env.intent_modes),
            "task_types": list(env.task_types),
            "surfaces": list(env.surfaces),
            "operations": list(env.operations),
            "concepts": list(env.concepts),
            "keywords": list(env.keywords),
            "segments": len(env.segments),
            "clauses": len(env.clauses),
            "long_prompt": env.long_prompt,
            "multi_task": env.multi_task,
        }
        if env is not None
        else None
    )
    doc["variants"] = [
        {"name": name, "weight": weight, "terms": list(terms)}
        for name, weight, terms in result.variants
    ]
    opts = result.options
    doc["diagnostics"] = {
        "engine_version": params.ENGINE_VERSION,
        "threshold": opts.threshold,
        "limit": opts.limit,
        "budget_chars": opts.budget_chars,
        "abstain_reason": result.abstain_reason,
        "counts": {
            "library": result.library_size,
            "candidates": len(result.candidates),
            "admitted": sum(1 for c in result.candidates if c.assessment.admitted),
            "returned": len(result.matches),
        },
        "selected_ids": [m.id for m in result.matches],
        "candidates": [
            {
                "id": c.id,
                "layer": c.assessment.card.layer,
                "score": c.assessment.score,
                "bm25f": c.bm25f,
                "bm25f_rank": c.bm25f_rank,
                "evidence_rank": c.evidence_rank,
                "fused": c.fused,
                "strong_anchor": c.assessment.strong_anchor,
                "loose_anchor": c.assessment.loose_anchor,
                "edited_since_verified": c.assessment.card.card.edited_since_verified,
                "families": list(c.assessment.families),
                "evidence": [
                    {"family": e.family, "strength": round(e.strength, 4), "detail": e.detail}
                    for e in c.assessment.evidence
                ],
                "penalty": round(c.assessment.penalty, 4),
                "gates": [
                    {"gate": g.name, "passed": g.passed, "detail": g.detail}
                    for g in c.assessment.gates
                ],
                "selected": c.selected,
                "rejection": c.rejection,
            }
            for c in result.candidates
        ],
    }
    return doc


__all__ = [
    "Workspace",
    "concept_matcher",
    "index_library",
    "library_keys",
    "match_prompt",
    "open_workspace",
    "recall_options",
    "result_json",
]
