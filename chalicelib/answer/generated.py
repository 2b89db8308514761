"""Generated answers: an LLM answers from the enriched context, citations are checked, fallbacks are kept."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from chalicelib import languages, tracing
from chalicelib.answer.claims import supported
from chalicelib.enrichment.embedding_text import build_context
from chalicelib.languages import DEFAULT as DEFAULT_LANGUAGES
from chalicelib.llms.client import ChatLLM, LLMError, LLMReply
from chalicelib.llms.json_repair import JSONReplyError, parse_json_object
from chalicelib.models.api import AnswerResponse, Citation, RetrieveRequest, answer_from, side_usage
from chalicelib.models.records import StoredChunk
from chalicelib.question.query import understand
from chalicelib.retrieve.results import Retrieval, Retrieved, RetrievedAnswerer, require_question

if TYPE_CHECKING:
    from chalicelib.access.keys import KeyPolicy

PROMPT_VERSION = "answer-v2"
SYSTEM_PROMPT = (
    "You answer questions about a company's knowledge using ONLY the numbered sources provided. Rules: "
    "answer in the same language as the question; use only facts stated in the sources, and if they do not "
    "contain the answer, say so; cite every fact with its source number in square brackets, like [1] or [2]. "
    'Return ONLY a JSON object: {"answer": "your answer with [n] citations", "answered": true, '
    '"citations": [{"source": 1, "quote": "the exact words copied from source 1 that support the answer"}]}. '
    "Every quote must be copied verbatim from the source it cites. When the sources do not answer the "
    'question, set "answered" to false, say so in "answer" and give no citations.'
)
_MARKER = re.compile(r"\[(\d{1,3})\]")


@dataclass
class CheckedAnswer:
    answer: str
    citations: list[Citation]
    issues: list[str] = field(default_factory=list)
    answered: bool = True
    notes: list[str] = field(default_factory=list)
    confidence: float | None = None  # the answer confidence read on the passages it cites


def held_to_citations(
    request: RetrieveRequest, retrieved: Retrieved, checked: CheckedAnswer, served: tuple[str, ...]
) -> CheckedAnswer:
    """The checks an extractive answer passes, on a generated one: sentences its citations do not support
    are cut; a name no document mentions, no answer of the kind asked for or nothing left: it abstains."""
    if not checked.answered:
        return checked
    query = retrieved.query or understand(request, served)
    lang = retrieved.response.lang if languages.get(retrieved.response.lang) else query.guess
    found = supported(query, lang, checked.answer, checked.citations, retrieved.unmentioned)
    say = languages.or_fallback(lang)
    if found.note is not None:
        return CheckedAnswer(say.no_answer, [], checked.issues, False, [found.note])
    notes = [say.note("cut", n=len(found.cut))] if found.cut else []
    return CheckedAnswer(found.answer, found.citations, checked.issues, True, notes)


def find_span(quote: str, content: str) -> str | None:
    """The verbatim span of ``content`` that ``quote`` reproduces (ignoring case and whitespace runs)."""
    words = quote.split()
    if not words:
        return None
    pattern = r"\s+".join(re.escape(w) for w in words)
    match = re.search(pattern, content, flags=re.IGNORECASE)
    return match.group(0) if match else None


def check_reply(data: dict[str, Any], chunks: list[StoredChunk]) -> CheckedAnswer:
    """Keep only citations of sources that were in the context whose quote really occurs in that source."""
    answer = str(data.get("answer") or "").strip()
    if not answer:
        raise ValueError("reply has no answer")
    issues: list[str] = []
    citations: list[Citation] = []
    raw = data.get("citations") or []
    for entry in raw if isinstance(raw, list) else []:
        if not isinstance(entry, dict):
            continue
        try:
            n = int(entry.get("source"))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            issues.append(f"citation without a source number: {entry!r}"[:160])
            continue
        if not 1 <= n <= len(chunks):
            issues.append(f"cited source [{n}] was not in the context")
            continue
        chunk = chunks[n - 1]
        span = find_span(str(entry.get("quote") or ""), chunk.content)
        if span is None:
            issues.append(f"quote for [{n}] does not occur in source {n}: {str(entry.get('quote'))[:80]!r}")
            continue
        citations.append(Citation.of(n, chunk, span))
    for marker in sorted({int(m) for m in _MARKER.findall(answer)}):
        if not 1 <= marker <= len(chunks):
            issues.append(f"answer cites [{marker}], which was not in the context")
            answer = answer.replace(f"[{marker}]", "")
    # "answered" missing (an older prompt, a terse model): an answer that cites nothing answered nothing
    answered = data.get("answered")
    answered = bool(citations) if not isinstance(answered, bool) else answered and bool(citations)
    return CheckedAnswer(" ".join(answer.split()), citations, issues, answered)


def answer_messages(request: RetrieveRequest, chunks: list[StoredChunk]) -> list[dict[str, str]]:
    """The prompt: the rules, the numbered sources, the question."""
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": f"Sources:\n\n{build_context(chunks)}\n\nQuestion: {request.query}"},
    ]


def verified(
    request: RetrieveRequest,
    retrieved: Retrieved,
    reply: LLMReply,
    chunks: list[StoredChunk],
    served: tuple[str, ...],
) -> CheckedAnswer:
    """The reply's citations checked against their sources, then the answer held to them (a span: "verify");
    a reply that is no answer object raises (JSONReplyError, ValueError)."""
    with tracing.span("verify", tracing.GUARDRAIL) as span:
        checked = check_reply(parse_json_object(reply.text), chunks)
        span.set("sabio.citation_issues", len(checked.issues))
        checked = held_to_citations(request, retrieved, checked, served)
        span.update({"sabio.answered": checked.answered, "sabio.citations": len(checked.citations)})
        span.set("sabio.notes", checked.notes)
        return checked


class LLMAnswerer:
    """Primary model, then the fallback model, then the extractive answer; the response says which answered."""

    def __init__(
        self,
        retrieval: Retrieval,
        fallback: RetrievedAnswerer,
        chain: list[tuple[str, ChatLLM]],
        *,
        context_chunks: int = 5,
        served: tuple[str, ...] = DEFAULT_LANGUAGES,
    ) -> None:
        self.retrieval = retrieval
        self.fallback = fallback
        self.chain = chain
        self.context_chunks = context_chunks
        self.languages = served

    def answer(self, request: RetrieveRequest, access: KeyPolicy | None) -> AnswerResponse:
        require_question(request)
        return self.answer_retrieved(request, self.retrieval.run(request, access))

    def answer_retrieved(self, request: RetrieveRequest, retrieved: Retrieved) -> AnswerResponse:
        chunks = retrieved.chunks[: self.context_chunks]
        attempts: list[str] = []
        if chunks:
            messages = answer_messages(request, chunks)
            for label, llm in self.chain:
                started = time.perf_counter()
                try:
                    reply = llm.complete(messages, temperature=0.2, json_mode=True)
                    checked = self.judged(
                        request, retrieved, verified(request, retrieved, reply, chunks, self.languages)
                    )
                except (LLMError, JSONReplyError, ValueError) as exc:
                    attempts.append(f"{label} ({llm.model}): {exc}"[:300])
                    continue
                return generated_response(request, retrieved, label, reply, checked, attempts, started)
        fallback = self.fallback.answer_retrieved(request, retrieved)
        return fallback.model_copy(update={"attempts": attempts})

    def judged(self, request: RetrieveRequest, retrieved: Retrieved, checked: CheckedAnswer) -> CheckedAnswer:
        """The confidence that judges an extractive answer, read on the passages a generated one cites: an
        answer those passages do not hold (their best quote is far from the question, lacks what it names or
        the kind of answer it asks for) abstains like an extractive one would."""
        from chalicelib.answer.extractive import ExtractiveAnswerer

        judge = self.fallback
        if not checked.answered or not isinstance(judge, ExtractiveAnswerer):
            return checked
        cited = {c.chunk_id for c in checked.citations}
        sure, note, held_back = judge.confidence_of(
            request, replace(retrieved, chunks=[c for c in retrieved.chunks if c.chunk_id in cited])
        )
        if sure is not None and sure >= judge.min_confidence:
            return replace(checked, confidence=sure)
        lang = (
            retrieved.response.lang
            if languages.get(retrieved.response.lang)
            else (retrieved.query_lang or "en")
        )
        say = languages.or_fallback(lang)
        text = held_back or say.no_answer
        return CheckedAnswer(text, [], checked.issues, False, [*checked.notes, note or ""], sure)


def generated_response(
    request: RetrieveRequest,
    retrieved: Retrieved,
    label: str,
    reply: LLMReply,
    checked: CheckedAnswer,
    attempts: list[str],
    started: float,
) -> AnswerResponse:
    """A checked LLM reply as the answer response, with its timings and token usage (HyDE's and the reranker's included)."""
    response = retrieved.response
    timings = {**response.timings_ms, "generate": round((time.perf_counter() - started) * 1000, 2)}
    timings["total"] = round(response.timings_ms.get("total", 0) + timings["generate"], 2)
    usage = side_usage(response, reply.usage)
    return answer_from(
        response,
        request.query or "",
        answer=checked.answer,
        answered_by=label,
        model=reply.model,
        extractive=False,
        answered=checked.answered,
        notes=[*response.notes, *checked.notes],
        verified=not checked.issues,
        citation_issues=checked.issues,
        attempts=attempts,
        citations=checked.citations,
        confidence=round(checked.confidence, 4) if checked.confidence is not None else None,
        timings_ms=timings,
        usage=usage,
    )
