import { useEffect, useRef, useState } from 'preact/hooks';
import { api, offeredOperations, type Challenge, type SecondFactor } from './api';
import { LabelledInput, Notice, useAction, useLoad } from './ui';

const FACTOR_LABELS: Record<SecondFactor, string> = {
  sms: 'Code sent by SMS',
  totp: 'Code from the authenticator app',
  recovery: 'Recovery code',
  passkey: 'Passkey',
};

/** The factors a challenge accepts: its `methods`, else the SMS code it sent or the app's. */
function factorsOf(challenge: Challenge): SecondFactor[] {
  const offered = challenge.methods ?? (challenge.mobile_masked ? ['sms'] : ['totp', 'recovery']);
  return offered.filter((method): method is SecondFactor => method in FACTOR_LABELS);
}

/** Email and password, then the second factor the account has, if the service asks for one. */
export function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [challenge, setChallenge] = useState<Challenge | null>(null);
  const [method, setMethod] = useState<SecondFactor>('sms');
  const [code, setCode] = useState('');
  // A challenge that offers an app texts no SMS until asked (send-2fa); an SMS-only one has sent it.
  const [smsSent, setSmsSent] = useState(false);
  const action = useAction();
  const codeField = useRef<HTMLInputElement>(null);
  // The code field takes the focus when the second step opens, and when the method changes.
  useEffect(() => codeField.current?.focus(), [challenge, method]);
  // Sign-in without a password, where the service offers passkeys.
  const passkeys = useLoad(
    () => offeredOperations().then((operations) => operations?.has('POST /api/auth/passkey/options') ?? false),
    [],
  );

  const signInWithPasskey = () =>
    void action.run(async () => {
      const options = await api('POST', '/auth/passkey/options', email.trim() ? { email: email.trim() } : {});
      await api('POST', '/auth/passkey/verify', await passkeyAssertion(options));
      onSignedIn();
    });

  const submitPassword = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const outcome = await api<Challenge | { access_token: string }>('POST', '/auth/login', { email, password });
      if ('requires_otp' in outcome && outcome.requires_otp) {
        setChallenge(outcome);
        setSmsSent(!outcome.methods);
        setMethod(factorsOf(outcome)[0] ?? 'sms');
        setCode('');
      } else onSignedIn();
    });
  };

  const sendSms = () =>
    void action.run(async () => {
      if (!challenge) return;
      await api('POST', '/auth/otp/send-2fa', { temp_token: challenge.temp_token });
      setSmsSent(true);
    });

  const submitCode = (event: Event) => {
    event.preventDefault();
    if (!challenge) return;
    void action.run(async () => {
      if (method === 'passkey') {
        const assertion = await passkeyAssertion(challenge.passkey_options);
        await api('POST', '/auth/otp/verify-2fa', { temp_token: challenge.temp_token, method, assertion });
      } else {
        await api('POST', '/auth/otp/verify-2fa', { temp_token: challenge.temp_token, method, code: code.trim() });
      }
      onSignedIn();
    });
  };

  if (challenge) {
    const factors = factorsOf(challenge);
    return (
      <main class="sign-in">
        <h1>Second factor</h1>
        <form onSubmit={submitCode}>
          {factors.length > 1 && (
            <fieldset>
              <legend>Method</legend>
              {factors.map((factor) => (
                <label class="inline" key={factor}>
                  <input
                    type="radio"
                    name="method"
                    value={factor}
                    checked={method === factor}
                    onChange={() => setMethod(factor)}
                  />
                  {FACTOR_LABELS[factor]}
                </label>
              ))}
            </fieldset>
          )}
          {method === 'sms' && challenge.mobile_masked && smsSent && (
            <p>A code was sent to {challenge.mobile_masked}.</p>
          )}
          {method === 'sms' && challenge.mobile_masked && (
            <button type="button" class="secondary" disabled={action.busy} onClick={sendSms}>
              {smsSent ? 'Send another code' : `Text a code to ${challenge.mobile_masked}`}
            </button>
          )}
          {method !== 'passkey' && (
            <>
              <label for="code">{FACTOR_LABELS[method]}</label>
              <input
                id="code"
                ref={codeField}
                name="code"
                autocomplete="one-time-code"
                inputMode={method === 'recovery' ? 'text' : 'numeric'}
                required
                value={code}
                onInput={(event) => setCode(event.currentTarget.value)}
              />
            </>
          )}
          <button type="submit" disabled={action.busy}>
            {method === 'passkey' ? 'Use a passkey' : 'Verify'}
          </button>
          <button type="button" class="secondary" onClick={() => setChallenge(null)}>
            Start again
          </button>
        </form>
        <Notice error={action.error} />
      </main>
    );
  }

  return (
    <main class="sign-in">
      <h1>Admin console</h1>
      <form onSubmit={submitPassword}>
        <LabelledInput
          id="email"
          label="Email"
          name="email"
          type="email"
          autocomplete="username"
          required
          value={email}
          onValue={setEmail}
        />
        <LabelledInput
          id="password"
          label="Password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
          value={password}
          onValue={setPassword}
        />
        <button type="submit" disabled={action.busy}>
          Sign in
        </button>
        {passkeys.data && (
          <button type="button" class="secondary" disabled={action.busy} onClick={signInWithPasskey}>
            Sign in with a passkey
          </button>
        )}
      </form>
      <Notice error={action.error} />
    </main>
  );
}

/** The WebAuthn assertion for a challenge's `passkey_options`, in its JSON form. */
async function passkeyAssertion(options: unknown): Promise<unknown> {
  if (typeof PublicKeyCredential === 'undefined') throw new Error('This browser cannot use a passkey here.');
  const parse = (
    PublicKeyCredential as unknown as {
      parseRequestOptionsFromJSON?: (json: unknown) => PublicKeyCredentialRequestOptions;
    }
  ).parseRequestOptionsFromJSON;
  if (!parse || !options) throw new Error('This browser cannot use a passkey here.');
  const credential = (await navigator.credentials.get({ publicKey: parse(options) })) as
    (PublicKeyCredential & { toJSON(): unknown }) | null;
  if (!credential) throw new Error('No passkey was chosen.');
  return credential.toJSON();
}
