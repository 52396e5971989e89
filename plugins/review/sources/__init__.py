"""Where a review set's records come from: whole searches of the declared search sources
(``review_search``, :mod:`.search`) and databases' export files (``review_import``,
:mod:`.importing`, stored batch by batch by :mod:`.filejob`; the formats are read by
:mod:`..readers`)."""
