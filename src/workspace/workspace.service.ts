import { Injectable } from '@nestjs/common';
import { newWorkspaceAuthToken, newWorkspaceId } from '../common/ids.js';
import type { WorkspacePrincipal } from '../common/request-context.js';
import { Secrets } from '../common/secrets.js';
import { Transactions } from '../database/transactions.js';
import { ApiKeyStore, type ApiKeySummary } from './api-key-store.js';
import { ApiKeyService } from './api-key.service.js';
import { isDisposableEmail } from './disposable-email.js';
import { displayLocalPart } from './display-name.js';
import type { CreateWorkspaceRequest } from './dto/workspace.dto.js';
import type { WorkspaceView } from './dto/workspace.response.js';
import { WORKSPACE_PLANS, type WorkspacePlan } from './plans.js';
import { WORKSPACE_LIMITS, WorkspaceErrors } from './workspace.errors.js';
import { WorkspaceStore, type AccountRecord, type WorkspaceRecord } from './workspace-store.js';

/** What `create` hands back besides the response: the first key's credentials (for the CLI). */
export interface CreatedWorkspace {
  workspace: WorkspaceView;
  apiKey: string;
  apiKeyAuthToken: string;
}

/** A workspace as an operator sees it (admin CLI): everything but its auth token. */
export interface WorkspaceOverview {
  id: string;
  name: string;
  ownerId: string;
  ownerEmail: string;
  ownerName: string;
  plan: WorkspacePlan;
  selfServeProductionKeys: boolean;
  createdAt: number;
  lastUpdated: number;
}

/** Workspaces and their owners' accounts (contract part 2); the tables are `WorkspaceStore`'s. */
@Injectable()
export class WorkspaceService {
  constructor(
    private readonly transactions: Transactions,
    private readonly secrets: Secrets,
    private readonly apiKeys: ApiKeyService,
    private readonly keys: ApiKeyStore,
    private readonly workspaces: WorkspaceStore,
  ) {}

  /** Creates a workspace, its owner account (once per e-mail) and a first `testing` key with a token. */
  async create(request: CreateWorkspaceRequest): Promise<CreatedWorkspace> {
    const email = request.ownerEmail.trim().toLowerCase();
    if (isDisposableEmail(email)) throw WorkspaceErrors.disposableEmail();
    const ownerName = request.name?.trim() || email;
    const authToken = newWorkspaceAuthToken();
    const now = Date.now();
    const created = await this.transactions.run(async (manager) => {
      const account = await this.workspaces.accountFor(manager, email, now);
      // Creates for one e-mail take turns on its account, so the limit holds under concurrency.
      await this.workspaces.lockAccount(manager, account.id);
      const owned = await this.workspaces.workspaceCount(manager, account.id);
      if (owned >= WORKSPACE_LIMITS.workspacesPerOwnerEmail) throw WorkspaceErrors.tooManyWorkspaces(WORKSPACE_LIMITS.workspacesPerOwnerEmail);
      const workspace: WorkspaceRecord = {
        id: newWorkspaceId(),
        name: request.workspaceName?.trim() || `${ownerName} workspace`,
        accountId: account.id,
        ownerName,
        ownerAvatar: request.avatar ?? '',
        authTokenHash: this.secrets.lookupHash(authToken),
        authTokenEnc: this.secrets.encrypt(authToken),
        plan: 'free',
        selfServeProductionKeys: false,
        createdAt: now,
        lastUpdated: now,
      };
      await this.workspaces.insertWorkspace(manager, workspace);
      const firstKey = await this.apiKeys.createInTransaction(manager, workspace, {
        ownerEmail: email,
        type: 'testing',
        apiKeyName: `${displayLocalPart(email)} Test API Key`,
        createAuthToken: true,
      });
      return { workspace, account, firstKey };
    });
    const keys = await this.keys.ofWorkspaces([created.workspace.id]);
    return {
      workspace: this.toResponse(created.workspace, created.account, keys),
      apiKey: created.firstKey.apiKey,
      apiKeyAuthToken: created.firstKey.authToken!,
    };
  }

  async get(principal: WorkspacePrincipal): Promise<WorkspaceView> {
    const workspace = await this.workspaces.workspace(principal.workspaceId);
    if (!workspace) throw WorkspaceErrors.workspaceNotFound();
    const [response] = await this.responsesFor([workspace]);
    return principal.viaConsole ? withoutAuthToken(response!) : response!;
  }

  /** Every workspace owned by an e-mail address, oldest first, as the console shows them: without their auth tokens. */
  async consoleViewsOf(email: string): Promise<WorkspaceView[]> {
    return (await this.ownedBy(email)).map(withoutAuthToken);
  }

  /** Every workspace owned by an e-mail address, oldest first (login verify). */
  async ownedBy(email: string): Promise<WorkspaceView[]> {
    return this.responsesFor(await this.workspaces.ownedBy(email.toLowerCase()));
  }

  /** True when the address owns at least one workspace. */
  async isOwner(email: string): Promise<boolean> {
    return this.workspaces.ownsAny(email.toLowerCase());
  }

  /**
   * Operator setting (admin CLI): plan and self-serve production keys; what is left undefined
   * keeps its stored value. A plan the service does not know is INVALID_ARGUMENT, storing nothing.
   */
  async setPlan(workspaceId: string, plan: WorkspacePlan | undefined, selfServeProductionKeys?: boolean): Promise<WorkspaceRecord> {
    if (plan !== undefined && !(WORKSPACE_PLANS as readonly string[]).includes(plan)) throw WorkspaceErrors.unknownPlan(plan);
    return this.transactions.run(async (manager) => {
      const workspace = await this.workspaces.setPlan(manager, workspaceId, { plan, selfServeProductionKeys });
      if (!workspace) throw WorkspaceErrors.workspaceNotFound();
      return workspace;
    });
  }

  /** Operator listing (admin CLI): the newest `limit` workspaces, newest first, only the owner's when `ownerEmail` is given. */
  async newest(limit: number, ownerEmail?: string): Promise<WorkspaceOverview[]> {
    return this.overviewsOf(await this.workspaces.newest(limit, ownerEmail?.trim().toLowerCase()));
  }

  /** Operator view of one workspace (admin CLI); NOT_FOUND when there is none. */
  async overview(workspaceId: string): Promise<WorkspaceOverview> {
    const workspace = await this.workspaces.workspace(workspaceId);
    if (!workspace) throw WorkspaceErrors.workspaceNotFound();
    const [overview] = await this.overviewsOf([workspace]);
    return overview!;
  }

  private async overviewsOf(workspaces: WorkspaceRecord[]): Promise<WorkspaceOverview[]> {
    const accounts = await this.workspaces.accountsById([...new Set(workspaces.map((w) => w.accountId))]);
    const emails = new Map(accounts.map((account) => [account.id, account.email]));
    return workspaces.map((w) => ({
      id: w.id,
      name: w.name,
      ownerId: w.accountId,
      ownerEmail: emails.get(w.accountId)!,
      ownerName: w.ownerName,
      plan: w.plan,
      selfServeProductionKeys: w.selfServeProductionKeys,
      createdAt: w.createdAt,
      lastUpdated: w.lastUpdated,
    }));
  }

  /** Responses for several workspaces in three queries, whatever their number. */
  private async responsesFor(workspaces: WorkspaceRecord[]): Promise<WorkspaceView[]> {
    if (workspaces.length === 0) return [];
    const ids = workspaces.map((w) => w.id);
    const [accounts, keys] = await Promise.all([this.workspaces.accountsById([...new Set(workspaces.map((w) => w.accountId))]), this.keys.ofWorkspaces(ids)]);
    return workspaces.map((workspace) =>
      this.toResponse(
        workspace,
        accounts.find((a) => a.id === workspace.accountId)!,
        keys.filter((k) => k.workspaceId === workspace.id),
      ),
    );
  }

  private toResponse(workspace: WorkspaceRecord, account: AccountRecord, keys: ApiKeySummary[]): WorkspaceView {
    return {
      id: workspace.id,
      name: workspace.name,
      owner: { email: account.email, id: account.id, name: workspace.ownerName, avatar: workspace.ownerAvatar },
      authToken: this.secrets.decrypt(workspace.authTokenEnc),
      apiKeyList: Object.fromEntries(keys.map((key) => [key.id, { apiKeyName: key.name, id: key.id, type: key.type }])),
    };
  }
}

/** A workspace as the console sees it: the auth token left out (`""`), so no page script can read it. */
function withoutAuthToken(view: WorkspaceView): WorkspaceView {
  return { ...view, authToken: '' };
}
