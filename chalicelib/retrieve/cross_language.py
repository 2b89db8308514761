"""A question over documents in several languages: the other languages searched by meaning, the question
put into their languages (lang=auto), and whether a language's chunk only translates one of the question
language's own."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from chalicelib import languages, tracing
from chalicelib.models.records import Hit
from chalicelib.protocols import Translator
from chalicelib.question.query import Query, Translation
from chalicelib.quotes import stored_vectors
from chalicelib.retrieve.index_search import Lists, words_beside
from chalicelib.retrieve.results import Plan, Timer
from chalicelib.retrieve.stage_context import Stage
from chalicelib.text import fold


@dataclass(frozen=True)
class CrossLanguage(Stage):
    """The other languages of a lang=auto question: searched by its vector, and by its translation."""

    translator: Translator | None = None
    known_products: Callable[[], list[str]] = field(default=lambda: [])

    def close(self, vector: np.ndarray, dense: list[Hit], other: list[Hit]) -> bool:
        """Another language's best chunk is about as close to the question as its own language's best
        (within ``alongside_margin``), and no translation of one of them: that language may hold the answer."""
        return (
            bool(other)
            and other[0].score >= (dense[0].score if dense else 0.0) - self.config.alongside_margin
            and not self.parallel(other[0], dense[:5])
            and not self.twin_sentence(vector, other[0], dense[:5])
        )

    def other_languages(self, vector: np.ndarray, plan: Plan, k: int) -> list[Hit]:
        """lang=auto: the answer may exist only in another language. Meaning crosses languages, words do not:
        the other namespaces are searched densely and join the dense list at a discount."""
        langs = plan.filters.langs
        if not plan.cross_lingual or langs is None:
            return []
        others = tuple(lang for lang in self.config.languages if lang not in langs)
        if not others:
            return []
        filters = replace(plan.filters, langs=others)
        return self.index.dense_search(vector, self.embedder.space, filters, k, self.config.hubness_weight)

    def twin_sentence(self, vector: np.ndarray, hit: Hit, own: list[Hit]) -> bool:
        """Another language's ``hit`` holds a translation of its best sentence for the question among the
        question language's ``own`` best chunks (their stored sentence vectors within ``parallel_sentence``):
        the fact is written in both languages, though the two pages were cut into chunks differently (one FAQ
        chunk in English, a chunk per section in Spanish) and ``_parallel`` cannot pair them."""
        space, limit = self.embedder.space, self.config.parallel_sentence
        if limit >= 1.0:
            return False
        chunks = {c.chunk_id: c for c in self.chunks.get_chunks([hit.chunk_id, *(h.chunk_id for h in own)])}
        stored = {cid: stored_vectors(c, space) for cid, c in chunks.items()}
        vectors = {cid: v for cid, v in stored.items() if v is not None}
        theirs = vectors.pop(hit.chunk_id, None)
        if theirs is None or not len(theirs) or not vectors:
            return False
        best = theirs[int(np.argmax(theirs @ np.asarray(vector, dtype=np.float32)))]
        return any(len(v) and float((v @ best).max()) >= limit for v in vectors.values())

    def parallel(self, hit: Hit, own: list[Hit]) -> bool:
        """Another language's ``hit`` says what one of the question language's ``own`` best chunks says: that
        chunk is close to it (``parallel_cosine``) and closer by ``parallel_lead`` than the others are (tables
        and lists resemble each other in any language without being translations)."""
        if len(own) < 2 or self.config.parallel_cosine >= 1.0:
            return False
        vectors = self.index.get_vectors([hit.chunk_id, *(h.chunk_id for h in own)])
        found = vectors.get(hit.chunk_id)
        if found is None:
            return False
        alike = sorted(
            (float(np.dot(found, v)) for k, v in vectors.items() if k != hit.chunk_id), reverse=True
        )
        if not alike:
            return False
        runner_up = alike[1] if len(alike) > 1 else 0.0
        return alike[0] >= self.config.parallel_cosine and alike[0] - runner_up >= self.config.parallel_lead

    def holds(self, vector: np.ndarray, plan: Plan, lang: str) -> bool:
        """Whether something written in ``lang`` is there for the caller under the request's filters: a
        document, or code commented in it: ``min_namespace`` chunks of it, or more than the question's own
        language has (a small store of Spanish code is Spanish), or one about as close to the question as
        the best of anything (within ``alongside_margin``: a Spanish module in an English codebase). A file
        or two commented in Spanish far from the question do not make a store of English code bilingual."""
        kinds = plan.filters.kinds
        if (kinds is None or "doc" in kinds) and self._found(vector, plan, lang, "doc", 1):
            return True
        if kinds is not None and "code" not in kinds:
            return False
        enough = self.config.min_namespace
        if plan.query_lang:
            enough = min(enough, len(self._found(vector, plan, plan.query_lang, "code", enough)) + 1)
        code = self._found(vector, plan, lang, "code", enough)
        if len(code) >= enough:
            return True
        best = self.index.dense_search(vector, self.embedder.space, plan.filters, 1)
        return bool(code and best) and code[0].score >= best[0].score - self.config.alongside_margin

    def _found(self, vector: np.ndarray, plan: Plan, lang: str, kind: str, upto: int) -> list[Hit]:
        """The chunks of ``kind`` written in ``lang`` the caller may read, closest first (at most ``upto``)."""
        filters = replace(plan.filters, langs=(lang,), kinds=(kind,))
        return self.index.dense_search(vector, self.embedder.space, filters, upto)

    def meaning_counts(self, dense: list[Hit], other: list[Hit]) -> bool:
        """Beside the translation, another language's chunks found by the question's own vector count too:
        when that language's best is about as close as the question language's best (``meaning_lead``)."""
        if not self.config.meaning_weight or not other:
            return False
        return other[0].score >= (dense[0].score if dense else 0.0) + self.config.meaning_lead

    def translated(
        self,
        query: Query,
        asked: np.ndarray,
        plan: Plan,
        others_found: int,
        timer: Timer,
        fetch: int,
        weigh_hubs: bool,
    ) -> tuple[Plan, list[tuple[Translation, Lists]]]:
        """lang=auto: the answer may be written in another language. Its documents are searched again with
        the question put into their language (dense and BM25 as for a question asked in it) when the
        question's own namespace was (almost) empty and something is written in theirs (an English question
        over code commented in English is not put into Spanish), or (``alongside_weight``) when other
        languages hold enough to fill a list: a few code-heavy chunks read as English do not make a Spanish
        manual bilingual. A failed translation is noted; that language is then searched by the question's own
        vector and words only. The question's names go along translated as well ("Reino Unido" -> "united
        kingdom"): the translator keeps a name inside a sentence as written, for product names' sake.
        Without a translator, ``applied["untranslated"]`` names the languages it would have been put into."""
        source = plan.query_lang
        if not self.config.translated_weight or not plan.cross_lingual or not source:
            return plan, []
        alongside = plan.namespaces is not None
        if alongside and (not self.config.alongside_weight or others_found < self.config.min_namespace):
            return plan, []
        # a language nothing is written in is left out: its translation would find nothing new
        others = (lang for lang in self.config.languages if lang != source)
        targets = [lang for lang in others if alongside or self.holds(asked, plan, lang)]
        if self.translator is None:
            return (plan.applying("untranslated", ", ".join(targets)) if targets else plan), []
        found: list[tuple[Translation, Lists]] = []
        keep = [*self.known_products()]
        for target in targets:
            text, aliases = self._put_into(query, source, target, keep, timer)
            if text is None:
                if (source, target) in self.translator.pairs():
                    say = languages.or_fallback(source)
                    plan = plan.noted(say.note("translation_failed", lang=say.name_of(target)))
                continue
            plan = plan.applying(f"translation_{target}", text)
            found.append(self._searched_in(target, text, aliases, plan, timer, fetch, weigh_hubs))
        return plan, found

    def _embedded(self, text: str, timer: Timer) -> np.ndarray:
        t = time.perf_counter()
        with tracing.span("embed", tracing.EMBEDDING, {"embedding.model_name": self.embedder.space.model_id}):
            vector = self.embedder.embed_query(text)
        timer.stage("embed", t)
        return vector

    def _put_into(
        self, query: Query, source: str, target: str, keep: list[str], timer: Timer
    ) -> tuple[str | None, tuple[tuple[str, str], ...]]:
        """The question in ``target``'s words, and its names of several words translated beside it ("Reino
        Unido"); one word is often a product's name that translates into a common word ("Faro" ->
        "Lighthouse")."""
        assert self.translator is not None
        t = time.perf_counter()
        with tracing.span(
            "translate", tracing.TOOL, {"sabio.source": source, "sabio.target": target}
        ) as span:
            span.text("input.value", query.text)
            text = self.translator.translate(query.text, source, target, keep)
            aliases = tuple(
                (n, a) for n in query.names if len(n.split()) > 1 and (a := self.alias(n, source, target))
            )
            if text is not None and aliases:
                text = f"{text} ({', '.join(a for _, a in aliases)})"
            span.set("sabio.translated", text is not None)
            span.text("output.value", text)
        timer.stage("translate", t)
        return text, aliases

    def _searched_in(
        self,
        target: str,
        text: str,
        aliases: tuple[tuple[str, str], ...],
        plan: Plan,
        timer: Timer,
        fetch: int,
        weigh_hubs: bool,
    ) -> tuple[Translation, Lists]:
        """The translation searched in ``target``'s namespace as a question asked in it (dense and BM25; its
        words while it is embedded, as the question's own are)."""
        there = _there(plan, target)
        words = words_beside(self.index, text, there, fetch)
        vector = self._embedded(text, timer)
        lists = self.search(text, vector, there, timer, fetch, words)
        if weigh_hubs:
            lists = Lists(self.hubs_down(lists.dense), self.hubs_down(lists.bm25, words=True), lists.prose)
        return Translation(target, text, vector, aliases), lists

    def alias(self, name: str, source: str, target: str) -> str | None:
        """A name put into another language ("Reino Unido" -> "United Kingdom"); None when the translator
        leaves it as it is ("Nespresso")."""
        if self.translator is None:
            return None
        text = self.translator.translate(name, source, target, names=False)
        if not text or fold(text) == fold(name):
            return None
        return text

    def variants(self, name: str, query: Query) -> list[str]:
        """``name`` in the other languages this server translates into (Spain -> España)."""
        if not query.lang:
            return []
        others = (lang for lang in self.config.languages if lang != query.lang)
        return [a for target in others if (a := self.alias(name, query.lang, target))]

    @staticmethod
    def may_broaden(plan: Plan) -> bool:
        return plan.namespaces is not None and plan.filters.langs is not None and plan.cross_lingual

    def broadened(self, plan: Plan, found: int) -> Plan:
        """(Almost) nothing in the question's language: the documents are in another one (a few code-heavy
        chunks detected as English do not make a Spanish manual English). Every language is searched; a note
        says so when the question's language has nothing at all (a small bilingual folder with a few pages
        in it is searched the same way, and there is nothing to tell: ``applied`` records it)."""
        assert plan.namespaces is not None
        own = plan.namespaces[0]
        say = languages.or_fallback(own)
        plan = plan.applying("all_languages", f"{found} in {own}")
        return replace(
            plan.noted(say.note("no_language", lang=say.name_of(own))) if found == 0 else plan,
            namespaces=None,
            filters=replace(plan.filters, langs=None),
            words_anywhere=self.config.cross_language_bm25,
            lacks_language=found == 0,
        )


def _there(plan: Plan, target: str) -> Plan:
    """``plan`` for a question asked in ``target``: its namespace alone, its words matched there only."""
    return replace(
        plan,
        namespaces=(target,),
        query_lang=target,
        filters=replace(plan.filters, langs=(target,)),
        words_anywhere=False,
    )
