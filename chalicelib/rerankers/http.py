"""Any self-hosted ``/rerank`` endpoint: Cohere's shape (``query`` + ``documents`` -> ``results[{index,
relevance_score}]``, which Jina, vLLM and Infinity serve too) and Hugging Face TEI's (``query`` + ``texts``
-> ``[{index, score}]``). The first is sent; a server that answers 422 (TEI, missing ``texts``) is asked in
its own shape from then on."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from chalicelib.errors import ConfigurationError, RerankError
from chalicelib.protocols import Reranking
from chalicelib.registry import RERANKERS
from chalicelib.rerankers import scores_by_index

if TYPE_CHECKING:
    from chalicelib.config.retrieval import RerankConfig
    from chalicelib.registry import Wiring


class HttpReranker:
    def __init__(self, url: str, model: str | None = None, api_key: str | None = None) -> None:
        self.url = url
        self.model = model
        self.api_key = api_key
        self.tei = False  # learned from the server's first 422

    @property
    def name(self) -> str:
        """The model when one is named; never the endpoint (callers see this name, not the network)."""
        return self.model or "http"

    def rerank(self, question: str, passages: Sequence[str], timeout_s: float) -> Reranking:
        if not passages:
            return Reranking([])
        try:
            reply = self._post(self._body(question, passages), timeout_s)
        except urllib.error.HTTPError:  # only a first 422 comes through: TEI asks for ``texts``
            self.tei = True
            reply = self._post(self._body(question, passages), timeout_s)
        return self._read(reply, len(passages))

    def _body(self, question: str, passages: Sequence[str]) -> dict[str, Any]:
        if self.tei:
            return {"query": question, "texts": list(passages), "truncate": True, "raw_scores": False}
        body: dict[str, Any] = {"query": question, "documents": list(passages), "top_n": len(passages)}
        if self.model:
            body["model"] = self.model
        return body

    def _post(self, body: dict[str, Any], timeout_s: float) -> bytes:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(self.url, json.dumps(body).encode(), headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=max(timeout_s, 0.01)) as response:  # noqa: S310
                return bytes(response.read())
        except urllib.error.HTTPError as exc:
            if exc.code == 422 and not self.tei:
                raise
            raise _http_error(exc) from exc
        except TimeoutError as exc:
            raise RerankError("timeout", f"no answer within {timeout_s:.2f} s") from exc
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, TimeoutError):
                raise RerankError("timeout", f"no answer within {timeout_s:.2f} s") from exc
            raise RerankError("unreachable", str(exc.reason)) from exc

    def _read(self, reply: bytes, n: int) -> Reranking:
        try:
            data = json.loads(reply)
        except ValueError as exc:
            raise RerankError("malformed", "the answer is not JSON") from exc
        if isinstance(data, list):  # TEI
            return Reranking(scores_by_index(data, n, "score"))
        if not isinstance(data, dict) or not isinstance(data.get("results"), list):
            raise RerankError("malformed", "the answer has no results list")
        usage = data.get("usage") or data.get("meta", {}).get("billed_units") or {}
        tokens = {k: int(v) for k, v in usage.items() if isinstance(v, int) and not isinstance(v, bool)}
        return Reranking(scores_by_index(data["results"], n, "relevance_score"), tokens)


def _http_error(exc: urllib.error.HTTPError) -> RerankError:
    reason = "throttled" if exc.code == 429 else "server_error" if exc.code >= 500 else "rejected"
    detail = exc.read()[:200].decode("utf-8", "replace") if exc.fp else ""
    return RerankError(reason, f"HTTP {exc.code} {detail}".strip())


@RERANKERS.register("http")
def build(config: RerankConfig, wiring: Wiring) -> HttpReranker:
    """SABIO_RERANKER=http: the endpoint SABIO_RERANKER_URL names."""
    if not config.url:
        raise ConfigurationError("SABIO_RERANKER=http needs SABIO_RERANKER_URL (e.g. http://tei:8080/rerank)")
    key = config.api_key.get_secret_value() if config.api_key else None
    return HttpReranker(config.url, config.model, key)
