import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Judgments (contract part 8), one per decision activity, with their text indexed by FTS5
 * (Porter stemming, ranked by bm25). The index also holds scope tokens (hashes of key,
 * organization and document), so a scoped search intersects two posting lists in the index
 * instead of filtering every match. Triggers keep the index in step with the table.
 */
export class Memory1763830000000 implements MigrationInterface {
  name = 'Memory1763830000000';

  async up(db: QueryRunner): Promise<void> {
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
      timestamp integer NOT NULL,
      PRIMARY KEY (api_key_id, organization_id, activity_id),
      FOREIGN KEY (api_key_id, organization_id) REFERENCES organization(api_key_id, id) ON DELETE CASCADE)`);
    await db.query('CREATE INDEX judgment_recent_idx ON judgment (api_key_id, timestamp)');
    await db.query('CREATE INDEX judgment_document_idx ON judgment (api_key_id, organization_id, document_id, timestamp)');
    await db.query(`CREATE VIRTUAL TABLE judgment_fts USING fts5(text, scope_tokens, content='judgment', content_rowid='rowid', tokenize='porter unicode61')`);
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

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE judgment_fts');
    await db.query('DROP TABLE judgment');
  }
}
