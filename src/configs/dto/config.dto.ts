import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { ValidateNested } from 'class-validator';
import { checkBoolean, checkOneOf, checkPlainObject, checkString, NestedType, Optional, Satisfies } from '../../common/validation.js';
import { EVENT_TYPES, type Triggers } from '../../events/event-catalogue.js';
import { checkEmail, checkHttpUrl } from '../../workspace/dto/checks.js';
import { publicKeyProblem } from '../public-key.js';

const OptionalBoolean = () => applyDecorators(ApiPropertyOptional({ type: Boolean }), Optional(), Satisfies(checkBoolean));
const OptionalText = (max = 500) => applyDecorators(ApiPropertyOptional({ maxLength: max }), Optional(), Satisfies(checkString({ max, allowEmpty: true })));
const NestedObject = (type: () => new () => object) => applyDecorators(Optional(), Satisfies(checkPlainObject), ValidateNested(), NestedType(type));

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
const OptionalTriggers = () => applyDecorators(ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'boolean' } }), Optional(), Satisfies(checkTriggers));
const OptionalPublicKey = () =>
  applyDecorators(ApiPropertyOptional({ description: 'base64 DER of an RSA public key (SPKI or PKCS#1), at least 2048 bits' }), Optional(), Satisfies(publicKeyProblem));
const OptionalUrl = () => applyDecorators(ApiPropertyOptional(), Optional(), Satisfies(checkHttpUrl(2000)));

/** `sendgrid` is accepted for `thirdparty`; `custom` is what first-enable seeding sets. */
export const EMAIL_TYPES_ACCEPTED = ['default', 'thirdparty', 'sendgrid', 'custom'] as const;

/** E-mail service fields sent both at key creation and in config updates. */
export class EmailServiceFields {
  @OptionalText(1000) apiKey?: string;

  @ApiPropertyOptional()
  @Optional()
  @Satisfies((value) => (value === '' ? undefined : checkEmail(value)))
  fromEmail?: string;

  @OptionalText(200) fromCompany?: string;
  @OptionalText(200) commentTemplateId?: string;
  @OptionalText(200) tagTemplateId?: string;
}

export class EmailServiceConfigUpdate extends EmailServiceFields {
  @ApiPropertyOptional({ enum: EMAIL_TYPES_ACCEPTED })
  @Optional()
  @Satisfies(checkOneOf(EMAIL_TYPES_ACCEPTED))
  type?: (typeof EMAIL_TYPES_ACCEPTED)[number];

  @OptionalTriggers() triggers?: Triggers;
}

export class UpdateEmailConfigRequest {
  @OptionalBoolean() useEmailService?: boolean;

  @ApiPropertyOptional({ type: EmailServiceConfigUpdate })
  @NestedObject(() => EmailServiceConfigUpdate)
  emailServiceConfig?: EmailServiceConfigUpdate;
}

/** Basic webhook fields sent both at key creation and in config updates. */
export class WebhookServiceFields {
  @OptionalText(1000) authToken?: string;
  @OptionalUrl() rawNotificationUrl?: string;
  @OptionalUrl() processedNotificationUrl?: string;
}

export class WebhookServiceConfigUpdate extends WebhookServiceFields {
  @OptionalBoolean() encodeData?: boolean;
  @OptionalBoolean() encryptData?: boolean;
  @OptionalPublicKey() publicKey?: string;
  @OptionalBoolean() enableDataProtection?: boolean;
  @OptionalTriggers() triggers?: Triggers;
}

export class UpdateWebhookConfigRequest {
  @OptionalBoolean() useWebhookService?: boolean;

  @ApiPropertyOptional({ type: WebhookServiceConfigUpdate })
  @NestedObject(() => WebhookServiceConfigUpdate)
  webhookServiceConfig?: WebhookServiceConfigUpdate;
}

export class NotificationServiceConfigUpdate {
  @OptionalTriggers() triggers?: Triggers;
}

export class UpdateNotificationConfigRequest {
  @OptionalBoolean() useNotificationService?: boolean;

  @ApiPropertyOptional({ type: NotificationServiceConfigUpdate })
  @NestedObject(() => NotificationServiceConfigUpdate)
  notificationServiceConfig?: NotificationServiceConfigUpdate;
}

export class UpdateAdvancedWebhookConfigRequest {
  @OptionalBoolean() isEnabled?: boolean;
  @OptionalBoolean() encryptData?: boolean;
  @OptionalBoolean() encodeData?: boolean;
  @OptionalPublicKey() publicKey?: string;
  @OptionalBoolean() enableDataProtection?: boolean;
}
