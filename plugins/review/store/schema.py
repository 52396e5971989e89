"""The review tables' schema: the versioned migrations the host's store applies (owner
``review``). An existing store opens unchanged: a migration is never edited, only added."""

from __future__ import annotations

SCHEMA_VERSION = 9
OWNER = "review"  # the tables' prefix and the migrations' owner in the host's store


MIGRATIONS: tuple[tuple[int, str, tuple[str, ...]], ...] = (
    (
        1,
        "sets, search log, records, hits",
        (
            """CREATE TABLE review_sets (
                id {pk}, owner TEXT NOT NULL DEFAULT '', name TEXT NOT NULL,
                created_at TEXT NOT NULL, updated_at TEXT NOT NULL, runs BIGINT NOT NULL DEFAULT 0,
                UNIQUE (owner, name))""",
            """CREATE TABLE review_searches (
                id {pk}, set_id BIGINT NOT NULL REFERENCES review_sets(id) ON DELETE CASCADE,
                run BIGINT NOT NULL, source TEXT NOT NULL, query TEXT NOT NULL,
                started_at TEXT NOT NULL, finished_at TEXT, found BIGINT, fetched BIGINT NOT NULL DEFAULT 0,
                cursor TEXT, state TEXT NOT NULL, error TEXT, detail TEXT NOT NULL DEFAULT '',
                options TEXT NOT NULL DEFAULT '{{}}', retryable BIGINT)""",
            "CREATE INDEX review_searches_set ON review_searches (set_id, run)",
            """CREATE TABLE review_records (
                id {pk}, set_id BIGINT NOT NULL REFERENCES review_sets(id) ON DELETE CASCADE,
                run BIGINT NOT NULL, pmid TEXT, doi TEXT, pmcid TEXT, fuzzy TEXT, year BIGINT,
                has_abstract BIGINT NOT NULL DEFAULT 0, data TEXT NOT NULL)""",
            "CREATE INDEX review_records_pmid ON review_records (set_id, pmid)",
            "CREATE INDEX review_records_doi ON review_records (set_id, doi)",
            "CREATE INDEX review_records_pmcid ON review_records (set_id, pmcid)",
            "CREATE INDEX review_records_fuzzy ON review_records (set_id, fuzzy)",
            """CREATE TABLE review_hits (
                id {pk}, search_id BIGINT NOT NULL REFERENCES review_searches(id) ON DELETE CASCADE,
                record_id BIGINT NOT NULL REFERENCES review_records(id) ON DELETE CASCADE,
                source TEXT NOT NULL, source_id TEXT NOT NULL, rule TEXT NOT NULL,
                UNIQUE (search_id, source_id))""",
            "CREATE INDEX review_hits_record ON review_hits (record_id)",
        ),
    ),
    (
        2,
        "screening decisions, full-text retrieval",
        (
            """CREATE TABLE review_decisions (
                id {pk}, set_id BIGINT NOT NULL REFERENCES review_sets(id) ON DELETE CASCADE,
                record_id BIGINT NOT NULL REFERENCES review_records(id) ON DELETE CASCADE,
                stage TEXT NOT NULL, reviewer TEXT NOT NULL, decision TEXT NOT NULL,
                category TEXT, reason TEXT, decided_at TEXT NOT NULL,
                UNIQUE (record_id, stage, reviewer))""",
            "CREATE INDEX review_decisions_set ON review_decisions (set_id, stage, record_id)",
            """CREATE TABLE review_retrievals (
                id {pk}, set_id BIGINT NOT NULL REFERENCES review_sets(id) ON DELETE CASCADE,
                record_id BIGINT NOT NULL REFERENCES review_records(id) ON DELETE CASCADE,
                state TEXT NOT NULL, tier TEXT, source TEXT, reason TEXT,
                tried TEXT NOT NULL DEFAULT '[]', link TEXT, checked_at TEXT NOT NULL,
                UNIQUE (record_id))""",
            "CREATE INDEX review_retrievals_set ON review_retrievals (set_id, state)",
        ),
    ),
    (
        3,
        "imported files, members' own data, blocking keys, manual merge links and their log",
        (
            # each hit keeps the record as its source gave it: the merged record is recomputed
            # from its members (best of each field), and a wrong merge can be split again
            "ALTER TABLE review_hits ADD COLUMN data TEXT",
            "ALTER TABLE review_hits ADD COLUMN position BIGINT",
            # the candidate keys of every member, per record: a new record is compared with the
            # members of the records it shares a key with, not with the whole set
            """CREATE TABLE review_keys (
                set_id BIGINT NOT NULL REFERENCES review_sets(id) ON DELETE CASCADE,
                record_id BIGINT NOT NULL REFERENCES review_records(id) ON DELETE CASCADE,
                key TEXT NOT NULL, UNIQUE (record_id, key))""",
            "CREATE INDEX review_keys_key ON review_keys (set_id, key)",
            "ALTER TABLE review_sets ADD COLUMN keys_version BIGINT NOT NULL DEFAULT 0",
            # a file brought to review_import: kept (compressed) until its import completes, so
            # a killed server resumes from the search's cursor without the file again
            """CREATE TABLE review_files (
                id {pk}, set_id BIGINT NOT NULL REFERENCES review_sets(id) ON DELETE CASCADE,
                search_id BIGINT REFERENCES review_searches(id) ON DELETE CASCADE,
                name TEXT NOT NULL, sha256 TEXT NOT NULL, format TEXT, bytes BIGINT NOT NULL,
                content TEXT, skipped TEXT NOT NULL DEFAULT '[]', created_at TEXT NOT NULL)""",
            "CREATE INDEX review_files_set ON review_files (set_id, sha256)",
            # parts of a file sent in several calls (HTTP), until the last one arrives
            """CREATE TABLE review_uploads (
                id {pk}, set_id BIGINT NOT NULL REFERENCES review_sets(id) ON DELETE CASCADE,
                upload TEXT NOT NULL, part BIGINT NOT NULL, parts BIGINT NOT NULL, content TEXT NOT NULL,
                created_at TEXT NOT NULL, UNIQUE (set_id, upload, part))""",
            # a person's (or the model's) ruling on two input records: 'apart' (never one record)
            # or 'together' (one record); re-runs and later imports follow it
            """CREATE TABLE review_links (
                id {pk}, set_id BIGINT NOT NULL REFERENCES review_sets(id) ON DELETE CASCADE,
                a_source TEXT NOT NULL, a_id TEXT NOT NULL, b_source TEXT NOT NULL, b_id TEXT NOT NULL,
                relation TEXT NOT NULL, reviewer TEXT NOT NULL, reason TEXT, decided_at TEXT NOT NULL)""",
            "CREATE INDEX review_links_set ON review_links (set_id)",
            """CREATE TABLE review_merge_log (
                id {pk}, set_id BIGINT NOT NULL REFERENCES review_sets(id) ON DELETE CASCADE,
                action TEXT NOT NULL, detail TEXT NOT NULL, reviewer TEXT NOT NULL, at TEXT NOT NULL)""",
            "CREATE INDEX review_merge_log_set ON review_merge_log (set_id, id)",
        ),
    ),
    (
        4,
        "priority rankings shared by the replicas (issue 50)",
        (
            # one row per set: the state being ranked, the process ranking it until `expires`
            # (milliseconds; renewed while it runs), its progress and, once done, its result
            """CREATE TABLE review_rankings (
                set_id BIGINT PRIMARY KEY REFERENCES review_sets(id) ON DELETE CASCADE,
                state TEXT NOT NULL, holder TEXT NOT NULL, expires BIGINT NOT NULL,
                percent BIGINT NOT NULL DEFAULT 0, result TEXT)""",
        ),
    ),
    (
        5,
        "upload parts' decoded size (a file's cap checked as parts arrive, never by joining them)",
        (
            # parts held before this migration count as 0 bytes: the join still checks the whole
            "ALTER TABLE review_uploads ADD COLUMN bytes BIGINT NOT NULL DEFAULT 0",
            "CREATE INDEX review_uploads_created ON review_uploads (created_at)",
        ),
    ),
    (
        6,
        "the evidence behind each merge",
        (
            # why the matcher put an input record in its record ("doi ... + title 0.97", "title
            # 0.98 + authors + year"), so a person checking merges sees it; NULL for a record's
            # first input record and for hits stored before
            "ALTER TABLE review_hits ADD COLUMN evidence TEXT",
        ),
    ),
    (
        7,
        "a set's settings shared by its reviewers (issue 52)",
        (
            # one row per set and setting: the eligibility criteria, the terms the desk highlights,
            # whether screening is blind; values are JSON so a new setting needs no migration
            """CREATE TABLE review_set_settings (
                set_id BIGINT NOT NULL REFERENCES review_sets(id) ON DELETE CASCADE,
                name TEXT NOT NULL, value TEXT NOT NULL, updated_at TEXT NOT NULL,
                PRIMARY KEY (set_id, name))""",
        ),
    ),
    (
        8,
        "living reviews' update intervals kept by the server (issue 53)",
        (
            # one row per set with an interval: when its next update is due (milliseconds), which
            # process runs it until `expires` (the replicas' lease, renewed while it runs), and how
            # the last one ended
            """CREATE TABLE review_schedules (
                set_id BIGINT PRIMARY KEY REFERENCES review_sets(id) ON DELETE CASCADE,
                every_days BIGINT NOT NULL, next_at BIGINT NOT NULL,
                holder TEXT NOT NULL DEFAULT '', expires BIGINT NOT NULL DEFAULT 0,
                last_at BIGINT, last_outcome TEXT)""",
            "CREATE INDEX review_schedules_due ON review_schedules (next_at)",
        ),
    ),
    (
        9,
        "a set's changes counted: what a page keeps is keyed by two numbers, not by counts (issue 50)",
        (
            # bumped in the transaction of every change: the records' by each Store.locked one (an
            # import's batch, a split, a join), the decisions' by save_decisions and by those (a join
            # moves decisions). A later priority page read the set's 100,000 rows up to three times
            # (COUNT and MAX over them, ~50 ms each) to know its kept candidates and links were fresh
            "ALTER TABLE review_sets ADD COLUMN records_version BIGINT NOT NULL DEFAULT 0",
            "ALTER TABLE review_sets ADD COLUMN decisions_version BIGINT NOT NULL DEFAULT 0",
            # a set's records in key order: SQLite (no statistics) took the (set_id, pmid) index for
            # "set_id = ? ORDER BY id LIMIT", sorting the whole set (a key-order page: 80 ms at offset
            # 0, 1.5 s at 50,000, of 100,000; each chunk of a stream the rest of the set), and read it
            # whole for "set_id = ? AND id IN (ten keys)" (19 ms a priority page)
            "CREATE INDEX review_records_set ON review_records (set_id, id)",
        ),
    ),
)
