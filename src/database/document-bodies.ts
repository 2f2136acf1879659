import type { EntityManager } from 'typeorm';
import type { Sql } from './sql.js';

/** Rows rewritten per statement pair. */
const BATCH = 500;

/** A document's move to a new id, within one key and organization. */
export interface DocumentRowsMove {
  apiKeyId: string;
  organizationId: string;
  from: string;
  to: string;
}

/**
 * Moves one document's rows of `table` to a new document id: its `document_id` column, in one
 * statement, in `manager`'s unit of work. For tables that keep the id nowhere else; the caller
 * is the table's owner.
 */
export async function moveDocumentColumn(sql: Sql, manager: EntityManager, table: string, move: DocumentRowsMove): Promise<void> {
  await sql.run(manager, `UPDATE ${table} SET document_id = :to WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND document_id = :from`, {
    ...move,
  });
}

/**
 * Moves one document's rows of `table` to a new document id where each row also keeps the id in
 * its JSON `body` (a top-level `documentId`, which reads parse back): the `document_id` column
 * and the body are rewritten together, batch after batch, in `manager`'s unit of work. A row
 * rewritten leaves the selection, so each batch reads the next rows until none is left.
 * `key` is the column that, after the key and the organization, names one row.
 */
export async function moveDocumentBodies(sql: Sql, manager: EntityManager, table: string, key: string, move: DocumentRowsMove): Promise<void> {
  const { apiKeyId, organizationId, from, to } = move;
  for (;;) {
    const rows = await sql.run<{ row_key: string; body: string }>(
      manager,
      `SELECT ${key} AS row_key, body FROM ${table} WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND document_id = :from LIMIT ${BATCH}`,
      { apiKeyId, organizationId, from },
    );
    if (!rows.length) return;
    await sql.updateRows(
      manager,
      table,
      {
        match: [
          { name: 'api_key_id', type: 'varchar' },
          { name: 'organization_id', type: 'varchar' },
          { name: key, type: 'varchar' },
        ],
        set: [
          { name: 'document_id', type: 'varchar' },
          { name: 'body', type: 'text' },
        ],
      },
      rows.map((row) => [apiKeyId, organizationId, row.row_key, to, JSON.stringify({ ...(JSON.parse(row.body) as object), documentId: to })]),
    );
  }
}
