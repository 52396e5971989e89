"""The priority model's memory is bounded by its records, not by what a ranking copies nor by the
vocabulary's strings (issue 50: a 100,000-record set on a shared server): the features stay sparse
float32 matrices with 4-byte indices, the vocabulary is kept in a fixed number of bytes a term (no
dict of strings), and a ranking or a fit holds its temporary copies a block of records at a time,
giving the same answers as the whole-matrix computation did."""

from __future__ import annotations

import random
import tracemalloc

import pytest

from medlit.plugins.review.screening import priority

from support.char_grams import reference_char_grams

pytest.importorskip("sklearn")


def _texts(records: int, words: int, seed: int = 3) -> list[tuple[int, str]]:
    """``records`` texts drawn from ``words`` distinct words (a title line, then an abstract)."""
    rnd = random.Random(seed)
    vocab = [f"term{i}x" for i in range(words)] + ["stroke", "aspirin", "insulin", "diabetes"]
    out = []
    for k in range(1, records + 1):
        title = " ".join(rnd.sample(vocab, 6))
        out.append((k, f"{title}\n{' '.join(rnd.choices(vocab, k=60))}"))
    return out


def test_features_are_kept_as_counts_and_recipes_and_give_sparse_float32_rows():
    # a stored value costs 4 bytes (its column and its count packed in one number); the titled and single-word
    # views hold no copy of the 1-2 grams (only the titles' own columns); every view's rows come
    # out as sparse float32 matrices, never a dense copy
    from scipy.sparse import csr_matrix

    from medlit.plugins.review.screening import tfidf

    records = 300
    feats = priority.fit(_texts(records, 2_000))
    assert feats is not None
    assert isinstance(feats.matrix, tfidf.Counted) and isinstance(feats.chars, tfidf.Counted)
    for name in ("matrix", "titled", "words", "chars"):
        view = getattr(feats, name)
        rows = view[0:records]
        assert isinstance(rows, csr_matrix), name
        assert rows.dtype.name == "float32" and rows.indices.dtype.name == "int32", name
        assert rows.nnz < 0.2 * rows.shape[0] * rows.shape[1], name
    counted = feats.matrix.nnz + feats.chars.nnz
    title_own = feats.titled.own.nnz
    held = priority.held_bytes(feats)["matrices"]
    assert (
        held
        <= 4 * counted
        + 8 * title_own
        + 8 * 3 * (records + 1)
        + 4 * sum(v.shape[1] for v in (feats.matrix, feats.chars))
        + 8 * feats.words.shape[1]
    )
    # as floats, the same views held 8 bytes a value, four times over (the old layout's size)
    as_floats = sum(8 * getattr(feats, n)[0:records].nnz for n in ("matrix", "titled", "words", "chars"))
    assert held < 0.6 * as_floats  # (the idf arrays weigh most in a set this small)


def test_the_vocabulary_costs_a_fixed_number_of_bytes_a_term_and_holds_no_strings():
    # ten times the distinct words: the vocabulary grows ten-fold in terms, never above 16 bytes a
    # term (scikit-learn's dict of strings held ~85); no vectorizer (and its dict) is kept
    small = priority.fit(_texts(200, 500))
    large = priority.fit(_texts(200, 5_000))
    assert small is not None and large is not None
    for feats in (small, large):
        held = priority.held_bytes(feats)
        assert held["terms"] > 500
        assert held["vocabulary"] <= 16 * held["terms"]
        assert not any(
            isinstance(v, dict) and any(isinstance(k, str) for k in v) for v in vars(feats).values()
        )
        assert not any("Vectorizer" in type(v).__name__ for v in vars(feats).values())
    assert priority.held_bytes(large)["terms"] > 1.3 * priority.held_bytes(small)["terms"]


def test_the_vocabulary_weighs_a_topic_as_the_fitted_vectorizer_does():
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer

    texts = _texts(150, 400)
    vectorizer = TfidfVectorizer(
        ngram_range=(1, 2), sublinear_tf=True, strip_accents="unicode", max_df=0.95, dtype=np.float32
    )
    vectorizer.fit([t for _, t in texts])
    feats = priority.fit(texts)
    assert feats is not None
    for topic in (
        "stroke aspirin Stroke",
        "term1x term2x term1x nowhere",
        "Élan insulin diabetes",
        "nowhere",
    ):
        theirs = vectorizer.transform([topic])
        ours = feats.vocabulary.transform(topic)
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
        assert list(ours.indices) == list(theirs.indices)
        np.testing.assert_array_equal(ours.data, theirs.data)


def test_blocks_give_the_whole_computation_s_answers(monkeypatch):
    # the character grams' product and the SVMs' decision values, computed a block of rows at a time,
    # are the whole-matrix figures: the same features, the same ranking
    texts = _texts(120, 300)
    labels = {k: k % 7 == 0 for k in range(1, 41)}
    candidates = list(range(41, 121))
    whole = priority.fit(texts)
    ranked_whole = _rank_with(whole, texts, labels, candidates)
    monkeypatch.setattr(priority, "BLOCK", 7)
    blocked = priority.fit(texts)
    assert whole is not None and blocked is not None
    for name in ("matrix", "titled", "words", "chars"):
        a, b = getattr(whole, name)[0:120], getattr(blocked, name)[0:120]
        assert a.shape == b.shape and (a != b).nnz == 0, name
    assert _rank_with(blocked, texts, labels, candidates) == ranked_whole


def _rank_with(feats, texts, labels, candidates):
    priority._CACHE.clear()
    priority._CACHE[priority.digest(texts)] = feats
    try:
        return priority.rank(texts, labels, candidates)
    finally:
        priority._CACHE.clear()


def test_a_ranking_copies_no_more_than_a_block_of_the_features(monkeypatch):
    # before issue 50 each SVM took the candidates' rows out of its view (most of the matrix) and
    # the product cast them to float64: a ranking held about twice the features again. Now its
    # temporary memory is the training rows, a block's rows and a few vectors of the set's length
    texts = _texts(3_000, 3_000)
    monkeypatch.setattr(priority, "BLOCK", 150)  # a twentieth of the set
    feats = priority.features(texts)
    assert feats is not None
    held = priority.held_bytes(feats)["matrices"]
    labels = {k: k % 9 == 0 for k in range(1, 101)}
    candidates = list(range(101, 3_001))
    tracemalloc.start()
    try:
        ranked = priority.rank(texts, labels, candidates)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        priority._CACHE.clear()
    assert ranked.method == "classifier"
    # (its models' coefficients, one a column, weigh most in a set this small: 59% measured; the
    # whole-matrix copies made it twice the features as floats, 3.5 times these)
    assert peak < 0.75 * held, (peak, held)


def test_a_count_over_a_byte_is_kept_exactly():
    # a gram counted 300 times in one record (a word repeated) does not fit the byte a count is
    # kept in: it is kept apart, and its weight is what scikit-learn's char_wb TF-IDF gives it

    import numpy as np

    texts = ["stroke " * 300 + "aspirin", "stroke aspirin trial", "insulin trial", "insulin " * 260 + "diet"]
    counted = priority._char_grams(texts)
    assert counted is not None and len(counted.big_at) > 0 and counted.big.max() >= 300
    ours = counted[:]
    theirs = reference_char_grams(texts)
    for i in range(len(texts)):
        a, b = ours[i].toarray().ravel(), theirs[i].toarray().ravel()
        np.testing.assert_allclose(np.sort(a[a > 0]), np.sort(b[b > 0]), atol=1e-6)


def test_a_column_and_a_count_are_packed_in_four_bytes_or_eight_past_2_24_columns():
    import numpy as np

    from medlit.plugins.review.screening import tfidf

    assert tfidf.packing(2**24 - 1) is np.uint32 and tfidf.packing(2**24) is np.uint64
    for columns in (2**24 - 1, 2**24 + 9):
        dtype = np.dtype(tfidf.packing(columns))
        cols = np.array([0, 7, columns - 1], np.int32)
        packed = tfidf.pack(cols, np.array([1, 255, 300], np.float32), dtype)
        assert packed.dtype == dtype
        back, counts = tfidf.unpack(packed)
        assert back.dtype.name == "int32"
        assert list(back) == list(cols) and list(counts) == [1, 255, 255]  # (300: kept apart, see Counted)


def test_the_1_2_gram_views_are_scikit_learn_s_vectorizer_s_bit_for_bit(monkeypatch):
    # counted a block of records at a time (.counting) and kept as counts, the 1-2 grams and the
    # titles' own are the float32 rows TfidfVectorizer gives, each row's values in its order
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer

    def vectorized(texts):
        return TfidfVectorizer(
            ngram_range=(1, 2), sublinear_tf=True, strip_accents="unicode", max_df=0.95, dtype=np.float32
        ).fit_transform(texts)

    texts = _texts(300, 2_000)
    texts[5] = (6, "")  # a record without text
    texts[9] = (10, "stroke " * 400 + "\nstroke aspirin")  # a count over a byte
    monkeypatch.setattr(priority, "BLOCK", 64)
    feats = priority.fit(texts)
    assert feats is not None
    pairs = [
        (feats.matrix[0:300], vectorized([t for _, t in texts])),
        (
            feats.titled.own,
            vectorized([priority.title_of(t) for _, t in texts]) * np.float32(priority.TITLE_WEIGHT),
        ),
    ]
    for ours, theirs in pairs:
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
        np.testing.assert_array_equal(ours.indptr, theirs.indptr)
        np.testing.assert_array_equal(ours.indices, theirs.indices)
        np.testing.assert_array_equal(ours.data, theirs.data)
