"""Whether two bibliographic records are the same work, and duplicate groups built from that.

``normalize`` a record's data once into a :class:`Work`; ``block_keys`` says which records to
compare it with; ``compare`` gives a :class:`Verdict` (``conflict`` alone says what rules a
match out; ``titles_agree`` whether two titles are one work's); :class:`Clusterer` groups records incrementally, as the store does batch by batch.
Precision first: no merge on a conflict, and no merge on metadata without a second piece of
evidence beside the title.
"""

from .blocking import MAX_BLOCK, block_keys, usable
from .clusterer import Clusterer
from .decide import Verdict, compare, conflict, titles_agree
from .work import Work, normalize

__all__ = [
    "MAX_BLOCK",
    "Clusterer",
    "Verdict",
    "Work",
    "block_keys",
    "compare",
    "conflict",
    "normalize",
    "titles_agree",
    "usable",
]
