import { Injectable } from '@nestjs/common';
import { Secrets } from '../common/secrets.js';
import { SecretsRekey, type RekeyCount, type RekeyProgress, type Undecryptable } from '../common/secrets-rekey.js';
import { WebhookEndpointStore } from '../configs/webhook-endpoint-store.js';
import { Transactions } from '../database/transactions.js';
import { RekeyErrors } from './rekey.errors.js';
import { OutgoingMailStore } from '../mail/outgoing-mail-store.js';
import { ApiKeyStore } from '../workspace/api-key-store.js';
import { WorkspaceStore } from '../workspace/workspace-store.js';

/** An owner of a table holding secrets under the master key: it re-keys its own rows. */
interface SecretsOwner {
  rekeySecrets(rekey: SecretsRekey): Promise<void>;
}

/** Which pass a progress report belongs to. */
export type RotationPhase = 'checking' | 'rewriting';

/** What a check found: what a rotation would re-encrypt, rehash and end, and what does not open. */
export interface CheckOutcome {
  counts: RekeyCount[];
  undecryptable: Undecryptable[];
}

/**
 * Master key rotation: every secret stored under the master key, sealed anew under another,
 * each table by its owner (`rekeySecrets`), in one unit of work. The owners, in pass order:
 * `WorkspaceStore` (workspace auth tokens and their hashes; console sessions and unused
 * login links end), `ApiKeyStore` (API-key auth tokens and their hashes; the secrets of the
 * e-mail and webhook configs and the AI model keys), `WebhookEndpointStore` (endpoint
 * secrets, current and previous) and `OutgoingMailStore` (recorded mail). Tokens only clients hold (page
 * tokens, attachment links, user JWTs) are sealed or signed with keys derived from the master
 * key and stored nowhere: they stop working, and nothing here can change that.
 */
@Injectable()
export class MasterKeyRotation {
  constructor(
    private readonly transactions: Transactions,
    private readonly secrets: Secrets,
    private readonly workspaces: WorkspaceStore,
    private readonly keys: ApiKeyStore,
    private readonly endpoints: WebhookEndpointStore,
    private readonly mails: OutgoingMailStore,
  ) {}

  private get owners(): SecretsOwner[] {
    return [this.workspaces, this.keys, this.endpoints, this.mails];
  }

  /** Opens every stored secret with `key` (by default the configured one), writing nothing. */
  async check(options: { key?: Secrets; progress?: RekeyProgress } = {}): Promise<CheckOutcome> {
    const key = options.key ?? this.secrets;
    return this.transactions.run(async (manager) => {
      const rekey = new SecretsRekey(manager, key, key, false, options.progress);
      for (const owner of this.owners) await owner.rekeySecrets(rekey);
      return { counts: rekey.report, undecryptable: rekey.undecryptable };
    });
  }

  /**
   * Re-keys everything from the configured key to `to`, in one unit of work: first a pass that
   * opens every value with the current key, refusing (FAILED_PRECONDITION, naming each table and
   * column) when one does not, then the pass that rewrites. A failure anywhere rolls it all
   * back, so until it commits the current key stays the valid one.
   */
  async rotate(to: Secrets, progress: (phase: RotationPhase, table: string, done: number, total: number) => void = () => undefined): Promise<RekeyCount[]> {
    return this.transactions.run(async (manager) => {
      const check = new SecretsRekey(manager, this.secrets, to, false, (table, done, total) => progress('checking', table, done, total));
      for (const owner of this.owners) await owner.rekeySecrets(check);
      if (check.undecryptable.length) throw RekeyErrors.undecryptable(check.undecryptable);
      const rewrite = new SecretsRekey(manager, this.secrets, to, true, (table, done, total) => progress('rewriting', table, done, total));
      for (const owner of this.owners) await owner.rekeySecrets(rewrite);
      return rewrite.report;
    });
  }
}
