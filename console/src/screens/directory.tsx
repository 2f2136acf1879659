import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { call, type Answer } from '../api';
import { Listing, Section, useLoad } from '../components/ui';
import type { ScreenProps } from '../session';
import { when } from '../time';
import { PermissionChecker } from './permission-checker';

interface Organization {
  id: string;
  organizationName: string;
  disabled: boolean;
  createdAt: number;
}

interface Folder {
  folderId: string;
  folderName: string;
  accessType: string;
  subFolders?: Folder[];
}

interface DocumentEntry {
  id: string;
  documentName: string;
  accessType: string;
  disabled: boolean;
  folderId?: string;
}

interface User {
  userId: string;
  name: string | null;
  email: string | null;
}

/**
 * A list read page by page, with the page-token field its operation answers
 * (`nextPageToken` or `pageToken`).
 */
function usePaged<T>(load: (pageToken: string) => Promise<Answer<T[]>>, deps: unknown[]) {
  const [tokens, setTokens] = useState<string[]>(['']);
  const current = tokens[tokens.length - 1]!;
  const page = useLoad(() => load(current), [...deps, current]);
  const next = page.value?.nextPageToken ?? page.value?.pageToken;
  return {
    items: { ...page, value: page.value?.data },
    pager: (
      <div class="pager">
        <button type="button" disabled={tokens.length === 1} onClick={() => setTokens(tokens.slice(0, -1))}>
          Previous page
        </button>
        <button type="button" disabled={!next} onClick={() => setTokens([...tokens, next!])}>
          Next page
        </button>
      </div>
    ),
  };
}

/** A read-only view of the key's organizations, folders, documents and users, with a permission checker. */
export function Directory({ apiKey, arg, link }: ScreenProps) {
  const scope = { apiKey };
  const organizations = usePaged<Organization>(
    (pageToken) => call('/v2/organizations/get', { pageSize: 50, ...(pageToken ? { pageToken } : {}) }, scope),
    [apiKey],
  );
  return (
    <>
      <Section title="Organizations">
        <Listing loaded={organizations.items} what="organizations" empty="No organizations yet.">
          {(items) => (
            <ul class="rows">
              {items.map((organization) => (
                <li>
                  <a href={link('directory', organization.id)} aria-current={organization.id === arg ? 'true' : undefined}>
                    {organization.organizationName || organization.id}
                  </a>
                  <code>{organization.id}</code>
                  {organization.disabled && <span class="badge bad">disabled</span>}
                  <span class="muted">created {when(organization.createdAt)}</span>
                </li>
              ))}
            </ul>
          )}
        </Listing>
        {organizations.pager}
      </Section>
      {arg && <Organization organizationId={arg} apiKey={apiKey} />}
    </>
  );
}

function Organization({ organizationId, apiKey }: { organizationId: string; apiKey: string }) {
  const scope = { apiKey };
  const folders = useLoad(() => call<Folder[]>('/v2/organizations/folders/get', { organizationId, maxDepth: 5 }, scope).then((a) => a.data), [organizationId]);
  const documents = usePaged<DocumentEntry>(
    (pageToken) => call('/v2/organizations/documents/get', { organizationId, pageSize: 50, ...(pageToken ? { pageToken } : {}) }, scope),
    [organizationId],
  );
  const users = usePaged<User>(
    (pageToken) => call('/v2/users/get', { organizationId, pageSize: 50, ...(pageToken ? { pageToken } : {}) }, scope),
    [organizationId],
  );
  return (
    <>
      <Section title={`Folders of ${organizationId}`}>
        <Listing loaded={folders} what="folders" empty="No folders.">
          {(items) => <FolderTree folders={items} />}
        </Listing>
      </Section>
      <Section title="Documents">
        <Listing loaded={documents.items} what="documents" empty="No documents.">
          {(items) => (
            <table>
              <thead>
                <tr>
                  <th scope="col">Document</th>
                  <th scope="col">Id</th>
                  <th scope="col">Folder</th>
                  <th scope="col">Access</th>
                </tr>
              </thead>
              <tbody>
                {items.map((document) => (
                  <tr>
                    <td>{document.documentName || '—'}</td>
                    <td>
                      <code>{document.id}</code>
                    </td>
                    <td>
                      <code>{document.folderId || '—'}</code>
                    </td>
                    <td>
                      {document.accessType}
                      {document.disabled ? ' (disabled)' : ''}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </Listing>
        {documents.pager}
      </Section>
      <Section title="Users">
        <Listing loaded={users.items} what="users" empty="No users.">
          {(items) => (
            <ul class="rows">
              {items.map((user) => (
                <li>
                  <span>{user.name || '—'}</span>
                  <code>{user.userId}</code>
                  <span class="muted">{user.email || ''}</span>
                </li>
              ))}
            </ul>
          )}
        </Listing>
        {users.pager}
      </Section>
      <PermissionChecker organizationId={organizationId} apiKey={apiKey} />
    </>
  );
}

function FolderTree({ folders }: { folders: Folder[] }): ComponentChildren {
  return (
    <ul class="tree">
      {folders.map((folder) => (
        <li>
          <span>{folder.folderName || folder.folderId}</span> <code>{folder.folderId}</code> <span class="muted">{folder.accessType}</span>
          {folder.subFolders?.length ? <FolderTree folders={folder.subFolders} /> : null}
        </li>
      ))}
    </ul>
  );
}
