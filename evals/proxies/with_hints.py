"""Copies of proxy suites whose cards carry `engine_hints`, as the reference suites' cards do.

No proxy card has hints: the helpers who wrote them were told not to add any. The reference
suites' cards mostly do, and an author's routed hint gates a card whose signal the prompt does
not fire, so this writes each suite again with every card's `engine_hints.positive` set to the
specific signals (registry weight >= HINTED_SIGNAL_MIN_WEIGHT) whose concepts its description
names, the hints an author might pick. Run the copies like any suite:

    python evals/proxies/with_hints.py OUT evals/proxies/*.json
    ome eval recall --suite OUT/newv.json
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from ome.api import open_workspace
from ome.evaluate import load_suite, write_library
from ome.selection import described_signals


def concept_hints(suite_path: Path) -> dict[str, list[str]]:
    """Card id -> the specific signals whose concepts the card's description names."""
    suite = load_suite(suite_path)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_library(root / "data", suite.cards)
        workspace = open_workspace(data_dir=root / "data", cwd=root)
        return {
            card.id: sorted(signals)
            for card in workspace.index.cards
            if (signals := described_signals(card, workspace.registry))
        }


def write_hinted(suite_path: Path, out: Path) -> int:
    """Write the suite and its hinted cards file into `out`; return how many cards took hints."""
    doc = json.loads(suite_path.read_text(encoding="utf-8"))
    cards_path = suite_path.parent / doc["experiencesFile"]
    cards = json.loads(cards_path.read_text(encoding="utf-8"))
    hints = concept_hints(suite_path)
    for card in cards["experiences"]:
        if card["id"] in hints:
            card["engine_hints"] = {"positive": hints[card["id"]]}
    doc["experiencesFile"] = f"./{cards_path.name}"
    for path, data in ((out / cards_path.name, cards), (out / suite_path.name, doc)):
        path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return len(hints)


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: with_hints.py OUT SUITE.json...", file=sys.stderr)
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    for name in argv[1:]:
        path = Path(name)
        if path.name.endswith(".cards.json"):
            continue
        print(f"{path.stem}: {write_hinted(path, out)} cards hinted")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
