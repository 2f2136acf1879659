import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { AppConfig } from '../config/app-config.js';
import { ApiKeyService } from '../workspace/api-key.service.js';
import { CreateApiKeyRequest } from '../workspace/dto/api-key.dto.js';
import { API_KEY_TYPES } from '../workspace/plans.js';
import { curlExample, oneOf, print, runCommand, validatedRequest } from './output.js';
import { CommandGroup } from './program.js';

interface CreateOptions {
  workspace: string;
  email: string;
  type: 'testing' | 'production';
  name?: string;
  region?: string;
}

@SubCommand({ name: 'create', description: 'Create an API key with an auth token and print both' })
export class CreateApiKeyCommand extends CommandRunner {
  constructor(
    private readonly apiKeys: ApiKeyService,
    private readonly config: AppConfig,
  ) {
    super();
  }

  async run(_: string[], options: CreateOptions): Promise<void> {
    await runCommand(async () => {
      const request = await validatedRequest(CreateApiKeyRequest, {
        ownerEmail: options.email,
        type: options.type,
        apiKeyName: options.name,
        persistenceDBRegion: options.region,
        createAuthToken: true,
      });
      const created = await this.apiKeys.create({ workspaceId: options.workspace }, request);
      print([
        `API key (${options.type}) created.`,
        `  API key:             ${created.apiKey}`,
        `  API key auth token:  ${created.authToken}`,
        '',
        'Try it:',
        curlExample(this.config.headerProduct, created.apiKey, created.authToken!, this.config.port),
      ]);
    });
  }

  @Option({ flags: '--workspace <id>', description: 'workspace id', required: true })
  parseWorkspace(value: string): string {
    return value;
  }

  @Option({ flags: '--email <email>', description: 'owner e-mail of the key', required: true })
  parseEmail(value: string): string {
    return value;
  }

  @Option({ flags: '--type <type>', description: 'testing or production', defaultValue: 'testing' })
  parseType(value: string): string {
    return oneOf(value, API_KEY_TYPES);
  }

  @Option({ flags: '--name <name>', description: 'display name' })
  parseName(value: string): string {
    return value;
  }

  @Option({ flags: '--region <region>', description: 'persistenceDBRegion (production keys)' })
  parseRegion(value: string): string {
    return value;
  }
}

@Command({ name: 'apikey', description: 'Manage API keys', subCommands: [CreateApiKeyCommand] })
export class ApiKeyCommand extends CommandGroup {}
