"""Write glosses.tsv from a CC-CEDICT file.

    python signals/vocabulary/glosses_from_cedict.py cedict_ts.u8 > signals/vocabulary/glosses.tsv

CC-CEDICT (https://cc-cedict.org/wiki/, published by MDBG) is licensed CC BY-SA 4.0; the table
this writes is an adaptation of it under the same license. For each simplified headword of two to
six Han characters it keeps the first two senses that read as a plain English word or two
("(computing) to roll back" gives "roll back"), leaving out classifiers, surnames, variants,
cross-references and abbreviations. Lines are sorted, so the engine finds a word by bisection.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator

_ENTRY = re.compile(r"(\S+) (\S+) \[[^\]]*\] /(.*)/\s*$")
_HAN_WORD = re.compile(r"[\u4e00-\u9fff]{2,6}")
_NOT_A_GLOSS = re.compile(
    r"CL:|surname|variant of|see |abbr\.|used in|\bsb\b|\bsth\b|place name|pr\.|\bname\b", re.I
)
_SENSES = 2  # senses kept per entry: later ones are rarer readings
_WORDS = 2  # words a kept sense may have

HEADER = """\
# English glosses of Chinese words: headword, a tab, then its senses separated by "; ".
# Adapted from CC-CEDICT (https://cc-cedict.org/wiki/, published by MDBG), licensed under the
# Creative Commons Attribution-ShareAlike 4.0 International License
# (https://creativecommons.org/licenses/by-sa/4.0/); this file is distributed under the same
# license. Written by glosses_from_cedict.py from the CC-CEDICT release of {date}.
"""


def senses(definitions: Iterable[str]) -> Iterator[str]:
    """The definitions that read as a plain word or two, cleaned, at most _SENSES of them."""
    kept = 0
    for definition in definitions:
        if _NOT_A_GLOSS.search(definition):
            continue
        text = re.sub(r"\([^)]*\)", " ", definition)
        text = " ".join(text.split())
        text = text.removeprefix("to ")
        if not text or len(text.split()) > _WORDS:
            continue
        yield text
        kept += 1
        if kept == _SENSES:
            return


def gloss_lines(lines: Iterable[str]) -> tuple[str, list[str]]:
    """The release date and the sorted `headword<TAB>sense; sense` lines of a CC-CEDICT text."""
    date = "an unknown date"
    table: dict[str, list[str]] = {}
    for line in lines:
        if line.startswith("#! date="):
            date = line.removeprefix("#! date=").strip()[:10]
        if line.startswith("#") or not (entry := _ENTRY.match(line)):
            continue
        headword = entry.group(2)
        if not _HAN_WORD.fullmatch(headword):
            continue
        known = table.setdefault(headword, [])
        known.extend(s for s in senses(entry.group(3).split("/")) if s not in known)
    return date, sorted(f"{word}\t{'; '.join(found)}" for word, found in table.items() if found)


def main(path: str) -> None:
    with open(path, encoding="utf-8") as source:
        date, lines = gloss_lines(source)
    sys.stdout.write(HEADER.format(date=date) + "".join(line + "\n" for line in lines))


if __name__ == "__main__":
    main(sys.argv[1])
