export { ClientsModule } from './clients.module.js';
export { BrowserOrigins } from './browser-origins.js';
export { ClientRolesService } from './client-roles.service.js';
export {
  ClientFieldsError,
  ClientsService,
  type Client,
  type ClientCheck,
  type ClientDeletedListener,
  type ClientOrigin,
  type ClientWithSecret,
} from './clients.service.js';
export {
  CLIENT_ID,
  DEFAULT_GRANT_TYPES,
  GRANT_TYPES,
  checkClientFields,
  clientIdProblem,
  type ClientFields,
  type FieldProblem,
  type GrantType,
} from './client-rules.js';
export {
  LOOPBACK_HOSTS,
  clientUriProblem,
  isLoopbackUri,
  matchesRegisteredUri,
  type ClientType,
  type ClientUriKind,
} from './redirect-uris.js';
