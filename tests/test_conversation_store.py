"""Both conversation stores keep the same promises: SQLite (in the query log's file) and DynamoDB (moto, in the
chunk store's table, its TTL attribute set)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws

from chalicelib.models.conversation import Conversation, Turn
from chalicelib.protocols import ConversationStore
from chalicelib.stores.aws.dynamodb import table_definition
from chalicelib.stores.aws.dynamodb_conversations import DynamoDBConversations
from chalicelib.stores.sqlite.conversations import SQLiteConversations

NOW = 1_800_000_000.0
DAY = 86_400


def thread(conversation_id: str, expires_in: float = 8 * DAY, turns: int = 2) -> Conversation:
    return Conversation(
        conversation_id=conversation_id,
        owner="portal/ana@acme.com",
        created_at=NOW,
        active_until=NOW + DAY,
        expires_at=int(NOW + expires_in),
        asked=turns,
        turns=[
            Turn(
                question=f"¿pregunta {n}?",
                standalone=f"¿Pregunta {n} completa?",
                lang="es",
                answer="Lo aprueba Lucía Ferrer." if n else None,
                cited=["doc:0000:aa"] if n else [],
                at=NOW + n,
            )
            for n in range(turns)
        ],
    )


class ConversationStoreContract:
    """Subclasses give ``make(clock) -> ConversationStore``."""

    @pytest.fixture
    def make(self) -> Callable[[Callable[[], float]], ConversationStore]:
        raise NotImplementedError

    def test_a_conversation_reads_back_whole_and_a_turn_replaces_it(self, make):  # type: ignore[no-untyped-def]
        store = make(lambda: NOW)
        store.put_conversation(thread("c1"))
        assert store.get_conversation("c1") == thread("c1")
        store.put_conversation(thread("c1", turns=3))
        assert len(store.get_conversation("c1").turns) == 3  # type: ignore[union-attr]
        assert store.get_conversation("nope") is None

    def test_past_its_expires_at_it_is_gone_for_every_reader(self, make):  # type: ignore[no-untyped-def]
        clock = [NOW]
        store = make(lambda: clock[0])
        store.put_conversation(thread("short", expires_in=DAY))
        store.put_conversation(thread("long"))
        clock[0] = NOW + 2 * DAY  # past active_until too: still read back, the caller says "expired"
        assert store.get_conversation("short") is None
        assert store.get_conversation("long") is not None


class TestSQLiteConversations(ConversationStoreContract):
    @pytest.fixture
    def make(self, tmp_path: Path):  # type: ignore[no-untyped-def]
        return lambda clock: SQLiteConversations(tmp_path / "log.db", clock=clock)


@pytest.fixture
def dynamodb(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    for var, value in (
        ("AWS_ACCESS_KEY_ID", "t"),
        ("AWS_SECRET_ACCESS_KEY", "t"),
        ("AWS_DEFAULT_REGION", "eu-west-1"),
    ):
        monkeypatch.setenv(var, value)
    with mock_aws():
        client = boto3.client("dynamodb", region_name="eu-west-1")
        client.create_table(**table_definition("sabio"))
        yield client


class TestDynamoDBConversations(ConversationStoreContract):
    @pytest.fixture
    def make(self, dynamodb):  # type: ignore[no-untyped-def]
        return lambda clock: DynamoDBConversations("sabio", client=dynamodb, clock=clock)


def test_on_dynamodb_a_conversation_carries_the_tables_ttl_attribute(dynamodb):  # type: ignore[no-untyped-def]
    store = DynamoDBConversations("sabio", client=dynamodb, clock=lambda: NOW)
    store.put_conversation(thread("c1"))
    item = dynamodb.get_item(
        TableName="sabio", Key={"pk": {"S": "CONVERSATION#c1"}, "sk": {"S": "CONVERSATION"}}
    )["Item"]
    # the attribute the stack's TTL deletes by (tests/test_infra.py: TimeToLiveSpecification on expires_at)
    assert item["expires_at"] == {"N": str(int(NOW + 8 * DAY))}
