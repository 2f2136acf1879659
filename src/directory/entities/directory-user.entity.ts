import { KeyScopedRecord } from './organization-scoped.record.js';
import { Entity } from 'typeorm';
import { JsonColumn, TextColumn } from '../../database/column-types.js';

/** A user known to an API key; where they belong is held by grants. */
@Entity('directory_user')
export class DirectoryUserEntity extends KeyScopedRecord {
  @TextColumn('name', { nullable: true })
  name!: string | null;

  @TextColumn('email', { nullable: true })
  email!: string | null;

  @TextColumn('initial', { nullable: true })
  initial!: string | null;

  @JsonColumn('metadata')
  metadata!: Record<string, unknown>;
}
