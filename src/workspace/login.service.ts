import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';
import { Secrets } from '../common/secrets.js';
import { Transactions } from '../database/transactions.js';
import { Mailer } from '../mail/mailer.service.js';
import { isDisposableEmail } from './disposable-email.js';
import type { SendLoginLinkRequest } from './dto/login.dto.js';
import type { WorkspaceView } from './dto/workspace.response.js';
import { WorkspaceErrors } from './workspace.errors.js';
import { WorkspaceStore } from './workspace-store.js';
import { WorkspaceService } from './workspace.service.js';

export const LOGIN_TOKEN_TTL_MS = 15 * 60 * 1000;

/** Passwordless sign-in for workspace owners (contract part 2). */
@Injectable()
export class LoginService {
  constructor(
    private readonly config: AppConfig,
    private readonly secrets: Secrets,
    private readonly transactions: Transactions,
    private readonly mailer: Mailer,
    private readonly workspaces: WorkspaceService,
    private readonly repository: WorkspaceStore,
  ) {}

  /**
   * Mails a single-use link to an owner. The answer is the same, and as fast, whether or not
   * the address owns a workspace (token and mail are made after the response), so the
   * operation cannot be used to probe for accounts.
   */
  async sendLink(request: SendLoginLinkRequest): Promise<null> {
    const continueUrl = this.checkContinueUrl(request.continueUrl);
    const email = request.email.trim().toLowerCase();
    if (isDisposableEmail(email)) throw WorkspaceErrors.disposableEmail();
    if (await this.workspaces.isOwner(email)) this.mailer.inBackground(() => this.mailLink(email, continueUrl));
    return null;
  }

  private async mailLink(email: string, continueUrl: URL): Promise<void> {
    const token = randomBytes(32).toString('base64url');
    const now = Date.now();
    await this.transactions.run((manager) =>
      this.repository.addLoginToken(manager, {
        tokenHash: this.secrets.lookupHash(token),
        email,
        expiresAt: now + LOGIN_TOKEN_TTL_MS,
        usedAt: null,
        createdAt: now,
      }),
    );
    const link = new URL(continueUrl);
    link.searchParams.set('token', token);
    await this.mailer.send({
      to: email,
      subject: 'Your sign-in link',
      text: `Sign in to your workspace with this link:\n\n${link.toString()}\n\nIt works once and expires in 15 minutes. If you did not ask for it, ignore this mail.`,
    });
  }

  /** Consumes the token (one conditional update, so two concurrent uses cannot both win). */
  async verify(token: string): Promise<{ email: string; workspaces: WorkspaceView[] }> {
    const tokenHash = this.secrets.lookupHash(token);
    const now = Date.now();
    const email = await this.transactions.run((manager) => this.repository.useLoginToken(manager, tokenHash, now));
    if (email === undefined) throw WorkspaceErrors.invalidLoginToken();
    return { email, workspaces: await this.workspaces.ownedBy(email) };
  }

  /**
   * Whether `email` owns workspaces and has proved it by opening a login link (upstream's
   * `email/status`). Workspaces here are never held back until then, so "verified" only reports.
   */
  async emailStatus(email: string): Promise<{ verified: boolean }> {
    const address = email.trim().toLowerCase();
    if (!(await this.repository.hasAccount(address))) throw WorkspaceErrors.emailNotFound();
    return { verified: await this.repository.hasUsedLoginToken(address) };
  }

  private checkContinueUrl(value: string): URL {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw WorkspaceErrors.invalidContinueUrl();
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw WorkspaceErrors.invalidContinueUrl();
    if (url.hostname !== this.config.consoleDomain && url.hostname !== 'localhost') throw WorkspaceErrors.continueUrlNotAllowed();
    return url;
  }
}
