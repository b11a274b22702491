import { useEffect, useState } from 'preact/hooks';
import { api, type Settings } from './api';
import { useAdmin } from './admin';
import { Notice, Screen, useAction, useLoad } from './ui';

const LABELS: Record<string, string> = {
  email_password: 'Sign-in with email and password',
  mobile_otp: 'Sign-in with a code sent by SMS',
  email_code: 'Sign-in with a code sent by email',
};

/** A flag this console does not know yet, in words: `magic_link` → "Magic link". */
const labelOf = (name: string): string =>
  LABELS[name] ?? name.replace(/_/g, ' ').replace(/^./, (first) => first.toUpperCase());

export function SettingsScreen() {
  const admin = useAdmin();
  const mayEdit = admin.can('settings.edit');
  const settings = useLoad(() => api<Settings>('GET', '/admin/settings'), []);
  const [flags, setFlags] = useState<Settings>({});
  const action = useAction();
  useEffect(() => {
    if (settings.data) setFlags(settings.data);
  }, [settings.data]);
  const save = (event: Event) => {
    event.preventDefault();
    void action.run(() => api('PUT', '/admin/settings', flags), 'Settings saved.');
  };
  const names = Object.keys(flags).filter((name) => typeof flags[name] === 'boolean');
  return (
    <Screen title="Settings">
      <Notice error={settings.error} />
      {settings.data && (
        <form onSubmit={save}>
          <fieldset>
            <legend>Login methods</legend>
            {names.map((name) => (
              <label class="inline" key={name}>
                <input
                  type="checkbox"
                  name={name}
                  checked={flags[name]}
                  disabled={!mayEdit}
                  onChange={(event) => setFlags({ ...flags, [name]: event.currentTarget.checked })}
                />
                {labelOf(name)}
              </label>
            ))}
          </fieldset>
          {mayEdit && (
            <button type="submit" disabled={action.busy}>
              Save settings
            </button>
          )}
        </form>
      )}
      <Notice error={action.error} done={action.done} />
    </Screen>
  );
}
