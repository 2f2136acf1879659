/** Reads one raw variable; `ConfigService.get` in the app, a plain object in tests. */
export type EnvReader = (name: string) => string | undefined;

/** A configuration variable that cannot be used; its message names the variable. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
    value?: string,
  ) {
    // Values of secret variables are never echoed.
    const shown = value === undefined || /KEY|TOKEN|PASSWORD|SECRET/.test(variable) ? '' : ` (got "${value}")`;
    super(`Invalid configuration: ${variable} ${problem}${shown}.`);
    this.name = 'ConfigError';
  }
}

function raw(read: EnvReader, name: string): string | undefined {
  const value = read(name);
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

export function parseString(read: EnvReader, name: string, fallback: string): string {
  return raw(read, name) ?? fallback;
}

export function parseInteger(read: EnvReader, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const value = raw(read, name);
  if (value === undefined) return fallback;
  const parsed = /^-?\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
    throw new ConfigError(name, `must be an integer between ${min} and ${max}`, value);
  }
  return parsed;
}

export function parseBool(read: EnvReader, name: string, fallback: boolean): boolean {
  const value = raw(read, name)?.toLowerCase();
  if (value === undefined) return fallback;
  if (['true', '1', 'yes', 'on'].includes(value)) return true;
  if (['false', '0', 'no', 'off'].includes(value)) return false;
  throw new ConfigError(name, 'must be true or false', value);
}

export function parseEnum<T extends string>(read: EnvReader, name: string, fallback: T, allowed: readonly T[]): T {
  const value = raw(read, name);
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}`, value);
  }
  return value as T;
}

export function parseUrl(read: EnvReader, name: string, fallback: string | undefined, protocols: string[]): string | undefined {
  const value = raw(read, name);
  if (value === undefined) return fallback;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(name, `must be a URL (${protocols.join(' or ')}//…)`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')}`);
  }
  return value;
}

const BYTE_UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** `1mb`, `512kb`, `2048` (bytes). */
export function parseBytes(read: EnvReader, name: string, fallback: string): number {
  const value = (raw(read, name) ?? fallback).toLowerCase();
  const match = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/.exec(value);
  const bytes = match ? Math.floor(Number(match[1]) * BYTE_UNITS[match[2] ?? 'b']!) : Number.NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1024 || bytes > 1024 ** 3) {
    throw new ConfigError(name, 'must be a size between 1kb and 1gb such as 1mb or 512kb', value);
  }
  return bytes;
}

/** `false`, `true`, a hop count, or a comma-separated list of addresses or CIDRs. */
export function parseTrustProxy(read: EnvReader, name: string): boolean | number | string[] {
  const value = raw(read, name)?.toLowerCase();
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  const entries = value.split(',').map((entry) => entry.trim());
  if (entries.some((entry) => !/^[0-9a-f.:]+(\/\d{1,3})?$/.test(entry))) {
    throw new ConfigError(name, 'must be true, false, a hop count or a comma-separated list of IP addresses/CIDRs', value);
  }
  return entries;
}
