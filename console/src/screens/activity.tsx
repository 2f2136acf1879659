import { useState } from 'preact/hooks';
import { call } from '../api';
import { Button, Choice, Field, Listing, Section, useLoad } from '../components/ui';
import type { ScreenProps } from '../session';
import { when } from '../time';

interface Activity {
  id: string;
  featureType: string;
  actionType: string;
  actionUser: { userId?: string; name?: string };
  targetEntityId?: string;
  metadata: { documentId: string };
  timestamp: number;
}

interface Filters {
  organizationId: string;
  documentId: string;
  userId: string;
  featureTypes: string;
  actionTypes: string;
  order: string;
}

const list = (text: string) =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/** The activity log of an organization or one document, with filters and paging. */
export function ActivityStore({ apiKey }: ScreenProps) {
  const [draft, setDraft] = useState<Filters>({ organizationId: '', documentId: '', userId: '', featureTypes: '', actionTypes: '', order: 'desc' });
  const [filters, setFilters] = useState<Filters | undefined>(undefined);
  const [pages, setPages] = useState<string[]>(['']);
  const set = (field: keyof Filters) => (value: string) => setDraft({ ...draft, [field]: value });
  return (
    <>
      <Section title="Filters">
        <form
          class="grid"
          onSubmit={(event) => {
            event.preventDefault();
            setFilters(draft);
            setPages(['']);
          }}
        >
          <Field label="Organization id" required value={draft.organizationId} onInput={set('organizationId')} />
          <Field label="Document id" value={draft.documentId} onInput={set('documentId')} hint="Empty: the whole organization." />
          <Field label="User id" value={draft.userId} onInput={set('userId')} />
          <Field label="Features" value={draft.featureTypes} onInput={set('featureTypes')} hint="Comma-separated: comment, reaction, recorder, crdt, custom." />
          <Field label="Actions" value={draft.actionTypes} onInput={set('actionTypes')} hint="Comma-separated, e.g. comment.add." />
          <Choice label="Order" value={draft.order} options={['desc', 'asc']} onChange={set('order')} />
          <Button type="submit">Show activities</Button>
        </form>
      </Section>
      {filters && <Activities apiKey={apiKey} filters={filters} pages={pages} setPages={setPages} />}
    </>
  );
}

function Activities({ apiKey, filters, pages, setPages }: { apiKey: string; filters: Filters; pages: string[]; setPages: (pages: string[]) => void }) {
  const pageToken = pages[pages.length - 1]!;
  const page = useLoad(
    () =>
      call<Activity[]>(
        '/v2/activities/get',
        {
          organizationId: filters.organizationId,
          ...(filters.documentId ? { documentId: filters.documentId } : {}),
          ...(filters.userId ? { userId: filters.userId } : {}),
          ...(list(filters.featureTypes).length ? { featureTypes: list(filters.featureTypes) } : {}),
          ...(list(filters.actionTypes).length ? { actionTypes: list(filters.actionTypes) } : {}),
          order: filters.order,
          pageSize: 25,
          ...(pageToken ? { pageToken } : {}),
        },
        { apiKey },
      ),
    [filters, pageToken],
  );
  const activities = { ...page, value: page.value?.data };
  return (
    <Section title="Activities">
      <Listing loaded={activities} what="activities" empty="No activities match.">
        {(items) => (
          <table>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Feature</th>
                <th scope="col">Action</th>
                <th scope="col">User</th>
                <th scope="col">Document</th>
                <th scope="col">Target</th>
              </tr>
            </thead>
            <tbody>
              {items.map((activity) => (
                <tr>
                  <td>{when(activity.timestamp)}</td>
                  <td>{activity.featureType}</td>
                  <td>{activity.actionType}</td>
                  <td>{activity.actionUser.name || activity.actionUser.userId || '—'}</td>
                  <td>
                    <code>{activity.metadata.documentId || '—'}</code>
                  </td>
                  <td>
                    <code>{activity.targetEntityId || '—'}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Listing>
      <div class="pager">
        <button type="button" disabled={pages.length === 1} onClick={() => setPages(pages.slice(0, -1))}>
          Previous page
        </button>
        <button type="button" disabled={!page.value?.pageToken} onClick={() => setPages([...pages, page.value!.pageToken!])}>
          Next page
        </button>
      </div>
    </Section>
  );
}
