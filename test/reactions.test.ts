import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { startApp, type TestApp } from './helpers/app.js';
import { advancedEndpoint, deliverySuite, type Call } from './helpers/webhooks.js';
import { agentFor, createKey, expectError, expectSuccess } from './factories/workspace.js';

const ORG = 'org-r';
const DOC = 'doc-r';
const ana = { userId: 'ana', name: 'Ana', email: 'ana@example.com' };
const bob = { userId: 'bob', name: 'Bob' };
const MAX_REACTIONS = 40;

describe('reactions to comments (issue 33)', () => {
  let app: TestApp;
  let call: Call;
  const { receiver } = deliverySuite(async ({ database }) => {
    app = await startApp({
      DATABASE_URL: database.url,
      DELIVERY_CONCURRENCY: '4',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      COMMENT_MAX_REACTIONS: String(MAX_REACTIONS),
    });
    call = agentFor(app, await createKey(app));
    expectSuccess(await call('/v2/organizations/add', { organizations: [{ organizationId: ORG }] }));
    return () => app.close();
  });

  /** A thread of two comments (1 by Ana, 2 by Bob); answers its id. */
  async function thread(annotationId: string): Promise<string> {
    expectSuccess(
      await call('/v2/commentannotations/add', {
        organizationId: ORG,
        documentId: DOC,
        createDocument: true,
        commentAnnotations: [
          {
            annotationId,
            commentData: [
              { commentText: 'first', from: ana },
              { commentText: 'second', from: bob },
            ],
          },
        ],
      }),
    );
    return annotationId;
  }
  const threadPlace = (annotationId: string) => ({ organizationId: ORG, documentId: DOC, annotationId });
  const place = (annotationId: string, commentId = 1) => ({ ...threadPlace(annotationId), commentId });
  const react = (annotationId: string, icon: string, from: Record<string, unknown> = bob, extra: Record<string, unknown> = {}) =>
    call('/v2/commentannotations/comments/reactions/add', { ...place(annotationId), icon, from, ...extra });
  const unreact = (annotationId: string, icon: string, userId = 'bob', extra: Record<string, unknown> = {}) =>
    call('/v2/commentannotations/comments/reactions/delete', { ...place(annotationId), icon, userId, ...extra });
  const reactionsOf = async (annotationId: string) => {
    const [comment] = expectSuccess(await call('/v2/commentannotations/comments/get', { ...threadPlace(annotationId), commentIds: [1] })).data as Record<
      string,
      any
    >[];
    return comment as { reactionAnnotationIds: string[]; reactionAnnotations: { annotationId: string; icon: string; from: { userId: string } }[] };
  };

  it('adds once per user and icon, answers the reactions on every read, and deletes', async () => {
    const annotationId = await thread('t-basic');
    const first = expectSuccess(await react(annotationId, '👍'), 'Reaction added successfully.').data;
    assert.equal(first.added, true);
    assert.match(first.annotationId, /^rxn_/);
    assert.deepEqual(expectSuccess(await react(annotationId, '👍')).data, { annotationId: first.annotationId, added: false }, 'the same again changes nothing');
    const ana2 = expectSuccess(await react(annotationId, '👍', ana)).data;
    const heart = expectSuccess(await react(annotationId, '❤️')).data;
    const comment = await reactionsOf(annotationId);
    assert.deepEqual(comment.reactionAnnotationIds, [first.annotationId, ana2.annotationId, heart.annotationId]);
    assert.deepEqual(
      comment.reactionAnnotations.map((r) => [r.annotationId, r.icon, r.from.userId]),
      [
        [first.annotationId, '👍', 'bob'],
        [ana2.annotationId, '👍', 'ana'],
        [heart.annotationId, '❤️', 'bob'],
      ],
    );
    assert.deepEqual(Object.keys(comment.reactionAnnotations[0]!).sort(), ['annotationId', 'createdAt', 'from', 'icon', 'lastUpdated']);
    // Threads read whole answer them too; the other comment has none.
    const [annotation] = expectSuccess(await call('/v2/commentannotations/get', { organizationId: ORG, documentId: DOC, annotationIds: [annotationId] }))
      .data as Record<string, any>[];
    assert.deepEqual(annotation!.comments[0].reactionAnnotationIds, comment.reactionAnnotationIds);
    assert.deepEqual(annotation!.comments[1].reactionAnnotationIds, []);

    assert.deepEqual(expectSuccess(await unreact(annotationId, '👍'), 'Reaction deleted successfully.').data, { deleted: true });
    assert.deepEqual(expectSuccess(await unreact(annotationId, '👍')).data, { deleted: false });
    assert.deepEqual((await reactionsOf(annotationId)).reactionAnnotationIds, [ana2.annotationId, heart.annotationId]);
    // An edit of the comment keeps its reactions.
    expectSuccess(
      await call('/v2/commentannotations/comments/update', { ...threadPlace(annotationId), commentIds: [1], updatedData: { commentText: 'edited' } }),
    );
    assert.deepEqual((await reactionsOf(annotationId)).reactionAnnotationIds, [ana2.annotationId, heart.annotationId]);
  });

  it('refuses a missing thread or comment, bad input naming the field, and more than the limit per comment', async () => {
    const annotationId = await thread('t-refused');
    expectError(await react('no-such-thread', '👍'), 404, 'NOT_FOUND', 'Annotation not found.');
    expectError(
      await call('/v2/commentannotations/comments/reactions/add', { ...place(annotationId, 9), icon: '👍', from: bob }),
      404,
      'NOT_FOUND',
      'Comment not found.',
    );
    expectError(await react(annotationId, ''), 400, 'INVALID_ARGUMENT', /^data\.icon /);
    expectError(await react(annotationId, 'x'.repeat(65)), 400, 'INVALID_ARGUMENT', /^data\.icon /);
    expectError(await react(annotationId, '👍', { name: 'no id' }), 400, 'INVALID_ARGUMENT', /^data\.from/);
    expectError(
      await call('/v2/commentannotations/comments/reactions/add', { ...place(annotationId), commentId: 0, icon: '👍', from: bob }),
      400,
      'INVALID_ARGUMENT',
      /^data\.commentId /,
    );
    expectError(await unreact(annotationId, '👍', ''), 400, 'INVALID_ARGUMENT', /^data\.userId /);
    // Distinct users at once, 20 at a time: every one lands (the thread's lock orders them), up to the limit.
    for (let start = 0; start < MAX_REACTIONS; start += 20) {
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => react(annotationId, '👍', { userId: `u${start + i}` })));
      for (const answer of answers) assert.equal(expectSuccess(answer).data.added, true);
    }
    assert.equal((await reactionsOf(annotationId)).reactionAnnotationIds.length, MAX_REACTIONS);
    expectError(await react(annotationId, '🎉'), 400, 'FAILED_PRECONDITION', `A comment has at most ${MAX_REACTIONS} reactions.`);
    // One that exists is still answered (nothing is added).
    assert.equal(expectSuccess(await react(annotationId, '👍', { userId: 'u0' })).data.added, false);
  });

  it('20 identical reactions at once are one; 20 users at once are 20', async () => {
    const annotationId = await thread('t-race');
    const same = await Promise.all(Array.from({ length: 20 }, () => react(annotationId, '🔥')));
    const ids = new Set(same.map((answer) => expectSuccess(answer).data.annotationId as string));
    assert.equal(ids.size, 1);
    assert.equal(same.filter((answer) => answer.body.result.data.added).length, 1);
    await Promise.all(Array.from({ length: 20 }, (_, i) => react(annotationId, '🚀', { userId: `racer-${i}` })));
    const reactions = (await reactionsOf(annotationId)).reactionAnnotations;
    assert.equal(reactions.filter((r) => r.icon === '🔥').length, 1);
    assert.equal(reactions.filter((r) => r.icon === '🚀').length, 20);
  });

  it('sends comment.reaction_add and comment.reaction_delete as signed webhooks when triggerNotification is set, and nothing for a repeat', async () => {
    const { secret } = await advancedEndpoint(call, receiver.url('/reactions'), { filterTypes: ['comment.reaction_add', 'comment.reaction_delete'] });
    const annotationId = await thread('t-hooks');
    const notify = { triggerNotification: true };
    expectSuccess(await react(annotationId, '👍', bob, notify));
    expectSuccess(await react(annotationId, '👍', bob, notify));
    expectSuccess(await unreact(annotationId, '👍', 'bob', notify));
    expectSuccess(await unreact(annotationId, '👍', 'bob', notify));
    // Without the trigger, as other comment writes, nothing is sent.
    expectSuccess(await react(annotationId, '😀'));
    const hooks = await receiver.waitFor('/reactions', 2);
    const verified = hooks.map((hook) => new Webhook(secret).verify(hook.body, hook.headers as Record<string, string>) as Record<string, any>);
    assert.deepEqual(
      verified.map((event) => event.event),
      ['comment.reaction_add', 'comment.reaction_delete'],
    );
    const added = verified[0]!;
    assert.equal(added.data.actionUser.userId, 'bob');
    assert.equal(added.data.targetEntityId, annotationId);
    assert.equal(added.data.entityData.commentId, 1);
    assert.equal(added.data.entityData.reaction.icon, '👍');
    assert.deepEqual(added.data.entityData.involvedUserIds, ['ana'], "the comment's author (and the thread's) is involved");
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(receiver.at('/reactions').length, 2, 'a repeat sends nothing');
  });
});
