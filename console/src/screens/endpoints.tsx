import { useState } from 'preact/hooks';
import { call } from '../api';
import { Button, Check, Done, Failure, Field, Listing, Loading, Secret, Section, useAction, useLoad } from '../components/ui';
import type { ScreenProps } from '../session';
import { when } from '../time';

export interface Endpoint {
  id: string;
  url: string;
  description: string;
  filterTypes: string[] | null;
  disabled: boolean;
  createdAt: string;
}

const list = (text: string) =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/** An endpoint's form, for a new one and for editing one. */
function EndpointForm({
  initial,
  busy,
  submit,
  label,
}: {
  initial?: Endpoint;
  busy: boolean;
  submit: (fields: Record<string, unknown>) => void;
  label: string;
}) {
  const [url, setUrl] = useState(initial?.url ?? '');
  const [description, setDescription] = useState(initial?.description ?? '');
  const [types, setTypes] = useState((initial?.filterTypes ?? []).join(', '));
  const [disabled, setDisabled] = useState(initial?.disabled ?? false);
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        // No types: every event (absent on a new endpoint, null to clear an existing one's).
        const filterTypes = list(types).length ? list(types) : initial ? null : undefined;
        submit({ url, description, filterTypes, disabled });
      }}
    >
      <Field label="URL" type="url" required value={url} onInput={setUrl} placeholder="https://example.com/webhooks" />
      <Field label="Description" value={description} onInput={setDescription} />
      <Field label="Event types" value={types} onInput={setTypes} hint="Comma-separated, e.g. comment.created, webhook.test; empty: every event." />
      <Check label="Disabled" checked={disabled} onChange={setDisabled} />
      <Button type="submit" busy={busy}>
        {label}
      </Button>
    </form>
  );
}

/** Advanced webhook endpoints: create, edit, filter types, reveal and rotate the signing secret. */
export function Endpoints({ apiKey, link }: ScreenProps) {
  const scope = { apiKey };
  const endpoints = useLoad(
    () => call<{ endpoints: Endpoint[] }>('/v2/workspace/advancedwebhook/endpoints/get', { limit: 250 }, scope).then((a) => a.data.endpoints),
    [apiKey],
  );
  const [editing, setEditing] = useState<string | undefined>(undefined);
  const [secret, setSecret] = useState<{ label: string; value: string } | undefined>(undefined);

  const create = useAction(async (fields: Record<string, unknown>) => {
    const answer = await call<Endpoint>('/v2/workspace/advancedwebhook/endpoints/create', fields, scope);
    endpoints.reload();
    return `Created endpoint ${answer.data.id}.`;
  });
  const update = useAction(async (endpointId: string, fields: Record<string, unknown>) => {
    await call('/v2/workspace/advancedwebhook/endpoints/update', { endpointId, ...fields }, scope);
    setEditing(undefined);
    endpoints.reload();
    return `Saved endpoint ${endpointId}.`;
  });
  const reveal = useAction(async (endpointId: string) => {
    const answer = await call<{ secret: string }>('/v2/workspace/advancedwebhook/endpoints/secret/get', { endpointId }, scope);
    setSecret({ label: `Signing secret of ${endpointId}`, value: answer.data.secret });
  });
  const [overlap, setOverlap] = useState('86400');
  const rotate = useAction(async (endpointId: string) => {
    const answer = await call<{ secret: string; previousSecretExpiresAt: string }>(
      '/v2/workspace/advancedwebhook/endpoints/secret/rotate',
      { endpointId, overlapSeconds: /^\d+$/.test(overlap) ? Number(overlap) : overlap },
      scope,
    );
    setSecret({ label: `New signing secret of ${endpointId}`, value: answer.data.secret });
    return `Rotated. The previous secret still signs until ${when(answer.data.previousSecretExpiresAt)}.`;
  });
  const remove = useAction(async (endpointId: string) => {
    await call('/v2/workspace/advancedwebhook/endpoints/delete', { endpointId }, scope);
    endpoints.reload();
    return `Deleted endpoint ${endpointId}.`;
  });

  const config = useLoad(() => call<{ isEnabled: boolean }>('/v2/workspace/advancedwebhookconfig/get', {}, scope).then((a) => a.data), [apiKey]);
  const switchOn = useAction(async (isEnabled: boolean) => {
    await call('/v2/workspace/advancedwebhookconfig/update', { isEnabled }, scope);
    config.reload();
    endpoints.reload();
    return isEnabled ? 'Advanced webhooks are on.' : 'Advanced webhooks are off: nothing is sent to the endpoints.';
  });

  return (
    <>
      <Section title="Advanced webhooks">
        {config.value === undefined && !config.error ? <Loading what="the advanced webhook setting" /> : null}
        <Failure error={config.error} />
        {config.value && (
          <div class="inline">
            <p>
              Advanced webhooks are <strong>{config.value.isEnabled ? 'on' : 'off'}</strong> for this key.
            </p>
            <Button type="button" busy={switchOn.busy} onClick={() => switchOn.run(!config.value!.isEnabled)}>
              {config.value.isEnabled ? 'Turn off' : 'Turn on'}
            </Button>
          </div>
        )}
        <Failure error={switchOn.error} />
        <Done message={switchOn.done} />
      </Section>
      {secret && <Secret label={secret.label} value={secret.value} />}
      <Section title="Endpoints">
        <Listing loaded={endpoints} what="endpoints" empty="No endpoints yet. Add one below to receive signed webhooks.">
          {(items) => (
            <ul class="cards">
              {items.map((endpoint) => (
                <li class="endpoint">
                  <div class="endpoint-head">
                    <code class="url">{endpoint.url}</code>
                    <span class={`badge ${endpoint.disabled ? 'bad' : 'good'}`}>{endpoint.disabled ? 'disabled' : 'enabled'}</span>
                  </div>
                  <p class="muted">
                    {endpoint.id} · {endpoint.description || 'no description'} ·{' '}
                    {endpoint.filterTypes?.length ? endpoint.filterTypes.join(', ') : 'every event'} · created {when(endpoint.createdAt)}
                  </p>
                  <div class="actions">
                    <a class="button" href={link('messages', endpoint.id)}>
                      Messages
                    </a>
                    <button type="button" onClick={() => setEditing(editing === endpoint.id ? undefined : endpoint.id)} aria-expanded={editing === endpoint.id}>
                      Edit
                    </button>
                    <Button type="button" busy={reveal.busy} onClick={() => reveal.run(endpoint.id)}>
                      Reveal secret
                    </Button>
                    <Button type="button" busy={rotate.busy} onClick={() => rotate.run(endpoint.id)}>
                      Rotate secret
                    </Button>
                    <Button
                      type="button"
                      class="danger"
                      busy={remove.busy}
                      onClick={() => confirm(`Delete endpoint ${endpoint.url}?`) && remove.run(endpoint.id)}
                    >
                      Delete
                    </Button>
                  </div>
                  {editing === endpoint.id && (
                    <EndpointForm initial={endpoint} busy={update.busy} label="Save endpoint" submit={(fields) => update.run(endpoint.id, fields)} />
                  )}
                </li>
              ))}
            </ul>
          )}
        </Listing>
        <Field
          label="On rotation, the old secret keeps signing for (seconds)"
          inputMode="numeric"
          value={overlap}
          onInput={setOverlap}
          hint="Deliveries carry both signatures meanwhile; 0 ends the old secret at once. At most a week."
        />
        {[update, reveal, rotate, remove].map((action) => (
          <>
            <Failure error={action.error} />
            <Done message={action.done} />
          </>
        ))}
      </Section>
      <Section title="Add an endpoint">
        <EndpointForm busy={create.busy} label="Add endpoint" submit={(fields) => create.run(fields)} />
        <Failure error={create.error} />
        <Done message={create.done} />
      </Section>
    </>
  );
}
