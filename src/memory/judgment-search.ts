import { createHash } from 'node:crypto';
import { Conditions, type Parameters } from '../database/sql.js';

/** Where a suggestion looks: the whole key, one organization, or one document in it. */
export interface SearchScope {
  apiKeyId: string;
  organizationId?: string;
  documentId?: string;
}

/** A query over the relevant judgments, as SQL with `:name` parameters for `Sql`. */
export interface MatchQuery {
  sql: string;
  parameters: Parameters;
}

/**
 * Full-text relevance, through the database's own engine (contract part 8). `matches` yields a
 * subquery of the judgments in scope that match at least one term, with columns `side`,
 * `reviewer_id`, `reason`, `timestamp` and `relevance` (higher is more relevant). Only
 * judgments that count for a side are included.
 */
export abstract class JudgmentSearch {
  abstract matches(scope: SearchScope, terms: string[]): MatchQuery;
}

/**
 * SQLite: FTS5 with the Porter stemmer, scoped through tokens in the index. Relevance is 0.1 per
 * query term the judgment contains, read from the judgment alone, as PostgreSQL's `ts_rank_cd`
 * is: FTS5's bm25 would weigh terms by how rare they are across the whole index, every key's
 * judgments included, so one tenant's data would move another's confidence.
 */
export class EmbeddedJudgmentSearch extends JudgmentSearch {
  matches(scope: SearchScope, terms: string[]): MatchQuery {
    const token = scopeToken(scope);
    const words = terms.map((term) => `text : "${term}"`).join(' OR ');
    const parameters: Parameters = { match: `scope_tokens : "${token}" AND (${words})` };
    // One set of the scope's judgments containing each term, each looked up once by the index.
    const contains = terms.map((term, i) => {
      parameters[`term${i}`] = `scope_tokens : "${token}" AND text : "${term}"`;
      return `(CASE WHEN j.rowid IN (SELECT rowid FROM judgment_fts WHERE judgment_fts MATCH :term${i}) THEN 1 ELSE 0 END)`;
    });
    return {
      sql: `SELECT j.side, j.reviewer_id, j.reason, j.timestamp, 0.1 * (${contains.join(' + ')}) AS relevance
        FROM judgment_fts JOIN judgment j ON j.rowid = judgment_fts.rowid
        WHERE judgment_fts MATCH :match AND j.side IS NOT NULL`,
      parameters,
    };
  }
}

/** PostgreSQL: the English `tsvector` under GIN, ranked by `ts_rank_cd`, scoped by b-tree columns. */
export class PostgresJudgmentSearch extends JudgmentSearch {
  matches(scope: SearchScope, terms: string[]): MatchQuery {
    // Terms are letters and digits only, so joining them cannot change the query's syntax.
    const where = new Conditions()
      .equal('j.api_key_id', scope.apiKeyId)
      .equal('j.organization_id', scope.organizationId)
      .equal('j.document_id', scope.documentId)
      .add(`j.text_vector @@ to_tsquery('english', :tsquery) AND j.side IS NOT NULL`, { tsquery: terms.join(' | ') });
    return {
      sql: `SELECT j.side, j.reviewer_id, j.reason, j.timestamp, ts_rank_cd(j.text_vector, to_tsquery('english', :tsquery)) AS relevance
        FROM judgment j WHERE ${where}`,
      parameters: where.parameters,
    };
  }
}

/** The index tokens of a judgment's three scopes (stored in `scope_tokens`). */
export function scopeTokens(apiKeyId: string, organizationId: string, documentId: string): string {
  return [scopeToken({ apiKeyId }), scopeToken({ apiKeyId, organizationId }), scopeToken({ apiKeyId, organizationId, documentId })].join(' ');
}

/**
 * One token per scope: a hash written in consonants only, so the Porter stemmer, which needs
 * vowels (and a final "s") to change a word, leaves it exactly as it is.
 */
function scopeToken(scope: SearchScope): string {
  const kind = scope.documentId !== undefined ? 'd' : scope.organizationId !== undefined ? 'g' : 'k';
  const digest = createHash('sha256').update(JSON.stringify([scope.apiKeyId, scope.organizationId ?? null, scope.documentId ?? null])).digest();
  const letters = 'bcdfghjklmnpqrtv';
  let token = kind;
  for (const byte of digest.subarray(0, 16)) token += letters[byte >> 4]! + letters[byte & 15]!;
  return token;
}
