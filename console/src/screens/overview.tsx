import { useState } from 'preact/hooks';
import { call } from '../api';
import { Button, Choice, Done, Failure, Field, Listing, Secret, Section, useAction, useLoad } from '../components/ui';
import type { ScreenProps } from '../session';

interface ApiKey {
  id: string;
  apiKeyName: string;
  type: string;
}

/** The workspace: its plan, its keys, a new key, and an auth token reset (shown once). */
export function Overview({ workspace, apiKey, refreshSession }: ScreenProps) {
  const scope = { workspaceId: workspace.id };
  const keys = useLoad(() => call<ApiKey[]>('/v2/workspace/apikeys/get', { pageSize: 100 }, scope).then((a) => a.data), [workspace.id]);
  const config = useLoad(() => call<{ planInfo?: { type: string } }>('/v2/workspace/apikeyconfig/get', {}, { apiKey }).then((a) => a.data), [apiKey]);
  const [name, setName] = useState('');
  const [type, setType] = useState('testing');
  const [shown, setShown] = useState<{ label: string; value: string } | undefined>(undefined);

  const create = useAction(async () => {
    const created = await call<{ apiKey: string; authToken?: string }>(
      '/v2/workspace/apikey/create',
      { ownerEmail: workspace.owner.email, type, apiKeyName: name || undefined, createAuthToken: true },
      scope,
    );
    setShown({ label: `Auth token of ${created.data.apiKey} (shown once)`, value: created.data.authToken ?? '' });
    setName('');
    keys.reload();
    await refreshSession();
    return `Created ${created.data.apiKey}.`;
  });
  const reset = useAction(async (key: string) => {
    const answer = await call<{ newAuthToken: { token: string } }>('/v2/workspace/authtoken/reset', { apiKey: key }, scope);
    setShown({ label: `New auth token of ${key} (shown once; the old one no longer works)`, value: answer.data.newAuthToken.token });
    return `Reset the auth token of ${key}.`;
  });

  return (
    <>
      <Section title="Workspace">
        <dl class="facts">
          <dt>Name</dt>
          <dd>{workspace.name}</dd>
          <dt>Id</dt>
          <dd>
            <code>{workspace.id}</code>
          </dd>
          <dt>Owner</dt>
          <dd>{workspace.owner.email}</dd>
          <dt>Plan</dt>
          <dd>{config.value?.planInfo?.type ?? (config.error ? '—' : '…')}</dd>
        </dl>
      </Section>
      {shown && <Secret label={shown.label} value={shown.value} />}
      <Section title="API keys">
        <Listing loaded={keys} what="API keys" empty="No API keys yet.">
          {(items) => (
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Key</th>
                  <th scope="col">Type</th>
                  <th scope="col">Auth token</th>
                </tr>
              </thead>
              <tbody>
                {items.map((key) => (
                  <tr>
                    <td>{key.apiKeyName}</td>
                    <td>
                      <code>{key.id}</code>
                    </td>
                    <td>{key.type}</td>
                    <td>
                      <Button
                        type="button"
                        busy={reset.busy}
                        onClick={() => confirm(`Reset the auth token of ${key.id}? The current one stops working at once.`) && reset.run(key.id)}
                      >
                        Reset auth token
                      </Button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </Listing>
        <Failure error={reset.error} />
        <Done message={reset.done} />
      </Section>
      <Section title="Create an API key">
        <form
          class="inline"
          onSubmit={(event) => {
            event.preventDefault();
            void create.run();
          }}
        >
          <Field label="Name" value={name} onInput={setName} placeholder="optional" maxLength={100} />
          <Choice label="Type" value={type} options={['testing', 'production']} onChange={setType} />
          <Button type="submit" busy={create.busy}>
            Create key
          </Button>
        </form>
        <Failure error={create.error} />
        <Done message={create.done} />
      </Section>
    </>
  );
}
