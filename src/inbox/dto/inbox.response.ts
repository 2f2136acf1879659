import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { actionUserSchema } from '../../activity/dto/activity.dto.js';
import { anyObject, SuccessResult } from '../../common/openapi-responses.js';
import type { WireUser } from '../../common/validation/checks.js';

/** `data` of notifications add. */
export class NotificationAdded {
  @ApiProperty({ enum: [true] }) success!: true;
  @ApiProperty() id!: string;
  @ApiProperty() message!: string;
}

export class NotificationAddedResult extends SuccessResult {
  @ApiProperty({ type: NotificationAdded }) data!: NotificationAdded;
}

/** A notification as get answers it. */
export class NotificationView {
  @ApiProperty() id!: string;
  @ApiProperty() notificationSource!: string;
  @ApiPropertyOptional(anyObject()) notificationSourceData?: Record<string, unknown>;
  @ApiProperty(actionUserSchema()) actionUser!: WireUser;
  @ApiPropertyOptional() displayHeadlineMessageTemplate?: string;
  @ApiPropertyOptional(anyObject()) displayHeadlineMessageTemplateData?: Record<string, unknown>;
  @ApiPropertyOptional() displayBodyMessage?: string;
  @ApiPropertyOptional() isNotificationResolverUsed?: boolean;
  @ApiPropertyOptional(anyObject()) context?: Record<string, unknown>;
  @ApiProperty(anyObject('`apiKey`, `organizationId`, `documentId` and, when set, `locationId`.')) metadata!: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'boolean' }, description: 'Recipients by user id.' }) notifyUsers!: Record<string, boolean>;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'boolean' } }) notifyUsersByUserId!: Record<string, boolean>;
  @ApiProperty({ type: [String] }) readByUserIds!: string[];
  @ApiProperty({ description: 'Milliseconds since the epoch.' }) timestamp!: number;
}

export class NotificationsResult extends SuccessResult {
  @ApiProperty({ type: [NotificationView] }) data!: NotificationView[];
  @ApiPropertyOptional({ description: "Present when more follow: the next page's `pageToken`." }) pageToken?: string;
}
