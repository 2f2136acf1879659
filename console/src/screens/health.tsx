import { call } from '../api';
import { Empty, Failure, Loading, Section, useLoad } from '../components/ui';
import type { ScreenProps } from '../session';
import { when } from '../time';

interface DeliveryHealth {
  outbox: { waiting: number; advancedWebhook: number; webhook: number; mail: number; inbox: number };
  endpoints: {
    id: string;
    url: string;
    disabled: boolean;
    failingSince: number | null;
    lastAttemptAt: number | null;
    lastStatusCode: number | null;
    lastError: string | null;
    waiting: number;
  }[];
}

/** Delivery health: how much waits in the outbox, and which endpoints fail or were disabled. */
export function Health({ apiKey, link }: ScreenProps) {
  const health = useLoad(() => call<DeliveryHealth>('/v2/workspace/advancedwebhook/health/get', {}, { apiKey }).then((a) => a.data), [apiKey]);
  if (health.error) return <Failure error={health.error} />;
  if (!health.value) return <Loading what="delivery health" />;
  const { outbox, endpoints } = health.value;
  return (
    <>
      <Section
        title="Outbox"
        actions={
          <button type="button" onClick={health.reload}>
            Refresh
          </button>
        }
      >
        <dl class="facts">
          <dt>Waiting in all</dt>
          <dd>{outbox.waiting}</dd>
          <dt>To webhook endpoints</dt>
          <dd>{outbox.advancedWebhook}</dd>
          <dt>To basic webhook URLs</dt>
          <dd>{outbox.webhook}</dd>
          <dt>E-mail</dt>
          <dd>{outbox.mail}</dd>
          <dt>In-app inbox</dt>
          <dd>{outbox.inbox}</dd>
        </dl>
      </Section>
      <Section title="Failing and disabled endpoints">
        {endpoints.length === 0 ? (
          <Empty>Every endpoint is healthy.</Empty>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col">State</th>
                <th scope="col">Failing since</th>
                <th scope="col">Last attempt</th>
                <th scope="col">Waiting</th>
              </tr>
            </thead>
            <tbody>
              {endpoints.map((endpoint) => (
                <tr>
                  <td>
                    <a href={link('messages', endpoint.id)}>{endpoint.url}</a>
                  </td>
                  <td>
                    <span class={`badge ${endpoint.disabled ? 'bad' : ''}`}>{endpoint.disabled ? 'disabled' : 'failing'}</span>
                  </td>
                  <td>{when(endpoint.failingSince)}</td>
                  <td>
                    {when(endpoint.lastAttemptAt)}
                    {endpoint.lastStatusCode ? ` · ${endpoint.lastStatusCode}` : ''}
                    {endpoint.lastError ? ` · ${endpoint.lastError}` : ''}
                  </td>
                  <td>{endpoint.waiting}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>
    </>
  );
}
