import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { call, type Scope } from '../api';
import { Button, Check, Choice, Done, Failure, Field, Loading, Section, useAction, useLoad } from '../components/ui';
import type { ScreenProps } from '../session';

type Json = Record<string, any>;

/**
 * One delivery config as a form: loaded with its get operation, saved with its update, and any
 * refusal shown with the operation's own message (which names the field).
 */
function ConfigForm({
  title,
  scope,
  get,
  update,
  toForm,
  toUpdate,
  fields,
}: {
  title: string;
  scope: Scope;
  get: string;
  update: string;
  toForm: (config: Json) => Json;
  toUpdate: (form: Json) => Json;
  fields: (form: Json, set: (field: string, value: unknown) => void) => ComponentChildren;
}) {
  const loaded = useLoad(() => call<Json>(get, {}, scope).then((a) => a.data), [get, scope.apiKey]);
  const [form, setForm] = useState<Json | undefined>(undefined);
  useEffect(() => {
    if (loaded.value) setForm(toForm(loaded.value));
  }, [loaded.value]);
  const save = useAction(async () => {
    const answer = await call<Json>(update, toUpdate(form!), scope);
    loaded.reload();
    return answer.message;
  });
  const set = (field: string, value: unknown) => setForm((current) => ({ ...current, [field]: value }));
  return (
    <Section title={title}>
      {loaded.error ? <Failure error={loaded.error} /> : null}
      {!form && !loaded.error ? <Loading what={title} /> : null}
      {form && (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void save.run();
          }}
        >
          {fields(form, set)}
          <Button type="submit" busy={save.busy}>
            Save
          </Button>
          <Failure error={save.error} />
          <Done message={save.done} />
        </form>
      )}
    </Section>
  );
}

/** Triggers as JSON text: event types to booleans, as the operations take them. */
function Triggers({ value, onInput }: { value: string; onInput: (value: string) => void }) {
  return (
    <div class="field">
      <label>
        Triggers (JSON: event type → on/off)
        <textarea rows={3} value={value} onInput={(event) => onInput(event.currentTarget.value)} spellcheck={false} />
      </label>
    </div>
  );
}

/** Parses a triggers field; an unparsable one is sent as the text, so the operation names the field. */
function triggers(text: string): unknown {
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const secretHint = 'Stored encrypted; leave empty to keep the current one.';

export function Configs({ apiKey }: ScreenProps) {
  const scope = { apiKey };
  return (
    <>
      <ConfigForm
        title="E-mail"
        scope={scope}
        get="/v2/workspace/emailconfig/get"
        update="/v2/workspace/emailconfig/update"
        toForm={(c) => ({
          ...c.emailServiceConfig,
          useEmailService: c.useEmailService,
          apiKey: '',
          triggers: c.emailServiceConfig.triggers ? JSON.stringify(c.emailServiceConfig.triggers) : '',
        })}
        toUpdate={(f) => ({
          useEmailService: f.useEmailService,
          emailServiceConfig: {
            type: f.type,
            fromEmail: f.fromEmail,
            fromCompany: f.fromCompany,
            commentTemplateId: f.commentTemplateId,
            tagTemplateId: f.tagTemplateId,
            ...(f.apiKey ? { apiKey: f.apiKey } : {}),
            ...(triggers(f.triggers) !== undefined ? { triggers: triggers(f.triggers) } : {}),
          },
        })}
        fields={(f, set) => (
          <>
            <Check label="Send e-mail notifications" checked={f.useEmailService} onChange={(v) => set('useEmailService', v)} />
            <Choice label="Provider" value={f.type} options={['default', 'thirdparty', 'sendgrid', 'custom']} onChange={(v) => set('type', v)} />
            <Field label="From address" value={f.fromEmail} onInput={(v) => set('fromEmail', v)} />
            <Field label="From company" value={f.fromCompany} onInput={(v) => set('fromCompany', v)} />
            <Field label="Provider API key" type="password" autoComplete="off" hint={secretHint} value={f.apiKey} onInput={(v) => set('apiKey', v)} />
            <Field label="Comment template id" value={f.commentTemplateId} onInput={(v) => set('commentTemplateId', v)} />
            <Field label="Mention template id" value={f.tagTemplateId} onInput={(v) => set('tagTemplateId', v)} />
            <Triggers value={f.triggers} onInput={(v) => set('triggers', v)} />
          </>
        )}
      />
      <ConfigForm
        title="Webhooks (basic)"
        scope={scope}
        get="/v2/workspace/webhookconfig/get"
        update="/v2/workspace/webhookconfig/update"
        toForm={(c) => ({
          ...c.webhookServiceConfig,
          useWebhookService: c.useWebhookService,
          authToken: '',
          triggers: c.webhookServiceConfig.triggers ? JSON.stringify(c.webhookServiceConfig.triggers) : '',
        })}
        toUpdate={(f) => ({
          useWebhookService: f.useWebhookService,
          webhookServiceConfig: {
            rawNotificationUrl: f.rawNotificationUrl,
            processedNotificationUrl: f.processedNotificationUrl,
            encodeData: f.encodeData,
            ...(f.authToken ? { authToken: f.authToken } : {}),
            ...(triggers(f.triggers) !== undefined ? { triggers: triggers(f.triggers) } : {}),
          },
        })}
        fields={(f, set) => (
          <>
            <Check label="Send webhooks" checked={f.useWebhookService} onChange={(v) => set('useWebhookService', v)} />
            <Field label="Raw notification URL" type="url" value={f.rawNotificationUrl} onInput={(v) => set('rawNotificationUrl', v)} />
            <Field label="Processed notification URL" type="url" value={f.processedNotificationUrl} onInput={(v) => set('processedNotificationUrl', v)} />
            <Field label="Basic auth token" type="password" autoComplete="off" hint={secretHint} value={f.authToken} onInput={(v) => set('authToken', v)} />
            <Check label="Encode payloads (base64)" checked={f.encodeData} onChange={(v) => set('encodeData', v)} />
            <Triggers value={f.triggers} onInput={(v) => set('triggers', v)} />
          </>
        )}
      />
      <ConfigForm
        title="In-app notifications"
        scope={scope}
        get="/v2/workspace/notificationconfig/get"
        update="/v2/workspace/notificationconfig/update"
        toForm={(c) => ({
          useNotificationService: c.useNotificationService,
          delayEnabled: c.notificationServiceConfig.delayConfig.isEnabled,
          delaySeconds: String(c.notificationServiceConfig.delayConfig.delaySeconds),
          triggers: c.notificationServiceConfig.triggers ? JSON.stringify(c.notificationServiceConfig.triggers) : '',
        })}
        toUpdate={(f) => ({
          useNotificationService: f.useNotificationService,
          notificationServiceConfig: {
            delayConfig: { isEnabled: f.delayEnabled, delaySeconds: /^\d+$/.test(f.delaySeconds) ? Number(f.delaySeconds) : f.delaySeconds },
            ...(triggers(f.triggers) !== undefined ? { triggers: triggers(f.triggers) } : {}),
          },
        })}
        fields={(f, set) => (
          <>
            <Check label="Keep in-app notifications" checked={f.useNotificationService} onChange={(v) => set('useNotificationService', v)} />
            <Check label="Hold notifications before they are sent" checked={f.delayEnabled} onChange={(v) => set('delayEnabled', v)} />
            <Field label="Hold for (seconds)" inputMode="numeric" value={f.delaySeconds} onInput={(v) => set('delaySeconds', v)} hint="10 s to 6 months." />
            <Triggers value={f.triggers} onInput={(v) => set('triggers', v)} />
          </>
        )}
      />
      <ConfigForm
        title="Activity log"
        scope={scope}
        get="/v2/workspace/activityconfig/get"
        update="/v2/workspace/activityconfig/update"
        toForm={(c) => ({ isEnabled: c.activityServiceConfig.isEnabled, immutable: c.activityServiceConfig.immutable ?? false })}
        toUpdate={(f) => ({ activityServiceConfig: { isEnabled: f.isEnabled, immutable: f.immutable } })}
        fields={(f, set) => (
          <>
            <Check label="Record activities" checked={f.isEnabled} onChange={(v) => set('isEnabled', v)} />
            <Check label="Activities are immutable (no updates or deletes)" checked={f.immutable} onChange={(v) => set('immutable', v)} />
          </>
        )}
      />
    </>
  );
}
