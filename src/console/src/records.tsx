import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ConfirmButton, Notice, Screen, useAction, type Loaded } from './ui';

/** The link from a record's screen back to the list it is on ("All users"). */
export interface ListLink {
  href: string;
  text: string;
}

function BackLink({ to }: { to: ListLink }) {
  return (
    <p>
      <a href={to.href}>{to.text}</a>
    </p>
  );
}

/** After a creation: the link that opens the new record, after what else there is to say of it. */
export function OpenCreated({ href, name, children }: { href: string; name: string; children?: ComponentChildren }) {
  return (
    <p>
      {children}
      <a href={href}>Open {name}</a>
    </p>
  );
}

/** A record's screen: its title, the way back to its list, the load's refusal, then the record. */
export function RecordScreen<T>({
  title,
  back,
  record,
  error,
  children,
}: {
  title: string;
  back: ListLink;
  record: Loaded<T>;
  /** The refusal of another load the screen needs. */
  error?: unknown;
  children: (data: T) => ComponentChildren;
}) {
  return (
    <Screen title={title}>
      <BackLink to={back} />
      <Notice error={record.error ?? error} />
      {record.data && children(record.data)}
    </Screen>
  );
}

/**
 * A record's Delete section: the deletion is asked twice, then only the way back to the list
 * is offered, since the record's own screen has nothing left to act on.
 */
export function DeleteSection({
  titleId,
  thing,
  question,
  deleted: outcome,
  remove,
  back,
}: {
  titleId: string;
  /** What is deleted, as the buttons name it ("identity provider"). */
  thing: string;
  question: string;
  /** What the outcome says. */
  deleted: string;
  remove: () => Promise<unknown>;
  /** The list the record was on. */
  back: ListLink;
}) {
  const action = useAction();
  const [deleted, setDeleted] = useState(false);
  return (
    <section aria-labelledby={titleId}>
      <h2 id={titleId}>Delete</h2>
      {deleted ? (
        <BackLink to={back} />
      ) : (
        <ConfirmButton
          label={`Delete ${thing}`}
          question={question}
          action={`Delete the ${thing}`}
          disabled={action.busy}
          onConfirm={() => void action.run(remove, outcome).then((ok) => ok && setDeleted(true))}
        />
      )}
      <Notice error={action.error} done={action.done} />
    </section>
  );
}
