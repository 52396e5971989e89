"""The review set and its runs: the workspace (the store, the jobs running in this process, how
long a call waits), a set's state, its records page by page, and listing, renaming or deleting
sets (``review_sets``)."""
