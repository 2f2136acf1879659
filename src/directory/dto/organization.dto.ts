import { PageSizeField, PageTokenField } from '../../common/paging.js';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { checkBoolean, checkString } from '../../common/validation/checks.js';
import { IsBatchWithMetadata, IsBool, IsIdArray, IsOptionalIdArray } from '../../common/validation/rules.js';
import { MAX_BATCH, MAX_FILTER_IDS } from '../../common/batch.js';
import { WithMetadata } from '../../common/openapi-responses.js';

export const ORGANIZATION_FIELDS = ['organizationId', 'organizationName', 'disabled'] as const;
const organizationItemFields = { organizationName: checkString({ max: 1000, allowEmpty: true }), disabled: checkBoolean };

/** `{ organizationId, organizationName?, disabled?, ...metadata }` (documentation; `organizationItemFields` validates). */
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
  @IsBatchWithMetadata('organizationId', organizationItemFields, MAX_BATCH)
  organizations!: OrganizationInput[];
}

export class GetOrganizationsRequest {
  @IsOptionalIdArray(MAX_FILTER_IDS)
  organizationIds?: string[];

  @PageSizeField()
  pageSize?: number;

  @PageTokenField()
  pageToken?: string;
}

export class OrganizationIdsRequest {
  @IsIdArray(MAX_BATCH, { min: 1, unique: true })
  organizationIds!: string[];
}

export class OrganizationsDisableStateRequest extends OrganizationIdsRequest {
  @IsBool()
  disabled!: boolean;
}
