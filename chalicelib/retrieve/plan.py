"""A request's plan (mode, the question's language, the namespaces to search), its scope, filters and the
caller's access as store pre-filters (scope narrows every search, it never post-filters), and the filters
each list of a search uses."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from chalicelib import languages
from chalicelib.models.api import RetrieveRequest
from chalicelib.models.records import SearchFilters
from chalicelib.question.query import Query
from chalicelib.retrieve.results import Plan, require_served

if TYPE_CHECKING:
    from chalicelib.access.keys import KeyPolicy


def plan_for(
    request: RetrieveRequest, access: KeyPolicy | None, query: Query, served: tuple[str, ...]
) -> Plan:
    """Mode, the question's language and the namespaces to search, under the caller's filters."""
    require_served(request.lang, served)
    mode, reason, query_lang = query.mode, query.mode_reason, query.lang
    notes: tuple[str, ...] = ()
    namespaces: tuple[str, ...] | None
    if request.lang == "all":
        namespaces = None
    elif request.lang != "auto":
        namespaces = (request.lang,)
    else:
        namespaces = (query_lang,) if query_lang else None
        if query_lang is None and request.query:
            notes = (languages.or_fallback(query.guess).note("unclear_language"),)
    return Plan(
        mode,
        reason,
        namespaces,
        query_lang,
        scoped_filters(request, access, namespaces, None),
        notes,
        (("mode", mode),),
        cross_lingual=request.lang == "auto",
        code_anywhere=request.lang in ("auto", "all"),
        identifiers_anywhere=request.lang in ("auto", "all") and bool(query.identifiers),
    )


def scoped_filters(
    request: RetrieveRequest,
    access: KeyPolicy | None,
    namespaces: tuple[str, ...] | None,
    kinds: tuple[str, ...] | None,
) -> SearchFilters:
    """What the request asked for, narrowed by the API key's reach (``access``; None: every source)."""
    scope, f = request.scope, request.filters
    tags: tuple[str, ...] | None = None
    if scope.tags is not None and f.tags is not None:
        tags = tuple(set(scope.tags) & set(f.tags))
    elif scope.tags is not None or f.tags is not None:
        tags = tuple(scope.tags or f.tags or ())
    source_ids = _tuple(scope.source_id)
    if access is not None and access.source_ids is not None:
        allowed = access.source_ids
        source_ids = allowed if source_ids is None else tuple(s for s in source_ids if s in allowed)
    return SearchFilters(
        source_ids=source_ids,
        langs=namespaces,
        products=_tuple(f.product),
        content_types=_tuple(f.content_type),
        categories=_tuple(f.category),
        tags=tags,
        source_ref=scope.source_ref,
        kinds=kinds,
        allowed_refs=access.source_refs if access is not None else None,
        allowed_tags=access.tags if access is not None else None,
        allowed_readers=access.readers if access is not None else None,
    )


def _tuple(v: list[str] | None) -> tuple[str, ...] | None:
    return tuple(v) if v is not None else None


def keyword_filters(plan: Plan) -> SearchFilters:
    """BM25's filters: words only match words of the same language, so when every namespace is searched
    (lang=all, or a search broadened after finding nothing) prose is matched in the query's language only; a
    cross-language BM25 list would add noise. (Code is matched in every namespace: see ``search``; so is a
    question holding an identifier, unless the caller chose a language: ``Plan.identifiers_anywhere``.)"""
    if plan.identifiers_anywhere:
        return replace(plan.filters, langs=None)
    if plan.namespaces is None and plan.query_lang and not plan.words_anywhere:
        return replace(plan.filters, langs=(plan.query_lang,))
    return plan.filters


def splits(plan: Plan, filters: SearchFilters) -> bool:
    """Searched as prose of the namespace plus code of any language (code_anywhere, a namespace set, and
    no kind asked for)."""
    return plan.code_anywhere and filters.langs is not None and filters.kinds is None
