import { ApiProperty } from '@nestjs/swagger';
import { mapOf, SuccessResult } from '../../common/openapi-responses.js';
import { PREFERENCE_VALUES, type PreferenceValue } from './preferences.dto.js';

/** A user's effective preference on each channel. */
export class PreferenceConfigView {
  @ApiProperty({ enum: PREFERENCE_VALUES }) inbox!: PreferenceValue;
  @ApiProperty({ enum: PREFERENCE_VALUES }) email!: PreferenceValue;
  @ApiProperty({ enum: PREFERENCE_VALUES }) chat!: PreferenceValue;
}

/** v1 answers the inbox and email channels only. */
export class PreferenceConfigV1View {
  @ApiProperty({ enum: PREFERENCE_VALUES }) inbox!: PreferenceValue;
  @ApiProperty({ enum: PREFERENCE_VALUES }) email!: PreferenceValue;
}

/** Whose preference, and where. */
export class PreferenceMetadataView {
  @ApiProperty() organizationId!: string;
  @ApiProperty() apiKey!: string;
  @ApiProperty({ type: String, nullable: true, description: 'null: the organization-level entry.' }) documentId!: string | null;
  @ApiProperty() userId!: string;
}

export class PreferenceEntryView {
  @ApiProperty({ type: PreferenceConfigView }) config!: PreferenceConfigView;
  @ApiProperty({ type: PreferenceMetadataView }) metadata!: PreferenceMetadataView;
}

export class PreferenceEntryV1View {
  @ApiProperty({ type: PreferenceConfigV1View }) config!: PreferenceConfigV1View;
  @ApiProperty({ type: PreferenceMetadataView }) metadata!: PreferenceMetadataView;
}

export class PreferencesResult extends SuccessResult {
  @ApiProperty({ type: [PreferenceEntryView] }) data!: PreferenceEntryView[];
}

export class PreferencesV1Result extends SuccessResult {
  @ApiProperty({ type: [PreferenceEntryV1View] }) data!: PreferenceEntryV1View[];
}

/** One user's outcome of a set (contract 6.4). */
export class PreferenceSetView {
  @ApiProperty() success!: boolean;
  @ApiProperty() userId!: string;
  @ApiProperty({ type: String, nullable: true, description: 'The first of `documentIds`; null at organization level.' }) documentId!: string | null;
  @ApiProperty({ type: [String], description: 'Every document the config was applied to; empty at organization level.' }) documentIds!: string[];
  @ApiProperty() message!: string;
}

export class PreferencesSetResult extends SuccessResult {
  @ApiProperty(mapOf(PreferenceSetView, "Each user's outcome, under their id.")) data!: Record<string, PreferenceSetView>;
}
