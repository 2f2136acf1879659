import { ApiProperty } from '@nestjs/swagger';
import { SuccessResult } from '../../common/openapi-responses.js';

/** What waits in the key's outbox: pending deliveries (due, scheduled for a retry, or being attempted now). */
export class OutboxDepthView {
  @ApiProperty({ type: 'integer', description: 'Every pending delivery of the key.' }) waiting!: number;
  @ApiProperty({ type: 'integer', description: 'To advanced webhook endpoints.' }) advancedWebhook!: number;
  @ApiProperty({ type: 'integer', description: 'To the basic webhook URLs (raw and processed).' }) webhook!: number;
  @ApiProperty({ type: 'integer', description: 'Notification mail: events whose recipients are being worked out, and mails to send.' }) mail!: number;
  @ApiProperty({ type: 'integer', description: 'In-app inbox entries to write.' }) inbox!: number;
}

/** An advanced webhook endpoint that is failing or disabled (times epoch ms). */
export class EndpointHealthView {
  @ApiProperty() id!: string;
  @ApiProperty() url!: string;
  @ApiProperty() disabled!: boolean;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'When its current streak of failed attempts began (epoch ms); null when not failing (an endpoint disabled by hand, say).',
  })
  failingSince!: number | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'When its latest attempt was made (epoch ms); null when none is kept.' })
  lastAttemptAt!: number | null;
  @ApiProperty({ type: 'integer', nullable: true, description: "The receiver's HTTP status at the latest attempt; null when none came." })
  lastStatusCode!: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'Why the latest attempt failed; null when it did not, or none is kept.' })
  lastError!: string | null;
  @ApiProperty({ type: 'integer', description: 'Its pending deliveries.' }) waiting!: number;
}

/** The key's delivery health. */
export class DeliveryHealthView {
  @ApiProperty({ type: OutboxDepthView }) outbox!: OutboxDepthView;
  @ApiProperty({ type: [EndpointHealthView], description: 'Failing or disabled endpoints, in creation order; healthy ones are left out.' })
  endpoints!: EndpointHealthView[];
}

export class DeliveryHealthResult extends SuccessResult {
  @ApiProperty({ type: DeliveryHealthView }) data!: DeliveryHealthView;
}
