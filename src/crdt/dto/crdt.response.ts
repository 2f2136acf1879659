import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { SuccessResult } from '../../common/openapi-responses.js';
import { crdtDataSchema } from './crdt.dto.js';

/** A CRDT record as `crdt/get` answers it (rest-interface part 2): one editor's content. */
export class CrdtRecordView {
  @ApiProperty({ description: 'The editor id.' }) id!: string;
  @ApiProperty(crdtDataSchema()) data!: unknown;
  @ApiProperty({ format: 'date-time', description: 'ISO 8601.' }) lastUpdate!: string;
  @ApiProperty({ type: 'string', nullable: true, description: 'The `userId` of the last write, null when it named none.' }) lastUpdatedBy!: string | null;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'The session the last write sent (`sessionId` of add, update or state update); null when it sent none.',
  })
  sessionId!: string | null;
}

export class CrdtRecordsResult extends SuccessResult {
  @ApiProperty({ type: [CrdtRecordView] }) data!: CrdtRecordView[];
  @ApiPropertyOptional({ description: "Present when more editors follow: the next page's `pageToken`." }) pageToken?: string;
}

/** An editor's Yjs state. */
export class CrdtStateView {
  @ApiProperty({ description: 'A Yjs update (base64): the whole state, or what `stateVector` lacks.' }) update!: string;
  @ApiProperty({ description: 'The state vector (base64).' }) stateVector!: string;
}

export class CrdtStateResult extends SuccessResult {
  @ApiProperty({ type: CrdtStateView }) data!: CrdtStateView;
}
