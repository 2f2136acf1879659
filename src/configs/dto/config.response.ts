import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { mapOf, SuccessResult } from '../../common/openapi-responses.js';

/** Triggers as the configs answer them: catalogue event type to on/off. */
const TRIGGERS = { type: 'object', additionalProperties: { type: 'boolean' }, description: 'Event type to on/off; absent until seeded or set.' } as const;

/** The e-mail service settings, secrets as they were set (contract part 3). */
export class EmailServiceConfigView {
  @ApiProperty({ enum: ['default', 'thirdparty', 'custom'] }) type!: string;
  @ApiProperty({ description: 'Provider API key (secret); "" when unset.' }) apiKey!: string;
  @ApiProperty() fromEmail!: string;
  @ApiProperty() fromCompany!: string;
  @ApiProperty() commentTemplateId!: string;
  @ApiProperty() tagTemplateId!: string;
  @ApiPropertyOptional(TRIGGERS) triggers?: Record<string, boolean>;
}

export class EmailConfigView {
  @ApiProperty() useEmailService!: boolean;
  @ApiProperty({ type: EmailServiceConfigView }) emailServiceConfig!: EmailServiceConfigView;
}

export class EmailConfigResult extends SuccessResult {
  @ApiProperty({ type: EmailConfigView }) data!: EmailConfigView;
}

/** The basic webhook settings, secrets as they were set (contract part 3). */
export class WebhookServiceConfigView {
  @ApiProperty({ description: 'Sent as `Authorization: Basic` (secret); "" when unset.' }) authToken!: string;
  @ApiProperty() rawNotificationUrl!: string;
  @ApiProperty() processedNotificationUrl!: string;
  @ApiProperty() encodeData!: boolean;
  @ApiProperty() encryptData!: boolean;
  @ApiProperty({ description: 'base64 DER of an RSA public key; "" when unset.' }) publicKey!: string;
  @ApiProperty() enableDataProtection!: boolean;
  @ApiPropertyOptional(TRIGGERS) triggers?: Record<string, boolean>;
}

export class WebhookConfigView {
  @ApiProperty() useWebhookService!: boolean;
  @ApiProperty({ type: WebhookServiceConfigView }) webhookServiceConfig!: WebhookServiceConfigView;
}

export class WebhookConfigResult extends SuccessResult {
  @ApiProperty({ type: WebhookConfigView }) data!: WebhookConfigView;
}

export class DelayConfigView {
  @ApiProperty() isEnabled!: boolean;
  @ApiProperty({ type: 'integer' }) delaySeconds!: number;
}

export class BatchWindowView {
  @ApiProperty() isEnabled!: boolean;
  @ApiProperty({ type: 'integer' }) batchWindowSeconds!: number;
  @ApiProperty({ type: 'integer' }) maxActivities!: number;
}

export class BatchConfigView {
  @ApiProperty({ type: BatchWindowView }) document!: BatchWindowView;
  @ApiProperty({ type: BatchWindowView }) user!: BatchWindowView;
}

export class NotificationServiceConfigView {
  @ApiPropertyOptional(TRIGGERS) triggers?: Record<string, boolean>;
  @ApiProperty({ type: DelayConfigView, description: 'Defaults on a key that never set it: off, 10 s.' }) delayConfig!: DelayConfigView;
  @ApiProperty({ type: BatchConfigView, description: 'Defaults: off, 10 s windows, 2 activities.' }) batchConfig!: BatchConfigView;
}

export class NotificationConfigView {
  @ApiProperty() useNotificationService!: boolean;
  @ApiProperty({ type: NotificationServiceConfigView }) notificationServiceConfig!: NotificationServiceConfigView;
}

export class NotificationConfigResult extends SuccessResult {
  @ApiProperty({ type: NotificationConfigView }) data!: NotificationConfigView;
}

/** The advanced webhook config (rest-interface part 2); the defaults when never configured. */
export class AdvancedWebhookConfigView {
  @ApiProperty() isEnabled!: boolean;
  @ApiProperty() encryptData!: boolean;
  @ApiProperty() encodeData!: boolean;
  @ApiProperty({ description: 'base64 DER of an RSA public key; "" when unset.' }) publicKey!: string;
  @ApiProperty() enableDataProtection!: boolean;
}

export class AdvancedWebhookConfigResult extends SuccessResult {
  @ApiProperty({ type: AdvancedWebhookConfigView }) data!: AdvancedWebhookConfigView;
}

/** An AI model key as answered: masked. */
export class AiModelKeyView {
  @ApiProperty({ description: 'The first characters, the rest hidden.' }) displayText!: string;
}

/** The key's owner, plan and settings (upstream's apikeyconfig). */
/** The attachment limits a key's uploads get (ours): its own within the service's. */
export class AttachmentConfigView {
  @ApiProperty({ type: 'integer', description: "Largest file in bytes: the key's own limit, or ATTACHMENT_MAX_BYTES when lower or unset." }) maxBytes!: number;
  @ApiProperty({ type: [String], description: "Types accepted: the key's own list (each also checked against ATTACHMENT_TYPES), or ATTACHMENT_TYPES." })
  types!: string[];
  @ApiProperty({ description: "Whether either limit is the key's own (false: the service's)." }) isCustom!: boolean;
}

export class ApiKeyConfigView {
  @ApiProperty() ownerEmail!: string;
  @ApiProperty({ type: 'object', properties: { type: { type: 'string', description: 'The workspace plan (`free`, `paid`).' } }, required: ['type'] })
  planInfo!: { type: string };
  @ApiProperty({ enum: ['public', 'organizationPrivate', 'restricted'] }) defaultDocumentAccessType!: string;
  @ApiProperty() isPrivateCommentsEnabled!: boolean;
  @ApiProperty() requireJwtToken!: boolean;
  @ApiProperty() requireAutoOrgUser!: boolean;
  @ApiPropertyOptional(mapOf(AiModelKeyView, 'By provider; absent when no AI key is stored.')) aiModelsConfig?: Record<string, AiModelKeyView>;
  @ApiProperty({ type: () => AttachmentConfigView }) attachmentConfig!: AttachmentConfigView;
}

export class ApiKeyConfigResult extends SuccessResult {
  @ApiProperty({ type: ApiKeyConfigView }) data!: ApiKeyConfigView;
}

/** What an update wrote: the post-write values of the fields sent. */
export class ApiKeyConfigEchoView {
  @ApiPropertyOptional() enablePrivateComments?: boolean;
  @ApiPropertyOptional() requireJwtToken?: boolean;
  @ApiPropertyOptional() requireAutoOrgUser?: boolean;
  @ApiPropertyOptional({ enum: ['public', 'organizationPrivate', 'restricted'] }) defaultDocumentAccessType?: string;
  @ApiPropertyOptional(mapOf(AiModelKeyView, 'Every stored AI key, masked, when aiModelApiKey was sent.')) aiModelsConfig?: Record<string, AiModelKeyView>;
  @ApiPropertyOptional({ type: () => AttachmentConfigView, description: 'The limits uploads now get, when attachmentConfig was sent.' })
  attachmentConfig?: AttachmentConfigView;
}

export class ApiKeyConfigEchoResult extends SuccessResult {
  @ApiProperty({ type: ApiKeyConfigEchoView }) data!: ApiKeyConfigEchoView;
}

/** Upstream's activity logs configuration. */
export class ActivityServiceConfigView {
  @ApiProperty() isEnabled!: boolean;
  @ApiPropertyOptional() immutable?: boolean;
  @ApiPropertyOptional({ type: 'integer', description: 'Epoch ms when activity logging was enabled.' }) enabledTime?: number;
  @ApiPropertyOptional({
    type: 'object',
    properties: { comment: { type: 'object', additionalProperties: { type: 'boolean' } } },
    additionalProperties: false,
    description: 'Comment event types to booleans.',
  })
  triggers?: { comment?: Record<string, boolean> };
}

export class ActivityConfigView {
  @ApiProperty({ type: ActivityServiceConfigView }) activityServiceConfig!: ActivityServiceConfigView;
}

/** activityconfig get, and update's echo of what is now stored. */
export class ActivityConfigResult extends SuccessResult {
  @ApiProperty({ type: ActivityConfigView }) data!: ActivityConfigView;
}
