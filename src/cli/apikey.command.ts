import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { AppConfig } from '../config/app-config.js';
import { ApiKeyService } from '../workspace/api-key.service.js';
import { CreateApiKeyRequest } from '../workspace/dto/api-key.dto.js';
import type { ApiKeyRecord } from '../workspace/api-key-store.js';
import { API_KEY_TYPES } from '../workspace/plans.js';
import { curlExample, oneOf, print, runCommand, shown, table, validatedRequest, when, wholeNumber } from './output.js';
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

interface ListOptions {
  workspace?: string;
  limit: number;
}

@SubCommand({ name: 'list', description: 'List API keys, revoked ones too, newest first: id, type, status, created, workspace, owner e-mail, name' })
export class ListApiKeysCommand extends CommandRunner {
  constructor(private readonly apiKeys: ApiKeyService) {
    super();
  }

  async run(_: string[], options: ListOptions): Promise<void> {
    await runCommand(async () => {
      const keys = await this.apiKeys.newest({ workspaceId: options.workspace, limit: options.limit });
      if (!keys.length) {
        print(options.workspace === undefined ? 'No API keys.' : `No API keys in workspace ${shown(options.workspace)}.`);
        return;
      }
      const lines = apiKeyTable(keys, { workspace: options.workspace === undefined });
      if (keys.length === options.limit) lines.push(`(newest ${options.limit}; --limit shows more)`);
      print(lines);
    });
  }

  @Option({ flags: '--workspace <id>', description: "only this workspace's keys" })
  parseWorkspace(value: string): string {
    return value;
  }

  @Option({ flags: '--limit <n>', description: 'at most this many (default 100)', defaultValue: 100 })
  parseLimit(value: string): number {
    return wholeNumber(value, 1, 10_000);
  }
}

@SubCommand({ name: 'show', arguments: '<apiKey>', description: 'Show an API key and its auth tokens (only their start)' })
export class ShowApiKeyCommand extends CommandRunner {
  constructor(private readonly apiKeys: ApiKeyService) {
    super();
  }

  async run([apiKey]: string[]): Promise<void> {
    await runCommand(async () => {
      const { key, authTokens } = await this.apiKeys.details(apiKey!);
      print([
        `API key "${shown(key.name)}"`,
        `  API key:        ${key.id}`,
        `  type:           ${key.type}`,
        `  workspace id:   ${key.workspaceId}`,
        `  owner:          ${shown(key.ownerEmail)}`,
        ...(key.type === 'production' ? [`  regions:        persistence ${key.persistenceDbRegion ?? '-'}, realtime ${key.realtimeDbRegion ?? '-'}`] : []),
        `  created:        ${when(key.createdAt)}`,
        `  updated:        ${when(key.lastUpdated)}`,
        `  status:         ${key.revokedAt === null ? 'live' : `revoked ${when(key.revokedAt)}`}`,
        '',
        ...(authTokens.length
          ? [
              `Auth tokens (${authTokens.length}, only their start is shown):`,
              ...table(
                ['TOKEN', 'CREATED', 'DOMAINS', 'NAME'],
                authTokens.map((t) => [t.start, when(t.createdAt), t.domains.length ? t.domains.map(shown).join(',') : '-', shown(t.name)]),
              ).map((line) => `  ${line}`),
            ]
          : ['No auth tokens.']),
      ]);
    });
  }
}

@SubCommand({
  name: 'revoke',
  arguments: '<apiKey>',
  description: 'Revoke an API key for good: its auth tokens stop working and it is gone for its workspace; its data stays',
})
export class RevokeApiKeyCommand extends CommandRunner {
  constructor(private readonly apiKeys: ApiKeyService) {
    super();
  }

  async run([apiKey]: string[]): Promise<void> {
    await runCommand(async () => {
      const { revokedAt, already } = await this.apiKeys.revoke(apiKey!);
      print(already ? `API key ${apiKey} was already revoked (${when(revokedAt)}).` : `API key ${apiKey} revoked: its auth tokens no longer work.`);
    });
  }
}

@Command({
  name: 'apikey',
  description: 'Manage API keys',
  subCommands: [CreateApiKeyCommand, ListApiKeysCommand, ShowApiKeyCommand, RevokeApiKeyCommand],
})
export class ApiKeyCommand extends CommandGroup {}

/** Keys as rows of a table, the workspace column only when they may be of several. */
export function apiKeyTable(keys: ApiKeyRecord[], columns: { workspace: boolean } = { workspace: false }): string[] {
  const header = ['API KEY', 'TYPE', 'STATUS', 'CREATED', ...(columns.workspace ? ['WORKSPACE'] : []), 'OWNER', 'NAME'];
  return table(
    header,
    keys.map((key) => [
      key.id,
      key.type,
      key.revokedAt === null ? 'live' : 'revoked',
      when(key.createdAt),
      ...(columns.workspace ? [key.workspaceId] : []),
      shown(key.ownerEmail),
      shown(key.name),
    ]),
  );
}
