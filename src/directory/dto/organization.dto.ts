import { PageSizeField, PageTokenField } from '../../common/paging.js';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { checkArrayOf, checkBoolean, checkId, checkItems, checkString, IsIdArray, Optional, Satisfies } from '../../common/validation.js';
import { MAX_BATCH, MAX_FILTER_IDS } from '../batch.js';
import { WithMetadata } from '../../common/openapi-responses.js';

export const ORGANIZATION_FIELDS = ['organizationId', 'organizationName', 'disabled'] as const;
const organizationItems = checkItems('organizationId', { organizationName: checkString({ max: 1000, allowEmpty: true }), disabled: checkBoolean }, MAX_BATCH);

/** `{ organizationId, organizationName?, disabled?, ...metadata }` (documentation; `organizationItems` validates). */
@WithMetadata()
export class OrganizationInput {
  @ApiProperty() organizationId!: string;
  @ApiPropertyOptional({ maxLength: 1000 }) organizationName?: string;
  @ApiPropertyOptional() disabled?: boolean;
  [metadata: string]: unknown;
}

export class OrganizationsRequest {
  /** At most 500; keys beyond the named ones are kept as metadata. */
  @ApiProperty({ type: [OrganizationInput], maxItems: MAX_BATCH })
  @Satisfies(organizationItems)
  organizations!: OrganizationInput[];
}

export class GetOrganizationsRequest {
  @ApiPropertyOptional({ type: [String], maxItems: MAX_FILTER_IDS })
  @Optional()
  @IsIdArray(MAX_FILTER_IDS)
  organizationIds?: string[];

  @PageSizeField()
  pageSize?: number;

  @PageTokenField()
  pageToken?: string;
}

export class OrganizationIdsRequest {
  @ApiProperty({ type: [String], maxItems: MAX_BATCH })
  @Satisfies(checkArrayOf(checkId, { min: 1, max: MAX_BATCH, unique: true }))
  organizationIds!: string[];
}

export class OrganizationsDisableStateRequest extends OrganizationIdsRequest {
  @ApiProperty()
  @Satisfies(checkBoolean)
  disabled!: boolean;
}
