"""What every DynamoDB-backed store shares: one table, a client created on first use, paginated reads."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any


class DynamoDBTable:
    def __init__(
        self,
        table_name: str,
        *,
        client: Any = None,
        region: str | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.table_name = table_name
        self._client = client
        self._region = region
        self._clock = clock  # what tells an item past its TTL (expires_at) apart: deletion lags

    @property
    def client(self) -> Any:
        if self._client is None:  # created on first use: moto and warm Lambdas depend on it
            import boto3

            self._client = boto3.client("dynamodb", region_name=self._region)
        return self._client

    def _paginate(self, operation: str, **kwargs: Any) -> Iterator[dict[str, Any]]:
        """Every item of a Query or Scan on this table, page after page."""
        while True:
            response = getattr(self.client, operation)(TableName=self.table_name, **kwargs)
            yield from response.get("Items", [])
            if "LastEvaluatedKey" not in response:
                return
            kwargs["ExclusiveStartKey"] = response["LastEvaluatedKey"]
