"""Encoding: batches split into chunks give the same features as one chunk (the row offsets of later
chunks), and the cross index visits exactly the tag-matched cells."""
from __future__ import annotations

import numpy as np
import pytest

import nli_baselines.features.columns.encoding as encoding
from benchmarks.synthetic import generate_pairs
from benchmarks.measure.dict_reference import dict_featurize
from nli_baselines.features import PairFeaturizer
from nli_baselines.features.columns.encoding import Encoder, matching_cross_index, tag_matched_cells, tag_matched_count
from tests.conftest import TINY


def named_rows(X, names):
    return [{names[c]: v for c, v in zip(X[i].indices, X[i].data)} for i in range(X.shape[0])]


@pytest.mark.parametrize("tag_match", ["exact", "first_letter"])
def test_many_small_chunks_equal_the_dict_build(monkeypatch, tag_match):
    pairs = TINY + generate_pairs(200, seed=5, vocab_size=80)
    monkeypatch.setattr(encoding, "CHUNK_CELLS", 150)  # a few pairs per chunk: dozens of chunks
    batch = Encoder().fit_encode(pairs)
    assert len(list(batch.row_chunks())) > 20
    ours = PairFeaturizer(tag_match=tag_match, scale="none", bins=0, n_jobs=1, min_count=1)
    X = ours.fit_transform(pairs)
    X_dict, vectorizer = dict_featurize(pairs, tag_match=tag_match)
    got = named_rows(X, ours.get_feature_names_out())
    expected = named_rows(X_dict, vectorizer.get_feature_names_out())
    for i, (g, e) in enumerate(zip(got, expected)):
        e = {k: v for k, v in e.items() if v != 0}
        assert set(g) == set(e), pairs[i].id
        for name, value in e.items():
            assert g[name] == pytest.approx(value, abs=1e-6), (pairs[i].id, name)


def test_chunked_transform_equals_one_chunk(monkeypatch):
    pairs = generate_pairs(300, seed=2, vocab_size=50)
    featurizer = PairFeaturizer(n_jobs=1, min_count=1).fit(pairs)
    whole = featurizer.transform(pairs)
    monkeypatch.setattr(encoding, "CHUNK_CELLS", 97)
    chunked = featurizer.transform(pairs)
    assert whole.shape == chunked.shape and (whole != chunked).nnz == 0


def test_matching_cross_index_rows_of_a_later_chunk():
    pairs = TINY
    batch = Encoder().fit_encode(pairs)
    p, h = batch.premise, batch.hypothesis
    rows, pi, hi = matching_cross_index(p, h, p.tags, h.tags, 3, 5)  # rows 3 and 4 only
    expected = sorted((r, i, j) for r in (3, 4)
                      for i in range(p.offsets[r], p.offsets[r + 1]) for j in range(h.offsets[r], h.offsets[r + 1])
                      if p.tags[i] == h.tags[j])
    assert sorted(zip(rows.tolist(), pi.tolist(), hi.tolist())) == expected
    assert set(rows.tolist()) == {3, 4} and (np.diff(rows) >= 0).all()


def test_word_matches_and_repeats_equal_a_loop(monkeypatch):
    pairs = TINY + generate_pairs(120, seed=3, vocab_size=30)
    monkeypatch.setattr(encoding, "CHUNK_TOKENS", 50)  # several chunks
    batch = Encoder().fit_encode(pairs)
    p, h = batch.premise, batch.hypothesis
    expected, repeats, premise_repeats = set(), set(), set()
    for r in range(len(pairs)):
        ps, hs = range(p.offsets[r], p.offsets[r + 1]), range(h.offsets[r], h.offsets[r + 1])
        expected |= {(r, i, j) for i in ps for j in hs if p.ids[i] == h.ids[j]}
        repeats |= {(r, j, k) for j in hs for k in hs if j < k and h.ids[j] == h.ids[k]}
        premise_repeats |= {(r, j, k) for j in ps for k in ps if j < k and p.ids[j] == p.ids[k]}
    first_repeats = Encoder().fit_encode(pairs).repeats()  # asked before the matches they come with
    for found, wanted in ((batch.word_matches(), expected), (batch.repeats(), repeats), (first_repeats, repeats),
                          (batch.repeats("premise"), premise_repeats)):
        cells = list(zip(*(a.tolist() for a in found)))
        assert len(cells) == len(set(cells)) and set(cells) == wanted
        assert (np.diff(found[0]) >= 0).all()  # rows in order: bleu and overlap take them a block at a time
    assert [a.dtype for a in batch.word_matches()] == [np.int32] * 3


def test_tag_matched_cells_skip_tokens_not_valid_and_count_without_sorting():
    pairs = TINY + generate_pairs(150, seed=4, vocab_size=30)
    batch = Encoder().fit_encode(pairs)
    p, h = batch.premise, batch.hypothesis
    rng = np.random.default_rng(0)
    for p_valid, h_valid in ((None, None), (rng.random(len(p.ids)) < 0.7, None), (None, rng.random(len(h.ids)) < 0.4)):
        for start, stop in ((0, len(pairs)), (5, 40), (9, 9)):
            cells = tag_matched_cells(p, h, p.coarse, h.coarse, start, stop, p_valid, h_valid)
            found = list(zip(np.repeat(cells.a_rows, cells.reps).tolist(), np.repeat(cells.a_order, cells.reps).tolist(),
                             cells.b_order[cells.b_local()].tolist()))
            expected = {(r, i, j) for r in range(start, stop) for i in range(p.offsets[r], p.offsets[r + 1])
                        for j in range(h.offsets[r], h.offsets[r + 1]) if p.coarse[i] == h.coarse[j]
                        and (p_valid is None or p_valid[i]) and (h_valid is None or h_valid[j])}
            assert len(found) == len(set(found)) and set(found) == expected
            assert len(cells) == tag_matched_count(p, h, p.coarse, h.coarse, start, stop, p_valid, h_valid)


def test_shared_and_unshared_premises_encode_alike():
    from nli_baselines.features.pair import Pair
    base = TINY[2]
    copy = Pair("copy", base.premise, base.hypothesis, base.label, tuple(base.premise_tokens),
                tuple(base.premise_tags), base.hypothesis_tokens, base.hypothesis_tags)
    # The same token tuple under other tags must not be merged with the first.
    retagged = Pair("retagged", base.premise, base.hypothesis, base.label, base.premise_tokens,
                    ("NN",) * len(base.premise_tokens), base.hypothesis_tokens, base.hypothesis_tags)
    batch = Encoder().fit_encode([base, copy, retagged])
    p = batch.premise
    rows = [slice(p.offsets[i], p.offsets[i + 1]) for i in range(3)]
    assert (p.ids[rows[0]] == p.ids[rows[1]]).all() and (p.tags[rows[0]] == p.tags[rows[1]]).all()
    assert (p.ids[rows[0]] == p.ids[rows[2]]).all() and not (p.tags[rows[0]] == p.tags[rows[2]]).all()
    with pytest.raises(ValueError, match="'bare' has no tokens/tags"):
        Encoder().fit_encode([base, Pair("bare", "a", "b")])
