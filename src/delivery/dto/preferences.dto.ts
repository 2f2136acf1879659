import { ApiProperty } from '@nestjs/swagger';
import { checkOneOf, checkShape } from '../../common/validation/checks.js';
import { IsId, IsIdArray, IsOptionalBool, IsOptionalIdArray, Satisfies } from '../../common/validation/rules.js';
import { MAX_BATCH, MAX_FILTER_IDS } from '../../common/batch.js';

/** What a user hears of: every activity, only the ones involving them, or nothing (rest-interface part 2). */
export const PREFERENCE_VALUES = ['ALL', 'MINE', 'NONE'] as const;
export type PreferenceValue = (typeof PREFERENCE_VALUES)[number];
export const CHANNELS = ['inbox', 'email', 'chat'] as const;
export type Channel = (typeof CHANNELS)[number];
export type PreferenceConfig = Partial<Record<Channel, PreferenceValue>>;
/** A config as sent: upstream clients name the chat channel `slack` (its only chat integration). */
export type SentPreferenceConfig = PreferenceConfig & { slack?: PreferenceValue };

const checkConfig = (value: unknown) => {
  const problem = checkShape(Object.fromEntries([...CHANNELS, 'slack'].map((channel) => [channel, checkOneOf(PREFERENCE_VALUES)])))(value);
  if (problem) return problem;
  const config = value as SentPreferenceConfig;
  if (config.slack !== undefined && config.chat !== undefined && config.slack !== config.chat) return '.slack and .chat name the same channel but differ';
  return CHANNELS.some((channel) => config[channel] !== undefined) || config.slack !== undefined ? undefined : 'must set at least one of inbox, email, chat';
};

/** The config with `slack` read as `chat`. */
export function channelsOf({ slack, ...config }: SentPreferenceConfig): PreferenceConfig {
  return slack === undefined ? config : { ...config, chat: slack };
}

export class GetPreferencesV1Request {
  @IsId() organizationId!: string;
  @IsId() userId!: string;
  @IsIdArray(MAX_FILTER_IDS, { min: 1, unique: true }) documentIds!: string[];
}

export class GetPreferencesV2Request {
  @IsId() organizationId!: string;
  @IsId() userId!: string;
  @IsOptionalIdArray(MAX_FILTER_IDS, { unique: true }) documentIds?: string[];
  /** Also answer the organization-level entry (it is answered anyway without documentIds). */
  @IsOptionalBool() getOrganizationConfig?: boolean;
}

class SetPreferencesRequest {
  @IsId() organizationId!: string;
  @IsIdArray(MAX_BATCH, { min: 1, unique: true }) userIds!: string[];
  @ApiProperty({
    type: 'object',
    properties: {
      ...Object.fromEntries(CHANNELS.map((c) => [c, { enum: PREFERENCE_VALUES }])),
      slack: { enum: PREFERENCE_VALUES, description: 'Upstream name of `chat`; the same channel.' },
    },
  })
  @Satisfies(checkConfig)
  config!: SentPreferenceConfig;
}

export class SetPreferencesV1Request extends SetPreferencesRequest {
  @IsIdArray(MAX_FILTER_IDS, { min: 1, unique: true }) documentIds!: string[];
}

export class SetPreferencesV2Request extends SetPreferencesRequest {
  /** Omitted: the users' organization-level default. */
  @IsOptionalIdArray(MAX_FILTER_IDS, { min: 1, unique: true }) documentIds?: string[];
}

/** v1 answers only the inbox and email channels (rest-interface part 4). */
export function toV1Entries<T extends { config: Record<Channel, PreferenceValue> }>(
  entries: T[],
): (Omit<T, 'config'> & { config: { inbox: PreferenceValue; email: PreferenceValue } })[] {
  return entries.map(({ config, ...rest }) => ({ ...rest, config: { inbox: config.inbox, email: config.email } }));
}
