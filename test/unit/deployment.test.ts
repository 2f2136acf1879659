import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * The image and compose file, read as text: no Docker engine runs where the suite runs, so what an
 * operator relies on (a pinned base on a supported Node, nothing of the tests shipped, a health
 * check that waits for start-up, restarts, no password in the file) is checked here.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), ...(import.meta.url.includes('/dist/') ? ['..', '..', '..'] : ['..', '..']));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

describe('deployment files', () => {
  it('build the image on a supported Node LTS pinned by digest, the one the package supports', () => {
    const dockerfile = read('docker/Dockerfile');
    const image = /^ARG NODE_IMAGE=(\S+)$/m.exec(dockerfile)?.[1];
    assert.match(image ?? '', /^node:(22|24)-bookworm-slim@sha256:[0-9a-f]{64}$/, 'NODE_IMAGE is a Node 22 or 24 LTS image pinned by digest');
    const froms = dockerfile.split('\n').filter((line) => line.startsWith('FROM '));
    assert.equal(froms.length, 2);
    for (const from of froms) assert.match(from, /^FROM \$\{NODE_IMAGE\}( AS build)?$/);
    const major = /^node:(\d+)/.exec(image!)![1];
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    assert.ok(
      engines.split('||').some((range) => range.trim().startsWith(`^${major}`)),
      `package.json engines (${engines}) include Node ${major}`,
    );
  });

  it('ship neither the compiled tests nor the bench, and give start-up time before health counts', () => {
    const dockerfile = read('docker/Dockerfile');
    assert.match(dockerfile, /npm run build && rm -rf dist\/test dist\/bench && npm prune --omit=dev/);
    assert.match(dockerfile, /^HEALTHCHECK .*--start-period=\d+s/m);
    assert.match(dockerfile, /^USER node$/m);
  });

  it('compose restarts every service, waits for healthy PostgreSQL and Redis, and writes no password', () => {
    const compose = read('docker/compose.yaml');
    const services = compose.slice(compose.indexOf('services:'), compose.indexOf('\nvolumes:'));
    const names = [...services.matchAll(/^ {2}(\w+):$/gm)].map((match) => match[1]);
    assert.deepEqual(names, ['app', 'postgres', 'redis']);
    for (const name of names) {
      const body = services.slice(services.indexOf(`\n  ${name}:\n`) + 1).split(/\n {2}\w+:\n/)[0];
      assert.match(body, /restart: unless-stopped/, `${name} restarts`);
      if (name !== 'app') assert.match(body, /healthcheck:/, `${name} has a health check`);
    }
    assert.match(services, /postgres:\n\s+condition: service_healthy\n\s+redis:\n\s+condition: service_healthy/);
    assert.match(compose, /POSTGRES_PASSWORD: \$\{POSTGRES_PASSWORD:\?/);
    assert.match(compose, /DATABASE_URL: postgres:\/\/svc:\$\{POSTGRES_PASSWORD:\?[^}]*\}@/);
    assert.match(compose, /MASTER_KEY: \$\{MASTER_KEY:\?/);
  });

  it('the licence is Apache-2.0, in package.json and LICENSE', () => {
    assert.equal((JSON.parse(read('package.json')) as { license: string }).license, 'Apache-2.0');
    assert.match(read('LICENSE'), /Apache License\s+Version 2\.0, January 2004/);
  });
});
