import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { AppConfig } from '../../src/config/app-config.js';
import { parseSettings } from '../../src/config/app-config.js';
import type { NotificationMailModel } from '../../src/delivery/notification-mail.js';
import { MailTemplates } from '../../src/mail/mail-templates.js';

/** A value that would add markup, an attribute and an entity if it reached HTML unescaped. */
const HOSTILE = `Eve <img src=x onerror=alert(1)><b>X</b> & "q" 'a'`;
const ESCAPED = 'Eve &lt;img src&#x3D;x onerror&#x3D;alert(1)&gt;&lt;b&gt;X&lt;/b&gt; &amp; &quot;q&quot; &#x27;a&#x27;';

const templatesIn = (dir?: string) => new MailTemplates(parseSettings((name) => (name === 'MAIL_TEMPLATES_DIR' ? dir : undefined)) as unknown as AppConfig);

/** A model with the hostile value in every text field it has. */
function hostileModel(event: string, mentioned: boolean): NotificationMailModel {
  const person = { userId: HOSTILE, name: HOSTILE, email: HOSTILE, label: HOSTILE };
  return {
    event,
    source: HOSTILE,
    actor: person,
    recipient: person,
    mentioned,
    organizationId: HOSTILE,
    document: { id: HOSTILE, name: HOSTILE, label: HOSTILE },
    comment: { annotationId: HOSTILE, text: HOSTILE },
    change: { field: HOSTILE, from: HOSTILE, to: HOSTILE },
    link: `https://example.com/?q=${HOSTILE}`,
    company: HOSTILE,
    timestamp: HOSTILE,
  };
}

/** Every branch of the bundled headline: each event it names, mentioned or not, and one it does not know. */
const EVENTS = [
  'comment.add',
  'comment_annotation.add',
  'comment_annotation.status_change',
  'comment_annotation.priority_change',
  'comment_annotation.assign',
  'comment.update',
  'huddle.create',
  'huddle.join',
  HOSTILE,
];

describe('mail templates escape every value in HTML', () => {
  const templates = templatesIn();

  for (const event of EVENTS) {
    for (const mentioned of [false, true]) {
      it(`${event === HOSTILE ? 'an unknown event' : event}${mentioned ? ', mentioned' : ''}: no hostile markup in the HTML part, one subject line`, () => {
        const mail = templates.render('notification', hostileModel(event, mentioned));
        assert.doesNotMatch(mail.html, /<img|<b>|onerror=alert\(1\)>/, mail.html);
        // The headline (a partial) and the bodies: the value shows, escaped.
        assert.ok(mail.html.includes(ESCAPED), mail.html);
        assert.doesNotMatch(mail.subject, /[\r\n]/);
        // Plain text and the subject are not HTML: the value reads as it was written.
        assert.ok(mail.text.includes(HOSTILE) && mail.subject.includes(HOSTILE));
      });
    }
  }

  it("an operator's templates and partials escape the same way", () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-templates-'));
    mkdirSync(join(dir, 'partials'));
    writeFileSync(join(dir, 'partials', 'who.hbs'), '{{actor.label}} on {{document.label}}');
    writeFileSync(join(dir, 'notification.subject.hbs'), '{{> who}}');
    writeFileSync(join(dir, 'notification.text.hbs'), '{{> who}}: {{comment.text}}');
    writeFileSync(join(dir, 'notification.html.hbs'), '<p>{{> who}}</p><p>{{comment.text}}</p>');
    const mail = templatesIn(dir).render('notification', hostileModel('comment.add', false));
    assert.equal(mail.html, `<p>${ESCAPED} on ${ESCAPED}</p><p>${ESCAPED}</p>`);
    assert.equal(mail.subject, `${HOSTILE} on ${HOSTILE}`);
  });
});
