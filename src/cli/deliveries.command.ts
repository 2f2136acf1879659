import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { Clock } from '../common/clock.js';
import { MessageLogStore } from '../delivery/message-log-store.js';
import { ApiKeyService } from '../workspace/api-key.service.js';
import { print, runCommand, shown, wholeNumber } from './output.js';
import { CommandGroup } from './program.js';

/** A pending delivery due longer ago than this is stuck: no worker is getting to it. */
const STUCK_AFTER_MS = 5 * 60 * 1000;

interface ProblemsOptions {
  apiKey?: string;
  limit: number;
}

@SubCommand({ name: 'problems', description: 'List failed deliveries, and stuck ones (due over 5 minutes ago), per API key' })
export class DeliveryProblemsCommand extends CommandRunner {
  constructor(
    private readonly store: MessageLogStore,
    private readonly clock: Clock,
    private readonly apiKeys: ApiKeyService,
  ) {
    super();
  }

  async run(_: string[], options: ProblemsOptions): Promise<void> {
    await runCommand(async () => {
      // An unknown key is a typo, not a key without problems (a revoked key is known: its deliveries are still listed).
      if (options.apiKey !== undefined) await this.apiKeys.record(options.apiKey);
      const now = this.clock.now();
      const rows = await this.store.troubled(now - STUCK_AFTER_MS, options.apiKey, options.limit);
      if (!rows.length) {
        print('No failed or stuck deliveries.');
        return;
      }
      const lines: string[] = [];
      let key: string | undefined;
      for (const row of rows) {
        if (row.apiKeyId !== key) {
          key = row.apiKeyId;
          const mine = rows.filter((r) => r.apiKeyId === key);
          lines.push(`API key ${key}: ${mine.filter((r) => r.status === 'failed').length} failed, ${mine.filter((r) => r.status === 'pending').length} stuck`);
        }
        const state = row.status === 'failed' ? 'failed' : `stuck, due ${new Date(row.nextAttemptAt!).toISOString()}`;
        lines.push(
          `  ${row.messageId}  ${row.channel}:${shown(row.target)}  ${row.eventType}  ${state}  after ${row.attempts} attempt(s)${row.lastError ? `  last error: ${shown(row.lastError)}` : ''}`,
        );
      }
      if (rows.length === options.limit) lines.push(`(first ${options.limit}; --limit shows more)`);
      print(lines);
    });
  }

  @Option({ flags: '--api-key <apiKey>', description: 'only this API key' })
  parseApiKey(value: string): string {
    return value;
  }

  @Option({ flags: '--limit <n>', description: 'at most this many deliveries (default 100)', defaultValue: 100 })
  parseLimit(value: string): number {
    return wholeNumber(value, 1, 10_000);
  }
}

@Command({ name: 'deliveries', description: 'Inspect the event outbox (webhook deliveries)', subCommands: [DeliveryProblemsCommand] })
export class DeliveriesCommand extends CommandGroup {}
