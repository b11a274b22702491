import { useState } from 'preact/hooks';
import { api, query, type Page } from './api';
import { useAdmin } from './admin';
import { DeleteSection, OpenCreated, RecordScreen, type ListLink } from './records';
import { Pager, Table } from './lists';
import { ConfirmButton, LabelledInput, Notice, Screen, useAction, useCreation, useLoad, when } from './ui';

const PAGE_SIZE = 20;

const ALL_CLIENTS: ListLink = { href: '#/clients', text: 'All clients' };

export interface ServiceClient {
  client_id: string;
  name: string;
  type: 'confidential' | 'public';
  redirect_uris: string[];
  post_logout_redirect_uris?: string[];
  grant_types: string[];
  first_party?: boolean;
  backchannel_logout_uri?: string | null;
  source?: 'registry' | 'environment';
  created_at?: string | null;
  updated_at?: string | null;
}

type WithSecret = ServiceClient & { client_secret?: string | null };

const GRANTS = ['authorization_code', 'refresh_token', 'client_credentials'] as const;

/** One URI a line: the text area's lines, trimmed, empty ones left out. */
const lines = (text: string): string[] =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

/** A page answer, or a bare list the console pages itself. */
async function clientPage(page: number): Promise<Page<ServiceClient>> {
  const answer = await api<Page<ServiceClient> | ServiceClient[]>(
    'GET',
    `/admin/clients${query({ page, limit: PAGE_SIZE })}`,
  );
  if (!Array.isArray(answer)) return answer;
  return {
    items: answer.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE),
    total: answer.length,
    page,
    limit: PAGE_SIZE,
  };
}

/** The secret, shown once: the API keeps only its hash. */
function SecretOnce({ client }: { client: WithSecret | null }) {
  if (!client?.client_secret) return null;
  return (
    <div class="notice done" role="status">
      <p>
        The secret of <code>{client.client_id}</code>, shown this once (the service keeps only its hash):
      </p>
      <p>
        <label for="client-secret">Client secret</label>
        <input id="client-secret" class="secret" readOnly value={client.client_secret} />
      </p>
    </div>
  );
}

export function ClientsScreen() {
  const admin = useAdmin();
  const [page, setPage] = useState(1);
  const clients = useLoad(() => clientPage(page), [page]);
  return (
    <Screen title="Clients">
      <Notice error={clients.error} />
      {clients.data && (
        <>
          <Table caption="Clients" columns={['Client id', 'Name', 'Type', 'Grant types', 'Created']}>
            {clients.data.items.map((client) => (
              <tr key={client.client_id}>
                <td>
                  {client.source === 'environment' ? (
                    <code>{client.client_id}</code>
                  ) : (
                    <a href={`#/clients/${encodeURIComponent(client.client_id)}`}>{client.client_id}</a>
                  )}
                  {client.source === 'environment' ? <span class="badge">SERVICE_CLIENTS</span> : null}
                </td>
                <td>{client.name}</td>
                <td>{client.type}</td>
                <td>{client.grant_types.join(', ')}</td>
                <td>{when(client.created_at)}</td>
              </tr>
            ))}
          </Table>
          {clients.data.items.length === 0 && <p>No client yet.</p>}
          <Pager label="Clients" page={page} limit={PAGE_SIZE} total={clients.data.total} onPage={setPage} />
        </>
      )}
      {admin.can('clients.create') && <CreateClient onCreated={clients.reload} />}
    </Screen>
  );
}

interface Draft {
  name: string;
  type: 'confidential' | 'public';
  redirectUris: string;
  postLogoutRedirectUris: string;
  grantTypes: string[];
  firstParty: boolean;
  backchannelLogoutUri: string;
}

const draftOf = (client?: ServiceClient): Draft => ({
  name: client?.name ?? '',
  type: client?.type ?? 'confidential',
  redirectUris: (client?.redirect_uris ?? []).join('\n'),
  postLogoutRedirectUris: (client?.post_logout_redirect_uris ?? []).join('\n'),
  grantTypes: [...(client?.grant_types ?? ['authorization_code', 'refresh_token'])],
  firstParty: client?.first_party ?? false,
  backchannelLogoutUri: client?.backchannel_logout_uri ?? '',
});

/** The request's fields; an edit sends an emptied back-channel URI as null (removed). */
const bodyOf = (draft: Draft, editing = false) => {
  const backchannel = draft.backchannelLogoutUri.trim();
  return {
    name: draft.name.trim(),
    redirect_uris: lines(draft.redirectUris),
    post_logout_redirect_uris: lines(draft.postLogoutRedirectUris),
    grant_types: draft.grantTypes,
    first_party: draft.firstParty,
    ...(backchannel ? { backchannel_logout_uri: backchannel } : editing ? { backchannel_logout_uri: null } : {}),
  };
};

/** The fields a client has; `prefix` keeps the ids of the create and edit forms apart. */
function ClientFields({
  draft,
  setDraft,
  prefix,
  typeFixed,
}: {
  draft: Draft;
  setDraft: (draft: Draft) => void;
  prefix: string;
  typeFixed: boolean;
}) {
  const id = (name: string) => `${prefix}-${name}`;
  return (
    <>
      <label for={id('name')}>Name</label>
      <input
        id={id('name')}
        required
        value={draft.name}
        onInput={(event) => setDraft({ ...draft, name: event.currentTarget.value })}
      />
      <label for={id('type')}>Type</label>
      <select
        id={id('type')}
        disabled={typeFixed}
        value={draft.type}
        onChange={(event) =>
          setDraft({ ...draft, type: event.currentTarget.value === 'public' ? 'public' : 'confidential' })
        }
      >
        <option value="confidential">Confidential (has a secret)</option>
        <option value="public">Public (no secret: browser, mobile or command-line apps)</option>
      </select>
      <label for={id('redirect-uris')}>Redirect URIs (one a line)</label>
      <textarea
        id={id('redirect-uris')}
        rows={3}
        value={draft.redirectUris}
        onInput={(event) => setDraft({ ...draft, redirectUris: event.currentTarget.value })}
      />
      <label for={id('post-logout-uris')}>Post-logout URIs (one a line)</label>
      <textarea
        id={id('post-logout-uris')}
        rows={2}
        value={draft.postLogoutRedirectUris}
        onInput={(event) => setDraft({ ...draft, postLogoutRedirectUris: event.currentTarget.value })}
      />
      <fieldset>
        <legend>Grant types</legend>
        {GRANTS.map((grant) => (
          <label class="inline" key={grant}>
            <input
              type="checkbox"
              checked={draft.grantTypes.includes(grant)}
              onChange={(event) =>
                setDraft({
                  ...draft,
                  grantTypes: event.currentTarget.checked
                    ? [...draft.grantTypes, grant]
                    : draft.grantTypes.filter((held) => held !== grant),
                })
              }
            />
            {grant}
          </label>
        ))}
      </fieldset>
      <label class="inline">
        <input
          type="checkbox"
          checked={draft.firstParty}
          onChange={(event) => setDraft({ ...draft, firstParty: event.currentTarget.checked })}
        />
        First-party application (no consent screen)
      </label>
      <label for={id('backchannel')}>Back-channel logout URI (optional)</label>
      <input
        id={id('backchannel')}
        value={draft.backchannelLogoutUri}
        onInput={(event) => setDraft({ ...draft, backchannelLogoutUri: event.currentTarget.value })}
      />
    </>
  );
}

function CreateClient({ onCreated }: { onCreated: () => void }) {
  const [clientId, setClientId] = useState('');
  const [draft, setDraft] = useState(draftOf());
  const action = useCreation<WithSecret>();
  const submit = (event: Event) => {
    event.preventDefault();
    action.create(
      () =>
        api<WithSecret>('POST', '/admin/clients', {
          ...(clientId.trim() ? { client_id: clientId.trim() } : {}),
          type: draft.type,
          ...bodyOf(draft),
        }),
      'Client created.',
      () => {
        setClientId('');
        setDraft(draftOf());
        onCreated();
      },
    );
  };
  return (
    <section aria-labelledby="create-client-title">
      <h2 id="create-client-title">New client</h2>
      <form onSubmit={submit}>
        <LabelledInput
          id="new-client-id"
          label="Client id (optional: one is made)"
          value={clientId}
          onValue={setClientId}
        />
        <ClientFields draft={draft} setDraft={setDraft} prefix="new-client" typeFixed={false} />
        <button type="submit" disabled={action.busy}>
          Create client
        </button>
      </form>
      <Notice error={action.error} done={action.done} />
      <SecretOnce client={action.created} />
      {action.created && (
        <OpenCreated
          href={`#/clients/${encodeURIComponent(action.created.client_id)}`}
          name={action.created.client_id}
        />
      )}
    </section>
  );
}

export function ClientScreen({ id }: { id: string }) {
  const admin = useAdmin();
  const clientId = decodeURIComponent(id);
  const record = useLoad(() => api<ServiceClient>('GET', `/admin/clients/${encodeURIComponent(clientId)}`), [clientId]);
  return (
    <RecordScreen title={`Client ${clientId}`} back={ALL_CLIENTS} record={record}>
      {(client) => (
        <>
          <dl class="record">
            <dt>Type</dt>
            <dd>{client.type}</dd>
            <dt>Created</dt>
            <dd>{when(client.created_at)}</dd>
            <dt>Changed</dt>
            <dd>{when(client.updated_at)}</dd>
          </dl>
          <EditClient client={client} mayEdit={admin.can('clients.edit')} onSaved={record.reload} />
          {admin.can('clients.edit') && client.type === 'confidential' && <NewSecret client={client} />}
          {admin.can('clients.delete') && (
            <DeleteSection
              titleId="delete-client-title"
              thing="client"
              question={`Delete the client ${client.client_id}? Its tokens stop working.`}
              deleted={`Client ${client.client_id} deleted.`}
              remove={() => api('DELETE', `/admin/clients/${encodeURIComponent(client.client_id)}`)}
              back={ALL_CLIENTS}
            />
          )}
        </>
      )}
    </RecordScreen>
  );
}

function EditClient({ client, mayEdit, onSaved }: { client: ServiceClient; mayEdit: boolean; onSaved: () => void }) {
  const [draft, setDraft] = useState(draftOf(client));
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void action
      .run(
        () => api('PUT', `/admin/clients/${encodeURIComponent(client.client_id)}`, bodyOf(draft, true)),
        'Client saved.',
      )
      .then((ok) => ok && onSaved());
  };
  return (
    <section aria-labelledby="edit-client-title">
      <h2 id="edit-client-title">Settings</h2>
      <form onSubmit={submit}>
        <fieldset disabled={!mayEdit}>
          <legend class="visually-hidden">The client's settings</legend>
          <ClientFields draft={draft} setDraft={setDraft} prefix="edit-client" typeFixed />
        </fieldset>
        {mayEdit && (
          <button type="submit" disabled={action.busy}>
            Save client
          </button>
        )}
      </form>
      <Notice error={action.error} done={action.done} />
    </section>
  );
}

function NewSecret({ client }: { client: ServiceClient }) {
  const [issued, setIssued] = useState<WithSecret | null>(null);
  const action = useAction();
  return (
    <section aria-labelledby="client-secret-title">
      <h2 id="client-secret-title">Secret</h2>
      <p>A new secret replaces the current one at once: the old one is refused from then on.</p>
      <ConfirmButton
        label="New secret"
        question={`Replace the secret of ${client.client_id}? Applications using the current one stop working.`}
        action="Replace the secret"
        disabled={action.busy}
        onConfirm={() =>
          void action.run(async () => {
            const answer = await api<WithSecret | { client_secret: string }>(
              'POST',
              `/admin/clients/${encodeURIComponent(client.client_id)}/secret`,
              {},
            );
            setIssued({ ...client, ...answer });
          })
        }
      />
      <Notice error={action.error} />
      <SecretOnce client={issued} />
    </section>
  );
}
