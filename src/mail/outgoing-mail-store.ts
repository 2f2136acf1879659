import { Injectable } from '@nestjs/common';
import { newSortableId } from '../common/ids.js';
import { Secrets } from '../common/secrets.js';
import { REKEY_BATCH, type SecretsRekey } from '../common/secrets-rekey.js';
import { Sql } from '../database/sql.js';
import { Transactions } from '../database/transactions.js';

/** What became of a mail, as `outgoing_mail` records it. */
export type MailStatus = 'sent' | 'kept' | 'failed';

/** A recorded mail's fields. */
export interface RecordedMail {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/**
 * Owner of `outgoing_mail`: a record of each mail the service sent or kept, its content
 * encrypted under the master key (login-link mails carry single-use tokens). Plain SQL: one
 * insert per mail, and the table has no entity.
 */
@Injectable()
export class OutgoingMailStore {
  constructor(
    private readonly sql: Sql,
    private readonly transactions: Transactions,
    private readonly secrets: Secrets,
  ) {}

  /** Records a mail in a unit of work of its own. */
  async record(mail: RecordedMail, transport: 'smtp' | 'log', status: MailStatus, error: string | null): Promise<void> {
    const content = this.secrets.encrypt(JSON.stringify({ text: mail.text, ...(mail.html === undefined ? {} : { html: mail.html }) }));
    await this.transactions.run((manager) =>
      this.sql.insert(
        manager,
        'outgoing_mail',
        ['id', 'recipient', 'subject', 'content_enc', 'transport', 'status', 'error', 'created_at'],
        [[newSortableId('msg_'), mail.to.slice(0, 320), mail.subject.slice(0, 500), content, transport, status, error, Date.now()]],
      ),
    );
  }

  /**
   * Master key rotation (see `SecretsRekey`): every recorded mail's content sealed under the new
   * key. Plain SQL: batched keyset reads by id and one update per batch (the table grows with
   * every mail, so the rotation reports its progress).
   */
  async rekeySecrets(rekey: SecretsRekey): Promise<void> {
    const { manager } = rekey;
    const [total] = await this.sql.run<{ n: number | string }>(manager, 'SELECT COUNT(*) AS n FROM outgoing_mail', {});
    await rekey.inBatches(
      'outgoing_mail',
      Number(total!.n),
      (after) =>
        this.sql.run<{ id: string; content_enc: string }>(
          manager,
          `SELECT id, content_enc FROM outgoing_mail${after === null ? '' : ' WHERE id > :after'} ORDER BY id LIMIT ${REKEY_BATCH}`,
          after === null ? {} : { after },
        ),
      async (rows) => {
        const rewritten = rows.map((row) => [row.id, rekey.reseal(row.content_enc, { table: 'outgoing_mail', column: 'content_enc', row: row.id })]);
        if (!rekey.writing) return;
        await this.sql.updateRows(
          manager,
          'outgoing_mail',
          { match: [{ name: 'id', type: 'varchar' }], set: [{ name: 'content_enc', type: 'text' }] },
          rewritten,
        );
      },
    );
  }
}
