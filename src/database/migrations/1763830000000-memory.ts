import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf } from './dialect.js';

/**
 * Judgments (contract part 8), one per decision activity, with their text indexed for
 * full-text search, which is where the engines genuinely differ:
 * - PostgreSQL: the text as an English `tsvector` (stemmed, stop words dropped) under a GIN
 *   index, ranked by `ts_rank_cd`; `scope_tokens` serves the embedded engine's index only, here
 *   b-tree indexes scope a search.
 * - SQLite: an FTS5 index (Porter stemming, ranked by bm25) that also holds scope tokens
 *   (hashes of key, organization and document), so a scoped search intersects two posting lists
 *   in the index instead of filtering every match. Triggers keep the index in step with the table.
 */
export class Memory1763830000000 implements MigrationInterface {
  name = 'Memory1763830000000';

  async up(db: QueryRunner): Promise<void> {
    const d = dialectOf(db);
    await db.query(`CREATE TABLE judgment (
      api_key_id varchar(24) NOT NULL,
      organization_id varchar(256) NOT NULL,
      activity_id varchar(256) NOT NULL,
      document_id varchar(256) NOT NULL,
      decision varchar(32) NOT NULL,
      side varchar(8),
      reviewer_id varchar(256) NOT NULL,
      reason text,
      text text NOT NULL,
      scope_tokens text NOT NULL,
      timestamp ${d.bigint} NOT NULL,
      PRIMARY KEY (api_key_id, organization_id, activity_id),
      FOREIGN KEY (api_key_id, organization_id) REFERENCES organization(api_key_id, id) ON DELETE CASCADE)`);
    await db.query('CREATE INDEX judgment_recent_idx ON judgment (api_key_id, timestamp)');
    await db.query('CREATE INDEX judgment_document_idx ON judgment (api_key_id, organization_id, document_id, timestamp)');
    if (d.postgres) {
      // Added to the empty table: the same column as if declared in CREATE TABLE.
      await db.query("ALTER TABLE judgment ADD COLUMN text_vector tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED");
      await db.query('CREATE INDEX judgment_text_idx ON judgment USING GIN (text_vector)');
    } else {
      await db.query(
        `CREATE VIRTUAL TABLE judgment_fts USING fts5(text, scope_tokens, content='judgment', content_rowid='rowid', tokenize='porter unicode61')`,
      );
      await db.query(`CREATE TRIGGER judgment_fts_insert AFTER INSERT ON judgment BEGIN
        INSERT INTO judgment_fts(rowid, text, scope_tokens) VALUES (new.rowid, new.text, new.scope_tokens);
      END`);
      await db.query(`CREATE TRIGGER judgment_fts_delete AFTER DELETE ON judgment BEGIN
        INSERT INTO judgment_fts(judgment_fts, rowid, text, scope_tokens) VALUES ('delete', old.rowid, old.text, old.scope_tokens);
      END`);
      await db.query(`CREATE TRIGGER judgment_fts_update AFTER UPDATE ON judgment BEGIN
        INSERT INTO judgment_fts(judgment_fts, rowid, text, scope_tokens) VALUES ('delete', old.rowid, old.text, old.scope_tokens);
        INSERT INTO judgment_fts(rowid, text, scope_tokens) VALUES (new.rowid, new.text, new.scope_tokens);
      END`);
    }
  }

  async down(db: QueryRunner): Promise<void> {
    if (!dialectOf(db).postgres) await db.query('DROP TABLE judgment_fts');
    await db.query('DROP TABLE judgment');
  }
}
