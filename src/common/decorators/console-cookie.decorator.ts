import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { stringifySetCookie } from 'cookie';
import { CONSOLE_SESSION_COOKIE } from '../guards/credentials.guard.js';
import type { ServiceRequest } from '../request-context.js';

/** Sets or clears the console's session cookie on the answer. */
export interface ConsoleCookieJar {
  set(sessionToken: string, maxAgeSeconds: number): void;
  clear(): void;
}

/** What both frameworks' responses have: Fastify's `reply.header`, Express's `res.header`. */
interface HeaderWriter {
  header(name: string, value: string): unknown;
}

/**
 * The console's session cookie, written the same way under both HTTP frameworks: `HttpOnly`
 * (page scripts never read it), `SameSite=Strict` (no other site's page sends it), `Secure`
 * when the request came over HTTPS (behind `TRUST_PROXY`, the proxy's forwarded protocol), for
 * the whole service (the console calls the `/v2` operations), expiring with the session.
 */
export const ConsoleCookie = createParamDecorator((_: unknown, context: ExecutionContext): ConsoleCookieJar => {
  const http = context.switchToHttp();
  const secure = http.getRequest<ServiceRequest>().protocol === 'https';
  const response = http.getResponse<HeaderWriter>();
  const write = (value: string, maxAge: number) =>
    response.header('set-cookie', stringifySetCookie(CONSOLE_SESSION_COOKIE, value, { httpOnly: true, sameSite: 'strict', secure, path: '/', maxAge }));
  return {
    set: (sessionToken, maxAgeSeconds) => write(sessionToken, maxAgeSeconds),
    clear: () => write('', 0),
  };
});

/** The console session an `auth: 'console'` operation was called with. */
export const ConsoleSession = createParamDecorator((_: unknown, context: ExecutionContext) => {
  const session = context.switchToHttp().getRequest<ServiceRequest>().consoleSession;
  if (!session) throw new Error('ConsoleSession used on an operation that is not auth: console.');
  return session;
});
