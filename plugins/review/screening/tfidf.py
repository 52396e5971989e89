"""TF-IDF rows kept as what they are computed from, and computed a block of rows at a time.

Why: the priority model's four views of a set (:mod:`.priority`'s ``Features``) held as float
matrices took 1.8 GiB at 100,000 records (issue 50), most of it the character grams, and two of
the views are the others re-weighted (the titled 1-2 grams, the single words). Kept here instead:
each term's count in a record packed with its column in four bytes (sublinear TF-IDF is
``(1 + log count) * idf``, rows L2-normalised: a count and the column's idf give the weight), and the derived views as recipes over
the counted one. A row is computed by the same operations, in the same order, as scikit-learn's
``TfidfTransformer`` and ``normalize`` compute it over the whole matrix (each is row by row): the
same float32 values, the same column order in each row, so the model's answers do not change.

Every view takes a row index (an int, a slice, an array of rows) and gives a ``csr_matrix``; only
the rows asked for are ever made: a ranking asks for the training rows, then for the whole set one
block at a time (``priority.BLOCK``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Union

if TYPE_CHECKING:
    import numpy as np
    from scipy.sparse import csr_matrix

Index = Union[int, slice, "np.ndarray", list[int]]
View = Union["csr_matrix", "Counted", "Titled", "Selected"]


def _positions(indptr: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The stored values' positions of ``rows`` (in their order) and the rows' new pointers."""
    import numpy as np

    starts, ends = indptr[rows], indptr[rows + 1]
    lengths = ends - starts
    new = np.zeros(len(rows) + 1, np.int64)
    np.cumsum(lengths, out=new[1:])
    # position of each value: its row's start plus its offset within the row
    offsets = np.arange(new[-1], dtype=np.int64) - np.repeat(new[:-1], lengths)
    return np.repeat(starts, lengths) + offsets, new


def _rows_of(index: Index, total: int) -> np.ndarray:
    import numpy as np

    if isinstance(index, slice):
        return np.arange(total, dtype=np.int64)[index]
    if isinstance(index, (int, np.integer)):
        return np.array([index if index >= 0 else total + index], dtype=np.int64)
    return np.asarray(index, dtype=np.int64)


def packing(columns: int) -> type[np.unsignedinteger]:
    """The integer type a column and a count are packed in (see :class:`Counted`)."""
    import numpy as np

    return np.uint32 if columns < 2**24 else np.uint64


def pack(columns: np.ndarray, counts: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``column << 8 | min(count, 255)`` for each value (counts: float32 whole numbers)."""
    import numpy as np

    out: np.ndarray = columns.astype(dtype) << 8
    out |= np.minimum(counts, 255).astype(dtype)
    return out


def unpack(packed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each packed value's column (int32) and count (255 for one kept apart: see :class:`Counted`)."""
    import numpy as np

    return (packed >> 8).astype(np.int32), packed & 0xFF


def _sublinear(counts: np.ndarray) -> np.ndarray:
    """``1 + log(count)`` in float32, in TfidfTransformer's operations (log, then + 1)."""
    import numpy as np

    out = counts.astype(np.float32)
    np.log(out, out=out)
    out += 1.0
    return out


@functools.cache
def _sublinear_table() -> np.ndarray:
    """:func:`_sublinear` of every count a byte holds (0 is never stored: its entry is unused).

    Why a table: a ranking weighs every stored value of the set (170 million at 100,000 records),
    and a look-up costs half of a logarithm and an addition; each entry is the value they give."""
    import numpy as np

    with np.errstate(divide="ignore"):
        return _sublinear(np.arange(256))


@dataclass(eq=False)  # (arrays: a view is itself, not equal to another)
class Counted:
    """Sublinear TF-IDF rows (L2-normalised, float32) kept as their counts: four bytes a stored
    value, its column and its count in one number (``column << 8 | count``: a count over 255 is kept
    apart, exactly), and the columns' idf.

    Why one number: the column and the count apart took five bytes a value, and a set of 100,000
    records holds 170 million of them (the character grams most): 160 MiB more. Four bytes hold a
    column below 2**24 (16.7 million terms); a vocabulary larger than that is kept in eight."""

    packed: np.ndarray  # column << 8 | min(count, 255): uint32 (uint64 from 2**24 columns)
    indptr: np.ndarray  # int64
    idf: np.ndarray  # float32, one a column
    big_at: np.ndarray  # positions (sorted) whose count is over 255
    big: np.ndarray  # their counts (float32)

    @classmethod
    def joined(cls, blocks: list[csr_matrix], idf: np.ndarray) -> Counted:
        """From a count matrix's blocks of rows (float32 whole numbers), taken from ``blocks`` one at a
        time as they are written into arrays allocated once: a block's floats are let go as soon as
        its counts are kept, never the whole matrix held twice."""
        import numpy as np

        total = sum(b.nnz for b in blocks)
        packed = np.empty(total, packing(len(idf)))
        indptr = np.zeros(sum(b.shape[0] for b in blocks) + 1, np.int64)
        big_at: list[np.ndarray] = [np.zeros(0, np.int64)]
        big: list[np.ndarray] = [np.zeros(0, np.float32)]
        at = row = 0
        blocks.reverse()  # (popped from the end: the first block first)
        while blocks:
            part = blocks.pop()
            n, rows = part.nnz, part.shape[0]
            packed[at : at + n] = pack(part.indices, part.data, packed.dtype)
            over = np.flatnonzero(part.data > 255)
            big_at.append(over + at)
            big.append(part.data[over].astype(np.float32))
            indptr[row + 1 : row + rows + 1] = part.indptr[1:] + at
            at, row = at + n, row + rows
            del part
        return cls(
            packed,
            indptr,
            idf.astype(np.float32, copy=False),
            np.concatenate(big_at),
            np.concatenate(big),
        )

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.indptr) - 1, len(self.idf))

    @property
    def nbytes(self) -> int:
        arrays = (self.packed, self.indptr, self.idf, self.big_at, self.big)
        return int(sum(a.nbytes for a in arrays))

    @property
    def nnz(self) -> int:
        return len(self.packed)

    def __getitem__(self, index: Index) -> csr_matrix:
        import numpy as np
        from scipy.sparse import csr_matrix
        from sklearn.preprocessing import normalize

        rows = _rows_of(index, self.shape[0])
        # the weights as TfidfTransformer makes them: log, + 1 (read from a table of the counts up
        # to 255: the same float32 values), times the idf, then L2 rows
        if isinstance(index, slice) and index.step in (None, 1) and len(rows):
            # a run of rows (a block of a ranking): its values are a run too, read as views
            lo, hi = int(self.indptr[rows[0]]), int(self.indptr[rows[-1] + 1])
            indptr = self.indptr[rows[0] : rows[-1] + 2] - lo
            columns, counts = unpack(self.packed[lo:hi])
            data = _sublinear_table()[counts]
            first, last = np.searchsorted(self.big_at, [lo, hi])
            data[self.big_at[first:last] - lo] = _sublinear(self.big[first:last])
        else:
            at, indptr = _positions(self.indptr, rows)
            columns, counts = unpack(self.packed[at])
            data = _sublinear_table()[counts]
            if len(self.big_at):
                where = np.searchsorted(self.big_at, at)
                hit = (where < len(self.big_at)) & (
                    self.big_at[np.minimum(where, len(self.big_at) - 1)] == at
                )
                data[hit] = _sublinear(self.big[where[hit]])
        data *= self.idf[columns]
        out = csr_matrix(
            (data, columns, indptr.astype(np.int32)), shape=(len(rows), self.shape[1]), copy=False
        )
        normalized: csr_matrix = normalize(out, copy=False)
        return normalized


@dataclass(eq=False)  # (arrays: a view is itself, not equal to another)
class Titled:
    """A view with a second one's columns beside it (the titles' own 1-2 grams), rows L2-normalised
    again: ``normalize(hstack([whole, own]))``, made a block of rows at a time."""

    whole: View
    own: csr_matrix

    @property
    def shape(self) -> tuple[int, int]:
        return (self.whole.shape[0], self.whole.shape[1] + self.own.shape[1])

    def __getitem__(self, index: Index) -> csr_matrix:
        from scipy.sparse import hstack
        from sklearn.preprocessing import normalize

        rows = _rows_of(index, self.shape[0])
        out: csr_matrix = normalize(hstack([self.whole[rows], self.own[rows]], format="csr"), copy=False)
        return out


@dataclass(eq=False)  # (arrays: a view is itself, not equal to another)
class Selected:
    """Some of a view's columns (the single words of the 1-2 grams), rows L2-normalised again:
    ``normalize(view[:, columns])``, made a block of rows at a time."""

    whole: View
    columns: np.ndarray

    @property
    def shape(self) -> tuple[int, int]:
        return (self.whole.shape[0], len(self.columns))

    def __getitem__(self, index: Index) -> csr_matrix:
        from sklearn.preprocessing import normalize

        rows = _rows_of(index, self.shape[0])
        out: csr_matrix = normalize(self.whole[rows][:, self.columns]).tocsr()
        return out


def nbytes(view: View) -> int:
    """The memory a view holds of its own (a recipe: only what it adds to the views it reads)."""
    if isinstance(view, Counted):
        return view.nbytes
    if isinstance(view, Titled):
        return int(view.own.data.nbytes + view.own.indices.nbytes + view.own.indptr.nbytes)
    if isinstance(view, Selected):
        return int(view.columns.nbytes)
    return int(view.data.nbytes + view.indices.nbytes + view.indptr.nbytes)
