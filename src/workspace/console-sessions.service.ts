import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock.js';
import type { ConsoleSessionCheck } from '../common/request-context.js';
import { Secrets } from '../common/secrets.js';
import { AppConfig } from '../config/app-config.js';
import { Transactions } from '../database/transactions.js';
import { CredentialsService } from './credentials.service.js';
import type { ConsoleSessionView } from './dto/console-session.response.js';
import { LoginService } from './login.service.js';
import { WorkspaceErrors } from './workspace.errors.js';
import { WorkspaceStore } from './workspace-store.js';
import { WorkspaceService } from './workspace.service.js';

/** A new session: the cookie's value (given to the browser once, never stored) and what the console shows. */
export interface StartedConsoleSession {
  sessionToken: string;
  maxAgeSeconds: number;
  view: ConsoleSessionView;
}

/**
 * The console's sign-in (issue 34): a login link's token becomes a server-side session, held
 * by the browser as an HttpOnly cookie; the credentials guard checks it on every console
 * request (`CredentialVerifier.verifyConsoleSession`). Sessions are stored by the keyed hash
 * of the cookie's value, expire after `CONSOLE_SESSION_TTL_HOURS`, and end at sign-out.
 */
@Injectable()
export class ConsoleSessionsService {
  constructor(
    private readonly config: AppConfig,
    private readonly secrets: Secrets,
    private readonly transactions: Transactions,
    private readonly login: LoginService,
    private readonly credentials: CredentialsService,
    private readonly workspaces: WorkspaceService,
    private readonly repository: WorkspaceStore,
    private readonly clock: Clock,
  ) {}

  /** Consumes a login link's token (once, as `login/verify` does) and opens a session for its owner. */
  async signIn(loginToken: string): Promise<StartedConsoleSession> {
    const { email } = await this.login.verify(loginToken);
    const account = await this.repository.accountOf(email);
    if (!account) throw WorkspaceErrors.invalidLoginToken();
    const sessionToken = randomBytes(32).toString('base64url');
    const maxAgeSeconds = this.config.consoleSessionTtlHours * 3600;
    const createdAt = this.clock.now();
    const expiresAt = createdAt + maxAgeSeconds * 1000;
    await this.transactions.run((manager) =>
      this.repository.addConsoleSession(manager, { sessionHash: this.secrets.lookupHash(sessionToken), accountId: account.id, createdAt, expiresAt }),
    );
    const session = { email, expiresAt, csrfToken: this.credentials.consoleCsrfToken(sessionToken) };
    return { sessionToken, maxAgeSeconds, view: await this.viewOf(session) };
  }

  /** What the console shows of its session: who, until when, the CSRF token and the owner's workspaces. */
  async viewOf(session: Pick<ConsoleSessionCheck, 'email' | 'expiresAt' | 'csrfToken'>): Promise<ConsoleSessionView> {
    return {
      email: session.email,
      expiresAt: session.expiresAt,
      csrfToken: session.csrfToken,
      workspaces: await this.workspaces.consoleViewsOf(session.email),
    };
  }

  /** Signs out: the session stops working at once, on every instance. */
  async signOut(session: ConsoleSessionCheck): Promise<void> {
    await this.transactions.run((manager) => this.repository.removeConsoleSession(manager, session.sessionHash));
  }
}
