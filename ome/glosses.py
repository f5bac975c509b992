"""English glosses of Chinese words (from CC-CEDICT): a bridge between a prompt and a card
written in different languages.

The concept lexicon bridges the engineering concepts it names; a dictionary bridges the rest of
a description ("园丁给番茄浇水" and "the gardener waters the tomatoes"). A Han run is cut into
dictionary words by longest match, and each word adds the terms of its English senses. A
`Glossary` belongs to the registry's vocabulary; its table is read once per process, and only
when some text holds Han characters.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ome.analysis import han_runs, has_han, terms
from ome.resources import resource_dir

# The longest headword looked up (the table holds two to six Han characters).
_LONGEST = 6


def glosses_path() -> Path:
    """The bundled gloss table (`signals/vocabulary/glosses.tsv`)."""
    return resource_dir("signals") / "vocabulary" / "glosses.tsv"


@lru_cache(maxsize=2)
def _table(path: Path) -> bytes:
    """A table file (empty when missing). Its lines are sorted, header first ("#" sorts before
    any Han character), so a word is found by bisection over the bytes themselves: UTF-8 keeps
    code point order, and nothing is split or decoded up front."""
    try:
        return path.read_bytes()
    except OSError:
        return b""


def _senses(data: bytes, word: str) -> str | None:
    """The senses of one headword in a table, or None."""
    key = word.encode() + b"\t"
    lo, hi = 0, len(data)  # `lo` is always the start of a line
    while lo < hi:
        start = max(lo, data.rfind(b"\n", lo, (lo + hi) // 2) + 1)
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        line = data[start:end]
        if line.startswith(key):
            return line[len(key) :].decode()
        if line < key:
            lo = end + 1
        else:
            hi = start
    return None


@lru_cache(maxsize=4096)
def _run_glosses(path: Path, run: str, skip: frozenset[str]) -> tuple[str, ...]:
    """The sense texts of one Han run's dictionary words, longest match first, `skip`ped words
    (Chinese stopwords such as 之后 "after") consumed without a gloss."""
    data = _table(path)
    found: list[str] = []
    i = 0
    while i < len(run):
        for size in range(min(_LONGEST, len(run) - i), 1, -1):
            word = run[i : i + size]
            senses = _senses(data, word)
            if senses is not None:
                if word not in skip:
                    found.append(senses)
                i += size
                break
        else:
            i += 1
    return tuple(found)


@dataclass(frozen=True, slots=True)
class Glossary:
    """A gloss table: sorted `headword<TAB>sense; sense` lines after `#` header lines. The
    registry's vocabulary holds the bundled one; `path=None` glosses nothing."""

    path: Path | None = None

    def glosses(
        self, text: str, stopwords_zh: frozenset[str], stopwords: frozenset[str]
    ) -> frozenset[str]:
        """The English terms the Chinese words of `text` translate to, without stopwords."""
        return frozenset(
            term for word in self.word_senses(text, stopwords_zh, stopwords) for term in word
        )

    def word_senses(
        self, text: str, stopwords_zh: frozenset[str], stopwords: frozenset[str]
    ) -> tuple[frozenset[str], ...]:
        """The English terms of each dictionary word of `text`'s Chinese, in order."""
        if self.path is None or not has_han(text):
            return ()
        return _text_senses(self.path, text, stopwords_zh, stopwords)


@lru_cache(maxsize=8192)
def _text_senses(
    path: Path, text: str, stopwords_zh: frozenset[str], stopwords: frozenset[str]
) -> tuple[frozenset[str], ...]:
    """`Glossary.word_senses`, kept: every prompt asks again for the same card phrases."""
    return tuple(
        frozenset(terms(senses.replace(";", " "), stopwords))
        for run in han_runs(text)
        for senses in _run_glosses(path, run, stopwords_zh)
    )


__all__ = ["Glossary", "glosses_path"]
