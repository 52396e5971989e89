"""What a review set reports: the PRISMA 2020 flow (counts in :mod:`.flow` over the sources'
routes in :mod:`.routes`, the diagram in :mod:`.diagram`, ``review_prisma`` in :mod:`.prisma`), the
PRISMA-S search log (:mod:`.search_log`) and the export files (``review_export``,
:mod:`.exporting`, over the writers of :mod:`..exports`)."""
