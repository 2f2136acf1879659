import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Operation } from '../common/decorators/operation.decorator.js';
import { ApiKeyPrincipal, ClientIp } from '../common/decorators/principal.decorator.js';
import { RequestData } from '../common/decorators/request-data.decorator.js';
import type { ApiKeyPrincipal as Caller } from '../common/request-context.js';
import { GenerateTokenRequest, UserTokenRequest, UserTokenV1Request, VerifyUserTokenRequest } from './dto/user-token.dto.js';
import { UserTokenClaimsResult, UserTokenResult } from './dto/user-token.response.js';
import { type UserTokenClaims, UserTokens } from './user-tokens.service.js';

const GENERATED = 'Token generated successfully.';

/** User tokens for a product's front end (upstream's generate_token and token/get). */
@ApiTags('auth')
@Controller()
export class UserTokensController {
  constructor(private readonly tokens: UserTokens) {}

  @Operation('/v2/auth/generate_token', { auth: 'apiKey', message: GENERATED, response: UserTokenResult })
  generate(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GenerateTokenRequest): Promise<{ token: string }> {
    return this.tokens.mint(caller, data);
  }

  @Operation('/v2/auth/token/get', { auth: 'apiKey', message: GENERATED, response: UserTokenResult })
  get(@ApiKeyPrincipal() caller: Caller, @RequestData() data: UserTokenRequest): Promise<{ token: string }> {
    return this.tokens.mint(caller, data);
  }

  /** v1 sends the key's credentials in the body ("not headers", upstream). */
  @Operation('/v1/auth/token/get', { auth: 'public', message: GENERATED, response: UserTokenResult, errors: ['PERMISSION_DENIED', 'RESOURCE_EXHAUSTED'] })
  getV1(@RequestData() data: UserTokenV1Request, @ClientIp() clientIp: string): Promise<{ token: string }> {
    return this.tokens.mintV1(data, clientIp);
  }

  /** For back ends and gateways: what a token presented by a front end says, if it is valid for this key. */
  @Operation('/v2/auth/token/verify', { auth: 'apiKey', message: 'Token verified successfully.', response: UserTokenClaimsResult })
  verify(@ApiKeyPrincipal() caller: Caller, @RequestData() data: VerifyUserTokenRequest): Promise<UserTokenClaims> {
    return this.tokens.verify(caller, data.token);
  }
}
