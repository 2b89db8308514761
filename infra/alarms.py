"""What the stack raises an alarm for: documents that failed indexing and wait in the dead-letter queue."""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_sqs as sqs
from constructs import Construct


def dead_letters_alarm(scope: Construct, dlq: sqs.Queue) -> None:
    cloudwatch.Alarm(
        scope,
        "DeadLetters",
        metric=dlq.metric_approximate_number_of_messages_visible(period=Duration.minutes(5)),
        threshold=1,
        evaluation_periods=1,
        comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        alarm_description="Documents that failed indexing 5 times are waiting in the DLQ",
    )
