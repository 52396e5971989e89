"""The priority model's term counting (issue 50): counted a block of records at a time into typed
arrays, it gives scikit-learn's ``CountVectorizer.fit_transform`` matrix value for value (the same
columns, the same float32 counts, each row's values in the same order), with far less memory."""

from __future__ import annotations

import random
import tracemalloc

import pytest

from medlit.plugins.review.screening import counting

pytest.importorskip("sklearn")


def _texts(records: int, words: int, seed: int = 5) -> list[str]:
    rnd = random.Random(seed)
    vocab = [f"w{i}" for i in range(words)] + ["the", "stroke", "Élan", "élan", "a", "5", "aspirin"]
    out = []
    for _ in range(records):
        title = " ".join(rnd.choices(vocab, k=8))
        out.append(f"{title}\n{' '.join(rnd.choices(vocab, k=rnd.randint(0, 80)))}")
    out[3] = ""  # a record without text
    out[7] = "the " * 300  # a count over a byte
    return out


def _vectorizer(**options):
    import numpy as np
    from sklearn.feature_extraction.text import CountVectorizer

    return CountVectorizer(strip_accents="unicode", dtype=np.float32, **options)


@pytest.mark.parametrize("block", [1, 7, 64, 10_000])
@pytest.mark.parametrize(
    "options",
    [
        {"ngram_range": (1, 2), "max_df": 0.95},
        {"token_pattern": r"(?u)\b\w+\b"},
        {"ngram_range": (1, 2), "max_df": 0.2},  # (every single word dropped: bigrams kept)
    ],
)
def test_the_counts_are_scikit_learn_s_value_for_value(block, options):
    import numpy as np

    texts = _texts(300, 60)
    theirs = _vectorizer(**options)
    expected = theirs.fit_transform(texts).tocsr()
    analyzing = {k: v for k, v in options.items() if k != "max_df"}
    counts = counting.count(
        texts, _vectorizer(**analyzing).build_analyzer(), block, options.get("max_df", 1.0)
    )
    assert counts is not None
    assert all(b.shape[0] == block for b in counts.blocks[:-1])
    ours = counts.whole()
    assert counts.names == list(theirs.get_feature_names_out())
    assert ours.shape == expected.shape and ours.dtype == expected.dtype
    np.testing.assert_array_equal(ours.indptr, expected.indptr)
    np.testing.assert_array_equal(ours.indices, expected.indices)  # (the order in each row too)
    np.testing.assert_array_equal(ours.data, expected.data)
    np.testing.assert_array_equal(counts.df, np.bincount(expected.indices, minlength=expected.shape[1]))


def test_the_idf_is_the_transformer_s_bit_for_bit():
    import numpy as np
    from sklearn.feature_extraction.text import TfidfTransformer

    texts = _texts(200, 500)
    counts = counting.count(texts, _vectorizer(ngram_range=(1, 2)).build_analyzer(), 16, 0.95)
    assert counts is not None
    theirs = TfidfTransformer(sublinear_tf=True).fit(counts.whole()).idf_
    ours = counting.idf_of(counts)
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours, theirs)


def test_nothing_to_count_is_none_where_scikit_learn_refuses():
    analyze = _vectorizer().build_analyzer()
    assert counting.count(["", "a", "5"], analyze, 2) is None  # an empty vocabulary
    # every term in more than half of the documents: none kept
    assert counting.count(["stroke aspirin", "stroke aspirin", "aspirin stroke"], analyze, 2, 0.5) is None


def test_counting_holds_a_fraction_of_scikit_learn_s_memory():
    # scikit-learn gathers every stored value in Python lists (about 40 bytes each) and copies its
    # matrix twice; counted a block at a time, the peak is near the matrix itself (8 bytes a value)
    # (long records over few words: the stored values outweigh the vocabulary both hold)
    rnd = random.Random(2)
    texts = [" ".join(rnd.choices([f"w{i}" for i in range(60)], k=300)) for _ in range(3_000)]
    options = {"ngram_range": (1, 2)}
    tracemalloc.start()
    try:
        theirs = _vectorizer(max_df=0.95, **options).fit_transform(texts)
        _, their_peak = tracemalloc.get_traced_memory()
        del theirs
        tracemalloc.reset_peak()
        start, _ = tracemalloc.get_traced_memory()
        counts = counting.count(texts, _vectorizer(**options).build_analyzer(), 256, 0.95)
        _, our_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert counts is not None
    assert our_peak - start < 0.7 * their_peak, (our_peak - start, their_peak)  # (0.58 measured)
