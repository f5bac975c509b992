"""`ome eval recall`: run evaluation suites, check metric bounds, compare two saved reports."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from ome.cli.common import emit_json, handle_errors, json_option, recall_knobs

_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)


@click.group("eval")
def eval_group() -> None:
    """Measure recall quality on evaluation suites (SPEC §8)."""


def _render_report(report: Mapping[str, Any]) -> str:
    lines = []
    for s in report["suites"]:
        lines.append(f"{s['suite']}: {s['passed']}/{s['cases']} cases passed ({s['cards']} cards)")
    if len(report["suites"]) > 1:
        passed = sum(1 for c in report["cases"] if c["passed"])
        lines.append(f"all suites: {passed}/{len(report['cases'])} cases passed")
    lines.append(
        f"engine {report['engine']}, limit {report['limit']}, threshold {report['threshold']},"
        f" noise {report['noise']}"
    )
    lines += [f"  {name:<20} {value:g}" for name, value in report["metrics"].items()]
    failing = [c for c in report["cases"] if not c["passed"]]
    if failing:
        lines.append("Failing cases:")
    for case in failing:
        returned = ", ".join(case["returned"]) or "nothing"
        lines.append(f"  {case['suite']}/{case['id']}: returned {returned}")
        for e in case["explain"]:
            score = "not scored" if e["score"] is None else f"score {e['score']}"
            families = f"; evidence {', '.join(e['families'])}" if e["families"] else ""
            lines.append(f"    {e['kind']} {e['id']}: {e['rejection']} ({score}{families})")
    return "\n".join(lines)


@eval_group.command("recall")
@click.option(
    "--suite",
    "suites",
    type=_FILE,
    multiple=True,
    help="Suite file (JSON or YAML); repeat for several suites.",
)
@recall_knobs
@click.option(
    "--noise",
    type=click.IntRange(0, 100_000),
    default=0,
    help="Add N generated distractor cards to each suite's library.",
)
@click.option(
    "--html",
    "html_out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write an HTML report.",
)
@click.option("--min-pass-rate", type=float, default=None, help="Fail below this pass rate.")
@click.option("--min-precision", type=float, default=None, help="Fail below this precision@k.")
@click.option("--min-recall", type=float, default=None, help="Fail below this recall@k.")
@click.option(
    "--max-over-recall", type=float, default=None, help="Fail above this over-recall rate."
)
@click.option(
    "--max-false-positive", type=float, default=None, help="Fail above this false-positive rate."
)
@click.option(
    "--compare",
    type=_FILE,
    nargs=2,
    default=None,
    metavar="OLD NEW",
    help="Compare two saved --json reports; fail on any regression.",
)
@json_option
@handle_errors
def recall_command(
    suites: tuple[Path, ...],
    limit: int | None,
    threshold: int | None,
    noise: int,
    html_out: Path | None,
    min_pass_rate: float | None,
    min_precision: float | None,
    min_recall: float | None,
    max_over_recall: float | None,
    max_false_positive: float | None,
    compare: tuple[Path, Path] | None,
    as_json: bool,
) -> None:
    """Run recall suites in an isolated temporary library and report metrics.

    Exits 1 when a --min-*/--max-* bound is missed, or with --compare when NEW regresses on
    OLD (a metric got worse, timings aside, or a case went from pass to fail).
    """
    from ome.evaluate import (
        check_bounds,
        compare_reports,
        evaluate_suites,
        read_report,
        report_json,
    )
    from ome.report_html import render_report_html

    bounds = {
        "pass_rate": min_pass_rate,
        "precision_at_k": min_precision,
        "recall_at_k": min_recall,
        "over_recall_rate": max_over_recall,
        "false_positive_rate": max_false_positive,
    }
    failures: tuple[str, ...] = ()
    if compare:
        if suites:
            raise click.UsageError("--compare reads two saved reports; drop --suite")
        old, report = read_report(compare[0]), read_report(compare[1])
        comparison = compare_reports(old, report)
        failures = comparison.regressions
        if as_json:
            emit_json(
                {
                    "ok": not failures,
                    "regressions": list(comparison.regressions),
                    "changes": list(comparison.changes),
                }
            )
        else:
            for line in comparison.changes:
                click.echo(f"  {line}")
            click.echo(f"{len(failures)} regression(s):" if failures else "No regressions.")
            for line in failures:
                click.echo(f"  {line}")
    else:
        if not suites:
            raise click.UsageError("give at least one --suite FILE (or --compare OLD NEW)")
        report = report_json(evaluate_suites(suites, limit, threshold, noise))
        if as_json:
            emit_json(report)
        else:
            click.echo(_render_report(report))
    if html_out is not None:
        html_out.write_text(render_report_html(report), encoding="utf-8")
        click.echo(f"HTML report: {html_out}", err=as_json)
    failures += check_bounds(report["metrics"], bounds)
    if failures:
        raise click.ClickException("; ".join(failures))


__all__ = ["eval_group"]
