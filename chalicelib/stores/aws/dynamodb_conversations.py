"""Conversations in DynamoDB (AWS mode), in the chunk store's table beside the query log, deleted by the
table's TTL (``expires_at``, as the query log's items are).

| item | pk | sk |
|---|---|---|
| conversation | ``CONVERSATION#<conversation_id>`` | ``CONVERSATION`` |

TTL deletion lags (up to two days), so a read skips an item past its ``expires_at`` itself.
"""

from __future__ import annotations

from chalicelib.models.conversation import Conversation
from chalicelib.stores.aws.dynamodb_query_log import TTL_ATTRIBUTE
from chalicelib.stores.aws.dynamodb_table import DynamoDBTable


def _key(conversation_id: str) -> dict[str, dict[str, str]]:
    return {"pk": {"S": f"CONVERSATION#{conversation_id}"}, "sk": {"S": "CONVERSATION"}}


class DynamoDBConversations(DynamoDBTable):
    def get_conversation(self, conversation_id: str) -> Conversation | None:
        item = self.client.get_item(
            TableName=self.table_name, Key=_key(conversation_id), ConsistentRead=True
        ).get("Item")
        if not item or int(item[TTL_ATTRIBUTE]["N"]) < self._clock():
            return None
        return Conversation.model_validate_json(item["data"]["S"])

    def put_conversation(self, conversation: Conversation) -> None:
        item = {
            **_key(conversation.conversation_id),
            TTL_ATTRIBUTE: {"N": str(conversation.expires_at)},
            "data": {"S": conversation.model_dump_json()},
        }
        self.client.put_item(TableName=self.table_name, Item=item)
