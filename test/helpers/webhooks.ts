import { after, before } from 'node:test';
import { agentFor, expectSuccess } from '../factories/workspace.js';
import { ownDatabase, type OwnDatabase } from './database.js';
import { WebhookReceiver } from './webhook-receiver.js';

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

/** What a delivery suite runs against: a receiver, and a database of its own (see `ownDatabase`). */
export interface DeliverySuite {
  receiver: WebhookReceiver;
  database: OwnDatabase;
}

/**
 * Starts a receiver and a database of the suite's own before it, and stops them after it (call
 * inside `describe`). `around` starts what uses them once they are up (an app, say), and its
 * result stops that before they go down.
 */
export function deliverySuite(around?: (suite: DeliverySuite) => Promise<() => Promise<void>>): DeliverySuite {
  const suite = { receiver: new WebhookReceiver() } as DeliverySuite;
  let stop: (() => Promise<void>) | undefined;
  before(async () => {
    await suite.receiver.start();
    suite.database = await ownDatabase();
    stop = await around?.(suite);
  });
  after(async () => {
    await stop?.();
    await suite.database.drop();
    await suite.receiver.stop();
  });
  return suite;
}
