"""C and C++ as a grammar can read them: the preprocessor's marks that throw tree-sitter off, blanked.

A parser that does not run the preprocessor reads ``class LEVELDB_EXPORT DB {`` as a function named ``DB``,
loses the rest of a class at a ``#if`` inside a constructor's initialiser list, and stops at
``size_t usage_ GUARDED_BY(mutex_);``. Each mark is overwritten with spaces, so every line keeps its length
and every symbol its line numbers; the chunks still quote the file as it is.
"""

from __future__ import annotations

import re

# an upper-case macro name with an underscore (LEVELDB_EXPORT, GUARDED_BY), never a template parameter (T, N)
_MACRO = r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+"
# `class LEVELDB_EXPORT DB`, `struct ABSL_ATTRIBUTE_X Name`: the macro between the keyword and the name
_TYPE_HEAD = re.compile(rf"\b(?:class|struct|union)\s+({_MACRO})\s+(?=[A-Za-z_])")
# `LEVELDB_EXPORT Status RepairDB(...)`: a macro that opens a declaration
_DECLARATION_HEAD = re.compile(rf"^[ \t]*({_MACRO})(?=[ \t]+[A-Za-z_])", re.M)
# `usage_ GUARDED_BY(mutex_);`, `void F() EXCLUSIVE_LOCKS_REQUIRED(mu_) {`: an annotation after a declarator
_ANNOTATION = re.compile(
    rf"(?<=[\w)])[ \t]+({_MACRO}\((?:[^()\n]|\([^()\n]*\))*\))(?=[ \t]*(?:[;{{=]|const\b))"
)
# `#if` / `#ifdef` / `#else` / `#endif` lines: both branches stay, one of them usually mid-expression
_CONDITIONAL = re.compile(r"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|else|endif)\b.*$", re.M)


def blank_macros(text: str) -> str:
    """``text`` with export, attribute and annotation macros and conditional directives overwritten by
    spaces (same length, same lines)."""
    for pattern in (_TYPE_HEAD, _DECLARATION_HEAD, _ANNOTATION):
        text = pattern.sub(_blank_group, text)
    return _CONDITIONAL.sub(lambda m: " " * len(m.group(0)), text)


def _blank_group(match: re.Match[str]) -> str:
    """The match with its first group (the macro) overwritten by spaces."""
    start, end = (i - match.start() for i in match.span(1))
    whole = match.group(0)
    return whole[:start] + " " * (end - start) + whole[end:]
