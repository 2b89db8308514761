"""The language registry: everything Sabio knows about a human language (stemmer, stop-words, analyzer,
intent and code words, question templates, the map's subqueries, the no-answer sentence) lives in one
``<code>.toml`` file beside this module. ``SABIO_LANGUAGES`` picks which of them an installation uses;
adding a language is adding its file (docs/architecture.md, "Languages")."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
# what an installation uses unless SABIO_LANGUAGES says otherwise
DEFAULT = ("es", "en")
# the intents a question may show, in the order they are tried (the first that matches wins)
INTENTS = ("pricing", "rules", "backlog", "history", "how-to")
# a code or a language without a file falls back to this one's sentences and templates
FALLBACK = "en"


@dataclass(frozen=True)
class Language:
    code: str  # ISO 639-1: also the namespace its documents are stored under
    name: str  # in English, for LLM prompts ("Write in Spanish")
    snowball: str | None  # PyStemmer algorithm; None: words are not stemmed
    opensearch_analyzer: str  # OpenSearch's built-in analyzer for this language's index
    stopwords: frozenset[str]  # folded
    marks: re.Pattern[str] | None  # orthography that tells a short text in this language apart
    no_answer: str
    anaphors: frozenset[str]
    map_subqueries: tuple[tuple[str, str], ...]  # bootstrap: (name, subquery)
    intent_words: dict[str, re.Pattern[str]]  # intent -> words that show it, on the folded question
    intent_subqueries: dict[str, str]  # intent -> the subquery that brings in its chunks
    code_words: re.Pattern[str] | None  # words that show a question is about code
    question_templates: dict[str, Any]  # content type -> templates (heuristic enrichment)
    answer_types: tuple[tuple[str, re.Pattern[str]], ...] = ()  # kind -> what asks for it (folded question)
    answer_words: dict[str, re.Pattern[str]] | None = None  # kind -> words that hold it in an answer
    notes: dict[str, str] | None = None  # what a response says happened, as templates
    yes_no: re.Pattern[str] | None = None  # a question answered yes or no (its answer need hold no kind)
    frame_words: frozenset[str] = frozenset()  # folded words that frame a question, not its topic
    role_question: re.Pattern[str] | None = None  # "who is the <role>": group ``role``, named by the answer
    steps_question: re.Pattern[str] | None = None  # asks for a procedure: answered with its list of steps
    # a question word that also joins a clause ("What happens when...?"): it asks only when it opens the question
    clause_word: re.Pattern[str] | None = None
    question_word: re.Pattern[str] | None = None  # the words a question opens with, on the folded question
    measure_question: re.Pattern[str] | None = (
        None  # "how many <unit>": group ``unit``, on the folded question
    )
    duration_question: re.Pattern[str] | None = None  # "how long": a span of time, on the folded question
    clock_question: re.Pattern[str] | None = None  # "what time", "opening hours": a time of day
    day_question: re.Pattern[str] | None = None  # "which day": a weekday, a date or a month
    names_of: dict[str, str] | None = None  # answer kinds and languages named in this language
    # the anaphors that stand for a person wherever they are ("need her approval"), casefolded
    person_pronouns: frozenset[str] = frozenset()
    # how a follow-up in a conversation leans on the thread (chalicelib/conversation/cues.py reads it)
    follow_up: dict[str, Any] | None = None

    def note(self, name: str, **fields: object) -> str:
        """The note ``name`` in this language (the fallback language's when this one has none)."""
        template = (self.notes or {}).get(name) or (require(FALLBACK).notes or {})[name]
        return template.format(**fields)

    def name_of(self, thing: str) -> str:
        """How this language names an answer kind or a language code ("amount", "en")."""
        return (self.names_of or {}).get(thing, thing)


@cache
def get(code: str) -> Language | None:
    """The registered language ``code``, or None when there is no file for it."""
    path = HERE / f"{code}.toml"
    if not re.fullmatch(r"[a-z]{2,3}", code) or not path.is_file():
        return None
    return _parse(tomllib.loads(path.read_text("utf-8")))


def require(code: str) -> Language:
    found = get(code)
    if found is None:
        raise ValueError(f"no language {code!r} in the registry; known: {', '.join(registered())}")
    return found


def or_fallback(code: str | None) -> Language:
    """The language ``code``, or the fallback's sentences and templates for undetected or unknown text."""
    return get(code or "") or require(FALLBACK)


@cache
def registered() -> tuple[str, ...]:
    """Every language with a file: the default ones first, then the rest by code."""
    others = sorted(p.stem for p in HERE.glob("*.toml") if p.stem not in DEFAULT)
    return (*DEFAULT, *others)


def _pattern(value: str | None) -> re.Pattern[str] | None:
    return re.compile(value) if value else None


def _parse(d: dict[str, Any]) -> Language:
    intents = d.get("intents") or {}
    return Language(
        code=d["code"],
        name=d["name"],
        snowball=d.get("snowball"),
        opensearch_analyzer=d.get("opensearch_analyzer") or "standard",
        stopwords=frozenset(str(d.get("stopwords") or "").split()),
        marks=re.compile(d["marks"], re.I) if d.get("marks") else None,
        no_answer=d["no_answer"],
        anaphors=frozenset(d.get("anaphors") or ()),
        person_pronouns=frozenset(d.get("person_pronouns") or ()),
        map_subqueries=tuple((str(k), str(v)) for k, v in (d.get("map_subqueries") or {}).items()),
        intent_words={k: re.compile(v["words"]) for k, v in intents.items() if v.get("words")},
        intent_subqueries={k: v["subquery"] for k, v in intents.items() if v.get("subquery")},
        code_words=_pattern(d.get("code_words")),
        question_templates=d.get("question_templates") or {},
        answer_types=tuple((k, re.compile(v)) for k, v in (d.get("answer_types") or {}).items()),
        answer_words={k: re.compile(rf"\b(?:{v})\b") for k, v in (d.get("answer_words") or {}).items()},
        notes=dict(d.get("notes") or {}),
        yes_no=_pattern(d.get("yes_no")),
        frame_words=frozenset(str(d.get("frame_words") or "").split()),
        role_question=_pattern(d.get("role_question")),
        steps_question=_pattern(d.get("steps_question")),
        clause_word=_pattern(d.get("clause_word")),
        question_word=_pattern(d.get("question_word")),
        measure_question=_pattern(d.get("measure_question")),
        duration_question=_pattern(d.get("duration_question")),
        clock_question=_pattern(d.get("clock_question")),
        day_question=_pattern(d.get("day_question")),
        names_of=dict(d.get("names_of") or {}),
        follow_up=d.get("follow_up"),
    )
