"""A follow-up that leaves its noun out and says how the thing differs ("and an electric one?", "and the small
one?"): the earlier question's thing of that kind, with the new words in place of its old ones ("a city bike"
becomes "an electric bike", "the large pizza" "the small pizza")."""

from __future__ import annotations

from chalicelib.conversation.cues import Cues, Words
from chalicelib.conversation.phrases import asked_about


def one_of_a_kind(base: Words, piece: Words, c: Cues) -> tuple[Words, str] | None:
    """``base`` with its described thing (an article, words that describe, a noun) described as ``piece``
    describes it, and what it replaced; None when ``piece`` is not an article, words and "one" (after a
    preposition: "and of the large one?"), or ``base`` describes no such thing. The thing taken is the one
    after that preposition; else the first not after a preposition (what is asked about: "to rent a city bike
    for a full day"), else the last ("the price of the large pizza")."""
    said = piece[1:] if piece.folded[0] in c.prepositions else piece
    if len(said) < 3 or said.folded[0] not in c.determiners or said.folded[-1] not in c.elided:
        return None
    described = _described(base, c)
    if said is not piece:
        described = [(s, e) for s, e in described if base.folded[s - 1] == piece.folded[0]]
    if not described:
        return None
    ends = dict(described)
    start = asked_about(base, list(ends), c) if said is piece else described[-1][0]
    end = ends[start]
    return base.replaced(start, end, Words.join(said[:-1], base[end - 1 : end])), base[start:end].text()


def _described(base: Words, c: Cues) -> list[tuple[int, int]]:
    """Where ``base``'s phrases of an article, one word or more that describe, and a noun start and end (at
    the next preposition, clause or verb)."""
    stops = c.prepositions | c.breaks | c.auxiliaries | c.asks
    out = []
    for start in range(1, len(base)):
        if base.folded[start] in c.determiners:
            end = next((j for j in range(start + 1, len(base)) if base.folded[j] in stops), len(base))
            if end - start >= 3:
                out.append((start, end))
    return out
