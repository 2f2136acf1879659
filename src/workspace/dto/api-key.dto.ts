import { PageSizeField, PageTokenField } from '../../common/paging.js';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { applyDecorators } from '@nestjs/common';
import { checkArrayOf, checkBoolean, checkId, checkOneOf, checkString, IsId, Optional, OptionalNestedObject, Satisfies } from '../../common/validation.js';
import { PERSISTENCE_DB_REGIONS, REALTIME_DB_REGIONS } from '../regions.js';
import { checkEmail } from './checks.js';
import { EmailServiceFields, WebhookServiceFields } from '../../configs/dto/config.dto.js';

const OptionalBoolean = () => applyDecorators(ApiPropertyOptional({ type: Boolean }), Optional(), Satisfies(checkBoolean));

/** Email service options accepted at key creation; `sendgrid` is accepted for `thirdparty`. */
export class EmailServiceConfigInput extends EmailServiceFields {
  @ApiPropertyOptional({ enum: ['default', 'thirdparty', 'sendgrid'] })
  @Optional()
  @Satisfies(checkOneOf(['default', 'thirdparty', 'sendgrid']))
  type?: 'default' | 'thirdparty' | 'sendgrid';
}

/** Basic webhook options accepted at key creation. */
export class WebhookServiceConfigInput extends WebhookServiceFields {}

/** `POST /v2/workspace/apikey/create` (rest-interface part 4). */
export class CreateApiKeyRequest {
  @ApiProperty()
  @Satisfies(checkEmail)
  ownerEmail!: string;

  @ApiProperty({ enum: ['testing', 'production'] })
  @Satisfies(checkOneOf(['testing', 'production']))
  type!: 'testing' | 'production';

  @ApiPropertyOptional({ enum: PERSISTENCE_DB_REGIONS })
  @Optional()
  @Satisfies(checkOneOf(PERSISTENCE_DB_REGIONS))
  persistenceDBRegion?: string;

  @ApiPropertyOptional({ enum: REALTIME_DB_REGIONS })
  @Optional()
  @Satisfies(checkOneOf(REALTIME_DB_REGIONS))
  realtimeDBRegion?: string;

  @OptionalBoolean() createAuthToken?: boolean;

  @ApiPropertyOptional({ maxLength: 200 })
  @Optional()
  @Satisfies(checkString({ max: 200 }))
  apiKeyName?: string;

  /** Normalised like domains add; at most 100. */
  @ApiPropertyOptional({ type: [String] })
  @Optional()
  @Satisfies(checkArrayOf(checkString({ max: 2000 }), { max: 100 }))
  allowedDomains?: string[];

  @OptionalBoolean() addLocalHostToAllowedDomains?: boolean;
  @OptionalBoolean() useEmailService?: boolean;
  @OptionalBoolean() useWebhookService?: boolean;
  @OptionalBoolean() useNotificationService?: boolean;
  @OptionalBoolean() setDefaultNotificationTriggers?: boolean;
  @OptionalBoolean() setDefaultEmailTriggers?: boolean;
  @OptionalBoolean() requireAutoOrgUser?: boolean;
  @OptionalBoolean() enablePrivateComments?: boolean;

  @ApiPropertyOptional({ type: EmailServiceConfigInput })
  @OptionalNestedObject(() => EmailServiceConfigInput)
  emailServiceConfig?: EmailServiceConfigInput;

  @ApiPropertyOptional({ type: WebhookServiceConfigInput })
  @OptionalNestedObject(() => WebhookServiceConfigInput)
  webhookServiceConfig?: WebhookServiceConfigInput;
}

export class ListApiKeysRequest {
  /** Only these keys. */
  @ApiPropertyOptional({ type: [String] })
  @Optional()
  @Satisfies(checkArrayOf(checkId, { max: 100 }))
  apiKeys?: string[];

  @PageSizeField(100)
  pageSize?: number;

  @PageTokenField()
  pageToken?: string;
}

export class ApiKeyRequest {
  @ApiProperty()
  @IsId()
  apiKey!: string;
}

export class UpdateApiKeyRequest {
  @ApiProperty()
  @IsId()
  apiKey!: string;

  @ApiProperty({ maxLength: 200 })
  @Satisfies(checkString({ max: 200 }))
  apiKeyName!: string;
}

export class DomainsRequest {
  /** Full URLs or bare domains; `*.example.com` wildcards allowed; at most 100. */
  @ApiProperty({ type: [String], maxItems: 100 })
  @Satisfies(checkArrayOf(checkString({ max: 2000 }), { min: 1, max: 100 }))
  domains!: string[];
}
