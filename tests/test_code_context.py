"""A code chunk carries what its lines do not say: its names' words, the doc comments around it and its file's
purpose, in what its vector sees and what its keywords match, without changing its lines."""

from __future__ import annotations

import pytest

from chalicelib.chunking import ChunkingConfig, chunk_document
from chalicelib.enrichment.embedding_text import for_code
from chalicelib.extraction.code_context import comments, identifier_words, split_identifiers
from chalicelib.extraction.dispatch import extract
from chalicelib.models.records import Enrichment, SearchFilters

CACHE_H = (
    """// Copyright (c) 2011 The Authors. All rights reserved.
// Use of this source code is governed by a BSD-style license.
//
// A Cache maps keys to values and evicts the least recently used entry.

#ifndef CACHE_H_
#define CACHE_H_

#include <cstdint>

namespace store {

// Sharded by the key's hash so that threads rarely contend for a lock.
class ShardedCache {
 public:
  // Inserts a mapping and returns a handle to it.
  Handle* Insert(const Slice& key, void* value, size_t charge) {
    MaybeEvictEntries(charge);
    return table_.Insert(key, value);
  }

  // Drops entries until the usage fits the capacity.
  void MaybeEvictEntries(size_t charge) {
"""
    + "".join(f"    usage_{i} -= charge;\n" for i in range(60))
    + """  }
};

}  // namespace store

#endif
"""
)

MODULE_PY = '''"""Retries for outgoing webhooks: backoff, jitter and a dead-letter queue."""

import random


class RetryPolicy:
    """How long to wait before each new attempt at delivering a webhook."""

    def next_delay(self, attempt):
        return min(60, 2 ** attempt) + random.random()

    def give_up(self, attempt):
        return attempt > 8
'''


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("MakeRoomForWrite", ["make", "room", "for", "write"]),
        ("kL0_SlowdownWritesTrigger", ["k", "l0", "slowdown", "writes", "trigger"]),
        ("HTTPServer", ["http", "server"]),
        ("toJavaIdentifier", ["to", "java", "identifier"]),
        ("DBImpl::Get", ["db", "impl", "get"]),
    ],
)
def test_compound_names_are_split_into_their_words(name, words):
    assert identifier_words(name) == words


def test_only_names_a_tokenizer_cannot_split_are_spelled_out():
    assert split_identifiers("x = maxOpenFiles + max_open_files + count") == "max open files"


def _chunks(name: str, text: str, **cfg: int):
    doc = extract(name, text.encode(), max_bytes=10**6)
    return doc, chunk_document(doc, ChunkingConfig(**cfg) if cfg else None)


def test_a_method_cut_alone_keeps_its_class_doc_and_its_file_purpose_but_not_the_licence():
    _, chunks = _chunks("cache.h", CACHE_H, max_tokens=200, min_tokens=10)
    evict = next(c for c in chunks if "MaybeEvictEntries" in c.heading_path[-1])
    assert "class ShardedCache" not in evict.text  # cut on its own: its class's comment is not in its lines
    assert evict.context == (
        "Sharded by the key's hash so that threads rarely contend for a lock.",
        "A Cache maps keys to values and evicts the least recently used entry.",
    )
    assert not any("Copyright" in line or "license" in line for c in chunks for line in c.context)
    lines = CACHE_H.split("\n")
    assert evict.text == "\n".join(lines[evict.line_start - 1 : evict.line_end])  # its lines are unchanged


def test_a_doc_comment_the_chunk_holds_is_not_repeated_as_its_context():
    java = (
        "/**\n"
        " * Writes a {@code JavaFile} to an {@link Appendable}, one <b>line</b> at a time.\n"
        " */\n"
        "final class LineWriter {\n"
        "  void emit(String s) { out.append(s); }\n"
        "  void flush() { out.flush(); }\n"
        "}\n"
    )
    _, chunks = _chunks("LineWriter.java", java)
    assert len(chunks) == 1 and "Writes a {@code JavaFile}" in chunks[0].text
    assert chunks[0].context == ()  # read as prose, the class's comment is in the chunk already


def test_python_methods_are_situated_by_their_class_and_module_docstrings():
    long_method = MODULE_PY.replace(
        "        return min(60",
        "".join(f"        wait_{i} = 2 ** attempt\n" for i in range(40)) + "        return min(60",
    )
    _, chunks = _chunks("retries.py", long_method, max_tokens=200, min_tokens=0)
    delay = next(c for c in chunks if c.heading_path[-1] == "def next_delay")
    assert delay.context == (
        "How long to wait before each new attempt at delivering a webhook.",
        "Retries for outgoing webhooks: backoff, jitter and a dead-letter queue.",
    )


def test_the_vector_sees_the_path_the_names_words_and_the_context_then_the_lines():
    text = "Status DBImpl::MakeRoomForWrite(bool force) {\n  return Status::OK();\n}"
    enrichment = Enrichment(context="Writes wait here while the memtable is full.", summary="Makes room.")
    embedded = for_code(
        "contextual",
        "db/db_impl.cc",
        "code",
        ["db_impl.cc", "func DBImpl::MakeRoomForWrite"],
        enrichment,
        text,
    )
    assert embedded == (
        "db/db_impl.cc > func DBImpl::MakeRoomForWrite\ndb impl make room for write\n"
        f"Writes wait here while the memtable is full.\n\n{text}"
    )
    path = for_code(
        "path", "db/db_impl.cc", "code", ["db_impl.cc", "func DBImpl::MakeRoomForWrite"], enrichment, text
    )
    assert path == f"db/db_impl.cc > func DBImpl::MakeRoomForWrite\n\n{text}"


def test_an_indexed_method_is_found_by_its_class_doc_words_and_its_vector_sees_them(
    ingestor, store, tmp_path
):
    """Through ingest, the heuristic enrichment carries the section's context to the keyword index and to the
    vector's text (the stored chunk's ``embedding_text``)."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "cache.h").write_text(CACHE_H)
    (tmp_path / "src" / "other.h").write_text(
        "// Parses flags.\nint ParseFlags(int argc) {\n  return argc;\n}\n"
    )
    assert ingestor.index_folder(tmp_path / "src", "code").ok
    chunks = store.get_chunks(list(store.all_chunk_ids()))
    evict = next(c for c in chunks if "MaybeEvictEntries" in c.heading_path[-1])
    assert evict.enrichment.context.startswith("Sharded by the key's hash")
    assert evict.embedding_text.startswith(
        "cache.h > namespace store > class ShardedCache > func MaybeEvictEntries\n"
        "sharded cache maybe evict entries\nSharded by the key's hash"
    )
    found = [h.chunk_id for h in store.keyword_search("threads contend lock", SearchFilters(), 5)]
    assert evict.chunk_id in found
    assert [h.chunk_id for h in store.keyword_search("evict entries", SearchFilters(), 5)][0] in {
        c.chunk_id for c in chunks if "Evict" in c.content
    }


def test_a_class_of_short_methods_is_one_chunk_and_a_long_method_its_own():
    short = "".join(
        f"  /** Returns the {name} of this spec, as written by the user, without the spaces around it. */\n"
        f"  public String {name}() {{\n    if (this.{name} == null || this.{name}.isEmpty()) {{\n"
        f'      return defaults.get("{name}");\n    }}\n    return this.{name}.trim();\n  }}\n\n'
        for name in ("name", "label", "owner")
    )
    body = "".join(f"    total += weights[{i}] * values[{i}];\n" for i in range(60))
    text = (
        f"package a;\n\npublic class Spec {{\n  private String name;\n\n{short}"
        f"  public int score(int[] weights, int[] values) {{\n    int total = 0;\n{body}    return total;\n  }}\n}}\n"
    )
    _, chunks = _chunks("Spec.java", text)
    owners = [c for c in chunks if "owner()" in c.text]
    assert len(owners) == 1 and all(f"{n}()" in owners[0].text for n in ("name", "label", "owner"))
    score = [c for c in chunks if "int score(" in c.text]
    assert len(score) == 1 and "owner()" not in score[0].text


def test_closing_braces_end_the_chunk_before_them_and_are_no_chunk_of_their_own():
    body = "".join(f"    total += weights[{i}] * values[{i}];\n" for i in range(60))
    text = (
        "namespace scoring {\n\nclass Scorer {\n public:\n"
        f"  int Score(const int* weights, const int* values) {{\n    int total = 0;\n{body}    return total;\n  }}\n"
        "};\n\n}  // namespace scoring\n\n#endif  // SCORING_H_\n"
    )
    _, chunks = _chunks("scorer.h", text)
    assert all(
        any(ch.isalnum() for ch in c.text.replace("namespace scoring", "").replace("endif", ""))
        for c in chunks
    )
    last = chunks[-1]
    assert "return total;" in last.text and last.text.endswith("#endif  // SCORING_H_")
    assert last.line_end == len(text.rstrip("\n").split("\n"))  # down to the file's last line


def test_the_language_of_code_is_read_from_its_comments_not_its_names_or_strings():
    # GIVEN code commented in English whose strings are Spanish, and code commented in Spanish
    english = (
        "// Messages shown to customers of the Madrid store.\n"
        "// Each one is looked up by its key when the page is drawn.\n"
        'static final String SALUDO = "Hola, bienvenido de nuevo a la tienda";\n'
        'static final String PEDIDO = "Tu pedido está en camino y llegará mañana";\n'
        'static final String PAGO = "El pago se ha realizado con éxito";\n'
    )
    spanish = (
        "# Calcula la tarifa del pedido según el peso del paquete y la zona de destino.\n"
        "def fee(order):\n"
        '    """Devuelve el importe en euros, con el impuesto incluido."""\n'
        "    return order.weight * ZONES[order.zone]\n"
    )
    # THEN what they say is their comments (and docstrings), without the code
    said = comments(english, "java")
    assert said.startswith("Messages shown") and "Hola" not in said and "String" not in said
    assert "Devuelve el importe en euros" in comments(spanish, "python")
    # AND indexed, each chunk is in the language of its comments
    from chalicelib.extraction.code import extract_code
    from chalicelib.ingest.chunk_records import language

    assert language(extract_code(english, "Messages.java"), ("es", "en")) == "en"
    assert language(extract_code(spanish, "fee.py"), ("es", "en")) == "es"


def test_a_code_chunk_is_summarised_by_its_doc_comments_not_by_its_code(ingestor, store, tmp_path):
    # GIVEN Rust files: two short documented methods (one chunk), and a function without a doc comment
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "error.rs").write_text(
        "impl Error {\n"
        "    /// The lowest level cause of this error, the last one of its chain.\n"
        "    pub fn root_cause(&self) -> &dyn StdError {\n"
        "        // walks the whole chain\n"
        "        self.chain().last().unwrap()\n"
        "    }\n\n"
        "    /// Returns true if `E` is the type held by this error object.\n"
        "    pub fn is<E>(&self) -> bool {\n"
        "        self.downcast_ref::<E>().is_some()\n"
        "    }\n"
        "}\n"
    )
    (tmp_path / "src" / "fmt.rs").write_text(
        "use alloc::string::ToString;\n\n"
        "#[cold]\n"
        "pub fn format_err(args: Arguments) -> Error {\n"
        "    // a literal needs no allocation\n"
        "    Error::msg(args.to_string())\n"
        "}\n"
    )
    # WHEN it is indexed
    assert ingestor.index_folder(tmp_path / "src", "code").ok
    chunks = store.get_chunks(list(store.all_chunk_ids()))
    methods = next(c for c in chunks if "root_cause" in c.content)
    bare = next(c for c in chunks if "format_err" in c.content)
    # THEN the methods' summary is what their doc comments say first, not a run of code or an inner remark
    assert methods.enrichment.summary == (
        "The lowest level cause of this error, the last one of its chain. "
        "Returns true if E is the type held by this error object."
    )
    # AND a function without one is summarised by its signature (not the file's imports or its attribute); names keep their
    # underscores' word breaks
    assert bare.enrichment.summary == "pub fn format_err(args: Arguments) -> Error {"
    assert "rootcause" not in methods.enrichment.keywords and "downcastref" not in methods.enrichment.keywords
    # AND its keywords are what it is about, not the programming language's own words
    assert {"cause", "error"} <= set(methods.enrichment.keywords)
    assert not {"self", "pub", "bool"} & set(methods.enrichment.keywords)
