import { useState } from 'preact/hooks';
import { api, listRoles, offeredOperations, type Role, type RoleRef, type Session, type User } from './api';
import { useAdmin } from './admin';
import { ActionsHeading, Pager, SearchForm, Table, useSearchedPage } from './lists';
import { DeleteSection, OpenCreated, RecordScreen, type ListLink } from './records';
import { ConfirmButton, Field, Notice, Screen, SubmitField, useAction, useCreation, useLoad, when } from './ui';

const PAGE_SIZE = 20;

const ALL_USERS: ListLink = { href: '#/users', text: 'All users' };

export function UsersScreen() {
  const admin = useAdmin();
  const { list: users, page, setPage, searchFor } = useSearchedPage<User>('/admin/users', PAGE_SIZE);
  return (
    <Screen title="Users">
      <SearchForm id="user-search" label="Search by name, email or mobile" onSearch={searchFor} />
      <Notice error={users.error} />
      {users.data && (
        <>
          <Table caption="Users" columns={['Name', 'Email', 'Mobile', 'Roles', 'Created']}>
            {users.data.items.map((user) => (
              <tr key={user.id}>
                <td>
                  <a href={`#/users/${user.id}`}>{user.name}</a>
                  {user.disabled_at ? <span class="badge">disabled</span> : null}
                </td>
                <td>{user.email}</td>
                <td>{user.mobile ?? '—'}</td>
                <td>{(user.roles ?? []).map((role) => role.name).join(', ') || '—'}</td>
                <td>{when(user.created_at)}</td>
              </tr>
            ))}
          </Table>
          <Pager label="Users" page={page} limit={PAGE_SIZE} total={users.data.total} onPage={setPage} />
        </>
      )}
      {admin.can('users.create') && <CreateUser onCreated={users.reload} />}
    </Screen>
  );
}

function CreateUser({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [mobile, setMobile] = useState('');
  const [password, setPassword] = useState('');
  const action = useCreation<User>();
  const submit = (event: Event) => {
    event.preventDefault();
    action.create(
      () =>
        api<User>('POST', '/admin/users', {
          name: name.trim(),
          email: email.trim(),
          password,
          ...(mobile.trim() ? { mobile: mobile.trim() } : {}),
        }),
      `User ${name.trim()} created.`,
      () => {
        setName('');
        setEmail('');
        setMobile('');
        setPassword('');
        onCreated();
      },
    );
  };
  return (
    <section aria-labelledby="create-user-title">
      <h2 id="create-user-title">New user</h2>
      <form class="filters grid" onSubmit={submit}>
        <Field id="new-user-name" label="Name" required value={name} onValue={setName} />
        <Field
          id="new-user-email"
          label="Email"
          type="email"
          required
          autoComplete="off"
          value={email}
          onValue={setEmail}
        />
        <Field
          id="new-user-mobile"
          label="Mobile (optional)"
          type="tel"
          autoComplete="off"
          value={mobile}
          onValue={setMobile}
        />
        <Field
          id="new-user-password"
          label="Password"
          type="password"
          required
          autoComplete="new-password"
          value={password}
          onValue={setPassword}
        />
        <SubmitField busy={action.busy}>Create user</SubmitField>
      </form>
      <Notice error={action.error} done={action.done} />
      {action.created && <OpenCreated href={`#/users/${action.created.id}`} name={action.created.name} />}
    </section>
  );
}

export function UserScreen({ id }: { id: string }) {
  const admin = useAdmin();
  const record = useLoad(() => api<User>('GET', `/admin/users/${id}`), [id]);
  const mayEdit = admin.can('users.edit');
  return (
    <RecordScreen title={record.data ? record.data.name : 'User'} back={ALL_USERS} record={record}>
      {(user) => (
        <>
          <dl class="record">
            <dt>Email</dt>
            <dd>
              {user.email}
              {user.email_verified === false ? <span class="badge">not verified</span> : null}
              {user.email_verified === true ? <span class="badge ok">verified</span> : null}
            </dd>
            <dt>Mobile</dt>
            <dd>{user.mobile ?? '—'}</dd>
            <dt>Created</dt>
            <dd>{when(user.created_at)}</dd>
            <dt>Id</dt>
            <dd>
              <code>{user.id}</code>
            </dd>
            {'disabled_at' in user && (
              <>
                <dt>State</dt>
                <dd>
                  {user.disabled_at
                    ? `Disabled since ${when(user.disabled_at)}${user.disabled_until ? ` until ${when(user.disabled_until)}` : ''}`
                    : 'Active'}
                </dd>
              </>
            )}
          </dl>
          {mayEdit && <EditUser user={user} reload={record.reload} />}
          {mayEdit && <Lifecycle user={user} reload={record.reload} />}
          <UserRoles user={user} reload={record.reload} />
          {mayEdit && <SecondFactor user={user} />}
          {mayEdit && <UserSessions userId={id} />}
          {admin.can('users.delete') && (
            <DeleteSection
              titleId="delete-user-title"
              thing="user"
              question={`Delete ${user.name} (${user.email}) for good?`}
              deleted={`User ${user.email} deleted.`}
              remove={() => api('DELETE', `/admin/users/${user.id}`)}
              back={ALL_USERS}
            />
          )}
        </>
      )}
    </RecordScreen>
  );
}

/**
 * Disable and enable, when the API offers them: the record carries `disabled_at`, or the OpenAPI
 * document lists the operation; when the document is not served, the buttons are offered and the
 * API's answer shown.
 */
function Lifecycle({ user, reload }: { user: User; reload: () => void }) {
  const action = useAction();
  const [reason, setReason] = useState('');
  const [untilLocal, setUntilLocal] = useState('');
  const known = 'disabled_at' in user;
  const listed = useLoad(
    () =>
      known
        ? Promise.resolve(true)
        : offeredOperations().then((operations) => operations?.has('POST /api/admin/users/{id}/disable') ?? true),
    [known],
  );
  if (!listed.data) return null;
  const disabled = Boolean(user.disabled_at);
  const disable = (event: Event) => {
    event.preventDefault();
    const until = untilLocal ? new Date(untilLocal).toISOString() : undefined;
    void action
      .run(
        () =>
          api('POST', `/admin/users/${user.id}/disable`, {
            ...(reason.trim() ? { reason: reason.trim() } : {}),
            ...(until ? { until } : {}),
          }),
        'User disabled.',
      )
      .then((ok) => ok && reload());
  };
  const enable = () =>
    void action
      .run(() => api('POST', `/admin/users/${user.id}/enable`, {}), 'User enabled.')
      .then((ok) => ok && reload());
  return (
    <section aria-labelledby="lifecycle-title">
      <h2 id="lifecycle-title">Access</h2>
      {disabled ? (
        <button type="button" disabled={action.busy} onClick={enable}>
          Enable user
        </button>
      ) : (
        <form class="filters grid" onSubmit={disable}>
          <Field id="disable-reason" label="Reason (optional)" type="text" value={reason} onValue={setReason} />
          <Field
            id="disable-until"
            label="Until (optional)"
            type="datetime-local"
            value={untilLocal}
            onValue={setUntilLocal}
          />
          <SubmitField busy={action.busy} class="danger">
            Disable user
          </SubmitField>
        </form>
      )}
      <Notice error={action.error} done={action.done} />
    </section>
  );
}

function UserRoles({ user, reload }: { user: User; reload: () => void }) {
  const admin = useAdmin();
  const mayEdit = admin.can('users.edit');
  const roles = useLoad(
    () => (mayEdit && admin.can('roles.view') ? listRoles() : Promise.resolve([] as Role[])),
    [mayEdit],
  );
  const [chosen, setChosen] = useState('');
  const action = useAction();
  const held = user.roles ?? [];
  const displayNameOf = (held: RoleRef) =>
    held.display_name ?? (roles.data ?? []).find((role) => role.id === held.id)?.display_name;
  const available = (roles.data ?? []).filter((role) => !held.some((has) => has.id === role.id));

  const add = (event: Event) => {
    event.preventDefault();
    if (!chosen) return;
    void action
      .run(() => api('POST', `/admin/users/${user.id}/roles`, { role_ids: [chosen] }), 'Role given.')
      .then((ok) => ok && (setChosen(''), reload()));
  };
  const remove = (roleId: string) =>
    void action
      .run(() => api('DELETE', `/admin/users/${user.id}/roles/${roleId}`), 'Role removed.')
      .then((ok) => ok && reload());

  return (
    <section aria-labelledby="roles-title">
      <h2 id="roles-title">Roles</h2>
      {held.length === 0 ? (
        <p>No role.</p>
      ) : (
        <ul class="chips">
          {held.map((role) => (
            <li key={role.id}>
              {displayNameOf(role) ? (
                <>
                  {displayNameOf(role)} <code>{role.name}</code>
                </>
              ) : (
                role.name
              )}
              {mayEdit && (
                <ConfirmButton
                  class="link"
                  label="Remove"
                  name={`Remove role ${role.name}`}
                  question={`Remove the role ${role.name} from ${user.name}?`}
                  action="Remove the role"
                  disabled={action.busy}
                  onConfirm={() => remove(role.id)}
                />
              )}
            </li>
          ))}
        </ul>
      )}
      {mayEdit && available.length > 0 && (
        <form class="inline-form" onSubmit={add}>
          <label for="add-role">Give a role</label>
          <select id="add-role" value={chosen} onChange={(event) => setChosen(event.currentTarget.value)}>
            <option value="">Choose a role</option>
            {available.map((role) => (
              <option key={role.id} value={role.id}>
                {role.display_name || role.name}
              </option>
            ))}
          </select>
          <button type="submit" disabled={action.busy || !chosen}>
            Give role
          </button>
        </form>
      )}
      <Notice error={action.error ?? roles.error} done={action.done} />
    </section>
  );
}

function UserSessions({ userId }: { userId: string }) {
  const sessions = useLoad(
    () => api<{ items: Session[]; total: number }>('GET', `/admin/users/${userId}/sessions`),
    [userId],
  );
  const action = useAction();
  const revoke = (sessionId?: string) =>
    void action
      .run(
        () => api('DELETE', `/admin/users/${userId}/sessions${sessionId ? `/${sessionId}` : ''}`),
        sessionId ? 'Session revoked.' : 'Every session revoked.',
      )
      .then((ok) => ok && sessions.reload());
  const items = sessions.data?.items ?? [];
  return (
    <section aria-labelledby="sessions-title">
      <h2 id="sessions-title">Sessions</h2>
      <Notice error={action.error ?? sessions.error} done={action.done} />
      {sessions.data && items.length === 0 && <p>No open session.</p>}
      {items.length > 0 && (
        <>
          <Table columns={['Started', 'Last used', 'Address', 'Browser', <ActionsHeading />]}>
            {items.map((session) => (
              <tr key={session.id}>
                <td>
                  {when(session.created_at)}
                  {session.current ? <span class="badge">this session</span> : null}
                </td>
                <td>{when(session.last_used_at)}</td>
                <td>{session.ip ?? '—'}</td>
                <td class="clip">{session.user_agent ?? '—'}</td>
                <td>
                  <button
                    type="button"
                    class="danger"
                    disabled={action.busy}
                    aria-label={`Revoke the session started ${when(session.created_at)}`}
                    onClick={() => revoke(session.id)}
                  >
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </Table>
          <button type="button" class="danger" disabled={action.busy} onClick={() => revoke()}>
            Revoke every session
          </button>
        </>
      )}
    </section>
  );
}

/** Name, email, mobile and a new password; the API revokes the user's sessions on a change of the last three. */
function EditUser({ user, reload }: { user: User; reload: () => void }) {
  const [name, setName] = useState(user.name);
  const [email, setEmail] = useState(user.email);
  const [mobile, setMobile] = useState(user.mobile ?? '');
  const [password, setPassword] = useState('');
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    const change: Record<string, string | null> = {};
    if (name.trim() !== user.name) change.name = name.trim();
    if (email.trim() !== user.email) change.email = email.trim();
    if (mobile.trim() !== (user.mobile ?? '')) change.mobile = mobile.trim() || null;
    if (password) change.password = password;
    void action
      .run(() => api('PUT', `/admin/users/${user.id}`, change), 'User saved.')
      .then((ok) => ok && (setPassword(''), reload()));
  };
  return (
    <section aria-labelledby="edit-user-title">
      <h2 id="edit-user-title">Details</h2>
      <form class="filters grid" onSubmit={submit}>
        <Field id="edit-user-name" label="Name" required value={name} onValue={setName} />
        <Field id="edit-user-email" label="Email" type="email" required value={email} onValue={setEmail} />
        <Field id="edit-user-mobile" label="Mobile (empty: none)" type="tel" value={mobile} onValue={setMobile} />
        <Field
          id="edit-user-password"
          label="New password (optional)"
          type="password"
          autoComplete="new-password"
          value={password}
          onValue={setPassword}
        />
        <SubmitField busy={action.busy}>Save user</SubmitField>
      </form>
      <Notice error={action.error} done={action.done} />
    </section>
  );
}

/** For a person locked out by a lost device: the authenticator app and its recovery codes go. */
function SecondFactor({ user }: { user: User }) {
  const action = useAction();
  return (
    <section aria-labelledby="second-factor-title">
      <h2 id="second-factor-title">Second factor</h2>
      <p>
        Removing the authenticator app also removes its recovery codes and ends every session of the user, who then
        signs in with the password (and SMS, where it applies) and may enrol a new app.
      </p>
      <ConfirmButton
        label="Remove authenticator app"
        question={`Remove the authenticator app of ${user.name} and end every session?`}
        action="Remove the app"
        disabled={action.busy}
        onConfirm={() =>
          void action.run(() => api('DELETE', `/admin/users/${user.id}/totp`), 'Authenticator app removed.')
        }
      />
      <Notice error={action.error} done={action.done} />
    </section>
  );
}
