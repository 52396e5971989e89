"""The sets, their search log (one search row per source per run, with its state and cursor),
their imported files and the parts of files sent in several calls."""

from __future__ import annotations

import asyncio
import base64
import json
import zlib
from collections.abc import Mapping
from typing import Any

from medlit.core.plugin import Database

from .rows import SEARCH_COLUMNS, Changes, FileRow, SearchRow, SetRow, now, search_row
from .sql import as_json, placeholders


class SetTables:
    """The sets and their searches (a part of :class:`~.Store`)."""

    db: Database

    # -- sets ------------------------------------------------------------------------------
    async def get_set(self, name: str, owner: str = "") -> SetRow | None:
        rows = await self.db.fetch(
            "SELECT id, name, owner, created_at, updated_at, runs FROM review_sets WHERE owner = ? AND name = ?",
            owner,
            name,
        )
        return SetRow(*rows[0]) if rows else None

    async def changes(self, set_id: int) -> Changes:
        """The set's changes so far (see :class:`~.rows.Changes`): one read of its row, by its id."""
        rows = await self.db.fetch(
            "SELECT records_version, decisions_version, updated_at FROM review_sets WHERE id = ?", set_id
        )
        return Changes(int(rows[0][0]), int(rows[0][1]), str(rows[0][2])) if rows else Changes(-1, -1, "")

    async def create_set(self, name: str, owner: str = "") -> SetRow:
        """The set, created if new (concurrent creators get the same row)."""
        stamp = now()
        async with self.db.transaction() as tx:
            await tx.execute(
                "INSERT INTO review_sets (owner, name, created_at, updated_at, runs) VALUES (?, ?, ?, ?, 0) "
                "ON CONFLICT (owner, name) DO NOTHING",
                owner,
                name,
                stamp,
                stamp,
            )
        found = await self.get_set(name, owner)
        assert found is not None
        return found

    async def list_sets(self, owner: str = "") -> list[SetRow]:
        rows = await self.db.fetch(
            "SELECT id, name, owner, created_at, updated_at, runs FROM review_sets WHERE owner = ? ORDER BY name",
            owner,
        )
        return [SetRow(*r) for r in rows]

    async def rename_set(self, set_id: int, new_name: str) -> None:
        async with self.db.transaction() as tx:
            await tx.lock("review_sets", set_id)
            await tx.execute(
                "UPDATE review_sets SET name = ?, updated_at = ? WHERE id = ?", new_name, now(), set_id
            )

    async def delete_set(self, set_id: int) -> int:
        """Delete a set and everything in it; returns the records deleted."""
        async with self.db.transaction() as tx:
            await tx.lock("review_sets", set_id)
            rows = await tx.fetch("SELECT COUNT(*) FROM review_records WHERE set_id = ?", set_id)
            searches = "SELECT id FROM review_searches WHERE set_id = ?"
            await tx.execute("DELETE FROM review_decisions WHERE set_id = ?", set_id)
            await tx.execute("DELETE FROM review_retrievals WHERE set_id = ?", set_id)
            for table in (
                "review_keys",
                "review_links",
                "review_merge_log",
                "review_uploads",
                "review_files",
            ):
                await tx.execute(f"DELETE FROM {table} WHERE set_id = ?", set_id)
            await tx.execute(f"DELETE FROM review_hits WHERE search_id IN ({searches})", set_id)
            await tx.execute("DELETE FROM review_records WHERE set_id = ?", set_id)
            await tx.execute("DELETE FROM review_searches WHERE set_id = ?", set_id)
            await tx.execute("DELETE FROM review_sets WHERE id = ?", set_id)
        return int(rows[0][0])

    # -- searches (the log) ----------------------------------------------------------------
    async def start_run(
        self, set_id: int, queries: Mapping[str, str], options: Mapping[str, Any]
    ) -> list[SearchRow]:
        """A new run of ``queries`` (source -> query): one search row each, state ``running``."""
        async with self.db.transaction() as tx:
            await tx.lock("review_sets", set_id)
            rows = await tx.fetch("SELECT runs FROM review_sets WHERE id = ?", set_id)
            run = int(rows[0][0]) + 1
            stamp = now()
            await tx.execute(
                "UPDATE review_sets SET runs = ?, updated_at = ? WHERE id = ?", run, stamp, set_id
            )
            for source, query in queries.items():
                await tx.insert(
                    "INSERT INTO review_searches (set_id, run, source, query, started_at, fetched, state, options) "
                    "VALUES (?, ?, ?, ?, ?, 0, 'running', ?)",
                    set_id,
                    run,
                    source,
                    query,
                    stamp,
                    json.dumps(dict(options), sort_keys=True),
                )
        return [s for s in await self.searches(set_id) if s.run == run]

    async def searches(self, set_id: int) -> list[SearchRow]:
        rows = await self.db.fetch(
            f"SELECT {SEARCH_COLUMNS} FROM review_searches WHERE set_id = ? ORDER BY run, id", set_id
        )
        return [search_row(r) for r in rows]

    async def latest(self, set_id: int) -> list[SearchRow]:
        """The latest search of each source: what the set's counts and its log are about."""
        latest: dict[str, SearchRow] = {}
        for s in await self.searches(set_id):
            # every imported file counts (two files of one database are two halves of its
            # results); a search source's later run replaces its earlier one
            latest[f"{s.source}\x00{s.id}" if s.is_import else s.source] = s
        return sorted(latest.values(), key=lambda s: s.id)

    async def finish_search(
        self, search_id: int, state: str, error: str | None = None, **fields: Any
    ) -> None:
        sets = ["state = ?", "error = ?", "finished_at = ?"]
        args: list[Any] = [state, error, now() if state != "running" else None]
        for name, value in fields.items():
            sets.append(f"{name} = ?")
            args.append(value)
        await self.db.execute(f"UPDATE review_searches SET {', '.join(sets)} WHERE id = ?", *args, search_id)

    # -- imported files --------------------------------------------------------------------
    async def start_import(
        self, set_id: int, source: str, query: str, options: Mapping[str, Any], file: FileRow, content: bytes
    ) -> SearchRow:
        """A new run of one imported file: its search row (state ``running``) and the file kept
        beside it, compressed, until the import completes."""
        # compressing a large export takes seconds: off the event loop
        packed = await asyncio.to_thread(lambda: base64.b64encode(zlib.compress(content, 6)).decode("ascii"))
        async with self.db.transaction() as tx:
            await tx.lock("review_sets", set_id)
            rows = await tx.fetch("SELECT runs FROM review_sets WHERE id = ?", set_id)
            run = int(rows[0][0]) + 1
            stamp = now()
            await tx.execute(
                "UPDATE review_sets SET runs = ?, updated_at = ? WHERE id = ?", run, stamp, set_id
            )
            search_id = await tx.insert(
                "INSERT INTO review_searches (set_id, run, source, query, started_at, found, fetched, state, options) "
                "VALUES (?, ?, ?, ?, ?, ?, 0, 'running', ?)",
                set_id,
                run,
                source,
                query,
                stamp,
                file.records,
                json.dumps(dict(options), sort_keys=True),
            )
            await tx.execute(
                "INSERT INTO review_files (set_id, search_id, name, sha256, format, bytes, content, skipped, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                set_id,
                search_id,
                file.name,
                file.sha256,
                file.format,
                len(content),
                packed,
                as_json(file.skipped),
                stamp,
            )
        return next(s for s in await self.searches(set_id) if s.id == search_id)

    async def files(self, set_id: int) -> dict[int, FileRow]:
        """The set's imported files by their search's id (without their content)."""
        rows = await self.db.fetch(
            "SELECT search_id, name, sha256, format, bytes, skipped FROM review_files WHERE set_id = ?",
            set_id,
        )
        out = {}
        for search_id, name, sha, fmt, size, skipped in rows:
            listed = json.loads(skipped or "[]")
            out[int(search_id)] = FileRow(str(name), str(sha), fmt, int(size), -1, listed)
        return out

    async def file_content(self, search_id: int) -> bytes | None:
        rows = await self.db.fetch("SELECT content FROM review_files WHERE search_id = ?", search_id)
        if not rows or rows[0][0] is None:
            return None
        packed = str(rows[0][0])
        return await asyncio.to_thread(lambda: zlib.decompress(base64.b64decode(packed)))

    async def release_file(self, search_id: int) -> None:
        """An import is complete: its file's content is no longer needed (its name, digest and
        skipped records stay for the log)."""
        await self.db.execute("UPDATE review_files SET content = NULL WHERE search_id = ?", search_id)

    async def add_part(
        self, set_id: int, upload: str, part: int, parts: int, content: str, size: int, limit: int
    ) -> tuple[list[int], int]:
        """Keep one part of a file sent in several calls (``size``: its decoded bytes) unless the
        parts held with it would pass ``limit`` bytes; returns the parts held so far and their
        bytes (over ``limit``: the part was not kept)."""
        async with self.db.transaction() as tx:
            await tx.lock("review_sets", set_id)
            rows = await tx.fetch(
                "SELECT COALESCE(SUM(bytes), 0) FROM review_uploads WHERE set_id = ? AND upload = ? AND part <> ?",
                set_id,
                upload,
                part,
            )
            held = int(rows[0][0]) + size
            if held > limit:
                return [], held
            await tx.execute(
                "INSERT INTO review_uploads (set_id, upload, part, parts, content, created_at, bytes) VALUES "
                "(?, ?, ?, ?, ?, ?, ?) ON CONFLICT (set_id, upload, part) DO UPDATE SET content = excluded.content, "
                "parts = excluded.parts, bytes = excluded.bytes, created_at = excluded.created_at",
                set_id,
                upload,
                part,
                parts,
                content,
                now(),
                size,
            )
            rows = await tx.fetch(
                "SELECT part FROM review_uploads WHERE set_id = ? AND upload = ? ORDER BY part",
                set_id,
                upload,
            )
        return [int(r[0]) for r in rows], held

    async def uploads(self, set_ids: list[int]) -> list[tuple[int, str, int, int, int, str]]:
        """The files being sent in parts into these sets: (set id, upload, parts held, parts in
        all, bytes held, first part's time), oldest first."""
        if not set_ids:
            return []
        rows = await self.db.fetch(
            "SELECT set_id, upload, COUNT(*), MAX(parts), COALESCE(SUM(bytes), 0), MIN(created_at) "
            f"FROM review_uploads WHERE set_id IN {placeholders(set_ids)} GROUP BY set_id, upload ORDER BY MIN(created_at)",
            *set_ids,
        )
        return [(int(r[0]), str(r[1]), int(r[2]), int(r[3]), int(r[4]), str(r[5])) for r in rows]

    async def settings(self, set_id: int) -> dict[str, Any]:
        """The set's settings by name (JSON values as written)."""
        rows = await self.db.fetch("SELECT name, value FROM review_set_settings WHERE set_id = ?", set_id)
        return {str(r[0]): json.loads(r[1]) for r in rows}

    async def save_settings(self, set_id: int, values: Mapping[str, Any]) -> None:
        """Write these settings of the set in one transaction (each replacing its earlier value)."""
        async with self.db.transaction() as tx:
            await tx.lock("review_sets", set_id)
            for name, value in values.items():
                await tx.execute(
                    "INSERT INTO review_set_settings (set_id, name, value, updated_at) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (set_id, name) DO UPDATE SET value = excluded.value, "
                    "updated_at = excluded.updated_at",
                    set_id,
                    name,
                    json.dumps(value),
                    now(),
                )

    async def expire_uploads(self, before: str) -> int:
        """Drop every part of an upload whose last part arrived before ``before`` (a time as
        :func:`now` writes it); returns the parts dropped. Nothing expired: nothing is written (a
        store that refuses writes still lists its sets)."""
        query = "SELECT set_id, upload FROM review_uploads GROUP BY set_id, upload HAVING MAX(created_at) < ?"
        if not await self.db.fetch(query, before):
            return 0
        async with self.db.transaction() as tx:
            rows = await tx.fetch(query, before)  # again under the transaction: a part may have come
            dropped = 0
            for set_id, upload in rows:
                gone = await tx.fetch(
                    "SELECT COUNT(*) FROM review_uploads WHERE set_id = ? AND upload = ?", set_id, upload
                )
                dropped += int(gone[0][0])
                await tx.execute("DELETE FROM review_uploads WHERE set_id = ? AND upload = ?", set_id, upload)
        return dropped

    async def take_parts(self, set_id: int, upload: str) -> list[str]:
        rows = await self.db.fetch(
            "SELECT content FROM review_uploads WHERE set_id = ? AND upload = ? ORDER BY part", set_id, upload
        )
        return [str(r[0]) for r in rows]

    async def drop_upload(self, set_id: int, upload: str) -> int:
        """Drop a file's parts (joined, or cancelled); returns how many were held."""
        async with self.db.transaction() as tx:
            rows = await tx.fetch(
                "SELECT COUNT(*) FROM review_uploads WHERE set_id = ? AND upload = ?", set_id, upload
            )
            await tx.execute("DELETE FROM review_uploads WHERE set_id = ? AND upload = ?", set_id, upload)
        return int(rows[0][0])
