import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CONFIG_VARIABLES, parseSettings } from '../../src/config/app-config.js';
import { loadAppConfig } from '../../src/config/load-config.js';
import { ConfigError } from '../../src/config/parsers.js';

const read = (env: Record<string, string>) => (name: string) => env[name];

describe('configuration', () => {
  it('has documented defaults', () => {
    const settings = parseSettings(read({}));
    assert.equal(settings.port, 8080);
    assert.equal(settings.host, '0.0.0.0');
    assert.equal(settings.dialect, 'sqlite');
    assert.equal(settings.database, './data/svc.sqlite');
    assert.equal(settings.headerProduct, 'svc');
    assert.equal(settings.bodyLimitBytes, 1024 * 1024);
    assert.equal(settings.httpAdapter, 'fastify');
    assert.deepEqual(settings.rateLimits, {
      workspaceCreatePerHour: 10,
      loginLinkPerMinute: 5,
      loginLinkPerEmailPerHour: 3,
      loginVerifyPerMinute: 30,
      emailStatusPerMinute: 30,
      workspaceGetPerMinute: 60,
      apiKeyPerMinute: 6000,
      tokenFailuresPerMinute: 20,
    });
  });

  it('reads TRUST_PROXY as a switch, a hop count or a list', () => {
    assert.equal(parseSettings(read({})).trustProxy, false);
    assert.equal(parseSettings(read({ TRUST_PROXY: 'true' })).trustProxy, true);
    assert.equal(parseSettings(read({ TRUST_PROXY: '2' })).trustProxy, 2);
    assert.deepEqual(parseSettings(read({ TRUST_PROXY: '10.0.0.1, 192.168.0.0/16' })).trustProxy, ['10.0.0.1', '192.168.0.0/16']);
  });

  it('uses PostgreSQL when DATABASE_URL is set', () => {
    const settings = parseSettings(read({ DATABASE_URL: 'postgres://u@h:5432/db' }));
    assert.equal(settings.dialect, 'postgres');
    assert.equal(settings.database, 'postgres://u@h:5432/db');
  });

  const bad: [Record<string, string>, string][] = [
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'http://x' }, 'REDIS_URL'],
    [{ BODY_LIMIT: 'huge' }, 'BODY_LIMIT'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ ADVANCED_WEBHOOKS: 'maybe' }, 'ADVANCED_WEBHOOKS'],
    [{ RATE_LIMIT_API_KEY: '-1' }, 'RATE_LIMIT_API_KEY'],
    [{ HEADER_PRODUCT: 'Bad Product' }, 'HEADER_PRODUCT'],
    [{ SMTP_URL: 'mail.example.com' }, 'SMTP_URL'],
    [{ TRUST_PROXY: 'the load balancer' }, 'TRUST_PROXY'],
  ];
  for (const [env, variable] of bad) {
    it(`refuses ${JSON.stringify(env)} naming ${variable}`, () => {
      assert.throws(
        () => parseSettings(read(env)),
        (error: unknown) => error instanceof ConfigError && error.variable === variable && error.message.includes(variable),
      );
    });
  }

  it('needs MASTER_KEY with PostgreSQL, generates one for the embedded database, and never echoes it', () => {
    assert.throws(() => loadAppConfig(read({ DATABASE_URL: 'postgres://u@h/db' })), /MASTER_KEY is required/);
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-config-'));
    const first = loadAppConfig(read({ DATA_DIR: dataDir }));
    const second = loadAppConfig(read({ DATA_DIR: dataDir }));
    assert.equal(first.masterKey.length, 32);
    assert.deepEqual(first.masterKey, second.masterKey, 'the generated key is reused');
    assert.throws(
      () => loadAppConfig(read({ DATA_DIR: dataDir, MASTER_KEY: 'c2hvcnQ=' })),
      (error: unknown) => error instanceof ConfigError && !error.message.includes('c2hvcnQ='),
    );
  });

  it('docs/configuration.md documents every variable, and the list of variables names every one the settings read', () => {
    const readme = readFileSync(new URL('../../../docs/configuration.md', import.meta.url), 'utf8');
    for (const variable of CONFIG_VARIABLES) assert.ok(readme.includes(`\`${variable}\``), `docs/configuration.md does not document ${variable}`);
    const readNames = new Set<string>();
    parseSettings((name) => void readNames.add(name));
    const listed = new Set<string>(CONFIG_VARIABLES);
    assert.deepEqual(
      [...readNames].filter((name) => !listed.has(name)),
      [],
      'read but not in CONFIG_VARIABLES',
    );
  });
});
