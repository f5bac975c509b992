"""Compiling packs: the committed registry is current, bad packs fail clearly, layers override."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from ome.cache import SHIPPED_MATCHER_FILE
from ome.cli.signals import signals_group
from ome.concepts import concept_token
from ome.envelope import build_envelope
from ome.errors import RegistryError
from ome.index import analyse_units
from ome.registry import (
    REGISTRY_FILE,
    build_bundled_registry,
    bundled_pack_paths,
    compile_registry,
    derive_anchors,
    load_registry,
    read_pack,
    registry_digest,
    registry_warnings,
    render_registry,
)
from ome.resources import resource_dir
from ome.signals import detect_signals, normalize_text, registry_from_data

SIGNALS_DIR = resource_dir("signals")
REPO_ROOT = Path(__file__).resolve().parents[1]


def _with_lexicon(tmp_path: Path, lexicon: str) -> Path:
    """A copy of the bundled vocabulary whose lexicon.yaml is `lexicon`."""
    vocabulary = tmp_path / "vocabulary"
    shutil.copytree(SIGNALS_DIR / "vocabulary", vocabulary)
    _write(vocabulary / "lexicon.yaml", lexicon)
    return vocabulary


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def _pack(signal_body: str, name: str = "mine") -> str:
    body = textwrap.indent(textwrap.dedent(signal_body).strip(), "  ")
    return f"pack: {name}\ndescription: test pack\nsignals:\n{body}\n"


GOOD_SIGNAL = """
- id: zebra_widget
  polarity: positive
  weight: 0.5
  reason: Test signal.
  routes: true
  patterns:
    phrases: [zebra widget]
"""


def test_committed_registry_equals_a_fresh_build() -> None:
    fresh = compile_registry(bundled_pack_paths(), SIGNALS_DIR / "vocabulary")
    committed = (SIGNALS_DIR / REGISTRY_FILE).read_bytes()
    assert render_registry(fresh) == committed, "run `ome signals build` and commit the result"
    assert build_bundled_registry(check=True).stale is False


def test_registry_digest_covers_the_content() -> None:
    data = orjson.loads((SIGNALS_DIR / REGISTRY_FILE).read_bytes())
    assert data["digest"] == registry_digest(data)
    changed = {**data, "signals": data["signals"][1:]}
    assert registry_digest(changed) != data["digest"]


def test_build_is_byte_identical_under_any_hash_seed() -> None:
    script = (
        "import hashlib, sys\n"
        "from ome.registry import bundled_pack_paths, compile_registry, render_registry\n"
        "from ome.resources import resource_dir\n"
        "data = compile_registry(bundled_pack_paths(), resource_dir('signals') / 'vocabulary')\n"
        "sys.stdout.write(hashlib.sha256(render_registry(data)).hexdigest())\n"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            check=True,
            cwd=REPO_ROOT,
            env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin"},
        ).stdout
        for seed in ("0", "1", "4242")
    }
    assert len(digests) == 1


def test_build_writes_then_reports_up_to_date_and_detects_staleness(tmp_path: Path) -> None:
    root = tmp_path / "signals"
    shutil.copytree(SIGNALS_DIR / "packs", root / "packs")
    shutil.copytree(SIGNALS_DIR / "vocabulary", root / "vocabulary")
    first = build_bundled_registry(root=root)
    assert first.written and first.stale
    for name in (REGISTRY_FILE, SHIPPED_MATCHER_FILE):
        assert (root / name).read_bytes() == (SIGNALS_DIR / name).read_bytes()
    assert build_bundled_registry(check=True, root=root).stale is False
    (root / SHIPPED_MATCHER_FILE).write_bytes(b"[]")
    assert build_bundled_registry(check=True, root=root).stale
    assert build_bundled_registry(root=root).written
    assert (root / SHIPPED_MATCHER_FILE).read_bytes() == (
        SIGNALS_DIR / SHIPPED_MATCHER_FILE
    ).read_bytes()
    _write(root / "packs" / "extra.yaml", _pack(GOOD_SIGNAL, name="extra"))
    stale = build_bundled_registry(check=True, root=root)
    assert stale.stale and not stale.written
    assert build_bundled_registry(root=root).signal_count == first.signal_count + 1


@pytest.mark.parametrize(
    ("pack_text", "message"),
    [
        (_pack(GOOD_SIGNAL.replace("routes: true", "routes: true\n  colour: red")), "'colour'"),
        (_pack(GOOD_SIGNAL.replace("positive", "positve")), "`polarity` is 'positve'"),
        (_pack(GOOD_SIGNAL + GOOD_SIGNAL), "defined twice"),
        (
            _pack(GOOD_SIGNAL.replace("routes: true", "routes: true\n  suppresses: [ui_surfce]")),
            "did you mean ui_surface",
        ),
        (
            _pack(GOOD_SIGNAL.replace("phrases: [zebra widget]", "regex: ['(unclosed']")),
            "bad regex",
        ),
        (
            _pack(GOOD_SIGNAL.replace("phrases: [zebra widget]", "regex: ['a*']")),
            "matches the empty string",
        ),
        (
            _pack(GOOD_SIGNAL.replace("routes: true", "routes: true\n  targets: [ui_surface]")),
            "only negative signals may have `targets`",
        ),
        (_pack(GOOD_SIGNAL.replace("0.5", "1.5")), "`weight`"),
        (_pack(GOOD_SIGNAL.replace("[zebra widget]", "[zebra, no]")), "quote it"),
        (_pack(GOOD_SIGNAL.replace("phrases: [zebra widget]", "phrases: []")), "no patterns"),
        (_pack(GOOD_SIGNAL.replace("routes: true", "routes: true\n  intent: go")), "`intent`"),
        (
            _pack(GOOD_SIGNAL.replace("phrases: [zebra widget]", "concepts: [cahce]")),
            "unknown concept 'cahce' (did you mean cache",
        ),
        ("pack: mine\nsignals: [\n", "invalid YAML"),
        ("signals: []\n", "`pack` must name the pack"),
    ],
    ids=[
        "unknown-key",
        "bad-polarity",
        "duplicate-id",
        "unknown-suppress",
        "bad-regex",
        "empty-regex",
        "targets-on-positive",
        "weight-range",
        "yaml-bool",
        "no-patterns",
        "bad-intent",
        "unknown-concept",
        "yaml-syntax",
        "no-pack-name",
    ],
)
def test_invalid_user_pack_names_the_file_and_the_fix(
    tmp_path: Path, pack_text: str, message: str
) -> None:
    path = _write(tmp_path / "data" / "signals" / "broken.yaml", pack_text)
    with pytest.raises(RegistryError) as caught:
        load_registry(tmp_path / "data", None)
    assert str(path) in str(caught.value)
    assert message in str(caught.value)


def test_same_id_twice_in_one_layer_names_both_files(tmp_path: Path) -> None:
    first = _write(tmp_path / "data" / "signals" / "a.yaml", _pack(GOOD_SIGNAL, "a"))
    second = _write(tmp_path / "data" / "signals" / "b.yaml", _pack(GOOD_SIGNAL, "b"))
    with pytest.raises(RegistryError) as caught:
        load_registry(tmp_path / "data", None)
    assert str(first) in str(caught.value) and str(second) in str(caught.value)


def test_user_pack_overrides_a_bundled_id(tmp_path: Path) -> None:
    override = GOOD_SIGNAL.replace("zebra_widget", "ui_surface")
    _write(tmp_path / "data" / "signals" / "mine.yaml", _pack(override))
    registry = load_registry(tmp_path / "data", None)
    signal = registry.get("ui_surface")
    assert signal is not None and signal.pack == "mine"
    assert "ui_surface" in detect_signals(registry, "the zebra widget is off").fired_ids
    assert "ui_surface" not in detect_signals(registry, "fix the settings page").fired_ids
    assert registry.digest != load_registry().digest
    assert any(p.name == "mine" and p.source == "user" for p in registry.packs)


def test_project_pack_beats_user_pack_and_may_use_new_ids(tmp_path: Path) -> None:
    _write(tmp_path / "data" / "signals" / "mine.yaml", _pack(GOOD_SIGNAL))
    project_signal = GOOD_SIGNAL.replace("zebra widget", "okapi gadget").replace(
        "routes: true", "routes: true\n  suppresses: [ui_surface]"
    )
    _write(tmp_path / "repo" / ".oh-my-experience" / "signals" / "p.yaml", _pack(project_signal))
    registry = load_registry(tmp_path / "data", tmp_path / "repo")
    detection = detect_signals(registry, "the okapi gadget page")
    assert "zebra_widget" in detection.fired_ids
    assert "ui_surface" not in detection.fired_ids
    assert "zebra_widget" not in detect_signals(registry, "zebra widget").fired_ids


def test_a_signal_fires_on_any_term_of_its_lexicon_concepts(tmp_path: Path) -> None:
    """`patterns.concepts` fire a signal on synonyms and translations the phrases never list."""
    _write(
        tmp_path / "data" / "signals" / "mine.yaml",
        _pack(GOOD_SIGNAL.replace("phrases: [zebra widget]", "concepts: [cache]")),
    )
    registry = load_registry(tmp_path / "data", None)
    for prompt in ("the cache is stale", "缓存没有刷新", "memcached keeps old values"):
        detection = detect_signals(registry, normalize_text(prompt))
        assert "zebra_widget" in detection.fired_ids, prompt
    assert "zebra_widget" not in detect_signals(registry, "rename the column").fired_ids
    # The envelope hands over the concept hits it found itself.
    matcher = registry.vocabulary.concept_matcher()
    assert "zebra_widget" in build_envelope("清一下缓存", registry, matcher).fired


def test_a_pack_file_can_switch_off_a_bundled_pack(tmp_path: Path) -> None:
    _write(
        tmp_path / "data" / "signals" / "off.yaml",
        "pack: agent-workflow\nenabled: false\nsignals: []\n",
    )
    registry = load_registry(tmp_path / "data", None)
    assert registry.get("goal_execute") is not None
    assert "goal_execute" not in detect_signals(registry, "创建目标并开始执行").fired_ids


def test_read_pack_keeps_examples_out_of_the_compiled_signal(tmp_path: Path) -> None:
    text = GOOD_SIGNAL + "  examples:\n    positive: [a zebra widget]\n    negative: [a zebra]\n"
    pack = read_pack(_write(tmp_path / "p.yaml", _pack(text)))
    assert [(e.should_fire, e.prompt) for e in pack.examples] == [
        (True, "a zebra widget"),
        (False, "a zebra"),
    ]
    assert "examples" not in pack.signals[0]


@pytest.mark.parametrize(
    ("pattern", "anchors"),
    [
        (r"\bgoals?\b", ("goal",)),
        (r"\bforce[- ]push", ("force push", "force-push")),
        (r"(?:delete|drop) table", ("delete table", "drop table")),
        (r"\bgit\s+(?:add|commit)\b", ("git",)),
        (r"(?:当|如果)我说", ("如果我说", "当我说")),
        (r"\bsession\b[^\n]{0,20}\b[0-9a-f]{8}-", ("session",)),
        (r"(?:ab)+c?", ("ab",)),
        (r"[0-9a-f]{8}-[0-9a-f]{4}", ()),
        (r"\p{Han}+", ()),
    ],
)
def test_derive_anchors(pattern: str, anchors: tuple[str, ...]) -> None:
    assert derive_anchors(pattern) == anchors


def test_a_regex_without_anchors_runs_always_and_is_warned_about(tmp_path: Path) -> None:
    vocabulary = SIGNALS_DIR / "vocabulary"
    signal = GOOD_SIGNAL.replace("phrases: [zebra widget]", r"regex: ['\p{Han}{9}']")
    data = compile_registry([_write(tmp_path / "p.yaml", _pack(signal))], vocabulary)
    assert data["signals"][0]["regex"] == [{"pattern": r"\p{Han}{9}", "anchors": []}]
    (warning,) = registry_warnings(data)
    assert "mine/zebra_widget" in warning and "add `anchors:`" in warning


@pytest.mark.parametrize(
    ("concepts", "error"),
    [
        (
            "  - {id: a, terms: [undo, 撤销]}\n  - {id: b, terms: [undo, 回退]}\n",
            "'undo' is also in concept 'a'",
        ),
        # Terms are read as the matcher reads them: Han terms without the spaces between Chinese
        # and English words, words stemmed and without hyphens. 升级 gradle and 升级gradle are
        # one term, and so are "gradle upgrades" and "gradle-upgrade".
        ("  - {id: a, terms: [undo, 撤销, undo]}\n", "'undo' is written twice; keep one"),
        (
            "  - {id: a, terms: [升级 gradle, 升级gradle, upgrade gradle]}\n",
            "'升级gradle' is '升级 gradle' again as the matcher reads it",
        ),
        (
            "  - {id: a, terms: [升级 gradle, upgrade gradle]}\n"
            "  - {id: b, terms: [升级gradle 插件, 升级gradle]}\n",
            "'升级gradle' is also in concept 'a' \\(as '升级 gradle'\\)",
        ),
        (
            "  - {id: a, terms: [gradle upgrade, 升级 gradle]}\n"
            "  - {id: b, terms: [gradle-upgrades, gradle 升级]}\n",
            "'gradle-upgrades' is also in concept 'a' \\(as 'gradle upgrade'\\)",
        ),
    ],
    ids=[
        "two-concepts",
        "written-twice",
        "spaced-twice",
        "spaced-in-two-concepts",
        "inflected-in-two-concepts",
    ],
)
def test_lexicon_terms_belong_to_one_concept(tmp_path: Path, concepts: str, error: str) -> None:
    vocabulary = _with_lexicon(tmp_path, "concepts:\n" + concepts)
    with pytest.raises(RegistryError, match=error):
        compile_registry([], vocabulary)


@pytest.mark.parametrize(
    ("concepts", "error"),
    [
        (
            "  - {id: a, terms: [undo, 撤销], broader: [zz]}\n",
            "`broader` names unknown concept 'zz'",
        ),
        ("  - {id: a, terms: [undo, 撤销], broader: [a]}\n", "leads back to the concept itself"),
        (
            "  - {id: a, terms: [undo, 撤销], broader: [b]}\n"
            "  - {id: b, terms: [revert, 回退], broader: [a]}\n",
            "leads back to the concept itself",
        ),
        (
            "  - {id: a, terms: [code review, 代码评审], not_in: [branch office]}\n",
            "'branch office' holds none of the concept's terms",
        ),
    ],
    ids=["unknown", "itself", "loop", "not_in-without-term"],
)
def test_concept_links_name_known_concepts_without_loops(
    tmp_path: Path, concepts: str, error: str
) -> None:
    vocabulary = _with_lexicon(tmp_path, "concepts:\n" + concepts)
    with pytest.raises(RegistryError, match=error):
        compile_registry([], vocabulary)


def test_broader_links_are_followed_to_the_end(tmp_path: Path) -> None:
    """A kind of a kind of a thing is a kind of that thing; a concept without links has none."""
    vocabulary = _with_lexicon(
        tmp_path,
        "concepts:\n"
        "  - {id: rsa_key, terms: [rsa key, rsa 密钥], broader: [private_key]}\n"
        "  - {id: private_key, terms: [private key, 私钥], broader: [secret]}\n"
        "  - {id: secret, terms: [secret, 机密]}\n",
    )
    concepts = {c["id"]: c for c in compile_registry([], vocabulary)["vocabulary"]["concepts"]}
    assert concepts["rsa_key"]["broader"] == ["private_key", "secret"]
    assert concepts["private_key"]["broader"] == ["secret"]
    assert "broader" not in concepts["secret"]


def test_a_concept_is_not_named_inside_its_not_in_phrases(tmp_path: Path) -> None:
    """A roadmap review uses the word of code review in another sense: inside it, and in a term
    overlapping it, the prompt names no code review; elsewhere in the same prompt it still does."""
    vocabulary = _with_lexicon(
        tmp_path,
        "concepts:\n"
        "  - {id: code_review, terms: [review, review meeting, 代码评审],\n"
        "     not_in: [Roadmap Review]}\n"
        "  - {id: roadmap, terms: [roadmap, 路线图]}\n",
    )
    data = compile_registry([], vocabulary)
    concepts = {c["id"]: c for c in data["vocabulary"]["concepts"]}
    assert concepts["code_review"]["not_in"] == ["roadmap review"]
    assert "not_in" not in concepts["roadmap"]
    registry = registry_from_data(data)
    matcher = registry.vocabulary.concept_matcher()

    def named(prompt: str) -> list[tuple[str, int, int]]:
        return list(registry.concept_hits(prompt))

    assert named("Plan the Roadmap Review meeting") == [("roadmap", 9, 16)]
    assert named("Review my diff before the roadmap review") == [
        ("code_review", 0, 6),
        ("roadmap", 26, 33),
    ]
    envelope = build_envelope("Plan the roadmap review meeting.", registry, matcher)
    assert envelope.concepts == ("roadmap",)
    assert build_envelope("Review my diff.", registry, matcher).concepts == ("code_review",)


def test_a_not_in_phrase_may_hold_its_term_as_the_matcher_reads_it(tmp_path: Path) -> None:
    """The phrase "a couple of" holds "coupling" only stemmed, and 积分过期 holds 分期 only with
    the infix 过 between its characters: the matcher names the concept there, so the phrase
    hides it."""
    vocabulary = _with_lexicon(
        tmp_path,
        "han_infixes: [过]\n"
        "concepts:\n"
        "  - {id: coupling, terms: [coupling, 耦合], not_in: [a couple of]}\n"
        "  - {id: installment, terms: [installment, 分期], not_in: [积分过期]}\n",
    )
    registry = registry_from_data(compile_registry([], vocabulary))

    def named(prompt: str) -> list[str]:
        return [hit[0] for hit in registry.concept_hits(prompt)]

    assert named("It takes a couple of minutes") == []
    assert named("The modules are tightly coupled") == ["coupling"]
    assert named("会员积分过期的规则") == []
    assert named("支持分期付款") == ["installment"]


COUNTED = (
    "concepts:\n"
    "  - {id: big_table, terms: [big table, 大表],\n"
    "     counts: [{at_least: 1000000, as: ['# row', '# record', '#行', '#条'],\n"
    "               not_as: ['#行代码']}]}\n"
    "  - {id: far_page, terms: [far page, 很后面的页],\n"
    "     counts: [{at_least: 100, as: ['page #', '第 # 页']},\n"
    "              {at_least: 10000, as: ['offset #']}]}\n"
)


@pytest.mark.parametrize(
    ("text", "counted"),
    [
        ("Alter the 380M rows of events", [("big_table", "380m rows")]),
        ("an 80M-row table", [("big_table", "80m-row")]),
        ("about 1.2 billion records", [("big_table", "1.2 billion records")]),
        ("2,000,000 existing rows", [("big_table", "2,000,000 existing rows")]),
        ("orders 表有 3 亿行", [("big_table", "3 亿行")]),
        ("一共八千万行，要补上", [("big_table", "八千万行")]),
        ("两亿多条", [("big_table", "两亿多条")]),
        ("1200 万条事件", [("big_table", "1200 万条")]),
        ("jump to page 5000", [("far_page", "page 5000")]),
        ("/orders?page=200&size=20", [("far_page", "page=200")]),
        ("翻到第 一百二十 页", [("far_page", "第 一百二十 页")]),
        ("LIMIT 20 OFFSET 99980", [("far_page", "offset 99980")]),
        ("300k rows", []),  # under the bar
        ("30 万条客户记录", []),
        ("page 3, offset 500", []),  # each under its own rule's bar
        ("3 million users", []),  # said in none of the templates
        ("仓库有 200 万行代码", []),  # lines of code, not rows
        ("rows: 5000000", []),  # "# row" puts the figure first
    ],
)
def test_a_count_in_figures_names_its_concept(
    tmp_path: Path, text: str, counted: list[tuple[str, str]]
) -> None:
    data = compile_registry([], _with_lexicon(tmp_path, COUNTED))
    concepts = {c["id"]: c for c in data["vocabulary"]["concepts"]}
    assert concepts["big_table"]["counts"] == [
        {"at_least": 1000000, "as": ["# record", "# row", "#条", "#行"], "not_as": ["#行代码"]}
    ]
    assert concepts["far_page"]["counts"][0] == {"at_least": 100, "as": ["page #", "第#页"]}
    matcher = registry_from_data(data).vocabulary.concept_matcher()
    lower = normalize_text(text).lower()
    found = [(h.concept, lower[h.start : h.end]) for h in matcher.find(lower)]
    assert [hit for hit in found if hit[0] in concepts] == counted


@pytest.mark.parametrize(
    "text",
    ["1" * 200_000 + "x行", "一" * 200_000 + "x条", "page" + " 1" * 100_000, "1," * 100_000 + "x"],
    ids=["digits", "numerals", "pages", "separators"],
)
def test_a_long_run_of_figures_is_read_in_linear_time(tmp_path: Path, text: str) -> None:
    """A count is read from the start of a run of figures: tried at each of 200,000 digits
    before a unit that never comes, it took hours."""
    matcher = registry_from_data(
        compile_registry([], _with_lexicon(tmp_path, COUNTED))
    ).vocabulary.concept_matcher()
    start = time.monotonic()
    matcher.find(text)
    assert time.monotonic() - start < 5


@pytest.mark.parametrize(
    ("counts", "error"),
    [
        ("{at_least: 10, as: ['# row']}", "`counts` must be a list"),
        ("[{at_least: 0, as: ['# row']}]", "must be a whole number of one or more"),
        ("[{at_least: many, as: ['# row']}]", "must be a whole number of one or more"),
        ("[{at_least: 10, as: []}]", "must name at least one template"),
        ("[{at_least: 10, as: [rows]}]", "must hold one # for the figure"),
        ("[{at_least: 10, as: ['# table rows']}]", "is neither one English word"),
        ("[{at_least: 10, as: ['page # row']}]", "is neither one English word"),
        ("[{at_least: 10, as: ['#行'], not_as: ['代码#行']}]", "does not go on from a Chinese"),
        ("[{at_least: 10, as: ['# row'], size: 3}]", "size"),
    ],
    ids=[
        "not-a-list",
        "zero",
        "word",
        "none",
        "no-slot",
        "two-words",
        "both-sides",
        "not-as",
        "key",
    ],
)
def test_a_concepts_counts_are_checked(tmp_path: Path, counts: str, error: str) -> None:
    vocabulary = _with_lexicon(
        tmp_path, f"concepts:\n  - {{id: a, terms: [undo, 撤销], counts: {counts}}}\n"
    )
    with pytest.raises(RegistryError, match=error):
        compile_registry([], vocabulary)


@pytest.mark.parametrize(
    ("text", "concept"),
    [
        ("a 380M-row table", "large_table"),
        ("两亿条数据", "large_table"),
        ("翻到第 5000 页很慢", "deep_pagination"),
        ("page 2000 takes ten seconds", "deep_pagination"),
    ],
)
def test_the_bundled_lexicon_counts_in_prompts_and_cards(text: str, concept: str) -> None:
    """A count the lexicon spells out nowhere names its concept, on both sides."""
    vocabulary = load_registry().vocabulary
    matcher = vocabulary.concept_matcher()
    assert concept in matcher.concepts(normalize_text(text).lower())
    assert concept_token(concept) in analyse_units(text, matcher, vocabulary.stopwords)


@pytest.mark.parametrize(
    ("key", "infix", "message"),
    [
        *(
            (key, infix, "is not one Han character")
            for key in ("han_infixes", "han_joiners")
            for infix in ("ab", "a", "了了")
        ),
        *(
            ("word_infixes", infix, "is not one lower-case English word")
            for infix in ("has been", "是", "is1", "is-a")
        ),
    ],
)
def test_lexicon_infixes_are_single_items(
    tmp_path: Path, key: str, infix: str, message: str
) -> None:
    vocabulary = _with_lexicon(
        tmp_path, f"{key}: [{infix}]\nconcepts:\n  - {{id: a, terms: [undo, 撤销]}}\n"
    )
    with pytest.raises(RegistryError, match=message):
        compile_registry([], vocabulary)


def test_the_envelope_word_lists_are_data(tmp_path: Path) -> None:
    """Clause words, command programs and path extensions come from envelope.yaml."""
    vocabulary = tmp_path / "vocabulary"
    shutil.copytree(SIGNALS_DIR / "vocabulary", vocabulary)
    text = (vocabulary / "envelope.yaml").read_text(encoding="utf-8")
    text = text.replace("command_programs: [git,", "command_programs: [zorp, git,", 1)
    text = text.replace("path_extensions: [py,", "path_extensions: [qux, py,", 1)
    (vocabulary / "envelope.yaml").write_text(text, encoding="utf-8")
    registry = registry_from_data(compile_registry([], vocabulary))
    assert "zorp" in registry.vocabulary.command_programs
    assert {"also", "另外"} <= set(registry.vocabulary.clause_connectors)
    matcher = registry.vocabulary.concept_matcher()
    env = build_envelope("zorp deploy --fast, open notes.qux", registry, matcher)
    assert env.commands == ("zorp deploy --fast",) and env.files == ("notes.qux",)
    two = build_envelope("fix the login page also update the docs", registry, matcher)
    first, second = two.clauses
    assert "login" in first and "login" not in second and "doc" in second


def test_the_compiled_registry_carries_the_han_infixes_and_joiners() -> None:
    vocabulary = load_registry().vocabulary
    assert vocabulary.han_infixes and all(len(c) == 1 for c in vocabulary.han_infixes)
    assert vocabulary.concept_matcher().han_infixes == "".join(sorted(vocabulary.han_infixes))
    assert "和" in vocabulary.han_joiners
    assert vocabulary.concept_matcher().han_joiners == "".join(sorted(vocabulary.han_joiners))


def test_the_compiled_registry_carries_the_word_infixes() -> None:
    vocabulary = load_registry().vocabulary
    assert {"is", "has", "was"} <= set(vocabulary.word_infixes)
    matcher = vocabulary.concept_matcher()
    assert matcher.word_infixes == frozenset(vocabulary.word_infixes)
    assert "certificate_expiry" in matcher.concepts("the certificate has expired")


@pytest.mark.parametrize(
    ("statement", "forbidden"),
    [
        ("import ome.registry", ("yaml", "ruamel", "click", "regex")),
        ("import ome.registry; ome.registry.load_registry()", ("yaml", "ruamel", "click")),
    ],
    ids=["import", "load-bundled"],
)
def test_hook_path_stays_off_yaml_ruamel_and_click(
    statement: str, forbidden: tuple[str, ...]
) -> None:
    script = f"import json, sys; {statement}; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=REPO_ROOT
    ).stdout
    loaded = {name.split(".")[0] for name in orjson.loads(out)}
    assert not loaded & set(forbidden)


# --- command line -------------------------------------------------------------------------


def test_cli_list_json_lists_every_signal() -> None:
    result = CliRunner().invoke(signals_group, ["list", "--json"])
    assert result.exit_code == 0, result.output
    doc = orjson.loads(result.output)
    ids = [s["id"] for s in doc["signals"]]
    assert ids == sorted(ids) and {"goal_execute", "ui_surface"} <= set(ids)
    assert set(doc["signals"][0]) >= {"id", "polarity", "pack", "reason", "routes"}


def test_cli_list_human_is_a_table() -> None:
    result = CliRunner().invoke(signals_group, ["list"])
    assert result.exit_code == 0
    assert result.output.splitlines()[0].split() == ["ID", "POLARITY", "PACK", "ROUTES", "REASON"]


def test_cli_test_shows_hits_and_suppressions() -> None:
    prompt = "When I say /goal in the docs, what happens?"
    result = CliRunner().invoke(signals_group, ["test", prompt, "--json"])
    assert result.exit_code == 0, result.output
    doc = orjson.loads(result.output)
    assert {"id": "goal_execute", "by": "goal_example_discussion"} in doc["suppressed"]
    hit = next(h for h in doc["hits"] if h["id"] == "goal_example_discussion")
    assert normalize_text(prompt)[hit["start"] : hit["end"]] == hit["text"]
    human = CliRunner().invoke(signals_group, ["test", prompt])
    assert "goal_example_discussion" in human.output
    assert "suppressed: goal_execute (by goal_example_discussion)" in human.output


def test_cli_test_says_when_nothing_fires() -> None:
    result = CliRunner().invoke(signals_group, ["test", "hello"])
    assert result.exit_code == 0 and "No signal fired." in result.output


def test_cli_build_check_passes_on_the_committed_registry() -> None:
    result = CliRunner().invoke(signals_group, ["build", "--check"])
    assert result.exit_code == 0, result.output
    assert "up to date" in result.output


def test_cli_reports_a_broken_user_pack_in_one_line(tmp_path: Path) -> None:
    path = _write(tmp_path / "data" / "signals" / "bad.yaml", "pack: x\nsignals: 3\n")
    result = CliRunner().invoke(signals_group, ["list", "--data-dir", str(tmp_path / "data")])
    assert result.exit_code == 1
    assert str(path) in result.output and len(result.output.strip().splitlines()) == 1


def test_a_lexicon_term_that_analyses_to_one_word_is_refused(tmp_path: Path) -> None:
    """'push -f' loses its flag and would match every 'push': the build says so."""
    vocabulary = tmp_path / "vocabulary"
    shutil.copytree(SIGNALS_DIR / "vocabulary", vocabulary)
    lexicon = vocabulary / "lexicon.yaml"
    text = lexicon.read_text(encoding="utf-8")
    lexicon.write_text(
        text.replace("  - {id: force_push, terms: [", "  - {id: force_push, terms: [push -f, ", 1),
        encoding="utf-8",
    )
    with pytest.raises(RegistryError) as caught:
        compile_registry([], vocabulary)
    assert "'push -f' analyses to the single word 'push'" in str(caught.value)


@pytest.mark.parametrize(
    ("prompt", "dropped"),
    [
        # Tokens are stemmed ("please" -> "pleas"), so the stopword list must match stems.
        ("Please check the cache above, before the deploy", {"pleas", "abov", "befor"}),
        # "We're", "doesn't" and "can't" are read as the tokens "re", "doesn" and "cannot".
        ("We're sure it doesn't deploy, and we can't roll back", {"re", "doesn", "cannot"}),
    ],
    ids=["stemmed", "contractions"],
)
def test_a_stopword_is_dropped_in_every_form_it_is_read_in(prompt: str, dropped: set[str]) -> None:
    """A stopword carries no topic however the analysis reads it: stemmed, or a contraction
    split at its apostrophe; the words around it stay."""
    registry = load_registry()
    env = build_envelope(prompt, registry, registry.vocabulary.concept_matcher())
    assert not dropped & set(env.terms)
    assert "deploy" in env.terms


def test_a_word_does_not_stem_into_a_stopword() -> None:
    """A content word keeps its meaning: "notes" stems to "note", not to the stopword "not"."""
    registry = load_registry()
    env = build_envelope("Write the release notes", registry, registry.vocabulary.concept_matcher())
    assert {"releas", "note"} <= set(env.terms)


def test_a_concept_word_does_not_stem_into_another_word() -> None:
    """The word "locale" keeps its e: local commits are no locale, a user locale still is."""
    matcher = load_registry().vocabulary.concept_matcher()
    assert "locale" not in matcher.concepts("squash my local commits")
    assert "locale" in matcher.concepts("read the user's locales")


@pytest.mark.parametrize(
    ("prompt", "fires"),
    [
        ("restart the zebra after the widget hangs", True),
        ("restart the zebra. the widget hangs", False),
        ("重启斑马之后小部件卡住", True),
        ("重启斑马。小部件卡住", False),
        ("restart zebra.py, the widget hangs", True),  # a dot inside a file name ends nothing
    ],
)
def test_a_near_composition_stays_inside_one_sentence(
    tmp_path: Path, prompt: str, fires: bool
) -> None:
    signal = GOOD_SIGNAL.replace(
        "phrases: [zebra widget]",
        "near:\n      - groups: [[zebra, 斑马], [widget, 小部件]]\n        window: 40",
    )
    data = compile_registry(
        [_write(tmp_path / "p.yaml", _pack(signal))], SIGNALS_DIR / "vocabulary"
    )
    registry = registry_from_data(data)
    assert ("zebra_widget" in detect_signals(registry, normalize_text(prompt)).fired_ids) is fires
