"""The HTML report: self-contained, escaped, failing cases first, readable in a real browser."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import REFERENCE_SUITES, needs_reference

from ome.evaluate import METRIC_NAMES
from ome.report_html import bar_chart, render_report_html

EXTERNAL = re.compile(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", re.IGNORECASE)


def hand_report() -> dict[str, Any]:
    return {
        "suite": "hand",
        "engine": "ome-sparse-1",
        "limit": 4,
        "threshold": 40,
        "noise": 0,
        "metrics": dict.fromkeys(METRIC_NAMES, 0.5),
        "by_difficulty": {"easy": {"cases": 2, "passed": 1, "pass_rate": 0.5}},
        "by_tag": {"git": {"cases": 1, "passed": 1, "pass_rate": 1.0}},
        "suites": [{"suite": "hand", "cards": 3, "cases": 2, "passed": 1, "metrics": {}}],
        "cases": [
            {
                "id": "ok-case",
                "suite": "hand",
                "prompt": "git push --force to main",
                "passed": True,
                "expected": ["force-push"],
                "returned": ["force-push"],
                "missing": [],
                "unexpected": [],
                "scores": {"force-push": 90},
                "tags": ["git"],
                "difficulty": "easy",
                "abstain_reason": "",
                "explain": [],
            },
            {
                "id": "bad-case",
                "suite": "hand",
                "prompt": '<script>alert("x")</script> see https://example.com',
                "passed": False,
                "expected": ["browser-check"],
                "returned": ["force-push"],
                "missing": ["browser-check"],
                "unexpected": ["force-push"],
                "scores": {"force-push": 41},
                "tags": [],
                "difficulty": "easy",
                "abstain_reason": "",
                "explain": [
                    {
                        "id": "browser-check",
                        "kind": "missing",
                        "score": 22,
                        "rejection": "below_threshold",
                        "families": ["overlap"],
                        "failed_gates": [],
                        "evidence": [],
                    },
                    {
                        "id": "force-push",
                        "kind": "unexpected",
                        "score": 41,
                        "rejection": "returned",
                        "families": ["exact", "signals"],
                        "failed_gates": [],
                        "evidence": [],
                    },
                ],
            },
        ],
    }


def test_page_is_self_contained_and_has_tables() -> None:
    page = render_report_html(hand_report())
    assert page.startswith("<!doctype html>")
    assert "<table" in page and "<svg" in page and "<style>" in page
    assert not EXTERNAL.search(page)
    assert "<script" not in page and "<link" not in page


def test_prompt_is_escaped_and_failures_come_first() -> None:
    page = render_report_html(hand_report())
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    assert page.index("bad-case") < page.index("ok-case")
    assert "below_threshold" in page and "exact, signals" in page


def test_bar_chart_lengths_follow_pass_rate() -> None:
    svg = bar_chart("t", {"a": {"cases": 4, "passed": 1, "pass_rate": 0.25}})
    assert 'width="82.5"' in svg and "1/4 (25%)" in svg
    assert "no cases" in bar_chart("t", {})


@needs_reference
def test_cli_report_renders_in_headless_chromium(tmp_path: Path) -> None:
    """A real run written by a real `ome` process, screenshotted by a real browser."""
    out = tmp_path / "report.html"
    run = subprocess.run(
        [sys.executable, "-m", "ome", "eval", "recall", "--html", str(out), "--noise", "5",
         *(arg for p in REFERENCE_SUITES for arg in ("--suite", str(p)))],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    page = out.read_text(encoding="utf-8")
    assert "<table" in page and not EXTERNAL.search(page)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("chromium is not installed (apt-get install chromium) to render the page")
    png = tmp_path / "shot.png"
    subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={png}",
         "--window-size=1280,2000", out.as_uri()],
        capture_output=True, timeout=120, check=True,
    )  # fmt: skip
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert png.stat().st_size > 20_000  # a blank page is a few kilobytes
