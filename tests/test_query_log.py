"""Both query logs keep the same promises: SQLite (embedded) and DynamoDB (moto), with TTL semantics."""

from __future__ import annotations

from pathlib import Path

import boto3
import pytest
from moto import mock_aws

from chalicelib.stores.aws.dynamodb import table_definition
from chalicelib.stores.aws.dynamodb_query_log import DynamoDBQueryLog
from chalicelib.stores.sqlite.query_log import SQLiteQueryLog
from tests.query_log_contract import QueryLogContract


class TestSQLiteQueryLog(QueryLogContract):
    @pytest.fixture
    def make(self, tmp_path: Path):  # type: ignore[no-untyped-def]
        return lambda clock: SQLiteQueryLog(tmp_path / "log.db", clock=clock)


class TestDynamoDBQueryLog(QueryLogContract):
    @pytest.fixture
    def make(self, monkeypatch):  # type: ignore[no-untyped-def]
        for var, value in (
            ("AWS_ACCESS_KEY_ID", "t"),
            ("AWS_SECRET_ACCESS_KEY", "t"),
            ("AWS_DEFAULT_REGION", "eu-west-1"),
        ):
            monkeypatch.setenv(var, value)
        with mock_aws():
            client = boto3.client("dynamodb", region_name="eu-west-1")
            client.create_table(**table_definition("sabio"))
            yield lambda clock: DynamoDBQueryLog("sabio", client=client, clock=clock)
