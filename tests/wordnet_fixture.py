"""A tiny WordNet in WordNet 3.0's database format (wndb(5WN)), for tests that must not need the real one.

Enough synsets for every lexical relation a feature may ask about:
  synonyms      man ~ adult_male, dog ~ domestic_dog, person ~ individual, sit ~ sit_down
  hypernyms     man -> adult, male -> person -> organism -> entity; dog, cat -> carnivore -> animal -> organism
  antonyms      tall / short, sit / stand, man / woman (lexical pointers, as in WordNet)
  co-hyponyms   dog and cat (carnivore), man and woman (adult), run and walk (move)
Data lines are addressed by byte offset: each starts with its own offset, and pointers and index
lines use them, so offsets are computed from the rendered lines (all offsets are 8 digits wide, so
a line's length does not depend on them).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from nli_baselines.experiments.corpora.download.wordnet_setup import LEXNAMES, lexnames_text


@dataclass
class TinySynset:
    key: str  # the synset name NLTK will give it, e.g. "dog.n.01"
    lexname: str
    words: tuple[str, ...]
    gloss: str
    # (pointer symbol, target key, source word number, target word number); 0, 0 = between synsets
    pointers: list[tuple[str, str, int, int]] = field(default_factory=list)

    @property
    def pos(self) -> str:
        return self.key.split(".")[1]


def _synsets() -> list[TinySynset]:
    s = TinySynset
    synsets = [
        s("entity.n.01", "noun.Tops", ("entity",), "that which is perceived or known to have its own existence"),
        s("organism.n.01", "noun.Tops", ("organism", "being"), "a living thing that can act or function"),
        s("person.n.01", "noun.Tops", ("person", "individual"), "a human being"),
        s("adult.n.01", "noun.person", ("adult", "grownup"), "a fully developed person"),
        s("male.n.01", "noun.person", ("male", "male_person"), "a person of the sex that cannot bear young"),
        s("man.n.01", "noun.person", ("man", "adult_male"), "an adult person who is male"),
        s("woman.n.01", "noun.person", ("woman", "adult_female"), "an adult female person"),
        s("animal.n.01", "noun.animal", ("animal", "beast"), "a living organism that can move voluntarily"),
        s("carnivore.n.01", "noun.animal", ("carnivore",), "a flesh-eating mammal"),
        s("dog.n.01", "noun.animal", ("dog", "domestic_dog"), "a domesticated carnivore kept as a pet"),
        s("cat.n.01", "noun.animal", ("cat", "true_cat"), "a small domesticated carnivore"),
        s("move.v.01", "verb.motion", ("move",), "change location"),
        s("run.v.01", "verb.motion", ("run",), "move fast on foot"),
        s("walk.v.01", "verb.motion", ("walk",), "move on foot at a moderate pace"),
        s("sit.v.01", "verb.contact", ("sit", "sit_down"), "be seated"),
        s("stand.v.01", "verb.contact", ("stand", "stand_up"), "be upright on the feet"),
        s("tall.a.01", "adj.all", ("tall",), "great in vertical dimension"),
        s("short.a.01", "adj.all", ("short",), "low in stature; not tall"),
        s("quickly.r.01", "adv.all", ("quickly", "rapidly"), "with speed"),
    ]
    by_key = {synset.key: synset for synset in synsets}
    for child, parent in [("organism.n.01", "entity.n.01"), ("person.n.01", "organism.n.01"),
                          ("adult.n.01", "person.n.01"), ("male.n.01", "person.n.01"),
                          ("man.n.01", "adult.n.01"), ("man.n.01", "male.n.01"), ("woman.n.01", "adult.n.01"),
                          ("animal.n.01", "organism.n.01"), ("carnivore.n.01", "animal.n.01"),
                          ("dog.n.01", "carnivore.n.01"), ("cat.n.01", "carnivore.n.01"),
                          ("run.v.01", "move.v.01"), ("walk.v.01", "move.v.01")]:
        by_key[child].pointers.append(("@", parent, 0, 0))
        by_key[parent].pointers.append(("~", child, 0, 0))
    for one, other in [("man.n.01", "woman.n.01"), ("sit.v.01", "stand.v.01"), ("tall.a.01", "short.a.01")]:
        by_key[one].pointers.append(("!", other, 1, 1))
        by_key[other].pointers.append(("!", one, 1, 1))
    return synsets


SYNSETS = _synsets()
FILE_POS = {"noun": "n", "verb": "v", "adj": "a", "adv": "r"}
SS_TYPE_NUMBER = {"n": 1, "v": 2, "a": 3, "r": 4}
# Irregular forms for NLTK's morphy.
EXCEPTIONS = {"noun": ["men man", "women woman"], "verb": ["ran run", "sat sit", "stood stand"], "adj": [], "adv": []}
HEADER = "  1 A tiny test database in the file format of WordNet 3.0, written by tests/wordnet_fixture.py.  \n"


def _data_line(synset: TinySynset, offsets: dict[str, int]) -> str:
    fields = [f"{offsets.get(synset.key, 0):08d}", f"{LEXNAMES.index(synset.lexname):02d}", synset.pos,
              f"{len(synset.words):02x}"]
    for word in synset.words:
        fields += [word, "0"]
    fields.append(f"{len(synset.pointers):03d}")
    for symbol, target, source_word, target_word in synset.pointers:
        fields += [symbol, f"{offsets.get(target, 0):08d}", target.split(".")[1], f"{source_word:02x}{target_word:02x}"]
    if synset.pos == "v":
        fields += ["01", "+", "02", "00"]  # frame 2, "Somebody ----s", for every word
    return " ".join(fields) + f" | {synset.gloss}  \n"


def _offsets() -> dict[str, int]:
    offsets = {}
    for pos in FILE_POS.values():
        position = len(HEADER.encode("ascii"))
        for synset in (s for s in SYNSETS if s.pos == pos):
            offsets[synset.key] = position
            position += len(_data_line(synset, {}).encode("ascii"))
    return offsets


def write_tiny_wordnet_files(folder: Path, *, lexnames: bool = True) -> Path:
    """Write the tiny WordNet's database into `folder` (a WordNet `dict` folder); returns it.

    lexnames=False leaves out `lexnames`, as Debian's packages do.
    """
    folder.mkdir(parents=True, exist_ok=True)
    offsets = _offsets()
    senses = []
    for file, pos in FILE_POS.items():
        synsets = [s for s in SYNSETS if s.pos == pos]
        (folder / f"data.{file}").write_text(HEADER + "".join(_data_line(s, offsets) for s in synsets),
                                              encoding="ascii", newline="\n")
        lemmas: dict[str, list[TinySynset]] = {}
        for synset in synsets:
            for word in synset.words:
                lemmas.setdefault(word.lower(), []).append(synset)
        lines = []
        for lemma, owners in sorted(lemmas.items()):
            symbols: list[str] = []
            for owner in owners:
                number = [w.lower() for w in owner.words].index(lemma) + 1
                for symbol, _, source, _ in owner.pointers:
                    if source in (0, number) and symbol not in symbols:
                        symbols.append(symbol)
            lines.append(" ".join([lemma, pos, str(len(owners)), str(len(symbols)), *symbols, str(len(owners)), "0",
                                   *(f"{offsets[o.key]:08d}" for o in owners)]) + "  \n")
            for sense, owner in enumerate(owners, 1):
                lexfile = LEXNAMES.index(owner.lexname)
                senses.append(f"{lemma}%{SS_TYPE_NUMBER[pos]}:{lexfile:02d}:00:: {offsets[owner.key]:08d} {sense} 0\n")
        (folder / f"index.{file}").write_text(HEADER + "".join(lines), encoding="ascii", newline="\n")
        (folder / f"{file}.exc").write_text("".join(f"{line}\n" for line in EXCEPTIONS[file]), encoding="ascii")
    (folder / "index.sense").write_text("".join(sorted(senses)), encoding="ascii", newline="\n")
    (folder / "cntlist.rev").write_text("", encoding="ascii")
    if lexnames:
        (folder / "lexnames").write_text(lexnames_text(), encoding="ascii", newline="\n")
    return folder


def write_tiny_wordnet(root: Path) -> Path:
    """An NLTK data directory at `root` holding the tiny WordNet as corpora/wordnet; returns `root`."""
    write_tiny_wordnet_files(root / "corpora" / "wordnet")
    return root
