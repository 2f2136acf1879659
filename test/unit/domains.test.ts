import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { normaliseDomain } from '../../src/workspace/domains.js';

describe('normaliseDomain (contract part 2)', () => {
  const cases: [string, string | undefined][] = [
    ['example.com', 'example.com'],
    ['Example.COM', 'example.com'],
    ['https://example.com', 'example.com'],
    ['http://www.example.com', 'example.com'],
    ['www.example.com', 'example.com'],
    ['https://www.example.com:8443/a/b?c=d#e', 'example.com'],
    ['https://user:pass@app.example.com/x', 'app.example.com'],
    ['example.com.', 'example.com'],
    ['example.com:3000', 'example.com'],
    ['localhost', 'localhost'],
    ['http://localhost:5173', 'localhost'],
    ['*.example.com', '*.example.com'],
    ['*.WWW.Example.com', '*.www.example.com'],
    ['https://*.example.com/path', '*.example.com'],
    ['192.168.1.10', '192.168.1.10'],
    ['http://192.168.1.10:8080/', '192.168.1.10'],
    ['[::1]:8080', '::1'],
    ['::1', '::1'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['  spaced.example.com  ', 'spaced.example.com'],
    ['', undefined],
    ['not a domain', undefined],
    ['exa_mple.com', undefined],
    ['-leading.com', undefined],
    ['trailing-.com', undefined],
    ['a..b.com', undefined],
    ['http://', undefined],
    ['*.', undefined],
    ['foo.*.com', undefined],
    [`${'a'.repeat(64)}.com`, undefined],
    ['[::1', undefined],
  ];
  for (const [input, expected] of cases) {
    it(`${JSON.stringify(input)} → ${String(expected)}`, () => assert.equal(normaliseDomain(input), expected));
  }
});
