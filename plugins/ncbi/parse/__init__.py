"""Pure readers of NCBI answers (no I/O): E-utilities (``eutils``, ``elink``, ``citmatch``,
``mesh``, ``einfo``), the PMC ID Converter (``idconv``) and PubMed XML (``pubmed`` into the
records of ``pubmed_records``); ``body`` holds what they all share."""
