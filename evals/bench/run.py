"""Whole-process benchmark of the hook (SPEC §9): `ome hook run` against `python -c pass`.

For each library size it writes a seeded synthetic library into a temp data dir, builds the card
index cache from nothing (timed), then runs `python -c pass`, `python -m ome.hook` (what
`ome hook install` writes; answered by the warm hook server its first run starts), the same
with the server turned off (`OME_HOOK_SERVER=0`: every run starts, imports and loads on its
own) and the `ome hook run` console script alternately, and reports medians, p95, the ratio to
the `python -c pass` floor and the peak RSS of each hook process and of the server. At the
largest size it also edits one card and times the first hook run after the edit, with and
without the server, checking that the run already returns the edited card.

    python evals/bench/run.py [--sizes 34,1000,10000] [--runs N] [--out results.json]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

import synth  # noqa: E402

PYTHON = sys.executable
EDIT_WORD = "zebracornflux"  # in no generated card: only the edited card can match it


@dataclass
class Series:
    """One command's timings (ms) and peak resident memory (MiB) over the runs."""

    command: str
    ms: list[float] = field(default_factory=list)
    rss_mib: list[float] = field(default_factory=list)
    matched: int = 0

    @property
    def median(self) -> float:
        return statistics.median(self.ms)

    @property
    def p95(self) -> float:
        ordered = sorted(self.ms)
        return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


NO_SERVER = {"OME_HOOK_SERVER": "0"}


def run_timed(
    argv: list[str], env: dict[str, str], stdin: bytes = b"", cwd: Path | None = None
) -> tuple[float, float, bytes]:
    """(wall ms, peak RSS MiB, stdout) of one child process, its rusage read with wait4.

    Children run in `cwd` (the library's work dir): `python -m` puts its working directory first
    on sys.path, so run from a checkout it would import the checkout instead of `--code`.
    """
    start = time.perf_counter()
    process = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=cwd,
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(stdin)
    process.stdin.close()
    out = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = (time.perf_counter() - start) * 1000
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{argv} exited {process.returncode}")
    return elapsed, usage.ru_maxrss / 1024, out


def console_script() -> str:
    """The `ome` entry point next to this interpreter (what `pip install` puts on PATH)."""
    candidate = Path(PYTHON).with_name("ome")
    found = str(candidate) if candidate.exists() else shutil.which("ome")
    if not found:
        raise SystemExit("the `ome` console script is not installed next to this interpreter")
    return found


def payload(prompt: str, cwd: Path) -> bytes:
    return orjson.dumps(
        {
            "hook_event_name": "UserPromptSubmit",
            "prompt": prompt,
            "cwd": str(cwd),
            "session_id": "bench",
            "transcript_path": "",
        }
    )


def bench_env(home: Path, data_dir: Path, code: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "OME_"))}
    # Bytecode is compiled as an installed package has it; nothing reads the real home.
    env.update(HOME=str(home), OME_HOME=str(data_dir), PYTHONHASHSEED="0")
    if code is not None:
        env["PYTHONPATH"] = str(code)
    return env


def make_library(root: Path, size: int, seed: int) -> tuple[Path, Path, Path]:
    home, data_dir, work = root / "home", root / "home" / ".oh-my-experience", root / "work"
    work.mkdir(parents=True)
    synth.write_library(data_dir, size, seed)
    # The library as `ome init --no-starter` leaves it: a config.yaml, no starter cards.
    (data_dir / "config.yaml").write_text("library:\n  starter_cards: false\n", encoding="utf-8")
    time.sleep(1.1)  # past the cache's racy window, as a library edited a while ago
    return home, data_dir, work


def server_pid(env: dict[str, str], cwd: Path, running: bool = True) -> int | None:
    """Wait (up to 20 s) until the data dir's warm server is up, or down; its pid when up."""
    code = "from ome import server; print(server.status(server.data_dir_path())['pid'] or '')"
    end = time.monotonic() + 20
    while time.monotonic() < end:
        out = subprocess.run(
            [PYTHON, "-c", code], env=env, cwd=cwd, capture_output=True, text=True, check=True
        ).stdout.strip()
        if bool(out) is running:
            return int(out) if out else None
        time.sleep(0.1)
    raise SystemExit("the warm hook server did not " + ("start" if running else "stop"))


def peak_rss_mib(pid: int) -> float:
    """The high-water mark of a running process's resident memory (Linux), else 0."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def stop_server(env: dict[str, str], cwd: Path) -> None:
    subprocess.run(
        [PYTHON, "-m", "ome", "hook", "server", "stop"], env=env, cwd=cwd, capture_output=True
    )


def cache_state(data_dir: Path) -> list[tuple[str, int]]:
    """Manifests and their mtimes: a change means code or cards changed under the benchmark."""
    return sorted((str(p), p.stat().st_mtime_ns) for p in data_dir.rglob("manifest.json"))


def cold_build(data_dir: Path, env: dict[str, str], cwd: Path) -> float:
    """Seconds for `python -m ome.cache` to build the index of a library from nothing."""
    shutil.rmtree(data_dir / "cache", ignore_errors=True)
    start = time.perf_counter()
    subprocess.run(
        [PYTHON, "-m", "ome.cache", "--data-dir", str(data_dir)],
        env=env,
        cwd=cwd,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


def edit_card(path: Path, n: int) -> str:
    """Add a trigger naming a word no other card has; return a prompt only this card matches."""
    text = path.read_text(encoding="utf-8")
    marker = "  triggers:\n"
    text = text.replace(marker, f'{marker}    - "{EDIT_WORD}{n} rollout"\n', 1)
    path.write_text(text, encoding="utf-8")
    return f"the {EDIT_WORD}{n} rollout keeps failing, what should I check"


def bench_size(
    size: int, runs: int, seed: int, edits: int, scratch: Path, code: Path | None
) -> dict[str, object]:
    root = Path(tempfile.mkdtemp(prefix=f"ome-bench-{size}-", dir=scratch))
    try:
        home, data_dir, work = make_library(root, size, seed)
        env = bench_env(home, data_dir, code)
        hook = [PYTHON, "-m", "ome.hook", "--provider", "claude"]
        commands = {
            "python -c pass": ([PYTHON, "-c", "pass"], env),
            "python -m ome.hook": (hook, env),
            "python -m ome.hook, no server": (hook, {**env, **NO_SERVER}),
            "ome hook run": ([console_script(), "hook", "run", "--provider", "claude"], env),
        }
        build_s = cold_build(data_dir, env, work)
        for argv, cmd_env in commands.values():  # warm-up: bytecode, page cache, the server
            run_timed(argv, cmd_env, payload(synth.PROMPTS[0], work), work)
        pid = server_pid(env, work)
        series = {name: Series(name) for name in commands}
        before = cache_state(data_dir)
        for i in range(runs):
            body = payload(synth.PROMPTS[i % len(synth.PROMPTS)], work)
            for name, (argv, cmd_env) in commands.items():
                ms, rss, out = run_timed(argv, cmd_env, body, work)
                series[name].ms.append(ms)
                series[name].rss_mib.append(rss)
                series[name].matched += b"additionalContext" in out
        if cache_state(data_dir) != before:
            print(f"warning: the cache was rebuilt during the {size} run", file=sys.stderr)
        if server_pid(env, work) != pid:
            print(f"warning: the server was replaced during the {size} run", file=sys.stderr)
        floor = series["python -c pass"].median
        result: dict[str, object] = {
            "size": size,
            "runs": runs,
            "cold_build_s": round(build_s, 2),
            "floor_ms": round(floor, 1),
            "server_peak_rss_mib": round(peak_rss_mib(pid), 1) if pid else None,
            "commands": {
                name: {
                    "median_ms": round(s.median, 1),
                    "p95_ms": round(s.p95, 1),
                    "ratio": round(s.median / floor, 2),
                    "peak_rss_mib": round(max(s.rss_mib), 1),
                    "matched_runs": s.matched,
                }
                for name, s in series.items()
            },
        }
        if edits:
            result["edit"] = bench_edit(data_dir, work, env, hook, edits, floor)
            result["edit_no_server"] = bench_edit(
                data_dir, work, {**env, **NO_SERVER}, hook, edits, floor, first=edits
            )
        stop_server(env, work)
        server_pid(env, work, running=False)
        return result
    finally:
        shutil.rmtree(root, ignore_errors=True)


def bench_edit(
    data_dir: Path,
    work: Path,
    env: dict[str, str],
    argv: list[str],
    edits: int,
    floor: float,
    first: int = 0,
) -> dict[str, object]:
    """Edit one card, then time the first hook run; it must already return that card."""
    cards = sorted((data_dir / "experiences" / "active").glob("*.md"))
    times: list[float] = []
    seen = 0
    for n in range(first, first + edits):
        target = cards[(n * 7919) % len(cards)]
        prompt = edit_card(target, n)
        ms, _, out = run_timed(argv, env, payload(prompt, work), work)
        times.append(ms)
        seen += target.stem.encode() in out
        time.sleep(0.2)
    median = statistics.median(times)
    return {
        "runs": edits,
        "median_ms": round(median, 1),
        "max_ms": round(max(times), 1),
        "ratio": round(median / floor, 2),
        "saw_edit": f"{seen}/{edits}",
    }


def markdown(results: list[dict[str, object]]) -> str:
    lines = [
        "| cards | command | median ms | p95 ms | x floor | peak RSS MiB | matched |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        for name, c in r["commands"].items():  # type: ignore[attr-defined]
            lines.append(
                f"| {r['size']:,} | `{name}` | {c['median_ms']} | {c['p95_ms']} | {c['ratio']} |"
                f" {c['peak_rss_mib']} | {c['matched_runs']}/{r['runs']} |"
            )
    lines += [
        "",
        "| cards | cold index build s | server peak RSS MiB | first hook after editing one card"
        " | the same, no server |",
        "|---:|---:|---:|---|---|",
    ]

    def after(edit: object) -> str:
        if not isinstance(edit, dict):
            return "-"
        return (
            f"{edit['median_ms']} ms median of {edit['runs']} = {edit['ratio']}x floor,"
            f" saw the edit {edit['saw_edit']}"
        )

    for r in results:
        lines.append(
            f"| {r['size']:,} | {r['cold_build_s']} | {r['server_peak_rss_mib']} |"
            f" {after(r.get('edit'))} | {after(r.get('edit_no_server'))} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="34,1000,10000", help="library sizes, comma-separated")
    parser.add_argument(
        "--runs", type=int, default=0, help="runs per command (default 15; 9 at 10,000+)"
    )
    parser.add_argument(
        "--edits", type=int, default=5, help="edit runs at the largest size (0: none)"
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, help="write the results as JSON here")
    parser.add_argument("--scratch", type=Path, default=None, help="temp dir for the libraries")
    parser.add_argument(
        "--code",
        type=Path,
        default=None,
        help="run `ome` from this source tree (e.g. a `git archive` snapshot) via PYTHONPATH,"
        " so edits to the working tree cannot invalidate the cache mid-run",
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    scratch = args.scratch or Path(tempfile.gettempdir())
    results = []
    for size in sizes:
        runs = args.runs or (9 if size >= 10_000 else 15)
        edits = args.edits if size == max(sizes) else 0
        print(f"# {size:,} cards: {runs} runs per command", file=sys.stderr, flush=True)
        results.append(bench_size(size, runs, args.seed, edits, scratch, args.code))
    doc = {
        "code": str(args.code) if args.code else "installed",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "results": results,
    }
    print(markdown(results))
    if args.out:
        args.out.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
