/**
 * An error of the token and revocation endpoints, answered in RFC 6749 §5.2's shape
 * (`{"error": "...", "error_description": "..."}`), bare JSON, never the envelope.
 */
export class OAuthError extends Error {
  constructor(
    readonly status: 400 | 401 | 429,
    readonly error:
      | 'invalid_request'
      | 'invalid_client'
      | 'invalid_grant'
      | 'unauthorized_client'
      | 'unsupported_grant_type'
      | 'invalid_scope'
      | 'temporarily_unavailable',
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }

  body(): { error: string; error_description: string } {
    return { error: this.error, error_description: this.description };
  }
}
