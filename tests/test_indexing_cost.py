"""One S3 event costs the same however large its source is, and a chunk's enrichment does not depend on
which documents were indexed before it.

Heuristic keywords used to be scored against every chunk of the source: each event read the whole source
from DynamoDB (a bulk load of N objects read O(N^2) chunks) and a document's keywords changed with arrival
order. They are now scored against the language at large (wordfreq) and the document itself.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from moto import mock_aws

from bench.indexing_cost import bulk_load, reads
from tests.fakes import HashEmbedder


@pytest.mark.slow
def test_reads_per_event_stay_flat_as_the_source_grows(tmp_path: Path):
    with mock_aws():
        _, per_event = bulk_load(tmp_path, 240, list(range(240)), HashEmbedder())
    assert all(per_event), "the hook sees the store's calls"
    early = [reads(c) for c in per_event[:20]]
    late = [reads(c) for c in per_event[-20:]]
    assert max(late) <= max(early), (early, late)  # flat: event 240 reads no more than event 1
    assert max(late) <= 4  # a handful of items, never the source
    assert not any(c.get("Scan") for c in per_event)


@pytest.mark.slow
def test_enrichment_does_not_depend_on_arrival_order(tmp_path: Path):
    count = 40
    orders = [list(range(count)), list(reversed(range(count)))]
    random.Random(7).shuffle(orders[1])
    enrichments = []
    for i, order in enumerate(orders):
        with mock_aws():
            container, _ = bulk_load(tmp_path / str(i), count, order, HashEmbedder())
            store = container.chunk_store
            chunks = {
                c.chunk_id: c.enrichment.model_dump()
                for record in store.list_documents("docs")
                for c in store.document_chunks(record.document_id)
            }
        enrichments.append(chunks)
    assert len(enrichments[0]) >= count
    assert enrichments[0] == enrichments[1]
