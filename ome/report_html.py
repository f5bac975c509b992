"""A self-contained HTML page for an `ome eval recall` report: no external URL, inline CSS, SVG.

Pure rendering of the report dict (`ome.evaluate.report_json`): metrics first, pass-rate charts
by tag and difficulty, then every case with the failing ones first and why they failed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

METRIC_HELP: Mapping[str, str] = {
    "pass_rate": "cases that returned every expected card and nothing unexpected",
    "precision_at_k": "returned cards that were expected or allowed (cases returning any)",
    "recall_at_k": "expected cards returned (cases with expectations)",
    "mrr": "1 / rank of the first expected card",
    "ndcg_at_k": "rank quality with binary gains",
    "false_positive_rate": "no-match cases that returned a card (lower is better)",
    "no_hit_rate": "cases with expectations that returned nothing (lower is better)",
    "over_recall_rate": "cases that returned an unexpected card (lower is better)",
    "abstention_accuracy": "no-match cases that returned nothing",
    "avg_returned_cards": "cards returned per case",
    "avg_context_chars": "characters of injected context per case",
    "p50_ms": "median recall time per case (ms)",
    "p95_ms": "95th percentile recall time per case (ms)",
}
RATE_METRICS = ("pass_rate", "precision_at_k", "recall_at_k", "false_positive_rate")

CHART_WIDTH = 640
CHART_LABEL_WIDTH = 170
CHART_BAR_WIDTH = 330
CHART_ROW_HEIGHT = 24
CHART_BAR_HEIGHT = 16

CSS = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px auto;
  max-width: 1200px; padding: 0 16px; color: #1d2327; background: #fff; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #dcdcde; padding-bottom: 4px; }
.meta { color: #50575e; margin: 0 0 12px; }
table { border-collapse: collapse; width: 100%; }
th, td { border: 1px solid #dcdcde; padding: 5px 8px; text-align: left; vertical-align: top; }
th { background: #f6f7f7; font-weight: 600; }
table.metrics { width: auto; min-width: 520px; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.help { color: #50575e; }
tr.fail td.status { background: #fcf0f1; color: #8a2424; font-weight: 600; }
tr.pass td.status { background: #edfaef; color: #1a6e2e; font-weight: 600; }
td.prompt { white-space: pre-wrap; min-width: 260px; max-width: 420px; overflow-wrap: anywhere; }
code { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; }
ul.why { margin: 0; padding-left: 18px; }
.missing { color: #8a2424; }
.unexpected { color: #996800; }
.muted { color: #8c8f94; }
svg text { font: 12px system-ui, sans-serif; fill: #1d2327; }
.charts { display: flex; flex-wrap: wrap; gap: 8px 32px; }
"""


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.4f}".rstrip("0").rstrip(".") if value % 1 else f"{value:.0f}"
    return str(value)


def _ids(ids: Sequence[str], css: str = "") -> str:
    if not ids:
        return '<span class="muted">none</span>'
    cls = f' class="{css}"' if css else ""
    return ", ".join(f"<code{cls}>{_e(i)}</code>" for i in ids)


def metrics_table(metrics: Mapping[str, Any]) -> str:
    """A table of every metric with its value and a one-line meaning."""
    rows = "".join(
        f'<tr><th scope="row">{_e(name)}</th><td class="num">{_e(_fmt(value))}</td>'
        f'<td class="help">{_e(METRIC_HELP.get(name, ""))}</td></tr>'
        for name, value in metrics.items()
    )
    return (
        '<table class="metrics"><thead><tr><th>metric</th><th>value</th><th>meaning</th></tr>'
        f"</thead><tbody>{rows}</tbody></table>"
    )


def suites_table(suites: Sequence[Mapping[str, Any]]) -> str:
    """One row per suite when a report pools several."""
    head = "".join(
        f"<th>{_e(h)}</th>" for h in ("suite", "cards", "cases", "passed", *RATE_METRICS)
    )
    rows = "".join(
        f'<tr><th scope="row">{_e(s["suite"])}</th><td class="num">{_e(s["cards"])}</td>'
        f'<td class="num">{_e(s["cases"])}</td><td class="num">{_e(s["passed"])}</td>'
        + "".join(f'<td class="num">{_e(_fmt(s["metrics"][m]))}</td>' for m in RATE_METRICS)
        + "</tr>"
        for s in suites
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def bar_chart(title: str, groups: Mapping[str, Mapping[str, Any]]) -> str:
    """A horizontal inline-SVG bar chart of pass rate per group, labelled `passed/cases`."""
    if not groups:
        return f'<p class="muted">{_e(title)}: no cases carry this field.</p>'
    height = CHART_ROW_HEIGHT * len(groups) + 8
    bars = []
    for row, (name, group) in enumerate(groups.items()):
        y = 4 + row * CHART_ROW_HEIGHT
        rate = float(group["pass_rate"])
        width = round(CHART_BAR_WIDTH * rate, 1)
        bar_y = y + (CHART_ROW_HEIGHT - CHART_BAR_HEIGHT) / 2
        text_y = y + CHART_ROW_HEIGHT / 2 + 4
        label = f"{group['passed']}/{group['cases']} ({rate:.0%})"
        bars.append(
            f'<text x="{CHART_LABEL_WIDTH - 8}" y="{text_y}" text-anchor="end">{_e(name)}</text>'
            f'<rect x="{CHART_LABEL_WIDTH}" y="{bar_y}" width="{CHART_BAR_WIDTH}"'
            f' height="{CHART_BAR_HEIGHT}" fill="#f4d6d8"/>'
            f'<rect x="{CHART_LABEL_WIDTH}" y="{bar_y}" width="{width}"'
            f' height="{CHART_BAR_HEIGHT}" fill="#3f9b57"/>'
            f'<text x="{CHART_LABEL_WIDTH + CHART_BAR_WIDTH + 8}" y="{text_y}">{_e(label)}</text>'
        )
    return (
        f'<figure><figcaption>{_e(title)}</figcaption><svg role="img" width="{CHART_WIDTH}"'
        f' height="{height}" viewBox="0 0 {CHART_WIDTH} {height}" aria-label="{_e(title)}">'
        f"<title>{_e(title)}</title>{''.join(bars)}</svg></figure>"
    )


def _why(case: Mapping[str, Any]) -> str:
    items = []
    for entry in case.get("explain", ()):
        kind = entry["kind"]
        score = "not scored" if entry["score"] is None else f"score {entry['score']}"
        parts = [f"{_e(entry['rejection'])} ({_e(score)})"]
        if entry["families"]:
            parts.append("evidence " + ", ".join(_e(f) for f in entry["families"]))
        if entry["failed_gates"]:
            parts.append("failed gates " + "; ".join(_e(g) for g in entry["failed_gates"]))
        items.append(
            f'<li><code class="{_e(kind)}">{_e(entry["id"])}</code> {_e(kind)}: '
            + "; ".join(parts)
            + "</li>"
        )
    if case.get("abstain_reason") and not case.get("returned"):
        items.append(f"<li>abstained: <code>{_e(case['abstain_reason'])}</code></li>")
    return f'<ul class="why">{"".join(items)}</ul>' if items else ""


def _returned(case: Mapping[str, Any]) -> str:
    scores = case.get("scores", {})
    if not case["returned"]:
        return '<span class="muted">nothing</span>'
    return ", ".join(
        f'<code>{_e(cid)}</code> <span class="muted">{_e(scores.get(cid, ""))}</span>'
        for cid in case["returned"]
    )


def cases_table(cases: Sequence[Mapping[str, Any]], show_suite: bool) -> str:
    """Every case, failing ones first (each group keeps the report's order)."""
    ordered = [c for c in cases if not c["passed"]] + [c for c in cases if c["passed"]]
    rows = []
    for case in ordered:
        status = "pass" if case["passed"] else "fail"
        name = f"{case.get('suite', '')}/{case['id']}" if show_suite else case["id"]
        tags = ", ".join(case.get("tags", ()))
        diffs = (
            f'<div class="missing">missing: {_ids(case["missing"], "missing")}</div>'
            if case["missing"]
            else ""
        ) + (
            f'<div class="unexpected">unexpected: {_ids(case["unexpected"], "unexpected")}</div>'
            if case["unexpected"]
            else ""
        )
        rows.append(
            f'<tr class="{status}"><td class="status">{status.upper()}</td>'
            f'<td><code>{_e(name)}</code><div class="muted">{_e(case.get("difficulty", ""))}'
            f"{' · ' + _e(tags) if tags else ''}</div></td>"
            f'<td class="prompt">{_e(case.get("prompt", ""))}</td>'
            f"<td>{_ids(case['expected'])}</td><td>{_returned(case)}</td>"
            f"<td>{diffs}</td><td>{_why(case)}</td></tr>"
        )
    head = "".join(
        f"<th>{h}</th>"
        for h in ("result", "case", "prompt", "expected", "returned (score)", "differences", "why")
    )
    return (
        f'<table class="cases"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
    )


def render_report_html(report: Mapping[str, Any]) -> str:
    """The whole page for a report dict."""
    cases = report["cases"]
    passed = sum(1 for c in cases if c["passed"])
    suites = report.get("suites", [])
    title = f"ome recall evaluation: {report['suite']}"
    meta = (
        f"engine {report['engine']} · limit {report['limit']} · threshold {report['threshold']}"
        f" · noise {report.get('noise', 0)} · {passed}/{len(cases)} cases passed"
    )
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title><style>{CSS}</style></head><body>",
        f'<h1>{_e(title)}</h1><p class="meta">{_e(meta)}</p>',
        "<h2>Metrics</h2>",
        metrics_table(report["metrics"]),
    ]
    if len(suites) > 1:
        parts += ["<h2>Suites</h2>", suites_table(suites)]
    parts += [
        "<h2>Pass rate</h2>",
        '<div class="charts">',
        bar_chart("Pass rate by tag", report["by_tag"]),
        bar_chart("Pass rate by difficulty", report["by_difficulty"]),
        "</div>",
        f"<h2>Cases ({len(cases) - passed} failing first)</h2>",
        cases_table(cases, show_suite=len(suites) > 1),
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"


__all__ = ["bar_chart", "cases_table", "metrics_table", "render_report_html", "suites_table"]
