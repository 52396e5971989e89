"""Screening a review set: decisions and their reconciliation (:mod:`.decisions`, recorded by
``review_screen`` in :mod:`.deciding`), priority ranking (:mod:`.priority`, run over a set by
:mod:`.ranking`), the stopping estimate (:mod:`.stopping`, with the advice of the knee (:mod:`.knee`)
confirmed in :mod:`.stopping_advice`, and the random sample for the guarantee in
:mod:`.stopping_sample`) and retrieval of the includes' full texts (``review_retrieve``,
:mod:`.retrieval`)."""
