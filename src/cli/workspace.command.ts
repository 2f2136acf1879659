import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { AppConfig } from '../config/app-config.js';
import { WorkspaceService } from '../workspace/workspace.service.js';
import { CreateWorkspaceRequest } from '../workspace/dto/workspace.dto.js';
import { curlExample, print, runCommand, validatedRequest } from './output.js';

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
        `Workspace "${created.workspace.name}" created.`,
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
  plan: 'paid' | 'free';
  selfServeProductionKeys?: boolean;
}

@SubCommand({
  name: 'set-plan',
  arguments: '<workspaceId>',
  description: 'Set the plan of a workspace and whether it may create production keys itself',
})
export class SetPlanCommand extends CommandRunner {
  constructor(private readonly workspaces: WorkspaceService) {
    super();
  }

  async run([workspaceId]: string[], options: SetPlanOptions): Promise<void> {
    await runCommand(async () => {
      const workspace = await this.workspaces.setPlan(workspaceId!, options.plan, options.selfServeProductionKeys === true);
      print(`Workspace ${workspace.id}: plan ${workspace.plan}, self-serve production keys ${workspace.selfServeProductionKeys ? 'on' : 'off'}.`);
    });
  }

  @Option({ flags: '--plan <plan>', description: 'paid or free', required: true, choices: ['paid', 'free'] })
  parsePlan(value: string): string {
    return value;
  }

  @Option({ flags: '--self-serve-production-keys', description: 'allow creating production keys through the API' })
  parseSelfServe(): boolean {
    return true;
  }
}

@Command({ name: 'workspace', description: 'Manage workspaces', subCommands: [CreateWorkspaceCommand, SetPlanCommand] })
export class WorkspaceCommand extends CommandRunner {
  async run(): Promise<void> {
    this.command.help();
  }
}
