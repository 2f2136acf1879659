/**
 * Benchmark scenarios: each names an operation, the request the service gets, and the same
 * work done bare (SQL on the same database, same credential lookup) for the baseline. Add a
 * scenario by adding an entry here (and its seed data in `seed.ts`).
 */
export interface Scenario {
  name: string;
  path: string;
  body: (seed: Seed) => unknown;
  headers: (seed: Seed) => Record<string, string>;
  /** The baseline's work: returns the `data` of the response. */
  baseline: (db: BareDatabase, request: BareRequest) => Promise<unknown>;
  message: string;
}

export interface Seed {
  apiKey: string;
  authToken: string;
  workspaceId: string;
  workspaceToken: string;
}

export interface BareRequest {
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  /** Keyed hash of a credential, as the service computes it. */
  lookupHash: (secret: string) => string;
}

export interface BareDatabase {
  query<T>(sql: string, params: unknown[]): Promise<T[]>;
}

/** The API-key lookup every A-level operation does first; undefined when the credentials are wrong. */
async function bareApiKeyAuth(db: BareDatabase, request: BareRequest): Promise<string | undefined> {
  const apiKey = request.headers['x-svc-api-key'];
  const token = request.headers['x-svc-auth-token'];
  if (typeof apiKey !== 'string' || typeof token !== 'string') return undefined;
  const rows = await db.query<{ api_key_id: string }>(
    'SELECT k.id AS api_key_id, k.workspace_id AS workspace_id FROM api_key_auth_token t INNER JOIN api_key k ON k.id = t.api_key_id WHERE t.token_hash = ? AND t.api_key_id = ?',
    [request.lookupHash(token), apiKey],
  );
  return rows[0]?.api_key_id;
}

export const SCENARIOS: Scenario[] = [
  {
    name: 'domains/get (A-level read)',
    path: '/v2/workspace/domains/get',
    message: 'Allowed domains retrieved successfully.',
    body: () => ({ data: {} }),
    headers: (seed) => ({ 'x-svc-api-key': seed.apiKey, 'x-svc-auth-token': seed.authToken }),
    baseline: async (db, request) => {
      const apiKeyId = await bareApiKeyAuth(db, request);
      if (!apiKeyId) throw new Error('unauthenticated');
      const rows = await db.query<{ domain: string }>('SELECT domain FROM allowed_domain WHERE api_key_id = ? ORDER BY created_at ASC, domain ASC', [apiKeyId]);
      return { allowedDomains: rows.map((row) => row.domain) };
    },
  },
];
