"""The question an extractive answer reads its passages by: the one searched, or a follow-up as typed when a
thread's offline merge chose where to look (usage.Followed.read_as), put into the languages the search was."""

from __future__ import annotations

import logging
from dataclasses import replace

from chalicelib.models.api import RetrieveRequest
from chalicelib.protocols import Translator
from chalicelib.question.query import Query, understand
from chalicelib.retrieve.results import Retrieved

log = logging.getLogger(__name__)


def read_question(
    request: RetrieveRequest, retrieved: Retrieved, served: tuple[str, ...], translator: Translator | None
) -> Query:
    """The searched question (a bootstrap map has not read it yet), or the typed follow-up. The follow-up is
    translated as the merged question was: without it, "What are his support hours?" reads a Spanish table's
    "Horario de soporte" by English words alone and holds none of them."""
    if not retrieved.read_as:
        return retrieved.query or understand(request, served)
    typed = understand(RetrieveRequest(query=retrieved.read_as), served)
    searched = retrieved.query
    if searched is None:
        return typed
    typed = replace(typed, thread=searched.text)
    if translator is None or not searched.translations:
        return typed
    source = searched.lang or typed.guess
    for done in searched.translations:
        text = translator.translate(typed.text, source, done.lang)
        if text is None:  # read by its own words there, as before a translator; the search noted its own
            log.warning("follow-up not translated into %s; read in %s only", done.lang, source)
            continue
        # the merged question's vector in that language stands in for the typed words' (it chose the passages)
        typed = typed.translated(replace(done, text=text))
    return typed
