export { IdentityProvidersService } from './identity-providers.service.js';
export { UPSTREAM_BINDING_COOKIE, UPSTREAM_COOKIE_OPTIONS, UPSTREAM_LINK_COOKIE } from './upstream-cookies.js';
export {
  UpstreamSignInService,
  type LinkProofResult,
  type UpstreamButton,
  type UpstreamOutcome,
} from './upstream-sign-in.service.js';
export { UpstreamModule } from './upstream.module.js';
