"""A follow-up made a question of its own, offline, by rules every language file states (its ``[follow_up]``
table): an elliptical follow-up ("¿y en México?", "and for a partner?", "the same for Bogotá") is the earlier
question with the new phrase in the place of the old one; a follow-up that asks its own question ("who approves
it?", "¿cuánto cuesta?", "¿y el plazo?") takes what the earlier question was about (or the person or code its
answer named) where its pronoun stands, or after it. A question that stands alone is left alone. The merge
writes in the follow-up's language: the earlier question comes translated when it was asked in another."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from chalicelib.conversation.cues import Cues, Words, cues
from chalicelib.conversation.elided import one_of_a_kind
from chalicelib.conversation.phrases import (
    drop_places,
    is_name,
    noun_phrase,
    phrase_end,
    pieces,
    subject,
    swap,
    topic,
)
from chalicelib.question.query import identifiers, names

Translate = Callable[[str], "str | None"]


@dataclass(frozen=True)
class Earlier:
    """The turn a follow-up leans on: its question as asked and as searched, and what its answer said."""

    question: str
    standalone: str
    lang: str | None
    answer: str | None = None
    cited: tuple[str, ...] = ()


@dataclass(frozen=True)
class Merged:
    """A follow-up as a question of its own, and what it took from the thread."""

    standalone: str
    took: tuple[str, ...] = ()
    replaced: tuple[str, ...] = ()
    drew_on: tuple[str, ...] = ()  # the chunks an earlier answer's name came from


@dataclass(frozen=True)
class _Named:
    words: Words
    person: bool
    drew_on: tuple[str, ...]


def merge(
    question: str, lang: str | None, before: Earlier, base: str, translate: Translate | None = None
) -> Merged | None:
    """``question`` with what ``before`` was about (``base``: its question as searched, in the follow-up's
    language), or None when it stands alone (or its language has no follow-up rules). ``translate`` puts
    text from ``before``'s language into the follow-up's, when they differ: a subject is taken in its own
    language, then translated (a short phrase translates better than the question around it)."""
    c = cues(lang)
    if c is None:
        return None
    words = Words.of(question)
    lead = _lead_in(words, c)
    rest = words[lead:]
    if lead == 0 and len(rest) and rest.shown[0][:1].isupper() and not rest.shown[0].isupper():
        rest = Words((rest.shown[0].lower(), *rest.shown[1:]), rest.folded)  # the first word is no name
    if not lead and not c.refers(rest) and stands_alone(question, rest, c):
        return None
    earlier = Words.of(base)
    if not len(rest):  # "¿y?": the same question again
        return Merged(sentence(earlier, c), took=(base,))
    if c.is_ask(rest) or c.refers(rest) or not (lead or _fragment(rest, earlier, c)):
        return _asked(rest, _subject_of(before, earlier, c, translate), _named(before, earlier, c), c)
    return _elliptical(rest, earlier, c)


def stands_alone(question: str, rest: Words, c: Cues) -> bool:
    """A question with three words of its own beyond its frame, or two and a name or a code, needs no thread."""
    framing = c.stopwords | c.frame_words | c.asks | c.auxiliaries
    own = [w for w in rest.folded if w not in framing and len(w) > 1]
    named = bool(names(question) or identifiers(question))
    return len(own) >= 3 or (named and len(own) >= 2)


def sentence(words: Words, c: Cues) -> str:
    """Words written as a question of the language ("de el" contracted, a capital, its question marks)."""
    shown = list(words.shown)
    out: list[str] = []
    for i, w in enumerate(shown):
        pair = f"{words.folded[i - 1]} {words.folded[i]}" if i else ""
        if out and pair in c.contractions and w.islower():
            out[-1] = c.contractions[pair] if out[-1].islower() else c.contractions[pair].capitalize()
            continue
        out.append(w)
    text = " ".join(out)
    return c.question.format(text[:1].upper() + text[1:]) if text else ""


def _lead_in(words: Words, c: Cues) -> int:
    found = c.lead_in.match(" ".join(words.folded))
    return len(found.group().split()) if found else 0


def _fragment(rest: Words, earlier: Words, c: Cues) -> bool:
    """Whether a follow-up is a phrase to put into the earlier question rather than a question of its own."""
    first = rest.folded[0]
    if first in c.prepositions or first in c.determiners or rest.shown[0][:1].isdigit():
        return True
    return any(swap(earlier, piece, c) is not None for piece in pieces(rest, c))


def _elliptical(rest: Words, earlier: Words, c: Cues) -> Merged:
    """ "¿y en México?": the earlier question with the new phrases where their kind stood, the rest added."""
    base, replaced, left = earlier, [], []
    for piece in pieces(rest, c):
        found = one_of_a_kind(base, piece, c) or swap(base, piece, c)
        if found is None:
            left.append(piece)
        else:
            base, what = found
            replaced += [what] if what else []
    about = topic(earlier, c)
    if left and not replaced and len(left) == 1 and left[0].folded[0] in c.determiners:
        return Merged(_ask_of(left[0], about, c), took=(about.text(),))  # "¿y el plazo?"
    merged = Words.join(base, *left)
    return Merged(sentence(merged, c), took=(earlier.text(),), replaced=tuple(replaced))


def _ask_of(thing: Words, about: Words, c: Cues) -> str:
    """ "¿Cuál es el plazo de ...?" for a thing asked of the thread's subject."""
    ask = c.ask_many if thing.folded[0] in c.plural_determiners else c.ask_one
    return sentence(Words.join(Words.of(ask), thing, _of(c), about), c)


def _of(c: Cues) -> Words:
    return Words((c.of,), (c.of,))


def _named(before: Earlier, earlier: Words, c: Cues) -> _Named | None:
    """The person or code the earlier answer named when the earlier question asked for one."""
    if not before.answer:
        return None
    asked = Words.of(before.standalone)
    first = " ".join(asked.folded[:2])
    head = asked.folded[0] if len(asked) else ""
    seen = set(earlier.folded)
    if head in c.who or first in c.who:
        people = [n for n in names(before.answer) if " " in n and not _shares(Words.of(n), seen, c)]
        if people:
            return _Named(Words.of(people[0]), True, before.cited)
    if (head in c.which or first in c.which) and not identifiers(before.standalone):  # it asked for a code
        codes = [i for i in identifiers(before.answer) if Words.of(i).folded[0] not in seen]
        if codes:
            return _Named(Words.of(codes[0]), False, before.cited)
    return None


def _shares(name: Words, seen: set[str], c: Cues) -> bool:
    """Whether a name holds a word of the earlier question: the thing asked about ("Quorum Support Desk" after
    "Who is the Quorum administrator?"), not the person who answers it."""
    return any(w in seen for w in name.folded if w not in c.stopwords and len(w) > 2)


def _subject_of(before: Earlier, earlier: Words, c: Cues, translate: Translate | None) -> Words:
    """What the earlier question asked about, in the follow-up's language."""
    own = cues(before.lang) if translate is not None else None
    if own is not None and translate is not None:
        found = translate(subject(topic(Words.of(before.standalone), own), own).text())
        if found:
            return Words.of(found)
    return subject(topic(earlier, c), c)


def _asked(rest: Words, about: Words, named: _Named | None, c: Cues) -> Merged:
    """A follow-up with a question of its own: the thread's subject where its pronoun stands, or after it."""
    about, dropped = drop_places(about, rest, c)
    drew_on: tuple[str, ...] = ()
    person = named.words if named is not None and named.person else None
    if named is not None and not named.person:
        about, drew_on = Words.join(about, named.words), named.drew_on
    for i in range(len(rest)):
        kind = c.reference_at(rest, i)
        if kind is None:
            continue
        if kind in ("person", "possessive") and person is not None and named is not None:
            about, drew_on = person, named.drew_on
        words = _resolved(rest, i, kind, about, c)
        if i == 0 and not c.is_ask(rest):  # "¿y su teléfono?": "¿Cuál es el teléfono de ...?"
            words = Words.join(Words.of(c.ask_one), words)
        took = (about.text(),)
        return Merged(sentence(words, c), took=took, replaced=tuple(dropped), drew_on=drew_on)
    about = _unsaid(about, rest, c)
    if not any(w not in rest.folded and len(w) > 2 and w not in c.stopwords for w in about.folded):
        return Merged(sentence(rest, c), replaced=tuple(dropped))  # the follow-up says it all itself
    tail = rest.folded[-3:]
    noun_last = any(w in c.determiners for w in tail) and rest.folded[-1] not in c.prepositions
    if noun_last and about.folded[0] not in c.prepositions:  # "¿cuál es el plazo?" + "de" + the subject
        about = Words.join(_of(c), about)
    return Merged(
        sentence(Words.join(rest, about), c), took=(about.text(),), replaced=tuple(dropped), drew_on=drew_on
    )


def _unsaid(about: Words, rest: Words, c: Cues) -> Words:
    """The subject without its first phrase when the follow-up names that thing itself ("¿Cuál es el plazo de
    la solicitud?" after "la solicitud de bonificación": "de bonificación" is what it adds)."""
    end = next((i for i in range(1, len(about)) if about.folded[i] in c.prepositions | c.breaks), len(about))
    nouns = [
        w
        for i, w in enumerate(about.folded[:end])
        if len(w) > 2 and w not in c.stopwords and not is_name(about, i)
    ]
    return about[end:] if any(w in rest.folded for w in nouns) else about


def _resolved(rest: Words, i: int, kind: str, about: Words, c: Cues) -> Words:
    """``rest`` with the reference at ``i`` resolved to ``about``."""
    after = rest.folded[i + 1] if i + 1 < len(rest) else ""
    framing = c.prepositions | c.breaks | c.auxiliaries | c.frame_words | c.asks
    following = bool(after) and after not in framing  # a noun follows: "that letter", not "those be"
    if kind == "demonstrative" and following and after in c.elided:  # "that one", "those ones"
        return rest.replaced(i, i + 2, about)
    if kind in ("possessive", "demonstrative", "person") and following:
        end = phrase_end(rest, i, c)
        noun = rest[i + 1 : end]
        shared = [w for w in noun.folded if len(w) > 2 and w in about.folded]
        if kind == "demonstrative" and shared:  # "ese plan", "that letter": the one the thread is about
            span = noun_phrase(about, shared[0], c)
            return rest.replaced(i, end, about[span[0] : span[1]] if span else about)
        article = _article(noun, c)
        return Words.join(rest[:i], article, noun, _of(c), about, rest[end:])
    if kind == "clitic":  # "¿quién lo aprueba?": "¿quién aprueba <subject>?"
        verb = i + 2 if i + 2 < len(rest) and rest.folded[i + 1] in c.frame_words else i + 1
        return Words.join(rest[:i], rest[i + 1 : verb + 1], about, rest[verb + 1 :])
    if kind == "enclitic" and c.enclitic is not None:
        found = c.enclitic.match(rest.folded[i])
        stem = found.group("verb") if found else rest.folded[i]
        bare = Words((rest.shown[i][: len(stem)],), (stem,))
        return Words.join(rest[:i], bare, about, rest[i + 1 :])
    return rest.replaced(i, i + 1, about)


def _article(noun: Words, c: Cues) -> Words:
    """The article a noun takes once its possessive or demonstrative leaves ("su tarifa": "la tarifa")."""
    if not len(noun):
        return Words((), ())
    word = noun.folded[0]
    plural = word.endswith("s") and len(word) > 3
    feminine = any(word.rstrip("s").endswith(e) for e in c.feminine_endings)
    key = ("feminine" if feminine else "masculine") + ("_plural" if plural else "")
    article = c.articles[key]
    return Words((article,), (article,))
