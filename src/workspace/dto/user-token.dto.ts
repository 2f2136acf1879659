import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { checkArrayOf, checkBoolean, checkEmail, checkId, checkInteger, checkOneOf, checkShape, checkString } from '../../common/validation/checks.js';
import { IsId, IsText, Optional, Satisfies } from '../../common/validation/rules.js';
import { MAX_BATCH } from '../../common/batch.js';

/** A resource a user token grants (upstream's generate_token). */
export interface TokenResource {
  type: 'organization' | 'document' | 'folder';
  id: string;
  organizationId?: string;
  accessRole?: 'viewer' | 'editor';
  /** Unix seconds. */
  expiresAt?: number;
}

const RESOURCE_TYPES = ['organization', 'document', 'folder'] as const;

const checkResource = (value: unknown): string | undefined => {
  const problem = checkShape(
    { type: checkOneOf(RESOURCE_TYPES), id: checkId, organizationId: checkId, accessRole: checkOneOf(['viewer', 'editor']), expiresAt: checkInteger(1, 1e11) },
    ['type', 'id'],
  )(value);
  if (problem) return problem;
  const resource = value as TokenResource;
  return resource.type !== 'organization' && resource.organizationId === undefined ? `.organizationId is required for type ${resource.type}` : undefined;
};

const checkName = checkString({ max: 1000 });

class TokenResourceSchema {
  @ApiProperty({ enum: RESOURCE_TYPES }) type!: string;
  @ApiProperty() id!: string;
  @ApiPropertyOptional({ description: 'Required for `document` and `folder`.' }) organizationId?: string;
  @ApiPropertyOptional({ enum: ['viewer', 'editor'], description: 'Default: `editor`.' }) accessRole?: string;
  @ApiPropertyOptional({ type: 'integer', description: 'Unix seconds when this permission ends.' }) expiresAt?: number;
}

class GeneratedUserProperties {
  @ApiPropertyOptional({ description: 'Default: false.' }) isAdmin?: boolean;
  @ApiProperty() name!: string;
  @ApiProperty() email!: string;
}

class TokenPermissions {
  @ApiProperty({ type: [TokenResourceSchema], maxItems: MAX_BATCH }) resources!: TokenResource[];
}

/** `POST /v2/auth/generate_token`: a token carrying the user and the resources it may use. */
export class GenerateTokenRequest {
  @IsId() userId!: string;

  @ApiProperty({ type: GeneratedUserProperties })
  @Satisfies(checkShape({ isAdmin: checkBoolean, name: checkName, email: checkEmail }, ['name', 'email']))
  userProperties!: { isAdmin?: boolean; name: string; email: string };

  @ApiProperty({ type: TokenPermissions })
  @Satisfies(checkShape({ resources: (value) => checkArrayOf(checkResource, { max: MAX_BATCH })(value) }, ['resources']))
  permissions!: { resources: TokenResource[] };
}

class TokenUserProperties {
  @ApiPropertyOptional({ description: 'The organization the user works in.' }) organizationId?: string;
  @ApiPropertyOptional({ description: 'Default: false.' }) isAdmin?: boolean;
  @ApiPropertyOptional() email?: string;
}

const checkTokenUserProperties = checkShape({ organizationId: checkId, isAdmin: checkBoolean, email: checkEmail });

/** `POST /v2/auth/token/get` (API-key headers): a token for a user. */
export class UserTokenRequest {
  @IsId() userId!: string;

  @ApiPropertyOptional({ type: TokenUserProperties })
  @Optional()
  @Satisfies(checkTokenUserProperties)
  userProperties?: { organizationId?: string; isAdmin?: boolean; email?: string };
}

/** `POST /v1/auth/token/get`: as v2, with the key's credentials in the body instead of headers. */
export class UserTokenV1Request extends UserTokenRequest {
  @IsText(200) apiKey!: string;
  @IsText(500) authToken!: string;
}

export class VerifyUserTokenRequest {
  @IsText(20_000) token!: string;
}
