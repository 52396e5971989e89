"""Which records are one work: identifiers and keys in their matching form (:mod:`.keys`), the
matcher (:mod:`.matching`), the merged record of a duplicate group (:mod:`.merging`), and a
person's rulings on the matcher (``review_merge``, :mod:`.rulings`)."""
