"""The report of GET /insights: what the questions asked found missing, and how the documents are used."""

from __future__ import annotations

from pydantic import BaseModel, Field


class GapCluster(BaseModel):
    """Questions of one meaning that the documents do not answer."""

    count: int
    langs: dict[str, int]
    products: dict[str, int]
    unhelpful: int = Field(description="how many were marked unhelpful")
    examples: list[str]
    exists_in: dict[str, int] = Field(
        default_factory=dict,
        description="how many of them found their closest passage in another language than the question's",
    )


class DocumentUse(BaseModel):
    document_id: str
    source_id: str
    key: str
    title: str
    lang: str
    count: int = 0
    asked_in: dict[str, int] = Field(default_factory=dict, description="question languages")
    error: str | None = Field(None, description="why it failed to index")


class InsightsReport(BaseModel):
    since: float
    queries: int
    weak: int = Field(description="questions with no answer in the documents, or marked unhelpful")
    missing_topics: list[GapCluster]
    other_language: list[GapCluster] = Field(
        default_factory=list,
        description="unanswered topics whose closest passages are in another language: translate them?",
    )
    translate: list[DocumentUse] = Field(
        description="answers found only in another language than the question's"
    )
    most_cited: list[DocumentUse]
    never_retrieved: list[DocumentUse]
    failed_documents: list[DocumentUse]
    feedback: dict[str, int]
    notes: list[str] = Field(default_factory=list)
