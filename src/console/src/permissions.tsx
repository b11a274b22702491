import { useState } from 'preact/hooks';
import { api, listPermissions, type Permission } from './api';
import { useAdmin } from './admin';
import { ConfirmButton, Notice, Pager, Screen, useAction, useLoad } from './ui';

const PAGE_SIZE = 25;

export function PermissionsScreen() {
  const admin = useAdmin();
  const permissions = useLoad(() => listPermissions(), []);
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<Permission | null>(null);
  const removal = useAction();
  const mayEdit = admin.can('roles.edit');
  const mayDelete = admin.can('roles.delete');
  const remove = (permission: Permission) =>
    void removal
      .run(() => api('DELETE', `/admin/permissions/${permission.id}`), `Permission ${permission.name} deleted.`)
      .then((ok) => ok && (setEditing(null), permissions.reload()));
  const all = [...(permissions.data ?? [])].sort(
    (a, b) => (a.group_name ?? '').localeCompare(b.group_name ?? '') || a.name.localeCompare(b.name),
  );
  const shown = all.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
  return (
    <Screen title="Permissions">
      <Notice error={permissions.error} />
      {permissions.data && (
        <>
          <div class="table-wrap">
            <table>
              <caption class="visually-hidden">Permissions</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Display name</th>
                  <th scope="col">Group</th>
                  <th scope="col">Description</th>
                  {(mayEdit || mayDelete) && (
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  )}
                </tr>
              </thead>
              <tbody>
                {shown.map((permission) => (
                  <tr key={permission.id}>
                    <td>
                      <code>{permission.name}</code>
                      {permission.is_system && <span class="badge">system</span>}
                    </td>
                    <td>{permission.display_name ?? '—'}</td>
                    <td>{permission.group_name ?? '—'}</td>
                    <td>{permission.description ?? '—'}</td>
                    {(mayEdit || mayDelete) && (
                      <td>
                        {mayEdit && (
                          <button
                            type="button"
                            class="link"
                            aria-label={`Edit permission ${permission.name}`}
                            onClick={() => setEditing(permission)}
                          >
                            Edit
                          </button>
                        )}
                        {mayDelete && !permission.is_system && (
                          <ConfirmButton
                            class="link"
                            label="Delete"
                            name={`Delete permission ${permission.name}`}
                            question={`Delete the permission ${permission.name}? Every role holding it loses it.`}
                            action="Delete the permission"
                            disabled={removal.busy}
                            onConfirm={() => remove(permission)}
                          />
                        )}
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager label="Permissions" page={page} limit={PAGE_SIZE} total={all.length} onPage={setPage} />
        </>
      )}
      <Notice error={removal.error} done={removal.done} />
      {editing && (
        <EditPermission
          key={editing.id}
          permission={editing}
          onDone={permissions.reload}
          onCancel={() => setEditing(null)}
        />
      )}
      {admin.can('roles.create') && <CreatePermission onCreated={permissions.reload} />}
    </Screen>
  );
}

function CreatePermission({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState('');
  const [displayName, setDisplayName] = useState('');
  const [groupName, setGroupName] = useState('');
  const [description, setDescription] = useState('');
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    const optional = (field: string, value: string) => (value.trim() ? { [field]: value.trim() } : {});
    void action
      .run(
        () =>
          api('POST', '/admin/permissions', {
            name: name.trim(),
            ...optional('display_name', displayName),
            ...optional('group_name', groupName),
            ...optional('description', description),
          }),
        `Permission ${name.trim()} created.`,
      )
      .then((ok) => {
        if (!ok) return;
        setName('');
        setDisplayName('');
        setGroupName('');
        setDescription('');
        onCreated();
      });
  };
  return (
    <section aria-labelledby="create-permission-title">
      <h2 id="create-permission-title">New permission</h2>
      <form onSubmit={submit}>
        <label for="permission-name">Name (resource.action)</label>
        <input id="permission-name" required value={name} onInput={(event) => setName(event.currentTarget.value)} />
        <label for="permission-display-name">Display name</label>
        <input
          id="permission-display-name"
          value={displayName}
          onInput={(event) => setDisplayName(event.currentTarget.value)}
        />
        <label for="permission-group">Group</label>
        <input id="permission-group" value={groupName} onInput={(event) => setGroupName(event.currentTarget.value)} />
        <label for="permission-description">Description</label>
        <input
          id="permission-description"
          value={description}
          onInput={(event) => setDescription(event.currentTarget.value)}
        />
        <button type="submit" disabled={action.busy}>
          Create permission
        </button>
      </form>
      <Notice error={action.error} done={action.done} />
    </section>
  );
}

/** A system permission keeps its name; its display name, group and description may change. */
function EditPermission({
  permission,
  onDone,
  onCancel,
}: {
  permission: Permission;
  onDone: () => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState(permission.name);
  const [displayName, setDisplayName] = useState(permission.display_name ?? '');
  const [groupName, setGroupName] = useState(permission.group_name ?? '');
  const [description, setDescription] = useState(permission.description ?? '');
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    const change: Record<string, string> = {};
    if (name.trim() !== permission.name) change.name = name.trim();
    if (displayName.trim() !== (permission.display_name ?? '')) change.display_name = displayName.trim();
    if (groupName.trim() !== (permission.group_name ?? '')) change.group_name = groupName.trim();
    if (description.trim() !== (permission.description ?? '')) change.description = description.trim();
    void action
      .run(() => api('PUT', `/admin/permissions/${permission.id}`, change), 'Permission saved.')
      .then((ok) => ok && onDone());
  };
  return (
    <section aria-labelledby="edit-permission-title">
      <h2 id="edit-permission-title">Edit permission {permission.name}</h2>
      <form onSubmit={submit}>
        <label for="edit-permission-name">Name (resource.action)</label>
        <input
          id="edit-permission-name"
          required
          readOnly={permission.is_system}
          value={name}
          onInput={(event) => setName(event.currentTarget.value)}
        />
        {permission.is_system && <p>A system permission: it cannot be renamed or deleted.</p>}
        <label for="edit-permission-display-name">Display name</label>
        <input
          id="edit-permission-display-name"
          value={displayName}
          onInput={(event) => setDisplayName(event.currentTarget.value)}
        />
        <label for="edit-permission-group">Group</label>
        <input
          id="edit-permission-group"
          value={groupName}
          onInput={(event) => setGroupName(event.currentTarget.value)}
        />
        <label for="edit-permission-description">Description</label>
        <input
          id="edit-permission-description"
          value={description}
          onInput={(event) => setDescription(event.currentTarget.value)}
        />
        <button type="submit" disabled={action.busy}>
          Save permission
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </form>
      <Notice error={action.error} done={action.done} />
    </section>
  );
}
