import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_BATCH } from '../../common/batch.js';
import { SuccessResult } from '../../common/openapi-responses.js';
import { IsEmailAddress, IsId, IsIdArray, IsNestedArray, IsOptionalText, Optional } from '../../common/validation/rules.js';

/** A user's entry in a document's presence (upstream's `users` item). */
export class PresenceUserInput {
  @IsId() userId!: string;
  @IsOptionalText(1000, { allowEmpty: true }) name?: string;
  @ApiPropertyOptional({ maxLength: 320 }) @Optional() @IsEmailAddress() email?: string;
  @ApiPropertyOptional({ description: 'Any word of the caller\'s, e.g. "online", "away", "offline". Absent on add: "online".' })
  @IsOptionalText(64)
  status?: string;
}

class PresencePlace {
  @IsId() organizationId!: string;
  @IsId() documentId!: string;
}

/** `presence/add` and `presence/update`. */
export class PutPresenceRequest extends PresencePlace {
  @IsNestedArray(() => PresenceUserInput, MAX_BATCH, { min: 1, uniqueIds: 'userId' })
  users!: PresenceUserInput[];
}

export class DeletePresenceRequest extends PresencePlace {
  @IsIdArray(MAX_BATCH, { min: 1 }) userIds!: string[];
}

export class GetPresenceRequest extends PresencePlace {}

/** One user present in a document: a server entry, live connections, or both. */
export class PresentUser {
  @ApiProperty() userId!: string;
  @ApiPropertyOptional({ description: "The server entry's name, else the live token's." }) name?: string;
  @ApiPropertyOptional({ description: "The server entry's e-mail, else the live token's." }) email?: string;
  @ApiProperty({ description: 'The server entry\'s status; "online" for a user only connected live.' }) status!: string;
  @ApiProperty({ description: 'Whether the user has a live connection to the document (on any instance).' }) live!: boolean;
  @ApiPropertyOptional({ description: 'When the server entry expires (ISO 8601); absent for a user only connected live.' }) expiresAt?: string;
}

export class PresenceResult extends SuccessResult {
  @ApiProperty({ type: [PresentUser], description: 'Who is present, by userId.' }) data!: PresentUser[];
}
