import type { CommentInput } from './dto/comments.dto.js';
import type { AgentBlock, Comment } from './threads.js';

/**
 * Comments from what a caller sent, each given an id: the caller's, else the next number after
 * `lastId` (the highest id the thread holds, 0 for none) and every id the batch names (ids are
 * per thread, from 1).
 */
export function newComments(inputs: CommentInput[], lastId: number, now: number): Comment[] {
  let next = Math.max(lastId, ...inputs.map((c) => c.commentId ?? 0)) + 1;
  return inputs.map(({ triggerActivities: _a, triggerNotification: _n, commentId, agent, createdAt, lastUpdated, ...fields }) => ({
    ...fields,
    commentId: commentId ?? next++,
    ...(agent ? { agent: withAgentType(agent) } : {}),
    createdAt: createdAt ?? now,
    lastUpdated: lastUpdated ?? createdAt ?? now,
  }));
}

/** An agent block with the `agentType` get answers: `external` for external agents; this service has no custom-agent registry, so a `velt` agent is `built-in`. */
export function withAgentType(agent: AgentBlock): AgentBlock {
  return { ...agent, agentType: agent.agentSource === 'external' ? 'external' : 'built-in' };
}
