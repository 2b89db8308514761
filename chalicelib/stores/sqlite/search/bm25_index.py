"""The embedded store's BM25 in memory: FTS5's own ``bm25()`` over postings held as numpy arrays.

FTS5 scores every row that matches any query term before it can sort, and a user's question matches most of
a corpus (9,000 of 10,000 rows for a typical English one): 16 ms at 10,000 chunks, 148 ms at 100,000. Here
each term's postings are two arrays (document, weighted frequency) and a query is a few vectorised gathers.

The scores are FTS5's, term for term (``tests/test_bm25_index.py`` compares them on real documents):

- a phrase is a query term, with the columns it may match: a raw term in title / section / body (weights 2,
  2, 1), a stem in the stems column (weight 1); its frequency in a row is the weighted count of its tokens;
- idf = log((N - n + 0.5) / (n + 0.5)), at least 1e-6, where n counts the rows holding the phrase;
- score = sum of idf * f * (k1 + 1) / (f + k1 * (1 - b + b * D / avgdl)), k1 = 1.2, b = 0.75, D the row's
  tokens in all four columns.

Tokens are those of ``unicode61 remove_diacritics 2``: folded letters and digits (``ñ`` becomes ``n``),
anything else separates. (FTS5 also keeps symbols its Unicode tables do not know as tokens, such as newer
emoji; so a row's length is read from FTS5's own record, and only a word glued to such a symbol differs.)
A query term FTS5 reads as a phrase of several tokens (``keep-alive``) has no
postings here: the caller asks FTS5 for its rows and turns its scores back into frequencies
(``View.frequencies``).

Documents come in segments (one per batch of rows first seen), never changed: a row that is deleted is simply
no longer among the store's rows, and a row's id is never reused, so a segment stays right until it is
merged away (chalicelib.stores.sqlite.search.segments, which also keeps them on disk).
"""

from __future__ import annotations

import math
import re
import unicodedata
from array import array
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

K1 = 1.2
B = 0.75
MIN_IDF = 1e-6
WEIGHTS = (2.0, 2.0, 1.0, 1.0)  # title, section, body, stems
_TOKEN = re.compile(r"[^\W_]+")


def fts_fold(text: str) -> str:
    """Lower case without diacritics, ``ñ`` included: what FTS5's tokenizer compares."""
    if text.isascii():
        return text.lower()
    return "".join(c for c in unicodedata.normalize("NFD", text.lower()) if not unicodedata.combining(c))


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(fts_fold(text))


def phrase(term: str) -> list[str]:
    """The tokens FTS5 reads a quoted query term as: one, or a phrase of several (``keep-alive``)."""
    return tokens(term)


@dataclass(frozen=True)
class Analysed:
    """One row: its length in tokens, and its phrases' weighted frequencies (raw terms and stems apart)."""

    length: int
    raw: dict[str, float]
    stems: dict[str, float]


def analyse(title: str, section: str, body: str, stems: str, length: int | None = None) -> Analysed:
    """``length``: the row's tokens as FTS5 counted them (``docsize``), when known; else counted here."""
    given = length
    raw: dict[str, float] = {}
    length = 0
    for text, weight in zip((title, section, body), WEIGHTS, strict=False):
        found = tokens(text)
        length += len(found)
        for token in found:
            raw[token] = raw.get(token, 0.0) + weight
    stem_tokens = tokens(stems)
    counted = Counter(stem_tokens)
    return Analysed(
        length + len(stem_tokens) if given is None else given, raw, {k: float(v) for k, v in counted.items()}
    )


def docsize(blob: bytes) -> int:
    """A row's tokens over all columns, from FTS5's ``docsize`` record (one varint per column)."""
    total = value = 0
    for byte in blob:
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            total, value = total + value, 0
    return total


@dataclass
class Segment:
    """A fixed set of rows first seen together: their ids and chunk-id checks, their vectors (as stored), and
    their postings, term by term (compressed sparse rows over the vocabulary)."""

    rids: np.ndarray  # the rows' ids
    checks: (
        np.ndarray
    )  # uint32: each row's chunk-id check (``check``), to tell a row from another with its id
    vectors: np.ndarray  # the rows' vectors, as the store keeps them (rows x dim)
    lengths: np.ndarray  # tokens per row
    vocabulary: tuple[dict[str, int], dict[str, int]]  # raw terms, stems -> key
    bounds: np.ndarray  # key -> its postings are [bounds[key], bounds[key + 1])
    docs: np.ndarray  # int32: index into rids
    freqs: np.ndarray  # float32: weighted frequency (small integers or halves: exact)
    name: str | None = None  # its folder on disk, once saved (chalicelib.stores.sqlite.search.segment_files)

    @classmethod
    def build(
        cls, rows: Iterable[tuple[int, int, Analysed]], vectors: Callable[[np.ndarray], np.ndarray]
    ) -> Segment:
        """One pass over the rows (id, check, words), straight into flat arrays: the analysed rows are never all
        held at once (at 100,000 chunks, keeping them cost 1.5 GB). ``vectors``: the rows' vectors by id."""
        raw_vocab: dict[str, int] = {}
        stem_vocab: dict[str, int] = {}
        rids, checks, lengths = array("q"), array("I"), array("q")
        keys, docs, freqs = array("i"), array("i"), array("f")
        for d, (rid, check, analysed) in enumerate(rows):
            rids.append(rid)
            checks.append(check)
            lengths.append(analysed.length)
            for vocabulary, counts in ((raw_vocab, analysed.raw), (stem_vocab, analysed.stems)):
                for term, freq in counts.items():
                    key = vocabulary.get(term)
                    if key is None:
                        key = vocabulary[term] = len(raw_vocab) + len(stem_vocab)
                    keys.append(key)
                    docs.append(d)
                    freqs.append(freq)
        key_array = np.frombuffer(keys, dtype=np.int32)
        order = np.argsort(key_array, kind="stable")
        per_key = np.bincount(key_array, minlength=len(raw_vocab) + len(stem_vocab))
        ids = np.frombuffer(rids, dtype=np.int64).copy()
        return cls(
            rids=ids,
            checks=np.frombuffer(checks, dtype=np.uint32).copy(),
            vectors=vectors(ids),
            lengths=np.frombuffer(lengths, dtype=np.int64).astype(np.float64),
            vocabulary=(raw_vocab, stem_vocab),
            bounds=np.concatenate([[0], np.cumsum(per_key)]).astype(np.int64),
            docs=np.frombuffer(docs, dtype=np.int32)[order],
            freqs=np.frombuffer(freqs, dtype=np.float32)[order],
        )

    @classmethod
    def merged(cls, parts: list[tuple[Segment, np.ndarray]]) -> Segment:
        """One segment of the rows each part's mask keeps, from their arrays (nothing is read or analysed
        again): their vocabularies joined, their postings renumbered and sorted by term."""
        raw_vocab: dict[str, int] = {}
        stem_vocab: dict[str, int] = {}
        keys, docs, freqs = [], [], []
        offset = 0
        for segment, keep in parts:
            renumbered = np.zeros(len(segment.bounds) - 1, dtype=np.int64)
            for joined, vocabulary in zip((raw_vocab, stem_vocab), segment.vocabulary, strict=True):
                for term, key in vocabulary.items():
                    new = joined.get(term)
                    if new is None:
                        new = joined[term] = len(raw_vocab) + len(stem_vocab)
                    renumbered[key] = new
            row = np.cumsum(keep) - 1 + offset  # a kept row's place in the merged segment
            key_of = np.repeat(np.arange(len(renumbered)), np.diff(segment.bounds))  # each posting's term
            kept = keep[segment.docs]
            keys.append(renumbered[key_of[kept]])
            docs.append(row[segment.docs[kept]].astype(np.int32))
            freqs.append(np.asarray(segment.freqs)[kept])
            offset += int(keep.sum())
        key_array = np.concatenate(keys) if keys else np.zeros(0, np.int64)
        order = np.argsort(key_array, kind="stable")
        per_key = np.bincount(key_array, minlength=len(raw_vocab) + len(stem_vocab))
        return cls(
            rids=np.concatenate([s.rids[k] for s, k in parts]),
            checks=np.concatenate([s.checks[k] for s, k in parts]),
            vectors=np.concatenate([np.asarray(s.vectors)[k] for s, k in parts]),
            lengths=np.concatenate([s.lengths[k] for s, k in parts]),
            vocabulary=(raw_vocab, stem_vocab),
            bounds=np.concatenate([[0], np.cumsum(per_key)]).astype(np.int64),
            docs=np.concatenate(docs)[order] if docs else np.zeros(0, np.int32),
            freqs=np.concatenate(freqs)[order] if freqs else np.zeros(0, np.float32),
        )

    def postings(self, stem: bool, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        key = self.vocabulary[stem].get(term)
        if key is None:
            return None
        start, end = int(self.bounds[key]), int(self.bounds[key + 1])
        return self.docs[start:end], self.freqs[start:end]


@dataclass
class View:
    """The segments seen against one generation of the store's rows (``rids``: ascending, one per row)."""

    rids: np.ndarray
    segments: list[tuple[Segment, np.ndarray]]  # each with its rows' positions in ``rids`` (-1: deleted)
    norm: np.ndarray = field(init=False)  # per row: k1 * (1 - b + b * D / avgdl)

    def __post_init__(self) -> None:
        lengths = np.zeros(len(self.rids), dtype=np.float64)
        for segment, at in self.segments:
            live = at >= 0
            lengths[at[live]] = segment.lengths[live]
        avgdl = float(lengths.sum()) / len(lengths) if len(lengths) else 0.0
        self.norm = K1 * (1 - B + B * lengths / avgdl) if avgdl else np.full(len(lengths), K1)

    def search(
        self,
        raw: Iterable[str],
        stems: Iterable[str],
        rows: np.ndarray | None,
        k: int,
        phrases: Iterable[tuple[np.ndarray, np.ndarray]] = (),
    ) -> list[tuple[int, float]]:
        """The top ``k`` (row position, score) among ``rows`` (None: every row) holding any term: raw terms
        and stems of one token each, and ``phrases``' postings (row positions, weighted frequencies)."""
        n = len(self.rids)
        if not n or k <= 0:
            return []
        scores = np.zeros(n, dtype=np.float64)
        norm = self.norm
        keyed = [self._postings(False, t) for t in raw] + [self._postings(True, t) for t in stems]
        for at, freqs in [*keyed, *phrases]:
            if not len(at):
                continue
            idf = max(math.log((n - len(at) + 0.5) / (len(at) + 0.5)), MIN_IDF)
            scores[at] += idf * freqs * (K1 + 1) / (freqs + norm[at])
        candidates = np.flatnonzero(scores) if rows is None else rows[scores[rows] > 0]
        if not len(candidates):
            return []
        if len(candidates) > k:
            cut = -np.partition(-scores[candidates], k - 1)[k - 1]
            candidates = candidates[scores[candidates] >= cut]  # ties at the cut stay in for the order
        order = np.lexsort((self.rids[candidates], -scores[candidates]))[:k]  # score, then the older row
        return [(int(candidates[i]), float(scores[candidates[i]])) for i in order]

    def frequencies(self, n: int, scores: np.ndarray, at: np.ndarray) -> np.ndarray:
        """The weighted frequencies behind FTS5's bm25() ``scores`` of one phrase held by ``n`` rows, at row
        positions ``at``: score = idf * f * (k1 + 1) / (f + norm) solved for f, a whole number."""
        idf = max(math.log((len(self.rids) - n + 0.5) / (n + 0.5)), MIN_IDF)
        return np.round(scores * self.norm[at] / (idf * (K1 + 1) - scores))

    def _postings(self, stem: bool, term: str) -> tuple[np.ndarray, np.ndarray]:
        """Where ``term`` occurs among the live rows: their positions and the weighted frequencies."""
        parts = []
        for segment, at in self.segments:
            found = segment.postings(stem, term)
            if found is None:
                continue
            positions, freqs = at[found[0]], found[1].astype(np.float64)
            live = positions >= 0
            parts.append((positions, freqs) if live.all() else (positions[live], freqs[live]))
        if not parts:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        if len(parts) == 1:
            return parts[0]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def positions(rids: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Each of ``wanted``'s position in the ascending ``rids``, or -1 where it is not there."""
    at = np.searchsorted(rids, wanted)
    inside = at < len(rids)
    found = np.full(len(wanted), -1, dtype=np.int64)
    hit = inside.copy()
    hit[inside] = rids[at[inside]] == wanted[inside]
    found[hit] = at[hit]
    return found
