import { useCallback, useEffect, useState } from 'preact/hooks';
import { AdminContext, type Admin } from './admin';
import { api, whenSignedOut, type Me } from './api';
import { AuditScreen } from './audit';
import { ClientScreen, ClientsScreen } from './clients';
import { IdentityProviderScreen, IdentityProvidersScreen } from './identity-providers';
import { ORGANIZATION } from './kinds';
import { OrganizationScreen, OrganizationsScreen } from './organizations';
import { PermissionsScreen } from './permissions';
import { RoleScreen, RolesScreen } from './roles';
import { SettingsScreen } from './settings';
import { SignIn } from './sign-in';
import { UserScreen, UsersScreen } from './users';

/** The hash route: `#/users/<id>` → ['users', '<id>']. */
function useRoute(): string[] {
  const read = () => window.location.hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const onChange = () => setRoute(read());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

const SCREENS = [
  { path: 'users', label: 'Users', permission: 'users.view' },
  { path: 'roles', label: 'Roles', permission: 'roles.view' },
  { path: 'permissions', label: 'Permissions', permission: 'roles.view' },
  { path: 'clients', label: 'Clients', permission: 'clients.view' },
  { path: 'identity-providers', label: 'Identity providers', permission: 'settings.view' },
  { path: 'organizations', label: 'Organizations', permission: 'organizations.view' },
  { path: 'organization-roles', label: 'Organization roles', permission: 'roles.view' },
  { path: 'organization-permissions', label: 'Organization permissions', permission: 'roles.view' },
  { path: 'audit', label: 'Audit events', permission: 'audit.view' },
  { path: 'settings', label: 'Settings', permission: 'settings.view' },
];

export function App() {
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const route = useRoute();

  const load = useCallback(() => {
    api<Me>('GET', '/auth/me').then(setMe, () => setMe(null));
  }, []);
  useEffect(() => {
    whenSignedOut(() => setMe(null));
    load();
  }, [load]);

  if (me === undefined) return <p class="loading">Loading…</p>;
  if (me === null) return <SignIn onSignedIn={load} />;

  const admin: Admin = {
    me,
    can: (permission) => me.permissions.includes(permission),
  };
  const screens = SCREENS.filter((screen) => admin.can(screen.permission));
  const [first, id] = route.length > 0 ? route : [screens[0]?.path ?? ''];
  const signOut = () => {
    void api('POST', '/auth/logout').finally(() => setMe(null));
  };

  return (
    <AdminContext.Provider value={admin}>
      <a
        class="skip"
        href="#main"
        onClick={(event) => (event.preventDefault(), document.getElementById('main')?.focus())}
      >
        Skip to content
      </a>
      <header class="top">
        <strong class="brand">Admin console</strong>
        <nav aria-label="Screens">
          <ul>
            {screens.map((screen) => (
              <li key={screen.path}>
                <a href={`#/${screen.path}`} aria-current={first === screen.path ? 'page' : undefined}>
                  {screen.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="who">
          {me.email}{' '}
          <button type="button" class="secondary" onClick={signOut}>
            Sign out
          </button>
        </span>
      </header>
      <main id="main" tabIndex={-1}>
        {screenFor(first, id, admin)}
      </main>
    </AdminContext.Provider>
  );
}

function screenFor(path: string | undefined, id: string | undefined, admin: Admin) {
  const allowed = SCREENS.find((screen) => screen.path === path);
  if (!allowed) return <p>This account holds none of the permissions the console's screens need.</p>;
  if (!admin.can(allowed.permission)) return <p>This account may not open this screen.</p>;
  switch (path) {
    case 'users':
      return id ? <UserScreen id={id} key={id} /> : <UsersScreen />;
    case 'roles':
      return id ? <RoleScreen id={id} key={id} /> : <RolesScreen />;
    case 'permissions':
      return <PermissionsScreen />;
    case 'clients':
      return id ? <ClientScreen id={id} key={id} /> : <ClientsScreen />;
    case 'identity-providers':
      return id ? <IdentityProviderScreen id={id} key={id} /> : <IdentityProvidersScreen />;
    case 'organizations':
      return id ? <OrganizationScreen id={id} key={id} /> : <OrganizationsScreen />;
    case 'organization-roles':
      return id ? (
        <RoleScreen id={id} key={id} kind={ORGANIZATION} />
      ) : (
        <RolesScreen kind={ORGANIZATION} key="organization-roles" />
      );
    case 'organization-permissions':
      return <PermissionsScreen kind={ORGANIZATION} key="organization-permissions" />;
    case 'audit':
      return <AuditScreen />;
    default:
      return <SettingsScreen />;
  }
}
