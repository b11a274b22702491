import { useState } from 'preact/hooks';
import { api, listPermissions } from './api';
import { useAdmin } from './admin';
import { Notice, Pager, Screen, useAction, useLoad } from './ui';

const PAGE_SIZE = 25;

export function PermissionsScreen() {
  const admin = useAdmin();
  const permissions = useLoad(() => listPermissions(), []);
  const [page, setPage] = useState(1);
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
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager label="Permissions" page={page} limit={PAGE_SIZE} total={all.length} onPage={setPage} />
        </>
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
