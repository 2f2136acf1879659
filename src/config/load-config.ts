import { existsSync, mkdirSync } from 'node:fs';
import { AppConfig, parseSettings } from './app-config.js';
import type { EnvReader } from './parsers.js';
import { resolveMasterKey } from './master-key.js';

/** Builds the validated `AppConfig` from a variable reader; throws `ConfigError` on a bad one. */
export function loadAppConfig(read: EnvReader): AppConfig {
  const { masterKeyBase64, ...settings } = parseSettings(read);
  if (settings.dialect === 'sqlite' && settings.database !== ':memory:') {
    mkdirSync(settings.dataDir, { recursive: true });
  }
  const { key: masterKey, file, generatedInto } = resolveMasterKey(masterKeyBase64, settings.dataDir, settings.dialect === 'postgres');
  return Object.freeze(Object.assign(new AppConfig(), { ...settings, masterKey, masterKeyFile: file, masterKeyGeneratedInto: generatedInto }));
}

/**
 * The process environment, after loading `./.env` when present (variables already set win);
 * the only place the service reads it.
 */
export function readProcessEnv(): EnvReader {
  if (existsSync('.env')) {
    const before = { ...process.env };
    process.loadEnvFile('.env');
    Object.assign(process.env, before);
  }
  return (name) => process.env[name];
}
