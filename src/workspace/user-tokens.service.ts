import { Inject, Injectable } from '@nestjs/common';
import { limitItem, policyItem } from '../common/rate-limit/rate-limit-headers.js';
import { RATE_LIMIT_STORE, type RateLimitStore } from '../common/rate-limit/rate-limit.module.js';
import { AppConfig } from '../config/app-config.js';
import { base64url, errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { Clock } from '../common/clock.js';
import { Secrets } from '../common/secrets.js';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { CredentialVerifier } from '../common/guards/credential-verifier.js';
import type { GenerateTokenRequest, TokenResource, UserTokenRequest, UserTokenV1Request } from './dto/user-token.dto.js';
import { WorkspaceErrors } from './workspace.errors.js';

/** How long a user token is good for (upstream: "JWT token expires in 48 hours"). */
export const USER_TOKEN_TTL_SECONDS = 48 * 60 * 60;
const ISSUER = 'collab-backend';

/** What a user token says: who the user is, for which API key, and (when minted with them) the resources granted. */
export interface UserTokenClaims {
  userId: string;
  apiKey: string;
  userProperties: { name?: string; email?: string; isAdmin: boolean; organizationId?: string };
  permissions?: { resources: TokenResource[] };
  /** Unix seconds. */
  iat: number;
  exp: number;
}

/** How far ahead of this instance's clock another instance's may be when it minted a token, in seconds. */
const CLOCK_SKEW_SECONDS = 60;
const BASE64URL_SEGMENT = /^[A-Za-z0-9_-]+$/;
/** The window of the failed-credentials counter of v1 token/get. */
const FAILURE_WINDOW_MS = 60_000;
/** The counter's name, in its keys and in the `RateLimit` fields. */
const TOKEN_FAILURES = 'tokenFailures';

/**
 * Signed, expiring JWTs (HS256, `jose`) for a product's front end: the back end asks for one with
 * its API key, the front end presents it. The signing key is derived from `MASTER_KEY`, so every
 * instance verifies every other's tokens, and the audience is the API key, so a token of one key
 * is refused for another.
 */
@Injectable()
export class UserTokens {
  constructor(
    private readonly secrets: Secrets,
    private readonly clock: Clock,
    private readonly credentials: CredentialVerifier,
    private readonly config: AppConfig,
    @Inject(RATE_LIMIT_STORE) private readonly limits: RateLimitStore,
  ) {}

  /** A token for a user of `caller`'s key, with the resources sent (generate_token); `isAdmin` is false unless sent. */
  mint(caller: ApiKeyPrincipal, request: UserTokenRequest | GenerateTokenRequest): Promise<{ token: string }> {
    const permissions = 'permissions' in request ? { permissions: { resources: request.permissions.resources } } : {};
    return this.sign(caller, { userId: request.userId, userProperties: { isAdmin: false, ...request.userProperties }, ...permissions });
  }

  /**
   * v1's token/get: the key's credentials come in the body, and are checked as the headers would
   * be. The operation is public, so wrong credentials are counted per client address: past
   * `RATE_LIMIT_TOKEN_FAILURES` in a minute, every attempt from there is refused (429) until the
   * minute ends, right ones too, so guessing learns nothing; a back end that sends right ones is
   * never slowed. The answers that count (the failures, and the refusals) carry the limit's
   * `RateLimit-Policy` and `RateLimit` fields.
   */
  async mintV1(request: UserTokenV1Request, clientIp: string): Promise<{ token: string }> {
    const limit = this.config.rateLimits.tokenFailuresPerMinute;
    const counter = `${TOKEN_FAILURES}:${clientIp}`;
    const policy = policyItem(TOKEN_FAILURES, limit, FAILURE_WINDOW_MS);
    if (limit > 0) {
      // At the limit, the next attempt would be one over it: refused until the window ends.
      const window = await this.limits.peek(counter, limit - 1);
      if (window.isBlocked) {
        const rateLimit = { policy, limit: limitItem(TOKEN_FAILURES, 0, window.timeToBlockExpire) };
        throw WorkspaceErrors.tokenRequestsLimited(window.timeToBlockExpire, rateLimit);
      }
    }
    const caller = await this.credentials.verifyApiKey(request.apiKey, request.authToken);
    if (!caller) {
      if (limit <= 0) throw WorkspaceErrors.credentialsInvalid();
      const counted = await this.limits.increment(counter, FAILURE_WINDOW_MS, limit);
      const rateLimit = { policy, limit: limitItem(TOKEN_FAILURES, limit - counted.totalHits, counted.timeToExpire) };
      throw WorkspaceErrors.credentialsInvalid(rateLimit);
    }
    const { apiKey: _apiKey, authToken: _authToken, ...userRequest } = request;
    return this.mint(caller, userRequest);
  }

  private async sign(caller: ApiKeyPrincipal, claims: Pick<UserTokenClaims, 'userId' | 'userProperties' | 'permissions'>): Promise<{ token: string }> {
    const now = Math.floor(this.clock.now() / 1000);
    const token = await new SignJWT({
      userId: claims.userId,
      apiKey: caller.apiKeyId,
      userProperties: claims.userProperties,
      ...(claims.permissions ? { permissions: claims.permissions } : {}),
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(ISSUER)
      .setAudience(caller.apiKeyId)
      .setSubject(claims.userId)
      .setIssuedAt(now)
      .setExpirationTime(now + USER_TOKEN_TTL_SECONDS)
      .sign(this.secrets.userTokenKey);
    return { token };
  }

  /**
   * The claims of a token this service minted for `caller`'s key and that has not expired;
   * PERMISSION_DENIED otherwise. Strict: exactly the spelling minted (no padding, white space or
   * other base64url spelling of the same bytes), every claim the service writes present and of its
   * type, the audience this one key, and a lifetime of at most 48 hours that started no later than
   * now (give or take a minute between instances' clocks).
   */
  async verify(caller: ApiKeyPrincipal, token: string): Promise<UserTokenClaims> {
    const invalid = WorkspaceErrors.userTokenInvalid;
    if (!isCanonical(token)) throw invalid();
    const now = this.clock.now();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.secrets.userTokenKey, {
        algorithms: ['HS256'],
        issuer: ISSUER,
        audience: caller.apiKeyId,
        currentDate: new Date(now),
        requiredClaims: ['iss', 'aud', 'sub', 'iat', 'exp'],
      }));
    } catch (error) {
      if (error instanceof joseErrors.JOSEError) throw invalid();
      throw error;
    }
    const claims = wellFormed(payload, caller, Math.floor(now / 1000));
    if (!claims) throw invalid();
    return claims;
  }
}

/** Three base64url segments, each the one spelling its bytes encode to. */
function isCanonical(token: string): boolean {
  const segments = token.split('.');
  return segments.length === 3 && segments.every((segment) => BASE64URL_SEGMENT.test(segment) && base64url.encode(base64url.decode(segment)) === segment);
}

/** The claims, when each is what `sign` writes: else undefined. */
function wellFormed(payload: JWTPayload, caller: ApiKeyPrincipal, nowSeconds: number): UserTokenClaims | undefined {
  const { aud, sub, iat, exp, userId, apiKey, userProperties } = payload as JWTPayload & Record<string, unknown>;
  if (typeof aud !== 'string' || aud !== caller.apiKeyId || apiKey !== caller.apiKeyId) return undefined;
  if (typeof userId !== 'string' || userId === '' || userId !== sub) return undefined;
  if (typeof userProperties !== 'object' || userProperties === null || typeof (userProperties as { isAdmin?: unknown }).isAdmin !== 'boolean') return undefined;
  if (!Number.isInteger(iat) || !Number.isInteger(exp)) return undefined;
  if (iat! > nowSeconds + CLOCK_SKEW_SECONDS || exp! <= iat! || exp! - iat! > USER_TOKEN_TTL_SECONDS) return undefined;
  return claimsOf(payload);
}

function claimsOf(payload: JWTPayload): UserTokenClaims {
  const { userId, apiKey, userProperties, permissions, iat, exp } = payload as JWTPayload & Omit<UserTokenClaims, 'iat' | 'exp'>;
  return { userId, apiKey, userProperties, ...(permissions ? { permissions } : {}), iat: iat!, exp: exp! };
}
