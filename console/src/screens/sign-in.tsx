import { useState } from 'preact/hooks';
import { call } from '../api';
import { Button, Done, Failure, Field, useAction } from '../components/ui';

/** Sign-in with a login link: the mail's link opens the console, which turns it into a session. */
export function SignIn({ error }: { error: unknown }) {
  const [email, setEmail] = useState('');
  const send = useAction(async () => {
    await call('/v2/workspace/email/send-login-link', { email, continueUrl: `${location.origin}/console` });
    return `If ${email} owns a workspace, a sign-in link is on its way. It works once, for 15 minutes.`;
  });
  return (
    <main id="main" class="sign-in">
      <h1>Sign in to the console</h1>
      <p>Enter the e-mail address that owns your workspaces. We mail you a link that signs you in.</p>
      <Failure error={error} />
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void send.run();
        }}
      >
        <Field label="E-mail address" type="email" autoComplete="email" required value={email} onInput={setEmail} />
        <Button type="submit" busy={send.busy}>
          Mail me a sign-in link
        </Button>
      </form>
      <Failure error={send.error} />
      <Done message={send.done} />
    </main>
  );
}
