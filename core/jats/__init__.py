"""Reading JATS, the XML of PMC and of many publishers' full text: :mod:`.reader` turns documents
into :mod:`.models` records (sections, tables, assets, references). Plugins reach both through
:mod:`medlit.core.plugin.markup` (``read_jats``, ``FulltextArticle``); the reader imports lxml on first use."""
