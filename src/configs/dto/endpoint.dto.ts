import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { checkArrayOf, checkBoolean, checkId, checkInteger, checkPlainObject, checkString, Optional, Satisfies } from '../../common/validation.js';
import { checkHttpUrl } from '../../workspace/dto/checks.js';

type Check = (value: unknown) => string | undefined;
const orNull = (check: Check): Check => (value) => (value === null ? undefined : check(value));

const checkUrl: Check = (value) => (value === '' ? 'must be an http(s) URL' : checkHttpUrl(2000)(value));
const checkDescription = checkString({ max: 1000, allowEmpty: true });
const checkFilterTypes = checkArrayOf(checkString({ max: 256 }), { min: 1, max: 100, unique: true });
const checkChannels = checkArrayOf(checkString({ max: 128 }), { min: 1, max: 50, unique: true });
const checkRateLimit = checkInteger(1, 1_000_000);
const checkUid: Check = (value) => (typeof value === 'string' && /^[A-Za-z0-9._-]{1,256}$/.test(value) ? undefined : 'must be 1–256 letters, digits, ".", "_" or "-"');
const checkMetadata: Check = (value) => {
  const shape = checkPlainObject(value);
  if (shape) return shape;
  for (const [key, entry] of Object.entries(value as Record<string, unknown>)) if (typeof entry !== 'string') return `.${key} must be a string`;
  return undefined;
};

/**
 * Explicit schema types: a `string | null` or `number | null` property reflects as `Object`,
 * which would document an object.
 */
const DESCRIPTION_DOC = { type: String };
/** Deliveries per second, when limited. */
const RATE_LIMIT_DOC = { type: 'integer', minimum: 1, description: 'deliveries per second' };

/** The fields create and update share (update may also send `null` to clear an optional one). */
const Field = (check: Check, nullable: boolean, doc: Record<string, unknown> = {}) => applyDecorators(ApiPropertyOptional({ nullable, ...doc }), Optional(), Satisfies(nullable ? orNull(check) : check));

export class CreateEndpointRequest {
  @ApiProperty({ description: 'http(s) URL receiving the deliveries' }) @Satisfies(checkUrl) url!: string;
  @Field(checkDescription, false) description?: string;
  /** Event types delivered; absent: every event. */
  @Field(checkFilterTypes, false, { type: [String] }) filterTypes?: string[];
  @Field(checkChannels, false, { type: [String] }) channels?: string[];
  @Field(checkBoolean, false) disabled?: boolean;
  @Field(checkRateLimit, false, RATE_LIMIT_DOC) rateLimit?: number;
  /** The caller's own unique id for the endpoint. */
  @Field(checkUid, false) uid?: string;
  @Field(checkMetadata, false, { type: 'object', additionalProperties: { type: 'string' } }) metadata?: Record<string, string>;
}

export class UpdateEndpointRequest {
  @ApiProperty() @Satisfies(checkId) endpointId!: string;
  @Field(checkUrl, false) url?: string;
  @Field(checkDescription, true, DESCRIPTION_DOC) description?: string | null;
  @Field(checkFilterTypes, true, { type: [String] }) filterTypes?: string[] | null;
  @Field(checkChannels, true, { type: [String] }) channels?: string[] | null;
  @Field(checkBoolean, false) disabled?: boolean;
  @Field(checkRateLimit, true, RATE_LIMIT_DOC) rateLimit?: number | null;
  @Field(checkMetadata, true, { type: 'object', additionalProperties: { type: 'string' } }) metadata?: Record<string, string> | null;
}

export class EndpointIdRequest {
  @ApiProperty() @Satisfies(checkId) endpointId!: string;
}

export class ListEndpointsRequest {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 250, description: 'Default: 50.' }) @Optional() @Satisfies(checkInteger(1, 250)) limit?: number;
  /** `iterator` or `prevIterator` of a previous answer. */
  @ApiPropertyOptional() @Optional() @Satisfies(checkString({ max: 4000 })) iterator?: string;
}
