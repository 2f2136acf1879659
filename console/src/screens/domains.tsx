import { useState } from 'preact/hooks';
import { call } from '../api';
import { Button, Done, Failure, Field, Listing, Section, useAction, useLoad } from '../components/ui';
import type { ScreenProps } from '../session';

/** The key's allowed domains: where its front ends may run. */
export function Domains({ apiKey }: ScreenProps) {
  const scope = { apiKey };
  const domains = useLoad(() => call<{ allowedDomains: string[] }>('/v2/workspace/domains/get', {}, scope).then((a) => a.data.allowedDomains), [apiKey]);
  const [domain, setDomain] = useState('');
  const add = useAction(async () => {
    const answer = await call<{ domainsAdded: string[] }>('/v2/workspace/domains/add', { domains: [domain.trim()] }, scope);
    setDomain('');
    domains.reload();
    return answer.message;
  });
  const remove = useAction(async (name: string) => {
    const answer = await call('/v2/workspace/domains/delete', { domains: [name] }, scope);
    domains.reload();
    return answer.message;
  });
  return (
    <Section title="Allowed domains">
      <Listing loaded={domains} what="domains" empty="No domains yet: front ends may not use this key from any site.">
        {(items) => (
          <ul class="rows">
            {items.map((name) => (
              <li>
                <code>{name}</code>
                <Button type="button" class="quiet" busy={remove.busy} onClick={() => remove.run(name)} aria-label={`Remove ${name}`}>
                  Remove
                </Button>
              </li>
            ))}
          </ul>
        )}
      </Listing>
      <form
        class="inline"
        onSubmit={(event) => {
          event.preventDefault();
          void add.run();
        }}
      >
        <Field label="Domain" value={domain} onInput={setDomain} placeholder="app.example.com" required />
        <Button type="submit" busy={add.busy}>
          Add domain
        </Button>
      </form>
      <Failure error={add.error ?? remove.error} />
      <Done message={add.done ?? remove.done} />
    </Section>
  );
}
