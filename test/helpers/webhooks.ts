import { agentFor, expectSuccess } from '../factories/workspace.js';

export type Call = ReturnType<typeof agentFor>;

/** Turns advanced webhooks on for the caller's key and creates an endpoint; returns its id and secret. */
export async function advancedEndpoint(call: Call, url: string, fields: Record<string, unknown> = {}): Promise<{ id: string; secret: string }> {
  const config = await call('/v2/workspace/advancedwebhookconfig/get', {});
  if (!config.body.result?.data?.isEnabled) expectSuccess(await call('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true }));
  const id = expectSuccess(await call('/v2/workspace/advancedwebhook/endpoints/create', { url, ...fields })).data.id as string;
  const secret = expectSuccess(await call('/v2/workspace/advancedwebhook/endpoints/secret/get', { endpointId: id })).data.secret as string;
  return { id, secret };
}

/** Adds activities to a document (both created when missing); returns their ids. */
export async function addActivities(call: Call, organizationId: string, documentId: string, activities: Record<string, unknown>[]): Promise<string[]> {
  const result = expectSuccess(await call('/v2/activities/add', { organizationId, documentId, activities }));
  return Object.keys(result.data);
}

/** A comment activity by `actor`. */
export function commentActivity(actionType = 'comment.add', actor = 'ana', extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { featureType: 'comment', actionType, actionUser: { userId: actor, name: 'Ana', email: 'ana@example.com' }, ...extra };
}

/** Waits until the message log shows the message in `status`. */
export async function waitForStatus(call: Call, messageId: string, status: string, timeoutMs = 10_000): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const messages = expectSuccess(await call('/v2/workspace/advancedwebhook/messages/get', {})).data.messages as Record<string, any>[];
    const found = messages.find((m) => m.messageId === messageId && m.status === status);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`message ${messageId} not ${status}: ${JSON.stringify(messages)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
