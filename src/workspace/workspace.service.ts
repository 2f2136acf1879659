import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, type EntityManager, type Repository } from 'typeorm';
import { newSortableId, newWorkspaceAuthToken, newWorkspaceId } from '../common/ids.js';
import type { WorkspacePrincipal } from '../common/request-context.js';
import { Secrets } from '../common/secrets.js';
import { Sql } from '../database/sql.js';
import { Transactions } from '../database/transactions.js';
import { ApiKeyRepository, type ApiKeySummary } from './api-key.repository.js';
import { ApiKeyService } from './api-key.service.js';
import { isDisposableEmail } from './disposable-email.js';
import { displayLocalPart } from './display-name.js';
import type { CreateWorkspaceRequest } from './dto/workspace.dto.js';
import type { WorkspaceView } from './dto/workspace.response.js';
import { AccountEntity } from './entities/account.entity.js';
import { WorkspaceEntity, type WorkspacePlan } from './entities/workspace.entity.js';
import { WORKSPACE_LIMITS, WorkspaceErrors } from './workspace.errors.js';

/** What `create` hands back besides the response: the first key's credentials (for the CLI). */
export interface CreatedWorkspace {
  workspace: WorkspaceView;
  apiKey: string;
  apiKeyAuthToken: string;
}

@Injectable()
export class WorkspaceService {
  constructor(
    private readonly transactions: Transactions,
    private readonly sql: Sql,
    private readonly secrets: Secrets,
    private readonly apiKeys: ApiKeyService,
    private readonly keys: ApiKeyRepository,
    @InjectRepository(WorkspaceEntity) private readonly workspaces: Repository<WorkspaceEntity>,
    @InjectRepository(AccountEntity) private readonly accounts: Repository<AccountEntity>,
  ) {}

  /** Creates a workspace, its owner account (once per e-mail) and a first `testing` key with a token. */
  async create(request: CreateWorkspaceRequest): Promise<CreatedWorkspace> {
    const email = request.ownerEmail.trim().toLowerCase();
    if (isDisposableEmail(email)) throw WorkspaceErrors.disposableEmail();
    const ownerName = request.name?.trim() || email;
    const authToken = newWorkspaceAuthToken();
    const now = Date.now();
    const created = await this.transactions.run(async (manager) => {
      const account = await this.findOrCreateAccount(manager, email, now);
      // Creates for one e-mail take turns on its account, so the limit holds under concurrency.
      await this.sql.lockRows(manager, 'SELECT id FROM account WHERE id = :id', { id: account.id }, { keysKept: true });
      const owned = await manager.count(WorkspaceEntity, { where: { accountId: account.id } });
      if (owned >= WORKSPACE_LIMITS.workspacesPerOwnerEmail) throw WorkspaceErrors.tooManyWorkspaces(WORKSPACE_LIMITS.workspacesPerOwnerEmail);
      const workspace: WorkspaceEntity = {
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
      await manager.insert(WorkspaceEntity, workspace);
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
    const workspace = await this.workspaces.findOneBy({ id: principal.workspaceId });
    if (!workspace) throw WorkspaceErrors.workspaceNotFound();
    const [response] = await this.responsesFor([workspace]);
    return response!;
  }

  /** Every workspace owned by an e-mail address, oldest first (login verify). */
  async ownedBy(email: string): Promise<WorkspaceView[]> {
    const account = await this.accounts.findOneBy({ email: email.toLowerCase() });
    if (!account) return [];
    const workspaces = await this.workspaces.find({ where: { accountId: account.id }, order: { createdAt: 'ASC', id: 'ASC' } });
    return this.responsesFor(workspaces);
  }

  /** True when the address owns at least one workspace. */
  async isOwner(email: string): Promise<boolean> {
    const account = await this.accounts.findOneBy({ email: email.toLowerCase() });
    return account !== null && (await this.workspaces.existsBy({ accountId: account.id }));
  }

  /** Operator setting (admin CLI): plan and self-serve production keys. */
  async setPlan(workspaceId: string, plan: WorkspacePlan, selfServeProductionKeys: boolean): Promise<WorkspaceEntity> {
    return this.transactions.run(async (manager) => {
      const workspace = await manager.findOneBy(WorkspaceEntity, { id: workspaceId });
      if (!workspace) throw WorkspaceErrors.workspaceNotFound();
      await manager.update(WorkspaceEntity, { id: workspaceId }, { plan, selfServeProductionKeys, lastUpdated: Date.now() });
      return { ...workspace, plan, selfServeProductionKeys };
    });
  }

  /** Responses for several workspaces in three queries, whatever their number. */
  private async responsesFor(workspaces: WorkspaceEntity[]): Promise<WorkspaceView[]> {
    if (workspaces.length === 0) return [];
    const ids = workspaces.map((w) => w.id);
    const [accounts, keys] = await Promise.all([
      this.accounts.findBy({ id: In([...new Set(workspaces.map((w) => w.accountId))]) }),
      this.keys.ofWorkspaces(ids),
    ]);
    return workspaces.map((workspace) =>
      this.toResponse(
        workspace,
        accounts.find((a) => a.id === workspace.accountId)!,
        keys.filter((k) => k.workspaceId === workspace.id),
      ),
    );
  }

  private toResponse(workspace: WorkspaceEntity, account: AccountEntity, keys: ApiKeySummary[]): WorkspaceView {
    return {
      id: workspace.id,
      name: workspace.name,
      owner: { email: account.email, id: account.id, name: workspace.ownerName, avatar: workspace.ownerAvatar },
      authToken: this.secrets.decrypt(workspace.authTokenEnc),
      apiKeyList: Object.fromEntries(keys.map((key) => [key.id, { apiKeyName: key.name, id: key.id, type: key.type }])),
    };
  }

  /** Race-safe: a concurrent create for the same address inserts nothing and both read one row. */
  private async findOrCreateAccount(manager: EntityManager, email: string, now: number): Promise<AccountEntity> {
    const existing = await manager.findOneBy(AccountEntity, { email });
    if (existing) return existing;
    await manager.createQueryBuilder().insert().into(AccountEntity).values({ id: newSortableId('usr_'), email, createdAt: now }).orIgnore().execute();
    return manager.findOneByOrFail(AccountEntity, { email });
  }
}
