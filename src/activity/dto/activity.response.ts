import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { anyObject, SuccessResult, WithMetadata } from '../../common/openapi-responses.js';
import { actionUserSchema, anyJsonSchema } from './activity.dto.js';
import { FEATURE_TYPES } from '../feature-types.js';

/** Where the record was written (filled by the service), beside any keys of the caller's own. */
@WithMetadata("The caller's own keys sent on add; the three here are always the service's.")
export class ActivityMetadataView {
  @ApiProperty() apiKey!: string;
  @ApiProperty() documentId!: string;
  @ApiProperty() organizationId!: string;
}

/** An activity log record as `activities/get` answers it (rest-interface part 2). */
export class ActivityView {
  @ApiProperty() id!: string;
  @ApiProperty({ enum: FEATURE_TYPES }) featureType!: string;
  @ApiProperty() actionType!: string;
  @ApiPropertyOptional() targetEntityId?: string;
  @ApiProperty(actionUserSchema()) actionUser!: Record<string, unknown>;
  @ApiPropertyOptional() targetSubEntityId?: string;
  @ApiPropertyOptional(anyObject('Field name to `{ from, to }`.')) changes?: Record<string, unknown>;
  @ApiPropertyOptional(anyJsonSchema()) entityData?: unknown;
  @ApiPropertyOptional(anyJsonSchema()) entityTargetData?: unknown;
  @ApiPropertyOptional() displayMessageTemplate?: string;
  @ApiPropertyOptional(anyObject('Values for the placeholders.')) displayMessageTemplateData?: Record<string, unknown>;
  @ApiPropertyOptional() actionIcon?: string;
  @ApiPropertyOptional() isActivityResolverUsed?: boolean;
  @ApiPropertyOptional({ enum: [true], description: 'Added while the activity config was immutable: update and delete refuse it.' }) immutable?: true;
  @ApiProperty({ type: ActivityMetadataView }) metadata!: ActivityMetadataView;
  @ApiProperty({ description: 'Milliseconds since the epoch.' }) timestamp!: number;
}

export class ActivitiesResult extends SuccessResult {
  @ApiProperty({ type: [ActivityView] }) data!: ActivityView[];
  @ApiPropertyOptional({ description: "Present when more records follow: the next page's `pageToken`." }) pageToken?: string;
}
