"""S3 event notifications: parsing, URL-decoded keys, ordering by sequencer, mapping to sources."""

from __future__ import annotations

import json

import pytest

from chalicelib.ingest.s3_events import PoisonMessage, newer, parse_body, source_for


def body(
    name: str = "ObjectCreated:Put",
    key: str = "docs/a+b%C3%B1.md",
    sequencer: str | None = "0055AED6DCD90281E5",
) -> str:
    obj = {"key": key, "eTag": "abc", "size": 3}
    if sequencer:
        obj["sequencer"] = sequencer
    return json.dumps(
        {
            "Records": [
                {
                    "eventName": name,
                    "eventTime": "2026-12-01T10:00:00.000Z",
                    "s3": {"bucket": {"name": "kb"}, "object": obj},
                }
            ]
        }
    )


def test_keys_are_url_decoded_and_kinds_read():
    (event,) = parse_body(body())
    assert (event.bucket, event.key, event.kind, event.etag) == ("kb", "docs/a bñ.md", "created", "abc")
    assert parse_body(body("ObjectRemoved:DeleteMarkerCreated"))[0].kind == "removed"


def test_test_events_and_sns_envelopes():
    assert parse_body(json.dumps({"Service": "Amazon S3", "Event": "s3:TestEvent", "Bucket": "kb"})) == []
    wrapped = json.dumps({"Type": "Notification", "Message": body()})
    assert parse_body(wrapped)[0].key == "docs/a bñ.md"


@pytest.mark.parametrize(
    "bad",
    [
        "nope",
        "[]",
        json.dumps({"x": 1}),
        body("ObjectTagging:Put"),
        json.dumps({"Records": [{"eventName": "ObjectCreated:Put"}]}),
    ],
)
def test_poison_messages_are_named(bad):
    with pytest.raises(PoisonMessage):
        parse_body(bad)


def test_sequencers_compare_after_right_padding():
    assert newer("0055AED6DCD90281E6", "0055AED6DCD90281E5")
    assert not newer("0055AED6DCD90281E5", "0055AED6DCD90281E5")  # a duplicate delivery
    assert newer("0055AED6DCD90281E500", "0055AED6DCD90281E4")  # longer, padded comparison
    assert not newer("0055AED6DCD90281", "0055AED6DCD90281E5")
    assert newer("anything", None)
    # without a sequencer (moto), the event time orders
    assert parse_body(body(sequencer=None))[0].sequencer == "time:2026-12-01T10:00:00.000Z"
    assert newer("time:2026-12-01T10:00:01.000Z", "time:2026-12-01T10:00:00.000Z")


def test_sources_by_longest_bucket_prefix():
    mapping = {"kb": "all", "kb/internal/": "team", "other/x/": "x"}
    assert source_for("kb", "internal/a.md", mapping) == "team"
    assert source_for("kb", "public/a.md", mapping) == "all"
    assert source_for("unknown", "a.md", mapping) is None
    assert source_for("kb", "a.md", {}) == "kb"  # no configuration: the bucket is the source
