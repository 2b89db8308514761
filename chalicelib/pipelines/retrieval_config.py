"""How a retrieve ranks: every knob of its stages, each with the measurement that chose it."""

from __future__ import annotations

from dataclasses import dataclass, field

from chalicelib.languages import DEFAULT as DEFAULT_LANGUAGES
from chalicelib.pipelines.rerank import RerankConfig


@dataclass
class RetrievalConfig:
    languages: tuple[str, ...] = DEFAULT_LANGUAGES
    candidates: int = 50
    rrf_k: int = 60
    fusion: str = "score"  # "score": normalised-score fusion; "rrf": reciprocal rank fusion
    duplicate_threshold: float = 0.6
    hyde: bool = False
    hyde_budget_s: float = 2.0
    intents: bool = True  # intent subqueries and boosts (pricing, rules, ...)
    # hubs (changelogs): cosine points taken off their dense scores and a factor on their BM25 scores, before
    # fusion, unless the question asks about changes or the caller filters on their type (docs/evaluation.md)
    hub_penalty: float = 0.03
    hub_bm25_weight: float = 0.5
    pool: int = 20  # fused candidates read in full (boosts, sentence evidence, duplicates) before the top k
    # weight of a chunk's best sentence (its stored quote vectors, max cosine to the question, min-max scaled
    # over the pool) added to the fused score: one sentence that answers beats a chunk that is merely about it
    sentence_weight: float = 0.5
    cross_language_bm25: bool = True  # see Plan.words_anywhere
    cross_language_bm25_weight: float = 0.8  # that list's weight in score fusion
    # lang=auto: a question-language namespace with fewer dense hits than this (under the request's filters)
    # is (almost) empty: every language is searched instead
    min_namespace: int = 10
    # lang=auto: another language's dense and sentence scores (min-max scaled with the question language's)
    # are multiplied by this; 1.0 since no measured set moved and Spanish-only answers reach English questions
    other_language_weight: float = 1.0
    # dense scores are CSLS: cosine minus this much of the chunk's mean cosine to its nearest chunks, so that
    # chunks close to everything stop coming first for every question (docs/evaluation.md); 0: cosine
    hubness_weight: float = 0.15
    # lang=auto and a translator: the question is also put into each other language that holds documents and
    # searched there as that language's own question (dense and BM25), these lists at this weight; 0: off
    translated_weight: float = 1.0
    # the same, times this, when the question's own language has documents too but does not answer well:
    # another language's best chunk is about as close to the question as its own language's best (within
    # ``alongside_margin`` of cosine). A company folder writes most facts in one language only (the company
    # set's cross-language questions). Not when that chunk is a translation of one of the own language's
    # best (the two chunks' cosine >= ``parallel_cosine`` and ahead of the next by ``parallel_lead``): the fact
    # is written in both languages. XQuAD mixed's pairs: cosine 0.88 and lead 0.056 at their 5th percentile;
    # the company set's cross-language questions: 0.84 and 0.008 at their median
    alongside_weight: float = 1.0
    alongside_margin: float = 0.05
    # the same bilingual store, when another language's best chunk is within ``meaning_lead`` of cosine of
    # the question language's best (or ahead): that language's own dense list for the question's vector joins
    # the fusion as a list of its own (its top ``meaning_top``, at ``meaning_weight``) beside the
    # translation's lists. A machine translation loses words ("portátil" -> "portable", "ONG" -> "stops
    # ONG"); the multilingual vector keeps them. Company set: cross-language hit@1 43.8 -> 56.2, hit@5 87.5
    # -> 91.7 (docs/evaluation.md)
    meaning_weight: float = 1.0
    meaning_top: int = 10
    meaning_lead: float = -0.02
    parallel_cosine: float = 0.88
    parallel_lead: float = 0.04
    # the same, sentence by sentence: another language's best sentence for the question has a translation
    # among the question language's best chunks at this cosine (examples/: "Where is my data stored?" and
    # "¿Dónde se guardan mis datos?" 0.95; the company set's one-language facts at most 0.87; 1.0: off)
    parallel_sentence: float = 0.93
    # near-duplicate pages ("Planta de Monterrey", "Planta de Valencia"): the chunks of the one whose title
    # holds the name asked about are multiplied by this
    title_name_boost: float = 1.1
    # the second stage (SABIO_RERANKER): its top N, time budget and blend with the first stage's order
    rerank: RerankConfig = field(default_factory=RerankConfig)
    # LLM query rewriting (SABIO_RETRIEVAL_REWRITE): a short question expanded, a multi-part one split; each
    # rewrite's dense and BM25 lists fused beside the question's at this weight, within the budget
    rewrite: bool = False
    rewrite_budget_s: float = 2.0
    rewrite_weight: float = 0.7
    llm_json_mode: bool = True  # SABIO_LLM_JSON_MODE, for the rewriting's request
