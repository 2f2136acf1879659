import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ConsoleCookie, type ConsoleCookieJar, ConsoleSession } from '../common/decorators/console-cookie.decorator.js';
import { Operation } from '../common/decorators/operation.decorator.js';
import { RequestData } from '../common/decorators/request-data.decorator.js';
import { EmptyRequest } from '../common/empty-request.dto.js';
import type { ConsoleSessionCheck } from '../common/request-context.js';
import { NullDataResult } from '../common/openapi-responses.js';
import { ConsoleSessionsService } from './console-sessions.service.js';
import { StartConsoleSessionRequest } from './dto/console-session.dto.js';
import { ConsoleSessionResult, type ConsoleSessionView } from './dto/console-session.response.js';
import { WorkspaceErrors } from './workspace.errors.js';

/**
 * The console's sign-in state (issue 34). Everything else the console does goes through the
 * operations every client calls, with the session cookie in place of a token.
 */
@ApiTags('console')
@Controller()
export class ConsoleSessionController {
  constructor(private readonly sessions: ConsoleSessionsService) {}

  @Operation('/v2/console/session/create', {
    example: { token: 'Vx1q2bT9fK3mZr8sLw0pYdE5hN7cJ4gA6uRiOkXyQeM' },

    auth: 'public',
    message: 'Signed in.',
    summary: "Sign in to the console with a login link's token: sets the HttpOnly session cookie",
    rateLimits: ['loginVerify'],
    response: ConsoleSessionResult,
    errors: [WorkspaceErrors.invalidLoginToken()],
  })
  async create(@RequestData() data: StartConsoleSessionRequest, @ConsoleCookie() cookie: ConsoleCookieJar): Promise<ConsoleSessionView> {
    const started = await this.sessions.signIn(data.token);
    cookie.set(started.sessionToken, started.maxAgeSeconds);
    return started.view;
  }

  @Operation('/v2/console/session/get', {
    auth: 'console',
    consoleSessionRead: true,
    message: 'Session retrieved.',
    summary: 'The console session of the cookie: owner, expiry, CSRF token, workspaces',
    response: ConsoleSessionResult,
  })
  get(@ConsoleSession() session: ConsoleSessionCheck, @RequestData() _data: EmptyRequest): Promise<ConsoleSessionView> {
    return this.sessions.viewOf(session);
  }

  @Operation('/v2/console/session/delete', {
    auth: 'console',
    message: 'Signed out.',
    summary: 'Sign out: the session stops working at once and the cookie is cleared',
    response: NullDataResult,
  })
  async delete(@ConsoleSession() session: ConsoleSessionCheck, @RequestData() _data: EmptyRequest, @ConsoleCookie() cookie: ConsoleCookieJar): Promise<null> {
    await this.sessions.signOut(session);
    cookie.clear();
    return null;
  }
}
