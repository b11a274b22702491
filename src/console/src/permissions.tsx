import { useState } from 'preact/hooks';
import { api, type Permission } from './api';
import { INSTANCE, type DefinitionKind } from './kinds';
import { useAdmin } from './admin';
import { DefinitionFields, draftOf, newDefinitionBody } from './definitions';
import { ActionsHeading, Pager, Table } from './lists';
import { ConfirmButton, Notice, Screen, SubmitOrCancel, useAction, useLoad } from './ui';

const PAGE_SIZE = 25;

export function PermissionsScreen({ kind = INSTANCE }: { kind?: DefinitionKind }) {
  const admin = useAdmin();
  const permissions = useLoad(() => kind.listPermissions(), [kind]);
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<Permission | null>(null);
  const removal = useAction();
  const mayEdit = admin.can('roles.edit');
  const mayDelete = admin.can('roles.delete');
  const remove = (permission: Permission) =>
    void removal
      .run(
        () => api('DELETE', `${kind.permissionsPath}/${permission.id}`),
        `${kind.Permission} ${permission.name} deleted.`,
      )
      .then((ok) => ok && (setEditing(null), permissions.reload()));
  const all = [...(permissions.data ?? [])].sort(
    (a, b) => (a.group_name ?? '').localeCompare(b.group_name ?? '') || a.name.localeCompare(b.name),
  );
  const shown = all.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
  return (
    <Screen title={kind.Permissions}>
      <Notice error={permissions.error} />
      {permissions.data && (
        <>
          <Table
            caption={kind.Permissions}
            columns={[
              'Name',
              'Display name',
              'Group',
              'Description',
              ...(mayEdit || mayDelete ? [<ActionsHeading />] : []),
            ]}
          >
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
                        aria-label={`Edit ${kind.permission} ${permission.name}`}
                        onClick={() => setEditing(permission)}
                      >
                        Edit
                      </button>
                    )}
                    {mayDelete && !permission.is_system && (
                      <ConfirmButton
                        class="link"
                        label="Delete"
                        name={`Delete ${kind.permission} ${permission.name}`}
                        question={`Delete the ${kind.permission} ${permission.name}? Every ${kind.role} holding it loses it.`}
                        action={`Delete the ${kind.permission}`}
                        disabled={removal.busy}
                        onConfirm={() => remove(permission)}
                      />
                    )}
                  </td>
                )}
              </tr>
            ))}
          </Table>
          <Pager label={kind.Permissions} page={page} limit={PAGE_SIZE} total={all.length} onPage={setPage} />
        </>
      )}
      <Notice error={removal.error} done={removal.done} />
      {editing && (
        <EditPermission
          key={editing.id}
          kind={kind}
          permission={editing}
          onDone={permissions.reload}
          onCancel={() => setEditing(null)}
        />
      )}
      {admin.can('roles.create') && <CreatePermission kind={kind} onCreated={permissions.reload} />}
    </Screen>
  );
}

function CreatePermission({ kind, onCreated }: { kind: DefinitionKind; onCreated: () => void }) {
  const [draft, setDraft] = useState(draftOf());
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void action
      .run(
        () => api('POST', kind.permissionsPath, newDefinitionBody(draft)),
        `${kind.Permission} ${draft.name.trim()} created.`,
      )
      .then((ok) => {
        if (!ok) return;
        setDraft(draftOf());
        onCreated();
      });
  };
  return (
    <section aria-labelledby={`create-${kind.prefix}permission-title`}>
      <h2 id={`create-${kind.prefix}permission-title`}>New {kind.permission}</h2>
      <form onSubmit={submit}>
        <DefinitionFields
          prefix={`${kind.prefix}permission`}
          nameLabel="Name (resource.action)"
          draft={draft}
          onDraft={setDraft}
          withGroup
        />
        <button type="submit" disabled={action.busy}>
          Create {kind.permission}
        </button>
      </form>
      <Notice error={action.error} done={action.done} />
    </section>
  );
}

/** A system permission keeps its name; its display name, group and description may change. */
function EditPermission({
  kind,
  permission,
  onDone,
  onCancel,
}: {
  kind: DefinitionKind;
  permission: Permission;
  onDone: () => void;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState(draftOf(permission));
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    const was = draftOf(permission);
    const change: Record<string, string> = {};
    if (draft.name.trim() !== was.name) change.name = draft.name.trim();
    if (draft.displayName.trim() !== was.displayName) change.display_name = draft.displayName.trim();
    if (draft.groupName.trim() !== was.groupName) change.group_name = draft.groupName.trim();
    if (draft.description.trim() !== was.description) change.description = draft.description.trim();
    void action
      .run(() => api('PUT', `${kind.permissionsPath}/${permission.id}`, change), `${kind.Permission} saved.`)
      .then((ok) => ok && onDone());
  };
  return (
    <section aria-labelledby={`edit-${kind.prefix}permission-title`}>
      <h2 id={`edit-${kind.prefix}permission-title`}>
        Edit {kind.permission} {permission.name}
      </h2>
      <form onSubmit={submit}>
        <DefinitionFields
          prefix={`edit-${kind.prefix}permission`}
          nameLabel="Name (resource.action)"
          draft={draft}
          onDraft={setDraft}
          withGroup
          nameFixed={permission.is_system}
          nameNote={permission.is_system && <p>A system {kind.permission}: it cannot be renamed or deleted.</p>}
        />
        <SubmitOrCancel busy={action.busy} onCancel={onCancel}>
          Save {kind.permission}
        </SubmitOrCancel>
      </form>
      <Notice error={action.error} done={action.done} />
    </section>
  );
}
