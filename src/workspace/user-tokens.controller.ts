import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Operation } from '../common/decorators/operation.decorator.js';
import { ApiKeyPrincipal, ClientIp } from '../common/decorators/principal.decorator.js';
import { RequestData } from '../common/decorators/request-data.decorator.js';
import type { ApiKeyPrincipal as Caller } from '../common/request-context.js';
import { GenerateTokenRequest, UserTokenRequest, UserTokenV1Request, VerifyUserTokenRequest } from './dto/user-token.dto.js';
import { UserTokenClaimsResult, UserTokenResult } from './dto/user-token.response.js';
import { type UserTokenClaims, UserTokens } from './user-tokens.service.js';
import { WorkspaceErrors } from './workspace.errors.js';

const GENERATED = 'Token generated successfully.';

/** User tokens for a product's front end (upstream's generate_token and token/get). */
@ApiTags('auth')
@Controller()
export class UserTokensController {
  constructor(private readonly tokens: UserTokens) {}

  @Operation('/v2/auth/generate_token', {
    summary: "Mints a user token (JWT) for your front end, naming the user's resources and roles.",
    example: {
      userId: 'user-alice',
      userProperties: { name: 'Alice Martin', email: 'alice@acme.example', isAdmin: false },
      permissions: {
        resources: [
          { type: 'organization', id: 'org-acme' },
          { type: 'document', id: 'doc-roadmap', organizationId: 'org-acme', accessRole: 'editor' },
        ],
      },
    },
    auth: 'apiKey',
    message: GENERATED,
    response: UserTokenResult,
  })
  generate(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GenerateTokenRequest): Promise<{ token: string }> {
    return this.tokens.mint(caller, data);
  }

  @Operation('/v2/auth/token/get', {
    summary: 'Mints a user token (JWT) for a user of an organization.',
    example: { userId: 'user-alice', userProperties: { organizationId: 'org-acme', email: 'alice@acme.example' } },
    auth: 'apiKey',
    message: GENERATED,
    response: UserTokenResult,
  })
  get(@ApiKeyPrincipal() caller: Caller, @RequestData() data: UserTokenRequest): Promise<{ token: string }> {
    return this.tokens.mint(caller, data);
  }

  /** v1 sends the key's credentials in the body ("not headers", upstream). */
  @Operation('/v1/auth/token/get', {
    summary: "Mints a user token as `/v2/auth/token/get` does, with the API key's credentials in the body (v1 clients).",
    example: {
      apiKey: 'k3Hq8mZrT4wXv9bNc2LdY7eP',
      authToken: 'Qm3vR8kLx2pZ7tWnF5sJd9hGc4bYe6aUo1iTr0wEq8zXy7Vk',
      userId: 'user-alice',
      userProperties: { organizationId: 'org-acme' },
    },
    exampleFrom: {
      '/apiKey': { operation: '/v2/workspace/apikey/create', answer: '/result/data/apiKey' },
      '/authToken': { operation: '/v2/workspace/authtoken/reset', answer: '/result/data/newAuthToken/token' },
    },
    auth: 'public',
    message: GENERATED,
    response: UserTokenResult,
    errors: [WorkspaceErrors.credentialsInvalid(), WorkspaceErrors.tokenRequestsLimited()],
  })
  getV1(@RequestData() data: UserTokenV1Request, @ClientIp() clientIp: string): Promise<{ token: string }> {
    return this.tokens.mintV1(data, clientIp);
  }

  /** For back ends and gateways: what a token presented by a front end says, if it is valid for this key. */
  @Operation('/v2/auth/token/verify', {
    summary: 'Checks a user token presented to your back end and answers its claims when it is valid for this API key.',
    example: { token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ1c2VySWQiOiJ1c2VyLWFsaWNlIn0.c2lnbmF0dXJl' },
    exampleFrom: { '/token': { operation: '/v2/auth/generate_token', answer: '/result/data/token' } },
    auth: 'apiKey',
    message: 'Token verified successfully.',
    response: UserTokenClaimsResult,
  })
  verify(@ApiKeyPrincipal() caller: Caller, @RequestData() data: VerifyUserTokenRequest): Promise<UserTokenClaims> {
    return this.tokens.verify(caller, data.token);
  }
}
