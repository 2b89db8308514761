"""Amazon Bedrock's Rerank API (``bedrock-agent-runtime`` ``rerank``): ``amazon.rerank-v1:0`` and
``cohere.rerank-v3-5:0``, both multilingual. Billed per query of up to 100 documents (``usage``)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from chalicelib.errors import RerankError
from chalicelib.protocols import Reranking
from chalicelib.registry import RERANKERS
from chalicelib.rerankers import scores_by_index

if TYPE_CHECKING:
    from chalicelib.config.retrieval import RerankConfig
    from chalicelib.registry import Wiring

DEFAULT_MODEL = "amazon.rerank-v1:0"
DOCUMENTS_PER_QUERY = 100  # Bedrock bills one query per 100 documents reranked
MAX_TEXT = 32000  # the API's limit per text


def model_arn(model: str, region: str) -> str:
    """A model id ("amazon.rerank-v1:0") as the foundation-model ARN the API takes; an ARN as given."""
    return model if model.startswith("arn:") else f"arn:aws:bedrock:{region}::foundation-model/{model}"


def client(region: str | None, endpoint_url: str | None, timeout_s: float) -> Any:
    """A bedrock-agent-runtime client: no retries of its own (the request's budget decides), its timeouts
    bounded by the rerank budget."""
    import boto3
    from botocore.config import Config

    config = Config(
        connect_timeout=max(timeout_s, 0.1),
        read_timeout=max(timeout_s, 0.1),
        retries={"total_max_attempts": 1, "mode": "standard"},
    )
    return boto3.client("bedrock-agent-runtime", region_name=region, endpoint_url=endpoint_url, config=config)


class BedrockReranker:
    def __init__(self, model: str, region: str, bedrock: Any) -> None:
        self.model = model
        self.arn = model_arn(model, region)
        self.bedrock = bedrock

    @property
    def name(self) -> str:
        return self.model

    def rerank(self, question: str, passages: Sequence[str], timeout_s: float) -> Reranking:
        if not passages:
            return Reranking([])
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            reply = self.bedrock.rerank(
                queries=[{"type": "TEXT", "textQuery": {"text": question[:MAX_TEXT]}}],
                sources=[
                    {
                        "type": "INLINE",
                        "inlineDocumentSource": {"type": "TEXT", "textDocument": {"text": p[:MAX_TEXT]}},
                    }
                    for p in passages
                ],
                rerankingConfiguration={
                    "type": "BEDROCK_RERANKING_MODEL",
                    "bedrockRerankingConfiguration": {
                        "numberOfResults": len(passages),
                        "modelConfiguration": {"modelArn": self.arn},
                    },
                },
            )
        except ClientError as exc:
            error = exc.response.get("Error", {})
            code = error.get("Code", "ClientError")
            reason = "throttled" if code == "ThrottlingException" else code
            raise RerankError(reason, str(error.get("Message", ""))[:200]) from exc
        except BotoCoreError as exc:  # timeouts, connection errors
            reason = "timeout" if "timeout" in type(exc).__name__.lower() else "unreachable"
            raise RerankError(reason, str(exc)[:200]) from exc
        results = [
            {"index": r.get("index"), "score": r.get("relevanceScore")} for r in reply.get("results", [])
        ]
        queries = math.ceil(len(passages) / DOCUMENTS_PER_QUERY)
        return Reranking(scores_by_index(results, len(passages), "score"), {"rerank_queries": queries})


@RERANKERS.register("bedrock")
def build(config: RerankConfig, wiring: Wiring) -> BedrockReranker:
    """SABIO_RERANKER=bedrock: Bedrock's Rerank in the deployment's region, its client bounded by the budget."""
    region = wiring.aws_region or "us-east-1"
    bedrock = client(region, wiring.aws_endpoint_url, config.budget_ms / 1000)
    return BedrockReranker(config.model or DEFAULT_MODEL, region, bedrock)
