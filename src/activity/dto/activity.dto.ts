import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { PageSizeField, PageTokenField } from '../../common/paging.js';
import {
  BatchIds,
  type Check,
  checkArrayOf,
  checkBoolean,
  checkId,
  checkInteger,
  checkOneOf,
  checkPlainObject,
  checkShape,
  checkString,
  checkUser,
  within,
} from '../../common/validation/checks.js';
import { IsId, IsOptionalId, IsOptionalIdArray, IsOptionalOneOf, IsOptionalTextArray, Optional, Satisfies } from '../../common/validation/rules.js';
import { anyObject } from '../../common/openapi-responses.js';
import { MAX_BATCH } from '../../common/batch.js';
import type { Activity } from '../activity-store.js';
import { FEATURE_TYPES, type FeatureType } from '../feature-types.js';

/** Action types a get may filter by at once. */
export const MAX_ACTION_TYPES = 100;

const anyJson: Check = () => undefined;
const checkTimestamp = checkInteger(0, Number.MAX_SAFE_INTEGER);

/** Fields an update may change (rest-interface part 4); everything else about a record is fixed. */
export const UPDATABLE_FIELDS = {
  changes: checkPlainObject,
  entityData: anyJson,
  entityTargetData: anyJson,
  displayMessageTemplate: checkString({ max: 10_000, allowEmpty: true }),
  displayMessageTemplateData: checkPlainObject,
  actionIcon: checkString({ max: 2000, allowEmpty: true }),
} satisfies Record<string, Check>;

const checkActivityInput = checkShape(
  {
    id: checkId,
    featureType: checkOneOf(FEATURE_TYPES),
    actionType: checkString({ max: 256 }),
    actionUser: checkUser,
    targetEntityId: checkId,
    targetSubEntityId: checkId,
    timestamp: checkTimestamp,
    isActivityResolverUsed: checkBoolean,
    metadata: checkPlainObject,
    ...UPDATABLE_FIELDS,
  },
  ['featureType', 'actionType', 'actionUser'],
);

/** Items of a batch, each checked by `item`, with `id`s (where given) unique in the batch. */
function checkBatch(item: Check, extra: (record: Record<string, unknown>) => string | undefined = () => undefined): Check {
  const items = checkArrayOf(item, { min: 1, max: MAX_BATCH });
  return (value) => {
    const problem = items(value);
    if (problem) return problem;
    const ids = new BatchIds('id');
    const records = value as Record<string, unknown>[];
    for (let i = 0; i < records.length; i++) {
      const record = records[i]!;
      const rule = extra(record) ?? ids.repeat(i, record.id);
      if (rule) return within(`[${i}]`, rule);
    }
    return undefined;
  };
}

/** What a caller sends for one activity (contract 6.1): a record without what the service fills. */
export type ActivityInput = Omit<Activity, 'id' | 'metadata' | 'timestamp'> & { id?: string; timestamp?: number; metadata?: Record<string, unknown> };

export type ActivityUpdate = { id: string } & Partial<Pick<ActivityInput, keyof typeof UPDATABLE_FIELDS>>;

/** `actionUser` in OpenAPI: its `userId`, and any other user fields, kept as sent. */
export const actionUserSchema = () => ({
  type: 'object' as const,
  properties: { userId: { type: 'string' as const }, name: { type: 'string' as const, maxLength: 1000 }, email: { type: 'string' as const, maxLength: 1000 } },
  required: ['userId'],
  additionalProperties: true,
  selfRequired: true,
});

/** Any JSON value (OpenAPI), as `entityData` and `entityTargetData` hold: null is the nullable object. */
export const anyJsonSchema = (description = 'Any JSON value, kept as sent.') => ({
  anyOf: [
    { type: 'object', additionalProperties: true, nullable: true },
    { type: 'array', items: {} },
    { type: 'string' },
    { type: 'number' },
    { type: 'boolean' },
  ],
  description,
});

/**
 * The fields activities update may change (`UPDATABLE_FIELDS`), for OpenAPI only: the items are
 * checked by `checkShape` in the request classes, not by these classes.
 */
class ActivityUpdatableFields {
  @ApiPropertyOptional(anyObject('Field name to `{ from, to }`.')) changes?: Record<string, unknown>;
  @ApiPropertyOptional(anyJsonSchema()) entityData?: unknown;
  @ApiPropertyOptional(anyJsonSchema()) entityTargetData?: unknown;
  @ApiPropertyOptional({ maxLength: 10_000, description: '`{{variable}}` placeholders.' }) displayMessageTemplate?: string;
  @ApiPropertyOptional(anyObject('Values for the placeholders.')) displayMessageTemplateData?: Record<string, unknown>;
  @ApiPropertyOptional({ maxLength: 2000, description: 'URL or identifier.' }) actionIcon?: string;
}

/** What identifies a new activity and says what happened (OpenAPI; see `AddActivityItem`). */
class NewActivityFields {
  @ApiPropertyOptional({ description: 'Made by the service when absent; an existing id is overwritten.' }) id?: string;
  @ApiProperty({ enum: FEATURE_TYPES }) featureType!: FeatureType;
  @ApiProperty({ maxLength: 256, description: 'For example `comment.add`.' }) actionType!: string;
  @ApiProperty(actionUserSchema()) actionUser!: ActivityInput['actionUser'];
  @ApiPropertyOptional({ description: 'Required for `featureType: custom`.' }) targetEntityId?: string;
  @ApiPropertyOptional() targetSubEntityId?: string;
  @ApiPropertyOptional({ type: 'integer', minimum: 0, description: 'Milliseconds since the epoch; defaults to now.' }) timestamp?: number;
  @ApiPropertyOptional({ description: "True when the caller's activity resolver keeps this record's PII on its own servers; kept and returned as sent." })
  isActivityResolverUsed?: boolean;
  @ApiPropertyOptional(
    anyObject("Keys of your own, returned in the record's `metadata`; `apiKey`, `documentId` and `organizationId` there are always the service's."),
  )
  metadata?: Record<string, unknown>;
}

class ActivityIdField {
  @ApiProperty() id!: string;
}

/** One activity of activities add (OpenAPI; see `ActivityInput`). */
export class AddActivityItem extends IntersectionType(NewActivityFields, ActivityUpdatableFields) {}

/** One activity of activities update (OpenAPI; see `ActivityUpdate`). */
export class UpdateActivityItem extends IntersectionType(ActivityIdField, ActivityUpdatableFields) {}

export class AddActivitiesRequest {
  @IsId() organizationId!: string;
  @IsId() documentId!: string;

  /** At most 500. `targetEntityId` is required for `featureType: custom`. */
  @ApiProperty({ type: [AddActivityItem], maxItems: MAX_BATCH })
  @Satisfies(
    checkBatch(checkActivityInput, (record) =>
      record.featureType === 'custom' && record.targetEntityId === undefined ? '.targetEntityId is required for featureType custom' : undefined,
    ),
  )
  activities!: ActivityInput[];
}

export class GetActivitiesRequest {
  @IsId() organizationId!: string;
  @IsOptionalId() documentId?: string;
  @IsOptionalId() targetEntityId?: string;

  @ApiPropertyOptional({ type: [String], enum: FEATURE_TYPES })
  @Optional()
  @Satisfies(checkArrayOf(checkOneOf(FEATURE_TYPES), { max: FEATURE_TYPES.length, unique: true }))
  featureTypes?: FeatureType[];

  @ApiPropertyOptional({ type: [String], maxItems: MAX_ACTION_TYPES })
  @IsOptionalTextArray(256, { max: MAX_ACTION_TYPES })
  actionTypes?: string[];

  /** The acting user. */
  @IsOptionalId() userId?: string;

  @IsOptionalIdArray(MAX_BATCH)
  activityIds?: string[];

  /** By (timestamp, id); newest first by default. */
  @ApiPropertyOptional({ description: 'Default: `desc` (newest first).' })
  @IsOptionalOneOf(['asc', 'desc'])
  order?: 'asc' | 'desc';

  @PageSizeField()
  pageSize?: number;

  @PageTokenField() pageToken?: string;
}

export class UpdateActivitiesRequest {
  @IsId() organizationId!: string;

  /** Each with its `id` and any of the updatable fields. */
  @ApiProperty({ type: [UpdateActivityItem], maxItems: MAX_BATCH })
  @Satisfies(checkBatch(checkShape({ id: checkId, ...UPDATABLE_FIELDS }, ['id'])))
  activities!: ActivityUpdate[];
}

export class DeleteActivitiesRequest {
  @IsId() organizationId!: string;
  /** All records of this document. */
  @IsOptionalId() documentId?: string;
  /** All records of this entity. */
  @IsOptionalId() targetEntityId?: string;

  @IsOptionalIdArray(MAX_BATCH, { min: 1 })
  activityIds?: string[];
}
