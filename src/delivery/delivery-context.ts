import type { DeliveryEndpoint } from '../configs/webhook-endpoint-store.js';
import type { KeyConfigs } from '../workspace/key-configs.js';

/**
 * An attempt given back unmade: its claim's lease could end before the attempt would, so it
 * goes back to the outbox rather than risk a second worker making it too.
 */
export interface Released {
  released: true;
}

/** What a mail is sent with. */
export interface MailContext {
  /** The recipient as the directory has them now; absent when the user is gone. */
  recipient?: { name: string | null; email: string | null };
  documentName: string | null;
  /** The key's allowed domains: a mail links only to pages on them. */
  allowedDomains: readonly string[];
}

/** What a delivery is sent with, read when it was claimed. */
export interface DeliveryContext {
  /** The key's configs; absent when the key is gone. */
  configs?: KeyConfigs;
  /** The advanced endpoint; absent when it was deleted (or for other channels). */
  endpoint?: DeliveryEndpoint;
  /** For a mail. */
  mail?: MailContext;
  /** For an inbox audience: whose inbox gets an entry. */
  inbox?: string[];
}
