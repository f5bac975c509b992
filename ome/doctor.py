"""`ome doctor`: a health check of the data dir, config, libraries, signal registry and hooks."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ome.config import load_config, resolve_data_dir
from ome.errors import OmeError
from ome.library import find_project_root, library_sources, load_library
from ome.lint import card_warnings

Status = Literal["ok", "warning", "error"]


@dataclass(frozen=True, slots=True)
class Check:
    """One doctor check: a name, its status, a one-line message, and detail lines."""

    name: str
    status: Status
    message: str
    details: tuple[str, ...] = field(default=())


def run_doctor(data_dir: str | Path | None, cwd: Path) -> tuple[Check, ...]:
    """Run every check; never raises for a broken library, it reports it."""
    from ome.install import hook_checks  # deferred: install imports Check from here
    from ome.registry import build_bundled_registry, load_registry

    checks: list[Check] = []
    root = resolve_data_dir(data_dir)
    if not root.is_dir():
        checks.append(
            Check("data_dir", "warning", f"{root} does not exist; run `ome init` to create it")
        )
    elif not os.access(root, os.W_OK):
        checks.append(Check("data_dir", "error", f"{root} is not writable; fix its permissions"))
    else:
        checks.append(Check("data_dir", "ok", str(root)))
    try:
        config = load_config(root)
        checks.append(Check("config", "ok", "settings readable"))
    except OmeError as exc:
        checks.append(Check("config", "error", str(exc)))
        return tuple(checks)
    project_root = find_project_root(cwd, root)
    try:
        registry = load_registry(root, project_root)
        stale = build_bundled_registry(check=True)
        status: Status = "ok" if not stale.stale else "warning"
        message = f"{len(registry.signals)} signals"
        if stale.stale:
            message += "; the bundled registry is stale: run `ome signals build`"
        checks.append(Check("signals", status, message))
    except OmeError as exc:
        checks.append(Check("signals", "error", str(exc)))
        return tuple(checks)
    library = load_library(library_sources(config, project_root))
    layers = sorted({c.layer for c in library.cards})
    checks.append(
        Check(
            "library",
            "ok" if library.cards else "warning",
            f"{len(library.cards)} active cards ({', '.join(layers) or 'none'})",
            tuple(str(s.root) for s in library.sources),
        )
    )
    if library.invalid:
        checks.append(
            Check(
                "invalid_cards",
                "error",
                f"{len(library.invalid)} card file(s) skipped; fix them (other cards still work)",
                tuple(p for i in library.invalid for p in i.problems),
            )
        )
    warnings = [
        f
        for cf in library.cards
        for f in card_warnings(cf.card, str(cf.path), registry)
        if f.code == "unknown_signal"
    ]
    checks.append(
        Check(
            "unknown_signals",
            "warning" if warnings else "ok",
            f"{len(warnings)} unknown signal id(s) in cards" if warnings else "all hints known",
            tuple(f"{w.path}: {w.message}" for w in warnings),
        )
    )
    checks.extend(hook_checks(root, cwd))
    checks.append(_server_check(str(root), bool(config.get("hook.server"))))
    return tuple(checks)


def _server_check(root: str, enabled: bool) -> Check:
    """Whether the warm hook server is on, running, or unavailable here (never an error)."""
    from ome import server

    state = server.status(root)
    if not enabled or not state["enabled_by_env"]:
        return Check("hook_server", "ok", "off: every hook run works alone")
    if state["socket"] is None:
        return Check(
            "hook_server", "ok", "unavailable here (no Unix sockets, or the data dir path is long)"
        )
    if state["running"]:
        return Check("hook_server", "ok", f"running (pid {state['pid']}) on {state['socket']}")
    return Check("hook_server", "ok", "not running; the next hook run starts it")


__all__ = ["Check", "run_doctor"]
