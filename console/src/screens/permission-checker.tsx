import { useState } from 'preact/hooks';
import { call } from '../api';
import { Button, Failure, Field, Section, useAction } from '../components/ui';
import { when } from '../time';

interface Explained {
  accessRole?: string;
  accessType?: string;
  expiresAt?: number;
  error?: string;
  grantedBy: { kind: string; resourceId?: string; grant?: { accessRole: string; expiresAt: number | null; temporary: boolean } };
}

/** Why, in words, for each rule `permissions/explain` names. */
function reason({ kind, resourceId, grant }: Explained['grantedBy']): string {
  const temporary = grant?.temporary ? ` (temporary, until ${when(grant.expiresAt)})` : '';
  switch (kind) {
    case 'organizationDisabled':
      return `Access to the organization ${resourceId} is disabled.`;
    case 'documentDisabled':
      return `Access to the document ${resourceId} is disabled.`;
    case 'documentGrant':
      return `A grant on the document itself: ${grant?.accessRole}${temporary}.`;
    case 'folderGrant':
      return `A grant on the folder ${resourceId}, the nearest above holding one: ${grant?.accessRole}${temporary}.`;
    case 'publicAccess':
      return grant ? `The document is public; the user's organization role (${grant.accessRole}) applies.` : 'The document is public: everyone may edit it.';
    case 'organizationRole':
      return `The document is private to its organization, and the user belongs to it as ${grant?.accessRole}${temporary}.`;
    default:
      return 'No grant reaches this user, and the access type lets nobody else in.';
  }
}

/** "May this user see this document, and through which grant?" (`auth/permissions/explain`). */
export function PermissionChecker({ organizationId, apiKey }: { organizationId: string; apiKey: string }) {
  const [userId, setUserId] = useState('');
  const [documentId, setDocumentId] = useState('');
  const [answer, setAnswer] = useState<Explained | undefined>(undefined);
  const check = useAction(async () => {
    setAnswer(undefined);
    const result = await call<Explained>('/v2/auth/permissions/explain', { organizationId, documentId, userId }, { apiKey });
    setAnswer(result.data);
  });
  return (
    <Section title="Permission checker">
      <form
        class="inline"
        onSubmit={(event) => {
          event.preventDefault();
          void check.run();
        }}
      >
        <Field label="User id" required value={userId} onInput={setUserId} />
        <Field label="Document id" required value={documentId} onInput={setDocumentId} />
        <Button type="submit" busy={check.busy}>
          Check access
        </Button>
      </form>
      <Failure error={check.error} />
      {answer && (
        <div class="verdict" role="status">
          <p>
            <strong>{answer.accessRole ? `Yes: ${answer.accessRole}` : 'No access'}</strong> ({answer.accessType} document
            {answer.expiresAt ? `, until ${when(answer.expiresAt)}` : ''})
          </p>
          <p>{reason(answer.grantedBy)}</p>
        </div>
      )}
    </Section>
  );
}
