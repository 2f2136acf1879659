import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { type Check, checkHttpUrl, checkPlainObject } from '../../common/validation/checks.js';
import {
  IsId,
  IsInteger,
  IsOptionalBool,
  IsOptionalInteger,
  IsOptionalText,
  IsOptionalTextArray,
  IsText,
  IsTextArray,
  Optional,
  Satisfies,
} from '../../common/validation/rules.js';

const checkUrl: Check = (value) => (value === '' ? 'must be an http(s) URL' : checkHttpUrl(2000)(value));
const checkUid: Check = (value) =>
  typeof value === 'string' && /^[A-Za-z0-9._-]{1,256}$/.test(value) ? undefined : 'must be 1–256 letters, digits, ".", "_" or "-"';
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
const RATE_LIMIT_DOC = { type: 'integer', minimum: 1, description: 'deliveries per second' } as const;
const METADATA_DOC = { type: 'object', additionalProperties: { type: 'string' } } as const;

/** Deliveries per second at most, when limited. */
const MAX_RATE_LIMIT = 1_000_000;

/*
 * Create and update share their fields; an update may also send `null` to clear an optional one
 * (`Optional({ nullable: true })`). `nullable` is documented on every field, `false` included.
 */
export class CreateEndpointRequest {
  @ApiProperty({ description: 'http(s) URL receiving the deliveries' }) @Satisfies(checkUrl) url!: string;
  @ApiPropertyOptional({ nullable: false }) @IsOptionalText(1000, { allowEmpty: true }) description?: string;
  /** Event types delivered; absent: every event. */
  @ApiPropertyOptional({ nullable: false, type: [String] }) @IsOptionalTextArray(256, { min: 1, max: 100, unique: true }) filterTypes?: string[];
  @ApiPropertyOptional({ nullable: false, type: [String] }) @IsOptionalTextArray(128, { min: 1, max: 50, unique: true }) channels?: string[];
  @ApiPropertyOptional({ nullable: false }) @IsOptionalBool() disabled?: boolean;
  @ApiPropertyOptional({ nullable: false, ...RATE_LIMIT_DOC }) @IsOptionalInteger(1, MAX_RATE_LIMIT) rateLimit?: number;
  /** The caller's own unique id for the endpoint. */
  @ApiPropertyOptional({ nullable: false }) @Optional() @Satisfies(checkUid) uid?: string;
  @ApiPropertyOptional({ nullable: false, ...METADATA_DOC }) @Optional() @Satisfies(checkMetadata) metadata?: Record<string, string>;
}

export class UpdateEndpointRequest {
  @IsId() endpointId!: string;
  @ApiPropertyOptional({ nullable: false }) @Optional() @Satisfies(checkUrl) url?: string;
  @ApiPropertyOptional({ nullable: true, ...DESCRIPTION_DOC }) @Optional({ nullable: true }) @IsText(1000, { allowEmpty: true }) description?: string | null;
  @ApiPropertyOptional({ nullable: true, type: [String] }) @Optional({ nullable: true }) @IsTextArray(256, { min: 1, max: 100, unique: true }) filterTypes?:
    string[] | null;
  @ApiPropertyOptional({ nullable: true, type: [String] }) @Optional({ nullable: true }) @IsTextArray(128, { min: 1, max: 50, unique: true }) channels?:
    string[] | null;
  @ApiPropertyOptional({ nullable: false }) @IsOptionalBool() disabled?: boolean;
  @ApiPropertyOptional({ nullable: true, ...RATE_LIMIT_DOC }) @Optional({ nullable: true }) @IsInteger(1, MAX_RATE_LIMIT) rateLimit?: number | null;
  @ApiPropertyOptional({ nullable: true, ...METADATA_DOC }) @Optional({ nullable: true }) @Satisfies(checkMetadata) metadata?: Record<string, string> | null;
}

export class EndpointIdRequest {
  @IsId() endpointId!: string;
}

/** Longest overlap a rotation may ask for: a week. */
export const MAX_SECRET_OVERLAP_SECONDS = 7 * 24 * 60 * 60;

export class RotateEndpointSecretRequest {
  @IsId() endpointId!: string;
  /** How long the old secret keeps signing beside the new one; 0 ends it at once. */
  @ApiPropertyOptional({ description: 'Default: 86400 (a day).' })
  @IsOptionalInteger(0, MAX_SECRET_OVERLAP_SECONDS)
  overlapSeconds?: number;
}

export class ListEndpointsRequest {
  @ApiPropertyOptional({ description: 'Default: 50.' }) @IsOptionalInteger(1, 250) limit?: number;
  /** `iterator` or `prevIterator` of a previous answer. */
  @IsOptionalText(4000) iterator?: string;
}
