import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openBareDatabase } from './bare-database.js';

/**
 * The bare baseline of a comment add on PostgreSQL: PostgreSQL's own `pgbench`, with as many
 * clients as the service's load has connections, running the writes one add of the bench's makes
 * (a thread row and three mention rows, in one transaction) as prepared statements, with no HTTP,
 * no service and no reads. The rows go to copies of the service's tables (`LIKE … INCLUDING ALL`:
 * the same columns and indexes, no foreign keys), made for the run and dropped after it, so the
 * service's data is untouched. Answers transactions per second, or why it could not run (no
 * `pgbench` on the PATH, say).
 */
export async function bareCommentAddRate(database: string, clients: number, seconds: number): Promise<{ perSecond?: number; skipped?: string }> {
  const db = openBareDatabase(database);
  const dir = mkdtempSync(join(tmpdir(), 'bench-pgbench-'));
  try {
    await db.query('DROP TABLE IF EXISTS bare_comment_mention, bare_comment_annotation', []);
    await db.query('CREATE TABLE bare_comment_annotation (LIKE comment_annotation INCLUDING ALL)', []);
    await db.query('CREATE TABLE bare_comment_mention (LIKE comment_mention INCLUDING ALL)', []);
    const script = join(dir, 'comment-add.sql');
    // Ids are unique per client and transaction.
    writeFileSync(
      script,
      [
        'BEGIN;',
        `INSERT INTO bare_comment_annotation (api_key_id, organization_id, annotation_id, document_id, status_id, status_type, from_user_id, annotation_type, created_at, last_updated, body) VALUES ('bench-key', 'bench-org', 'ann-' || :client_id || '-' || txid_current(), 'comments-add-doc', 'OPEN', 'default', 'author-1', 'comment', 1, 1, '${BODY}');`,
        ...[1, 2, 3].map(
          (n) =>
            `INSERT INTO bare_comment_mention (api_key_id, organization_id, annotation_id, comment_id, user_id) VALUES ('bench-key', 'bench-org', 'ann-' || :client_id || '-' || txid_current(), 1, 'reviewer-${n}');`,
        ),
        'END;',
        '',
      ].join('\n'),
    );
    const args = ['-n', '-M', 'prepared', '-c', String(clients), '-j', '2', '-T', String(seconds), '-f', script, database];
    const output = await promisify(execFile)('pgbench', args).then(
      ({ stdout }) => stdout,
      (error: Error & { stderr?: string }) => ({ error: `pgbench: ${(error.stderr || error.message).trim().slice(-300)}` }),
    );
    if (typeof output !== 'string') return { skipped: output.error };
    const tps = /tps = ([\d.]+)/.exec(output)?.[1];
    return tps ? { perSecond: Math.round(Number(tps)) } : { skipped: `pgbench printed no tps: ${output.slice(-300)}` };
  } finally {
    await db.query('DROP TABLE IF EXISTS bare_comment_mention, bare_comment_annotation', []).catch(() => undefined);
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A thread body about the size of the bench's (JSON, without a single quote). */
const BODY = JSON.stringify({ commentText: 'Hey {{reviewer-1}}, {{reviewer-2}} and {{reviewer-3}}: please check', pad: 'x'.repeat(400) });
