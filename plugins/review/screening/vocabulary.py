"""A set's fitted TF-IDF vocabulary, kept in 12 bytes a term: what the priority model needs of it
after the fit is to weigh a text it did not see (the review's topic words) as the fit weighed the
set's records.

Why: scikit-learn's vectorizer keeps its vocabulary as a dict of strings, about 85 bytes a term; a
set of 100,000 records holds millions of 1-2 grams (2.7 million, 222 MiB, in the issue-50
benchmark), kept in memory as long as the set's features. Here each term is a 64-bit hash (Python's
string hash: the features live in this process only) in a sorted array beside its column: a text's
terms are looked up by binary search. A topic word outside the vocabulary taken for one inside it
needs two 64-bit hashes to agree (about one chance in 10^13 per word for a vocabulary of millions).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from scipy.sparse import csr_matrix


@dataclass(frozen=True)
class Vocabulary:
    hashes: np.ndarray  # the terms' hashes, sorted (int64)
    columns: np.ndarray  # each hash's column in the features (int32)
    idf: np.ndarray  # each column's inverse document frequency, as the vectorizer has it
    analyze: Callable[[str], Iterable[str]]  # the fit's analyzer (a vectorizer's: tokens, accents, n-grams)

    @classmethod
    def of(cls, names: Sequence[str], idf: np.ndarray, analyze: Callable[[str], Iterable[str]]) -> Vocabulary:
        """The fitted terms (``names``, in column order) with their columns' ``idf``, and the
        analyzer that cut them (the terms' strings can then be let go)."""
        import numpy as np

        hashes = np.fromiter((hash(t) for t in names), np.int64, len(names))
        order = np.argsort(hashes, kind="stable")
        return cls(hashes[order], order.astype(np.int32), idf, analyze)

    def __len__(self) -> int:
        return len(self.hashes)

    @property
    def nbytes(self) -> int:
        return int(self.hashes.nbytes + self.columns.nbytes + self.idf.nbytes)

    def transform(self, text: str) -> csr_matrix:
        """``text`` as one row of TF-IDF weights, as the fitted vectorizer's ``transform`` gives it:
        the terms counted (those outside the vocabulary dropped), sublinear term frequency, times
        the idf, L2-normalised; float32, columns sorted."""
        import numpy as np
        from scipy.sparse import csr_matrix
        from sklearn.preprocessing import normalize

        counts: Counter[int] = Counter()
        for term in self.analyze(text):
            at = int(np.searchsorted(self.hashes, hash(term)))
            if at < len(self.hashes) and self.hashes[at] == hash(term):
                counts[int(self.columns[at])] += 1
        cols = np.array(sorted(counts), dtype=np.int32)
        data = np.array([counts[c] for c in cols], dtype=np.float32)
        row = csr_matrix(
            (data, cols, np.array([0, len(cols)], dtype=np.int32)), shape=(1, len(self.idf)), dtype=np.float32
        )
        np.log(row.data, out=row.data)
        row.data += 1
        row.data *= self.idf[row.indices]
        out: csr_matrix = normalize(row, copy=False)
        return out
