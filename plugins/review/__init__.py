"""The review workspace: whole searches over the search sources plugins declare
(``medlit_search_sources``), deduplicated into named sets in a real store, screened, logged for
PRISMA-S, reported as a PRISMA 2020 flow and exported for reference managers.

Registered through the ``medlit.plugins`` entry point like any plugin (name ``review``, so
``REVIEW_ENABLED=false`` switches it off, and ``MEDLIT_TOOLS=-review_*`` drops its tools). It
declares no service: each source runs under its own plugin's context (``ctx.host``).

Where each concept lives (this module only declares; each tool's module is imported at its first call)::

    models.py        the tools' inputs and outputs
    record.py        one record's fields (RecordData), shared by readers, identity and exports
    sets/            the set and its runs
      workspace.py     the store, the jobs running in this process, how long a call waits, a set by name
      jobs.py          one set's running import (Job) and its progress
      state.py         a set's state (review_search and review_sets answer it)
      paging.py        review_records: pages in key or priority order; one record as answered
      manage.py        review_sets: list, rename, delete
    sources/         where records come from
      search.py        review_search: whole searches run as a job, page by page
      importing.py     review_import: an export file read whole, kept, resumable
      chasing.py       review_chase: citation searching from the includes into the set
      citation_graph.py  seeds, the plan and its cost, the citation indexes asked, their works combined
      filejob.py       an imported file stored batch by batch
      filling.py       what imported records lack (abstract, title) filled by PMID/DOI, marked as filled
    readers/         one reader per export format (RIS, MEDLINE/nbib, EndNote XML, BibTeX, CSL-JSON, CSV, WoS)
    identity/        which records are one work
      keys.py          identifiers and keys in their matching form; a source record as stored
      matching/        the matcher: normalised works, blocking keys, pairwise verdicts, clusters
      merging.py       the merged record of a duplicate group (best of each field)
      placing.py       each arriving record placed in the set (rulings, then the matcher)
      corrections.py   split a wrong merge, join a missed one
      rulings.py       review_merge: the tool over corrections, and the rulings' log
    screening/       screening a set
      decisions.py     the vocabulary and how reviewers are reconciled
      deciding.py      review_screen: decisions recorded
      priority.py      the ranking model (pure)
      stopping.py      the stopping rule: the ranked test, the knee's advice, the sample's verdict (pure)
      knee.py          the knee of the gain curve: the heuristic that the ranked yield has fallen (pure)
      stopping_sample.py  the random sample that gives the stop its guarantee after the knee (pure)
      ranking.py       the model run over a set's records and decisions
      retrieval.py     review_retrieve: full-text availability of the includes
    reporting/       what a set reports
      routes.py        each source's PRISMA route (database, register, other methods)
      flow.py          the PRISMA 2020 counts
      diagram.py       the flow diagram (SVG, PNG)
      prisma.py        review_prisma
      search_log.py    the PRISMA-S search log (resource review://sets/{set}/log)
      exporting.py     review_export and the resource review://exports/{file}
    exports.py       one writer per export format; endnote_xml.py: the EndNote XML writer
    store/           persisting, and nothing else: schema (migrations), rows, sets, records,
                     members (a set's records under its lock), decisions, sql
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from medlit.core.plugin import (
    Catalog,
    CommandSpec,
    PluginInfo,
    ResourceSpec,
    ServerTask,
    SettingSpec,
    ToolSpec,
    WebPage,
    errors,
    hookimpl,
    lazy_module,
)

if TYPE_CHECKING:  # mypy checks each declaration below against the real module
    from . import models as _models
    from .identity import rulings as _rulings
    from .reporting import exporting as _exporting
    from .reporting import prisma as _prisma
    from .reporting import search_log as _search_log
    from .screening import deciding as _deciding
    from .screening import retrieval as _retrieval
    from .sets import manage as _manage
    from .sets import paging as _paging
    from .sets import state as _state
    from .sources import chasing as _chasing
    from .sources import importing as _importing
    from .sources import search as _search
else:  # run time: each attribute is a lazy reference, imported at its first use
    _models = lazy_module(".models", __name__)
    _rulings = lazy_module(".identity.rulings", __name__)
    _exporting = lazy_module(".reporting.exporting", __name__)
    _prisma = lazy_module(".reporting.prisma", __name__)
    _search_log = lazy_module(".reporting.search_log", __name__)
    _deciding = lazy_module(".screening.deciding", __name__)
    _retrieval = lazy_module(".screening.retrieval", __name__)
    _manage = lazy_module(".sets.manage", __name__)
    _paging = lazy_module(".sets.paging", __name__)
    _state = lazy_module(".sets.state", __name__)
    _chasing = lazy_module(".sources.chasing", __name__)
    _importing = lazy_module(".sources.importing", __name__)
    _search = lazy_module(".sources.search", __name__)

SEARCH = "review_search"
# The full-text exclusion reasons (plugins/review/screening/decisions.py holds their labels; a test keeps both equal).
REASON_CATEGORIES_LIST = (
    "wrong_population",
    "wrong_intervention",
    "wrong_comparator",
    "wrong_outcome",
    "wrong_study_design",
    "wrong_publication_type",
    "wrong_setting",
    "language",
    "duplicate",
    "retracted",
    "not_retrievable",
    "other",
)


def describe_search(catalog: Catalog) -> str:
    sources = [d.record for d in catalog.sources]
    listed = "; ".join(f"{s.name}: {s.syntax or s.title}" for s in sources) or "none installed"
    return (
        "Run a systematic review's whole searches into a review set (created by naming it), one query per source in its syntax, deduplicated, logged for PRISMA-S. Database export files: "
        "review_import; a few results: pubmed_search_articles. A long search goes on in the server: call "
        "with only `set` for its state or to resume. Imports in the set stay counted. Next, all sources in: check merges (review_records merged=true), screen "
        "(review_records undecided=true order='priority' brief=false, review_screen); files: review_export. "
        f"Sources: {listed}."
    )


def describe_workflow(catalog: Catalog) -> str:
    """The review family's line in the server instructions: the workflow in order, and how an
    export reaches this server (whether a folder is allowed for ``path`` is said, never which)."""
    allowed = "MEDLIT_IMPORT_DIRS" in catalog.settings_set.get("review", frozenset())
    path = (
        "`path` reads a file in the folders this server allows (local server only): use it for an export "
        "too long to send in your output"
        if allowed
        else "`path` is off on this server: for an export over ~100,000 characters (too long to send in your "
        "output), ask the user "
        "to allow its folder (MEDLIT_IMPORT_DIRS in the server's configuration, then a restart; enable the "
        "review family again after it) and use `path`"
    )
    return (
        "Systematic and scoping reviews are the review family's work (enable it with `medlit_toolsets` "
        "when it is not listed): review_import reads database exports (RIS, CSV, Ovid, EndNote, WoS...), "
        "review_search runs whole searches, both into a named set (naming a new set creates it); check the "
        "merges once all sources are in (review_records merged=true: title matches first, stop reading where the "
        "evidence turns to a shared PMID/DOI; review_merge splits a wrong one), screen by priority until "
        "screeningEstimate.safeToStop (criteria first: review_sets action='settings'; review_records "
        "brief=false, review_screen; leave the rest undecided; decide each maybe (decision='maybe'), then check safeToStop again, before full text), then "
        "review_retrieve (what it cannot retrieve counts as not retrieved, unless the user supplies it and it is "
        "decided at full text: then assessed), screen full texts (review_records stage='full_text' "
        "undecided=true, pubmed_fetch_fulltext with sections or maxCharacters, review_screen with "
        "reasonCategory) and review_prisma. Send an export as `content` (in `part`s when a call's size is "
        f"limited, each at most 8,000,000 characters); {path}. A `running` or rankingProgress answer: call again at "
        "once (each call waits for progress itself); one file at a time per set, a search not beside it."
    )


# A tuple keeps each tool's own ToolSpec[In, Out] (a list joins them to object); annotated
# `list[ToolSpec]`, mypy would infer Any models from the annotation and check no handler.
TOOLS = (
    ToolSpec(
        name=SEARCH,
        title="Search sources into a review set",
        description="Run whole searches into a review set.",  # see describe_search
        describe=describe_search,
        input_model=_models.SearchInput,
        output_model=_models.SetState,
        handler=_search.review_search,
        render=_state.render_state,
        idempotent=False,
        read_only=False,
        capabilities=frozenset({"review_set"}),
        guide="a systematic or scoping review: every record of queries across databases, deduplicated (a set, not paged searches)",
    ),
    ToolSpec(
        name="review_import",
        title="Import a database's export file into a review set",
        description="Import a database's export file (RIS, CSV...) into a review set (made if new) as its "
        "search: deduplicated, counted for PRISMA. Send `content` (or `path`); while `running`, "
        "call again with only set and database; one file at a time (a new file adds, a resent one never). "
        "PubMed/Europe PMC: review_search. All "
        "sources in: check merges (review_records merged=true).",
        input_model=_models.ImportInput,
        output_model=_models.ImportOutput,
        handler=_importing.review_import,
        render=_importing.render_import,
        read_only=False,
        idempotent=True,
        open_world=True,
        guide="export files from Embase, Scopus, WoS, CINAHL... and want them in a review set",
        # set and database alone ask an import's state: the printed first call sends a file
        example={"set": "kids", "database": "Embase", "content": "TY  - JOUR\nTI  - Asthma\nER  - "},
    ),
    ToolSpec(
        name="review_chase",
        title="Citation searching into a review set",
        description="Citation searching: chase a set's includes (or ids) backward and forward through every "
        "citation index into the set (PRISMA other methods), deduplicated, with foundVia. Estimate the cost first; "
        "a long chase goes on in the server (action='status'). Searches: review_search; one article: "
        "pubmed_find_related.",
        input_model=_models.ChaseInput,
        output_model=_models.ChaseOutput,
        handler=_chasing.review_chase,
        render=_chasing.render_chase,
        read_only=False,
        idempotent=False,
        guide="a screened review set, want its includes' references and citing works (citation searching)",
    ),
    ToolSpec(
        name="review_merge",
        title="Split or join deduplicated records",
        description="Correct a set's deduplication. Find merges with review_records merged=true (each input "
        "record with the matcher's evidence). split: move input records of another work out to a new record. join: "
        "one work's records the matcher missed (lowest key kept, decisions move to it; differing titles warned). "
        "log: these rulings, which later searches and imports follow. Screening: review_screen.",
        input_model=_models.MergeInput,
        output_model=_models.MergeOutput,
        handler=_rulings.review_merge,
        render=_rulings.render_merge,
        read_only=False,
        idempotent=False,
        open_world=False,
        guide="a review set with a wrong merge or a missed duplicate",
    ),
    ToolSpec(
        name="review_records",
        title="Page a review set's records (the screening queue)",
        description="Page a review set's records and decisions, filtered. Screening loop (criteria set first: "
        "review_sets): undecided=true, "
        "order='priority', brief=false, offset 0 each time; decide the batch with review_screen, ask again "
        "(rankingProgress: call again, it waits) until screeningEstimate.safeToStop (not "
        "stopAdvised alone); screen `sample` records too; leave the rest undecided; settle maybes. Then review_retrieve; "
        "every full text (stage='full_text', no stopping rule; unobtainable: not_retrievable); review_prisma.",
        input_model=_models.RecordsInput,
        output_model=_models.RecordsOutput,
        handler=_paging.review_records,
        render=_paging.render_records,
        open_world=False,
        guide="a review set, want its records page by page",
    ),
    ToolSpec(
        name="review_export",
        title="Export a review set to a file",
        description="Write a review set (or its records decided so) to a file for a screening tool or "
        "reference manager, with its PRISMA-S log, in the server's export folder (replacing the set's last file "
        "in that format); answers the path and a resource uri. To read records use review_records; a few citations: "
        "pubmed_format_citations.",
        input_model=_models.ExportInput,
        output_model=_models.ExportOutput,
        handler=_exporting.review_export,
        render=_exporting.render_export,
        read_only=False,
        open_world=False,
        guide="a review set, want a file for Rayyan, Covidence, Zotero or EndNote",
    ),
    ToolSpec(
        name="review_screen",
        title="Record screening decisions",
        description="Record screening decisions (with reason and reviewer) on a set's records; "
        "re-recording replaces that reviewer's. A full-text exclusion needs a reasonCategory. Invalid items are "
        "refused, the rest recorded; reviewers' conflicts are listed. Next title/abstract batch: review_records "
        "undecided=true order='priority' brief=false, until screeningEstimate.safeToStop; never exclude the rest "
        "unread.",
        input_model=_models.ScreenInput,
        output_model=_models.ScreenOutput,
        handler=_deciding.review_screen,
        render=_deciding.render_screen,
        read_only=False,
        open_world=False,
        capabilities=frozenset({"review_set"}),
        guide="a review set, want to record include/exclude decisions (PRISMA screening)",
    ),
    ToolSpec(
        name="review_retrieve",
        title="Check full-text availability of a set's includes",
        description="Check which full-text source has each title/abstract include of a set (reports sought), "
        "25 a call, recording the tier or each tier's outcome and the library "
        "link; `remaining`: call again (stop when only `failed` checks remain). It counts for PRISMA's full-text boxes; sources switched off leave more "
        "unretrieved. To read a full text: pubmed_fetch_fulltext.",
        input_model=_models.RetrieveInput,
        output_model=_models.RetrieveOutput,
        handler=_retrieval.review_retrieve,
        render=_retrieval.render_retrieve,
        read_only=False,
        guide="screened includes, want which full texts can be retrieved (PRISMA)",
    ),
    ToolSpec(
        name="review_prisma",
        title="PRISMA 2020 flow of a review set",
        description="Last step: the PRISMA 2020 flow of a review set from its searches and screening decisions, "
        "as counts, an SVG file for a manuscript or a PNG image (`format`, not "
        "responseFormat). Undecided records and reviewer conflicts are reported as pending, not counted (records "
        "left at a stop stay undecided: the footnote names the stopping rule); "
        "full-text boxes fill in after review_retrieve and full_text decisions.",
        input_model=_models.PrismaInput,
        output_model=_models.PrismaOutput,
        handler=_prisma.review_prisma,
        render=_prisma.render_prisma,
        read_only=False,
        open_world=False,
        capabilities=frozenset({"review_set"}),
        guide="a screened review set, want the PRISMA 2020 flow diagram",
    ),
    ToolSpec(
        name="review_sets",
        title="Manage review sets: list, rename, delete, settings",
        description="List the review sets and their state, rename one, delete one for good "
        "(records and decisions; confirm = its name), or read/write its settings (ranking criteria, highlighted "
        "terms, blind screening). No create: review_search or review_import make a set by naming it.",
        input_model=_models.SetsInput,
        output_model=_models.SetsOutput,
        handler=_manage.review_sets,
        render=_manage.render_sets,
        read_only=False,
        idempotent=False,
        open_world=False,
        destructive=True,
        guide="review sets, want to list, rename or delete one",
    ),
)

RESOURCES = [
    ResourceSpec(
        uri="review://sets/{set}/log",
        name="review_search_log",
        title="Review set search log (PRISMA-S)",
        description="Per source the exact query, when it ran and the records found; totals before and after "
        "deduplication, by rule.",
        read=_search_log.read_set_log,
        mime_type="text/markdown",
    ),
    ResourceSpec(
        uri="review://exports/{file}",
        name="review_export_file",
        title="Review export file",
        description="A file review_export or review_prisma wrote (RIS, BibTeX, CSL-JSON, MEDLINE, CSV, the search log, "
        "the SVG flow diagram); its uri is in the tool result.",
        read=_exporting.read_export,
        mime_type="",  # each file's own: RIS, BibTeX, JSON, CSV, the SVG flow diagram
    ),
]


@hookimpl
def medlit_plugin_info() -> PluginInfo:
    return PluginInfo(
        name="review",
        title="Review workspace",
        description="Review sets from whole searches and imported database exports (RIS, Ovid, EndNote...): "
        "deduplicated, screened by priority, exported with decisions and reported as a PRISMA 2020 flow.",
        toolsets={
            "review": "Systematic reviews: database exports imported (RIS, CSV, Ovid, EndNote...) and whole "
            "searches into a set, deduplicated, screened by priority to a stopping rule, PRISMA 2020."
        },
        instructions=describe_workflow,
        guide=(
            "### Review sets\n"
            "For a systematic or scoping review, run each database's query whole into a named set with "
            "`review_search` instead of paging search results: the server keeps every record, deduplicates "
            "across sources, logs each search for PRISMA-S and exports the set (`review_export`) for the "
            "screening tool. Page the set with `review_records`; a large import goes on in the server and "
            "the next call reports it.\n\n"
            "### Screening in priority order\n"
            "To screen titles and abstracts, ask `review_records` with `order='priority'` (pass `criteria`: the "
            "review's question and eligibility criteria) for the next batch, decide it with `review_screen`, and "
            "ask again from offset 0: the ranking is retrained on every decision so far (every reviewer's, a "
            "'final' decision winning). Stop when `screeningEstimate.safeToStop` is true (recall of 95% reached "
            "with 95% confidence: `stopBasis` 'ranked test' or 'random sample'), even when `recallEstimate` is "
            "100%: with few includes found the test needs most of the records left read. Once the ranked yield has "
            "fallen, `stopBasis` 'knee' (`stopAdvised`) is a heuristic, not a guarantee: `advice` states its "
            "assumption and the random sample of the unscreened records a guarantee costs (`sample`), which the "
            "priority page then serves first, marked `sample`; stopping on the knee is reported as such. "
            "A record with no title or abstract "
            "comes without a score (the notice says why): look it up before deciding; such records come first "
            "once the model stops finding includes, and the stop waits for them. Then have a person check a random "
            "sample of the excluded records, and report the rule and its figures (the search log and the PRISMA "
            "diagram's footnote carry them). The records left unscreened are reported as not screened."
        ),
        settings=(
            SettingSpec(
                "MEDLIT_EXPORT_DIR", "Where review exports are written (default: the user data directory)"
            ),
            SettingSpec(
                "MEDLIT_REVIEW_MAX_RECORDS",
                "Most records one search may bring into a set",
                kind="int",
                default="50000",
            ),
            SettingSpec(
                "MEDLIT_IMPORT_DIRS",
                "Directories review_import may read export files from (os.pathsep-separated; none: paths refused)",
            ),
            SettingSpec(
                "MEDLIT_IMPORT_MAX_BYTES",
                "Largest export file review_import reads",
                kind="int",
                default="200000000",
            ),
            SettingSpec(
                "MEDLIT_REVIEW_JOBS", "Imports that may run in the server at once", kind="int", default="2"
            ),
            SettingSpec(
                "MEDLIT_REVIEW_WAIT",
                "Seconds a call waits for an import or a ranking before answering with its state "
                "(never closer than 8 s to the call deadline)",
                kind="int",
                default="42",
            ),
            SettingSpec(
                "MEDLIT_IMPORT_MAX_RECORDS",
                "Most records one file brought to review_import may hold",
                kind="int",
                default="200000",
            ),
            SettingSpec(
                "MEDLIT_IMPORT_PARTS_TTL",
                "Seconds the parts of a file sent in parts are kept after its last part (then dropped)",
                kind="int",
                default="86400",
            ),
        ),
        error_kinds=(
            errors.ErrorKind(
                "unknown_set", "List the sets with review_sets, or create one with review_search."
            ),
            errors.ErrorKind(
                "invalid_set_name", "Use letters, digits, spaces, '-', '_' or '.' (no path characters)."
            ),
            errors.ErrorKind(
                "set_too_large", "Narrow the query (dates, fields) or raise MEDLIT_REVIEW_MAX_RECORDS."
            ),
            errors.ErrorKind(
                "review_busy", "Retry when the running import finishes (review_sets shows it).", True
            ),
            errors.ErrorKind(
                "blinded",
                "Turn blind screening off (review_sets action=settings blind=false), then ask again.",
            ),
            errors.ErrorKind("confirmation_required", "Repeat the call with confirm set to the set's name."),
            errors.ErrorKind(
                "import_path_refused",
                "Put the export in a directory MEDLIT_IMPORT_DIRS allows, or send its content in `content`.",
            ),
            errors.ErrorKind(
                "import_unreadable",
                "Export the records again as RIS, MEDLINE/nbib, EndNote XML, BibTeX, CSL-JSON or CSV.",
            ),
            errors.ErrorKind(
                "import_too_large",
                "Export the results in several files and import each, or raise MEDLIT_IMPORT_MAX_RECORDS.",
            ),
            errors.ErrorKind("export_failed", "Check that MEDLIT_EXPORT_DIR is a writable directory."),
        ),
        host_services=True,
        per_user_data=True,  # sets, decisions and exports are kept per principal
    )


@hookimpl
def medlit_tools() -> list[ToolSpec]:
    return list(TOOLS)


@hookimpl
def medlit_resources() -> list[ResourceSpec]:
    return list(RESOURCES)


# -- the reviewer's desk (desk/): one page over HTTP at /desk and as the MCP App ui://review/desk --
DESK = WebPage(
    path="/desk",
    title="Reviewer's desk",
    package=f"{__name__}.desk",
    assets=("desk.js", "desk.css"),
    # what the page calls; the screening and reporting tools open it in hosts that render MCP Apps
    tools=(
        "review_sets",
        "review_import",
        "review_records",
        "review_screen",
        "review_merge",
        "review_retrieve",
        "review_prisma",
        "review_export",
        # the full-text chain's tool, for reading an article at full-text screening: a page may call
        # any plugin's tool it names; when the full-text plugin is off, the page says so
        "pubmed_fetch_fulltext",
    ),
    app_uri="ui://review/desk",
    linked_tools=("review_records", "review_screen", "review_merge", "review_prisma"),
    description="Screen a review set one record at a time, resolve conflicts, check merges, see the "
    "PRISMA 2020 flow and download exports.",
)


@hookimpl
def medlit_web_pages() -> list[WebPage]:
    return [DESK]


if TYPE_CHECKING:
    from . import commands as _commands
    from .sets import schedules as _schedules
else:
    _commands = lazy_module(".commands", __name__)
    _schedules = lazy_module(".sets.schedules", __name__)


@hookimpl
def medlit_commands() -> list[CommandSpec]:
    return [
        CommandSpec(
            name="review",
            help="review sets from the command line: `medlit review update SET` re-runs a living review's searches",
            arguments=_commands.arguments,
            run=_commands.run,
        )
    ]


@hookimpl
def medlit_server_tasks() -> list[ServerTask]:
    # every 5 minutes each replica looks for sets whose kept interval is due; a lease in the store
    # gives each due update to one of them
    return [ServerTask(name="review_updates", run=_schedules.run_due, every=300.0, timeout=6 * 3600.0)]
