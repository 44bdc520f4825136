"""The training corpus: true facts about countries, written into English and Korean sentences.

Tokens are words; Korean particles (의, 은/는, 이/가, 을/를, 로 ...) are tokens of their own, so a
sentence reads "프랑스 의 수도 는 파리 이다 ." — morpheme-level tokens keep every prediction a whole,
readable word. Multi-word names ("New Delhi", "South America") are one token each.

A template whose answer comes after the country and the relation word is a prompt template: cut
before the answer, it asks for the fact. Some template × fact pairs are held out of the training
text (by a hash, so the split never changes); every fact stays in the training text through its
other templates, so a held-out prompt asks a fact the model was taught, in a sentence form it never
read that fact in: never an unseen fact.
"""
from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass

from ffn_core import hangul
from ffn_core.gpt import facts as _facts

RELATIONS: tuple[str, ...] = ("capital", "continent", "language", "currency")
LANGS = ("en", "ko")
# Share of prompt pairs (template × fact) kept out of the training text.
HELDOUT_SHARE = 0.125
# The one word with two meanings, per language (facts.py says why): Luxembourg the country and
# Luxembourg its capital, one token for both.
TWO_MEANINGS: dict[str, str] = {"en": "Luxembourg", "ko": "룩셈부르크"}

# The particles a template may name; which form follows a word is ffn_core.hangul's rule, the app's too.
PARTICLES = ("은", "이", "을", "과", "으로")

# Templates: words separated by spaces. {C} is the country, {A} the answer; {C|은} is the particle
# of the pair 은/는 that fits the word before it. `the` marks where an English country that takes
# an article ("the Netherlands") gets it. A prompt template has its answer after the country, and
# its words before the answer name the relation ("프랑스 는" alone could go on to any of the four).
TEMPLATES: dict[str, dict[str, tuple[str, ...]]] = {
    "capital": {
        "en": ("The capital of {C} is {A} .", "{C} 's capital city is {A} .", "{A} is the capital of {C} ."),
        "ko": ("{C} 의 수도 는 {A} 이다 .", "{C} {C|은} 수도 가 {A} 이다 .", "{A} {A|은} {C} 의 수도 이다 ."),
    },
    "continent": {
        "en": ("{C} is a country in {A} .", "{C} lies on the continent of {A} .", "{A} is home to {C} ."),
        "ko": ("{C} {C|이} 있는 대륙 은 {A} 이다 .", "{C} {C|이} 속한 대륙 은 {A} 이다 .", "{A} {A|은} {C} {C|이} 속한 대륙 이다 ."),
    },
    "language": {
        "en": ("The official language of {C} is {A} .", "In {C} , the official language is {A} .",
               "{A} is the official language of {C} ."),
        "ko": ("{C} 의 공용어 는 {A} 이다 .", "{C} {C|은} 공용어 로 {A} {A|을} 쓴다 .", "{A} {A|은} {C} 의 공용어 이다 ."),
    },
    "currency": {
        "en": ("The currency of {C} is the {A} .", "In {C} , people pay with the {A} .", "The {A} is the currency of {C} ."),
        "ko": ("{C} 의 통화 는 {A} 이다 .", "{C} {C|은} 통화 로 {A} {A|을} 쓴다 .", "{A} {A|은} {C} 의 통화 이다 ."),
    },
}


@dataclass(frozen=True)
class Fact:
    """One (country, relation) fact, true, in both languages."""

    country: str
    country_ko: str
    relation: str
    answer_en: str
    answer_ko: str

    def answer(self, lang: str) -> str:
        return self.answer_en if lang == "en" else self.answer_ko

    def subject(self, lang: str) -> str:
        return self.country if lang == "en" else self.country_ko


@dataclass(frozen=True)
class _Filled:
    """A template filled with one fact in one language: what a sentence and the prompt cut from it share."""

    words: tuple[str, ...]
    lang: str
    fact: Fact
    template: str
    heldout: bool  # this template × fact pair is kept out of the training text


@dataclass(frozen=True)
class Sentence(_Filled):
    """One template filled with one fact."""

    answer_index: int
    prompt: bool


@dataclass(frozen=True)
class Prompt(_Filled):
    """A sentence cut just before its answer."""

    answer: str


def _build_facts() -> tuple[Fact, ...]:
    out = []
    for row in _facts.COUNTRIES:
        for relation, (en, ko) in zip(RELATIONS, _facts.answers(row)):
            if en is not None:
                out.append(Fact(row.en, row.ko, relation, en, ko))
    return tuple(out)


FACTS: tuple[Fact, ...] = _build_facts()


def particle(word: str, base: str) -> str:
    """The particle of the pair named by `base` (은, 이, 을, 과, 으로) that follows `word`, a Hangul word."""
    if base not in PARTICLES:
        raise KeyError(f"unknown particle {base!r}")
    final = hangul.final(word[-1])
    if final is None:
        raise ValueError(f"{word!r} does not end in a Hangul syllable")
    return hangul.form(base, final)


def template_id(relation: str, lang: str, index: int) -> str:
    return f"{relation}.{lang}.{index}"


def is_prompt_template(template: str) -> bool:
    """A template asks for its answer if the answer comes after the country."""
    return template.index("{A}") > template.index("{C}")


def _fill(template: str, fact: Fact, lang: str) -> tuple[tuple[str, ...], int]:
    values = {"C": fact.subject(lang), "A": fact.answer(lang)}
    words: list[str] = []
    answer_index = -1
    for part in template.split():
        if part.startswith("{") and "|" in part:
            slot, base = part[1:-1].split("|")
            words.append(particle(values[slot], base))
        elif part in ("{C}", "{A}"):
            if part == "{C}" and lang == "en" and fact.country in _facts.ARTICLE:
                words.append("The" if not words else "the")
            if part == "{A}":
                answer_index = len(words)
            words.append(values[part[1]])
        else:
            words.append(part)
    return tuple(words), answer_index


def _is_heldout(template: str, fact: Fact) -> bool:
    digest = hashlib.sha256(f"{template}|{fact.country}|{fact.relation}".encode()).digest()
    return int.from_bytes(digest[:4], "big") < HELDOUT_SHARE * 2**32


@functools.cache
def sentences() -> tuple[Sentence, ...]:
    """Every template × fact sentence, the held-out ones included (marked)."""
    out = []
    for fact in FACTS:
        for lang in LANGS:
            templates = TEMPLATES[fact.relation][lang]
            ids = [template_id(fact.relation, lang, i) for i in range(len(templates))]
            held = [is_prompt_template(t) and _is_heldout(i, fact) for t, i in zip(templates, ids)]
            prompt_ids = [k for k, t in enumerate(templates) if is_prompt_template(t)]
            if all(held[k] for k in prompt_ids):
                # Keep one prompt template of each language in the training text for every fact.
                held[prompt_ids[0]] = False
            for k, text in enumerate(templates):
                words, answer_index = _fill(text, fact, lang)
                out.append(Sentence(words=words, lang=lang, fact=fact, template=ids[k], heldout=held[k],
                                    answer_index=answer_index, prompt=is_prompt_template(text)))
    return tuple(out)


@functools.cache
def training_sentences() -> tuple[tuple[str, ...], ...]:
    """The training text: every sentence except the held-out prompt pairs."""
    return tuple(s.words for s in sentences() if not s.heldout)


@functools.cache
def prompts(which: str = "all") -> tuple[Prompt, ...]:
    """The prompts ("all", "seen" or "heldout"), each a prompt-template sentence cut before its answer."""
    if which not in ("all", "seen", "heldout"):
        raise ValueError(f"which must be 'all', 'seen' or 'heldout', not {which!r}")
    out = []
    for s in sentences():
        if s.prompt and (which == "all" or s.heldout == (which == "heldout")):
            out.append(Prompt(words=s.words[: s.answer_index], lang=s.lang, fact=s.fact, template=s.template,
                              heldout=s.heldout, answer=s.words[s.answer_index]))
    return tuple(out)


@functools.cache
def entities() -> frozenset[str]:
    """Country names and answers in both languages: the words that are not template words."""
    return frozenset(w for f in FACTS for w in (f.country, f.country_ko, f.answer_en, f.answer_ko))


@functools.cache
def template_positions() -> tuple[tuple[tuple[str, ...], tuple[int, ...]], ...]:
    """For each training sentence, the positions t whose next word is a template word fixed by the prefix.

    Position t predicts words[t + 1] from words[: t + 1]. A template word ("의", "수도", "is") counts
    only where every training sentence with the same prefix continues with the same word: after
    "프랑스 의" the next word may be 수도, 공용어 or 통화, so that position measures no grammar.
    """
    corpus = training_sentences()
    following: dict[tuple[str, ...], set[str]] = {}
    for words in corpus:
        for t in range(len(words) - 1):
            following.setdefault(words[: t + 1], set()).add(words[t + 1])
    names = entities()
    out = []
    for words in corpus:
        positions = tuple(
            t for t in range(len(words) - 1)
            if words[t + 1] not in names and len(following[words[: t + 1]]) == 1
        )
        out.append((words, positions))
    return tuple(out)


@functools.cache
def words() -> tuple[str, ...]:
    """Every word of the corpus, sorted."""
    return tuple(sorted({w for s in sentences() for w in s.words}))


@functools.cache
def _lookup() -> tuple[tuple[tuple[str, ...], ...], dict[str, str], frozenset[str]]:
    known = words()
    phrases = sorted((tuple(w.split(" ")) for w in known if " " in w), key=len, reverse=True)
    folded: dict[str, str] = {}
    for w in known:
        folded.setdefault(w.casefold(), w)
    suffixes = frozenset(w for w in known if re.fullmatch(r"[가-힣]+", w) and w not in entities())
    return tuple(phrases), folded, suffixes


def _split_korean(chunk: str, known: set[str], suffixes: frozenset[str]) -> list[str] | None:
    """Split "프랑스의" into a known word and particles (known template words), or None."""
    if chunk in known:
        return [chunk]
    for cut in range(len(chunk) - 1, 0, -1):
        head, rest = chunk[:cut], chunk[cut:]
        if head in known:
            tail = _split_suffixes(rest, suffixes)
            if tail is not None:
                return [head, *tail]
    return None


def _split_suffixes(rest: str, suffixes: frozenset[str]) -> list[str] | None:
    if rest in suffixes:
        return [rest]
    for cut in range(len(rest) - 1, 0, -1):
        if rest[:cut] in suffixes:
            tail = _split_suffixes(rest[cut:], suffixes)
            if tail is not None:
                return [rest[:cut], *tail]
    return None


def tokenize(text: str) -> list[str]:
    """Free text in either language -> corpus tokens; words the corpus lacks are kept as they are."""
    phrases, folded, suffixes = _lookup()
    known = set(words())
    raw: list[str] = []
    for piece in re.findall(r"[\w'\-.]*[\w]|[^\w\s]", text.replace("’", "'")):
        # "France's" is two tokens, France and 's; "d'Ivoire" stays one.
        raw.extend([piece[:-2], "'s"] if piece.endswith("'s") and len(piece) > 2 else [piece])
    out: list[str] = []
    i = 0
    while i < len(raw):
        for phrase in phrases:
            n = len(phrase)
            if [w.casefold() for w in raw[i : i + n - 1]] != [w.casefold() for w in phrase[:-1]] or i + n > len(raw):
                continue
            last = raw[i + n - 1]
            # The last word may carry particles: "중앙아프리카 공화국의".
            tail = [] if last.casefold() == phrase[-1].casefold() else (
                _split_suffixes(last[len(phrase[-1]) :], suffixes) if last.startswith(phrase[-1]) else None
            )
            if tail is not None:
                out.extend([" ".join(phrase), *tail])
                i += n
                break
        else:
            word = raw[i]
            i += 1
            if word in known:
                out.append(word)
            elif word.casefold() in folded:
                out.append(folded[word.casefold()])
            elif re.fullmatch(r"[가-힣]+", word) and (parts := _split_korean(word, known, suffixes)):
                out.extend(parts)
            else:
                out.append(word)
    return out
