import type { ButtonHTMLAttributes, ComponentChildren, PartialInputHTMLAttributes } from 'preact';
import { useCallback, useEffect, useId, useState } from 'preact/hooks';
import { describe } from '../api';

/** What a screen loaded: the value, or the failure, while `loading` says a load is running. */
export interface Loaded<T> {
  value: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/** Loads on mount and whenever `deps` change; `reload` loads again (after an action). */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ value?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (value) => current && setState({ value, loading: false }),
      (error: unknown) => current && setState({ error, loading: false }),
    );
    return () => {
      current = false;
    };
  }, [...deps, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { value: state.value, error: state.error, loading: state.loading, reload };
}

/**
 * Runs an action (a button's), tracking that it runs and how it ended, so every action shows
 * progress and its outcome the same way.
 */
export function useAction<A extends unknown[]>(action: (...args: A) => Promise<string | void>) {
  const [state, setState] = useState<{ busy: boolean; error?: unknown; done?: string }>({ busy: false });
  const run = async (...args: A) => {
    setState({ busy: true });
    try {
      const done = await action(...args);
      setState({ busy: false, done: done || undefined });
    } catch (error) {
      setState({ busy: false, error });
    }
  };
  return { ...state, run };
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

export function Failure({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p class="failure" role="alert">
      {describe(error)}
    </p>
  );
}

export function Done({ message }: { message?: string }) {
  if (!message) return null;
  return (
    <p class="done" role="status">
      {message}
    </p>
  );
}

/** A list that is loading, failed, empty or filled, each said in its own way. */
export function Listing<T>({
  loaded,
  what,
  empty,
  children,
}: {
  loaded: Loaded<T[]>;
  what: string;
  empty: string;
  children: (items: T[]) => ComponentChildren;
}) {
  if (loaded.error) return <Failure error={loaded.error} />;
  if (loaded.value === undefined) return <Loading what={what} />;
  if (loaded.value.length === 0) return <Empty>{empty}</Empty>;
  return <>{children(loaded.value)}</>;
}

type InputProps = Omit<PartialInputHTMLAttributes<HTMLInputElement>, 'label' | 'onInput' | 'value'> & {
  label: string;
  hint?: string;
  value: string;
  onInput: (value: string) => void;
};

/** A labelled input (the label names it for screen readers), with an optional hint. */
export function Field({ label, hint, value, onInput, ...rest }: InputProps) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        value={value}
        onInput={(event) => onInput(event.currentTarget.value)}
        aria-describedby={hint ? `${id}-hint` : undefined}
        {...(rest as Record<string, unknown>)}
      />
      {hint && (
        <small id={`${id}-hint`} class="hint">
          {hint}
        </small>
      )}
    </div>
  );
}

export function Check({ label, checked, onChange }: { label: string; checked: boolean; onChange: (checked: boolean) => void }) {
  const id = useId();
  return (
    <div class="check">
      <input id={id} type="checkbox" checked={checked} onChange={(event) => onChange(event.currentTarget.checked)} />
      <label for={id}>{label}</label>
    </div>
  );
}

/** A labelled select; an option is its value, or a value with the text shown for it. */
export function Choice({
  label,
  value,
  options,
  onChange,
}: {
  label: string;
  value: string;
  options: (string | { value: string; text: string })[];
  onChange: (value: string) => void;
}) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(event) => onChange(event.currentTarget.value)}>
        {options.map((option) => (typeof option === 'string' ? <option value={option}>{option}</option> : <option value={option.value}>{option.text}</option>))}
      </select>
    </div>
  );
}

/** A button that says when its action runs (disabled meanwhile, `aria-busy`). */
export function Button({ busy, children, ...rest }: ButtonHTMLAttributes & { busy?: boolean }) {
  return (
    <button {...rest} disabled={busy || rest.disabled} aria-busy={busy ? 'true' : undefined}>
      {busy ? <span class="spinner" aria-hidden="true" /> : null}
      {children}
    </button>
  );
}

export function Section({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section class="card" aria-label={title}>
      <header class="card-head">
        <h2>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  );
}

/** A secret shown once (a new auth token, a signing secret), with a copy button. */
export function Secret({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="secret" role="group" aria-label={label}>
      <span>{label}</span>
      <code>{value}</code>
      <button
        type="button"
        onClick={() =>
          navigator.clipboard?.writeText(value).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        {copied ? 'Copied' : 'Copy'}
      </button>
    </div>
  );
}
