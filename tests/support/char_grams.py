"""scikit-learn's own character-gram TF-IDF, configured as the priority model's character view
says it is (char_wb 3-5 grams, sublinear tf, accents stripped, min_df 2, max_df 0.95, words only):
the reference the model's own counting is compared with."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any


def reference_char_grams(texts: Sequence[str]) -> Any:
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer

    return TfidfVectorizer(
        analyzer="char_wb",
        ngram_range=(3, 5),
        sublinear_tf=True,
        strip_accents="unicode",
        min_df=2,
        max_df=0.95,
        preprocessor=lambda t: " ".join(re.findall(r"(?u)\b\w+\b", t.lower())),
        dtype=np.float32,
    ).fit_transform(texts)
