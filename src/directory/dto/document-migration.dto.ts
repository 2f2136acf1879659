import { ApiProperty } from '@nestjs/swagger';
import { IsId } from '../../common/validation/rules.js';
import { SuccessResult } from '../../common/openapi-responses.js';
import { MIGRATION_STATUSES } from '../document-migration-store.js';

/** `organizations/documents/migrate` (upstream's fields). */
export class MigrateDocumentRequest {
  @IsId() organizationId!: string;
  /** The document to migrate; it must exist. */
  @ApiProperty({ description: 'The document to migrate; it must exist.' }) @IsId() documentId!: string;
  /** Its new id, which no document of the organization may have. */
  @ApiProperty({ description: 'The new id; no document of the organization may have it (ALREADY_EXISTS).' }) @IsId() newDocumentId!: string;
}

/** `organizations/documents/migrate/status` (upstream's fields). */
export class MigrationStatusRequest {
  @IsId() organizationId!: string;
  @ApiProperty({ description: 'The `migrationId` that `organizations/documents/migrate` answered.' }) @IsId() migrationId!: string;
}

export class MigrationStartedView {
  @ApiProperty({ description: 'Ask `organizations/documents/migrate/status` with it.' }) migrationId!: string;
}

export class MigrationStartedResult extends SuccessResult {
  @ApiProperty({ type: MigrationStartedView }) data!: MigrationStartedView;
}

export class MigrationStatusView {
  @ApiProperty() migrationId!: string;
  @ApiProperty({
    enum: MIGRATION_STATUSES,
    description: "Upstream's values. A migration here completes within the request that starts it, so this is always `completed`.",
  })
  status!: string;
}

export class MigrationStatusResult extends SuccessResult {
  @ApiProperty({ type: MigrationStatusView }) data!: MigrationStatusView;
}
