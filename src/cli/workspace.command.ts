import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { AppConfig } from '../config/app-config.js';
import { WORKSPACE_PLANS, type WorkspacePlan } from '../workspace/plans.js';
import { WorkspaceService } from '../workspace/workspace.service.js';
import { CreateWorkspaceRequest } from '../workspace/dto/workspace.dto.js';
import { curlExample, oneOf, print, runCommand, shown, validatedRequest } from './output.js';
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

@Command({
  name: 'workspace',
  description: 'Manage workspaces',
  subCommands: [CreateWorkspaceCommand, SetPlanCommand],
})
export class WorkspaceCommand extends CommandGroup {}

function onOff(value: boolean): string {
  return value ? 'on' : 'off';
}
