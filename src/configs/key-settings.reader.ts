import { Injectable } from '@nestjs/common';
import { Sql } from '../database/sql.js';
import { type KeySettings, parseKeySettings } from '../workspace/key-configs.js';

/** The per-key switches other modules read on their hot paths (one indexed lookup). */
@Injectable()
export class KeySettingsReader {
  constructor(private readonly sql: Sql) {}

  async settings(apiKeyId: string): Promise<KeySettings> {
    const [row] = await this.sql.rows<{ settings: string }>('SELECT settings FROM api_key WHERE id = :apiKeyId', { apiKeyId });
    return parseKeySettings(row?.settings);
  }
}
