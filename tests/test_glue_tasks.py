"""The rest of GLUE and SICK's relatedness (issue 40): each reader on small files in its official
layout (byte-order marks, CoLA's headerless train and dev, quotes read with quoting off, missing final
newlines, bad scores named FILE:LINE), the layouts of one corpus giving the same pairs, the download
sources, and the real files' exact counts (corpus-marked)."""
from __future__ import annotations

import dataclasses
import functools
import http.server
import threading
from pathlib import Path

import pytest

from nli_baselines.experiments.corpora import get_corpus
from nli_baselines.experiments.corpora.download.sources import SOURCES, DownloadError, download
from nli_baselines.experiments.corpora.readers.common import DataFormatError, number_value, score_problem
from nli_baselines.experiments.corpora.readers.paraphrase import read_mrpc, read_qqp
from nli_baselines.experiments.corpora.readers.sick import read_sick
from nli_baselines.experiments.corpora.readers.single_sentence import read_cola, read_sst2
from nli_baselines.experiments.corpora.readers.sts import read_stsb


def write(path: Path, text: str, newline: str = "\n", bom: bool = False) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.replace("\n", newline).encode("utf-8"))
    return path


def rows(data) -> list[tuple]:
    return [(p.id, p.premise, p.hypothesis, p.label) for p in data.pairs]


def assert_bad_row(path, reader, message, category, good=0):
    """An error naming the file and line; with skip, the row is counted under `category`."""
    with pytest.raises(DataFormatError, match=message):
        reader(path, "x", "train")
    data = reader(path, "x", "train", on_bad_row="skip")
    assert (len(data.pairs), dict(data.skipped), data.rows) == (good, {category: 1}, good + 1)


# ------------------------------------------------------------------ scores


@pytest.mark.parametrize("text, value", [("4.750", 4.75), (" 3 ", 3.0), ("-0.5", -0.5), (".5", 0.5), ("2.", 2.0),
                                         ("1e-3", 0.001), ("nan", None), ("inf", None), ("1e999", None),
                                         ("1_000", None), ("0x10", None), ("", None), ("3.8.1", None)])
def test_a_score_is_a_finite_decimal_number(text, value):
    assert number_value(text) == value


def test_score_problems_name_the_range():
    assert score_problem("5.000", (0.0, 5.0)) is None
    assert score_problem("5.2", (0.0, 5.0)) == "score '5.2' is outside the task's range 0..5"
    assert score_problem("high", (0.0, 5.0)) == "score 'high' is not a number"
    assert score_problem("-7", None) is None


STSB_HEADER = "index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1\tsentence2\tscore"
STSB_TRAIN = (f"{STSB_HEADER}\n"
              "0\tmain-captions\tMSRvid\t2012test\t0001\tnone\tnone\tA plane is taking off.\t"
              "An air plane is taking off.\t5.000\n"
              "1\tmain-news\theadlines\t2013\t0042\tnone\tnone\t\"Quoted\" start.\tA \"b\" c\t3.800\n"
              "2\tmain-forums\tdeft-forum\t2014\t0007\tnone\tnone\tNo end quote \"here\tx y\t0.000")  # no final newline
# The same pairs in the STS Benchmark's own csv: no header, 7 columns (9 with sources), spaces GLUE strips.
STS_CSV = ("main-captions\tMSRvid\t2012test\t0001\t5.000\tA plane is taking off. \tAn air plane is taking off.\n"
           "main-news\theadlines\t2013\t0042\t3.800\t \"Quoted\" start.\tA \"b\" c\tsrc1\tsrc2\n"
           "main-forums\tdeft-forum\t2014\t0007\t0.000\tNo end quote \"here\tx y\n")


def test_stsb_tsv_keeps_scores_as_written_and_quotes_as_text(tmp_path):
    data = read_stsb(write(tmp_path / "train.tsv", STSB_TRAIN), "stsb", "train")
    assert rows(data) == [("0", "A plane is taking off.", "An air plane is taking off.", "5.000"),
                          ("1", '"Quoted" start.', 'A "b" c', "3.800"),
                          ("2", 'No end quote "here', "x y", "0.000")]
    test = write(tmp_path / "test.tsv", STSB_HEADER.rsplit("\t", 1)[0] + "\n0\tg\tf\ty\t1\tnone\tnone\tA.\tB.\n")
    assert rows(read_stsb(test, "stsb", "test")) == [("0", "A.", "B.", None)]


def test_the_sts_benchmark_csv_gives_glues_pairs(tmp_path):
    glue = read_stsb(write(tmp_path / "train.tsv", STSB_TRAIN), "stsb", "train")
    own = read_stsb(write(tmp_path / "sts-train.csv", STS_CSV), "stsb", "train")
    assert own.pairs == glue.pairs and own.rows == 3
    # Each pair keeps its genre (CV is stratified by it, dev figures are broken down by it).
    assert [p.meta for p in own.pairs] == [p.meta for p in glue.pairs] == [
        {"genre": "captions"}, {"genre": "news"}, {"genre": "forums"}]
    forum = STS_CSV.replace("main-forums", "main-forum")  # the training file's spelling
    assert read_stsb(write(tmp_path / "sts-dev.csv", forum), "stsb", "dev").pairs[2].meta == {"genre": "forums"}


@pytest.mark.parametrize("name, text, message", [
    ("train.tsv", f"{STSB_HEADER}\n0\tg\tf\ty\t1\tn\tn\tA.\tB.\t5.2\n", r"train.tsv:2: score '5.2' is outside the "
                                                                       r"task's range 0..5"),
    ("train.tsv", f"{STSB_HEADER}\n0\tg\tf\ty\t1\tn\tn\tA.\tB.\tnan", r"train.tsv:2: score 'nan' is not a number"),
    ("train.tsv", f"{STSB_HEADER}\n0\tg\tf\ty\t1\tn\tn\tA.\tB.\t\n", r"train.tsv:2: score '' is not a number"),
    ("sts-dev.csv", "g\tf\ty\t1\tn/a\tA.\tB.\n", r"sts-dev.csv:1: score 'n/a' is not a number"),
    ("sts-dev.csv", "g\tf\ty\t1\t-0.1\tA.\tB.\n", r"sts-dev.csv:1: score '-0.1' is outside the task's range 0..5"),
])
def test_a_bad_score_is_a_bad_row(tmp_path, name, text, message):
    assert_bad_row(write(tmp_path / name, text), read_stsb, message, "bad score")


def test_an_sts_csv_row_short_of_columns(tmp_path):
    assert_bad_row(write(tmp_path / "sts-dev.csv", "g\tf\ty\t1\t2.0\tA. B.\n"), read_stsb,
                   r"sts-dev.csv:1: expected at least 7 tab-separated columns \(genre filename year index score "
                   r"sentence1 sentence2\), found 6", "wrong column count")


SICK_HEADER = "pair_ID\tsentence_A\tsentence_B\tentailment_label\trelatedness_score\tSemEval_set"


def test_sick_relatedness_reads_the_scores_of_the_same_rows(tmp_path):
    path = write(tmp_path / "SICK.txt", f"{SICK_HEADER}\n1\ta\tb\tNEUTRAL\t4.5\tTRAIN\n"
                 "2\tc\td\tENTAILMENT\t3.6\tTRIAL\n3\te\tf\tCONTRADICTION\t1\tTEST\n4\tg\th\tNEUTRAL\t5\tTRAIN",
                 newline="\r\n")
    scores = functools.partial(read_sick, scores=(1.0, 5.0))
    got = {s: [(p.id, p.label) for p in scores(path, "sick-relatedness", s).pairs] for s in ("train", "dev", "test")}
    assert got == {"train": [("1", "4.5"), ("4", "5")], "dev": [("2", "3.6")], "test": [("3", "1")]}
    bad = write(tmp_path / "bad.txt", f"{SICK_HEADER}\n1\ta\tb\tNEUTRAL\t0.5\tTRAIN\n", newline="\r\n")
    assert_bad_row(bad, scores, r"bad.txt:2: score '0.5' is outside the task's range 1..5", "bad score")
    no_column = write(tmp_path / "old.txt", "pair_ID\tsentence_A\tsentence_B\tentailment_label\tSemEval_set\n")
    with pytest.raises(DataFormatError, match=r"old.txt:1: header lacks column\(s\) relatedness_score"):
        scores(no_column, "sick-relatedness", "train")


# ------------------------------------------------------------------ paraphrase

MRPC_HEADER = "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String"
MSR_TRAIN = (f"{MRPC_HEADER}\n1\t702876\t702977\tAmrozi accused his brother , whom he called \" the witness \" .\t"
             "Referring to him as only \" the witness \" , Amrozi accused his brother .\n"
             "0\t2108705\t2108831\tYucaipa owned Dominick 's .\tYucaipa bought Dominick 's in 1995 .\n"
             "1\t1330381\t1330521\t\" The foodservice pie business does not fit .\tIt does not fit .\n"
             "0\t3344667\t3344648\tA b .\tC d .\n")
DEV_IDS = "1330381\t1330521\n2108705\t2108831\n"


def test_mrpc_tsv_with_its_byte_order_mark(tmp_path):
    train = write(tmp_path / "train.tsv", MSR_TRAIN, bom=True)
    assert [(p.id, p.label) for p in read_mrpc(train, "mrpc", "train").pairs] == [("0", "1"), ("1", "0"), ("2", "1"),
                                                                                  ("3", "0")]
    assert read_mrpc(train, "mrpc", "train").pairs[2].premise == '" The foodservice pie business does not fit .'
    test = write(tmp_path / "test.tsv", "index\t#1 ID\t#2 ID\t#1 String\t#2 String\n0\t1\t2\tA .\tB .\n"
                 "1\t3\t4\tC .\tD .\n")
    assert rows(read_mrpc(test, "mrpc", "test")) == [("0", "A .", "B .", None), ("1", "C .", "D .", None)]
    assert_bad_row(write(tmp_path / "dev.tsv", f"{MRPC_HEADER}\n2\t1\t2\tA .\tB .\n", bom=True), read_mrpc,
                   r"dev.tsv:2: unknown label '2'", "unknown label")


def test_msr_files_split_as_glue_splits_them(tmp_path):
    msr = write(tmp_path / "MRPC" / "msr_paraphrase_train.txt", MSR_TRAIN, bom=True)
    write(tmp_path / "MRPC" / "dev_ids.tsv", DEV_IDS)
    train, dev = (read_mrpc(msr, "mrpc", split) for split in ("train", "dev"))
    # In file order, numbered within the split: GLUE's train.tsv and dev.tsv, row for row.
    assert [(p.id, p.premise[:6], p.label) for p in train.pairs] == [("0", "Amrozi", "1"), ("1", "A b .", "0")]
    assert [(p.id, p.premise[:6], p.label) for p in dev.pairs] == [("0", "Yucaip", "0"), ("1", '" The ', "1")]
    assert (train.rows, dev.rows) == (2, 2)
    glue = read_mrpc(write(tmp_path / "glue" / "train.tsv", MSR_TRAIN, bom=True), "mrpc", "train")
    glue_train = [p for p in glue.pairs if p.premise.startswith(("Amrozi", "A b"))]
    assert [(p.premise, p.hypothesis, p.label) for p in glue_train] == [(p.premise, p.hypothesis, p.label)
                                                                        for p in train.pairs]
    # Microsoft's test file is read whole, with its labels, numbered as GLUE's test.tsv.
    test = write(tmp_path / "MRPC" / "msr_paraphrase_test.txt", f"{MRPC_HEADER}\n1\t5\t6\tE .\tF .\n0\t7\t8\tG .\tH .",
                 bom=True)
    assert rows(read_mrpc(test, "mrpc", "test")) == [("0", "E .", "F .", "1"), ("1", "G .", "H .", "0")]


def test_msr_files_without_their_dev_ids_or_with_foreign_ones(tmp_path):
    msr = write(tmp_path / "msr_paraphrase_train.txt", MSR_TRAIN, bom=True)
    with pytest.raises(DataFormatError, match=r"msr_paraphrase_train.txt: GLUE's MRPC train and dev splits are taken "
                                              r"from it by the ids of dev_ids.tsv, which is not beside it "
                                              r"\(python experiments/download.py mrpc fetches both\)"):
        read_mrpc(msr, "mrpc", "train")
    write(tmp_path / "mrpc_dev_ids.tsv", DEV_IDS + "9\t10\n")  # the download's name, and an id the file lacks
    with pytest.raises(DataFormatError, match=r"msr_paraphrase_train.txt: 1 of the 3 dev pairs its dev_ids.tsv names "
                                              r"are not in it \(first: 9 10\)"):
        read_mrpc(msr, "mrpc", "dev")
    write(tmp_path / "dev_ids.tsv", "1330381 1330521\n")
    with pytest.raises(DataFormatError, match=r"dev_ids.tsv:1: expected two tab-separated MRPC ids"):
        read_mrpc(msr, "mrpc", "dev")


def test_a_malformed_msr_row_counts_in_its_own_split(tmp_path):
    msr = write(tmp_path / "msr_paraphrase_train.txt", MSR_TRAIN + "1\t2108705\t2108831\tonly one sentence\n", bom=True)
    write(tmp_path / "dev_ids.tsv", DEV_IDS)
    assert read_mrpc(msr, "mrpc", "train", on_bad_row="skip").skipped == {}
    dev = read_mrpc(msr, "mrpc", "dev", on_bad_row="skip")
    assert (len(dev.pairs), dev.rows, dict(dev.skipped)) == (2, 3, {"wrong column count": 1})
    with pytest.raises(DataFormatError, match=r"msr_paraphrase_train.txt:6: expected 5 tab-separated columns"):
        read_mrpc(msr, "mrpc", "dev")


def test_qqp_tsv(tmp_path):
    train = write(tmp_path / "train.tsv", "id\tqid1\tqid2\tquestion1\tquestion2\tis_duplicate\n"
                  "133273\t213221\t213222\tHow is the life of a math student?\t\"Which\" is best?\t0\n"
                  "402555\t536040\t536041\tHow do I control my horny emotions?\tHow do you control it?\t1")
    assert rows(read_qqp(train, "qqp", "train")) == [
        ("133273", "How is the life of a math student?", '"Which" is best?', "0"),
        ("402555", "How do I control my horny emotions?", "How do you control it?", "1")]
    test = write(tmp_path / "test.tsv", "id\tquestion1\tquestion2\n0\tWhy?\tHow?\n")
    assert rows(read_qqp(test, "qqp", "test")) == [("0", "Why?", "How?", None)]
    assert_bad_row(write(tmp_path / "dev.tsv", "id\tqid1\tqid2\tquestion1\tquestion2\tis_duplicate\n1\t2\t3\tWhy?\n"),
                   read_qqp, r"dev.tsv:2: expected 6 tab-separated columns, found 4", "wrong column count")


# ------------------------------------------------------------------ single sentences

COLA_TRAIN = ("gj04\t1\t\tOur friends won't buy this analysis, let alone the next one we propose.\n"
              "gj04\t0\t*\tThey drank the pub \"dry.\n"
              "clc95\t1\t\t\"Bill\" left.")  # no header, no final newline (as CoLA's dev.tsv)


def test_cola_headerless_train_and_its_test_with_a_header(tmp_path):
    data = read_cola(write(tmp_path / "train.tsv", COLA_TRAIN), "cola", "train")
    assert rows(data) == [("0", "", "Our friends won't buy this analysis, let alone the next one we propose.", "1"),
                          ("1", "", 'They drank the pub "dry.', "0"), ("2", "", '"Bill" left.', "1")]
    assert data.rows == 3
    test = read_cola(write(tmp_path / "test.tsv", "index\tsentence\n0\tBill whistled past the house.\n"), "cola",
                     "test")
    assert (rows(test), test.rows) == ([("0", "", "Bill whistled past the house.", None)], 1)
    assert_bad_row(write(tmp_path / "dev.tsv", "gj04\t1\tA sentence.\n"), read_cola,
                   r"dev.tsv:1: expected 4 tab-separated columns \(source, label, original_label, sentence; CoLA's "
                   r"train and dev files have no header\), found 3", "wrong column count")
    assert_bad_row(write(tmp_path / "dev.tsv", "gj04\tyes\t\tA sentence.\n"), read_cola,
                   r"dev.tsv:1: unknown label 'yes'; expected one of 0, 1", "unknown label")


def test_sst2_keeps_repeated_rows(tmp_path):
    path = write(tmp_path / "train.tsv", "sentence\tlabel\nhide new secretions from the parental units \t0\n"
                 "a \"charming\" journey . \t1\nhide new secretions from the parental units \t0\n")
    assert rows(read_sst2(path, "sst2", "train")) == [
        ("0", "", "hide new secretions from the parental units ", "0"), ("1", "", 'a "charming" journey . ', "1"),
        ("2", "", "hide new secretions from the parental units ", "0")]
    test = write(tmp_path / "test.tsv", "index\tsentence\n0\tuneasy mishmash of styles and genres .\n")
    assert rows(read_sst2(test, "sst2", "test")) == [("0", "", "uneasy mishmash of styles and genres .", None)]


# ------------------------------------------------------------------ the registry


def test_each_corpus_declares_how_it_is_judged():
    tasks = {name: get_corpus(name).task for name in ("stsb", "sick-relatedness", "mrpc", "qqp", "cola", "sst2")}
    assert {n: (t.target, t.labels, t.positive, t.score_range, t.metrics, t.select_by, t.single_sentence)
            for n, t in tasks.items()} == {
        "stsb": ("scores", None, None, (0.0, 5.0), ("pearson", "spearman"), "mean", False),
        "sick-relatedness": ("scores", None, None, (1.0, 5.0), ("pearson", "spearman", "mse"), "pearson", False),
        "mrpc": ("labels", ("0", "1"), "1", None, ("f1", "accuracy"), "mean", False),
        "qqp": ("labels", ("0", "1"), "1", None, ("f1", "accuracy"), "mean", False),
        "cola": ("labels", ("0", "1"), None, None, ("mcc",), "mcc", True),
        "sst2": ("labels", ("0", "1"), None, None, ("accuracy",), "accuracy", True)}


def test_the_first_layout_found_wins(tmp_path):
    """GLUE's STS-B over the STS Benchmark's csv, GLUE's MRPC tsv over Microsoft's files, split by split."""
    write(tmp_path / "stsbenchmark" / "sts-train.csv", STS_CSV)
    stsb = get_corpus("stsb")
    assert stsb.locate("train", tmp_path) == tmp_path / "stsbenchmark" / "sts-train.csv"
    assert stsb.load("train", tmp_path).pairs == read_stsb(write(tmp_path / "x.tsv", STSB_TRAIN), "stsb", "train").pairs
    write(tmp_path / "glue" / "STS-B" / "train.tsv", STSB_TRAIN)
    assert stsb.locate("train", tmp_path) == tmp_path / "glue" / "STS-B" / "train.tsv"
    write(tmp_path / "glue" / "MRPC" / "msr_paraphrase_train.txt", MSR_TRAIN, bom=True)
    write(tmp_path / "glue" / "MRPC" / "dev_ids.tsv", DEV_IDS)
    mrpc = get_corpus("mrpc")
    assert [len(mrpc.load(s, tmp_path).pairs) for s in ("train", "dev")] == [2, 2]
    write(tmp_path / "glue" / "MRPC" / "dev.tsv", f"{MRPC_HEADER}\n1\t1\t2\tA .\tB .\n", bom=True)
    assert [len(mrpc.load(s, tmp_path).pairs) for s in ("train", "dev")] == [2, 1]
    assert mrpc.download == "mrpc" and SOURCES["mrpc"].folder == "glue/MRPC"


# ------------------------------------------------------------------ downloads


@pytest.fixture
def www(tmp_path):
    root = tmp_path / "www"
    root.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *args: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=functools.partial(httpd.serve_forever, poll_interval=0.01), daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def test_mrpc_downloads_its_three_files_and_reads_as_glue_splits(www, tmp_path, monkeypatch):
    root, base = www
    write(root / "msr_paraphrase_train.txt", MSR_TRAIN, bom=True)
    write(root / "msr_paraphrase_test.txt", f"{MRPC_HEADER}\n1\t5\t6\tE .\tF .\n", bom=True)
    write(root / "mrpc_dev_ids.tsv", DEV_IDS)
    import hashlib
    digest = {name: hashlib.sha256((root / name).read_bytes()).hexdigest() for name in
              ("msr_paraphrase_train.txt", "mrpc_dev_ids.tsv")}
    source = SOURCES["mrpc"]
    local = dataclasses.replace(source, url=f"{base}/msr_paraphrase_train.txt",
                                sha256=digest["msr_paraphrase_train.txt"],
                                also=((f"{base}/msr_paraphrase_test.txt", "msr_paraphrase_test.txt", None),
                                      (f"{base}/mrpc_dev_ids.tsv", "dev_ids.tsv", digest["mrpc_dev_ids.tsv"])))
    monkeypatch.setitem(SOURCES, "mrpc", local)
    data = tmp_path / "data"
    result = download("mrpc", data, progress=False)
    assert sorted(p.name for p in (data / "glue" / "MRPC").iterdir()) == ["dev_ids.tsv", "msr_paraphrase_test.txt",
                                                                          "msr_paraphrase_train.txt"]
    assert result.checked == "pinned" and [checked for _, _, checked in result.also] == [None, "pinned"]
    assert any("msr_paraphrase_test.txt: not verified" in line for line in result.notes())
    mrpc = get_corpus("mrpc")
    assert [len(mrpc.load(s, data).pairs) for s in ("train", "dev", "test")] == [2, 2, 1]
    # A dev-ids file that is not the pinned one changes nothing.
    write(root / "mrpc_dev_ids.tsv", DEV_IDS + "1\t2\n")
    (data / "glue" / "MRPC" / "dev_ids.tsv").unlink()
    with pytest.raises(DownloadError, match=r"mrpc_dev_ids.tsv: sha256 \w+ does not match the pinned sha256"):
        download("mrpc", data, progress=False)
    assert not (data / "glue" / "MRPC" / "dev_ids.tsv").exists()
    with pytest.raises(DownloadError, match=r"mrpc is 3 files from as many addresses \(msr_paraphrase_train.txt, "
                                            r"msr_paraphrase_test.txt, dev_ids.tsv\): --url replaces one address"):
        download("mrpc", data, url=f"{base}/msr_paraphrase_train.txt", progress=False)


def test_glue_task_sources_are_the_official_zips():
    assert {name: (SOURCES[name].url, SOURCES[name].root, SOURCES[name].folder) for name in
            ("stsb", "cola", "sst2", "qqp")} == {
        "stsb": ("https://dl.fbaipublicfiles.com/glue/data/STS-B.zip", "STS-B", "glue/STS-B"),
        "cola": ("https://dl.fbaipublicfiles.com/glue/data/CoLA.zip", "CoLA", "glue/CoLA"),
        "sst2": ("https://dl.fbaipublicfiles.com/glue/data/SST-2.zip", "SST-2", "glue/SST-2"),
        "qqp": ("https://dl.fbaipublicfiles.com/glue/data/QQP-clean.zip", "QQP", "glue/QQP")}
    for name in ("stsb", "cola", "sst2", "qqp", "mrpc"):  # what a download writes is where the corpus looks
        candidates = {rel for files in get_corpus(name).files.values() for rel in files}
        written = [rel for rel in SOURCES[name].expect if not rel.endswith("/dev_ids.tsv")]  # MRPC's reader reads it
        assert get_corpus(name).download == name and set(written) <= candidates, name


# ------------------------------------------------------------------ the real files


@pytest.mark.parametrize("name, counts, labels", [
    ("mrpc", (3668, 408, 1725), ({"0": 1194, "1": 2474}, {"0": 129, "1": 279})),
    ("cola", (8551, 1043, 1063), ({"0": 2528, "1": 6023}, {"0": 322, "1": 721})),
    ("sst2", (67349, 872, 1821), ({"0": 29780, "1": 37569}, {"0": 428, "1": 444})),
    ("stsb", (5749, 1500, 1379), None),
])
def test_real_glue_files(data_dir, name, counts, labels):
    corpus = get_corpus(name)
    loaded = [corpus.load(split, data_dir) for split in ("train", "dev", "test")]
    assert tuple(len(d.pairs) for d in loaded) == counts == tuple(d.rows for d in loaded)
    assert not any(d.skipped for d in loaded) and not loaded[2].labeled
    if labels:
        assert (loaded[0].label_counts(), loaded[1].label_counts()) == labels
    assert [p.id for p in loaded[2].pairs] == [str(i) for i in range(counts[2])]


def test_mrpc_from_microsofts_files_is_glues_split(data_dir, tmp_path):
    folder = tmp_path / "glue" / "MRPC"
    folder.mkdir(parents=True)
    for name in ("msr_paraphrase_train.txt", "dev_ids.tsv"):
        (folder / name).symlink_to(data_dir / "glue" / "MRPC" / name)
    mrpc = get_corpus("mrpc")
    for split, count in (("train", 3668), ("dev", 408)):
        own, glue = mrpc.load(split, tmp_path), mrpc.load(split, data_dir)
        assert own.paths == [folder / "msr_paraphrase_train.txt"] and glue.paths[0].name == f"{split}.tsv"
        assert len(own.pairs) == count == own.rows and own.pairs == glue.pairs


def test_sts_benchmark_csv_is_glues_stsb(data_dir, tmp_path):
    (tmp_path / "stsbenchmark").symlink_to(data_dir / "stsbenchmark")
    stsb = get_corpus("stsb")
    for split, count in (("train", 5749), ("dev", 1500)):
        own, glue = stsb.load(split, tmp_path), stsb.load(split, data_dir)
        assert own.paths[0].name == f"sts-{split}.csv" and glue.paths[0].name == f"{split}.tsv"
        assert len(own.pairs) == count and own.pairs == glue.pairs  # ids, sentences and scores as written
    assert [p.label for p in stsb.load("train", data_dir).pairs[:3]] == ["5.000", "3.800", "3.800"]


def test_real_sick_relatedness(data_dir):
    corpus = get_corpus("sick-relatedness")
    train, dev = corpus.load("train", data_dir), corpus.load("dev", data_dir)
    assert (len(train.pairs), len(dev.pairs)) == (4439, 495)
    assert [(p.id, p.label) for p in train.pairs[:2]] == [("1", "4.5"), ("2", "3.2")]
    assert train.pairs == [p.with_label(s.label) for p, s in zip(get_corpus("sick").load("train", data_dir).pairs,
                                                               train.pairs)]
