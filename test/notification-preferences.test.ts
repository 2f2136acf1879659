import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { agentFor, createKey, expectError, expectSuccess, withKeyedApp } from './factories/workspace.js';

const org = 'pref-org';

describe('notification preferences (contract 6.4)', () => {
  const keyed = withKeyedApp();
  const call = (path: string, data: unknown) => keyed.call(path, data);
  const getV2 = async (data: Record<string, unknown>) =>
    expectSuccess(await call('/v2/notifications/config/get', { organizationId: org, ...data }), 'User config fetched successfully.').data;
  const setV2 = async (data: Record<string, unknown>) =>
    expectSuccess(await call('/v2/notifications/config/set', { organizationId: org, ...data }), 'User config set successfully.').data;
  const configOf = async (userId: string, documentId: string) => (await getV2({ userId, documentIds: [documentId] }))[0].config;

  it('needs the key’s notification service on', async () => {
    const operations = [
      ['/v1/notifications/config/get', { organizationId: org, userId: 'u', documentIds: ['d'] }],
      ['/v2/notifications/config/get', { organizationId: org, userId: 'u' }],
      ['/v1/notifications/config/set', { organizationId: org, userIds: ['u'], documentIds: ['d'], config: { inbox: 'ALL' } }],
      ['/v2/notifications/config/set', { organizationId: org, userIds: ['u'], config: { inbox: 'ALL' } }],
    ] as const;
    for (const [path, data] of operations)
      expectError(await call(path, data), 400, 'FAILED_PRECONDITION', 'Notification service is not enabled for this API key.');
  });

  describe('with the service on', () => {
    before(async () => {
      expectSuccess(await call('/v2/workspace/notificationconfig/update', { useNotificationService: true }));
    });

    it('answers the defaults when nothing is stored: inbox ALL, email MINE, chat NONE', async () => {
      assert.deepEqual(await getV2({ userId: 'nobody' }), [
        {
          config: { inbox: 'ALL', email: 'MINE', chat: 'NONE' },
          metadata: { organizationId: org, apiKey: keyed.key.apiKey, documentId: null, userId: 'nobody' },
        },
      ]);
    });

    it('resolves document → organization → default, channel by channel', async () => {
      // Organization default for alice: email NONE. Document d1: inbox MINE. Document d2: nothing.
      const orgSet = await setV2({ userIds: ['alice', 'bob'], config: { email: 'NONE' } });
      assert.deepEqual(orgSet.alice, { success: true, userId: 'alice', documentId: null, documentIds: [], message: 'User config set successfully.' });
      assert.deepEqual(Object.keys(orgSet), ['alice', 'bob']);
      const docSet = await setV2({ userIds: ['alice'], documentIds: ['d1', 'd3'], config: { inbox: 'MINE' } });
      assert.deepEqual(docSet, {
        alice: { success: true, userId: 'alice', documentId: 'd1', documentIds: ['d1', 'd3'], message: 'User config set successfully.' },
      });

      const table: [user: string, document: string, expected: Record<string, string>][] = [
        ['alice', 'd1', { inbox: 'MINE', email: 'NONE', chat: 'NONE' }], // document inbox, organization email, default chat
        ['alice', 'd2', { inbox: 'ALL', email: 'NONE', chat: 'NONE' }], // organization email, defaults
        ['bob', 'd1', { inbox: 'ALL', email: 'NONE', chat: 'NONE' }], // alice's document setting is not bob's
        ['carol', 'd1', { inbox: 'ALL', email: 'MINE', chat: 'NONE' }], // defaults only
      ];
      for (const [user, document, expected] of table) assert.deepEqual(await configOf(user, document), expected, `${user} on ${document}`);

      // A partial set keeps the other channels; a document setting wins over a later organization one.
      await setV2({ userIds: ['alice'], documentIds: ['d1'], config: { chat: 'ALL' } });
      await setV2({ userIds: ['alice'], config: { inbox: 'NONE', email: 'ALL' } });
      assert.deepEqual(await configOf('alice', 'd1'), { inbox: 'MINE', email: 'ALL', chat: 'ALL' });
      assert.deepEqual(await configOf('alice', 'd2'), { inbox: 'NONE', email: 'ALL', chat: 'NONE' });
    });

    it("reads upstream's `slack` as the chat channel; both at once must agree", async () => {
      await setV2({ userIds: ['sam'], documentIds: ['d1'], config: { slack: 'ALL' } });
      assert.deepEqual(await configOf('sam', 'd1'), { inbox: 'ALL', email: 'MINE', chat: 'ALL' });
      await setV2({ userIds: ['sam'], documentIds: ['d1'], config: { slack: 'MINE', chat: 'MINE' } });
      assert.equal((await configOf('sam', 'd1')).chat, 'MINE');
      expectError(
        await call('/v2/notifications/config/set', { organizationId: org, userIds: ['sam'], config: { slack: 'ALL', chat: 'NONE' } }),
        400,
        'INVALID_ARGUMENT',
        /config\.slack and \.chat/,
      );
    });

    it('v2 get answers the organization entry when asked or when no documents are named, then one per document', async () => {
      await setV2({ userIds: ['dana'], config: { inbox: 'NONE' } });
      const both = await getV2({ userId: 'dana', documentIds: ['x', 'y'], getOrganizationConfig: true });
      assert.deepEqual(
        both.map((e: { metadata: { documentId: string | null } }) => e.metadata.documentId),
        [null, 'x', 'y'],
      );
      assert.equal(both[1].config.inbox, 'NONE');
      const documentsOnly = await getV2({ userId: 'dana', documentIds: ['x'] });
      assert.deepEqual(
        documentsOnly.map((e: { metadata: { documentId: string | null } }) => e.metadata.documentId),
        ['x'],
      );
    });

    it('v1 needs documentIds, and answers inbox and email only', async () => {
      expectError(
        await call('/v1/notifications/config/set', { organizationId: org, userIds: ['erin'], config: { inbox: 'NONE' } }),
        400,
        'INVALID_ARGUMENT',
        'data.documentIds must be an array',
      );
      expectError(
        await call('/v1/notifications/config/get', { organizationId: org, userId: 'erin' }),
        400,
        'INVALID_ARGUMENT',
        'data.documentIds must be an array',
      );
      const set = expectSuccess(
        await call('/v1/notifications/config/set', { organizationId: org, userIds: ['erin'], documentIds: ['doc'], config: { inbox: 'NONE', chat: 'ALL' } }),
      ).data;
      assert.deepEqual(set.erin.documentIds, ['doc']);
      const got = expectSuccess(
        await call('/v1/notifications/config/get', { organizationId: org, userId: 'erin', documentIds: ['doc'] }),
        'User config fetched successfully.',
      ).data;
      assert.deepEqual(got, [
        { config: { inbox: 'NONE', email: 'MINE' }, metadata: { organizationId: org, apiKey: keyed.key.apiKey, documentId: 'doc', userId: 'erin' } },
      ]);
    });

    it('refuses bad requests with the field named', async () => {
      const refused = async (data: Record<string, unknown>, message: string) =>
        expectError(await call('/v2/notifications/config/set', { organizationId: org, ...data }), 400, 'INVALID_ARGUMENT', message);
      await refused({ userIds: ['u'], config: { inbox: 'SOME' } }, 'data.config.inbox must be one of: ALL, MINE, NONE');
      await refused({ userIds: ['u'], config: {} }, 'data.config must set at least one of inbox, email, chat');
      await refused({ userIds: ['u'], config: { sms: 'ALL' } }, 'Unknown field: data.config.sms');
      await refused({ userIds: [], config: { inbox: 'ALL' } }, 'data.userIds must contain at least 1 item(s)');
      await refused(
        { userIds: ['u'], documentIds: Array.from({ length: 31 }, (_, i) => `d${i}`), config: { inbox: 'ALL' } },
        'data.documentIds must contain at most 30 items',
      );
      expectError(await call('/v2/notifications/config/get', { organizationId: org }), 400, 'INVALID_ARGUMENT', 'data.userId must be a non-empty string');
    });

    it('another key neither reads nor changes these preferences', async () => {
      await setV2({ userIds: ['frank'], config: { email: 'NONE' } });
      const other = agentFor(keyed.app, await createKey(keyed.app));
      expectSuccess(await other('/v2/workspace/notificationconfig/update', { useNotificationService: true }));
      const theirs = expectSuccess(await other('/v2/notifications/config/get', { organizationId: org, userId: 'frank' })).data;
      assert.equal(theirs[0].config.email, 'MINE');
      expectSuccess(await other('/v2/notifications/config/set', { organizationId: org, userIds: ['frank'], config: { email: 'ALL' } }));
      assert.equal((await getV2({ userId: 'frank' }))[0].config.email, 'NONE');
    });
  });
});
