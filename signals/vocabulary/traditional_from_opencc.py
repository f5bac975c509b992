"""Write ome/traditional.py from OpenCC's Traditional-to-Simplified character table.

    python signals/vocabulary/traditional_from_opencc.py TSCharacters.txt > ome/traditional.py

TSCharacters.txt ships with OpenCC (https://github.com/BYVoid/OpenCC, Apache License 2.0) and
with its pure-Python port on PyPI (opencc-python-reimplemented, under opencc/dictionary/). Each
of its lines is a Traditional character, a tab, and the Simplified characters it may become,
the usual one first. The module this writes keeps that first one, and leaves out a character
whose usual form is itself (彷, 覆: Simplified text writes them too). The table is a module, not
a file beside the lexicon, because the analysis that reads it does no I/O.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator

HEADER = '''\
"""Traditional Chinese characters and their usual Simplified forms, one for one: the character
at each position of TRADITIONAL becomes the one at that position of SIMPLIFIED.

Derived from OpenCC's TSCharacters.txt (https://github.com/BYVoid/OpenCC), Apache License 2.0,
by signals/vocabulary/traditional_from_opencc.py; regenerate it rather than edit it.
"""
'''
_PER_LINE = 40  # characters per source line: Han characters are two columns wide


def pairs(lines: Iterable[str]) -> Iterator[tuple[str, str]]:
    """(Traditional, Simplified) for each line whose first Simplified form is another character."""
    for line in lines:
        traditional, _, forms = line.rstrip("\n").partition("\t")
        first = forms.split(" ")[0]
        if len(traditional) == 1 and len(first) == 1 and first != traditional:
            yield traditional, first


def _literal(name: str, text: str) -> str:
    rows = [text[i : i + _PER_LINE] for i in range(0, len(text), _PER_LINE)]
    return f"{name} = (\n" + "".join(f'    "{row}"\n' for row in rows) + ")\n"


def main(path: str) -> None:
    with open(path, encoding="utf-8") as source:
        table = sorted(set(pairs(source)))
    sys.stdout.write(HEADER + "\n")
    sys.stdout.write(_literal("TRADITIONAL", "".join(t for t, _ in table)))
    sys.stdout.write(_literal("SIMPLIFIED", "".join(s for _, s in table)))
    sys.stdout.write('\n__all__ = ["SIMPLIFIED", "TRADITIONAL"]\n')


if __name__ == "__main__":
    main(sys.argv[1])
