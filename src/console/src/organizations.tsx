import { useState } from 'preact/hooks';
import { api, query, type Page, type Role, type RoleRef } from './api';
import { useAdmin } from './admin';
import { listOrganizationRoles } from './kinds';
import { ActionsHeading, Pager, SearchForm, Table, useSearchedPage } from './lists';
import { DeleteSection, OpenCreated, RecordScreen, type ListLink } from './records';
import {
  ConfirmButton,
  Field,
  LabelledInput,
  Notice,
  Screen,
  SubmitField,
  SubmitOrCancel,
  useAction,
  useCreation,
  useLoad,
  when,
} from './ui';

const PAGE_SIZE = 20;

const ALL_ORGANIZATIONS: ListLink = { href: '#/organizations', text: 'All organizations' };

interface Organization {
  id: string;
  slug: string;
  name: string;
  created_at: string;
  updated_at: string;
}

interface Member {
  user_id: string;
  name: string;
  email: string;
  roles: RoleRef[];
  joined_at: string;
}

interface Invitation {
  id: string;
  email: string;
  roles: RoleRef[];
  expires_at: string;
  created_at: string;
}

const roleNames = (roles: RoleRef[]): string => roles.map((role) => role.name).join(', ') || '—';

export function OrganizationsScreen() {
  const admin = useAdmin();
  const {
    list: organizations,
    page,
    setPage,
    searchFor,
  } = useSearchedPage<Organization>('/admin/organizations', PAGE_SIZE);
  return (
    <Screen title="Organizations">
      <SearchForm id="organization-search" label="Search by slug or name" onSearch={searchFor} />
      <Notice error={organizations.error} />
      {organizations.data && (
        <>
          <Table caption="Organizations" columns={['Name', 'Slug', 'Created']}>
            {organizations.data.items.map((organization) => (
              <tr key={organization.id}>
                <td>
                  <a href={`#/organizations/${organization.id}`}>{organization.name}</a>
                </td>
                <td>
                  <code>{organization.slug}</code>
                </td>
                <td>{when(organization.created_at)}</td>
              </tr>
            ))}
          </Table>
          <Pager
            label="Organizations"
            page={page}
            limit={PAGE_SIZE}
            total={organizations.data.total}
            onPage={setPage}
          />
        </>
      )}
      {admin.can('organizations.create') && <CreateOrganization onCreated={organizations.reload} />}
    </Screen>
  );
}

/** The creator becomes the new organization's owner (the API's rule), so it is never ownerless. */
function CreateOrganization({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const action = useCreation<Organization>();
  const submit = (event: Event) => {
    event.preventDefault();
    action.create(
      () => api<Organization>('POST', '/organizations', { name: name.trim(), slug: slug.trim() }),
      `Organization ${name.trim()} created; you are its owner.`,
      () => {
        setName('');
        setSlug('');
        onCreated();
      },
    );
  };
  return (
    <section aria-labelledby="create-organization-title">
      <h2 id="create-organization-title">New organization</h2>
      <form class="filters grid" onSubmit={submit}>
        <Field id="new-organization-name" label="Name" required value={name} onValue={setName} />
        <Field
          id="new-organization-slug"
          label="Slug (a-z, 0-9 and -)"
          required
          autoComplete="off"
          value={slug}
          onValue={setSlug}
        />
        <SubmitField busy={action.busy}>Create organization</SubmitField>
      </form>
      <Notice error={action.error} done={action.done} />
      {action.created && <OpenCreated href={`#/organizations/${action.created.id}`} name={action.created.name} />}
    </section>
  );
}

export function OrganizationScreen({ id }: { id: string }) {
  const admin = useAdmin();
  const record = useLoad(() => api<Organization>('GET', `/organizations/${id}`), [id]);
  // The template's roles to choose from; without roles.view, only the roles members already hold are known.
  const template = useLoad(
    () => (admin.can('roles.view') ? listOrganizationRoles() : Promise.resolve([] as Role[])),
    [],
  );
  const mayEdit = admin.can('organizations.edit');
  return (
    <RecordScreen
      title={record.data ? record.data.name : 'Organization'}
      back={ALL_ORGANIZATIONS}
      record={record}
      error={template.error}
    >
      {(organization) => (
        <>
          <dl class="record">
            <dt>Slug</dt>
            <dd>
              <code>{organization.slug}</code>
            </dd>
            <dt>Created</dt>
            <dd>{when(organization.created_at)}</dd>
            <dt>Id</dt>
            <dd>
              <code>{organization.id}</code>
            </dd>
          </dl>
          {mayEdit && <EditOrganization organization={organization} reload={record.reload} />}
          <Members organizationId={id} roles={template.data ?? []} mayEdit={mayEdit} />
          {mayEdit && <Invitations organizationId={id} roles={template.data ?? []} />}
          {admin.can('organizations.delete') && (
            <DeleteSection
              titleId="delete-organization-title"
              thing="organization"
              question={`Delete ${organization.name} (${organization.slug}) and every membership in it?`}
              deleted={`Organization ${organization.slug} deleted.`}
              remove={() => api('DELETE', `/organizations/${organization.id}`)}
              back={ALL_ORGANIZATIONS}
            />
          )}
        </>
      )}
    </RecordScreen>
  );
}

function EditOrganization({ organization, reload }: { organization: Organization; reload: () => void }) {
  const [name, setName] = useState(organization.name);
  const [slug, setSlug] = useState(organization.slug);
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    const change: Record<string, string> = {};
    if (name.trim() !== organization.name) change.name = name.trim();
    if (slug.trim() !== organization.slug) change.slug = slug.trim();
    void action
      .run(() => api('PATCH', `/organizations/${organization.id}`, change), 'Organization saved.')
      .then((ok) => ok && reload());
  };
  return (
    <section aria-labelledby="edit-organization-title">
      <h2 id="edit-organization-title">Details</h2>
      <form class="filters grid" onSubmit={submit}>
        <Field id="edit-organization-name" label="Name" required value={name} onValue={setName} />
        <Field id="edit-organization-slug" label="Slug" required value={slug} onValue={setSlug} />
        <SubmitField busy={action.busy}>Save organization</SubmitField>
      </form>
      <Notice error={action.error} done={action.done} />
    </section>
  );
}

/** Checkboxes over the template's roles (plus any held role the template list did not bring). */
function RoleChoice({
  legend,
  roles,
  chosen,
  onChange,
}: {
  legend: string;
  roles: RoleRef[];
  chosen: Set<string>;
  onChange: (next: Set<string>) => void;
}) {
  return (
    <fieldset class="role-choice">
      <legend>{legend}</legend>
      {roles.length === 0 && <p>No organization role is known to this account.</p>}
      {roles.map((role) => (
        <label key={role.id} class="inline">
          <input
            type="checkbox"
            checked={chosen.has(role.id)}
            onChange={(event) => {
              const next = new Set(chosen);
              if (event.currentTarget.checked) next.add(role.id);
              else next.delete(role.id);
              onChange(next);
            }}
          />
          {role.display_name || role.name}
        </label>
      ))}
    </fieldset>
  );
}

/** The template's roles and the given held ones, each once. */
function choices(template: RoleRef[], held: RoleRef[]): RoleRef[] {
  return [...template, ...held.filter((role) => !template.some((known) => known.id === role.id))];
}

function Members({ organizationId, roles, mayEdit }: { organizationId: string; roles: Role[]; mayEdit: boolean }) {
  const [page, setPage] = useState(1);
  const members = useLoad(
    () => api<Page<Member>>('GET', `/organizations/${organizationId}/members${query({ page, limit: PAGE_SIZE })}`),
    [organizationId, page],
  );
  const [editing, setEditing] = useState<Member | null>(null);
  const removal = useAction();
  const remove = (member: Member) =>
    void removal
      .run(
        () => api('DELETE', `/organizations/${organizationId}/members/${member.user_id}`),
        `${member.email} removed.`,
      )
      .then((ok) => ok && (setEditing(null), members.reload()));
  return (
    <section aria-labelledby="members-title">
      <h2 id="members-title">Members</h2>
      <Notice error={members.error ?? removal.error} done={removal.done} />
      {members.data && members.data.total === 0 && <p>No member.</p>}
      {members.data && members.data.total > 0 && (
        <>
          <Table
            caption="Members"
            columns={['Name', 'Email', 'Roles', 'Joined', ...(mayEdit ? [<ActionsHeading />] : [])]}
          >
            {members.data.items.map((member) => (
              <tr key={member.user_id}>
                <td>
                  <a href={`#/users/${member.user_id}`}>{member.name}</a>
                </td>
                <td>{member.email}</td>
                <td>{roleNames(member.roles)}</td>
                <td>{when(member.joined_at)}</td>
                {mayEdit && (
                  <td>
                    <button
                      type="button"
                      class="link"
                      aria-label={`Change the roles of ${member.email}`}
                      onClick={() => setEditing(member)}
                    >
                      Roles
                    </button>{' '}
                    <ConfirmButton
                      class="link"
                      label="Remove"
                      name={`Remove ${member.email}`}
                      question={`Remove ${member.email} from the organization?`}
                      action="Remove the member"
                      disabled={removal.busy}
                      onConfirm={() => remove(member)}
                    />
                  </td>
                )}
              </tr>
            ))}
          </Table>
          <Pager label="Members" page={page} limit={PAGE_SIZE} total={members.data.total} onPage={setPage} />
        </>
      )}
      {editing && (
        <MemberRoles
          key={editing.user_id}
          organizationId={organizationId}
          member={editing}
          roles={roles}
          onDone={members.reload}
          onCancel={() => setEditing(null)}
        />
      )}
    </section>
  );
}

function MemberRoles({
  organizationId,
  member,
  roles,
  onDone,
  onCancel,
}: {
  organizationId: string;
  member: Member;
  roles: Role[];
  onDone: () => void;
  onCancel: () => void;
}) {
  const [chosen, setChosen] = useState(new Set(member.roles.map((role) => role.id)));
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void action
      .run(
        () => api('PUT', `/organizations/${organizationId}/members/${member.user_id}/roles`, { role_ids: [...chosen] }),
        `Roles of ${member.email} saved.`,
      )
      .then((ok) => ok && onDone());
  };
  return (
    <section aria-labelledby="member-roles-title">
      <h3 id="member-roles-title">Roles of {member.email}</h3>
      <form onSubmit={submit}>
        <RoleChoice
          legend="Organization roles"
          roles={choices(roles, member.roles)}
          chosen={chosen}
          onChange={setChosen}
        />
        <SubmitOrCancel busy={action.busy} onCancel={onCancel}>
          Save roles
        </SubmitOrCancel>
      </form>
      <Notice error={action.error} done={action.done} />
    </section>
  );
}

/** Pending invitations: the API answers them whole (they expire), so the console pages them itself. */
function Invitations({ organizationId, roles }: { organizationId: string; roles: Role[] }) {
  const invitations = useLoad(async () => {
    const list = await api<Invitation[] | { items: Invitation[] }>(
      'GET',
      `/organizations/${organizationId}/invitations`,
    );
    return Array.isArray(list) ? list : list.items;
  }, [organizationId]);
  const [page, setPage] = useState(1);
  const [email, setEmail] = useState('');
  const [chosen, setChosen] = useState(new Set<string>());
  const sending = useAction();
  const withdrawal = useAction();
  const invite = (event: Event) => {
    event.preventDefault();
    void sending
      .run(
        () =>
          api('POST', `/organizations/${organizationId}/invitations`, { email: email.trim(), role_ids: [...chosen] }),
        `Invitation sent to ${email.trim()}.`,
      )
      .then((ok) => ok && (setEmail(''), setChosen(new Set()), invitations.reload()));
  };
  const withdraw = (invitation: Invitation) =>
    void withdrawal
      .run(
        () => api('DELETE', `/organizations/${organizationId}/invitations/${invitation.id}`),
        `Invitation of ${invitation.email} withdrawn.`,
      )
      .then((ok) => ok && invitations.reload());
  const all = invitations.data ?? [];
  const shown = all.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
  return (
    <section aria-labelledby="invitations-title">
      <h2 id="invitations-title">Invitations</h2>
      <Notice error={invitations.error ?? withdrawal.error} done={withdrawal.done} />
      {invitations.data && all.length === 0 && <p>No pending invitation.</p>}
      {all.length > 0 && (
        <>
          <Table caption="Pending invitations" columns={['Email', 'Roles', 'Sent', 'Expires', <ActionsHeading />]}>
            {shown.map((invitation) => (
              <tr key={invitation.id}>
                <td>{invitation.email}</td>
                <td>{roleNames(invitation.roles)}</td>
                <td>{when(invitation.created_at)}</td>
                <td>{when(invitation.expires_at)}</td>
                <td>
                  <ConfirmButton
                    class="link"
                    label="Withdraw"
                    name={`Withdraw the invitation of ${invitation.email}`}
                    question={`Withdraw the invitation of ${invitation.email}?`}
                    action="Withdraw the invitation"
                    disabled={withdrawal.busy}
                    onConfirm={() => withdraw(invitation)}
                  />
                </td>
              </tr>
            ))}
          </Table>
          <Pager label="Invitations" page={page} limit={PAGE_SIZE} total={all.length} onPage={setPage} />
        </>
      )}
      <form onSubmit={invite}>
        <h3>Invite someone</h3>
        <LabelledInput
          id="invite-email"
          label="Email to invite"
          type="email"
          required
          autoComplete="off"
          value={email}
          onValue={setEmail}
        />
        <RoleChoice legend="Roles on joining" roles={roles} chosen={chosen} onChange={setChosen} />
        <button type="submit" disabled={sending.busy}>
          Send invitation
        </button>
      </form>
      <Notice error={sending.error} done={sending.done} />
    </section>
  );
}
