"""NCBI provider plugin: E-utilities, PubMed research tools, the PMC full-text tier."""
