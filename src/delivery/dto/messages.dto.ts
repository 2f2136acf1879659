import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { type Check } from '../../common/validation/checks.js';
import { IsId, IsOptionalId, IsOptionalInteger, IsOptionalOneOf, IsOptionalText, Optional, Satisfies } from '../../common/validation/rules.js';
import type { DeliveryRecord } from '../message-log-store.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../outbox-store.js';

export class ListMessagesRequest {
  /** Only deliveries to this endpoint. */
  @IsOptionalId() endpointId?: string;
  @IsOptionalOneOf(DELIVERY_STATUSES) status?: DeliveryStatus;
  @ApiPropertyOptional({ description: 'Default: 50.' }) @IsOptionalInteger(1, 250) limit?: number;
  /** `iterator` of a previous answer. */
  @IsOptionalText(4000) iterator?: string;
}

export class RetryMessageRequest {
  /** `webhook-id` of the message (`msg_…`). */
  @IsId() messageId!: string;
  /** Only to this endpoint; absent: to every enabled endpoint the message went to. */
  @IsOptionalId() endpointId?: string;
}

/** An ISO 8601 date-time with its zone (`2026-11-26T14:00:00Z`, `…+01:00`). */
const checkTime: Check = (value) =>
  typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(value) && !Number.isNaN(Date.parse(value))
    ? undefined
    : 'must be an ISO 8601 date-time with a zone, e.g. 2026-11-26T14:00:00Z';

export class RecoverMessagesRequest {
  @IsId() endpointId!: string;
  /** Messages made at or after this time whose delivery to the endpoint failed are sent again. */
  @ApiProperty({ description: 'ISO 8601 date-time with a zone.', example: '2026-11-26T00:00:00Z' }) @Satisfies(checkTime) since!: string;
  /** Up to (not including) this time; absent: now. */
  @ApiPropertyOptional({ description: 'ISO 8601 date-time with a zone; default: now.' }) @Optional() @Satisfies(checkTime) until?: string;
}

export class TestMessageRequest {
  @IsId() endpointId!: string;
  /** The event type the test message carries; default `webhook.test`. Sent whatever the endpoint's `filterTypes`. */
  @ApiPropertyOptional({ description: 'Default: webhook.test.' }) @IsOptionalText(256) eventType?: string;
}

/** One message on its way to one endpoint, as the message log lists it (times ISO 8601). */
export interface MessageEntry {
  messageId: string;
  endpointId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
  attemptLog: {
    attempt: number;
    timestamp: string;
    statusCode: number | null;
    durationMs: number;
    error: string | null;
    nextAttemptAt: string | null;
    responseBody: string | null;
  }[];
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function toMessageEntry(record: DeliveryRecord): MessageEntry {
  return {
    messageId: record.messageId,
    endpointId: record.target,
    eventType: record.eventType,
    status: record.status,
    attempts: record.attempts,
    // While an attempt runs, the due time is its claim's lease end: none to show.
    nextAttemptAt: record.status === 'pending' && !record.inFlight ? iso(record.nextAttemptAt) : null,
    lastStatusCode: record.lastStatusCode,
    lastError: record.lastError,
    createdAt: iso(record.createdAt)!,
    updatedAt: iso(record.updatedAt)!,
    attemptLog: record.attemptLog.map((a) => ({
      attempt: a.attempt,
      timestamp: iso(a.attemptedAt)!,
      statusCode: a.statusCode,
      durationMs: a.durationMs,
      error: a.error,
      nextAttemptAt: iso(a.nextAttemptAt),
      responseBody: a.responseBody,
    })),
  };
}
