import { ApiProperty } from '@nestjs/swagger';
import { SuccessResult } from '../../common/openapi-responses.js';
import { DELIVERY_STATUSES } from '../outbox-store.js';

/** One delivery attempt (times ISO 8601). */
export class AttemptView {
  @ApiProperty({ type: 'integer' }) attempt!: number;
  @ApiProperty({ description: 'ISO 8601.' }) timestamp!: string;
  @ApiProperty({ type: 'integer', nullable: true, description: "The receiver's HTTP status; null when none came." }) statusCode!: number | null;
  @ApiProperty({ type: 'integer' }) durationMs!: number;
  @ApiProperty({ type: String, nullable: true }) error!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'ISO 8601; null when no retry follows.' }) nextAttemptAt!: string | null;
  @ApiProperty({ type: String, nullable: true, description: "The start of the receiver's answer body (at most 500 characters); null when it sent none." })
  responseBody!: string | null;
}

/** One message on its way to one endpoint, as the message log lists it (times ISO 8601). */
export class MessageView {
  @ApiProperty({ description: '`webhook-id` of the message (`msg_…`).' }) messageId!: string;
  @ApiProperty() endpointId!: string;
  @ApiProperty() eventType!: string;
  @ApiProperty({ enum: DELIVERY_STATUSES }) status!: string;
  @ApiProperty({ type: 'integer' }) attempts!: number;
  @ApiProperty({ type: String, nullable: true, description: 'When pending and not being attempted now.' }) nextAttemptAt!: string | null;
  @ApiProperty({ type: 'integer', nullable: true }) lastStatusCode!: number | null;
  @ApiProperty({ type: String, nullable: true }) lastError!: string | null;
  @ApiProperty() createdAt!: string;
  @ApiProperty() updatedAt!: string;
  @ApiProperty({ type: [AttemptView] }) attemptLog!: AttemptView[];
}

/** A page of the message log, newest message first. */
export class MessagesPageView {
  @ApiProperty({ type: [MessageView] }) messages!: MessageView[];
  @ApiProperty({ type: String, nullable: true, description: 'Continues with the next page; null on the last one.' }) iterator!: string | null;
  @ApiProperty() done!: boolean;
}

export class MessagesPageResult extends SuccessResult {
  @ApiProperty({ type: MessagesPageView }) data!: MessagesPageView;
}

/** The endpoints a message is sent to again. */
export class MessageRetryView {
  @ApiProperty() messageId!: string;
  @ApiProperty({ type: [String] }) endpointIds!: string[];
}

export class MessageRetryResult extends SuccessResult {
  @ApiProperty({ type: MessageRetryView }) data!: MessageRetryView;
}

/** How many failed messages are sent again. */
export class MessagesRecoveredView {
  @ApiProperty() endpointId!: string;
  @ApiProperty({ type: 'integer', description: 'Failed deliveries in the window, each queued for one more attempt.' }) recovered!: number;
}

export class MessagesRecoveredResult extends SuccessResult {
  @ApiProperty({ type: MessagesRecoveredView }) data!: MessagesRecoveredView;
}

/** The test message queued. */
export class TestMessageView {
  @ApiProperty() endpointId!: string;
  @ApiProperty({ description: '`webhook-id` of the test message (`msg_…`).' }) messageId!: string;
}

export class TestMessageResult extends SuccessResult {
  @ApiProperty({ type: TestMessageView }) data!: TestMessageView;
}
