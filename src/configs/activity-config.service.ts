import { Injectable } from '@nestjs/common';
import { COMMENT_EVENTS, defaultTriggers } from '../common/event-catalogue.js';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { Transactions } from '../database/transactions.js';
import { ApiKeyStore } from '../workspace/api-key-store.js';
import { stripUndefined, type ActivityServiceConfig } from '../workspace/key-configs.js';
import { ConfigErrors } from './configs.errors.js';
import type { UpdateActivityConfigRequest } from './dto/config.dto.js';

/** Upstream's activityconfig answer (get, and update's echo of what is now stored). */
export interface ActivityConfigView {
  activityServiceConfig: ActivityServiceConfig;
}

/**
 * Upstream's activity logs configuration, kept in the key's settings: never set, it is
 * `{ isEnabled: false }`; enabled for the first time, the standard comment triggers are seeded
 * on (contract part 3's rule: every comment event but the two `suggestion_*` ones), with
 * `immutable: true` and `enabledTime` now, and what was sent is merged over that.
 */
@Injectable()
export class ActivityConfigService {
  constructor(
    private readonly keys: ApiKeyStore,
    private readonly transactions: Transactions,
  ) {}

  async get(principal: ApiKeyPrincipal): Promise<ActivityConfigView> {
    return { activityServiceConfig: (await this.keys.settings(principal.apiKeyId)).activityServiceConfig ?? { isEnabled: false } };
  }

  /** Deep-merges the sent fields under the row's lock, so concurrent updates both land. */
  async update(principal: ApiKeyPrincipal, request: UpdateActivityConfigRequest): Promise<ActivityConfigView> {
    const { isEnabled, immutable, enabledTime, triggers } = request.activityServiceConfig;
    if ([isEnabled, immutable, enabledTime, triggers].every((field) => field === undefined)) throw ConfigErrors.nothingToUpdate();
    return this.transactions.run(async (manager) => {
      const settings = await this.keys.lockSettings(manager, principal.apiKeyId);
      if (!settings) throw ConfigErrors.keyGone();
      let config: ActivityServiceConfig = settings.activityServiceConfig ?? { isEnabled: false };
      if (!settings.activityServiceConfig && isEnabled === true)
        config = { isEnabled: true, immutable: true, enabledTime: Date.now(), triggers: { comment: standardCommentTriggers() } };
      config = {
        ...config,
        ...stripUndefined({ isEnabled, immutable, enabledTime }),
        ...(triggers?.comment ? { triggers: { comment: { ...config.triggers?.comment, ...triggers.comment } } } : {}),
      };
      await this.keys.saveSettings(manager, principal.apiKeyId, { ...settings, activityServiceConfig: config });
      return { activityServiceConfig: config };
    });
  }
}

/** The comment part of the first-enable trigger defaults every delivery config seeds. */
function standardCommentTriggers(): Record<string, boolean> {
  const defaults = defaultTriggers();
  return Object.fromEntries(COMMENT_EVENTS.map((event) => [event, defaults[event]!]));
}
