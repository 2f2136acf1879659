import { createHash } from 'node:crypto';
import { Conditions, type Parameters, type Sql } from '../database/sql.js';
import type { Side } from './decisions.js';
import { NO_EVIDENCE, type Evidence } from './suggestion.js';

const DAY_MS = 86_400_000;
/** Age at which a judgment's recency weight halves (six months). */
const HALF_WEIGHT_AGE_MS = 182.5 * DAY_MS;
const TOP_REASONS = 3;

type EvidenceRow = {
  side: Side;
  count: number | string;
  relevance: number | string;
  weight: number | string;
  reviewers: number | string;
  stale: number | string;
  recent_count: number | string;
  recent_relevance: number | string;
};

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
 * Full-text relevance, through the database's own engine (contract part 8), and the evidence
 * suggestions are drawn from. `matches` yields a subquery of the judgments in scope that match at
 * least one term, with columns `side`, `reviewer_id`, `reason`, `timestamp` and `relevance`
 * (higher is more relevant). Only judgments that count for a side are included.
 *
 * Plain SQL throughout: full-text search is each engine's own syntax, and the evidence is one
 * aggregate over it that no query builder writes.
 */
export abstract class JudgmentSearch {
  constructor(private readonly sql: Sql) {}

  protected abstract matches(scope: SearchScope, terms: string[]): MatchQuery;

  /**
   * Per side: counts and sums of the relevant judgments, and the top reasons, in one statement,
   * so the engine finds and ranks the matches once. A judgment weighs between half and all of
   * its recency, 1 / (1 + age / six months), by its relevance r: 0.5 + 0.5 r / (1 + r). The
   * bounds keep a barely relevant judgment from vanishing. The matches are a materialised CTE,
   * read by both halves of the statement without being searched twice.
   */
  async evidence(scope: SearchScope, terms: string[], now: number): Promise<{ evidence: Evidence; reasons: Record<Side, string[]> }> {
    const matches = this.matches(scope, terms);
    const rows = await this.sql.rows<EvidenceRow & { kind: 'evidence' | 'reason'; reason: string | null }>(
      `WITH m AS MATERIALIZED (${matches.sql}),
        reasons AS (SELECT side, reason, MAX(relevance) AS best FROM m WHERE reason IS NOT NULL GROUP BY side, reason),
        ranked AS (SELECT side, reason, ROW_NUMBER() OVER (PARTITION BY side ORDER BY best DESC, reason) AS position FROM reasons)
      SELECT 'evidence' AS kind, side, COUNT(*) AS count, SUM(relevance) AS relevance,
          SUM((0.5 + 0.5 * relevance / (1 + relevance)) / (1 + (CASE WHEN timestamp > :now THEN 0 ELSE :now - timestamp END) / :halfWeightAge)) AS weight,
          COUNT(DISTINCT reviewer_id) AS reviewers,
          SUM(CASE WHEN timestamp < :staleBefore THEN 1 ELSE 0 END) AS stale,
          SUM(CASE WHEN timestamp >= :recentAfter THEN 1 ELSE 0 END) AS recent_count,
          SUM(CASE WHEN timestamp >= :recentAfter THEN relevance ELSE 0 END) AS recent_relevance,
          NULL AS reason, 0 AS position
        FROM m GROUP BY side
      UNION ALL
      SELECT 'reason', side, NULL, NULL, NULL, NULL, NULL, NULL, NULL, reason, position FROM ranked WHERE position <= ${TOP_REASONS}
      ORDER BY kind, side, position`,
      { ...matches.parameters, now, halfWeightAge: HALF_WEIGHT_AGE_MS, staleBefore: now - 182.5 * DAY_MS, recentAfter: now - 2 * DAY_MS },
    );
    const evidence: Evidence = { approve: NO_EVIDENCE, reject: NO_EVIDENCE };
    const reasons: Record<Side, string[]> = { approve: [], reject: [] };
    for (const row of rows) {
      if (row.kind === 'reason') {
        reasons[row.side].push(row.reason!);
        continue;
      }
      evidence[row.side] = {
        count: Number(row.count),
        relevance: Number(row.relevance),
        weight: Number(row.weight),
        reviewers: Number(row.reviewers),
        stale: Number(row.stale),
        recentCount: Number(row.recent_count),
        recentRelevance: Number(row.recent_relevance),
      };
    }
    return { evidence, reasons };
  }
}

/**
 * SQLite: FTS5 with the Porter stemmer, scoped through tokens in the index. Relevance is 0.1 per
 * query term the judgment contains, read from the judgment alone, as PostgreSQL's `ts_rank_cd`
 * is: FTS5's bm25 would weigh terms by how rare they are across the whole index, every key's
 * judgments included, so one tenant's data would move another's confidence.
 */
export class EmbeddedJudgmentSearch extends JudgmentSearch {
  protected matches(scope: SearchScope, terms: string[]): MatchQuery {
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
  protected matches(scope: SearchScope, terms: string[]): MatchQuery {
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
  const digest = createHash('sha256')
    .update(JSON.stringify([scope.apiKeyId, scope.organizationId ?? null, scope.documentId ?? null]))
    .digest();
  const letters = 'bcdfghjklmnpqrtv';
  let token = kind;
  for (const byte of digest.subarray(0, 16)) token += letters[byte >> 4]! + letters[byte & 15]!;
  return token;
}
