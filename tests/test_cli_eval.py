"""`ome eval recall` through CliRunner: report shape, bounds, compare, noise, HTML, errors."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner, Result
from conftest import REFERENCE_SUITES, needs_reference

from ome.cli import cli
from ome.evaluate import METRIC_NAMES

REFERENCE = REFERENCE_SUITES
if not REFERENCE:
    pytest.skip(needs_reference.kwargs["reason"], allow_module_level=True)
REPORT_KEYS = {
    "suite",
    "engine",
    "limit",
    "threshold",
    "metrics",
    "by_difficulty",
    "by_tag",
    "cases",
}
CASE_KEYS = {
    "id",
    "passed",
    "expected",
    "returned",
    "missing",
    "unexpected",
    "scores",
    "tags",
    "difficulty",
    "context_chars",
    "abstain_reason",
}
GROUP_KEYS = {"cases", "passed", "pass_rate"}


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, ["eval", "recall", *args])


def suite_args(*paths: Path) -> list[str]:
    return [arg for p in paths for arg in ("--suite", str(p))]


def strip_timings(doc: dict[str, Any]) -> dict[str, Any]:
    for block in (doc, *doc["suites"]):
        del block["metrics"]["p50_ms"], block["metrics"]["p95_ms"]
    for case in doc["cases"]:
        del case["ms"]
    return doc


@pytest.mark.parametrize("suite", REFERENCE, ids=[p.stem for p in REFERENCE])
def test_reference_suite_report_has_every_field(suite: Path) -> None:
    result = invoke("--suite", str(suite), "--json")
    assert result.exit_code == 0, result.output
    report = orjson.loads(result.stdout)
    assert REPORT_KEYS <= set(report)
    assert report["suite"] == orjson.loads(suite.read_bytes())["name"]
    assert list(report["metrics"]) == sorted(METRIC_NAMES)  # sorted keys on output
    assert all(isinstance(v, (int, float)) for v in report["metrics"].values())
    assert report["cases"] and all(CASE_KEYS <= set(c) for c in report["cases"])
    assert all(set(g) == GROUP_KEYS for g in report["by_difficulty"].values())
    assert all(set(g) == GROUP_KEYS for g in report["by_tag"].values())
    for case in report["cases"]:
        assert set(case["scores"]) == set(case["returned"])
        assert set(case["missing"]) <= set(case["expected"])
        assert set(case["unexpected"]) <= set(case["returned"])


def test_several_suites_pool_cases_and_report_each() -> None:
    result = invoke(*suite_args(*REFERENCE), "--json")
    assert result.exit_code == 0, result.output
    report = orjson.loads(result.stdout)
    names = [orjson.loads(p.read_bytes())["name"] for p in REFERENCE]
    assert report["suite"] == "+".join(names)
    assert [s["suite"] for s in report["suites"]] == names
    assert len(report["cases"]) == sum(s["cases"] for s in report["suites"]) == 42
    assert REPORT_KEYS <= set(report)
    assert all(list(s["metrics"]) == sorted(METRIC_NAMES) for s in report["suites"])


def test_human_output_lists_metrics_and_failures() -> None:
    result = invoke("--suite", str(REFERENCE[0]))
    assert result.exit_code == 0, result.output
    assert "cases passed" in result.output
    assert all(name in result.output for name in METRIC_NAMES)


def test_missed_bound_exits_1_naming_it() -> None:
    result = invoke("--suite", str(REFERENCE[0]), "--json", "--min-pass-rate", "1.01")
    assert result.exit_code == 1
    assert "< --min-pass-rate 1.01" in result.stderr
    assert "pass_rate" in result.stderr
    assert orjson.loads(result.stdout)["metrics"]  # the report is still printed


def test_met_bounds_exit_0() -> None:
    result = invoke(
        "--suite", str(REFERENCE[0]), "--min-pass-rate", "0", "--max-false-positive", "1"
    )
    assert result.exit_code == 0, result.output


def save(path: Path, pass_rate: float, fpr: float, passes: dict[str, bool]) -> Path:
    metrics = {**dict.fromkeys(METRIC_NAMES, 0.5), "pass_rate": pass_rate}
    metrics["false_positive_rate"] = fpr
    report = {
        "suite": "s",
        "metrics": metrics,
        "cases": [{"id": k, "suite": "s", "passed": v} for k, v in passes.items()],
        "suites": [],
    }
    path.write_bytes(orjson.dumps(report))
    return path


def test_compare_fails_on_regressions_and_prints_them(tmp_path: Path) -> None:
    old = save(tmp_path / "old.json", 0.9, 0.0, {"a": True, "b": True})
    new = save(tmp_path / "new.json", 0.8, 0.1, {"a": False, "b": True})
    result = invoke("--compare", str(old), str(new))
    assert result.exit_code == 1
    for text in (
        "pass_rate 0.9 -> 0.8",
        "false_positive_rate 0 -> 0.1",
        "case s/a passed before and fails now",
    ):
        assert text in result.stdout and text in result.stderr
    as_json = invoke("--compare", str(old), str(new), "--json")
    assert as_json.exit_code == 1
    assert len(orjson.loads(as_json.stdout)["regressions"]) == 3


def test_compare_passes_on_improvement(tmp_path: Path) -> None:
    old = save(tmp_path / "old.json", 0.8, 0.1, {"a": False})
    new = save(tmp_path / "new.json", 0.9, 0.0, {"a": True})
    result = invoke("--compare", str(old), str(new))
    assert result.exit_code == 0, result.output
    assert "No regressions." in result.output


def test_compare_of_a_saved_run_with_itself_passes(tmp_path: Path) -> None:
    saved = tmp_path / "run.json"
    saved.write_text(invoke("--suite", str(REFERENCE[1]), "--json").stdout, encoding="utf-8")
    assert invoke("--compare", str(saved), str(saved)).exit_code == 0


def test_compare_refuses_a_file_that_is_not_a_report(tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.json"
    bogus.write_text("[]", encoding="utf-8")
    result = invoke("--compare", str(bogus), str(bogus))
    assert result.exit_code == 1
    assert "not a report" in result.output


def test_noise_is_deterministic_and_added_to_every_library() -> None:
    first = invoke("--suite", str(REFERENCE[1]), "--noise", "50", "--json")
    second = invoke("--suite", str(REFERENCE[1]), "--noise", "50", "--json")
    assert first.exit_code == second.exit_code == 0, first.output
    one, two = orjson.loads(first.stdout), orjson.loads(second.stdout)
    plain = orjson.loads(invoke("--suite", str(REFERENCE[1]), "--json").stdout)
    assert one["noise"] == 50
    assert one["suites"][0]["cards"] == plain["suites"][0]["cards"] + 50
    assert strip_timings(one) == strip_timings(two)


def test_temporary_library_is_removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    assert invoke("--suite", str(REFERENCE[1]), "--json").exit_code == 0
    assert list(scratch.iterdir()) == []


def test_html_report_is_written_and_self_contained(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    result = invoke(*suite_args(*REFERENCE), "--json", "--html", str(out))
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    assert "<table" in page
    assert "http://" not in page and "https://" not in page
    assert orjson.loads(result.stdout)["cases"]  # stdout stays one JSON document


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        pytest.param([], 2, "give at least one --suite", id="no-suite"),
        pytest.param(["--suite", "missing.json"], 2, "does not exist", id="missing-file"),
        pytest.param(["--limit", "0", "--suite", str(REFERENCE[0])], 2, "--limit", id="limit"),
    ],
)
def test_usage_errors(args: list[str], code: int, message: str) -> None:
    result = invoke(*args)
    assert result.exit_code == code
    assert message in result.output


def test_invalid_suite_is_one_line_or_a_json_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\ncases: []\nexperiences: []\n", encoding="utf-8")
    result = invoke("--suite", str(bad))
    assert result.exit_code == 1
    assert "the suite has no cases" in result.output
    as_json = invoke("--suite", str(bad), "--json")
    assert orjson.loads(as_json.stdout)["error"]["code"] == "suite_error"


def test_yaml_suite_runs_like_its_json_original(tmp_path: Path) -> None:
    import yaml

    source = REFERENCE[1]
    data = orjson.loads(source.read_bytes())
    cards = orjson.loads((source.parent / data["experiencesFile"]).read_bytes())
    (tmp_path / "cards.yaml").write_text(yaml.safe_dump(cards, allow_unicode=True), "utf-8")
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        yaml.safe_dump({**data, "experiencesFile": "cards.yaml"}, allow_unicode=True), "utf-8"
    )
    from_json = orjson.loads(invoke("--suite", str(source), "--json").stdout)
    from_yaml = orjson.loads(invoke("--suite", str(suite), "--json").stdout)
    assert strip_timings(from_json) == strip_timings(from_yaml)
