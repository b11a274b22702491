/**
 * An upstream identity provider as the admin API answers it (`/api/admin/identity-providers`):
 * never its client secret. This file imports nothing, so the admin console reads the same
 * declaration (with each Date as the string JSON carries).
 */
export interface IdentityProviderResponse {
  id: string;
  slug: string;
  name: string;
  type: 'oidc' | 'github';
  issuer: string | null;
  client_id: string;
  scopes: string[];
  trust_email: boolean;
  allow_sign_up: boolean;
  enabled: boolean;
  /** The callback URL to register at the upstream. */
  redirect_uri: string;
  created_at: Date;
  updated_at: Date;
}
