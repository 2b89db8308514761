"""How the embedded store packs what it keeps into bytes: a chunk's JSON compressed, its quote vectors as int8,
its vector as float16, the texts its words are indexed by compressed.

A chunk at 10,000 chunks cost 13.8 KB on disk, of which the quote vectors were 4.8 KB of base64 text inside
its JSON (float16 underneath). As int8 in blocks of 64 values, each block with its own float16 scale
(``quotes.quantized``), they are 0.4 KB per quotable unit, and a chunk read back carries them so
(``quotes.INT8``): decoding them costs a multiplication, not a float16 conversion. The JSON compresses about
three times, its text and its embedding text (which repeats the text) alike. What float16 vectors and int8 quote
vectors change is measured by bench/packing_cost.py (docs/performance.md).
"""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Sequence

import numpy as np

from chalicelib.quotes import BLOCK, INT8, quantized

_INT8, _FLOAT16 = b"\x01", b"\x00"  # the first byte of a quote-vector blob: how the rest is packed
VECTOR = np.dtype("<f2")  # a chunk's vector on disk (float32 in the matrix searched)


def pack_json(text: str) -> bytes:
    return zlib.compress(text.encode("utf-8"), 6)


def unpack_json(data: bytes | str) -> str:
    """A chunk's JSON, compressed (schema 6 on) or as text (a row written before)."""
    return data if isinstance(data, str) else zlib.decompress(data).decode("utf-8")


def pack_quotes(encoded: str) -> bytes:
    """A chunk's quote vectors (``quotes.encode_vectors``'s base64 float16, or ``quotes.INT8`` blocks read back
    from this store) as int8 blocks; kept as float16 when their size is not a whole number of blocks."""
    if encoded.startswith(INT8):
        return _INT8 + base64.b64decode(encoded[len(INT8) :])
    values = np.frombuffer(base64.b64decode(encoded), dtype="<f2")
    packed = quantized(values)
    return _FLOAT16 + values.tobytes() if packed is None else _INT8 + packed


def unpack_quotes(data: bytes) -> str:
    """What ``pack_quotes`` packed, as the chunk carries it (``quotes.decode_vectors`` reads both forms)."""
    return unpack_many([data])[0][0]


def unpack_many(blobs: list[bytes]) -> list[tuple[str, np.ndarray]]:
    """What ``pack_quotes`` packed, for many chunks at once: each as the chunk carries it, and decoded (flat
    float32, read-only; the int8 blocks of all of them in one pass)."""
    packed = [memoryview(b)[1:] for b in blobs if b[:1] == _INT8]
    blocks = [len(b) // (2 + BLOCK) for b in packed]
    scales = np.frombuffer(b"".join(b[: 2 * n] for b, n in zip(packed, blocks, strict=True)), dtype="<f2")
    q = np.frombuffer(b"".join(b[2 * n :] for b, n in zip(packed, blocks, strict=True)), dtype=np.int8)
    values = q.reshape(-1, BLOCK) * scales.astype(np.float32)[:, None]
    values.flags.writeable = False
    out: list[tuple[str, np.ndarray]] = []
    at = 0
    for blob in blobs:
        body = memoryview(blob)[1:]
        if blob[:1] == _INT8:
            end = at + len(body) // (2 + BLOCK)
            out.append((INT8 + base64.b64encode(body).decode("ascii"), values[at:end].reshape(-1)))
            at = end
        else:
            value = np.frombuffer(body, dtype="<f2").astype(np.float32)
            value.flags.writeable = False
            out.append((base64.b64encode(body).decode("ascii"), value))
    return out


def pack_texts(texts: Sequence[str]) -> bytes:
    """The texts a row's words are indexed by (title, section, body, stems), compressed: FTS5 keeps only its
    index, and these are what deleting the row from it, or building the BM25 postings, reads."""
    return zlib.compress(json.dumps(list(texts), ensure_ascii=False).encode("utf-8"), 6)


def unpack_texts(data: bytes) -> list[str]:
    texts: list[str] = json.loads(zlib.decompress(data).decode("utf-8"))
    return texts
