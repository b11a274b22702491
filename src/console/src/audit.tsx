import { useState } from 'preact/hooks';
import { ApiError, api, query, type AuditEvent, type Page, type User } from './api';
import { Pager, Table } from './lists';
import { Field, Notice, Screen, useLoad, when } from './ui';

const PAGE_SIZE = 25;

interface Filters {
  type: string;
  actor_id: string;
  target_id: string;
  from: string;
  to: string;
}

const NO_FILTERS: Filters = { type: '', actor_id: '', target_id: '', from: '', to: '' };

/** An actor typed as an email becomes the account's id (through the users list, `users.view`). */
async function userIdOf(actor: string): Promise<string> {
  if (!actor.includes('@')) return actor;
  const found = await api<Page<User>>('GET', `/admin/users${query({ search: actor, limit: 100 })}`);
  const match = found.items.find((user) => user.email.toLowerCase() === actor.toLowerCase());
  if (!match) throw new ApiError(404, 'NOT_FOUND', `No account has the email ${actor}.`);
  return match.id;
}

/** A `datetime-local` value (the browser's time zone) as an ISO instant. */
const instant = (local: string): string | undefined => (local ? new Date(local).toISOString() : undefined);

export function AuditScreen() {
  const [draft, setDraft] = useState(NO_FILTERS);
  const [filters, setFilters] = useState(NO_FILTERS);
  const [page, setPage] = useState(1);
  const events = useLoad(
    async () =>
      api<Page<AuditEvent>>(
        'GET',
        `/admin/audit-events${query({
          page,
          limit: PAGE_SIZE,
          type: filters.type.trim(),
          actor_id: await userIdOf(filters.actor_id.trim()),
          target_id: filters.target_id.trim(),
          from: instant(filters.from),
          to: instant(filters.to),
        })}`,
      ),
    [page, filters],
  );
  const field = (name: keyof Filters, label: string, time = false) => (
    <Field
      id={`audit-${name}`}
      label={label}
      type={time ? 'datetime-local' : 'text'}
      value={draft[name]}
      onValue={(value) => setDraft({ ...draft, [name]: value })}
    />
  );
  return (
    <Screen title="Audit events">
      <form
        class="filters grid"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          setPage(1);
          setFilters(draft);
        }}
      >
        {field('type', 'Type')}
        {field('actor_id', 'Actor (email or user id)')}
        {field('target_id', 'Target (id)')}
        {field('from', 'From', true)}
        {field('to', 'To', true)}
        <div class="field actions">
          <button type="submit">Filter</button>
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setDraft(NO_FILTERS);
              setFilters(NO_FILTERS);
              setPage(1);
            }}
          >
            Clear
          </button>
        </div>
      </form>
      <Notice error={events.error} />
      {events.data && (
        <>
          <Table caption="Audit events" columns={['When', 'Type', 'Actor', 'Target', 'Address', 'Details']}>
            {events.data.items.map((event) => (
              <tr key={event.id}>
                <td>{when(event.created_at)}</td>
                <td>
                  <code>{event.type}</code>
                </td>
                <td>{person(event.actor_id, event.actor_email, 'user')}</td>
                <td>
                  {event.target_type && event.target_type !== 'user' ? `${event.target_type} ` : ''}
                  {person(event.target_id, event.target_email, event.target_type)}
                </td>
                <td>{event.ip ?? '—'}</td>
                <td class="clip">
                  <code>{Object.keys(event.details ?? {}).length > 0 ? JSON.stringify(event.details) : ''}</code>
                </td>
              </tr>
            ))}
          </Table>
          <Pager label="Audit events" page={page} limit={PAGE_SIZE} total={events.data.total} onPage={setPage} />
        </>
      )}
    </Screen>
  );
}

/**
 * A person by their email, linked to their record; an account deleted since keeps only its id
 * (the audit trail's rule), shown whole; another kind of target by its id.
 */
function person(id: string | null, email: string | null | undefined, type: string | null) {
  if (!id) return '—';
  if (type !== 'user') return <code>{id}</code>;
  if (email) return <a href={`#/users/${id}`}>{email}</a>;
  return (
    <span>
      deleted account <code>{id}</code>
    </span>
  );
}
