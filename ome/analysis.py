"""Text analysis shared by cards and prompts: normalisation, code-aware tokens, CJK bigrams, stems.

Both sides of a match go through the same functions, so a token means the same thing in a card
field and in a prompt. Nothing here knows any vocabulary: stopwords arrive as arguments.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from ome import params
from ome.traditional import SIMPLIFIED, TRADITIONAL

# A prompt is analysed up to this many characters (after normalisation). A page of background
# is about 5,000; 20,000 keeps a 1 MB paste within the hook's deadline.
MAX_ANALYSED_CHARS = 20_000

_FENCE_RE = re.compile(r"```[^\n]*\n(.*?)(?:```|\Z)", re.S)
# Stack-frame lines (Python, JS/Java, Go, Rust) carry file names but drown the task in noise.
_FRAME_RE = re.compile(
    r"^\s*(?:File \"[^\"]*\", line \d+.*|at [\w.$<>\[\]]+ ?\(.*\)|at .+:\d+:\d+\)?"
    r"|#\d+ 0x[0-9a-f]+ .*|\S+\.go:\d+ \+0x[0-9a-f]+)\s*$",
    re.M | re.I,
)
# ASCII word characters that may appear inside one technical token: paths, dotted names, flags.
# "can't" is one token: split at its apostrophe it would leave "can", the opposite word ("so we can
# merge" is not "can't merge"); the other contractions keep a stem of their own ("don", "won").
_ASCII_TOKEN_RE = re.compile(
    r"[Cc][Aa][Nn]'[Tt](?![A-Za-z0-9_$])"
    r"|[A-Za-z0-9_$][A-Za-z0-9_$./\\:@+#-]*[A-Za-z0-9_$]|[A-Za-z0-9_$]"
)
_CAMEL_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
# Two capitalised words run together: a name ("GitHub") or a class ("LedgerExporter").
_WORD_PAIR_RE = re.compile(r"([A-Z][a-z]+)([A-Z][a-z]+)")
_SPLIT_RE = re.compile(r"[_./\\:@+#$-]+")
# The characters analysed as CJK (Han, kana, Hangul), as a regex class.
HAN_CLASS = r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]"
_HAN_RUN_RE = re.compile(HAN_CLASS + "+")
_NOT_HAN_CLASS = "[^\\s`" + HAN_CLASS[1:]
# Spaces between a CJK character and another (an English word, a digit): writers put them there
# or leave them out ("金额用 double", "金额用double"), and mark code with backticks or not ("跑一条
# `UPDATE`"), so Chinese phrases are compared without them. Spaces between two CJK characters
# separate, and stay.
_HAN_SPACE_RE = re.compile(
    rf"(?<={HAN_CLASS})[\s`]+(?={_NOT_HAN_CLASS})|(?<={_NOT_HAN_CLASS})[\s`]+(?={HAN_CLASS})"
)
_VOWEL_GROUP_RE = re.compile(r"[aeiouy]+")
# Curly quotes pasted from chat apps fold to straight ones ("don’t" is "don't").
_QUOTES = str.maketrans("\u2018\u2019\u201c\u201d", "''\"\"")


@functools.cache
def _folds() -> dict[int, int]:
    """What `fold_chars` maps character for character: curly quotes to straight ones, and
    Traditional Chinese characters to their usual Simplified forms (`ome.traditional`), so a
    prompt or card written in either script meets the other, the lexicon and the gloss table,
    which are Simplified. One character for one keeps every offset."""
    return str.maketrans(TRADITIONAL, SIMPLIFIED) | _QUOTES


@dataclass(frozen=True, slots=True)
class Token:
    """One analysed token: the matching `term` and the char span of its surface text."""

    term: str
    start: int
    kind: str  # "word" | "part" | "code" | "han"
    end: int


# Circled numbers number list items ("① ... ② ..."); NFKC reads "①" as a bare "1", which
# numbers nothing, so they become "(1)" first. A full-width colon ends a clause even between
# two code tokens ("no schema change：orders.currency"), where NFKC's ASCII colon would join
# them into one, so it becomes a colon and a space.
_BEFORE_NFKC = str.maketrans(
    {c: f"({n})" for n, c in enumerate("①②③④⑤⑥⑦⑧⑨⑩", 1)}
    | {c: f"({n})" for n, c in enumerate("❶❷❸❹❺❻❼❽❾❿", 1)}
    | {"：": ": "}
)


def nfkc(text: str) -> str:
    """NFKC-fold a text (full-width forms to ASCII), circled numbers to "(1)" and a full-width
    colon to ": " first."""
    return text if text.isascii() else unicodedata.normalize("NFKC", text.translate(_BEFORE_NFKC))


def fold_chars(text: str) -> str:
    """The text with curly quotes straight and Traditional characters Simplified (`_folds`)."""
    return text if text.isascii() else text.translate(_folds())


def normalize_text(text: str) -> str:
    """NFKC-fold (full-width forms, curly quotes, Traditional characters), drop stack frames,
    read a short code fence as text and replace a long one by its tokens. Lower-casing is left
    to the caller: camelCase splitting needs the case."""
    folded = fold_chars(nfkc(text))
    folded = _FENCE_RE.sub(_fence_text, folded)
    folded = _FRAME_RE.sub(" ", folded)
    return folded[:MAX_ANALYSED_CHARS]


def _fence_text(match: re.Match[str]) -> str:
    body = match.group(1)
    if body.count("\n") < params.SHORT_FENCE_LINES and len(body) <= params.SHORT_FENCE_CHARS:
        return " " + body + " "
    return " " + " ".join(_fence_tokens(body)) + " "


def _fence_tokens(code: str) -> list[str]:
    seen: dict[str, None] = {}
    for match in _ASCII_TOKEN_RE.finditer(code):
        word = match.group(0)
        if len(word) > 2 and (any(c in word for c in "_./-:") or _has_inner_upper(word)):
            seen.setdefault(word, None)
    return list(seen)[:200]


def _has_inner_upper(word: str) -> bool:
    return any(c.isupper() for c in word[1:]) and any(c.islower() for c in word)


def is_han(char: str) -> bool:
    """True for characters analysed as CJK (Han, kana, Hangul)."""
    return bool(_HAN_RUN_RE.match(char))


@functools.lru_cache(maxsize=8)
def without_han_spaces(text: str) -> tuple[str, tuple[int, ...] | None]:
    """The text without the spaces (and code backticks) that part a CJK character from another
    kind, and the offset in `text` of each character kept (None when there were none: the text
    is returned as it is). Cached: every phrase of every candidate card is sought in the one
    prompt."""
    removed = [m.span() for m in _HAN_SPACE_RE.finditer(text)]
    if not removed:
        return text, None
    gone = {i for start, end in removed for i in range(start, end)}
    kept = tuple(i for i in range(len(text)) if i not in gone)
    return "".join(text[i] for i in kept), kept


def is_ascii_alnum(char: str) -> bool:
    """True for an ASCII letter or digit: where a phrase's edge must not touch another one."""
    return char.isascii() and char.isalnum()


def has_han(text: str) -> bool:
    """True when any character of the text is analysed as CJK (`is_han`)."""
    return not text.isascii() and _HAN_RUN_RE.search(text) is not None


def stem(word: str) -> str:
    """A light English suffix stripper, so 'deploys', 'deployed', 'deploying' meet 'deploy'.

    Only inflections and the -ion and -al nominalisations are removed, and British spellings meet
    American ones; stems shorter than three letters are never produced. Words with digits or
    non-letters are returned unchanged.
    """
    if not word.isascii() or not word.isalpha() or len(word) <= 3:
        return word
    w = word
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is", "ous")) and len(w) > 3:
        w = w[:-1]
    for suffix in ("ing", "ed"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)]
            if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":
                w = w[:-1]
            elif _short_syllable(w):
                w += "e"  # "noting" meets "note", "writing" meets "write"
            break
    else:
        # "-ation", "-etion", "-ition", "-ution" meet their verbs (migration, migrate); "-ction"
        # and "-sion" do not strip: production is not product, session is not "sess".
        if w.endswith(("ation", "etion", "ition", "ution")) and len(w) - 3 >= 4:
            w = w[:-3]
        # So does a noun in -al made from a verb in v, w or s: "approval" meets "approve",
        # "renewal" "renew", "proposal" "propose". After other letters -al makes no such pair
        # ("signal" is not "sign", "portal" not "port").
        elif w.endswith(("val", "wal", "sal")) and len(w) >= 6:
            w = w[:-2]
    # A final e goes ("release" meets "releasing"), but not after one short syllable: "note" is
    # not the stopword "not", "plane" is not "plan", "pipe" is not "pip" (Porter's step 5a);
    # nor after -al, which would make another word of it: "locale" is not "local", "rationale"
    # not "rational", "finale" not "final".
    if w.endswith("e") and len(w) > 3 and not _short_syllable(w[:-1]) and not w.endswith("ale"):
        w = w[:-1]
    # British spelling doubles the l of a verb of two syllables or more before -ed and -ing
    # ("cancelled", "labelling"; "spelled" keeps its own), and writes -ise for -ize
    # ("normalise", "organisation").
    if w.endswith("ell") and len(_VOWEL_GROUP_RE.findall(w)) >= 2:
        w = w[:-1]
    for british, american in (("is", "iz"), ("isat", "izat")):
        if len(w) >= 6 and w.endswith(british) and w[-len(british) - 1] not in "aeiou":
            w = w[: -len(british)] + american
            break
    return w


def _short_syllable(w: str) -> bool:
    """True for a stem of one vowel-consonant group ending consonant-vowel-consonant, the last
    consonant not w, x or y ("not", "plan", "writ"; not "open", "cach", "play")."""
    shape = "".join(
        "v" if c in "aeiou" or (c == "y" and i > 0 and w[i - 1] not in "aeiou") else "c"
        for i, c in enumerate(w)
    )
    return shape.count("vc") == 1 and shape.endswith("cvc") and w[-1] not in "wxy"


# A token as a plain (term, start, kind, end) tuple, Token's fields in order: the index build
# makes about a hundred per card, and a frozen dataclass costs several times a tuple to create.
Span = tuple[str, int, str, int]

# Tokens of one ASCII run, relative to its start, by run: a library repeats its words, so each
# distinct run is split and stemmed once per process. Cleared when full (prompts are capped).
_RUN_TOKENS: dict[str, tuple[Span, ...]] = {}
_RUN_TOKENS_MAX = 50_000


def _run_tokens(raw: str) -> tuple[Span, ...]:
    """The tokens of one ASCII token-regex match, with spans relative to its start."""
    lower = raw.lower()
    if lower == "can't":
        return (("cannot", 0, "word", len(raw)),)
    parts = [p for p in _SPLIT_RE.split(raw) if p]
    pieces: list[str] = []
    for part in parts:
        camel = _CAMEL_RE.findall(part)
        # lowerCamel and long PascalCase are identifiers; two-part PascalCase words are
        # usually names (GitHub, JavaScript) and stay whole, so `github` never yields `git`
        # (a prompt's reading adds the words of those the lexicon does not know: `pair_words`).
        split = len(camel) > 2 or (len(camel) == 2 and part[0].islower())
        pieces.extend(camel if split else [part])
    if len(pieces) <= 1 and lower.isalnum():
        # A lone letter is the tail of a contraction ("what's") or a variable name: noise.
        if len(lower) > 1 or lower.isdigit():
            return ((stem(lower), 0, "word", len(raw)),)
        return ()
    tokens: list[Span] = [(lower.strip("./\\:-"), 0, "code", len(raw))]
    offset = 0
    for piece in pieces:
        offset = raw.find(piece, offset)
        tokens.append((stem(piece.lower()), offset, "part", offset + len(piece)))
        offset += len(piece)
    return tuple(tokens)


def _span_order(span: Span) -> tuple[int, bool, str]:
    return span[1], span[2] != "code", span[0]


def _run(raw: str) -> tuple[Span, ...]:
    run = _RUN_TOKENS.get(raw)
    if run is None:
        run = _run_tokens(raw)
        if len(_RUN_TOKENS) >= _RUN_TOKENS_MAX:
            _RUN_TOKENS.clear()
        _RUN_TOKENS[raw] = run
    return run


def _shifted(run: tuple[Span, ...], start: int) -> list[Span]:
    return [(term, s + start, kind, e + start) for term, s, kind, e in run]


def cased_token_spans(text: str) -> tuple[list[Span], list[Span]]:
    """`token_spans` of a text and of its lower-cased form (what concepts are matched on).

    Lower-casing ASCII text moves no token boundary, so both come from one pass over it.
    """
    lower = text.lower()
    if lower == text:
        same = token_spans(text)
        return same, same
    if not text.isascii():
        return token_spans(text), token_spans(lower)
    spans: list[Span] = []
    lower_spans: list[Span] = []
    for match in _ASCII_TOKEN_RE.finditer(text):
        raw = match.group(0)
        start = match.start()
        spans.extend(_shifted(_run(raw), start))
        lower_spans.extend(_shifted(_run(raw.lower()), start))
    return spans, lower_spans


def token_spans(text: str) -> list[Span]:
    """`tokenize` as plain (term, start, kind, end) tuples, for callers making thousands."""
    spans: list[Span] = []
    known = _RUN_TOKENS
    for match in _ASCII_TOKEN_RE.finditer(text):
        raw = match.group(0)
        run = known.get(raw)
        if run is None:
            run = _run(raw)
        start = match.start()
        if start:
            spans.extend([(term, s + start, kind, e + start) for term, s, kind, e in run])
        else:
            spans.extend(run)
    if text.isascii():
        # Runs come out in text order, a code token before its first part: already sorted.
        return spans
    for match in _HAN_RUN_RE.finditer(text):
        run_text = match.group(0)
        start = match.start()
        if len(run_text) == 1:
            spans.append((run_text, start, "han", start + 1))
            continue
        for i in range(len(run_text) - 1):
            spans.append((run_text[i : i + 2], start + i, "han", start + i + 2))
        if 2 < len(run_text) <= params.MAX_WHOLE_HAN_RUN:
            spans.append((run_text, start, "han", match.end()))
    spans.sort(key=_span_order)
    return spans


def tokenize(text: str) -> list[Token]:
    """Split NFKC text into tokens: whole code tokens, their parts, stemmed words, Han bigrams.

    `getUserName` gives `getusername`, `get`, `user`, `name`; `alembic/versions/x.py` keeps the
    whole path and its parts; a Han run gives its bigrams, and the run itself when short.
    """
    return [Token(*span) for span in token_spans(text)]


def pair_words(token: Token, text: str) -> tuple[Token, ...]:
    """The two words of a token written as two capitalised words ("LedgerExporter": ledger,
    exporter), as parts; nothing for any other token. `tokenize` keeps such a token whole."""
    match = _WORD_PAIR_RE.fullmatch(text, token.start, token.end)
    if match is None:
        return ()
    return tuple(
        Token(stem(match[i].lower()), match.start(i), "part", match.end(i)) for i in (1, 2)
    )


def terms(text: str, stopwords: frozenset[str] = frozenset()) -> list[str]:
    """The matching terms of a text, in order, without stopwords."""
    return [t.term for t in tokenize(normalize_text(text)) if t.term not in stopwords]


def phrase_terms(text: str, stopwords: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """Terms of a short phrase (trigger, alias) with duplicates removed, order kept."""
    return tuple(dict.fromkeys(terms(text, stopwords)))


def han_runs(text: str) -> list[str]:
    """The runs of Han characters in a text, in order."""
    return _HAN_RUN_RE.findall(text)


def han_chars(texts: Iterable[str]) -> str:
    """All distinct Han characters in the texts, sorted (for pinyin tables and diagnostics)."""
    chars = {c for text in texts for c in text if is_han(c)}
    return "".join(sorted(chars))


__all__ = [
    "MAX_ANALYSED_CHARS",
    "Span",
    "Token",
    "cased_token_spans",
    "fold_chars",
    "han_chars",
    "han_runs",
    "has_han",
    "is_ascii_alnum",
    "is_han",
    "nfkc",
    "normalize_text",
    "pair_words",
    "phrase_terms",
    "stem",
    "terms",
    "token_spans",
    "tokenize",
    "without_han_spaces",
]
