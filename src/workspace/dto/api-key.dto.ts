import { PageSizeField, PageTokenField } from '../../common/paging.js';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsEmailAddress,
  IsId,
  IsOneOf,
  IsOptionalBool,
  IsOptionalIdArray,
  IsOptionalOneOf,
  IsOptionalText,
  IsOptionalTextArray,
  IsText,
  IsTextArray,
  OptionalNestedObject,
} from '../../common/validation/rules.js';
import { PERSISTENCE_DB_REGIONS, REALTIME_DB_REGIONS } from '../regions.js';
import { EmailServiceFields, WebhookServiceFields } from './service-config-fields.dto.js';

/** Email service options accepted at key creation; `sendgrid` is accepted for `thirdparty`. */
export class EmailServiceConfigInput extends EmailServiceFields {
  @IsOptionalOneOf(['default', 'thirdparty', 'sendgrid'])
  type?: 'default' | 'thirdparty' | 'sendgrid';
}

/** Basic webhook options accepted at key creation. */
export class WebhookServiceConfigInput extends WebhookServiceFields {}

/** `POST /v2/workspace/apikey/create` (rest-interface part 4). */
export class CreateApiKeyRequest {
  @ApiProperty()
  @IsEmailAddress()
  ownerEmail!: string;

  @IsOneOf(['testing', 'production'])
  type!: 'testing' | 'production';

  @IsOptionalOneOf(PERSISTENCE_DB_REGIONS)
  persistenceDBRegion?: string;

  @IsOptionalOneOf(REALTIME_DB_REGIONS)
  realtimeDBRegion?: string;

  @ApiPropertyOptional({ type: Boolean }) @IsOptionalBool() createAuthToken?: boolean;

  @IsOptionalText(200)
  apiKeyName?: string;

  /** Normalised like domains add; at most 100. */
  @ApiPropertyOptional({ type: [String] })
  @IsOptionalTextArray(2000, { max: 100 })
  allowedDomains?: string[];

  @ApiPropertyOptional({ type: Boolean }) @IsOptionalBool() addLocalHostToAllowedDomains?: boolean;
  @ApiPropertyOptional({ type: Boolean }) @IsOptionalBool() useEmailService?: boolean;
  @ApiPropertyOptional({ type: Boolean }) @IsOptionalBool() useWebhookService?: boolean;
  @ApiPropertyOptional({ type: Boolean }) @IsOptionalBool() useNotificationService?: boolean;
  @ApiPropertyOptional({ type: Boolean }) @IsOptionalBool() setDefaultNotificationTriggers?: boolean;
  @ApiPropertyOptional({ type: Boolean }) @IsOptionalBool() setDefaultEmailTriggers?: boolean;
  @ApiPropertyOptional({ type: Boolean }) @IsOptionalBool() requireAutoOrgUser?: boolean;
  @ApiPropertyOptional({ type: Boolean }) @IsOptionalBool() enablePrivateComments?: boolean;

  @OptionalNestedObject(() => EmailServiceConfigInput)
  emailServiceConfig?: EmailServiceConfigInput;

  @OptionalNestedObject(() => WebhookServiceConfigInput)
  webhookServiceConfig?: WebhookServiceConfigInput;
}

export class ListApiKeysRequest {
  /** Only these keys. */
  @ApiPropertyOptional({ type: [String] })
  @IsOptionalIdArray(100)
  apiKeys?: string[];

  @PageSizeField(100)
  pageSize?: number;

  @PageTokenField()
  pageToken?: string;
}

export class ApiKeyRequest {
  @IsId()
  apiKey!: string;
}

export class UpdateApiKeyRequest {
  @IsId()
  apiKey!: string;

  @IsText(200)
  apiKeyName!: string;
}

export class DomainsRequest {
  /** Full URLs or bare domains; `*.example.com` wildcards allowed; at most 100. */
  @ApiProperty({ type: [String], maxItems: 100 })
  @IsTextArray(2000, { min: 1, max: 100 })
  domains!: string[];
}
