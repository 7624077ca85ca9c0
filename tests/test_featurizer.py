"""PairFeaturizer's own machinery: stacking the blocks into one CSR matrix, and the length check."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import scipy.sparse as sp

from nli_baselines.features import PairFeaturizer
from nli_baselines.features import featurizer as combine
from nli_baselines.features.featurizer import _stack
from nli_baselines.features.pair import MAX_PAIRWISE_TOKENS, PairTooLongError
from tests.conftest import TINY


def _hstack(blocks, n_rows):
    """What _stack gave before it wrote the result itself."""
    if not blocks:
        return sp.csr_matrix((n_rows, 0), dtype=np.float32)
    matrix = sp.hstack(blocks, format="csr", dtype=np.float32)
    matrix.indices = matrix.indices.astype(np.int32, copy=False)
    matrix.indptr = matrix.indptr.astype(np.int32, copy=False)
    return matrix


def _random_block(rng, n_rows, n_cols, density, dtype=np.float32, index=np.int32):
    block = sp.random(n_rows, n_cols, density=density, format="csr", dtype=np.float64, random_state=rng)
    block.data = block.data.astype(dtype)
    block.indices, block.indptr = block.indices.astype(index), block.indptr.astype(index)
    return block


@pytest.mark.parametrize("n_rows", [0, 1, 7, 300])
def test_stack_equals_scipy_hstack(n_rows, monkeypatch):
    monkeypatch.setattr(combine, "_STACK_ROWS", 16)  # several slices of rows
    rng = np.random.default_rng(n_rows)
    blocks = [_random_block(rng, n_rows, 5, 0.4), _random_block(rng, n_rows, 0, 0.0),
              _random_block(rng, n_rows, 40, 0.02, dtype=np.float64, index=np.int64),
              _random_block(rng, n_rows, 3, 1.0), _random_block(rng, n_rows, 1000, 0.001)]
    for chosen in (blocks, blocks[:1], blocks[2:3], []):
        got, expected = _stack(chosen, n_rows), _hstack(chosen, n_rows)
        assert type(got) is type(expected) and got.shape == expected.shape and got.dtype == np.float32
        assert got.indices.dtype == expected.indices.dtype == np.int32 and got.indptr.dtype == np.int32
        assert (got.indptr == expected.indptr).all() and (got.indices == expected.indices).all()
        assert (got.data == expected.data).all()


def test_stack_hands_blocks_it_does_not_write_itself_to_scipy():
    rng = np.random.default_rng(1)
    blocks = [_random_block(rng, 20, 4, 0.3), _random_block(rng, 20, 6, 0.3).tocoo()]
    got, expected = _stack(blocks, 20), _hstack(blocks, 20)
    assert (got != expected).nnz == 0 and got.indices.dtype == np.int32
    with pytest.raises(ValueError, match="[Mm]ismatching dimensions|incompatible"):
        _stack([_random_block(rng, 20, 4, 0.3), _random_block(rng, 21, 4, 0.3)], 20)


def test_a_sentence_too_long_stops_fit_before_anything_is_fitted():
    long = dataclasses.replace(TINY[0], id="long", premise_tokens=("w",) * (MAX_PAIRWISE_TOKENS + 1),
                               premise_tags=("NN",) * (MAX_PAIRWISE_TOKENS + 1))
    featurizer = PairFeaturizer(n_jobs=1, min_count=1).fit(TINY)
    names, X = featurizer.get_feature_names_out(), featurizer.transform(TINY)
    with pytest.raises(PairTooLongError, match=r"pair 'long': its premise has 1,001 tokens.*\(2 such pairs\)"):
        featurizer.fit(TINY + [long, long])
    assert (featurizer.get_feature_names_out() == names).all() and (featurizer.transform(TINY) != X).nnz == 0
    with pytest.raises(PairTooLongError, match="pair 'long'"):
        featurizer.transform([long])
    unlexicalized = PairFeaturizer(features="unlexicalized", n_jobs=1).fit(TINY + [long])  # no pairwise type
    assert unlexicalized.transform([long]).shape[0] == 1


def test_featurizing_a_large_batch_shows_the_types_done(monkeypatch, capsys, terminal):
    monkeypatch.setattr(combine, "_BAR_FROM_PAIRS", 1)
    with combine.featurize_progress(True):
        shown = PairFeaturizer(features="unlexicalized").fit_transform(TINY)
    bar = capsys.readouterr().err
    assert f"featurizing {len(TINY)} pairs" in bar and "/3 [" in bar
    quiet = PairFeaturizer(features="unlexicalized").fit_transform(TINY)  # the switch is off outside the block
    assert capsys.readouterr().err == ""
    assert (shown != quiet).nnz == 0
