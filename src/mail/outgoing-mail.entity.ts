import { Column, Entity, PrimaryColumn } from 'typeorm';
import { TextColumn, TimestampColumn } from '../database/column-types.js';

export type MailStatus = 'sent' | 'kept' | 'failed';

/**
 * Every mail the service sends, or keeps when no SMTP transport is configured. The content is
 * encrypted: login-link mails carry single-use tokens.
 */
@Entity('outgoing_mail')
export class OutgoingMailEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  @Column({ type: 'varchar', length: 320 })
  recipient!: string;

  @Column({ type: 'varchar', length: 500 })
  subject!: string;

  /** Encrypted JSON `{ text }`. */
  @TextColumn('content_enc')
  contentEnc!: string;

  @Column({ type: 'varchar', length: 20 })
  transport!: 'smtp' | 'log';

  @Column({ type: 'varchar', length: 20 })
  status!: MailStatus;

  @TextColumn('error', { nullable: true })
  error!: string | null;

  @TimestampColumn('created_at')
  createdAt!: number;
}
