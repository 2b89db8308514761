"""The words of a generated answer as the model writes them: the ``"answer"`` string of its JSON reply
(generated.py's prompt), decoded piece by piece while the rest of the object (citations, quotes) is still
being written. Anything before the object (a Markdown fence) and every other key is skipped."""

from __future__ import annotations

_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


class AnswerText:
    """Feed the reply's pieces in order; each feed returns the answer's text it completed ("" if none)."""

    def __init__(self, key: str = "answer") -> None:
        self.key = key
        self.depth = 0
        self.in_string = False
        self.escape = ""  # after a backslash: "\\", then the hex digits of a \\u escape
        self.string = ""  # the key being read, at the object's own level
        self.wanted = False  # the next string at the object's own level is the answer
        self.emitting = False
        self.done = False
        self.high = ""  # the first half of a surrogate pair, waiting for its second
        self.is_key = False  # the string being read is a key of the object's own level
        self.last_was_key = False

    def feed(self, piece: str) -> str:
        out: list[str] = []
        for ch in piece:
            if not self.done:
                self._step(ch, out)
        return "".join(out)

    def _step(self, ch: str, out: list[str]) -> None:
        if self.in_string:
            self._in_string(ch, out)
        elif ch == '"':
            self.in_string = True
            self.string = ""
            self.emitting = self.wanted and self.depth == 1
            self.is_key = not self.wanted and self.depth == 1
            self.wanted = False
        elif ch in "{[":
            self.depth += 1
            self.wanted = False
        elif ch in "}]":
            self.depth -= 1
        elif ch == ":" and self.depth == 1:
            self.wanted = self.string == self.key and self.last_was_key
        elif not ch.isspace():
            self.wanted = False

    def _in_string(self, ch: str, out: list[str]) -> None:
        if self.escape:
            self._escaped(ch, out)
        elif ch == "\\":
            self.escape = "\\"
        elif ch == '"':
            self.in_string = False
            self.last_was_key = self.is_key
            if self.emitting:
                self.emitting, self.done = False, True
        else:
            self._char(ch, out)

    def _escaped(self, ch: str, out: list[str]) -> None:
        if self.escape == "\\" and ch != "u":
            self.escape = ""
            self._char(_ESCAPES.get(ch, ch), out)
            return
        self.escape += ch
        if len(self.escape) < 6:  # "\\u" and four hex digits
            return
        digits, self.escape = self.escape[2:], ""
        try:
            code = int(digits, 16)
        except ValueError:
            return
        if 0xD800 <= code < 0xDC00:
            self.high = chr(code)
            return
        if 0xDC00 <= code < 0xE000 and self.high:
            pair = (self.high + chr(code)).encode("utf-16", "surrogatepass").decode("utf-16")
            self.high = ""
            self._char(pair, out)
            return
        self._char(chr(code), out)

    def _char(self, ch: str, out: list[str]) -> None:
        if self.emitting:
            out.append(ch)
        elif self.is_key:
            self.string += ch
