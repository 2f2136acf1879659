import { randomBytes } from 'node:crypto';
import { Module } from '@nestjs/common';
import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { ApiError } from '../common/errors.js';
import { Secrets } from '../common/secrets.js';
import { REKEY_BATCH, type RekeyCount } from '../common/secrets-rekey.js';
import { AppConfig } from '../config/app-config.js';
import { decodeKey, discardStagedMasterKey, installStagedMasterKey, stagedMasterKey, stageMasterKey } from '../config/master-key.js';
import { ConfigError } from '../config/parsers.js';
import { MasterKeyRotation, type RotationPhase } from '../rekey/master-key-rotation.js';
import { RekeyErrors } from '../rekey/rekey.errors.js';
import { RekeyModule } from '../rekey/rekey.module.js';
import { currentRun, fail, note, print, runCommand } from './output.js';
import { CommandGroup } from './program.js';

/** The variable the new key is read from, so it lands in no shell history or process list. */
export const NEW_MASTER_KEY = 'NEW_MASTER_KEY';

const CLIENT_HELD =
  'Tokens only clients hold were made with the old key and no longer work: user JWTs (generate_token, token/get), page tokens (iterators), and attachment download and upload links. Clients ask for new ones.';

interface RotateOptions {
  newKey?: string;
}

@SubCommand({
  name: 'rotate',
  description: `Re-encrypt every stored secret under a new master key, in one transaction (the new key from ${NEW_MASTER_KEY}; with the embedded default's key file, a fresh one when not given)`,
})
export class RotateMasterKeyCommand extends CommandRunner {
  constructor(
    private readonly rotation: MasterKeyRotation,
    private readonly config: AppConfig,
  ) {
    super();
  }

  async run(_: string[], options: RotateOptions): Promise<void> {
    await runCommand(async () => {
      const keyFile = this.config.masterKeyFile;
      const newKey = this.newKey(options.newKey, keyFile !== undefined);
      if (keyFile !== undefined && (await this.finishedEarlierRotation())) return;

      print([
        'Rotating the master key in one transaction: every stored secret is first decrypted with the current key, then re-encrypted under the new one.',
        'Until it commits the current key stays valid; stop every instance of the service first.',
      ]);
      const staged = keyFile === undefined ? undefined : stageMasterKey(this.config.dataDir, newKey);
      let counts: RekeyCount[];
      try {
        counts = await this.rotation.rotate(Secrets.fromKey(newKey), rotationProgress);
      } catch (error) {
        if (staged !== undefined) discardStagedMasterKey(this.config.dataDir);
        if (error instanceof ApiError) throw error;
        return failed(
          `${(error as Error).message}\nThe transaction was rolled back: nothing was changed, and the current master key stays the valid one (\`master-key check\` confirms it).`,
        );
      }
      if (staged !== undefined) {
        try {
          installStagedMasterKey(this.config.dataDir);
        } catch (error) {
          return failed(
            `The database committed under the new key, but ${keyFile} could not be replaced (${(error as Error).message}). The new key is in ${staged}: move it over ${keyFile} (mode 0600) before starting the service.`,
          );
        }
      }
      print(['Committed.', ...summary(counts), '']);
      print(
        keyFile !== undefined
          ? [
              `${keyFile} now holds the new key (mode 0600); back it up in place of the old one, which decrypts nothing any more.`,
              'Restart the service: an instance that was running still holds the old key and cannot decrypt the re-encrypted secrets.',
              CLIENT_HELD,
            ]
          : [
              'Now set MASTER_KEY to the new key on every instance, and restart them all: an instance still running with the old key',
              'cannot decrypt the re-encrypted secrets and refuses every auth token. The old key decrypts nothing any more.',
              CLIENT_HELD,
            ],
      );
    });
  }

  @Option({
    flags: '--new-key <base64>',
    description: `the new key (32 bytes, base64); prefer ${NEW_MASTER_KEY}: an option lands in shell history and the process list`,
  })
  parseNewKey(value: string): string {
    return value;
  }

  /** The new key: the option, else NEW_MASTER_KEY, else (embedded default only) a fresh one. */
  private newKey(option: string | undefined, keyFile: boolean): Buffer {
    const given = option ?? currentRun().env(NEW_MASTER_KEY);
    if (option !== undefined) note(`Note: --new-key is kept in shell history and shown in the process list; ${NEW_MASTER_KEY} is not.`);
    let key: Buffer;
    if (given) {
      try {
        key = decodeKey(given, option !== undefined ? '--new-key' : NEW_MASTER_KEY);
      } catch (error) {
        if (error instanceof ConfigError) throw new ApiError('INVALID_ARGUMENT', error.message);
        throw error;
      }
    } else if (keyFile) {
      key = randomBytes(32);
    } else {
      throw new ApiError(
        'INVALID_ARGUMENT',
        `MASTER_KEY is set, so give the new key in ${NEW_MASTER_KEY} (32 bytes, base64: \`openssl rand -base64 32\`) or --new-key.`,
      );
    }
    if (key.equals(this.config.masterKey)) throw new ApiError('INVALID_ARGUMENT', 'The new master key is the current one.');
    return key;
  }

  /**
   * The embedded default, when a rotation left its staged key (`master.key.next`): if the
   * current key still opens everything, that rotation did not commit, and its file goes; if
   * only the staged key does, it committed before the key file was replaced, and the rename is
   * done now (true: nothing more to do). Neither: refused, naming what does not decrypt.
   */
  private async finishedEarlierRotation(): Promise<boolean> {
    const staged = stagedMasterKey(this.config.dataDir);
    if (!staged) return false;
    print(`${staged.file} is there: an earlier rotation stopped before replacing the key file. Checking which key the data is under...`);
    const current = await this.rotation.check({ progress: checkProgress });
    if (!current.undecryptable.length) {
      discardStagedMasterKey(this.config.dataDir);
      print('The current key decrypts everything: that rotation did not commit, and its staged key was removed.');
      return false;
    }
    const next = await this.rotation.check({ key: Secrets.fromKey(staged.key), progress: checkProgress });
    if (next.undecryptable.length) throw RekeyErrors.undecryptable(current.undecryptable);
    const file = installStagedMasterKey(this.config.dataDir);
    print([
      `That rotation had committed: ${file} now holds its key (mode 0600). Nothing else was changed; run the command again to rotate once more.`,
      'Restart the service.',
    ]);
    return true;
  }
}

@SubCommand({
  name: 'check',
  description: 'Decrypt every stored secret with the current master key, writing nothing: what a rotation would re-encrypt and end',
})
export class CheckMasterKeyCommand extends CommandRunner {
  constructor(private readonly rotation: MasterKeyRotation) {
    super();
  }

  async run(): Promise<void> {
    await runCommand(async () => {
      const outcome = await this.rotation.check({ progress: checkProgress });
      if (outcome.undecryptable.length) throw RekeyErrors.undecryptable(outcome.undecryptable);
      print(['The current master key decrypts every stored secret. A rotation would change:', ...summary(outcome.counts)]);
    });
  }
}

@Command({
  name: 'master-key',
  description: 'Check or rotate the master key that encrypts secrets at rest',
  subCommands: [RotateMasterKeyCommand, CheckMasterKeyCommand],
})
export class MasterKeyCommand extends CommandGroup {}

/** The master-key commands and the rotation they run; `CliModule` imports it. */
@Module({
  imports: [RekeyModule],
  providers: [MasterKeyCommand, RotateMasterKeyCommand, CheckMasterKeyCommand],
})
export class MasterKeyCliModule {}

/**
 * A failure that is not a refusal: its message on stderr and exit code 1 (nest-commander's own
 * handler would print it and exit 0).
 */
function failed(message: string): void {
  fail(message);
}

/** Progress of tables larger than one batch, a line per batch: `  rewriting outgoing_mail: 400/1200`. */
function rotationProgress(phase: RotationPhase, table: string, done: number, total: number): void {
  if (total > REKEY_BATCH) print(`  ${phase} ${table}: ${done}/${total}`);
}

function checkProgress(table: string, done: number, total: number): void {
  rotationProgress('checking', table, done, total);
}

/** What a pass did (or would do), by kind and column. */
function summary(counts: readonly RekeyCount[]): string[] {
  const lines: string[] = [];
  const section = (kind: RekeyCount['kind'], title: string, line: (count: RekeyCount) => string) => {
    const mine = counts.filter((count) => count.kind === kind && (count.count > 0 || kind === 'ended'));
    if (mine.length) lines.push(title, ...mine.map((count) => `  ${line(count)}`));
  };
  section('reencrypted', 'Secrets re-encrypted:', (count) => `${count.place}: ${count.count}`);
  section('rehashed', 'Lookup hashes recomputed:', (count) => `${count.place}: ${count.count}`);
  section('ended', 'Ended (stored only as hashes of what clients hold):', (count) => `${count.place}: ${count.count} ${count.what ?? ''}`.trimEnd());
  if (!lines.length) lines.push('Nothing is stored under the master key yet.');
  return lines;
}
