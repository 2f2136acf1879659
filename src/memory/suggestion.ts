import type { Side } from './decisions.js';

/** Scopes from narrowest to broadest (contract part 8). */
export const SCOPES = {
  document: 'This document',
  organization: 'This organization',
  apiKey: 'All content',
} as const;
export type Scope = keyof typeof SCOPES;

/** What the relevant judgments of one side in one scope add up to. */
export interface SideEvidence {
  count: number;
  /** Summed relevance (the engine's rank). */
  relevance: number;
  /** Summed weight of relevance and recency, each judgment between 0 and 1 (see `JudgmentSearch.evidence`). */
  weight: number;
  reviewers: number;
  /** Judgments older than six months. */
  stale: number;
  /** Count and summed relevance of the judgments of the last 48 hours. */
  recentCount: number;
  recentRelevance: number;
}

export type Evidence = Record<Side, SideEvidence>;

export interface Suggestion {
  recommendation: Side;
  confidence: number;
  basedOn: number;
  scope: Scope;
  scopeLabel: string;
  topReasons: string[];
  uniqueReviewers: number;
  caveats: string[];
}

/** Judgments needed on the leading side before a scope answers, and on each side for a conflict. */
export const MIN_JUDGMENTS = 2;
const STALE_SHARE = 0.7;
const Z = 1.96;

export const NO_EVIDENCE: SideEvidence = { count: 0, relevance: 0, weight: 0, reviewers: 0, stale: 0, recentCount: 0, recentRelevance: 0 };

/** The side with more relevant judgments; on a tie the larger summed relevance; on a full tie, reject. */
export function leadingSide(approve: { count: number; relevance: number }, reject: { count: number; relevance: number }): Side | null {
  if (approve.count === 0 && reject.count === 0) return null;
  if (approve.count !== reject.count) return approve.count > reject.count ? 'approve' : 'reject';
  return approve.relevance > reject.relevance ? 'approve' : 'reject';
}

/** Lower bound of the Wilson score interval for `successes` out of `total` (both may be weighted). */
export function wilsonLowerBound(successes: number, total: number): number {
  if (total <= 0) return 0;
  const p = successes / total;
  const z2 = Z * Z;
  const bound = (p + z2 / (2 * total) - Z * Math.sqrt((p * (1 - p)) / total + z2 / (4 * total * total))) / (1 + z2 / total);
  return Math.max(0, Math.min(1, bound));
}

/** The narrowest scope whose leading side has at least two relevant judgments, if any. */
export function chooseScope(evidence: Evidence): Side | null {
  const side = leadingSide(evidence.approve, evidence.reject);
  return side !== null && evidence[side].count >= MIN_JUDGMENTS ? side : null;
}

/**
 * `primary` and `conflict` for the chosen scope, reasons left for the caller to fill. Confidence
 * is the Wilson lower bound of the side's share of the weighted evidence, so it grows with
 * agreeing judgments and shrinks with dissenting ones.
 */
export function suggestionsFor(scope: Scope, evidence: Evidence, leading: Side): { primary: Suggestion; conflict: Suggestion | null } {
  const other: Side = leading === 'approve' ? 'reject' : 'approve';
  const conflicting = evidence[other].count >= MIN_JUDGMENTS;
  const conflictCaveat = `Conflicting judgments: ${evidence.approve.count} approve vs ${evidence.reject.count} reject`;
  const totalWeight = evidence.approve.weight + evidence.reject.weight;
  const suggestion = (side: Side, caveats: string[]): Suggestion => ({
    recommendation: side,
    confidence: Number(wilsonLowerBound(evidence[side].weight, totalWeight).toFixed(4)),
    basedOn: evidence[side].count,
    scope,
    scopeLabel: SCOPES[scope],
    topReasons: [],
    uniqueReviewers: evidence[side].reviewers,
    caveats: [
      ...caveats,
      ...(evidence[side].stale > STALE_SHARE * evidence[side].count ? ['Stale pattern: >70% of supporting data is older than 6 months'] : []),
    ],
  });
  const primaryCaveats = conflicting ? [conflictCaveat] : [];
  if (recentChangedBalance(evidence, leading)) primaryCaveats.push('Recent judgments in the last 48 hours changed the balance');
  return { primary: suggestion(leading, primaryCaveats), conflict: conflicting ? suggestion(other, [conflictCaveat]) : null };
}

/** Whether leaving out the last 48 hours leads to another recommendation (nothing left: no). */
function recentChangedBalance(evidence: Evidence, leading: Side): boolean {
  const without = (side: Side) => ({
    count: evidence[side].count - evidence[side].recentCount,
    relevance: evidence[side].relevance - evidence[side].recentRelevance,
  });
  const before = leadingSide(without('approve'), without('reject'));
  return before !== null && before !== leading;
}
