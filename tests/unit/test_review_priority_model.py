"""The ranking model and the stopping test as pure functions (plugins/review/screening/priority.py,
stopping.py): what the query text keeps, a set that cannot be ranked saying why, and the
hypergeometric test's verdicts on screening histories whose answer is known."""

from __future__ import annotations

from medlit.plugins.review.screening import priority, stopping

from support.char_grams import reference_char_grams


def test_query_syntax_is_stripped_to_the_topic_words():
    text = priority.topic_text(
        [
            '("migraine disorders"[MeSH Terms] OR triptan*[tiab]) AND 2000:2020[dp] NOT rat[ti]',
            "TITLE:sumatriptan",
        ],
        "Adults with migraine",
    )
    assert text == "migraine disorders triptan rat sumatriptan Adults with migraine"


def test_a_set_without_text_or_evidence_says_it_is_not_ranked():
    empty = priority.rank([(1, ""), (2, "")], {}, [1, 2])
    assert empty.method == "none" and empty.scores == [None, None] and "no title or abstract" in empty.notice
    texts = [(1, "aspirin for stroke"), (2, "insulin for diabetes"), (3, "statins for stroke")]
    one = priority.rank(texts, {1: True}, [2, 3])
    assert one.method == "none" and one.keys == [2, 3] and "needs an exclude" in one.notice
    by_topic = priority.rank(texts, {1: True}, [2, 3], topic="diabetes")
    assert by_topic.method == "similarity" and by_topic.keys == [2, 3]


def test_records_without_text_are_not_scored_and_come_first_in_the_tail():
    # a record without text has no words to judge it by: no score, after the scored records while
    # the model finds includes, first once screening is in its tail; the notice names it and says
    # how to judge it
    texts = [
        (1, "stroke aspirin"),
        (2, ""),
        (3, "stroke statin"),
        (4, "diabetes insulin"),
        (5, "diabetes diet"),
    ]
    r = priority.rank(texts, {1: True, 4: False}, [2, 3, 5])
    assert r.method == "classifier" and r.keys == [3, 5, 2]
    assert r.scores[2] is None and all(s is not None for s in r.scores[:2])
    assert "1 record(s) without title/abstract text" in r.notice and "safeToStop waits" in r.notice
    assert "after the scored records" in r.notice
    tail = priority.rank(texts, {1: True, 4: False}, [2, 3, 5], tail=True)
    assert tail.keys == [2, 3, 5] and tail.scores[0] is None and "listed first" in tail.notice


def test_records_without_text_are_not_trained_on():
    # an include without text is no evidence for the model: with it and an exclude the model still
    # lacks an include with words, and says so; beside an include with text, it is not counted and
    # the ranking is the one made without it
    texts = [(1, ""), (2, "stroke aspirin"), (3, "diabetes insulin"), (4, "stroke statin"), (5, "diet")]
    r = priority.rank(texts, {1: True, 3: False}, [2, 4, 5])
    assert r.method == "none" and (r.includes, r.excludes) == (0, 1) and "needs an include" in r.notice
    with_it = priority.rank(texts, {1: True, 2: True, 3: False}, [4, 5])
    without = priority.rank(texts, {2: True, 3: False}, [4, 5])
    assert with_it.keys == without.keys and with_it.scores == without.scores
    assert (with_it.includes, with_it.excludes) == (1, 1)


def test_only_records_without_text_left_are_named_not_ranked():
    texts = [(1, "stroke aspirin"), (2, "diabetes insulin"), (3, ""), (4, "")]
    r = priority.rank(texts, {1: True, 2: False}, [4, 3])
    assert r.method == "none" and r.keys == [3, 4] and r.scores == [None, None]
    assert "2 record(s) without title/abstract text" in r.notice and "no record with text is left" in r.notice
    assert "after the scored records" not in r.notice


def test_an_undecided_record_without_text_holds_the_stop():
    # the same long run of excludes that lets the test stop (below), with one record the ranking had
    # no words for still undecided: not safe, and it counts as a possible include in the bound
    history = [[True] * 10] * 10 + [[False] * 10] * 40
    free = stopping.estimate(1000, history)
    held = stopping.estimate(1000, history, unranked=1)
    assert free.safe_to_stop and not held.safe_to_stop
    assert held.remaining_upper95 == free.remaining_upper95 + 1 and held.p_value == free.p_value


def test_stopping_is_refused_early_and_allowed_after_a_long_run_of_excludes():
    early = stopping.estimate(1000, [[True, False], [False] * 10])
    assert not early.safe_to_stop and early.remaining_upper95 >= early.remaining_estimate
    # 100 includes in the first 100 in priority order, then 400 excludes in batches of 10: six
    # includes still unscreened (recall < 95%) would hardly all stay out of 400 of the 900 left
    late = stopping.estimate(1000, [[True] * 10] * 10 + [[False] * 10] * 40)
    assert late.safe_to_stop and late.includes_found == 100 and late.remaining_upper95 < 6
    # with 20 includes found, two unseen would break 95%: the same run of excludes is not enough
    few = stopping.estimate(1000, [[True] * 10] * 2 + [[False] * 10] * 40)
    assert not few.safe_to_stop and few.remaining_upper95 >= 2
    assert late.recall_estimate == 1.0 and late.p_value is not None and late.p_value < 0.05


def test_everything_screened_is_safe_to_stop():
    done = stopping.estimate(3, [[True], [False, False]])
    assert done.safe_to_stop and done.remaining_upper95 == 0


def test_every_window_start_is_tested_not_only_batch_boundaries():
    # 21 includes, the last one first in its batch, then 13 batches of excludes in a set of 200: the
    # window that starts just after that include rejects 'recall < 95%' (p ~ 0.049); the windows
    # starting at a batch boundary (with it: one include more in the sample; after its batch: nine
    # records fewer) do not (smallest p ~ 0.054)
    history = [[True] * 10] * 2 + [[True] + [False] * 9] + [[False] * 10] * 13
    e = stopping.estimate(200, history)
    assert e.safe_to_stop and e.p_value is not None and 0.045 < e.p_value < 0.05
    # one batch fewer: not yet
    assert not stopping.estimate(200, history[:-1]).safe_to_stop
    # an include among the latest records makes every window that holds it count it
    late_find = [*history[:-1], [False] * 9 + [True]]
    assert not stopping.estimate(200, late_find).safe_to_stop


def test_the_test_agrees_with_the_hypergeometric_tail_for_a_single_window():
    # one record screened, an exclude, in a set of 10: H0 says at least one include (R* = 1) among
    # the 10 the window was drawn from; P(X <= 0) = 9/10
    e = stopping.estimate(10, [[False]])
    assert e.p_value == 0.9 and not e.safe_to_stop


def test_a_fit_under_way_is_waited_for_not_repeated(monkeypatch):
    # the background warming after an import and the first priority page may ask for the same
    # set's features at once: the second waits for the first's fit (one fit, one object)
    import threading

    texts = [(1, "aspirin for stroke"), (2, "insulin for diabetes"), (3, "statins for stroke")]
    priority._CACHE.clear()
    entered, release, waiting = threading.Event(), threading.Event(), threading.Event()
    fits: list[int] = []
    real_fit = priority.fit

    def slow_fit(t):
        fits.append(len(t))
        entered.set()
        release.wait(30)
        return real_fit(t)

    monkeypatch.setattr(priority, "fit", slow_fit)
    got: dict[str, object] = {}
    first = threading.Thread(target=lambda: got.__setitem__("first", priority.features(texts)))
    first.start()
    assert entered.wait(30)
    key = priority.digest(texts)
    under_way = priority._FITTING[key]

    class Relay:  # tells the test when the second caller is waiting on the first fit
        def wait(self, timeout=None):
            waiting.set()
            return under_way.wait(timeout)

    priority._FITTING[key] = Relay()  # type: ignore[assignment]
    second = threading.Thread(target=lambda: got.__setitem__("second", priority.features(texts)))
    second.start()
    assert waiting.wait(30)
    release.set()
    first.join(30)
    second.join(30)
    assert fits == [3]
    assert got["first"] is got["second"] is not None
    assert priority.cached(texts) and key not in priority._FITTING


def test_the_feature_cache_is_bounded_by_records_as_well_as_sets(monkeypatch):
    # a large set's features hold hundreds of MiB: the cache keeps the newest sets within a
    # record budget, and always the one just fitted, however large
    priority._CACHE.clear()
    monkeypatch.setattr(priority, "CACHE_RECORDS", 5)
    small = [(1, "aspirin for stroke"), (2, "insulin for diabetes")]
    other = [(1, "statins for stroke"), (2, "diet for diabetes"), (3, "sleep for migraine")]
    large = [
        (k, f"stroke {word}") for k, word in enumerate("aspirin statin diet sleep rest tea yoga".split(), 1)
    ]
    priority.features(small)
    priority.features(other)
    assert priority.cached(small) and priority.cached(other)  # 5 records: within the budget
    priority.features(large)
    assert priority.cached(large) and not priority.cached(small) and not priority.cached(other)
    priority.features(small)
    assert priority.cached(small) and not priority.cached(large)  # over the budget: the older goes
    priority._CACHE.clear()


def test_the_tail_is_a_run_of_excludes_after_the_start():
    start = [True, False]
    assert not priority.in_tail(start + [False] * priority.TAIL_RECORDS)  # nothing past the start
    assert priority.in_tail(start + [False] * (priority.TAIL_RECORDS + 1))
    assert not priority.in_tail(start + [False] * 40 + [True] + [False] * (priority.TAIL_RECORDS - 1))
    assert priority.in_tail(start + [True] * 40 + [False] * priority.TAIL_RECORDS)


def test_in_the_tail_the_ranking_moves_toward_the_plain_bigram_svm():
    # weighting that SVM up must bring the ranking closer to its own, on a set where the views differ
    import random

    import numpy as np
    from scipy.stats import spearmanr

    rnd = random.Random(7)
    vocab = [f"w{i}" for i in range(400)]
    topic = ["stroke", "aspirin", "prevention", "secondary"]
    texts = []
    for k in range(400):
        words = rnd.sample(vocab, 25)
        if k % 8 == 0:
            words += rnd.sample(topic, 2)
        texts.append((k, " ".join(words)))
    labels = {k: k % 8 == 0 for k in range(0, 120)}
    candidates = list(range(120, 400))
    feats = priority.features(texts)
    assert feats is not None
    train = np.array(sorted(labels), dtype=np.int64)
    y = np.array([1 if labels[k] else 0 for k in sorted(labels)])
    rows = np.array(candidates, dtype=np.int64)
    plain = priority._svm(
        feats.matrix[train], y, priority._weights(y, priority.INCLUDE_RATIO), feats.matrix, rows
    )
    usual = priority._fit(feats, train, y, rows, tail=False)
    tail = priority._fit(feats, train, y, rows, tail=True)
    assert 0 <= tail.min() and tail.max() <= 1
    assert spearmanr(tail, plain).statistic > spearmanr(usual, plain).statistic


def test_character_grams_are_char_wb_over_the_words():
    # _char_grams cuts each distinct word's grams once and multiplies by the word counts: it must
    # count exactly what scikit-learn's char_wb analyzer counts over the same words (accents
    # stripped, lower-cased, short words and numbers included), with the same weighting

    import numpy as np

    texts = [
        "Enalapril and captopril lower blood pressure in 5 trials",
        "Captopril: a trial in heart failure",
        "Aspirin for stroke; a trial",
        "enalapril dosing, enalapril levels",
        "Blood pressure in the élderly, a 5 mg dose",
        "",
    ]
    counted = priority._char_grams(texts)
    assert counted is not None
    ours = counted[:]  # (kept as counts: its rows as a matrix)
    theirs = reference_char_grams(texts)
    # (a gram in one record, or in too many, keeps an empty column in ours: dropped in theirs)
    assert ours.shape[0] == theirs.shape[0] and (ours.getnnz(axis=0) > 0).sum() == theirs.shape[1]
    for i in range(len(texts)):  # each row's weights, whatever order the grams' columns are in
        a, b = ours[i].toarray().ravel(), theirs[i].toarray().ravel()
        np.testing.assert_allclose(np.sort(a[a > 0]), np.sort(b[b > 0]), atol=1e-6)
    # and the same grams behind them: every pair of records equally alike in both
    np.testing.assert_allclose((ours @ ours.T).toarray(), (theirs @ theirs.T).toarray(), atol=1e-5)


def test_character_grams_link_records_that_share_a_stem_and_no_word():
    # enalapril / captopril share "pril" and no word: the 1-2 gram view sees nothing in common,
    # the character view does, more than with an unrelated record
    texts = [
        (1, "enalapril lowered pressure"),
        (2, "captopril improved survival"),
        (3, "aspirin prevented stroke"),
        (4, "ramipril trial results"),
        (5, "metformin glucose control"),
    ]
    feats = priority.fit(texts)
    assert feats is not None
    assert _cos(feats, feats.matrix, 1, 2) == 0.0
    stems = _cos(feats, feats.chars, 1, 2)
    assert stems > 0.0 and stems > _cos(feats, feats.chars, 1, 3)


def test_a_set_whose_grams_are_each_in_one_record_falls_back_to_words():
    # every gram in a single record (min_df 2 drops them all): the character view is the words'
    feats = priority.fit([(1, "xyzzy"), (2, "quokka")])
    assert feats is not None and feats.chars is feats.words


def test_record_text_keeps_the_title_on_its_own_line():
    assert priority.record_text({"title": "Aspirin\n  for stroke ", "abstract": " A trial. "}) == (
        "Aspirin for stroke\nA trial."
    )
    text = priority.record_text({"title": "Aspirin for stroke", "abstract": "A trial."})
    assert priority.title_of(text) == "Aspirin for stroke"
    # no abstract: the text is the title; no title: the first line is empty, the abstract is not a title
    assert priority.record_text({"title": "Aspirin", "abstract": None}) == "Aspirin"
    assert priority.title_of(priority.record_text({"title": "", "abstract": "A trial."})) == ""
    assert priority.record_text({"title": " ", "abstract": ""}) == ""
    assert priority.record_text({"title": ["not", "text"], "abstract": "A trial."}) == ""


def test_a_title_word_is_a_feature_apart_from_the_same_word_in_the_abstract():
    # records 1 and 2 hold the same words; only which of them is the title differs
    texts = [
        (1, "aspirin\nstroke prevention trial"),
        (2, "stroke\naspirin prevention trial"),
        (3, "metformin\nglucose control trial"),
        (4, "insulin\nglucose control cohort"),
    ]
    feats = priority.fit(texts)
    assert feats is not None
    assert abs(_cos(feats, feats.words, 1, 2) - 1.0) < 1e-6  # the same words (their bigrams differ)
    assert _cos(feats, feats.titled, 1, 2) < _cos(feats, feats.matrix, 1, 2)
    assert feats.titled.shape[0] == 4 and feats.titled.shape[1] > feats.matrix.shape[1]
    # rows L2-normalised again
    assert all(abs(_cos(feats, feats.titled, k, k) - 1.0) < 1e-5 for k in feats.row)


def test_a_set_without_title_words_ranks_on_the_whole_text():
    feats = priority.fit([(1, "\nstroke prevention trial"), (2, "\nglucose control trial")])
    assert feats is not None and feats.titled is feats.matrix


def _cos(feats: priority.Features, m, a: int, b: int) -> float:
    """Cosine of records ``a`` and ``b`` (keys) in one of ``feats``' views (rows L2-normalised)."""
    return float((m[feats.row[a]] @ m[feats.row[b]].T).toarray()[0, 0])
