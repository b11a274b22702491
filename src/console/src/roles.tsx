import { useState } from 'preact/hooks';
import { api, type Permission, type Role } from './api';
import { INSTANCE, type DefinitionKind } from './kinds';
import { useAdmin } from './admin';
import { DefinitionFields, draftOf, newDefinitionBody } from './definitions';
import { Pager, Table } from './lists';
import { RecordScreen } from './records';
import { ConfirmButton, Notice, Screen, useAction, useLoad } from './ui';

const PAGE_SIZE = 25;

/** The usual actions first, in this order; any other action after them, by name. */
const ACTION_ORDER = ['view', 'create', 'edit', 'delete'];

const actionOf = (permission: Permission): string => permission.name.split('.').slice(1).join('.') || permission.name;

/** Permissions by `group_name` (else the name's resource), groups in name order. */
function groupsOf(permissions: Permission[]): [string, Permission[]][] {
  const groups = new Map<string, Permission[]>();
  for (const permission of permissions) {
    const group = permission.group_name || permission.name.split('.')[0] || 'other';
    groups.set(group, [...(groups.get(group) ?? []), permission]);
  }
  return [...groups.entries()].sort(([a], [b]) => a.localeCompare(b));
}

function actionsOf(permissions: Permission[]): string[] {
  const actions = [...new Set(permissions.map(actionOf))];
  const rank = (action: string) => {
    const index = ACTION_ORDER.indexOf(action);
    return index === -1 ? ACTION_ORDER.length : index;
  };
  return actions.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/**
 * The permission matrix: a row per group (`group_name`), a column per action, a checkbox where
 * the group has that permission, so a role's grants read at a glance.
 */
function PermissionMatrix({
  permissions,
  chosen,
  onChange,
  readOnly,
}: {
  permissions: Permission[];
  chosen: Set<string>;
  onChange: (next: Set<string>) => void;
  readOnly: boolean;
}) {
  const toggle = (id: string, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(id);
    else next.delete(id);
    onChange(next);
  };
  const actions = actionsOf(permissions);
  return (
    <div class="table-wrap matrix">
      <table>
        <caption class="visually-hidden">Permissions by group and action</caption>
        <thead>
          <tr>
            <th scope="col">Group</th>
            {actions.map((action) => (
              <th scope="col" key={action} class="center">
                {action}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {groupsOf(permissions).map(([group, list]) => (
            <tr key={group}>
              <th scope="row">{group}</th>
              {actions.map((action) => {
                const permission = list.find((candidate) => actionOf(candidate) === action);
                return (
                  <td key={action} class="center">
                    {permission && (
                      <input
                        type="checkbox"
                        name="permission"
                        value={permission.name}
                        title={permission.description ?? permission.name}
                        aria-label={`${permission.display_name || permission.name} (${permission.name})`}
                        checked={chosen.has(permission.id)}
                        disabled={readOnly}
                        onChange={(event) => toggle(permission.id, event.currentTarget.checked)}
                      />
                    )}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function RolesScreen({ kind = INSTANCE }: { kind?: DefinitionKind }) {
  const admin = useAdmin();
  const roles = useLoad(() => kind.listRoles(), [kind]);
  const [page, setPage] = useState(1);
  const shown = (roles.data ?? []).slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
  return (
    <Screen title={kind.Roles}>
      <Notice error={roles.error} />
      {roles.data && (
        <Table caption={kind.Roles} columns={['Name', 'Display name', 'Permissions']}>
          {shown.map((role) => (
            <tr key={role.id}>
              <td>
                <a href={`${kind.rolesRoute}/${role.id}`}>{role.name}</a>
                {role.is_system && <span class="badge">system</span>}
              </td>
              <td>{role.display_name ?? '—'}</td>
              <td>{role.permissions.map((permission) => permission.name).join(', ') || '—'}</td>
            </tr>
          ))}
        </Table>
      )}
      {roles.data && (
        <Pager label={kind.Roles} page={page} limit={PAGE_SIZE} total={roles.data.length} onPage={setPage} />
      )}
      {admin.can('roles.create') && <CreateRole kind={kind} onCreated={roles.reload} />}
    </Screen>
  );
}

function CreateRole({ kind, onCreated }: { kind: DefinitionKind; onCreated: () => void }) {
  const permissions = useLoad(() => kind.listPermissions(), [kind]);
  const [draft, setDraft] = useState(draftOf());
  const [chosen, setChosen] = useState(new Set<string>());
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void action
      .run(
        () =>
          api('POST', kind.rolesPath, {
            ...newDefinitionBody(draft),
            permission_ids: [...chosen],
          }),
        `${kind.Role} ${draft.name.trim()} created.`,
      )
      .then((ok) => {
        if (!ok) return;
        setDraft(draftOf());
        setChosen(new Set());
        onCreated();
      });
  };
  return (
    <section aria-labelledby={`create-${kind.prefix}role-title`}>
      <h2 id={`create-${kind.prefix}role-title`}>New {kind.role}</h2>
      <form onSubmit={submit}>
        <DefinitionFields prefix={`${kind.prefix}role`} draft={draft} onDraft={setDraft} />
        <h3>Permissions</h3>
        <Notice error={permissions.error} />
        {permissions.data && (
          <PermissionMatrix permissions={permissions.data} chosen={chosen} onChange={setChosen} readOnly={false} />
        )}
        <button type="submit" disabled={action.busy}>
          Create {kind.role}
        </button>
      </form>
      <Notice error={action.error} done={action.done} />
    </section>
  );
}

export function RoleScreen({ id, kind = INSTANCE }: { id: string; kind?: DefinitionKind }) {
  const admin = useAdmin();
  const record = useLoad(
    () => Promise.all([api<Role>('GET', `${kind.rolesPath}/${id}`), kind.listPermissions()]),
    [id, kind],
  );
  return (
    <RecordScreen
      title={record.data ? `${kind.Role} ${record.data[0].name}` : kind.Role}
      back={{ href: kind.rolesRoute, text: `All ${kind.role}s` }}
      record={record}
    >
      {([role, permissions]) => (
        <RoleEditor
          kind={kind}
          role={role}
          permissions={permissions}
          mayEdit={admin.can('roles.edit')}
          mayDelete={admin.can('roles.delete')}
          onSaved={record.reload}
        />
      )}
    </RecordScreen>
  );
}

function RoleEditor({
  kind,
  role,
  permissions,
  mayEdit,
  mayDelete,
  onSaved,
}: {
  kind: DefinitionKind;
  role: Role;
  permissions: Permission[];
  mayEdit: boolean;
  mayDelete: boolean;
  onSaved: () => void;
}) {
  const [draft, setDraft] = useState(draftOf(role));
  const [chosen, setChosen] = useState(new Set(role.permissions.map((permission) => permission.id)));
  const action = useAction();
  const save = (event: Event) => {
    event.preventDefault();
    const renamed = draft.name.trim() !== role.name;
    void action
      .run(
        () =>
          api('PUT', `${kind.rolesPath}/${role.id}`, {
            ...(renamed ? { name: draft.name.trim() } : {}),
            display_name: draft.displayName.trim(),
            description: draft.description.trim(),
            permission_ids: [...chosen],
          }),
        `${kind.Role} saved.`,
      )
      .then((ok) => ok && renamed && onSaved());
  };
  const remove = () => {
    void action
      .run(() => api('DELETE', `${kind.rolesPath}/${role.id}`))
      .then((ok) => {
        if (ok) window.location.hash = kind.rolesRoute;
      });
  };
  return (
    <>
      {role.is_system && (
        <p class="notice">
          <span class="badge">system</span> A system {kind.role}: it cannot be renamed or deleted.
        </p>
      )}
      <form onSubmit={save}>
        <DefinitionFields
          prefix={`${kind.prefix}role`}
          draft={draft}
          onDraft={setDraft}
          readOnly={!mayEdit}
          nameFixed={role.is_system}
        />
        <h2>Permissions</h2>
        <PermissionMatrix permissions={permissions} chosen={chosen} onChange={setChosen} readOnly={!mayEdit} />
        {mayEdit && (
          <button type="submit" disabled={action.busy}>
            Save {kind.role}
          </button>
        )}
        {mayDelete && !role.is_system && (
          <ConfirmButton
            label={`Delete ${kind.role}`}
            question={`Delete the ${kind.role} ${role.name}? Every ${kind === INSTANCE ? 'user' : 'member'} holding it loses it.`}
            action={`Delete the ${kind.role}`}
            disabled={action.busy}
            onConfirm={remove}
          />
        )}
      </form>
      <Notice error={action.error} done={action.done} />
    </>
  );
}
