"""How the embedded store packs what it keeps into bytes: a chunk's JSON compressed, its quote vectors as int8,
its vector as float32, the texts its words are indexed by compressed.

A chunk at 10,000 chunks cost 13.8 KB on disk, of which the quote vectors were 4.8 KB of base64 text inside
its JSON (float16 underneath). As int8 in blocks of 64 values, each block with its own float16 scale, they
are 0.4 KB per quotable unit; the cosine of a question to a unit moves by about 5e-4 (docs/performance.md has
what that changes: the quote an answer picks, measured). The JSON compresses about three times, its text and
its embedding text (which repeats the text) alike.
"""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Sequence

import numpy as np

BLOCK = 64  # values per int8 block (every common embedding size is a multiple of 64)
_INT8, _FLOAT16 = b"\x01", b"\x00"  # the first byte of a quote-vector blob: how the rest is packed
VECTOR = np.dtype("<f2")  # a chunk's vector on disk (float32 in the matrix searched)


def pack_json(text: str) -> bytes:
    return zlib.compress(text.encode("utf-8"), 6)


def unpack_json(data: bytes | str) -> str:
    """A chunk's JSON, compressed (schema 6 on) or as text (a row written before)."""
    return data if isinstance(data, str) else zlib.decompress(data).decode("utf-8")


def pack_quotes(encoded: str) -> bytes:
    """A chunk's quote vectors (``quotes.encode_vectors``: base64 float16, units x dim) as int8 blocks with a
    float16 scale each; kept as float16 when their size is not a whole number of blocks."""
    values = np.frombuffer(base64.b64decode(encoded), dtype="<f2").astype(np.float32)
    if not len(values) or len(values) % BLOCK:
        return _FLOAT16 + values.astype("<f2").tobytes()
    blocks = values.reshape(-1, BLOCK)
    scale = (np.abs(blocks).max(axis=1) / 127).astype("<f2")
    safe = np.where(scale > 0, scale.astype(np.float32), 1.0)[:, None]
    q = np.clip(np.round(blocks / safe), -127, 127).astype(np.int8)
    return _INT8 + scale.tobytes() + q.tobytes()


def unpack_quotes(data: bytes) -> str:
    """What ``pack_quotes`` packed, as ``quotes.encode_vectors`` writes it (base64 float16)."""
    body = memoryview(data)[1:]
    if data[:1] == _FLOAT16:
        return base64.b64encode(body).decode("ascii")
    n = len(body) // (2 + BLOCK)
    scale = np.frombuffer(body[: 2 * n], dtype="<f2").astype(np.float32)
    q = np.frombuffer(body[2 * n :], dtype=np.int8).reshape(n, BLOCK)
    return base64.b64encode((q * scale[:, None]).astype("<f2").tobytes()).decode("ascii")


def pack_texts(texts: Sequence[str]) -> bytes:
    """The texts a row's words are indexed by (title, section, body, stems), compressed: FTS5 keeps only its
    index, and these are what deleting the row from it, or building the BM25 postings, reads."""
    return zlib.compress(json.dumps(list(texts), ensure_ascii=False).encode("utf-8"), 6)


def unpack_texts(data: bytes) -> list[str]:
    texts: list[str] = json.loads(zlib.decompress(data).decode("utf-8"))
    return texts
