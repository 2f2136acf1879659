import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { anyObject, SuccessResult } from '../../common/openapi-responses.js';

export class UserTokenView {
  @ApiProperty({ description: 'A JWT (HS256) for the user, good for 48 hours.' }) token!: string;
}

export class UserTokenResult extends SuccessResult {
  @ApiProperty({ type: UserTokenView }) data!: UserTokenView;
}

/** What a valid token says. */
export class UserTokenClaimsView {
  @ApiProperty() userId!: string;
  @ApiProperty({ description: 'The API key the token was minted for.' }) apiKey!: string;
  @ApiProperty(anyObject('`name`, `email`, `isAdmin`, `organizationId` as given when minted.')) userProperties!: Record<string, unknown>;
  @ApiPropertyOptional(anyObject('`resources` as given to generate_token.')) permissions?: Record<string, unknown>;
  @ApiProperty({ type: 'integer', description: 'Issued at, Unix seconds.' }) iat!: number;
  @ApiProperty({ type: 'integer', description: 'Expires at, Unix seconds.' }) exp!: number;
}

export class UserTokenClaimsResult extends SuccessResult {
  @ApiProperty({ type: UserTokenClaimsView }) data!: UserTokenClaimsView;
}
