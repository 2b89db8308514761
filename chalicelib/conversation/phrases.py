"""The phrases a follow-up leans on: what an earlier question is about (its topic), where a phrase ends, and a
follow-up's phrase put in the place of the earlier question's phrase of the same kind ("en México" where
"en España" was, "anual" where "mensual" was, "el plan Max" where "el plan Pro" was)."""

from __future__ import annotations

from chalicelib.conversation.cues import Cues, Words
from chalicelib.question.query import identifiers
from chalicelib.text import stopwords

SUBJECT_WITHIN = 5  # how far past a question's frame its subject is looked for


def is_name(words: Words, i: int) -> bool:
    """A capitalised word (not the question's first, nor a stop-word: "I") or a word with a digit: a name, a
    code, an amount."""
    shown = words.shown[i]
    capital = i > 0 and shown[:1].isupper() and len(shown) > 1 and words.folded[i] not in stopwords(None)
    return capital or _has_digit(shown)


def _opens(words: Words, i: int, c: Cues) -> bool:
    """Whether the subject of a question may start at ``i``: an article, a possessive, a name or a number."""
    return words.folded[i] in c.determiners or words.folded[i] in c.possessives or is_name(words, i)


def _frames(words: Words, i: int, c: Cues) -> bool:
    """A word of the question's frame (what it asks, not what it asks about), at its start."""
    w = words.folded[i]
    if is_name(words, i) or w in c.determiners or w in c.possessives:
        return False
    if w in c.prepositions:  # "¿A qué hora...?", "¿Desde cuándo...?", "How far in advance...?"
        return i + 1 < len(words) and (words.folded[i + 1] in c.asks or words.folded[i + 1] in c.degree)
    return w in c.asks or w in c.degree or w in c.frame_words or w in c.auxiliaries or w in c.stopwords


def _trails(words: Words, i: int, c: Cues) -> bool:
    w = words.folded[i]
    if is_name(words, i):
        return False
    return w in c.frame_words or w in c.auxiliaries or w in c.prepositions or w in c.stopwords


def _aside(words: Words, i: int, c: Cues) -> bool:
    """A word inside the topic that only helps the question ask: an auxiliary, or a frame verb before a
    preposition ("the Pro plan cost in Spain")."""
    w = words.folded[i]
    if is_name(words, i):
        return False
    if w in c.auxiliaries:
        return True
    later = words.folded[i + 1] if i + 1 < len(words) else ""
    earlier = words.folded[i - 1] if i else ""
    return w in c.frame_words and later in c.prepositions and earlier not in c.determiners


def topic(question: Words, c: Cues) -> Words:
    """What a question is about: its words past its frame ("¿Cuánto cuesta el plan Pro en España?": "el plan
    Pro en España"; "How do I request a leave of absence?": "a leave of absence"). A phrase that opens the
    question before its question word goes last ("Under PO-7, how long ...?": "... under PO-7")."""
    ask = _ask_after_opening(question, c)
    if ask:
        opening = question[:ask]
        opening = Words((opening.shown[0].lower(), *opening.shown[1:]), opening.folded)
        return Words.join(topic(question[ask:], c), opening)
    n = len(question)
    start = _to_subject(question, _past_frame(question, 0, c), c)
    while start < n - 1 and question.folded[start] in c.prepositions:  # "(días) de vacaciones": "vacaciones"
        start += 1
    end = _passive_end(question, start, n, c)
    while end > start and _trails(question, end - 1, c):
        end -= 1
    kept = [j for j in range(start, end) if not _aside(question, j, c)]
    found = Words(tuple(question.shown[j] for j in kept), tuple(question.folded[j] for j in kept))
    return found if len(found) else question


def _ask_after_opening(question: Words, c: Cues) -> int:
    """Where the question word stands when a phrase opens the question ("For a foreign client, how recent
    ...?": 4); 0 when the question opens with its frame."""
    if not len(question) or question.folded[0] not in c.prepositions:
        return 0
    ask = next((j for j in range(1, min(len(question), 7)) if question.folded[j] in c.asks), 0)
    if ask < 2 or question.folded[ask - 1] in c.prepositions:  # "¿A partir de qué ...?" is its frame
        return 0
    named = any(is_name(question, j) or question.folded[j] in c.determiners for j in range(1, ask))
    return ask if named else 0


def _passive_end(question: Words, start: int, end: int, c: Cues) -> int:
    """Where a topic ends before an auxiliary whose verb closes the question ("When will the Billing API v1 be
    switched off?": "the Billing API v1"); ``end`` when a name or a noun phrase follows it."""
    for k in range(start + 1, end):
        if question.folded[k] in c.auxiliaries:
            tail = range(k + 1, end)
            if any(is_name(question, j) or _opens(question, j, c) for j in tail):
                return end
            return k
    return end


def _past_frame(question: Words, start: int, c: Cues) -> int:
    while start < len(question) and _frames(question, start, c):
        start += 1
    return start


def _to_subject(question: Words, start: int, c: Cues) -> int:
    """Past the verbs between the frame and the subject ("¿Quién aprueba las vacaciones?": "las vacaciones"),
    but from an infinitive on: it is what is asked about ("cancelar la suscripción")."""
    if start >= len(question) or _opens(question, start, c):
        return start
    for ahead in range(start + 1, min(start + SUBJECT_WITHIN, len(question))):
        if _opens(question, ahead, c):
            between = question.folded[start:ahead]
            if any(w in c.auxiliaries for w in between):  # "How much growth capital is Brasa raising?"
                return start
            if any(w in c.prepositions for w in between) and ahead - start > 2:
                return start
            infinitive = [k for k, w in enumerate(between) if c.infinitive and c.infinitive.match(w)]
            return start + infinitive[0] if infinitive else ahead
    return start


def subject(about: Words, c: Cues) -> Words:
    """A topic without the attribute the earlier question asked of it ("el horario de la oficina de Madrid":
    "la oficina de Madrid"; "the total amount of the 2025 plan": "the 2025 plan"): a follow-up with a question
    of its own asks another thing of the same subject. A phrase that only names a place or kind ("la oficina de
    Madrid", "la solicitud de bonificación") is kept whole."""
    if not len(about) or about.folded[0] not in c.determiners:
        return about
    small = c.prepositions | c.breaks
    at = next((i for i in range(1, len(about)) if about.folded[i] in small), None)
    if at is None or about.folded[at] not in c.attaching or at + 1 >= len(about):
        return about
    if is_name(about, at - 1) and is_name(about, at + 1):  # "el Menú del Día": a name spans it
        return about
    article = {v: k.split()[-1] for k, v in c.contractions.items()}.get(about.folded[at])  # "del": "el"
    if article is not None:
        return Words.join(Words((article,), (article,)), about[at + 1 :])
    return about[at + 1 :] if about.folded[at + 1] in c.determiners else about


def phrase_end(words: Words, start: int, c: Cues) -> int:
    """Where the phrase that opens at ``start`` ends: before the next preposition that does not attach to
    the noun before it, or a word that opens a clause, or at the end."""
    j = start + 1
    while j < len(words):
        w = words.folded[j]
        if (w in c.prepositions and w not in c.attaching) or w in c.breaks:
            break
        j += 1
    return j


def pieces(fragment: Words, c: Cues) -> list[Words]:
    """A fragment cut at its prepositions ("el plan Max en México": "el plan Max", "en México")."""
    out: list[Words] = []
    start = 0
    for j in range(1, len(fragment) + 1):
        at_end = j == len(fragment)
        w = "" if at_end else fragment.folded[j]
        if at_end or (w in c.prepositions and w not in c.attaching) or w in c.breaks:
            if fragment[start:j].shown:
                out.append(fragment[start:j])
            start = j + 1 if w in c.breaks else j
    return [
        p[1:] if p.folded[0] in c.breaks and len(p) > 1 else p for p in out
    ]  # "si la deuda ...": "la deuda"


def swap(base: Words, piece: Words, c: Cues) -> tuple[Words, str] | None:
    """``base`` with ``piece`` in the place of its phrase of the same kind, and what it replaced; None when
    ``base`` has no such phrase."""
    if len(piece) > 1 and piece.folded[0] in c.determiners and _elided(piece, c):  # "la de Montevideo"
        piece = piece[2:] if piece.folded[1] in c.elided else piece[1:]
        if not len(piece):  # "the one" (in Miami: the next piece)
            return base, ""
        return _name_after_preposition(base, piece, c) or _same_place(base, piece, c)
    ways = (
        _alternative,
        _code,
        _same_place,
        _number,
        _same_noun,
        _another,
        _named_thing,
        _name_after_preposition,
    )
    for way in ways:
        found = way(base, piece, c)
        if found is not None:
            return found
    return None


def drop_places(topic_words: Words, asked: Words, c: Cues) -> tuple[Words, list[str]]:
    """The topic without the phrases the follow-up gives anew ("¿cuánto cuesta en México?" drops "en
    España" from "el plan Pro en España"), and what it dropped."""
    dropped = []
    for piece in pieces(asked, c):
        if any(c.reference_at(piece, i) for i in range(len(piece))):
            continue  # "for it": the subject itself, not a new place
        found = _alternative(topic_words, piece, c) or _same_place(topic_words, piece, c)
        if found is None:
            continue
        replaced, what = found
        start = replaced.find(piece.folded)
        if start >= 0:
            topic_words = replaced.replaced(start, start + len(piece), Words((), ()))
            dropped.append(what)
    named = _named_alone(topic_words, c) if _named_alone(asked, c) else []
    if len(named) == 1:  # "and how much is Marea?" after "¿Cuánto cuesta Faro?": Marea, not Faro
        start, end = named[0][0], named[0][-1] + 1
        dropped.append(topic_words[start:end].text())
        topic_words = topic_words.replaced(start, end, Words((), ()))
    return topic_words, dropped


def _named_alone(words: Words, c: Cues) -> list[list[int]]:
    """The runs of names not after a preposition ("Faro", "the Pro plan": what is asked about, not where)."""
    at = [
        i
        for i in range(len(words))
        if (is_name(words, i) or (i == 0 and words.shown[0][:1].isupper()))
        and not words.shown[i][:1].isdigit()
        and (i == 0 or words.folded[i - 1] not in c.prepositions)
    ]
    return _runs(words, at)


def _elided(piece: Words, c: Cues) -> bool:
    """An article whose noun is left out ("la de Montevideo", "the one in Miami"): the noun is the earlier one."""
    after = piece.folded[1]
    return after in c.elided or (after in c.prepositions and len(piece) > 2)


def _alternative(base: Words, piece: Words, c: Cues) -> tuple[Words, str] | None:
    for group in c.alternatives:
        for mine in group:
            at = piece.find(mine)
            if at < 0:
                continue
            for theirs in group:
                there = base.find(theirs)
                if theirs != mine and there >= 0:
                    replaced = base[there : there + len(theirs)].text()
                    return base.replaced(there, there + len(theirs), piece[at : at + len(mine)]), replaced
    return None


def _same_place(base: Words, piece: Words, c: Cues) -> tuple[Words, str] | None:
    first = piece.folded[0]
    if first not in c.prepositions or len(piece) < 2:
        return None
    place = c.place_of(first)
    slots = [i for i, w in enumerate(base.folded) if w in place and (i > 0 or len(base) > 2)]
    if is_name(piece, 1) or piece.shown[1][:1].isupper():  # a place for a place: "en Madrid" for "En Bogotá"
        slots = [i for i in slots if i + 1 < len(base) and base.shown[i + 1][:1].isupper()] or slots
        if not _has_digit(piece.shown[1]):  # "in Uruguay" for "in Argentina", not for "in Q3 2025"
            slots = [i for i in slots if i + 1 < len(base) and not _has_digit(base.shown[i + 1])] or slots
    at = max(slots, default=-1)
    if at < 0:
        return None
    end = phrase_end(base, at, c)
    return base.replaced(at, end, piece), base[at:end].text()


def _has_digit(word: str) -> bool:
    return any(ch.isdigit() for ch in word)


def _content(words: Words, i: int, c: Cues) -> bool:
    w = words.folded[i]
    return not (w in c.stopwords or w in c.determiners or w in c.prepositions or len(w) < 3)


def _same_noun(base: Words, piece: Words, c: Cues) -> tuple[Words, str] | None:
    """The follow-up names the same kind of thing ("el plan Max" for "el plan Pro"): its phrase takes that
    phrase's place."""
    for noun in [w for i, w in enumerate(piece.folded) if _content(piece, i, c) and not is_name(piece, i)]:
        found = noun_phrase(base, noun, c)
        if found is not None:
            start, end = found
            given = piece[1:] if piece.folded[0] in c.prepositions else piece  # "and for the Max plan?"
            return base.replaced(start, end, given), base[start:end].text()
    return None


def noun_phrase(words: Words, noun: str, c: Cues) -> tuple[int, int] | None:
    """Where the phrase around ``noun`` starts (its article) and ends, in ``words``; None when not there."""
    at = words.find((noun,))
    if at <= 0:
        return None
    start = at
    while start > 0 and words.folded[start - 1] not in c.prepositions | c.breaks | c.asks:
        start -= 1
        if words.folded[start] in c.determiners:
            break
    if start and words.folded[start] not in c.determiners and start < at:
        start = at
    return start, phrase_end(words, at, c)


def _code(base: Words, piece: Words, c: Cues) -> tuple[Words, str] | None:
    """A code given anew ("what about PRV-403?") takes the place of the code of the same kind (PRV-422)."""
    mine = [i for i in range(len(piece)) if identifiers(piece.shown[i])]
    theirs = [i for i in range(len(base)) if identifiers(base.shown[i])]
    if not mine or not theirs:
        return None
    code = piece.shown[mine[0]]
    kind = [i for i in theirs if _prefix(base.shown[i]) == _prefix(code)] or theirs
    at = kind[-1]
    return base.replaced(at, at + 1, piece[mine[0] : mine[0] + 1]), base.shown[at]


def _prefix(code: str) -> str:
    return "".join(ch for ch in code.split("-")[0] if ch.isalpha()).lower()


def asked_about(words: Words, starts: list[int], c: Cues) -> int:
    """Of phrases starting at ``starts`` (not 0), the first not after a preposition (what is asked about, not
    where or when: "a city bike" in "to rent a city bike for a full day"), else the last."""
    return next((i for i in starts if words.folded[i - 1] not in c.prepositions), starts[-1])


def _another(base: Words, piece: Words, c: Cues) -> tuple[Words, str] | None:
    """ "¿y un socio?" after "un empleado": one of a kind for another, in the place of the first such phrase
    not after a preposition ("a tandem" for "to rent a city bike for a full day"), else of the last."""
    if piece.folded[0] not in c.indefinite:
        return None
    found = [i for i, w in enumerate(base.folded) if w in c.indefinite and i > 0]
    if not found:
        return None
    at = asked_about(base, found, c)
    end = phrase_end(base, at, c)
    if end == len(base):  # "How much does a filling cost?": the verb that closes the question stays
        while end > at + 1 and _trails(base, end - 1, c):
            end -= 1
    return base.replaced(at, end, piece), base[at:end].text()


def _named_thing(base: Words, piece: Words, c: Cues) -> tuple[Words, str] | None:
    """ "and the Judicial Branch Day?" after "When is the court recess in Bogotá?": a thing named anew takes
    the place of the thing the question was about (its first phrase with an article)."""
    if piece.folded[0] not in c.determiners or not any(is_name(piece, i) for i in range(1, len(piece))):
        return None
    at = next((i for i in range(1, len(base)) if base.folded[i] in c.determiners), -1)
    if at < 0:
        return None
    end = phrase_end(base, at, c)
    return base.replaced(at, end, piece), base[at:end].text()


def _name_after_preposition(base: Words, piece: Words, c: Cues) -> tuple[Words, str] | None:
    """A place or a name given anew ("¿y Bogotá?") takes the place of the last name after a preposition (or of
    the one name a question holds)."""
    mine = [i for i in range(len(piece)) if piece.shown[i][:1].isupper()]
    if not mine:
        return None
    names = [i for i in range(1, len(base)) if is_name(base, i) and not base.shown[i][:1].isdigit()]
    theirs = [i for i in names if base.folded[i - 1] in c.prepositions]
    if not theirs and mine[0] == 0 and len(_runs(base, names)) == 1:
        theirs = names  # "¿y Marea?" after "¿Cuánto cuesta Faro?": the one name asked about
    if not theirs:
        return None
    start = end = theirs[-1]
    while end < len(base) and base.shown[end][:1].isupper():
        end += 1
    given = piece[mine[0] : mine[-1] + 1]
    return base.replaced(start, max(end, start + 1), given), base[start : max(end, start + 1)].text()


def _runs(words: Words, at: list[int]) -> list[list[int]]:
    """Positions grouped into runs of neighbours ("Reino Unido" is one name)."""
    runs: list[list[int]] = []
    for i in at:
        if runs and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return runs


def _number(base: Words, piece: Words, c: Cues) -> tuple[Words, str] | None:
    """A number given anew ("¿y para 10 usuarios?") takes the place of the number counting the same thing."""
    mine = next((i for i in range(len(piece)) if piece.folded[i].replace(".", "").isdigit()), None)
    if mine is None:
        return None
    unit = piece.folded[mine + 1 : mine + 2]
    numbers = [i for i in range(len(base)) if base.folded[i].replace(".", "").replace(",", "").isdigit()]
    same = [i for i in numbers if base.folded[i + 1 : i + 2] == unit]
    if not same and not unit and len(numbers) == 1:  # "¿y si pasa de 6.000?": the one number asked about
        same = numbers
    if not same:
        return None
    return base.replaced(same[0], same[0] + 1, piece[mine : mine + 1]), base.shown[same[0]]
