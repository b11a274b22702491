export { AccountChangesRepository } from './account-changes.repository.js';
export { assertMaySignIn, isDisabled, maySignInSql, type AccountStatus } from './account-status.js';
export { IdentityModule } from './identity.module.js';
export { NewAccountFields } from './new-account-fields.js';
export { PasswordHasher } from './password-hasher.js';
export { IsNewPassword, MatchesField, PasswordLength } from './password-rules.js';
export {
  UsersRepository,
  userWithPasswordSql,
  type AccountChanges,
  type SignInAccount,
  type NewUser,
  type UserRow,
  type UserIdentityRow,
  type UserWithPassword,
} from './users.repository.js';
export {
  UpstreamIdentitiesRepository,
  type UpstreamIdentityListing,
  type UpstreamIdentityRow,
} from './upstream-identities.repository.js';
