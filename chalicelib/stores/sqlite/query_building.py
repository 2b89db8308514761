"""Pure builders for the SQLite store: metadata pre-filter SQL, query terms and FTS5 match expressions."""

from __future__ import annotations

from collections.abc import Sequence

from chalicelib import languages
from chalicelib.models.records import SearchFilters
from chalicelib.text import fold, stem, terms


def filter_sql(filters: SearchFilters, alias: str = "v") -> tuple[str, list[object]]:
    """``WHERE`` clause (without the keyword) and its parameters; always valid SQL."""
    clauses: list[str] = []
    params: list[object] = []
    columns = {
        "source_id": filters.source_ids,
        "lang": filters.langs,
        "product": filters.products,
        "content_type": filters.content_types,
        "category": filters.categories,
        "kind": filters.kinds,
    }
    for column, values in columns.items():
        if values is None:
            continue
        if not values:
            clauses.append("0")  # an empty allow-list matches nothing
            continue
        clauses.append(f"{alias}.{column} IN ({','.join('?' * len(values))})")
        params.extend(values)
    lists = (("tags", filters.tags), ("tags", filters.allowed_tags), ("readers", filters.allowed_readers))
    for column, wanted in lists:  # each: the chunk's list holds any of these
        if wanted is not None:
            clauses.append(
                f"EXISTS (SELECT 1 FROM json_each({alias}.{column}) WHERE json_each.value IN "
                f"({','.join('?' * len(wanted)) or 'NULL'}))"
            )
            params.extend(wanted)
    if filters.allowed_refs is not None:
        likes = " OR ".join(f"{alias}.key LIKE ? ESCAPE '\\'" for _ in filters.allowed_refs) or "0"
        clauses.append(f"({likes})")
        params.extend(_like_prefix(p) for p in filters.allowed_refs)
    if filters.critical is not None:
        clauses.append(f"{alias}.critical = ?")
        params.append(int(filters.critical))
    if filters.source_ref:
        clauses.append(f"{alias}.key LIKE ? ESCAPE '\\'")
        params.append(_like_prefix(filters.source_ref))
    return (" AND ".join(clauses) or "1"), params


def stems_text(text: str, lang: str) -> str:
    """The stemmed, folded, stop-word-free form of ``text`` that the ``stems`` FTS column holds."""
    return " ".join(stem(terms(text, lang), lang))


def match_terms(query: str, langs: Sequence[str]) -> tuple[list[str], list[str]] | None:
    """The folded query terms a text column may match, and the stems the stems column may match, in each
    of ``langs`` that the registry knows (its stop-words out, its stems in); None when there are none."""
    langs = tuple(lang for lang in langs if languages.get(lang)) or languages.DEFAULT
    raw: set[str] = set()
    stems: set[str] = set()
    for lang in langs:
        toks = terms(query, lang)
        raw.update(toks)
        stems.update(stem(toks, lang))
    if not raw:
        raw = set(terms(query, None, keep_stopwords=True))
        stems = set(raw)
    if not raw:
        return None
    return [fold(t) for t in sorted(raw)], [fold(t) for t in sorted(stems)]


def fts5_expression(raw: Sequence[str], stems: Sequence[str]) -> str:
    """FTS5 expression of ``match_terms``: any term in the text columns, or any stem in the stems column."""
    quoted_raw = " OR ".join(_quote(t) for t in raw)
    quoted_stems = " OR ".join(_quote(t) for t in stems)
    return f"({{title section body}} : ({quoted_raw})) OR (stems : ({quoted_stems}))"


def _quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def _like_prefix(prefix: str) -> str:
    return prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
