import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_BATCH, MAX_FILTER_IDS } from '../../common/batch.js';
import { anyObject } from '../../common/openapi-responses.js';
import { PageSizeField, PageTokenField } from '../../common/paging.js';
import {
  checkArrayOf,
  checkBoolean,
  checkId,
  checkPlainObject,
  checkShape,
  checkString,
  checkUser,
  checkUniqueIds,
  type Check,
  type WireUser,
} from '../../common/validation/checks.js';
import {
  IsId,
  IsOptionalBool,
  IsOptionalId,
  IsOptionalIdArray,
  IsOptionalOneOf,
  IsOptionalPlainObject,
  IsOptionalText,
  IsUser,
  Optional,
  Satisfies,
} from '../../common/validation/rules.js';
import { actionUserSchema } from '../../activity/dto/activity.dto.js';

/** Upstream's notification ids: letters, digits, `_` and `-`. */
const checkNotificationId: Check = (value) =>
  checkId(value) ?? (/^[A-Za-z0-9_-]+$/.test(value as string) ? undefined : 'may only contain letters, digits, _ and -');

const TEMPLATE_MAX = 10_000;

/** A user as a list item (OpenAPI): `actionUserSchema` without its property-level `selfRequired`. */
const { selfRequired: _propertyOnly, ...userItemSchema } = actionUserSchema();

export class AddNotificationRequest {
  @IsId() organizationId!: string;
  @ApiPropertyOptional({ description: 'Create the organization when missing.' }) @IsOptionalBool() createOrganization?: boolean;
  @IsId() documentId!: string;
  @ApiPropertyOptional({ description: 'Create the document when missing.' }) @IsOptionalBool() createDocument?: boolean;
  @ApiProperty(actionUserSchema()) @IsUser() actionUser!: WireUser;
  @ApiPropertyOptional({ description: 'Only users who may see the document are notified.' }) @IsOptionalBool() verifyUserPermissions?: boolean;
  @ApiPropertyOptional({ description: 'Made by the service when absent; an existing id is left as it is (no duplicate).' })
  @Optional()
  @Satisfies(checkNotificationId)
  notificationId?: string;
  @IsOptionalBool() isNotificationResolverUsed?: boolean;
  @ApiPropertyOptional({ description: 'Required unless `isNotificationResolverUsed`.' })
  @IsOptionalText(TEMPLATE_MAX, { allowEmpty: true })
  displayHeadlineMessageTemplate?: string;
  @ApiPropertyOptional(anyObject('Values for the headline placeholders.')) @IsOptionalPlainObject() displayHeadlineMessageTemplateData?: Record<
    string,
    unknown
  >;
  @ApiPropertyOptional({ description: 'Required unless `isNotificationResolverUsed`.' })
  @IsOptionalText(TEMPLATE_MAX, { allowEmpty: true })
  displayBodyMessage?: string;
  @ApiProperty({ type: 'array', items: userItemSchema, maxItems: MAX_BATCH })
  @Satisfies(checkArrayOf(checkUser, { max: MAX_BATCH }))
  notifyUsers!: WireUser[];
  @ApiPropertyOptional({ description: 'Default true: every user who may see the document, besides `notifyUsers`.' }) @IsOptionalBool() notifyAll?: boolean;
  @ApiPropertyOptional({ description: 'Default `custom`.' }) @IsOptionalText(256) notificationSource?: string;
  @ApiPropertyOptional(anyObject()) @IsOptionalPlainObject() notificationSourceData?: Record<string, unknown>;
  @ApiPropertyOptional(anyObject('`{ access: { ... } }`.')) @IsOptionalPlainObject() context?: Record<string, unknown>;
}

/** v1 notifications get (upstream's, for SDK v3 or earlier): no paging, every notification selected is answered, newest first. */
export class GetNotificationsV1Request {
  @IsId() organizationId!: string;
  @ApiPropertyOptional({ description: 'Either this or `userId`.' }) @IsOptionalId() documentId?: string;
  @IsOptionalId() locationId?: string;
  @ApiPropertyOptional({ description: "That user's inbox, read and unread alike, by timestamp." }) @IsOptionalId() userId?: string;
  @IsOptionalIdArray(MAX_FILTER_IDS) notificationIds?: string[];
}

export class GetNotificationsRequest extends GetNotificationsV1Request {
  @PageSizeField() pageSize?: number;
  @PageTokenField() pageToken?: string;
  @ApiPropertyOptional({ description: 'By timestamp; default `desc`.' }) @IsOptionalOneOf(['asc', 'desc']) order?: 'asc' | 'desc';
}

const checkNotificationUpdate = checkShape(
  {
    id: checkId,
    actionUser: checkUser,
    displayHeadlineMessageTemplate: checkString({ max: TEMPLATE_MAX, allowEmpty: true }),
    displayHeadlineMessageTemplateData: checkPlainObject,
    displayBodyMessage: checkString({ max: TEMPLATE_MAX, allowEmpty: true }),
    notificationSourceData: checkPlainObject,
    readByUserIds: checkArrayOf(checkId, { max: MAX_BATCH }),
    persistReadForUsers: checkBoolean,
  },
  ['id'],
);
const checkNotificationUpdates: Check = (value) => checkArrayOf(checkNotificationUpdate, { min: 1, max: MAX_BATCH })(value) ?? checkUniqueIds('id')(value);

export interface NotificationUpdate {
  id: string;
  actionUser?: WireUser;
  displayHeadlineMessageTemplate?: string;
  displayHeadlineMessageTemplateData?: Record<string, unknown>;
  displayBodyMessage?: string;
  notificationSourceData?: Record<string, unknown>;
  readByUserIds?: string[];
  persistReadForUsers?: boolean;
}

/** One item of notifications update (OpenAPI; checked by `checkNotificationUpdate`). */
class NotificationUpdateItem {
  @ApiProperty() id!: string;
  @ApiPropertyOptional(userItemSchema) actionUser?: WireUser;
  @ApiPropertyOptional({ maxLength: TEMPLATE_MAX }) displayHeadlineMessageTemplate?: string;
  @ApiPropertyOptional(anyObject()) displayHeadlineMessageTemplateData?: Record<string, unknown>;
  @ApiPropertyOptional({ maxLength: TEMPLATE_MAX }) displayBodyMessage?: string;
  @ApiPropertyOptional(anyObject()) notificationSourceData?: Record<string, unknown>;
  @ApiPropertyOptional({ type: [String], description: 'Users for whom it is now read.' }) readByUserIds?: string[];
  @ApiPropertyOptional({ description: 'Accepted for compatibility: read notifications always stay in the inbox, after the unread ones.' })
  persistReadForUsers?: boolean;
}

export class UpdateNotificationsRequest {
  @IsId() organizationId!: string;
  @IsOptionalId() documentId?: string;
  @IsOptionalId() locationId?: string;
  @ApiPropertyOptional({ description: 'Only notifications that went to this user.' }) @IsOptionalId() userId?: string;
  @ApiProperty({ type: [NotificationUpdateItem], maxItems: MAX_BATCH }) @Satisfies(checkNotificationUpdates) notifications!: NotificationUpdate[];
}

export class DeleteNotificationsRequest {
  @IsId() organizationId!: string;
  @IsOptionalId() documentId?: string;
  @IsOptionalId() locationId?: string;
  @ApiPropertyOptional({ description: "Removes the notifications from this user's inbox only." }) @IsOptionalId() userId?: string;
  @IsOptionalIdArray(MAX_BATCH, { min: 1 }) notificationIds?: string[];
}
