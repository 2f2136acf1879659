import { ApiProperty } from '@nestjs/swagger';
import { SuccessResult } from '../../common/openapi-responses.js';

/** An advanced webhook endpoint (contract part 3): unset optional fields are null. */
export class EndpointView {
  @ApiProperty({ description: '`ep_…`' }) id!: string;
  @ApiProperty() url!: string;
  @ApiProperty({ type: String, nullable: true }) description!: string | null;
  @ApiProperty({ type: [String], nullable: true, description: 'Event types delivered; null: every event.' }) filterTypes!: string[] | null;
  @ApiProperty({ type: [String], nullable: true }) channels!: string[] | null;
  @ApiProperty() disabled!: boolean;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Deliveries per second; null: unlimited.' }) rateLimit!: number | null;
  @ApiProperty({ type: String, nullable: true }) uid!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, nullable: true }) metadata!: Record<string, string> | null;
  @ApiProperty({ description: 'ISO 8601.' }) createdAt!: string;
  @ApiProperty({ description: 'ISO 8601.' }) updatedAt!: string;
}

export class EndpointResult extends SuccessResult {
  @ApiProperty({ type: EndpointView }) data!: EndpointView;
}

/** A page of endpoints in creation order. */
export class EndpointsPageView {
  @ApiProperty({ type: [EndpointView] }) endpoints!: EndpointView[];
  @ApiProperty({ type: String, nullable: true, description: 'Continues with the next page; null on the last one.' }) iterator!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Goes back a page; null on the first one.' }) prevIterator!: string | null;
  @ApiProperty() done!: boolean;
}

export class EndpointsPageResult extends SuccessResult {
  @ApiProperty({ type: EndpointsPageView }) data!: EndpointsPageView;
}

/** An endpoint's signing secret. */
export class EndpointSecretView {
  @ApiProperty() endpointId!: string;
  @ApiProperty({ description: '`whsec_` + base64 of 24 bytes.' }) secret!: string;
}

export class EndpointSecretResult extends SuccessResult {
  @ApiProperty({ type: EndpointSecretView }) data!: EndpointSecretView;
}

export class RotatedSecretView {
  @ApiProperty() endpointId!: string;
  @ApiProperty({ description: 'The new signing secret (`whsec_…`).' }) secret!: string;
  @ApiProperty({ type: String, nullable: true, description: 'ISO 8601: until then the old secret signs too; null when it stopped at once.' })
  previousSecretExpiresAt!: string | null;
}

export class RotatedSecretResult extends SuccessResult {
  @ApiProperty({ type: RotatedSecretView }) data!: RotatedSecretView;
}

export class EndpointDeletedView {
  @ApiProperty() endpointId!: string;
  @ApiProperty({ type: Boolean, enum: [true] }) deleted!: true;
}

export class EndpointDeletedResult extends SuccessResult {
  @ApiProperty({ type: EndpointDeletedView }) data!: EndpointDeletedView;
}
