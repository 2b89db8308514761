"""What a code chunk's lines do not say about themselves: the words inside its identifiers, the doc comments of
the class or namespace it sits in, and what the file says it is for.

A method cut on its own loses its class's documentation and its file's purpose; a name like
``MakeRoomForWrite`` is one token to a keyword index and a string of letters to an embedding model. The
context built here goes in front of the chunk's lines in what its vector sees and beside them in what its
keywords are matched against; the chunk's own line range and quoted text do not change.
"""

from __future__ import annotations

import re

# any identifier; is_compound tells the ones a tokenizer reads as one word (makeRoomForWrite, HTTPServer)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+[0-9]*|[A-Z]+[0-9]*|[0-9]+")
_SLASH_COMMENT = re.compile(r"^\s*(///?!?|/\*\*?|\*/|\*(?!\w)|--)\s?")  # C family, Rust, Java, SQL...
_HASH_COMMENT = re.compile(r"^\s*#+!?\s?")  # Python, shell, Ruby, Perl, R, YAML
HASH_LANGUAGES = frozenset({"python", "bash", "ruby", "perl", "r", "yaml", "toml", "makefile", "powershell"})
_BADGE = re.compile(r"\[!\[[^\]]*\]\([^)]*\)\]\([^)]*\)|!\[[^\]]*\]\([^)]*\)|^\[[^\]]+\]:\s*\S+", re.M)
_LINK = re.compile(r"\[([^\]]*)\](\([^)]*\)|\[[^\]]*\])")
_NOISE = re.compile(r"https?://\S+|<[^>]+>|&\w+;|[`*]")
_JAVADOC_TAG = re.compile(r"\{@\w+\s+([^}]*)\}")  # {@code java.lang} -> java.lang
_LICENCE = re.compile(r"copyright|licen[cs]e|spdx|all rights reserved|\(c\) \d{4}", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
_DOC_SYNTAX = re.compile(r"^\s*(///|//!|/\*\*)")
_DOCSTRING = re.compile(r'("""|\'\'\')(.*?)\1', re.S)
# a line that is only an attribute or annotation: #[derive(Debug)], @Override, @app.get("/items")
_ATTRIBUTE = re.compile(r"^\s*(#!?\[.*\]\s*$|@[A-Za-z_][\w.]*(\(.*\))?\s*$)")
MAX_DOC_WORDS = 24  # a doc comment's first sentence, at most this many words


def identifier_words(name: str) -> list[str]:
    """The words a compound identifier is made of, lower case: ``MakeRoomForWrite`` -> make room for write,
    ``kL0_SlowdownWritesTrigger`` -> k l0 slowdown writes trigger (a digit stays with its letters)."""
    out: list[str] = []
    for piece in re.split(r"[^A-Za-z0-9]+", name):
        out.extend(part.lower() for part in _PARTS.findall(piece))
    return out


def is_compound(name: str) -> bool:
    """Whether ``name`` hides several words from a tokenizer that splits on anything but letters and digits:
    an inner capital after a lower-case letter (``maxOpenFiles``, ``HTTPServer``). snake_case is already cut
    at its underscores."""
    return bool(re.search(r"[a-z0-9][A-Z]|[A-Z]{2}[a-z]", name))


def split_identifiers(text: str) -> str:
    """The words of every compound identifier in ``text``, once each, in order of first appearance."""
    seen: dict[str, None] = {}
    for name in _IDENTIFIER.findall(text):
        if is_compound(name):
            seen.setdefault(" ".join(identifier_words(name)), None)
    return " ".join(seen)


def marker(lang: str) -> re.Pattern[str]:
    """What opens a comment line in ``lang``."""
    return _HASH_COMMENT if lang in HASH_LANGUAGES else _SLASH_COMMENT


def comment_text(lines: list[str], comment: re.Pattern[str] = _SLASH_COMMENT) -> str:
    """Comment lines without their markers (``//``, ``///``, ``/**``, ``*``, ``#``) or Markdown badges and
    links' targets, joined as prose."""
    text = "\n".join(comment.sub("", line) for line in lines)
    text = _NOISE.sub("", _LINK.sub(r"\1", _BADGE.sub("", _JAVADOC_TAG.sub(r"\1", text))))
    return " ".join(text.split())


def comments(text: str, lang: str) -> str:
    """All that ``text``'s comment lines (and Python's docstrings) say, as prose: the human language a piece
    of code is written in is that of its comments, not of its identifiers and string literals."""
    return " ".join(" ".join(said for _, said in _comment_runs(text, lang)).split())


def doc_comments(text: str, lang: str) -> list[str]:
    """The doc comments in ``text`` as prose, in order, licences left out: each run of comment lines written
    in a doc comment's syntax (``///``, ``//!``, ``/**``, a Python docstring) or indented no deeper than the
    chunk's first line (a chunk starts where a symbol does), not the remarks inside the symbols' bodies."""
    outer = next((_indent(line) for line in text.split("\n") if line.strip()), 0)
    return [
        said
        for first, said in _comment_runs(text, lang)
        if said
        and (first is None or _DOC_SYNTAX.match(first) or _indent(first) <= outer)
        and not _LICENCE.search(said)
    ]


def _comment_runs(text: str, lang: str) -> list[tuple[str | None, str]]:
    """Each run of consecutive comment lines as (its first line, its prose), then each Python docstring as
    (None, its prose)."""
    comment = marker(lang)
    runs: list[tuple[str | None, str]] = []
    run: list[str] = []
    for line in [*text.split("\n"), ""]:
        if line.strip() and comment.match(line):
            run.append(line)
            continue
        if run:
            runs.append((run[0], comment_text(run, comment)))
        run = []
    if lang == "python":
        runs += [(None, " ".join(m.group(2).split())) for m in _DOCSTRING.finditer(text)]
    return runs


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def leading_comment(lines: list[str], start: int, end: int, lang: str) -> str:
    """The doc comment a symbol's lines open with (1-based ``start`` to ``end``), as prose."""
    comment = marker(lang)
    found = []
    for line in lines[start - 1 : end]:
        if not line.strip() or not comment.match(line):
            break
        found.append(line)
    return comment_text(found, comment)


def file_comment(lines: list[str], lang: str, limit: int = 80) -> str:
    """The first paragraph of comment near a file's top that is not its licence: what the file is for.
    Paragraphs end at a blank line or an empty comment line; includes, imports, guards and namespace
    openings may come before it, code may not."""
    comment = marker(lang)
    paragraph: list[str] = []
    for line in [*lines[:limit], ""]:
        is_comment = bool(line.strip()) and bool(comment.match(line))
        if is_comment and comment.sub("", line).strip():
            paragraph.append(line)
            continue
        text = comment_text(paragraph, comment)
        if len(text.split()) >= 4 and not _LICENCE.search(text):
            return text
        paragraph = []
        if line.strip() and not is_comment and not _preamble(line):
            break  # code before any documentation
    return ""


def first_code_line(text: str, lang: str) -> str:
    """The first line of ``text`` that is code of its own: no comment, include, import, guard, namespace
    opening, attribute or annotation (a chunk's signature, where it has one)."""
    comment = marker(lang)
    for line in text.split("\n"):
        if line.strip() and not _ATTRIBUTE.match(line) and not comment.match(line) and not _preamble(line):
            return line.strip()
    return ""


def _preamble(line: str) -> bool:
    """Lines a file may open with before its documentation: includes, imports, packages, guards."""
    return bool(
        re.match(
            r"\s*(#\s*(include|ifndef|define|pragma)|import |package |use |using |from |namespace \w+ \{)",
            line,
        )
    )


def not_in(lines: tuple[str, ...] | list[str], text: str) -> tuple[str, ...]:
    """The context lines a chunk's own text does not already hold (a class's doc comment is in the chunk that
    holds the class, a function's signature in the chunk that opens it), once each. Both sides are read as
    comment_text reads a comment, so a doc sentence matches the comment it was taken from."""
    flat = _flat(comment_text(text.split("\n")))
    return tuple(
        dict.fromkeys(line for line in lines if _flat(comment_text([line.removesuffix(" …")])) not in flat)
    )


def _flat(text: str) -> str:
    return " ".join(re.sub(r"[/*#!]+", " ", text).split())


def first_sentence(text: str, max_words: int = MAX_DOC_WORDS) -> str:
    """The first sentence of a doc comment, at most ``max_words`` words."""
    sentence = _SENTENCE_END.split(" ".join(text.split()), maxsplit=1)[0]
    words = sentence.split()
    return " ".join(words[:max_words]) + (" …" if len(words) > max_words else "")
