"""The query log in DynamoDB (AWS mode), in the chunk store's table, swept by its TTL (``expires_at``).

| item | pk | sk | gsi1pk / gsi1sk |
|---|---|---|---|
| question | ``QUERY#<query_id>`` | ``QUERY`` | ``QUERIES#<UTC day>`` / ``<created_at>#<query_id>`` |
| feedback | ``QUERY#<query_id>`` | ``FEEDBACK#<created_at>#<key>`` | ``FEEDBACK#<UTC day>`` / ``<created_at>`` |

Reading a period is one Query per day on the ``by_source`` index. TTL deletion lags (up to two days), so
readers skip expired items themselves.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

from chalicelib.models.records import FeedbackRecord, QueryRecord
from chalicelib.stores.aws.dynamodb import GSI
from chalicelib.stores.aws.dynamodb_table import DynamoDBTable

TTL_ATTRIBUTE = "expires_at"


def _day(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d")


def _stamp(ts: float) -> str:
    return f"{ts:017.6f}"  # sorts as a string


class DynamoDBQueryLog(DynamoDBTable):
    def log_query(self, record: QueryRecord) -> None:
        self._put(
            f"QUERY#{record.query_id}",
            "QUERY",
            f"QUERIES#{_day(record.created_at)}",
            f"{_stamp(record.created_at)}#{record.query_id}",
            record.expires_at,
            record.model_dump_json(),
        )

    def get_query(self, query_id: str) -> QueryRecord | None:
        item = self.client.get_item(
            TableName=self.table_name, Key={"pk": {"S": f"QUERY#{query_id}"}, "sk": {"S": "QUERY"}}
        ).get("Item")
        if not item or int(item[TTL_ATTRIBUTE]["N"]) < self._clock():
            return None
        return QueryRecord.model_validate_json(item["data"]["S"])

    def add_feedback(self, record: FeedbackRecord) -> None:
        self._put(
            f"QUERY#{record.query_id}",
            f"FEEDBACK#{_stamp(record.created_at)}#{record.key}",
            f"FEEDBACK#{_day(record.created_at)}",
            _stamp(record.created_at),
            record.expires_at,
            record.model_dump_json(),
        )

    def queries(self, since: float) -> list[QueryRecord]:
        return [QueryRecord.model_validate_json(d) for d in self._period("QUERIES", since)]

    def feedback(self, since: float) -> list[FeedbackRecord]:
        return [FeedbackRecord.model_validate_json(d) for d in self._period("FEEDBACK", since)]

    def _put(self, pk: str, sk: str, gsi1pk: str, gsi1sk: str, expires_at: int, data: str) -> None:
        item = {
            "pk": {"S": pk},
            "sk": {"S": sk},
            "gsi1pk": {"S": gsi1pk},
            "gsi1sk": {"S": gsi1sk},
            TTL_ATTRIBUTE: {"N": str(expires_at)},
            "data": {"S": data},
        }
        self.client.put_item(TableName=self.table_name, Item=item)

    def _period(self, kind: str, since: float) -> Iterator[str]:
        now = self._clock()
        day = datetime.fromtimestamp(since, UTC).date()
        while day <= datetime.fromtimestamp(now, UTC).date():
            for item in self._paginate(
                "query",
                IndexName=GSI,
                KeyConditionExpression="gsi1pk = :p AND gsi1sk >= :s",
                ExpressionAttributeValues={
                    ":p": {"S": f"{kind}#{day.isoformat()}"},
                    ":s": {"S": _stamp(since)},
                },
            ):
                if int(item[TTL_ATTRIBUTE]["N"]) >= now:
                    yield item["data"]["S"]
            day += timedelta(days=1)
