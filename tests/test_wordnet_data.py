"""WordNet through NLTK: the loader (on a tiny WordNet the tests write), its error when WordNet is
missing, the setup command's two sources (NLTK's downloader from a local server, a system copy), and,
when it is installed, the real WordNet 3.0."""
from __future__ import annotations

import functools
import gzip
import hashlib
import http.server
import io
import re
import threading
import zipfile
from pathlib import Path

import nltk.data
import pytest

from nli_baselines.experiments.corpora.download import wordnet_setup
from nli_baselines.experiments.corpora.download.wordnet_setup import (LEXNAMES, WordNetSetupError, install_wordnet,
                                                                      lexnames_text)
from nli_baselines.experiments.download import main as download_main
from nli_baselines.features.text.wordnet_data import (WORDNET_30_SYNSETS, WordNetMissingError, load_wordnet,
                                                      locate_wordnet, wordnet_available)
from tests.conftest import run_python
from tests.wordnet_fixture import SYNSETS, write_tiny_wordnet, write_tiny_wordnet_files

TINY = len(SYNSETS)


@pytest.fixture
def tiny(tmp_path) -> Path:
    return write_tiny_wordnet(tmp_path / "nltk_data")


@pytest.fixture
def debian(tmp_path) -> Path:
    """A system WordNet laid out as Debian's packages install it: no lexnames."""
    return write_tiny_wordnet_files(tmp_path / "usr-share-wordnet", lexnames=False)


# ------------------------------------------------------------------ the loader


def test_importing_reads_nothing_and_needs_no_wordnet(tmp_path):
    # A fresh interpreter is the point: what importing the module alone pulls in.
    done = run_python("-c", "import sys, nli_baselines.features.text.wordnet_data; print('nltk' in sys.modules)",
                      env={"NLTK_DATA": str(tmp_path)})
    assert done.returncode == 0 and done.stdout.strip() == "False", done.stderr


def test_tiny_wordnet_gives_every_relation(tiny):
    wn = load_wordnet(tiny)
    assert load_wordnet(tiny) is wn  # cached per location
    assert sum(1 for _ in wn.all_synsets()) == TINY
    man, dog, cat, animal = (wn.synset(name) for name in ("man.n.01", "dog.n.01", "cat.n.01", "animal.n.01"))
    # synonyms: lemmas of one synset
    assert man.lemma_names() == ["man", "adult_male"] and wn.synsets("adult_male") == [man]
    # hypernym (the hypothesis word is more general) and hyponym (more specific), through the closure
    assert animal in dog.closure(lambda s: s.hypernyms())
    assert dog in animal.closure(lambda s: s.hyponyms())
    assert sorted(s.name() for s in man.hypernyms()) == ["adult.n.01", "male.n.01"]
    chain = [[s.name() for s in path] for path in man.hypernym_paths()]
    assert ["entity.n.01", "organism.n.01", "person.n.01", "male.n.01", "man.n.01"] in chain
    # antonyms are lexical: between lemmas
    assert [a.name() for a in wn.lemma("tall.a.01.tall").antonyms()] == ["short"]
    assert [a.synset().name() for a in wn.lemma("sit.v.01.sit").antonyms()] == ["stand.v.01"]
    assert [a.name() for a in man.lemmas()[0].antonyms()] == ["woman"]
    # co-hyponyms: a shared direct hypernym
    assert set(dog.hypernyms()) & set(cat.hypernyms()) == {wn.synset("carnivore.n.01")}
    assert wn.synset("run.v.01").hypernyms() == wn.synset("walk.v.01").hypernyms()
    # lexicographer files and irregular forms
    assert (dog.lexname(), man.lexname(), wn.synset("run.v.01").lexname()) == ("noun.animal", "noun.person",
                                                                                 "verb.motion")
    assert wn.morphy("men", "n") == "man" and wn.morphy("dogs", "n") == "dog"
    assert wn.lemma_from_key("dog%1:05:00::").synset() == dog


def test_loader_follows_nltk_data_set_after_nltk_was_imported(tiny, monkeypatch):
    monkeypatch.setenv("NLTK_DATA", str(tiny))
    assert locate_wordnet() == tiny
    wn = load_wordnet()
    assert wn.synset("dog.n.01").lemma_names() == ["dog", "domestic_dog"]
    assert str(tiny) in nltk.data.path  # NLTK only opens files under its data path


def test_a_zipped_wordnet_is_found_as_nltk_finds_it(tmp_path):
    source = write_tiny_wordnet_files(tmp_path / "src" / "wordnet")
    data = tmp_path / "zipped"
    (data / "corpora").mkdir(parents=True)
    with zipfile.ZipFile(data / "corpora" / "wordnet.zip", "w") as archive:
        for path in sorted(source.iterdir()):
            archive.write(path, f"wordnet/{path.name}")
    assert load_wordnet(data).synset("cat.n.01").lemma_names() == ["cat", "true_cat"]


def test_missing_wordnet_names_where_nltk_looked_and_the_command(tmp_path, monkeypatch):
    empty, other = tmp_path / "empty", tmp_path / "other"
    monkeypatch.setenv("NLTK_DATA", str(empty))
    monkeypatch.setattr(nltk.data, "path", [str(other)])
    with pytest.raises(WordNetMissingError) as caught:
        load_wordnet()
    message = str(caught.value)
    assert isinstance(caught.value, LookupError)
    assert "WordNet 3.0 is missing" in message and "python experiments/download.py wordnet" in message
    assert "NLTK_DATA" in message and f"  {empty}\n  {other}\n" in message
    assert caught.value.searched == [str(empty), str(other)]
    assert not wordnet_available() and not wordnet_available(tmp_path / "empty")


def test_a_damaged_copy_is_reported_as_such(tmp_path):
    root = tmp_path / "damaged"
    write_tiny_wordnet_files(root / "corpora" / "wordnet", lexnames=False)
    with pytest.raises(WordNetMissingError, match=r"(?s)could not be loaded: .*wordnet is there but NLTK cannot "
                                                  r"read it.*lexnames.*--force"):
        load_wordnet(root)


# ------------------------------------------------------------------ setup from NLTK's downloader


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def nltk_server(tmp_path, monkeypatch):
    """A local NLTK data server: index.xml and a wordnet.zip of the tiny WordNet."""
    www = tmp_path / "www"
    www.mkdir()
    source = write_tiny_wordnet_files(tmp_path / "package" / "wordnet")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("wordnet/", "")
        for path in sorted(source.iterdir()):
            archive.write(path, f"wordnet/{path.name}")
    package = buffer.getvalue()
    (www / "wordnet.zip").write_bytes(package)
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(www)))
    threading.Thread(target=functools.partial(httpd.serve_forever, poll_interval=0.01), daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    unzipped = sum(path.stat().st_size for path in source.iterdir())
    (www / "index.xml").write_text(
        '<?xml version="1.0"?>\n<nltk_data><packages>\n'
        f'<package id="wordnet" name="WordNet" subdir="corpora" url="{base}/wordnet.zip" size="{len(package)}" '
        f'unzipped_size="{unzipped}" checksum="{hashlib.md5(package).hexdigest()}" '
        f'sha256_checksum="{hashlib.sha256(package).hexdigest()}" unzip="1" />\n'
        '</packages><collections /></nltk_data>\n')
    # NLTK's downloader refuses loopback and private addresses (its guard against SSRF); let through
    # the loopback address of this test's server, and nothing else.
    import nltk.pathsec
    forbidden = getattr(nltk.pathsec, "_ip_is_forbidden", None)
    if forbidden is not None:
        monkeypatch.setattr(nltk.pathsec, "_ip_is_forbidden", lambda ip: not ip.is_loopback and forbidden(ip))
    yield base
    httpd.shutdown()
    httpd.server_close()


def test_setup_through_nltks_downloader(nltk_server, tmp_path):
    target = tmp_path / "nd"
    result = install_wordnet(target, source="nltk", index_url=f"{nltk_server}/index.xml", expect_synsets=TINY)
    assert result.source == "nltk" and result.synsets == TINY and result.path == target / "corpora" / "wordnet"
    report = "\n".join(result.lines())
    assert (f"installed at {target}/corpora/wordnet from NLTK's downloader: {nltk_server}/wordnet.zip "
            f"(index {nltk_server}/index.xml)") in report
    assert f"NLTK loads {TINY} synsets" in report and "export NLTK_DATA=" in report
    assert load_wordnet(target).synset("dog.n.01").lexname() == "noun.animal"
    assert sorted(p.name for p in target.iterdir()) == ["corpora"]  # no staging left


def test_auto_falls_back_to_the_system_copy_and_writes_lexnames(nltk_server, debian, tmp_path):
    target = tmp_path / "nd"
    lines = []
    result = install_wordnet(target, index_url=f"{nltk_server}/missing-index.xml", system_dir=debian,
                             expect_synsets=TINY, log=lines.append)
    assert result.source == "system" and result.origin == f"the system copy at {debian}"
    assert lines[:2] == [f"wordnet: trying NLTK's downloader (index {nltk_server}/missing-index.xml)",
                         f"wordnet: trying the system copy at {debian}"]
    report = "\n".join(result.lines())
    assert f"from the system copy at {debian}" in report
    assert f"NLTK's downloader: {nltk_server}/missing-index.xml" in report and "(fell back)" in report
    assert "has no lexnames: wrote WordNet 3.0's list" in report
    installed = target / "corpora" / "wordnet"
    assert (installed / "lexnames").read_text() == lexnames_text()
    assert (installed / "data.noun").read_bytes() == (debian / "data.noun").read_bytes()
    assert f"copied from {debian}" in (installed / "README").read_text()
    wn = load_wordnet(target)
    assert [s.lexname() for s in (wn.synset("dog.n.01"), wn.synset("run.v.01"))] == ["noun.animal", "verb.motion"]


def test_an_existing_copy_is_verified_and_kept_unless_forced(debian, tmp_path):
    target = tmp_path / "nd"
    install_wordnet(target, source="system", system_dir=debian, expect_synsets=TINY)
    (target / "corpora" / "wordnet" / "marker").write_text("old")
    again = install_wordnet(target, source="system", system_dir=debian, expect_synsets=TINY)
    assert again.source == "existing" and "already installed" in again.lines()[0]
    assert (target / "corpora" / "wordnet" / "marker").exists()
    forced = install_wordnet(target, source="system", system_dir=debian, expect_synsets=TINY, force=True)
    assert forced.source == "system" and not (target / "corpora" / "wordnet" / "marker").exists()
    assert sorted(p.name for p in (target / "corpora").iterdir()) == ["wordnet"]


def test_a_damaged_existing_copy_is_not_passed_off_as_installed(debian, tmp_path):
    target = tmp_path / "nd"
    install_wordnet(target, source="system", system_dir=debian, expect_synsets=TINY)
    (target / "corpora" / "wordnet" / "lexnames").unlink()
    with pytest.raises(WordNetSetupError, match="(?s)cannot read it.*the existing copy fails verification: --force"):
        install_wordnet(target, source="system", system_dir=debian, expect_synsets=TINY)


def test_another_synset_count_installs_nothing(debian, tmp_path):
    target = tmp_path / "nd"
    with pytest.raises(WordNetSetupError, match=f"NLTK loads {TINY} synsets, but WordNet 3.0 has 117,659.*"
                                                "nothing was installed"):
        install_wordnet(target, source="system", system_dir=debian)
    assert list(target.iterdir()) == []  # neither the copy nor its staging folder


def test_an_interrupted_setup_leaves_nothing_behind(debian, tmp_path):
    target = tmp_path / "nd"

    def interrupt_while_verifying(line):
        if line.startswith("wordnet: verifying"):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        install_wordnet(target, source="system", system_dir=debian, expect_synsets=TINY, log=interrupt_while_verifying)
    assert list(target.iterdir()) == []


def test_a_system_copy_without_index_sense_says_which_package(debian, tmp_path):
    (debian / "index.sense").unlink()
    with pytest.raises(WordNetSetupError, match="lacks index.sense.*wordnet-sense-index"):
        install_wordnet(tmp_path / "nd", source="system", system_dir=debian, expect_synsets=TINY)
    with pytest.raises(WordNetSetupError, match=r"(?s)no WordNet database at /nonexistent.*Ways out.*--system-dir"):
        install_wordnet(tmp_path / "nd", source="system", system_dir="/nonexistent", expect_synsets=TINY)


def test_default_target_is_nltk_data_first_entry(tmp_path, monkeypatch):
    monkeypatch.setenv("NLTK_DATA", f"{tmp_path / 'first'}:{tmp_path / 'second'}")
    assert wordnet_setup.default_nltk_data_dir() == tmp_path / "first"
    monkeypatch.delenv("NLTK_DATA")
    from nltk.downloader import Downloader
    assert wordnet_setup.default_nltk_data_dir() == Path(Downloader().default_download_dir())


def test_the_command_dispatches_wordnet(debian, tmp_path, capsys):
    target = tmp_path / "nd"
    code = download_main(["wordnet", "--nltk-data", str(target), "--source", "system", "--system-dir", str(debian)])
    out, err = capsys.readouterr()
    assert code == 2 and not out and not (target / "corpora").exists()
    assert err.splitlines()[0] == f"wordnet: trying the system copy at {debian}"
    assert err.splitlines()[-1].startswith("error: ") and f"NLTK loads {TINY} synsets" in err
    for wrong in (["wordnet", "--url", "http://x"], ["sick", "--nltk-data", str(target)], ["sick", "--force"]):
        with pytest.raises(SystemExit) as caught:
            download_main(wrong)
        assert caught.value.code == 2
    assert "not an option for sick" in capsys.readouterr().err


# ------------------------------------------------------------------ lexnames


def test_lexnames_number_and_categorize_the_45_files():
    lines = lexnames_text().splitlines()
    assert len(LEXNAMES) == len(set(LEXNAMES)) == 45
    assert lines[:4] == ["00\tadj.all\t3", "01\tadj.pert\t3", "02\tadv.all\t4", "03\tnoun.Tops\t1"]
    assert lines[44] == "44\tadj.ppl\t3"
    assert [line.split("\t")[1] for line in lines if line.endswith("\t2")] == [
        name for name in LEXNAMES if name.startswith("verb.")]


MANUAL = Path("/usr/share/man/man5/lexnames.5WN.gz")


def test_lexnames_match_the_installed_manual_page(real_wordnet):
    if not MANUAL.is_file():
        pytest.skip(f"{MANUAL} (Debian's wordnet-base) is not installed")
    table = re.findall(r"^(\d\d)\t(\S+)\s*\t", gzip.decompress(MANUAL.read_bytes()).decode("latin-1"), re.M)
    assert [(int(number), name) for number, name in table] == list(enumerate(LEXNAMES))


# ------------------------------------------------------------------ the real WordNet 3.0


@pytest.fixture(scope="module")
def real_wordnet():
    """WordNet 3.0 where NLTK finds it (overrides conftest's, to hand the reader over)."""
    if not wordnet_available():
        pytest.skip("WordNet 3.0 is not installed for NLTK: python experiments/download.py wordnet")
    return load_wordnet()


def test_real_wordnet_has_every_synset_of_wordnet_30(real_wordnet):
    assert sum(1 for _ in real_wordnet.all_synsets()) == WORDNET_30_SYNSETS


def test_real_wordnet_lexnames_and_relations(real_wordnet):
    wn = real_wordnet
    expected = {"dog.n.01": "noun.animal", "run.v.01": "verb.motion", "entity.n.01": "noun.Tops",
                "man.n.01": "noun.person", "tree.n.01": "noun.plant", "eat.v.01": "verb.consumption",
                "rain.v.01": "verb.weather", "think.v.01": "verb.cognition", "happy.a.01": "adj.all",
                "quickly.r.01": "adv.all"}
    assert {name: wn.synset(name).lexname() for name in expected} == expected
    dog, cat = wn.synset("dog.n.01"), wn.synset("cat.n.01")
    assert "domestic_dog" in dog.lemma_names()
    assert wn.synset("animal.n.01") in dog.closure(lambda s: s.hypernyms())
    assert wn.synset("carnivore.n.01") in dog.lowest_common_hypernyms(cat)
    assert "woman" in [a.name() for a in wn.synset("man.n.01").lemmas()[0].antonyms()]
    assert "short" in [a.name() for a in wn.lemma("tall.a.01.tall").antonyms()]



def test_a_copy_with_a_broken_pointer_fails_verification(debian, tmp_path):
    # One hypernym pointer of dog.n.01 rewritten to an offset no synset has: NLTK loads every synset
    # (the count is right), then a feature that follows the pointer fails inside NLTK.
    data = debian / "data.noun"
    lines = data.read_text(encoding="ascii").splitlines(keepends=True)
    dog = next(i for i, line in enumerate(lines) if " dog " in line and " @ " in line)
    head, _, tail = lines[dog].partition(" @ ")
    lines[dog] = head + " @ 99999999" + tail[8:]
    data.write_text("".join(lines), encoding="ascii")
    target = tmp_path / "nd"
    with pytest.raises(WordNetSetupError, match="dog.n.01 points to n 99999999, which is not a synset"):
        install_wordnet(target, source="system", system_dir=debian, expect_synsets=TINY)
    assert list(target.iterdir()) == []


@pytest.mark.parametrize("damage", ["empty lexnames", "truncated data.noun"])
def test_damage_met_at_lookup_is_the_missing_wordnet_message(tmp_path, damage):
    # These copies load (NLTK reads the files lazily), then a lookup meets the damage: once an
    # IndexError or AttributeError deep inside NLTK, now WordNet's own message.
    from nli_baselines.features.text.wordnet_relations import WordNetRelations
    root = tmp_path / "damaged"
    folder = write_tiny_wordnet_files(root / "corpora" / "wordnet")
    if damage == "empty lexnames":
        (folder / "lexnames").write_text("", encoding="ascii")
    else:
        data = folder / "data.noun"
        data.write_bytes(data.read_bytes()[:-200])
    relations = WordNetRelations(data_dir=root)
    with pytest.raises(WordNetMissingError, match=r"(?s)could not be loaded: looking up 'dog' \(n\) fails inside "
                                                  r"NLTK .*the copy is damaged.*--force"):
        relations.relation("dog", "cat", "n")


@pytest.mark.parametrize("part, message", [
    ("noun.exc", "noun.exc gives None where WordNet 3.0 gives 'goose'"),
    ("index.sense", "index.sense gives \"WordNetError: No synset found for key 'dog%1:05:00::'\""),
    ("lexnames", "gives 'IndexError: list index out of range' where WordNet 3.0 gives"),  # the first lookup fails
])
def test_a_real_copy_with_an_emptied_file_fails_verification(real_wordnet, tmp_path, part, message):
    # Emptied, each of these files still loads, and relations change silently ("geese" -> "bird").
    import shutil

    from nli_baselines.experiments.corpora.download.wordnet_setup import _check_known_answers
    from nli_baselines.features.text.wordnet_data import locate_wordnet
    copy = tmp_path / "nd"
    shutil.copytree(locate_wordnet() / "corpora" / "wordnet", copy / "corpora" / "wordnet")
    (copy / "corpora" / "wordnet" / part).write_text("", encoding="ascii")
    reader = load_wordnet(copy, cache=False)
    with pytest.raises(WordNetSetupError, match=re.escape(message)):
        _check_known_answers(reader, copy)
