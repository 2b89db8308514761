"""The last translations, remembered: a question asked again (an FAQ, the web page's retrieve then answer, an
agent retrying) is put into the other language once. Its vector is remembered beside it by the query memo
(chalicelib.embedders.query_memo), so a repeated bilingual question costs neither the translator nor a second
embedding."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Collection

from chalicelib.protocols import Translator

Key = tuple[str, str, str, tuple[str, ...], bool]


class TranslationMemo:
    """A translator whose translations are remembered, up to ``size``, by (text, languages, names kept),
    least recently used out first. A failure (None) is not remembered: the next asking tries again."""

    def __init__(self, inner: Translator, size: int = 1024) -> None:
        self.inner = inner
        self.size = size
        self._done: OrderedDict[Key, str] = OrderedDict()
        self._lock = threading.Lock()

    def translate(
        self, text: str, source: str, target: str, keep: Collection[str] = (), *, names: bool = True
    ) -> str | None:
        key = (text, source, target, tuple(sorted(keep)), names)
        with self._lock:
            found = self._done.get(key)
            if found is not None:
                self._done.move_to_end(key)
                return found
        translated = self.inner.translate(text, source, target, keep, names=names)
        if translated is not None:
            with self._lock:
                self._done[key] = translated
                while len(self._done) > self.size:
                    self._done.popitem(last=False)
        return translated

    def pairs(self) -> list[tuple[str, str]]:
        return self.inner.pairs()
