"""Term counts as scikit-learn's ``CountVectorizer.fit_transform`` makes them, counted a block of
documents at a time into typed arrays: the priority model's fit (:mod:`.priority`) counts a set's
1-2 grams, its titles' and its words (for the character grams) with it.

Why: scikit-learn gathers a whole corpus's counts in Python lists (an int object and a pointer,
about 40 bytes, for each stored value) before it makes its matrix, then copies the matrix twice
(the columns kept, then renamed in the terms' order): at 100,000 records the fit peaked half a
gigabyte above what it keeps (issue 50). Here a block's counts become a sparse matrix (8 bytes a
value) as soon as the block is counted, and the columns are chosen and renamed a block at a time.

The same matrix, value for value: the same analyzer, the same vocabulary (terms in more than
``max_df`` of the documents dropped, the columns in the terms' sorted order), the same float32
counts, each row's values in the same order: scikit-learn sorts a row by the order its terms were
first met in the corpus (their first number), keeps the columns, then renames them; so here.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from scipy.sparse import csr_matrix

Analyzer = Callable[[str], Iterable[str]]


@dataclass
class Counts:
    """A corpus's term counts: its rows in blocks, its terms in column order, their frequencies."""

    blocks: list[csr_matrix]  # float32 counts, ``block`` rows each (the last fewer)
    names: list[str]  # the terms in column order (sorted)
    df: np.ndarray  # each column's number of documents (int64)
    documents: int

    def whole(self) -> csr_matrix:
        """The blocks as one matrix (the rows in order, each row's values as counted)."""
        from scipy.sparse import vstack

        out: csr_matrix = vstack(self.blocks, format="csr")
        return out


def count(texts: Sequence[str], analyze: Analyzer, block: int, max_df: float = 1.0) -> Counts | None:
    """``CountVectorizer(analyzer, max_df=max_df, dtype=float32).fit_transform(texts)``, in blocks
    of ``block`` rows; ``None`` where scikit-learn raises (an empty vocabulary, or none kept)."""
    import numpy as np

    # each term's first number, in the order first met (scikit-learn's own defaultdict)
    first: defaultdict[str, int] = defaultdict()
    first.default_factory = first.__len__
    blocks: list[csr_matrix] = []
    df = np.zeros(0, np.int64)
    for start in range(0, len(texts), block):
        part = _counted(texts[start : start + block], analyze, first)
        seen = np.bincount(part.indices, minlength=len(first)).astype(np.int64)
        seen[: len(df)] += df
        df = seen
        blocks.append(part)
    first.default_factory = None
    kept = df <= max_df * len(texts)
    if not first or not kept.any():
        return None
    names = sorted(term for term, at in first.items() if kept[at])
    column = np.full(len(first), -1, np.int64)
    for new, term in enumerate(names):
        column[first[term]] = new
    del first  # (every term met: the dropped ones too)
    for i, part in enumerate(blocks):
        blocks[i] = _renamed(part, column, len(names))
    in_columns = np.empty(len(names), np.int64)
    in_columns[column[kept]] = df[kept]
    return Counts(blocks, names, in_columns, len(texts))


def _counted(texts: Sequence[str], analyze: Analyzer, first: defaultdict[str, int]) -> csr_matrix:
    """A block's counts, columns by the terms' first numbers (new terms numbered here), each row
    sorted by them (as scikit-learn's ``_count_vocab`` leaves its matrix)."""
    from array import array

    import numpy as np
    from scipy.sparse import csr_matrix

    indices, values, indptr = array("i"), array("i"), array("q", [0])
    for text in texts:
        counted = Counter(map(first.__getitem__, analyze(text)))  # (its keys in the order first met)
        indices.extend(counted.keys())
        values.extend(counted.values())
        indptr.append(len(indices))
    part = csr_matrix(
        (
            np.frombuffer(values, np.intc).astype(np.float32),
            np.frombuffer(indices, np.intc).astype(np.int32),
            np.frombuffer(indptr, np.int64),
        ),
        shape=(len(texts), max(len(first), 1)),
    )
    part.sort_indices()
    return part


def _renamed(part: csr_matrix, column: np.ndarray, columns: int) -> csr_matrix:
    """``part`` with its columns renamed (``column``: each first number's column, -1 for a term
    dropped) and the dropped ones left out, each row's values in their order."""
    import numpy as np
    from scipy.sparse import csr_matrix

    new = column[part.indices]
    keep = new >= 0
    rows = part.shape[0]
    if keep.all():
        indptr = part.indptr
    else:
        owner = np.repeat(np.arange(rows), np.diff(part.indptr))
        indptr = np.zeros(rows + 1, np.int64)
        np.cumsum(np.bincount(owner[keep], minlength=rows), out=indptr[1:])
    return csr_matrix(
        (part.data[keep], new[keep].astype(np.int32), indptr), shape=(rows, columns), copy=False
    )


def idf_of(counts: Counts) -> np.ndarray:
    """The columns' inverse document frequencies as ``TfidfTransformer`` (smoothed, float32)
    computes them from the count matrix: ``log((1 + n) / (1 + df)) + 1``, in its operations."""
    import numpy as np

    df = counts.df.astype(np.float32)
    df += 1.0
    idf = np.full_like(df, fill_value=counts.documents + 1, dtype=np.float32)
    idf /= df
    np.log(idf, out=idf)
    idf += 1.0
    out: np.ndarray = idf
    return out
