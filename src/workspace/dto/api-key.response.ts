import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { SuccessResult } from '../../common/openapi-responses.js';
import { ApiKeyView } from './workspace.response.js';

/** A new API key, with its auth token when `createAuthToken` was set. */
export class CreatedApiKeyView {
  @ApiProperty() apiKey!: string;
  @ApiPropertyOptional({ description: "With `createAuthToken`: the key's first auth token (secret)." }) authToken?: string;
}

export class CreatedApiKeyResult extends SuccessResult {
  @ApiProperty({ type: CreatedApiKeyView }) data!: CreatedApiKeyView;
}

export class ApiKeysResult extends SuccessResult {
  @ApiProperty({ type: [ApiKeyView] }) data!: ApiKeyView[];
  @ApiPropertyOptional({ description: 'Absent on the last page.' }) nextPageToken?: string;
}

/** An auth token of an API key. */
export class AuthTokenView {
  @ApiProperty({ description: 'Secret.' }) token!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: [String] }) domains!: string[];
}

/** Every auth token of a key, oldest first. */
export class AuthTokensView {
  @ApiProperty() apiKey!: string;
  @ApiProperty({ type: [AuthTokenView] }) authTokens!: AuthTokenView[];
}

export class AuthTokensResult extends SuccessResult {
  @ApiProperty({ type: AuthTokensView }) data!: AuthTokensView;
}

/** The one token a key has after a reset. */
export class AuthTokenResetView {
  @ApiProperty() apiKey!: string;
  @ApiProperty({ type: AuthTokenView }) newAuthToken!: AuthTokenView;
}

export class AuthTokenResetResult extends SuccessResult {
  @ApiProperty({ type: AuthTokenResetView }) data!: AuthTokenResetView;
}
