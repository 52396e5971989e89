"""Screening a review set: decisions and their reconciliation (:mod:`.decisions`, recorded by
``review_screen`` in :mod:`.deciding`), priority ranking (:mod:`.priority`, run over a set by
:mod:`.ranking`), the stopping estimate (:mod:`.stopping`) and retrieval of the includes' full
texts (``review_retrieve``, :mod:`.retrieval`)."""
