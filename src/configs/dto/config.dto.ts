import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { checkArrayOf, checkInteger, checkOneOf, checkPlainObject, checkShape, checkString } from '../../common/validation/checks.js';
import { IsOptionalBool, IsOptionalInteger, IsOptionalOneOf, NestedObject, Optional, OptionalNestedObject, Satisfies } from '../../common/validation/rules.js';
import { COMMENT_EVENTS, EVENT_TYPES, TRIGGER_GROUPS, type GroupedTriggers, type Triggers } from '../../common/event-catalogue.js';
import { EmailServiceFields, WebhookServiceFields } from '../../workspace/dto/service-config-fields.dto.js';
import { publicKeyProblem } from '../public-key.js';
import { ACCESS_TYPES, type AccessType } from '../../common/access-types.js';
import { AI_PROVIDERS, type AiProvider } from '../ai-model-keys.js';
import { MIME_PATTERN } from '../../workspace/attachment-limits.js';

/** Triggers: a flat object of catalogue event types to booleans (contract part 3). */
function checkTriggers(value: unknown): string | undefined {
  const shape = checkPlainObject(value);
  if (shape) return shape;
  for (const [event, on] of Object.entries(value as Record<string, unknown>)) {
    if (!EVENT_TYPES.includes(event)) return `.${event} is not an event type of the catalogue`;
    if (typeof on !== 'boolean') return `.${event} must be a boolean`;
  }
  return undefined;
}
/**
 * Notification triggers: flat as the contract has them, or grouped by feature as upstream's
 * notification config sends them (`{ comment: { "comment.add": true }, huddle: {...} }`), each
 * group holding only its own feature's events.
 */
function checkGroupedTriggers(value: unknown): string | undefined {
  const shape = checkPlainObject(value);
  if (shape) return shape;
  for (const [key, group] of Object.entries(value as Record<string, unknown>)) {
    const events = TRIGGER_GROUPS[key];
    if (!events || typeof group === 'boolean') {
      const problem = checkTriggers({ [key]: group });
      if (problem)
        return events
          ? `.${key} must be an object of ${key} event types to booleans`
          : problem.replace('of the catalogue', 'of the catalogue nor a feature group');
      continue;
    }
    if (checkPlainObject(group)) return `.${key} must be an object of ${key} event types to booleans`;
    for (const [event, on] of Object.entries(group as Record<string, unknown>)) {
      if (!events.includes(event)) return `.${key}.${event} is not a ${key} event type`;
      if (typeof on !== 'boolean') return `.${key}.${event} must be a boolean`;
    }
  }
  return undefined;
}

/** OpenAPI of the flat triggers (`checkTriggers`). */
const triggersSchema = () => ({ type: 'object' as const, additionalProperties: { type: 'boolean' as const } });
/** OpenAPI of a webhook encryption key (`publicKeyProblem`). */
const publicKeySchema = () => ({ description: 'base64 DER of an RSA public key (SPKI or PKCS#1), at least 2048 bits' });

/** `sendgrid` is accepted for `thirdparty`; `custom` is what first-enable seeding sets. */
export const EMAIL_TYPES_ACCEPTED = ['default', 'thirdparty', 'sendgrid', 'custom'] as const;

export class EmailServiceConfigUpdate extends EmailServiceFields {
  @IsOptionalOneOf(EMAIL_TYPES_ACCEPTED)
  type?: (typeof EMAIL_TYPES_ACCEPTED)[number];

  @ApiPropertyOptional(triggersSchema()) @Optional() @Satisfies(checkTriggers) triggers?: Triggers;
}

export class UpdateEmailConfigRequest {
  @ApiPropertyOptional({ type: Boolean }) @IsOptionalBool() useEmailService?: boolean;

  @OptionalNestedObject(() => EmailServiceConfigUpdate)
  emailServiceConfig?: EmailServiceConfigUpdate;
}

export class WebhookServiceConfigUpdate extends WebhookServiceFields {
  @ApiPropertyOptional({ type: Boolean }) @IsOptionalBool() encodeData?: boolean;
  @ApiPropertyOptional({ type: Boolean }) @IsOptionalBool() encryptData?: boolean;
  @ApiPropertyOptional(publicKeySchema()) @Optional() @Satisfies(publicKeyProblem) publicKey?: string;
  @ApiPropertyOptional({ type: Boolean }) @IsOptionalBool() enableDataProtection?: boolean;
  @ApiPropertyOptional(triggersSchema()) @Optional() @Satisfies(checkTriggers) triggers?: Triggers;
}

export class UpdateWebhookConfigRequest {
  @ApiPropertyOptional({ type: Boolean }) @IsOptionalBool() useWebhookService?: boolean;

  @OptionalNestedObject(() => WebhookServiceConfigUpdate)
  webhookServiceConfig?: WebhookServiceConfigUpdate;
}

export class DelayConfigUpdate {
  @ApiPropertyOptional({ type: Boolean }) @IsOptionalBool() isEnabled?: boolean;
  @ApiPropertyOptional({ description: 'Seconds to hold a notification (10 s to 6 months). Default: 10.' })
  @IsOptionalInteger(10, 15_552_000)
  delaySeconds?: number;
}

export class BatchWindowUpdate {
  @ApiPropertyOptional({ type: Boolean }) @IsOptionalBool() isEnabled?: boolean;
  @ApiPropertyOptional({ description: 'Seconds to gather activities (10 s to 1 week). Default: 10.' })
  @IsOptionalInteger(10, 604_800)
  batchWindowSeconds?: number;
  @ApiPropertyOptional({ description: 'Activities per batch at most. Default: 2.' })
  @IsOptionalInteger(2, 50)
  maxActivities?: number;
}

export class BatchConfigUpdate {
  @OptionalNestedObject(() => BatchWindowUpdate) document?: BatchWindowUpdate;
  @OptionalNestedObject(() => BatchWindowUpdate) user?: BatchWindowUpdate;
}

export class NotificationServiceConfigUpdate {
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { oneOf: [{ type: 'boolean' }, { type: 'object', additionalProperties: { type: 'boolean' } }] },
    description: 'Event types to booleans, flat or grouped by feature (`comment`, `huddle`, `crdt`, `recorder`, `reaction`); stored and answered flat.',
  })
  @Optional()
  @Satisfies(checkGroupedTriggers)
  triggers?: GroupedTriggers;
  /** Upstream's delay and batching settings: stored and answered; deliveries do not apply them yet. */
  @OptionalNestedObject(() => DelayConfigUpdate) delayConfig?: DelayConfigUpdate;
  @OptionalNestedObject(() => BatchConfigUpdate) batchConfig?: BatchConfigUpdate;
}

export class UpdateNotificationConfigRequest {
  @ApiPropertyOptional({ type: Boolean }) @IsOptionalBool() useNotificationService?: boolean;

  @OptionalNestedObject(() => NotificationServiceConfigUpdate)
  notificationServiceConfig?: NotificationServiceConfigUpdate;
}

const checkAiKeys = checkArrayOf(
  checkShape({ provider: checkOneOf(AI_PROVIDERS), customerApiKey: checkString({ max: 1000 }) }, ['provider', 'customerApiKey']),
  { min: 1, max: AI_PROVIDERS.length },
);

class AiModelApiKey {
  @ApiProperty({ enum: AI_PROVIDERS }) provider!: AiProvider;
  @ApiProperty({ description: 'Encrypted at rest; never answered (only a masked form).' }) customerApiKey!: string;
}

/** Upstream's apikeyconfig update: every field optional, at least one; merged, never removed. */
/** A MIME type or a whole type (`image/*`), compared in lower case. */
const checkMimeType = (value: unknown): string | undefined =>
  typeof value === 'string' && value.length <= 255 && MIME_PATTERN.test(value) ? undefined : 'must be a MIME type (`type/subtype`) or a whole type (`type/*`)';

/** The key's own attachment limits: each within the service's; `null` returns to the service's. */
export class AttachmentConfigUpdate {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    nullable: true,
    description: 'Largest file in bytes, at most ATTACHMENT_MAX_BYTES; null: the service limit.',
  })
  @Optional({ nullable: true })
  @Satisfies(checkInteger(1, Number.MAX_SAFE_INTEGER))
  maxBytes?: number | null;

  @ApiPropertyOptional({
    type: [String],
    nullable: true,
    minItems: 1,
    maxItems: 100,
    description: 'MIME types accepted (`type/*` for a whole type), each one ATTACHMENT_TYPES accepts; null: the service list.',
  })
  @Optional({ nullable: true })
  @Satisfies(checkArrayOf(checkMimeType, { min: 1, max: 100, unique: true }))
  types?: string[] | null;
}

export class UpdateApiKeyConfigRequest {
  @ApiPropertyOptional({ type: Boolean }) @IsOptionalBool() enablePrivateComments?: boolean;
  @ApiPropertyOptional({ type: Boolean }) @IsOptionalBool() requireJwtToken?: boolean;
  @ApiPropertyOptional({ type: Boolean }) @IsOptionalBool() requireAutoOrgUser?: boolean;
  @IsOptionalOneOf(ACCESS_TYPES) defaultDocumentAccessType?: AccessType;

  @ApiPropertyOptional({ type: [AiModelApiKey], minItems: 1 })
  @Optional()
  @Satisfies((value) => {
    const problem = checkAiKeys(value);
    if (problem) return problem;
    const providers = (value as AiModelApiKey[]).map((entry) => entry.provider);
    return new Set(providers).size === providers.length ? undefined : 'names a provider twice';
  })
  aiModelApiKey?: AiModelApiKey[];

  @ApiPropertyOptional({ description: "The key's own attachment limits (ours), within the service's." })
  @OptionalNestedObject(() => AttachmentConfigUpdate)
  attachmentConfig?: AttachmentConfigUpdate;
}

export class UpdateAdvancedWebhookConfigRequest {
  @ApiPropertyOptional({ type: Boolean }) @IsOptionalBool() isEnabled?: boolean;
  @ApiPropertyOptional({ type: Boolean }) @IsOptionalBool() encryptData?: boolean;
  @ApiPropertyOptional({ type: Boolean }) @IsOptionalBool() encodeData?: boolean;
  @ApiPropertyOptional(publicKeySchema()) @Optional() @Satisfies(publicKeyProblem) publicKey?: string;
  @ApiPropertyOptional({ type: Boolean }) @IsOptionalBool() enableDataProtection?: boolean;
}

/** Activity-log triggers: upstream supports the `comment` group only, a map of comment event types to booleans. */
function checkActivityTriggers(value: unknown): string | undefined {
  const shape = checkPlainObject(value);
  if (shape) return shape;
  for (const [group, events] of Object.entries(value as Record<string, unknown>)) {
    if (group !== 'comment') return `.${group} is not a trigger group of activity logs (only comment)`;
    if (checkPlainObject(events)) return '.comment must be an object of comment event types to booleans';
    for (const [event, on] of Object.entries(events as Record<string, unknown>)) {
      if (!(COMMENT_EVENTS as readonly string[]).includes(event)) return `.comment.${event} is not a comment event type`;
      if (typeof on !== 'boolean') return `.comment.${event} must be a boolean`;
    }
  }
  return undefined;
}

export class ActivityServiceConfigUpdate {
  @ApiPropertyOptional({ type: Boolean }) @IsOptionalBool() isEnabled?: boolean;
  @ApiPropertyOptional({ type: Boolean }) @IsOptionalBool() immutable?: boolean;
  @ApiPropertyOptional({ description: 'Epoch ms when activity logging was enabled; kept when omitted.' })
  @IsOptionalInteger(0, Number.MAX_SAFE_INTEGER)
  enabledTime?: number;
  @ApiPropertyOptional({
    type: 'object',
    properties: { comment: { type: 'object', additionalProperties: { type: 'boolean' } } },
    additionalProperties: false,
    description: 'Comment event types to booleans, under `comment`; merged key by key.',
  })
  @Optional()
  @Satisfies(checkActivityTriggers)
  triggers?: { comment?: Record<string, boolean> };
}

/** Upstream's activityconfig update: at least one sub-field, deep-merged into what is stored. */
export class UpdateActivityConfigRequest {
  @NestedObject(() => ActivityServiceConfigUpdate)
  activityServiceConfig!: ActivityServiceConfigUpdate;
}
