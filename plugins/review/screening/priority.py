"""Priority screening's ranking model: which undecided records of a set are most likely to be
included, learned from the set's title/abstract decisions (active learning, as ASReview LAB,
Rayyan and EPPI-Reviewer do it).

Features: TF-IDF over each record's title and abstract: word 1-2 grams (beside them, the title's
own 1-2 grams, so a word in the title is a feature apart from the same word in the abstract), the
same single words alone (re-normalised), and each word's character 3-5 grams (sublinear term
frequency all), fitted on the whole set and cached in this process per set *content* (a digest of
every record's key and text), so a batch of new decisions re-ranks without re-reading the words,
and any change of the records (a new import, a merged record) fits again: in the background as soon
as the import or merge is done (``ranking.warm``), so the first priority page of a large set finds
them fitted. Counted a block of records at a time (:mod:`.counting`), kept compact (:mod:`.tfidf`:
each weight as its count, packed with its column in four bytes, the derived views as recipes;
:mod:`.vocabulary`: 12 bytes a term) and used a block of rows at a time (``BLOCK``), so a set's
memory grows with its records' words, not with copies: 100,000 records hold 0.7 GiB, and a fit or
a ranking adds a block's rows (issue 50).

Model, once at least one include and one exclude are known: four linear SVMs (C=0.11, the includes
weighted up as ASReview LAB 3's default model weights them: a few includes among thousands), their
decision values rank-averaged. Two are trained on the decisions: one over the 1-2 grams with the
titles' beside them (ASReview's own model, the titles added) and one over the character grams,
which match records that share word parts but no word (enalapril and captopril, a plural, a British
spelling) and so generalise from a few includes where whole words are too sparse. Two are trained
on the decisions plus presumed excludes (a seeded random 100 of the lower half of the first
model's ranking: the continuous active learning practice of Cormack & Grossman, drawn from the half
an include is least likely to be in), which shows the model what a typical record of the set looks
like: one over the 1-2 grams with the titles', one over the single words. In screening's tail (no
include among the last 30 records screened) the 1-2 gram SVM on the decisions alone counts three
times: it finds the last, atypical includes sooner than the other views do.

Until an include and an exclude are known, the records are ranked by TF-IDF cosine similarity to
what the review is about: its queries (field tags, boolean operators, quotes and wildcards
stripped) and the ``criteria`` a caller states. A set that offers neither (no decisions of both
kinds and no query or criteria words in its vocabulary), or no title/abstract text at all, is not
ranked: :class:`Ranking` says why. A record without title/abstract text is neither trained on nor
scored: it comes after the scored records until screening's tail and first in it (see :func:`rank`).

Deterministic: training rows in key order, fixed ``random_state``, the presumed excludes' draw
seeded by the number of decisions, ties broken by key; so the same decisions rank the same way
whatever order (or replica) they arrived in, save for the tail's weighting, which follows the
stored order of screening (the same on every replica).
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from . import counting, tfidf
from .tfidf import Counted, Selected, Titled, View
from .vocabulary import Vocabulary

if TYPE_CHECKING:
    import numpy as np
    from scipy.sparse import csr_matrix

Method = Literal["classifier", "similarity", "none"]
INCLUDE_RATIO = 9.8  # the includes' weight (see _weights): ASReview LAB 3's tuned value
SVM_C = 0.11  # ASReview LAB 3's default SVM's regularisation
PRESUMED_EXCLUDES = 100  # undecided records a model is also trained on as excludes (see _fit)
TAIL_RECORDS = 30  # screening's tail: no include among this many last screened (see in_tail)
TAIL_WEIGHT = 3  # the 1-2 gram SVM on the decisions alone, in the tail (see _fit)
TITLE_WEIGHT = 0.3  # the titles' own 1-2 grams beside the whole text's (see _titled)
# Feature sets kept in this process, the least recently used dropped first: at most this many
# sets, and at most this many records over them all, the newest set always kept (100,000 records
# with 2.7 million terms hold 923 MiB of features, 41 MiB of vocabulary: docs/benchmarks.md issue 50).
CACHE_SETS = 8
CACHE_RECORDS = 100_000
# Rows a step of the work handles at a time (the terms' counting, the character grams' product, the
# SVMs' decision values): each step's temporary copies are of this many records, not of the whole
# set (at 8,192 a block of character grams at 100,000 records made ~0.4 GiB of them: issue 50).
BLOCK = 2_048


@dataclass(frozen=True)
class Ranking:
    """The undecided records, most likely include first, with their scores (0-1; ``None`` when not
    ranked, and for a record without title/abstract text), how they were ranked and, when not by a
    classifier or when records without text are among them, why."""

    keys: list[int]
    scores: list[float | None]
    method: Method
    includes: int  # the title/abstract includes the classifier learned from
    excludes: int
    notice: str | None = None


@dataclass
class Features:
    keys: list[int]
    row: dict[int, int]  # key -> row of the matrix
    # the views, each a row index away from a csr_matrix, kept as counts and recipes (.tfidf)
    matrix: View  # TF-IDF over word 1-2 grams, rows L2-normalised
    titled: View  # the same, the titles' own 1-2 grams beside them (see _titled)
    words: View  # the same, single words only, rows re-normalised
    chars: View  # TF-IDF over each word's character 3-5 grams (see _char_grams)
    vocabulary: Vocabulary  # the 1-2 grams' (see _similarity)
    has_text: list[bool]
    content: str = ""  # the digest of the texts fitted (see digest; set when cached by features)


_CACHE: OrderedDict[str, Features] = OrderedDict()
_WATCH = threading.local()  # this thread's step watcher (see watched)
_FITTING: dict[str, threading.Event] = {}  # content digests being fitted now (see features)
_LOCK = threading.Lock()

# Query syntax that is no word of the topic: PubMed field tags ([tiab], [MeSH Terms]), Europe PMC
# and Ovid field prefixes (TITLE:, ab.), date ranges, boolean operators, quotes, wildcards.
_TAGS = re.compile(r"\[[^\]]*\]")
_PREFIX = re.compile(r"\b[A-Z_]{2,}:")
_OVID = re.compile(r"\.(?:ti|ab|kw|mp|sh|pt|tw|af)\b\.?", re.IGNORECASE)
_SYNTAX = re.compile(r"[*?\"'()${}<>=#~^]|\b\d{4}(?:[/:-]\d{1,4})*\b|\b(?:AND|OR|NOT|NEAR\d*|ADJ\d*)\b")


class Stopped(Exception):
    """Raised at a step of a ranking whose watcher says stop (see :func:`watched`)."""


def watched(watcher: Callable[[str], None] | None) -> None:
    """Have this thread's rankings call ``watcher(step)`` after each step of their work (the
    features' three parts, each SVM), which may raise :class:`Stopped` to abandon the ranking.

    Why: a ranking of a large set takes tens of seconds in a worker thread, and a thread cannot be
    stopped from outside; a ranking a newer decision made stale, or one running at shutdown, stops
    at its next step instead of running to its end. The ranking job (``sets.rankings``) also
    reads its progress from these steps."""
    _WATCH.fn = watcher


def _step(name: str) -> None:
    fn = getattr(_WATCH, "fn", None)
    if fn is not None:
        fn(name)


def topic_text(queries: Iterable[str], criteria: str | None = None) -> str:
    """The words a review is about: its queries without their syntax, and its stated criteria."""
    parts = []
    for q in queries:
        q = _TAGS.sub(" ", q)
        q = _PREFIX.sub(" ", q)
        q = _OVID.sub(" ", q)
        parts.append(_SYNTAX.sub(" ", q))
    if criteria:
        parts.append(criteria)
    return " ".join(" ".join(parts).split())


def record_text(data: Mapping[str, object]) -> str:
    """A record's title and abstract, the title on the first line (its own line breaks joined), so
    the features can read the title apart (see :func:`fit`); empty when it has neither."""
    title = data.get("title") or ""
    abstract = data.get("abstract") or ""
    if not isinstance(title, str) or not isinstance(abstract, str):
        return ""
    title, abstract = " ".join(title.split()), abstract.strip()
    return f"{title}\n{abstract}" if abstract else title


def title_of(text: str) -> str:
    """The title in a :func:`record_text` (its first line; the whole text when it has one line)."""
    return text.partition("\n")[0]


def digest(texts: Sequence[tuple[int, str]]) -> str:
    h = hashlib.blake2b(digest_size=20)
    for key, text in texts:
        h.update(f"{key}\x1f{text}\x1e".encode())
    return h.hexdigest()


def features(texts: Sequence[tuple[int, str]]) -> Features | None:
    """The set's TF-IDF matrix (cached by content); ``None`` when no record has any text.

    A fit already under way for the same content (the background warming after an import, or a
    second caller) is waited for, not repeated: on a large set it is most of a first ranking's
    time, and two at once would each take twice as long on a small machine."""
    if not any(t for _, t in texts):
        return None
    key = digest(texts)
    while True:
        with _LOCK:
            hit = _CACHE.get(key)
            if hit is not None:
                _CACHE.move_to_end(key)
                return hit
            running = _FITTING.get(key)
            if running is None:
                done = _FITTING[key] = threading.Event()
                break
        running.wait()  # then the cache holds it; or that fit found no vocabulary, and this one tries
    try:
        out = fit(texts)
        if out is not None:
            out.content = key
            with _LOCK:
                _CACHE[key] = out
                held = sum(len(f.keys) for f in _CACHE.values())
                while len(_CACHE) > 1 and (len(_CACHE) > CACHE_SETS or held > CACHE_RECORDS):
                    held -= len(_CACHE.popitem(last=False)[1].keys)
        return out
    finally:
        with _LOCK:
            _FITTING.pop(key, None)
        done.set()


def held_bytes(feats: Features) -> dict[str, int]:
    """What a set's features hold: the sparse matrices' bytes (each once), the vocabulary's and its
    number of terms (the benchmarks' and tests' measure)."""
    views = {id(m): m for m in (feats.matrix, feats.titled, feats.words, feats.chars)}
    matrices = sum(tfidf.nbytes(m) for m in views.values())
    return {"matrices": matrices, "vocabulary": feats.vocabulary.nbytes, "terms": len(feats.vocabulary)}


def cached(texts: Sequence[tuple[int, str]]) -> bool:
    """Whether this content's features are in this process's cache (a ranking would not fit them)."""
    with _LOCK:
        return digest(texts) in _CACHE


def fitted(content: str) -> Features | None:
    """The features cached for a content (a :func:`digest`), if this process still holds them: a
    ranking of records known unchanged needs neither their texts nor a fit."""
    with _LOCK:
        hit = _CACHE.get(content)
        if hit is not None:
            _CACHE.move_to_end(content)
        return hit


def fit(texts: Sequence[tuple[int, str]]) -> Features | None:
    """Fit the TF-IDF features of ``texts`` (uncached); ``None`` when the vocabulary is empty.

    (``TfidfVectorizer``'s own steps, counted a block of records at a time (:mod:`.counting`) and
    its counts kept (:mod:`.tfidf`): the same features as the vectorizer's.)"""
    import numpy as np

    analyze = _analyzer(ngram_range=(1, 2))
    counts = counting.count([t for _, t in texts], analyze, BLOCK, max_df=0.95)
    if counts is None:  # an empty vocabulary (only stop words or numbers): nothing to rank by
        return None
    idf = counting.idf_of(counts)
    matrix = Counted.joined(counts.blocks, idf)
    _step("words")
    keys = [k for k, _ in texts]
    single = np.array([i for i, term in enumerate(counts.names) if " " not in term], dtype=np.int64)
    # (a set whose every single word is too common for max_df keeps only bigrams: use those)
    words: View = Selected(matrix, single) if len(single) else matrix
    vocabulary = Vocabulary.of(counts.names, idf, analyze)
    del counts  # (its terms, let go before the character grams are counted)
    chars = _char_grams([t for _, t in texts])
    _step("chars")
    titled = _titled(matrix, [title_of(t) for _, t in texts])
    _step("titled")
    return Features(
        keys,
        {k: i for i, k in enumerate(keys)},
        matrix,
        titled,
        words,
        words if chars is None else chars,
        vocabulary,
        [bool(t) for _, t in texts],
    )


def _analyzer(**options: object) -> counting.Analyzer:
    """The analyzer of a ``CountVectorizer`` with the model's options (accents stripped) and ``options``."""
    from sklearn.feature_extraction.text import CountVectorizer

    analyze: counting.Analyzer = CountVectorizer(strip_accents="unicode", **options).build_analyzer()
    return analyze


def _titled(matrix: View, titles: list[str]) -> View:
    """The 1-2 grams with the titles' own 1-2 grams beside them (TF-IDF over the titles alone, as
    much as ``TITLE_WEIGHT`` of the whole; rows L2-normalised again): a word in the title is then a
    feature of its own as well, which an SVM can weigh apart from the same word in the abstract.

    Why: a title says what a study is (the drug, the design, the population) in a dozen words; in
    the abstract the same word may be a comparator or background. Without titles that have words
    (no title, or only stop words and numbers), the 1-2 grams alone."""
    import numpy as np
    from sklearn.feature_extraction.text import TfidfTransformer

    # (TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, strip_accents="unicode", max_df=0.95),
    # its counting a block at a time)
    counts = counting.count(titles, _analyzer(ngram_range=(1, 2)), BLOCK, max_df=0.95)
    if counts is None:  # no title word
        return matrix
    whole = counts.whole()
    del counts
    own = TfidfTransformer(sublinear_tf=True).fit(whole).transform(whole, copy=False).tocsr()
    own.data *= np.float32(TITLE_WEIGHT)
    return Titled(matrix, own)


def _char_grams(texts: list[str]) -> Counted | None:
    """TF-IDF over the character 3-5 grams of each word (padded with a space each side, as
    scikit-learn's ``char_wb`` analyzer pads them; sublinear term frequency, grams in at least two
    records and at most 95% of them, rows L2-normalised); ``None`` when no gram is kept.

    Why: a review's includes share word *parts* their words do not: a drug class's stem
    (enalapril and captopril: -pril; atenolol and metoprolol: -olol), a plural, a British
    spelling. Built as the records' word counts times each distinct word's gram counts, which
    counts the same grams as ``char_wb`` over the words in a third to a quarter of its time (a
    word's grams are cut once, not at every occurrence): 2.3 s for 5,000 records, 6 s for 21,000."""
    import numpy as np

    # counted afresh, not read off the 1-2 gram matrix: that one is weighted, and it drops one-letter
    # words and the commonest, whose grams (" a ", " 5 ", " th") char_wb keeps
    counts = counting.count(texts, _analyzer(token_pattern=r"(?u)\b\w+\b"), BLOCK)
    if counts is None:
        return None
    per_word = _grams_per_word(counts.names)  # in the counts' column order
    blocks = counts.blocks
    del counts  # (its names: every word of the set)
    df, bound = _document_frequency(blocks, per_word)
    records = len(texts)
    kept = (df >= 2) & (df <= 0.95 * records)
    if not kept.any():
        return None
    idf = (np.log((1 + records) / (1 + df)) + 1).astype(np.float32)
    return _kept_counts(blocks, per_word, kept, idf, bound)


def _grams_per_word(words: Sequence[str]) -> csr_matrix:
    """Each word's character 3-5 gram counts (the word padded with a space each side), one row a
    word, in typed arrays (4 bytes a gram: a large set's millions of words give tens of millions)."""
    from array import array
    from collections import Counter

    import numpy as np
    from scipy.sparse import csr_matrix

    gram_of: dict[str, int] = {}
    indptr, indices, values = array("q", [0]), array("i"), array("f")
    for word in words:
        padded = f" {word} "
        cut = Counter(padded[i : i + n] for n in (3, 4, 5) for i in range(len(padded) - n + 1))
        for gram, c in cut.items():
            indices.append(gram_of.setdefault(gram, len(gram_of)))
            values.append(c)
        indptr.append(len(indices))
    return csr_matrix(
        (
            np.frombuffer(values, np.float32),
            np.frombuffer(indices, np.int32),
            np.frombuffer(indptr, np.int64),
        ),
        shape=(len(words), len(gram_of)),
    )


def _document_frequency(blocks: list[csr_matrix], per_word: csr_matrix) -> tuple[np.ndarray, int]:
    """Each gram's number of records, and the records' gram counts' number of stored values, from
    ``counts @ per_word`` (records' word counts times each word's grams: the records' gram counts)
    multiplied a block of records (``blocks``: the word counts' rows) at a time and let go (see
    :func:`_kept_counts`)."""
    import numpy as np

    df = np.zeros(per_word.shape[1], np.int64)
    stored = 0
    for block in blocks:
        part = (block @ per_word).tocsr()
        df += np.bincount(part.indices, minlength=per_word.shape[1])
        stored += part.nnz
        del part
    return df, stored


def _kept_counts(
    blocks: list[csr_matrix], per_word: csr_matrix, kept: np.ndarray, idf: np.ndarray, bound: int
) -> Counted:
    """The records' counts of the ``kept`` grams as one :class:`.tfidf.Counted`, multiplied again a
    block at a time and written straight into arrays of ``bound`` values (allocated once; their
    pages taken only as they are written, so the grams dropped cost nothing).

    Why twice: which grams are kept is known only once every record is counted, and the whole
    product held (scipy's, or its blocks until then) was the fit's largest transient, as large as
    the features (~0.9 GiB at 100,000 records). Each row is multiplied as the whole product
    multiplies it: the same counts, in the same order."""
    import numpy as np

    records = sum(block.shape[0] for block in blocks)
    packed = np.empty(bound, tfidf.packing(per_word.shape[1]))
    lengths = np.empty(records, np.int64)
    big_at: list[np.ndarray] = [np.zeros(0, np.int64)]
    big: list[np.ndarray] = [np.zeros(0, np.float32)]
    at = start = 0
    for block in blocks:
        part = (block @ per_word).tocsr()
        mask = kept[part.indices]
        n = int(mask.sum())
        chosen = part.data[mask]
        packed[at : at + n] = tfidf.pack(part.indices[mask], chosen, packed.dtype)
        over = np.flatnonzero(chosen > 255)  # (kept apart, exactly: see Counted)
        big_at.append(over + at)
        big.append(chosen[over].astype(np.float32))
        rows = part.shape[0]
        owner = np.repeat(np.arange(rows), np.diff(part.indptr))
        lengths[start : start + rows] = np.bincount(owner[mask], minlength=rows)
        at, start = at + n, start + rows
        del part, mask, chosen, owner
    indptr = np.zeros(records + 1, np.int64)
    np.cumsum(lengths, out=indptr[1:])
    return Counted(packed[:at], indptr, idf, np.concatenate(big_at), np.concatenate(big))


def rank(
    texts: Sequence[tuple[int, str]],
    labels: Mapping[int, bool],
    candidates: Sequence[int],
    topic: str = "",
    tail: bool = False,
) -> Ranking:
    """Rank ``candidates`` (record keys) of a set whose records are ``texts`` (key, title +
    abstract), given the reconciled title/abstract ``labels`` (key -> include), the review's
    ``topic`` words (see :func:`topic_text`) and whether screening is in its ``tail`` (see
    :func:`in_tail`)."""
    return ranked(features(texts), labels, candidates, topic, tail)


def ranked(
    feats: Features | None,
    labels: Mapping[int, bool],
    candidates: Sequence[int],
    topic: str = "",
    tail: bool = False,
) -> Ranking:
    """:func:`rank` over a set's fitted features (:func:`features`; ``None``: no record has text)."""
    if feats is None:
        return _no_text(labels, candidates)

    # a record without title/abstract text gives the model no words: it is not trained on (as an
    # include, its all-zero row only raises the intercepts: in simulation BetaBlockers then reached
    # 95% recall at 1,050 records, not 748) and not scored (see the placement below)
    def worded(k: int) -> bool:
        return feats.has_text[feats.row[k]]

    train = sorted(k for k in labels if k in feats.row and worded(k))
    includes = sum(1 for k in train if labels[k])
    excludes = len(train) - includes
    known = [k for k in candidates if k in feats.row]
    cand = [k for k in known if worded(k)]
    textless = sorted(k for k in known if not worded(k))
    rest = sorted(k for k in candidates if k not in feats.row)
    unranked = Ranking(sorted(candidates), [None] * len(candidates), "none", includes, excludes)
    if not cand and not textless:
        return unranked
    scored = _score(feats, labels, train, cand, topic, tail)
    if scored is None:
        missing = "an include and an exclude" if not train else ("an exclude" if includes else "an include")
        return _why(
            unranked,
            f"Cannot rank yet: the model needs {missing} at title_abstract (of records with title/abstract "
            "text), and the set has no query or criteria words to rank by before that. Shown in key "
            "order: screen a few records, or pass criteria (the review's question and eligibility criteria).",
        )
    scores, method, notice = scored
    order = sorted(range(len(cand)), key=lambda i: (-float(scores[i]), cand[i]))
    ranked = [cand[i] for i in order]
    ranked_scores: list[float | None] = [round(float(scores[i]), 4) for i in order]
    if not textless:
        return Ranking(ranked + rest, ranked_scores + [None] * len(rest), method, includes, excludes, notice)
    keys, out_scores, extra = _place_textless(ranked, ranked_scores, textless, tail)
    notice = f"{notice} {extra}" if notice else extra
    return Ranking(keys + rest, out_scores + [None] * len(rest), method, includes, excludes, notice)


def _no_text(labels: Mapping[int, bool], candidates: Sequence[int]) -> Ranking:
    includes = sum(1 for v in labels.values() if v)
    unranked = Ranking(sorted(candidates), [None] * len(candidates), "none", includes, len(labels) - includes)
    return _why(unranked, "The set's records have no title or abstract text to rank by: shown in key order.")


def _score(
    feats: Features,
    labels: Mapping[int, bool],
    train: Sequence[int],
    cand: Sequence[int],
    topic: str,
    tail: bool,
) -> tuple[np.ndarray, Method, str | None] | None:
    """The candidates' scores, the method and its notice: the classifier once an include and an
    exclude are known, else similarity to the topic; ``None`` when neither can rank."""
    import numpy as np

    rows = np.array([feats.row[k] for k in cand], dtype=np.int64)
    includes = sum(1 for k in train if labels[k])
    excludes = len(train) - includes
    if not cand:  # only records without text are left: nothing to rank, the notice says so
        return np.zeros(0), "none", None
    if includes and excludes:
        y = np.array([1 if labels[k] else 0 for k in train])
        train_rows = np.array([feats.row[k] for k in train], dtype=np.int64)
        return _fit(feats, train_rows, y, rows, tail), "classifier", None
    scores = _similarity(feats, topic, rows)
    if scores is None:
        return None
    notice = (
        "Ranked by similarity to the review's queries"
        + (" and criteria" if topic else "")
        + f" until an include and an exclude are known ({includes} include(s), {excludes} exclude(s) so far)."
    )
    return scores, "similarity", notice


def _place_textless(
    ranked: list[int], ranked_scores: list[float | None], textless: list[int], tail: bool
) -> tuple[list[int], list[float | None], str]:
    """Where the records without text go among the ranked ones, and the notice saying so."""
    # Records without text come after the scored ones until screening's tail, and first in it: while
    # the model finds includes, its next records are likelier includes than one picked blind; in the
    # tail (no include among the last 30 screened) they are not, and a record without text is as
    # likely an include as any record of the set (3.2% of 347 such records in ten of Cohen's reviews
    # were includes, beside 3.9% of all their records). Scored as an empty text (where the intercepts
    # put them, as ASReview does, and this model before), they came late, holding the stop (which
    # waits for them) and, where one was an include, 95% recall: CalciumChannelBlockers' four such
    # includes came after record 1,000 of 1,218, and its 95% recall at 788 records, now 532.
    blind: list[float | None] = [None] * len(textless)
    if not ranked:
        keys, out_scores = textless, blind
        where = "no record with text is left to rank them among"
    elif tail:
        keys, out_scores = textless + ranked, blind + ranked_scores
        where = (
            f"listed first: screening is in its tail (no include among the last {TAIL_RECORDS} "
            "screened), where one of them is as likely an include as any record, likelier than the "
            "model's next ones"
        )
    else:
        keys, out_scores = ranked + textless, ranked_scores + blind
        where = (
            "listed after the scored records until screening reaches its tail (no include among the "
            f"last {TAIL_RECORDS} screened), then first"
        )
    extra = (
        f"{len(textless)} record(s) without title/abstract text: nothing for the model to judge them by, so not "
        f"scored; {where}. Look each up (pubmed_fetch_articles by its PMID) before deciding; safeToStop waits "
        "until every one is decided."
    )
    return keys, out_scores, extra


def _why(r: Ranking, notice: str) -> Ranking:
    return Ranking(r.keys, r.scores, r.method, r.includes, r.excludes, notice)


def _similarity(feats: Features, topic: str, rows: np.ndarray) -> np.ndarray | None:
    """Cosine similarity of each candidate to the topic words (rows are L2-normalised), or None
    when the topic shares no term with the set."""
    if not topic.strip():
        return None
    q = feats.vocabulary.transform(topic)
    if q.nnz == 0:
        return None
    import numpy as np

    # (the whole set times the topic, a block of rows at a time, then the candidates' rows)
    total = feats.matrix.shape[0]
    blocks = [(feats.matrix[i : i + BLOCK] @ q.T).toarray().ravel() for i in range(0, total, BLOCK)]
    out: np.ndarray = np.concatenate(blocks)[rows]
    return out


def in_tail(screened: Sequence[bool]) -> bool:
    """Whether screening is in its tail, given the screened records' include flags in the order
    they were screened: more than ``TAIL_RECORDS`` + 2 screened (the two a review starts from) and
    no include among the last ``TAIL_RECORDS``."""
    return len(screened) > TAIL_RECORDS + 2 and not any(screened[-TAIL_RECORDS:])


def _fit(
    feats: Features, train: np.ndarray, y: np.ndarray, candidates: np.ndarray, tail: bool = False
) -> np.ndarray:
    """Scores of inclusion (0-1) for the ``candidates`` (matrix rows, in key order), learned from
    the ``train`` rows' labels ``y``: the weighted rank average of four linear SVMs: 1-2 grams (the
    titles' own beside them, see :func:`_titled`) and character grams trained on the decisions
    alone, the same 1-2 grams and single words on the decisions plus presumed excludes; in
    screening's ``tail`` the first of them (ASReview's own model, the titles added) counts
    ``TAIL_WEIGHT`` times. Over 17 reviews the views reach 90% recall as soon as that SVM alone or
    sooner (measured with single words where the character grams are now); where they lose to it,
    they lose between 90% and 95%, on the last includes, the ones least like those already known.
    Weighted up once a run of excludes says the includes like the known ones are found, it wins
    more reviews than either.

    Chosen by simulation on 17 labelled reviews against ASReview LAB 3's default model retrained
    after every record (docs/benchmarks.md, issue 34); the titles' own 1-2 grams were added later,
    at 0.3 of the whole (at 0.5 two of the corpus's reviews fell behind; as a fifth SVM of their
    own, Appenzeller-Herzog 2020 took twice as long). Each of these was behind on more of the
    reviews, or further behind on one: two SVMs on the 1-2 grams (C=0.02 and 0.11), a single SVM,
    single words in both places (the model before 2026-12-04), character grams in both places, or
    in the presumed-excludes place, or beside single words in both, a latent semantic (SVD) view,
    presumed excludes drawn from every undecided record, and naive Bayes, logistic regression and
    nearest-include ensembles."""
    import numpy as np

    w = _weights(y, INCLUDE_RATIO)
    first = _svm(feats.titled[train], y, w, feats.titled, candidates)
    weight = TAIL_WEIGHT if tail else 1
    total = weight * first + _svm(feats.chars[train], y, w, feats.chars, candidates)
    # presumed excludes: a random draw from the lower half of the first ranking (key order breaks
    # ties), seeded by the number of decisions so every replica draws the same records
    lower = candidates[np.lexsort((candidates, first))][: max(1, len(candidates) // 2)]
    rng = np.random.default_rng(len(train))
    presumed = rng.choice(lower, size=min(PRESUMED_EXCLUDES, len(lower)), replace=False)
    rows = np.concatenate([train, presumed])
    yy = np.concatenate([y, np.zeros(len(presumed), dtype=y.dtype)])
    ww = _weights(yy, INCLUDE_RATIO)
    for view in (feats.titled, feats.words):
        total += _svm(view[rows], yy, ww, view, candidates)
    out: np.ndarray = total / ((3 + weight) * max(len(candidates), 1))
    return out


def _svm(x: csr_matrix, y: np.ndarray, w: np.ndarray, view: csr_matrix, candidates: np.ndarray) -> np.ndarray:
    """A linear SVM's decision values for the ``candidates`` (rows of ``view``), as ranks (1 = least
    likely include).

    The values are computed over ``view`` ``BLOCK`` rows at a time and the candidates' picked from
    them: the candidates' rows taken out (most of the set) would copy most of the matrix, and the
    product casts the rows it is given to float64, another copy twice their size; a block's copies
    are small. Each row's value is the one the whole product gives."""
    import numpy as np
    from scipy.stats import rankdata
    from sklearn.svm import LinearSVC

    svm = LinearSVC(C=SVM_C, random_state=0).fit(x, y, sample_weight=w)
    values = np.concatenate(
        [svm.decision_function(view[start : start + BLOCK]) for start in range(0, view.shape[0], BLOCK)]
    )
    out: np.ndarray = rankdata(values[candidates])
    _step("svm")
    return out


def _weights(y: np.ndarray, ratio: float) -> np.ndarray:
    """Sample weights making one include count ``ratio`` times as much as the excludes' per-record
    share would give (ASReview's "balanced" sampler: weight 1 for includes, n1 / (ratio * n0) for
    excludes), normalised to mean 1."""
    import numpy as np

    n1, n0 = int(y.sum()), int(len(y) - y.sum())
    w = np.where(y == 1, 1.0, n1 / (ratio * n0))
    out: np.ndarray = w * (len(y) / w.sum())
    return out
