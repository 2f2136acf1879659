import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { AppConfig } from '../config/app-config.js';
import { ApiKeyService } from '../workspace/api-key.service.js';
import { WORKSPACE_PLANS, type WorkspacePlan } from '../workspace/plans.js';
import { WorkspaceService } from '../workspace/workspace.service.js';
import { CreateWorkspaceRequest } from '../workspace/dto/workspace.dto.js';
import { apiKeyTable } from './apikey.command.js';
import { curlExample, oneOf, print, runCommand, shown, table, validatedRequest, when, wholeNumber } from './output.js';
import { CommandGroup } from './program.js';

interface CreateOptions {
  email: string;
  name?: string;
  workspaceName?: string;
}

@SubCommand({ name: 'create', description: 'Create a workspace with a testing API key and print its credentials' })
export class CreateWorkspaceCommand extends CommandRunner {
  constructor(
    private readonly workspaces: WorkspaceService,
    private readonly config: AppConfig,
  ) {
    super();
  }

  async run(_: string[], options: CreateOptions): Promise<void> {
    await runCommand(async () => {
      const request = await validatedRequest(CreateWorkspaceRequest, { ownerEmail: options.email, name: options.name, workspaceName: options.workspaceName });
      const created = await this.workspaces.create(request);
      print([
        `Workspace "${shown(created.workspace.name)}" created.`,
        `  workspace id:          ${created.workspace.id}`,
        `  workspace auth token:  ${created.workspace.authToken}`,
        `  API key (testing):     ${created.apiKey}`,
        `  API key auth token:    ${created.apiKeyAuthToken}`,
        '',
        'Try it:',
        curlExample(this.config.headerProduct, created.apiKey, created.apiKeyAuthToken, this.config.port),
      ]);
    });
  }

  @Option({ flags: '--email <email>', description: 'owner e-mail', required: true })
  parseEmail(value: string): string {
    return value;
  }

  @Option({ flags: '--name <name>', description: 'owner display name' })
  parseName(value: string): string {
    return value;
  }

  @Option({ flags: '--workspace-name <name>', description: 'workspace name' })
  parseWorkspaceName(value: string): string {
    return value;
  }
}

interface SetPlanOptions {
  plan?: WorkspacePlan;
  selfServeProductionKeys?: boolean;
}

@SubCommand({
  name: 'set-plan',
  arguments: '<workspaceId>',
  description: 'Set the plan of a workspace and whether it may create production keys itself; what is not given stays as it is',
})
export class SetPlanCommand extends CommandRunner {
  constructor(private readonly workspaces: WorkspaceService) {
    super();
  }

  async run([workspaceId]: string[], options: SetPlanOptions): Promise<void> {
    if (options.plan === undefined && options.selfServeProductionKeys === undefined) {
      this.command.error('error: nothing to set: give --plan, --self-serve-production-keys or --no-self-serve-production-keys');
    }
    await runCommand(async () => {
      const workspace = await this.workspaces.setPlan(workspaceId!, options.plan, options.selfServeProductionKeys);
      print(`Workspace ${workspace.id}: plan ${workspace.plan}, self-serve production keys ${onOff(workspace.selfServeProductionKeys)}.`);
    });
  }

  @Option({ flags: '--plan <plan>', description: `${WORKSPACE_PLANS.join(' or ')}` })
  parsePlan(value: string): WorkspacePlan {
    return oneOf(value, WORKSPACE_PLANS);
  }

  // Declared before its --no- form: commander then leaves the value unset when neither is given.
  @Option({ flags: '--self-serve-production-keys', description: 'allow creating production keys through the API' })
  parseSelfServe(): boolean {
    return true;
  }

  @Option({ flags: '--no-self-serve-production-keys', description: 'no longer allow it (keys made before stay)' })
  parseNoSelfServe(): boolean {
    return false;
  }
}

interface ListOptions {
  email?: string;
  limit: number;
}

@SubCommand({ name: 'list', description: 'List workspaces, newest first: id, plan, created, owner e-mail, name' })
export class ListWorkspacesCommand extends CommandRunner {
  constructor(private readonly workspaces: WorkspaceService) {
    super();
  }

  async run(_: string[], options: ListOptions): Promise<void> {
    await runCommand(async () => {
      const workspaces = await this.workspaces.newest(options.limit, options.email);
      if (!workspaces.length) {
        print(options.email === undefined ? 'No workspaces.' : `No workspaces owned by ${shown(options.email)}.`);
        return;
      }
      const rows = workspaces.map((w) => [w.id, w.plan, when(w.createdAt), shown(w.ownerEmail), shown(w.name)]);
      const lines = table(['ID', 'PLAN', 'CREATED', 'OWNER', 'NAME'], rows);
      if (workspaces.length === options.limit) lines.push(`(newest ${options.limit}; --limit shows more)`);
      print(lines);
    });
  }

  @Option({ flags: '--email <email>', description: 'only the workspaces this address owns' })
  parseEmail(value: string): string {
    return value;
  }

  @Option({ flags: '--limit <n>', description: 'at most this many (default 100)', defaultValue: 100 })
  parseLimit(value: string): number {
    return wholeNumber(value, 1, 10_000);
  }
}

@SubCommand({ name: 'show', arguments: '<workspaceId>', description: 'Show a workspace and its API keys (never its auth token)' })
export class ShowWorkspaceCommand extends CommandRunner {
  constructor(
    private readonly workspaces: WorkspaceService,
    private readonly apiKeys: ApiKeyService,
  ) {
    super();
  }

  async run([workspaceId]: string[]): Promise<void> {
    await runCommand(async () => {
      const workspace = await this.workspaces.overview(workspaceId!);
      const keys = await this.apiKeys.newest({ workspaceId: workspace.id });
      print([
        `Workspace "${shown(workspace.name)}"`,
        `  workspace id:                ${workspace.id}`,
        `  owner e-mail:                ${shown(workspace.ownerEmail)}`,
        `  owner name:                  ${shown(workspace.ownerName)}`,
        `  owner id:                    ${workspace.ownerId}`,
        `  plan:                        ${workspace.plan}`,
        `  self-serve production keys:  ${onOff(workspace.selfServeProductionKeys)}`,
        `  created:                     ${when(workspace.createdAt)}`,
        `  updated:                     ${when(workspace.lastUpdated)}`,
        '',
        ...(keys.length ? [`API keys (${keys.length}):`, ...apiKeyTable(keys).map((line) => `  ${line}`)] : ['No API keys.']),
      ]);
    });
  }
}

@Command({
  name: 'workspace',
  description: 'Manage workspaces',
  subCommands: [CreateWorkspaceCommand, SetPlanCommand, ListWorkspacesCommand, ShowWorkspaceCommand],
})
export class WorkspaceCommand extends CommandGroup {}

function onOff(value: boolean): string {
  return value ? 'on' : 'off';
}
