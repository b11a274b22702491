import type { ComponentChildren, InputHTMLAttributes, PartialInputHTMLAttributes } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api';

/** The API's own message for a refusal; anything else as a plain sentence. */
export const messageOf = (error: unknown): string =>
  error instanceof ApiError ? error.message : error instanceof Error ? error.message : String(error);

/** A refusal or an outcome, announced to screen readers. */
export function Notice({ error, done }: { error?: unknown; done?: string | null }) {
  if (error) {
    return (
      <p class="notice error" role="alert">
        {messageOf(error)}
      </p>
    );
  }
  if (done) {
    return (
      <p class="notice done" role="status">
        {done}
      </p>
    );
  }
  return null;
}

export interface Loaded<T> {
  data: T | null;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/** Loads `load()` now and again whenever `deps` change or `reload()` is called. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; error: unknown; loading: boolean }>({
    data: null,
    error: null,
    loading: true,
  });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => live && setState({ data, error: null, loading: false }),
      (error: unknown) => live && setState({ data: null, error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { ...state, reload: useCallback(() => setTick((value) => value + 1), []) };
}

/** Runs one action at a time, keeping its refusal or outcome for display. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  const run = useCallback(async (action: () => Promise<unknown>, success?: string): Promise<boolean> => {
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      await action();
      setDone(success ?? null);
      return true;
    } catch (caught) {
      setError(caught);
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, done, run };
}

/**
 * Creates a record, one request at a time, keeping the API's answer (for a link to the record)
 * until the next attempt; `then` runs once the record is made.
 */
export function useCreation<T>() {
  const action = useAction();
  const [created, setCreated] = useState<T | null>(null);
  const create = (request: () => Promise<T>, success: string, then: () => void) => {
    setCreated(null);
    void action.run(async () => setCreated(await request()), success).then((ok) => ok && then());
  };
  return { ...action, created, create };
}

/** A screen's heading, focused when the screen opens so keyboard and screen-reader users land on it. */
export function Screen({ title, children }: { title: string; children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
    document.title = `${title} · Admin console`;
  }, [title]);
  return (
    <section class="screen" aria-labelledby="screen-title">
      <h1 id="screen-title" tabIndex={-1} ref={heading}>
        {title}
      </h1>
      {children}
    </section>
  );
}

export const when = (value: string | null | undefined): string => (value ? new Date(value).toLocaleString() : '—');

/**
 * A destructive action asked twice: the first button opens an inline question (an alertdialog,
 * focused on its action) and nothing happens until its action button is pressed.
 */
export function ConfirmButton({
  label,
  name,
  question,
  action,
  disabled,
  onConfirm,
  class: className = 'danger',
}: {
  /** The visible text of the first button. */
  label: string;
  /** The first button's accessible name when the visible text alone is ambiguous ("Remove role user"). */
  name?: string;
  question: string;
  /** The confirming button's text: the action itself ("Remove the role"). */
  action: string;
  disabled?: boolean;
  onConfirm: () => void;
  class?: string;
}) {
  const [asking, setAsking] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const openerRef = useRef<HTMLButtonElement>(null);
  const id = useRef(`confirm-${Math.random().toString(36).slice(2)}`).current;
  useEffect(() => {
    if (asking) confirmRef.current?.focus();
  }, [asking]);
  const close = () => {
    setAsking(false);
    setTimeout(() => openerRef.current?.focus());
  };
  return (
    <>
      <button
        type="button"
        class={className}
        ref={openerRef}
        aria-label={name}
        aria-expanded={asking}
        disabled={disabled || asking}
        onClick={() => setAsking(true)}
      >
        {label}
      </button>
      {asking && (
        <span class="confirm" role="alertdialog" aria-labelledby={id}>
          <span id={id}>{question}</span>{' '}
          <button
            type="button"
            class="danger"
            ref={confirmRef}
            onClick={() => {
              setAsking(false);
              onConfirm();
            }}
          >
            {action}
          </button>{' '}
          <button type="button" class="secondary" onClick={close}>
            Cancel
          </button>
        </span>
      )}
    </>
  );
}

type BoundInputProps = {
  id: string;
  label: ComponentChildren;
  value: string;
  /** The input's new text, on every keystroke. */
  onValue: (value: string) => void;
} & Omit<PartialInputHTMLAttributes<HTMLInputElement>, 'id' | 'value' | 'onInput'>;

/** A text input and the label that names it, bound to a piece of state. */
export function LabelledInput({ id, label, value, onValue, ...input }: BoundInputProps) {
  return (
    <>
      <label for={id}>{label}</label>
      <input
        {...(input as InputHTMLAttributes<HTMLInputElement>)}
        id={id}
        value={value}
        onInput={(event) => onValue(event.currentTarget.value)}
      />
    </>
  );
}

/** A labelled input as one cell of a grid form. */
export function Field(props: BoundInputProps) {
  return (
    <div class="field">
      <LabelledInput {...props} />
    </div>
  );
}

/** A grid form's submit button, in a cell of its own. */
export function SubmitField({
  busy,
  class: className,
  children,
}: {
  busy: boolean;
  class?: string;
  children: ComponentChildren;
}) {
  return (
    <div class="field actions">
      <button type="submit" class={className} disabled={busy}>
        {children}
      </button>
    </div>
  );
}

/** A form's submit button and, beside it, the button that leaves the form unsaved. */
export function SubmitOrCancel({
  busy,
  onCancel,
  children,
}: {
  busy: boolean;
  onCancel: () => void;
  children: ComponentChildren;
}) {
  return (
    <>
      <button type="submit" disabled={busy}>
        {children}
      </button>{' '}
      <button type="button" class="secondary" onClick={onCancel}>
        Cancel
      </button>
    </>
  );
}
