import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf } from './dialect.js';

/**
 * Fields upstream clients send and read (issue 18): a judgment's `judgeType`, `contentType` and
 * comment thread (`annotationId`), which judgments query filters by; and the session of a CRDT
 * editor's last writer (`crdt/get` answers `sessionId`). Judgments already recorded get their
 * facets from their activities, by the rule of `judgmentFacets` as it stood when this was
 * written (kept here, so later changes to that rule do not rewrite history).
 */
export class UpstreamFields1763850000000 implements MigrationInterface {
  name = 'UpstreamFields1763850000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query("ALTER TABLE judgment ADD COLUMN judge_type varchar(8) NOT NULL DEFAULT 'human'");
    await db.query('ALTER TABLE judgment ADD COLUMN content_type varchar(256)');
    await db.query('ALTER TABLE judgment ADD COLUMN annotation_id varchar(256)');
    await db.query('CREATE INDEX judgment_annotation_idx ON judgment (api_key_id, organization_id, annotation_id, timestamp)');
    await db.query('ALTER TABLE crdt_editor ADD COLUMN session_id varchar(256)');

    const rows: { api_key_id: string; organization_id: string; activity_id: string; target_entity_id: string | null; body: string }[] = await db.query(
      `SELECT j.api_key_id, j.organization_id, j.activity_id, a.target_entity_id, a.body FROM judgment j
        JOIN activity a ON a.api_key_id = j.api_key_id AND a.organization_id = j.organization_id AND a.id = j.activity_id`,
    );
    const [a, b, c, d, e, f] = [1, 2, 3, 4, 5, 6].map(dialectOf(db).param);
    for (const row of rows) {
      const facets = facetsOf(row.body, row.target_entity_id);
      // The column defaults already say this much.
      if (facets.judgeType === 'human' && facets.contentType === null && facets.annotationId === null) continue;
      await db.query(
        `UPDATE judgment SET judge_type = ${a}, content_type = ${b}, annotation_id = ${c} WHERE api_key_id = ${d} AND organization_id = ${e} AND activity_id = ${f}`,
        [facets.judgeType, facets.contentType, facets.annotationId, row.api_key_id, row.organization_id, row.activity_id],
      );
    }
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP INDEX judgment_annotation_idx');
    for (const column of ['judge_type', 'content_type', 'annotation_id']) await db.query(`ALTER TABLE judgment DROP COLUMN ${column}`);
    await db.query('ALTER TABLE crdt_editor DROP COLUMN session_id');
  }
}

function facetsOf(body: string, targetEntityId: string | null): { judgeType: string; contentType: string | null; annotationId: string | null } {
  const parsed = JSON.parse(body) as { entityData?: unknown };
  const data =
    typeof parsed.entityData === 'object' && parsed.entityData !== null && !Array.isArray(parsed.entityData)
      ? (parsed.entityData as Record<string, unknown>)
      : {};
  const agent = typeof data.agent === 'object' && data.agent !== null && !Array.isArray(data.agent);
  const judgeType = data.judgeType === 'human' || data.judgeType === 'agent' ? data.judgeType : agent ? 'agent' : 'human';
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value.slice(0, 256) : null);
  return { judgeType, contentType: text(data.contentType), annotationId: text(data.annotationId) ?? targetEntityId };
}
