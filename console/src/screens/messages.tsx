import { useEffect, useState } from 'preact/hooks';
import { call } from '../api';
import { Button, Choice, Done, Failure, Field, Listing, Loading, Section, useAction, useLoad } from '../components/ui';
import type { ScreenProps } from '../session';
import { isoToLocalInput, localInputToIso, when } from '../time';
import type { Endpoint } from './endpoints';

interface Attempt {
  attempt: number;
  timestamp: string;
  statusCode: number;
  durationMs: number;
  error: string;
  nextAttemptAt: string;
  responseBody: string;
}

interface Message {
  messageId: string;
  eventType: string;
  status: string;
  attempts: number;
  nextAttemptAt: string;
  lastStatusCode: number;
  lastError: string;
  createdAt: string;
  attemptLog: Attempt[];
}

/** Recover runs over the window in this many slices, one request each, so the screen shows how far it is. */
const RECOVER_SLICES = 10;

/** One endpoint's message log with every attempt; retry one, recover all failed since a time, send a test event. */
export function Messages({ apiKey, arg, link }: ScreenProps) {
  const scope = { apiKey };
  const endpoints = useLoad(
    () => call<{ endpoints: Endpoint[] }>('/v2/workspace/advancedwebhook/endpoints/get', { limit: 250 }, scope).then((a) => a.data.endpoints),
    [apiKey],
  );
  useEffect(() => {
    // Without an endpoint in the address, the first one's log opens.
    if (endpoints.value && !arg && endpoints.value[0]) location.replace(link('messages', endpoints.value[0].id));
  }, [endpoints.value, arg]);
  return (
    <>
      <Section title="Endpoint">
        <Listing loaded={endpoints} what="endpoints" empty="No endpoints yet: add one under Endpoints.">
          {(items) => (
            <Choice
              label="Messages of"
              value={arg}
              options={items.map((e) => ({ value: e.id, text: `${e.url} (${e.id})` }))}
              onChange={(id) => (location.hash = link('messages', id))}
            />
          )}
        </Listing>
      </Section>
      {arg && <EndpointMessages endpointId={arg} apiKey={apiKey} />}
    </>
  );
}

function EndpointMessages({ endpointId, apiKey }: { endpointId: string; apiKey: string }) {
  const scope = { apiKey };
  const [status, setStatus] = useState('any');
  const [pages, setPages] = useState<string[]>(['']);
  const iterator = pages[pages.length - 1]!;
  const log = useLoad(
    () =>
      call<{ messages: Message[]; iterator: string | null; done: boolean }>(
        '/v2/workspace/advancedwebhook/messages/get',
        { endpointId, limit: 20, ...(status === 'any' ? {} : { status }), ...(iterator ? { iterator } : {}) },
        scope,
      ).then((a) => a.data),
    [endpointId, status, iterator],
  );
  const messages = { ...log, value: log.value?.messages };

  const retry = useAction(async (messageId: string) => {
    await call('/v2/workspace/advancedwebhook/messages/retry', { messageId, endpointId }, scope);
    log.reload();
    return `Message ${messageId} is queued to be sent again now.`;
  });
  const test = useAction(async () => {
    const answer = await call<{ messageId: string }>('/v2/workspace/advancedwebhook/endpoints/test', { endpointId }, scope);
    log.reload();
    return `Test message ${answer.data.messageId} queued.`;
  });

  const [since, setSince] = useState(() => isoToLocalInput(Date.now() - 24 * 3600_000));
  const [progress, setProgress] = useState<{ done: number; recovered: number } | undefined>(undefined);
  const recover = useAction(async () => {
    const start = Date.parse(localInputToIso(since));
    const end = Date.now();
    if (!(start < end)) throw new Error('Pick a time in the past.');
    let recovered = 0;
    setProgress({ done: 0, recovered });
    for (let slice = 0; slice < RECOVER_SLICES; slice++) {
      const from = start + Math.floor(((end - start) * slice) / RECOVER_SLICES);
      const to = start + Math.floor(((end - start) * (slice + 1)) / RECOVER_SLICES);
      if (to > from) {
        const answer = await call<{ recovered: number }>(
          '/v2/workspace/advancedwebhook/messages/recover',
          { endpointId, since: new Date(from).toISOString(), until: new Date(to).toISOString() },
          scope,
        );
        recovered += answer.data.recovered;
      }
      setProgress({ done: slice + 1, recovered });
    }
    log.reload();
    return `Recovered ${recovered} failed message${recovered === 1 ? '' : 's'} since ${when(start)}: each is sent once more now.`;
  });

  return (
    <>
      <Section title="Recover and test">
        <form
          class="inline"
          onSubmit={(event) => {
            event.preventDefault();
            void recover.run();
          }}
        >
          <Field label="Failed since" type="datetime-local" step={1} required value={since} onInput={setSince} />
          <Button type="submit" busy={recover.busy}>
            Recover failed messages
          </Button>
          <Button type="button" busy={test.busy} onClick={() => test.run()}>
            Send a test event
          </Button>
        </form>
        {progress && (
          <div class="progress">
            <label>
              Recovering: {progress.done} of {RECOVER_SLICES} parts of the window, {progress.recovered} messages so far
              <progress max={RECOVER_SLICES} value={progress.done} />
            </label>
          </div>
        )}
        <Failure error={recover.error ?? test.error} />
        <Done message={recover.done ?? test.done} />
      </Section>
      <Section
        title="Messages"
        actions={
          <div class="inline">
            <Choice
              label="Status"
              value={status}
              options={['any', 'pending', 'succeeded', 'failed', 'cancelled']}
              onChange={(value) => {
                setStatus(value);
                setPages(['']);
              }}
            />
            <button type="button" onClick={log.reload}>
              Refresh
            </button>
          </div>
        }
      >
        {log.loading && log.value ? <Loading what="messages" /> : null}
        <Listing loaded={messages} what="messages" empty="No messages for this endpoint yet.">
          {(items) => (
            <ul class="cards">
              {items.map((message) => (
                <li class="message">
                  <details>
                    <summary>
                      <span class={`badge ${message.status === 'succeeded' ? 'good' : message.status === 'failed' ? 'bad' : ''}`}>{message.status}</span>{' '}
                      <strong>{message.eventType}</strong> <code>{message.messageId}</code> · {message.attempts} attempt{message.attempts === 1 ? '' : 's'} ·{' '}
                      {message.lastStatusCode ? `last answer ${message.lastStatusCode}` : message.lastError || 'not sent yet'} · made {when(message.createdAt)}
                      {message.status === 'pending' && message.nextAttemptAt ? ` · next try ${when(message.nextAttemptAt)}` : ''}
                    </summary>
                    <table>
                      <caption>Attempts of {message.messageId}</caption>
                      <thead>
                        <tr>
                          <th scope="col">#</th>
                          <th scope="col">Time</th>
                          <th scope="col">Status</th>
                          <th scope="col">Took</th>
                          <th scope="col">Error</th>
                          <th scope="col">Next try</th>
                          <th scope="col">Answer</th>
                        </tr>
                      </thead>
                      <tbody>
                        {message.attemptLog.map((attempt) => (
                          <tr>
                            <td>{attempt.attempt}</td>
                            <td>{when(attempt.timestamp)}</td>
                            <td>{attempt.statusCode || '—'}</td>
                            <td>{attempt.durationMs} ms</td>
                            <td>{attempt.error || '—'}</td>
                            <td>{when(attempt.nextAttemptAt)}</td>
                            <td>
                              <code class="body">{attempt.responseBody || '—'}</code>
                            </td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </details>
                  <Button type="button" busy={retry.busy} onClick={() => retry.run(message.messageId)} aria-label={`Retry ${message.messageId}`}>
                    Retry
                  </Button>
                </li>
              ))}
            </ul>
          )}
        </Listing>
        <div class="pager">
          <button type="button" disabled={pages.length === 1} onClick={() => setPages(pages.slice(0, -1))}>
            Newer
          </button>
          <button type="button" disabled={!log.value || log.value.done || !log.value.iterator} onClick={() => setPages([...pages, log.value!.iterator!])}>
            Older
          </button>
        </div>
        <Failure error={retry.error} />
        <Done message={retry.done} />
      </Section>
    </>
  );
}
