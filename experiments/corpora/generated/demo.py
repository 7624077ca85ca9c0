"""A synthetic three-class NLI corpus generated from small word lists of our own, and the same
pairs with similarity scores (`demo-similarity`).

It needs no files and no tagger (every word carries its PTB tag), so the main
job runs offline on a fresh machine. The pairs exercise what lexicalized and
cross-bigram features can learn: hypernyms (man -> person), antonyms (tall /
short), incompatible actions (sleeping / running), negation, location
entailments (park -> outside), argument swaps and quantifiers. A small share
of labels is flipped, like annotator noise, so no model reaches 100%.
"""
from __future__ import annotations

import random
from dataclasses import replace

from nli_baselines.features.labels import CONTRADICTION, ENTAILMENT, NLI3
from nli_baselines.features.pair import Pair

from ..readers.common import SplitData

DEMO_SIZES = {"train": 4000, "dev": 1000, "test": 1000}
DEMO_SEED = 13
NOISE = 0.03

# noun -> (hypernym, plural, hypernym plural)
NOUNS = {
    "man": ("person", "men", "people"), "woman": ("person", "women", "people"),
    "boy": ("child", "boys", "children"), "girl": ("child", "girls", "children"),
    "dog": ("animal", "dogs", "animals"), "cat": ("animal", "cats", "animals"),
    "pianist": ("musician", "pianists", "musicians"), "drummer": ("musician", "drummers", "musicians"),
    "farmer": ("worker", "farmers", "workers"), "nurse": ("worker", "nurses", "workers"),
}
ANTONYMS = {"tall": "short", "young": "old", "happy": "sad", "wet": "dry", "quiet": "loud"}
ANTONYMS.update({b: a for a, b in list(ANTONYMS.items())})
# action -> an action that cannot hold at the same time
CLASHES = {"sleeping": "running", "sitting": "standing", "laughing": "crying", "swimming": "sleeping",
           "dancing": "sitting"}
CLASHES.update({b: a for a, b in list(CLASHES.items()) if b not in CLASHES})
TRANSITIVE = {"eating": ["apple", "sandwich"], "reading": ["book", "letter"], "carrying": ["box", "bag"],
              "holding": ["cup", "ball"], "painting": ["fence", "wall"]}
# place -> (preposition, outside?)
PLACES = {"park": ("in", True), "beach": ("on", True), "kitchen": ("in", False), "river": ("near", True),
          "library": ("in", False), "garage": ("in", False)}
NUMBERS = ["two", "three", "four", "five"]
EXTRAS = [("to", "TO"), ("catch", "VB"), ("a", "DT"), ("bus", "NN")], [("with", "IN"), ("a", "DT"), ("friend", "NN")]


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


class _Scene:
    """One premise situation, from which hypotheses of each label are derived."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.noun = rng.choice(list(NOUNS))
        self.adj = rng.choice(list(ANTONYMS))
        self.transitive = rng.random() < 0.4
        if self.transitive:
            self.verb = rng.choice(list(TRANSITIVE))
            self.obj = rng.choice(TRANSITIVE[self.verb])
        else:
            self.verb = rng.choice(list(CLASHES))
            self.obj = None
        self.place = rng.choice(list(PLACES))

    def intransitive(self) -> "_Scene":
        """Switch to an action without an object (clashes and quantifiers need one)."""
        if self.obj is not None:
            self.verb, self.obj = self.rng.choice(list(CLASHES)), None
        return self

    def clause(self, noun=None, adj=None, verb=None, negate=False, obj=True, place=True):
        noun = noun or self.noun
        words = [(_article(adj or noun).capitalize(), "DT")]
        if adj:
            words.append((adj, "JJ"))
        words += [(noun, "NN"), ("is", "VBZ")]
        if negate:
            words.append(("not", "RB"))
        words.append((verb or self.verb, "VBG"))
        if obj and self.obj and (verb is None or verb == self.verb):
            words += [(_article(self.obj), "DT"), (self.obj, "NN")]
        if place:
            words += self.place_words()
        return words + [(".", ".")]

    def place_words(self):
        prep, _ = PLACES[self.place]
        return [(prep, "IN"), ("the", "DT"), (self.place, "NN")]


def _premise_and_hypothesis(rng: random.Random, label: str):
    s = _Scene(rng)
    kind = rng.randrange(5)
    if label == ENTAILMENT:
        if kind == 0:  # hypernym, modifiers dropped
            return s.clause(adj=s.adj), s.clause(noun=NOUNS[s.noun][0], place=False)
        if kind == 1:  # location generalization
            outside = PLACES[s.place][1]
            hyp = s.clause(place=False)[:-1] + [("outside" if outside else "indoors", "RB"), (".", ".")]
            return s.clause(adj=s.adj), hyp
        if kind == 2:  # negation kept, location dropped
            return s.clause(negate=True), s.clause(negate=True, place=False)
        if kind == 3:  # number -> some
            s.intransitive()
            return _quantified(s, rng.choice(NUMBERS), s.verb), _quantified(s, "some", s.verb, place=False)
        if rng.random() < 0.5:  # the same relation in the same order (cf. the neutral argument swap)
            return _relation(s, rng, swap=False)
        return s.clause(adj=s.adj), s.clause(adj=s.adj, place=False)
    if label == CONTRADICTION:
        if kind == 0:  # antonym adjective
            return s.clause(adj=s.adj), s.clause(adj=ANTONYMS[s.adj], place=False)
        if kind == 1:  # incompatible action
            s.intransitive()
            return s.clause(adj=s.adj), s.clause(verb=CLASHES.get(s.verb, "sleeping"), place=False)
        if kind == 2:  # negation of the premise
            if rng.random() < 0.5:
                return s.clause(negate=True), s.clause(place=False)
            return s.clause(adj=s.adj), s.clause(negate=True, place=False)
        if kind == 3:  # wrong location
            outside = PLACES[s.place][1]
            hyp = s.clause(place=False)[:-1] + [("indoors" if outside else "outside", "RB"), (".", ".")]
            return s.clause(), hyp
        s.intransitive()
        n = rng.choice(NUMBERS)
        other = rng.choice(["no"] + [m for m in NUMBERS if m != n])
        return _quantified(s, n, s.verb), _quantified(s, other, s.verb, place=False)
    # neutral
    if kind == 0:  # added information
        extra = rng.choice(EXTRAS)
        return s.clause(), s.clause(place=False)[:-1] + list(extra) + [(".", ".")]
    if kind == 1:  # reverse hypernym: person -> man
        hyper = NOUNS[s.noun][0]
        return s.clause(noun=hyper), s.clause(noun=s.noun, place=False)
    if kind == 2:  # argument swap: the same words as the entailed relation, in another order
        return _relation(s, rng, swap=True)
    if kind == 3:  # some -> a number
        s.intransitive()
        return _quantified(s, "some", s.verb), _quantified(s, rng.choice(NUMBERS), s.verb, place=False)
    # an adjective the premise does not mention
    other_adj = rng.choice([a for a in ANTONYMS if a not in (s.adj, ANTONYMS[s.adj])])
    return s.clause(), s.clause(adj=other_adj, place=False)


def _relation(s: _Scene, rng: random.Random, swap: bool):
    """'A dog is chasing a cat in the park.' and the hypothesis without the place, its arguments
    swapped or not: unigram features cannot tell the two apart, bigram features can."""
    actors = ("man", "woman", "dog", "cat")  # few, so that each ordered pair recurs often enough to learn
    subject = rng.choice(actors)
    other = rng.choice([n for n in actors if n != subject])
    verb = rng.choice(["chasing", "watching", "following"])

    def clause(subject, obj):
        return [(_article(subject).capitalize(), "DT"), (subject, "NN"), ("is", "VBZ"), (verb, "VBG"),
                (_article(obj), "DT"), (obj, "NN")]
    premise = clause(subject, other) + s.place_words() + [(".", ".")]
    hypothesis = (clause(other, subject) if swap else clause(subject, other)) + [(".", ".")]
    return premise, hypothesis


def _quantified(s: _Scene, quantifier: str, verb: str, place: bool = True):
    plural = NOUNS[s.noun][1]
    words = [(quantifier.capitalize(), "CD" if quantifier in NUMBERS else "DT"), (plural, "NNS"),
             ("are", "VBP"), (verb, "VBG")]
    if place:
        words += s.place_words()
    return words + [(".", ".")]


# Base forms of the inflected words the generator uses; every other word is its own lemma.
_LEMMAS = {"is": "be", "are": "be", "men": "man", "women": "woman", "people": "person", "children": "child",
           "running": "run", "sitting": "sit", "swimming": "swim", "dancing": "dance", "chasing": "chase"}


def _lemma(word: str, tag: str) -> str:
    """The demo vocabulary's lemmas (lowercase, as spaCy gives them)."""
    word = word.lower()
    if word in _LEMMAS:
        return _LEMMAS[word]
    if tag == "NNS" and word.endswith("s"):
        return word[:-1]
    if tag == "VBG" and word.endswith("ing"):
        return word[:-3]
    return word


def _text(words) -> str:
    return " ".join(w for w, _ in words).replace(" .", ".")


def generate_demo(split: str, size: int | None = None, seed: int = DEMO_SEED) -> list[Pair]:
    """Deterministic pairs for `split` (train, dev or test), balanced over the three labels."""
    if split not in DEMO_SIZES:
        raise ValueError(f"demo has splits {', '.join(DEMO_SIZES)}, not {split!r}")
    size = DEMO_SIZES[split] if size is None else size
    rng = random.Random(f"{seed}:{split}")
    labels = NLI3
    pairs = []
    for i in range(size):
        label = labels[i % 3]
        premise, hypothesis = _premise_and_hypothesis(rng, label)
        if rng.random() < NOISE:
            label = rng.choice([x for x in labels if x != label])
        pairs.append(Pair(
            f"demo-{split}-{i}", _text(premise), _text(hypothesis), label,
            premise_tokens=tuple(w for w, _ in premise), premise_tags=tuple(t for _, t in premise),
            hypothesis_tokens=tuple(w for w, _ in hypothesis), hypothesis_tags=tuple(t for _, t in hypothesis),
            premise_lemmas=tuple(_lemma(w, t) for w, t in premise),
            hypothesis_lemmas=tuple(_lemma(w, t) for w, t in hypothesis)))
    rng.shuffle(pairs)
    return pairs


def read_demo(split: str, seed: int = DEMO_SEED) -> SplitData:
    pairs = generate_demo(split, seed=seed)
    return SplitData("demo", split, [], pairs, len(pairs))


# demo-similarity: how related a pair reads, 0..5, as STS-B and SICK score it. A hypothesis that
# follows from the premise is closest; one that contradicts it is still about the same scene (SICK's
# contradictions are often highly related), so it sits between; each pair moves with the share
# of words the two sentences share, plus noise, so no model is exact.
SIMILARITY_BASE = {"entailment": 3.6, "neutral": 2.2, "contradiction": 1.8}
SIMILARITY_RANGE = (0.0, 5.0)


def generate_similarity(split: str, size: int | None = None, seed: int = DEMO_SEED) -> list[Pair]:
    """The demo's pairs of `split` with a similarity score (text, 3 decimals) in place of the label."""
    rng = random.Random(f"{seed}:{split}:similarity")
    out = []
    for pair in generate_demo(split, size, seed):
        words = {w.lower() for w in pair.premise_tokens if w.isalpha()}
        other = {w.lower() for w in pair.hypothesis_tokens if w.isalpha()}
        shared = len(words & other) / max(1, len(words | other))
        score = SIMILARITY_BASE[pair.label] + 2.0 * shared + rng.gauss(0, 0.35)
        out.append(replace(pair, label=f"{min(SIMILARITY_RANGE[1], max(SIMILARITY_RANGE[0], score)):.3f}"))
    return out


def read_similarity(split: str, seed: int = DEMO_SEED) -> SplitData:
    pairs = generate_similarity(split, seed=seed)
    return SplitData("demo-similarity", split, [], pairs, len(pairs))
