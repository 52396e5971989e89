"""The review workspace: whole searches over the search sources plugins declare
(``medlit_search_sources``), deduplicated into named sets in a real store, logged for PRISMA-S
and exported for reference managers.

Registered through the ``medlit.plugins`` entry point like any plugin (name ``review``, so
``REVIEW_ENABLED=false`` switches it off, and ``MEDLIT_TOOLS=-review_*`` drops its tools). It
declares no service: each source runs under its own plugin's context (``ctx.host``).
"""

from __future__ import annotations

from medlit.core.plugin import (
    Catalog,
    PluginInfo,
    ResourceSpec,
    SettingSpec,
    ToolSpec,
    errors,
    hookimpl,
    lazy,
)

SEARCH = "review_search"
# The full-text exclusion reasons (plugins/review/screening.py holds their labels; a test keeps both equal).
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
    listed = (
        "; ".join(
            f"{s.name}: {s.syntax or s.title}"
            + (f", first {s.window:,} unless splitByDate" if s.window else "")
            for s in sources
        )
        or "none installed"
    )
    return (
        "Run whole searches (every record, thousands) into a named review set held by the server: one query per "
        "source in that source's syntax, deduplicated (PMID, DOI, PMCID, then title+year+first author), logged "
        "for PRISMA-S. Re-running reports `new` records. Use for systematic/scoping reviews; to read a few "
        "results use the search tools instead. Long imports continue in the server: call again (or review_sets) "
        "for the state; call with only `set` to resume an interrupted import. Page with review_records, export "
        f"with review_export. Sources: {listed}."
    )


TOOLS = [
    ToolSpec(
        name=SEARCH,
        title="Search sources into a review set",
        description="Run whole searches into a review set.",  # see describe_search
        describe=describe_search,
        input_model=lazy(".models:SearchInput", __name__),
        output_model=lazy(".models:SetState", __name__),
        handler=lazy(".tool:review_search", __name__),
        render=lazy(".tool:render_state", __name__),
        idempotent=False,
        read_only=False,
        capabilities=frozenset({"review_set"}),
        guide="a systematic or scoping review: every record of queries across databases, deduplicated (a set, not paged searches)",
    ),
    ToolSpec(
        name="review_records",
        title="Page through a review set",
        description="Page through a review set's deduplicated records (brief by default; brief=false adds "
        "abstracts) with their screening decisions, filtered by source, year, abstract, decision, conflicts or "
        "undecided. For records outside a set use the search tools; to hand the set to a reference manager use "
        "review_export.",
        input_model=lazy(".models:RecordsInput", __name__),
        output_model=lazy(".models:RecordsOutput", __name__),
        handler=lazy(".tool:review_records", __name__),
        render=lazy(".tool:render_records", __name__),
        open_world=False,
        guide="a review set, want its records page by page",
    ),
    ToolSpec(
        name="review_export",
        title="Export a review set to a file",
        description="Write a review set (or only its records with one decision, e.g. the includes) to a file for "
        "Rayyan, Covidence, Zotero or EndNote (ris, bibtex, csljson, nbib, csv) with its PRISMA-S search log; "
        "answers the path and a resource uri (resources/read). To read records in the chat use review_records.",
        input_model=lazy(".models:ExportInput", __name__),
        output_model=lazy(".models:ExportOutput", __name__),
        handler=lazy(".tool:review_export", __name__),
        render=lazy(".tool:render_export", __name__),
        read_only=False,
        open_world=False,
        guide="a review set, want a file for Rayyan, Covidence, Zotero or EndNote",
    ),
    ToolSpec(
        name="review_screen",
        title="Record screening decisions",
        description="Record title/abstract or full-text screening decisions (include, exclude, maybe) on a review "
        "set's records, with a reason and who decided (reviewer: 'model' by default, a person, or 'final' to "
        "settle a conflict); re-recording replaces that reviewer's decision. A full-text exclusion needs "
        f"reasonCategory: {', '.join(REASON_CATEGORIES_LIST)}. Invalid items come back refused, the rest are "
        "recorded; conflicts between reviewers are listed. Find records to screen with review_records "
        "(undecided=true).",
        input_model=lazy(".models:ScreenInput", __name__),
        output_model=lazy(".models:ScreenOutput", __name__),
        handler=lazy(".screen:review_screen", __name__),
        render=lazy(".screen:render_screen", __name__),
        read_only=False,
        open_world=False,
        capabilities=frozenset({"review_set"}),
        guide="a review set, want to record include/exclude decisions (PRISMA screening)",
    ),
    ToolSpec(
        name="review_retrieve",
        title="Check full-text availability of a set's includes",
        description="For a review set's title/abstract includes (the reports sought for retrieval), check up to "
        "25 a call through the full-text sources and record per record which tier has it, or each tier's "
        "outcome and the library link; answers `remaining` (call again). To read a full text use the full-text "
        "tool.",
        input_model=lazy(".models:RetrieveInput", __name__),
        output_model=lazy(".models:RetrieveOutput", __name__),
        handler=lazy(".screen:review_retrieve", __name__),
        render=lazy(".screen:render_retrieve", __name__),
        read_only=False,
        guide="screened includes, want which full texts can be retrieved (PRISMA)",
    ),
    ToolSpec(
        name="review_prisma",
        title="PRISMA 2020 flow of a review set",
        description="The PRISMA 2020 flow of a review set from its searches and screening decisions: json (the "
        "counts), svg (the diagram as a file and resource uri, for a manuscript) or png (the diagram as an "
        "image). Undecided records and reviewer conflicts are reported as pending, not counted.",
        input_model=lazy(".models:PrismaInput", __name__),
        output_model=lazy(".models:PrismaOutput", __name__),
        handler=lazy(".screen:review_prisma", __name__),
        render=lazy(".screen:render_prisma", __name__),
        read_only=False,
        open_world=False,
        capabilities=frozenset({"review_set"}),
        guide="a screened review set, want the PRISMA 2020 flow diagram",
    ),
    ToolSpec(
        name="review_sets",
        title="List, rename or delete review sets",
        description="List the review sets (records, runs, complete or still importing), rename one, or delete one "
        "(destructive: needs confirm = the set's name). To see a set's searches use review_search with the set.",
        input_model=lazy(".models:SetsInput", __name__),
        output_model=lazy(".models:SetsOutput", __name__),
        handler=lazy(".tool:review_sets", __name__),
        render=lazy(".tool:render_sets", __name__),
        read_only=False,
        idempotent=False,
        open_world=False,
        destructive=True,
        guide="review sets, want to list, rename or delete one",
    ),
]

RESOURCES = [
    ResourceSpec(
        uri="review://sets/{set}/log",
        name="review_search_log",
        title="Review set search log (PRISMA-S)",
        description="Per source the exact query, when it ran and the records found; totals before and after "
        "deduplication, by rule.",
        read=lazy(".tool:read_set_log", __name__),
        mime_type="text/markdown",
    ),
    ResourceSpec(
        uri="review://exports/{file}",
        name="review_export_file",
        title="Review export file",
        description="A file review_export or review_prisma wrote (RIS, BibTeX, CSL-JSON, MEDLINE, CSV, the search log, "
        "the SVG flow diagram); its uri is in the tool result.",
        read=lazy(".tool:read_export", __name__),
        mime_type="",  # each file's own: RIS, BibTeX, JSON, CSV, the SVG flow diagram
    ),
]


@hookimpl
def medlit_plugin_info() -> PluginInfo:
    return PluginInfo(
        name="review",
        title="Review workspace",
        description="Whole searches across sources into stored, deduplicated sets, logged, screened, exported "
        "and reported as a PRISMA 2020 flow.",
        guide=(
            "### Review sets\n"
            "For a systematic or scoping review, run each database's query whole into a named set with "
            "`review_search` instead of paging search results: the server keeps every record, deduplicates "
            "across sources, logs each search for PRISMA-S and exports the set (`review_export`) for the "
            "screening tool. Page the set with `review_records`; a large import goes on in the server and "
            "the next call reports it."
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
                "MEDLIT_REVIEW_JOBS", "Imports that may run in the server at once", kind="int", default="2"
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
            errors.ErrorKind("confirmation_required", "Repeat the call with confirm set to the set's name."),
            errors.ErrorKind("export_failed", "Check that MEDLIT_EXPORT_DIR is a writable directory."),
        ),
        host_services=True,
    )


@hookimpl
def medlit_tools() -> list[ToolSpec]:
    return list(TOOLS)


@hookimpl
def medlit_resources() -> list[ResourceSpec]:
    return list(RESOURCES)
