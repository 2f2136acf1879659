import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf } from './dialect.js';

/**
 * Shared-editing content (contract part 7): one row per editor of a document, holding the Yjs
 * document as its encoded state and, beside it, the JSON view callers read, so a get never
 * decodes Yjs. The content goes with its document. `client_id` is declared `bigint` on both
 * engines, as it always was (on SQLite that name has integer affinity all the same).
 */
export class Crdt1763810000000 implements MigrationInterface {
  name = 'Crdt1763810000000';

  async up(db: QueryRunner): Promise<void> {
    const d = dialectOf(db);
    await db.query(`CREATE TABLE crdt_editor (
      api_key_id varchar(24) NOT NULL,
      organization_id varchar(256) NOT NULL,
      document_id varchar(256) NOT NULL,
      editor_id varchar(256) NOT NULL,
      type varchar(8) NOT NULL,
      content_key varchar(256) NOT NULL,
      client_id bigint NOT NULL,
      state ${d.bytes} NOT NULL,
      data text NOT NULL,
      last_update ${d.bigint} NOT NULL,
      last_updated_by varchar(256),
      created_at ${d.bigint} NOT NULL,
      PRIMARY KEY (api_key_id, organization_id, document_id, editor_id),
      FOREIGN KEY (api_key_id, organization_id, document_id) REFERENCES document(api_key_id, organization_id, id) ON DELETE CASCADE)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE crdt_editor');
  }
}
