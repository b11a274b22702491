import { useState } from 'preact/hooks';
import type { IdentityProviderResponse } from '../../upstream/identity-provider-response';
import { api, ApiError, type Json } from './api';
import { useAdmin } from './admin';
import { DeleteSection, OpenCreated, RecordScreen, type ListLink } from './records';
import { Table } from './lists';
import { Notice, Screen, useAction, useCreation, useLoad, when } from './ui';

/** An upstream identity provider as the admin API answers it (never its secret). */
export type IdentityProvider = Json<IdentityProviderResponse>;

const BASE = '/admin/identity-providers';
const path = (slug: string) => `${BASE}/${encodeURIComponent(slug)}`;

const ALL_PROVIDERS: ListLink = { href: '#/identity-providers', text: 'All identity providers' };

/**
 * The API's refusal with the reasons it gives per field ("issuer: the issuer's discovery document
 * could not be read"): a validation refusal's message alone says only that the request is invalid.
 */
async function explained<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    const details = error instanceof ApiError ? error.details : [];
    if (!(error instanceof ApiError) || details.length === 0) throw error;
    const reasons = details.map((detail) => (detail.field ? `${detail.field}: ${detail.message}` : detail.message));
    throw new ApiError(error.status, error.code, `${error.message} ${reasons.join('; ')}`);
  }
}

export function IdentityProvidersScreen() {
  const admin = useAdmin();
  const providers = useLoad(() => api<{ items: IdentityProvider[]; total: number }>('GET', BASE), []);
  return (
    <Screen title="Identity providers">
      <p>
        People sign in with these on the sign-in pages (<strong>Continue with …</strong>). Register each provider&apos;s
        callback URL at the provider.
      </p>
      <Notice error={providers.error} />
      {providers.data && (
        <>
          <Table caption="Identity providers" columns={['Name', 'Slug', 'Type', 'Email trusted', 'State']}>
            {providers.data.items.map((provider) => (
              <tr key={provider.slug}>
                <td>
                  <a href={`#/identity-providers/${encodeURIComponent(provider.slug)}`}>{provider.name}</a>
                </td>
                <td>
                  <code>{provider.slug}</code>
                </td>
                <td>{provider.type === 'github' ? 'GitHub' : 'OpenID Connect'}</td>
                <td>{provider.trust_email ? 'yes' : 'no'}</td>
                <td>{provider.enabled ? 'enabled' : 'disabled'}</td>
              </tr>
            ))}
          </Table>
          {providers.data.items.length === 0 && <p>No identity provider yet.</p>}
        </>
      )}
      {admin.can('settings.edit') && <CreateProvider onCreated={providers.reload} />}
    </Screen>
  );
}

interface Draft {
  name: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes: string;
  trustEmail: boolean;
  allowSignUp: boolean;
}

const draftOf = (provider?: IdentityProvider): Draft => ({
  name: provider?.name ?? '',
  issuer: provider?.issuer ?? '',
  clientId: provider?.client_id ?? '',
  clientSecret: '',
  scopes: (provider?.scopes ?? []).join(' '),
  trustEmail: provider?.trust_email ?? false,
  allowSignUp: provider?.allow_sign_up ?? true,
});

/** The request's fields; an empty issuer or secret is left out (github.com; the secret unchanged). */
const bodyOf = (draft: Draft) => ({
  name: draft.name.trim(),
  ...(draft.issuer.trim() ? { issuer: draft.issuer.trim() } : {}),
  client_id: draft.clientId.trim(),
  ...(draft.clientSecret ? { client_secret: draft.clientSecret } : {}),
  scopes: draft.scopes.split(/\s+/).filter(Boolean),
  trust_email: draft.trustEmail,
  allow_sign_up: draft.allowSignUp,
});

function ProviderFields({
  draft,
  setDraft,
  prefix,
  type,
  editing,
}: {
  draft: Draft;
  setDraft: (draft: Draft) => void;
  prefix: string;
  type: 'oidc' | 'github';
  editing: boolean;
}) {
  const id = (name: string) => `${prefix}-${name}`;
  const text = (name: keyof Draft, label: string, extra: Record<string, unknown> = {}) => (
    <>
      <label for={id(name)}>{label}</label>
      <input
        id={id(name)}
        {...extra}
        value={draft[name] as string}
        onInput={(event) => setDraft({ ...draft, [name]: event.currentTarget.value })}
      />
    </>
  );
  return (
    <>
      {text('name', 'Name (on the button “Continue with …”)', { required: true })}
      {text(
        'issuer',
        type === 'github' ? 'GitHub Enterprise Server URL (empty: github.com)' : 'Issuer URL',
        type === 'oidc' ? { required: true } : {},
      )}
      {text('clientId', 'Client id', { required: true })}
      {text('clientSecret', editing ? 'Client secret (empty: unchanged)' : 'Client secret', {
        type: 'password',
        autocomplete: 'off',
        required: !editing,
      })}
      {text('scopes', 'Scopes (space-separated; empty: the default)')}
      <label class="inline">
        <input
          type="checkbox"
          checked={draft.trustEmail}
          onChange={(event) => setDraft({ ...draft, trustEmail: event.currentTarget.checked })}
        />
        Trust its verified email addresses (links to an existing account on its word)
      </label>
      <label class="inline">
        <input
          type="checkbox"
          checked={draft.allowSignUp}
          onChange={(event) => setDraft({ ...draft, allowSignUp: event.currentTarget.checked })}
        />
        New people may get an account
      </label>
    </>
  );
}

function CreateProvider({ onCreated }: { onCreated: () => void }) {
  const [slug, setSlug] = useState('');
  const [type, setType] = useState<'oidc' | 'github'>('oidc');
  const [draft, setDraft] = useState(draftOf());
  const action = useCreation<IdentityProvider>();
  const submit = (event: Event) => {
    event.preventDefault();
    action.create(
      () => explained(api<IdentityProvider>('POST', BASE, { slug: slug.trim(), type, ...bodyOf(draft) })),
      'Identity provider created.',
      () => {
        setSlug('');
        setDraft(draftOf());
        onCreated();
      },
    );
  };
  return (
    <section aria-labelledby="create-provider-title">
      <h2 id="create-provider-title">New identity provider</h2>
      <form onSubmit={submit}>
        <label for="new-provider-slug">Slug (in the callback URL; cannot change)</label>
        <input id="new-provider-slug" required value={slug} onInput={(event) => setSlug(event.currentTarget.value)} />
        <label for="new-provider-type">Type</label>
        <select
          id="new-provider-type"
          value={type}
          onChange={(event) => setType(event.currentTarget.value === 'github' ? 'github' : 'oidc')}
        >
          <option value="oidc">OpenID Connect (Google, Microsoft, Keycloak, …)</option>
          <option value="github">GitHub</option>
        </select>
        <ProviderFields draft={draft} setDraft={setDraft} prefix="new-provider" type={type} editing={false} />
        <button type="submit" disabled={action.busy}>
          Create identity provider
        </button>
      </form>
      <Notice error={action.error} done={action.done} />
      {action.created && (
        <OpenCreated
          href={`#/identity-providers/${encodeURIComponent(action.created.slug)}`}
          name={action.created.name}
        >
          Register this callback URL at the provider: <code class="wrap">{action.created.redirect_uri}</code>{' '}
        </OpenCreated>
      )}
    </section>
  );
}

export function IdentityProviderScreen({ id }: { id: string }) {
  const admin = useAdmin();
  const slug = decodeURIComponent(id);
  const record = useLoad(() => api<IdentityProvider>('GET', path(slug)), [slug]);
  const mayEdit = admin.can('settings.edit');
  // The settings form starts afresh from each saved record (its key), so the word that the save
  // went through is kept here, where the new form shows it, until another change is made.
  const [saved, setSaved] = useState<string | null>(null);
  return (
    <RecordScreen title={`Identity provider ${slug}`} back={ALL_PROVIDERS} record={record}>
      {(provider) => (
        <>
          <dl class="record">
            <dt>Type</dt>
            <dd>{provider.type === 'github' ? 'GitHub' : 'OpenID Connect'}</dd>
            <dt>Callback URL</dt>
            <dd>
              <code class="wrap">{provider.redirect_uri}</code>
            </dd>
            <dt>State</dt>
            <dd>{provider.enabled ? 'enabled' : 'disabled'}</dd>
            <dt>Changed</dt>
            <dd>{when(provider.updated_at)}</dd>
          </dl>
          <EditProvider
            key={provider.updated_at}
            provider={provider}
            mayEdit={mayEdit}
            saved={saved}
            onSaved={() => {
              setSaved('Identity provider saved.');
              record.reload();
            }}
          />
          {mayEdit && (
            <EnableProvider
              provider={provider}
              onSaved={() => {
                setSaved(null);
                record.reload();
              }}
            />
          )}
          {mayEdit && (
            <DeleteSection
              titleId="delete-provider-title"
              thing="identity provider"
              question={`Delete ${provider.name}? The identities linked through it go with it.`}
              deleted={`Identity provider ${provider.slug} deleted.`}
              remove={() => explained(api('DELETE', path(provider.slug)))}
              back={ALL_PROVIDERS}
            />
          )}
        </>
      )}
    </RecordScreen>
  );
}

function EditProvider({
  provider,
  mayEdit,
  saved,
  onSaved,
}: {
  provider: IdentityProvider;
  mayEdit: boolean;
  /** What the last save of an earlier form said, shown until this form's own action speaks. */
  saved: string | null;
  onSaved: () => void;
}) {
  const [draft, setDraft] = useState(draftOf(provider));
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void action
      .run(() => explained(api('PUT', path(provider.slug), bodyOf(draft))), 'Identity provider saved.')
      .then((ok) => ok && onSaved());
  };
  return (
    <section aria-labelledby="edit-provider-title">
      <h2 id="edit-provider-title">Settings</h2>
      <form onSubmit={submit}>
        <fieldset disabled={!mayEdit}>
          <legend class="visually-hidden">The identity provider's settings</legend>
          <ProviderFields draft={draft} setDraft={setDraft} prefix="edit-provider" type={provider.type} editing />
        </fieldset>
        {mayEdit && (
          <button type="submit" disabled={action.busy}>
            Save identity provider
          </button>
        )}
      </form>
      <Notice error={action.error} done={action.done ?? (action.busy ? null : saved)} />
    </section>
  );
}

function EnableProvider({ provider, onSaved }: { provider: IdentityProvider; onSaved: () => void }) {
  const action = useAction();
  const enabled = provider.enabled;
  return (
    <section aria-labelledby="enable-provider-title">
      <h2 id="enable-provider-title">Availability</h2>
      <p>
        {enabled
          ? 'Disabled, it signs nobody in and links nothing, including sign-ins already started.'
          : 'Disabled: its button is not shown and it signs nobody in.'}
      </p>
      <button
        type="button"
        class={enabled ? 'secondary' : undefined}
        disabled={action.busy}
        onClick={() =>
          void action
            .run(
              () => explained(api('PUT', path(provider.slug), { enabled: !enabled })),
              enabled ? 'Identity provider disabled.' : 'Identity provider enabled.',
            )
            .then((ok) => ok && onSaved())
        }
      >
        {enabled ? 'Disable identity provider' : 'Enable identity provider'}
      </button>
      <Notice error={action.error} done={action.done} />
    </section>
  );
}
