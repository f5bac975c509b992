from __future__ import annotations

import os
from pathlib import Path

import pytest

from ome.config import load_config
from ome.errors import UnsafeIdError
from ome.library import (
    Source,
    atomic_write_text,
    card_path,
    check_card_id,
    find_project_root,
    library_sources,
    load_library,
)


def card_text(card_id: str, summary: str = "A lesson.", status: str = "active") -> str:
    return (
        f"---\nschema: ome-card\nid: {card_id}\nstatus: {status}\ntitle: {card_id}\n"
        f"summary: {summary}\nrecall:\n  triggers: [{card_id} trigger]\n---\n\n"
        "## Full Rule\n\n```text\nDo it right.\n```\n"
    )


def write_card(root: Path, card_id: str, status: str = "active", text: str | None = None) -> Path:
    path = root / "experiences" / status / f"{card_id}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text if text is not None else card_text(card_id, status=status), "utf-8")
    return path


def test_one_invalid_card_never_hides_the_others(tmp_path: Path) -> None:
    write_card(tmp_path, "good-one")
    write_card(tmp_path, "broken", text="---\nid: broken\nsummary: [unclosed\n---\n")
    write_card(tmp_path, "good-two")
    library = load_library([Source("global", tmp_path)])
    assert [c.card.id for c in library.cards] == ["good-one", "good-two"]
    assert len(library.invalid) == 1
    assert "broken.md" in library.invalid[0].problems[0]


def test_status_must_agree_with_folder(tmp_path: Path) -> None:
    write_card(tmp_path, "misplaced", status="active", text=card_text("misplaced", status="draft"))
    library = load_library([Source("global", tmp_path)])
    assert not library.cards
    assert "status is 'draft'" in library.invalid[0].problems[0]


def test_huge_card_is_skipped(tmp_path: Path) -> None:
    write_card(tmp_path, "huge", text=card_text("huge", summary="x" * 2_000_000))
    library = load_library([Source("global", tmp_path)])
    assert not library.cards and "limit" in library.invalid[0].problems[0]


def test_symlink_out_of_library_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text(card_text("sneaky"), "utf-8")
    lib = tmp_path / "lib"
    (lib / "experiences" / "active").mkdir(parents=True)
    os.symlink(outside, lib / "experiences" / "active" / "sneaky.md")
    library = load_library([Source("global", lib)])
    assert not library.cards
    assert "outside its library" in library.invalid[0].problems[0]


@pytest.mark.parametrize("bad", ["../x", "/etc/passwd", "a/b", "..", "x\\y", "UPPER"])
def test_unsafe_ids_are_refused(bad: str, tmp_path: Path) -> None:
    with pytest.raises(UnsafeIdError):
        check_card_id(bad)
    with pytest.raises(UnsafeIdError):
        card_path(tmp_path, bad, "active")


def test_atomic_write_refuses_symlink_target(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep", "utf-8")
    lib = tmp_path / "lib"
    lib.mkdir()
    os.symlink(target, lib / "card.md")
    with pytest.raises(UnsafeIdError):
        atomic_write_text(lib / "card.md", "new", lib)
    assert target.read_text("utf-8") == "keep"


def test_atomic_write_creates_file(tmp_path: Path) -> None:
    atomic_write_text(tmp_path / "a" / "b.md", "hello", tmp_path)
    assert (tmp_path / "a" / "b.md").read_text("utf-8") == "hello"
    assert not [p for p in (tmp_path / "a").iterdir() if p.name.endswith(".tmp")]


def test_monorepo_library_is_found_from_a_sub_package(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".oh-my-experience").mkdir()
    package = repo / "packages" / "web"
    package.mkdir(parents=True)
    (package / "package.json").write_text("{}", "utf-8")
    assert find_project_root(package) == repo


def test_project_root_falls_back_to_git_then_manifest(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    assert find_project_root(repo / "src") == repo
    loose = tmp_path / "loose" / "pkg"
    loose.mkdir(parents=True)
    (loose / "pyproject.toml").write_text("", "utf-8")
    assert find_project_root(loose) == loose


def test_global_data_dir_is_not_a_project(isolated_home: Path) -> None:
    data = isolated_home / ".oh-my-experience"
    data.mkdir()
    work = isolated_home / "scratch"
    work.mkdir()
    assert find_project_root(work, data) is None


def test_sources_in_precedence_order(tmp_path: Path, data_dir: Path) -> None:
    config = load_config(data_dir)
    layers = [s.layer for s in library_sources(config, tmp_path)]
    assert layers == ["bundled", "global", "project"]
