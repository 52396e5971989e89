"""What our own suite shares beyond the test kit (:mod:`medlit.testing`): one module per concern.

- ``environments``: the environment a runtime or a server subprocess gets against the fake
  (``fake_env``, ``server_env``); ``ports``: a free loopback port and waiting for a server on it;
  ``distributions``: a plugin "pip installed" into a folder (``fake_dist``).
- ``fake_upstream``: the kit's fake with our providers' defaults; ``corpus``: the shared corpus of
  recorded real responses (``corpus_use``: which tests reach it, for CI's pass without it); ``*_routes`` / ``*_fakes``: one upstream's routes on the fake
  (``pubmed_fakes``, ``europepmc_routes``, ``crossref_routes``, ``fulltext_routes``,
  ``pubtator_routes``, ``unpaywall_fakes``, ``review_routes``, ``screening_routes``, ``fault_routes``).
- ``review_readers``, ``reference_library``, ``asysd``: generated and recorded inputs for the
  review and reference tests; ``review_stores``, ``redis_server``, ``oauth_issuer``: back-ends a
  test starts (PostgreSQL databases, a Redis process, an OAuth issuer); ``load_http``: the HTTP
  load run of the reliability tests and their benchmark.

Tests import them as ``from support.corpus import corpus_root`` (tests/conftest.py puts tests/ on
``sys.path``); run a module as a script from tests/: ``python -m support.fake_upstream``.
"""
