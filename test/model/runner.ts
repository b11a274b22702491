/**
 * Random admin histories against the real service (fast-check's model-based testing): each step
 * is an admin write sent through HTTP as a random actor, checked against the model's prediction,
 * against the database (read back with SQL), and against the invariants. A pair step sends two
 * writes at once and accepts the outcome of either order. On a failure fast-check shrinks the
 * history, and the shortest one is printed as HTTP calls.
 */
import fc from 'fast-check';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Response } from 'supertest';
import type { DataSource } from 'typeorm';
import {
  apiAgrees,
  effectivePermissionIds,
  noActionAbove,
  noEscalation,
  stateInvariants,
  stepInvariants,
  type Snapshot,
  type Violation,
} from './invariants.js';
import {
  cloneState,
  httpCall,
  NEW_USER_PASSWORD,
  ORGANIZATION_KINDS,
  predict,
  type Action,
  type ModelState,
  type Prediction,
} from './model.js';
import {
  lastOwnerKept,
  organizationStepInvariants,
  organizationTokenAgrees,
  type OrganizationSnapshot,
} from './organization-model.js';
import {
  buildWorld,
  describeCall,
  difference,
  organizationDifference,
  readFixed,
  readOrganizations,
  readSnapshot,
  relabel,
  send,
  toOrganizationSnapshot,
  toSnapshot,
  type Fixed,
  type Real,
  type WorldSpec,
} from './world.js';

const KINDS = [
  'createRole',
  'updateRole',
  'deleteRole',
  'createPermission',
  'updatePermission',
  'deletePermission',
  'addRoles',
  'replaceRoles',
  'removeRole',
  'editUser',
  'disableUser',
  'enableUser',
  'deleteUser',
  'createUser',
  'settings',
  'signIn',
] as const;

/** A step before it meets a state: indexes, resolved against the lists of the moment. */
export interface Step {
  kind: (typeof KINDS)[number] | (typeof ORGANIZATION_KINDS)[number];
  actor: number;
  /** For an organization step: the actor is one of the organization's members (else anyone). */
  inside?: boolean;
  target: number;
  picks: number[];
  name: number;
  flag: boolean;
}

const ROLE_NAMES = ['role-x', 'Role-X', 'role-a', 'admin', 'USER', 'auditors'];
const PERMISSION_NAMES = ['reports.view', 'reports.edit', 'users.edit', 'billing.pay', 'contents.view', 'audit.view'];
const SYSTEM_PERMISSIONS = 15;

const instanceStepArb: fc.Arbitrary<Step> = fc.record({
  kind: fc.constantFrom(...KINDS),
  actor: fc.nat(7),
  target: fc.nat(7),
  picks: fc.uniqueArray(fc.nat(19), { maxLength: 4 }),
  name: fc.nat(ROLE_NAMES.length - 1),
  flag: fc.boolean(),
});

const organizationStepArb: fc.Arbitrary<Step> = fc.record({
  // The writes inside an organization, where the policy is judged, come more often.
  kind: fc.constantFrom(
    ...ORGANIZATION_KINDS,
    'setMemberRoles',
    'setMemberRoles',
    'removeMember',
    'inviteMember',
    'acceptInvitation',
  ),
  actor: fc.nat(7),
  inside: fc.constantFrom(true, true, false),
  target: fc.nat(7),
  picks: fc.uniqueArray(fc.nat(19), { maxLength: 3 }),
  name: fc.nat(ROLE_NAMES.length - 1),
  flag: fc.boolean(),
});

/** Single steps: the instance's writes and the organizations', half and half (pairs are the instance's). */
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: instanceStepArb },
  { weight: 3, arbitrary: organizationStepArb },
);

/** Pairs worth racing, besides random ones: removals of admin, and a grant racing a role edit. */
const pairArb: fc.Arbitrary<[Step, Step]> = fc.oneof(
  fc.tuple(instanceStepArb, instanceStepArb),
  fc
    .tuple(
      fc.nat(7),
      fc.nat(7),
      fc.nat(7),
      fc.nat(7),
      fc.constantFrom('removeRole', 'deleteUser', 'disableUser', 'replaceRoles'),
    )
    .map(([a, b, ta, tb, kind]): [Step, Step] => [
      { kind, actor: a, target: ta, picks: [0], name: 0, flag: false } as Step,
      { kind, actor: b, target: tb, picks: kind === 'replaceRoles' ? [1] : [0], name: 0, flag: false } as Step,
    ]),
  fc
    .tuple(fc.nat(7), fc.nat(7), fc.nat(7), fc.nat(4), fc.uniqueArray(fc.nat(19), { maxLength: 4 }))
    .map(([a, b, user, role, picks]): [Step, Step] => [
      { kind: 'addRoles', actor: a, target: user, picks: [2 + role], name: 0, flag: false } as Step,
      { kind: 'updateRole', actor: b, target: 2 + role, picks, name: 0, flag: true } as Step,
    ]),
);

export const worldArb: fc.Arbitrary<WorldSpec> = fc.record({
  userRolePermissions: fc.oneof(
    { weight: 3, arbitrary: fc.constant([] as number[]) },
    { weight: 1, arbitrary: fc.uniqueArray(fc.nat(SYSTEM_PERMISSIONS - 1), { maxLength: 2 }) },
  ),
  customRoles: fc.array(fc.uniqueArray(fc.nat(SYSTEM_PERMISSIONS - 1), { maxLength: 8 }), {
    minLength: 1,
    maxLength: 3,
  }),
  users: fc.array(
    fc.record({
      roles: fc.uniqueArray(fc.nat(4), { maxLength: 3 }),
      disabled: fc.constantFrom(false, false, false, true),
    }),
    { minLength: 2, maxLength: 4 },
  ),
  // Custom roles of the template, often with members.* (the first system organization permissions
  // by name) so that members who manage members, below the owners, are common.
  organizationRoles: fc.array(
    fc.oneof(
      fc.uniqueArray(fc.nat(6), { maxLength: 5 }),
      fc.uniqueArray(fc.nat(6), { maxLength: 3 }).map((picks) => [0, ...picks.filter((pick) => pick !== 0)]),
    ),
    { minLength: 1, maxLength: 2 },
  ),
  organizations: fc.array(
    fc.record({
      members: fc.array(fc.record({ user: fc.nat(3), roles: fc.uniqueArray(fc.nat(3), { maxLength: 2 }) }), {
        minLength: 2,
        maxLength: 4,
      }),
    }),
    { minLength: 1, maxLength: 2 },
  ),
});

/** The action a step names in this state, or null when the state has nothing for it. */
export function resolve(step: Step, state: ModelState, serial: { next: number }): Action | null {
  const users = state.users;
  if (users.length === 0) return null;
  const at = <T>(list: T[], index: number) => list[index % list.length];
  const actor = at(users, step.actor).id;
  const user = at(users, step.target).id;
  const role = at(state.roles, step.target).id;
  const permission = at(state.permissions, step.target).id;
  const roleIds = [...new Set(step.picks.map((pick) => at(state.roles, pick).id))];
  const permissionIds = [...new Set(step.picks.map((pick) => at(state.permissions, pick).id))];
  if ((ORGANIZATION_KINDS as readonly string[]).includes(step.kind)) return resolveOrganization(step, state, serial);
  switch (step.kind) {
    case 'createRole':
      return { kind: 'createRole', actor, name: ROLE_NAMES[step.name % ROLE_NAMES.length], permissionIds };
    case 'updateRole':
      return step.flag
        ? { kind: 'updateRole', actor, roleId: role, permissionIds }
        : { kind: 'updateRole', actor, roleId: role, name: ROLE_NAMES[step.name % ROLE_NAMES.length] };
    case 'deleteRole':
      return { kind: 'deleteRole', actor, roleId: role };
    case 'createPermission':
      return { kind: 'createPermission', actor, name: PERMISSION_NAMES[step.name % PERMISSION_NAMES.length] };
    case 'updatePermission':
      return step.flag
        ? {
            kind: 'updatePermission',
            actor,
            permissionId: permission,
            name: PERMISSION_NAMES[step.name % PERMISSION_NAMES.length],
          }
        : { kind: 'updatePermission', actor, permissionId: permission, displayName: `Shown ${step.name}` };
    case 'deletePermission':
      return { kind: 'deletePermission', actor, permissionId: permission };
    case 'addRoles':
    case 'replaceRoles':
      return { kind: step.kind, actor, userId: user, roleIds };
    case 'removeRole':
      return { kind: 'removeRole', actor, userId: user, roleId: at(state.roles, step.picks[0] ?? step.name).id };
    case 'editUser':
      return {
        kind: 'editUser',
        actor,
        userId: user,
        name: `Renamed ${step.name}`,
        ...(step.flag && { password: NEW_USER_PASSWORD }),
      };
    case 'disableUser':
    case 'enableUser':
    case 'deleteUser':
      return { kind: step.kind, actor, userId: user };
    case 'createUser':
      return { kind: 'createUser', actor, email: `model-made-${serial.next++}-${Date.now().toString(36)}@example.com` };
    case 'settings':
      return { kind: 'settings', actor, body: step.name % 2 ? { mobile_otp: step.flag } : { email_code: step.flag } };
    case 'signIn':
      return { kind: 'signIn', userId: user };
  }
  return null;
}

/** An organization step in this state: an organization, a member or anyone, roles of the template. */
function resolveOrganization(step: Step, state: ModelState, serial: { next: number }): Action | null {
  const at = <T>(list: T[], index: number) => list[index % list.length];
  const organization = state.organizations.length ? at(state.organizations, step.name) : undefined;
  const anyone = at(state.users, step.actor).id;
  const members = organization?.members.filter((member) => state.users.some((user) => user.id === member.userId));
  // With the flag, a member below the owners (if any): the one the policy inside binds.
  const owner = state.organizationRoles.find((role) => role.name === 'owner' && role.isSystem)?.id;
  const below = members?.filter((member) => !member.roleIds.includes(owner ?? ''));
  const insiders = step.flag && below?.length ? below : members;
  const actor = step.inside && insiders?.length ? at(insiders, step.actor).userId : anyone;
  const user = at(state.users, step.target).id;
  const roleIds = [...new Set(step.picks.map((pick) => at(state.organizationRoles, pick).id))];
  switch (step.kind) {
    case 'createOrganization':
      return {
        kind: 'createOrganization',
        actor,
        slug: step.flag && organization ? organization.slug : `model-${serial.next++}-${Date.now().toString(36)}`,
      };
    case 'updateOrganizationRole':
      return {
        kind: 'updateOrganizationRole',
        actor: anyone,
        roleId: at(state.organizationRoles, step.target).id,
        permissionIds: [...new Set(step.picks.map((pick) => at(state.organizationPermissions, pick).id))],
      };
    case 'acceptInvitation': {
      const sent = state.invitations.filter((row) => row.token !== undefined);
      if (sent.length === 0) return null;
      const invitation = at(sent, step.target);
      // Mostly the invitee; sometimes someone else, whose address is not the invitation's.
      return { kind: 'acceptInvitation', actor: step.flag ? anyone : invitation.userId, invitationId: invitation.id };
    }
  }
  if (!organization) return null;
  const organizationId = organization.id;
  switch (step.kind) {
    case 'viewOrganization':
    case 'deleteOrganization':
    case 'organizationToken':
      return { kind: step.kind, actor, organizationId };
    case 'addMember':
      return { kind: 'addMember', actor, organizationId, userId: user, roleIds };
    case 'inviteMember': {
      const invitees = state.users.filter((row) => row.verified);
      if (invitees.length === 0) return null;
      return { kind: 'inviteMember', actor, organizationId, userId: at(invitees, step.target).id, roleIds };
    }
    case 'setMemberRoles':
    case 'removeMember': {
      // Mostly a member; sometimes anyone (a non-member target); for a removal, sometimes oneself (leaving).
      // (The roles given are the picks, so the choice of target reads the number of picks.)
      let target = step.picks.length !== 3 && members?.length ? at(members, step.target).userId : user;
      // With the flag, a member the actor may act on (holding no more than the actor there), and no
      // owner given: what is left to judge is the grant.
      const permissionsOf = (userId: string) =>
        new Set(
          (members?.find((member) => member.userId === userId)?.roleIds ?? []).flatMap(
            (id) => state.organizationRoles.find((role) => role.id === id)?.permissionIds ?? [],
          ),
        );
      const mine = permissionsOf(actor);
      const lesser = members?.filter(
        (member) => member.userId !== actor && [...permissionsOf(member.userId)].every((id) => mine.has(id)),
      );
      if (step.flag && lesser?.length) target = at(lesser, step.target).userId;
      const given = step.flag ? roleIds.filter((id) => id !== owner) : roleIds;
      if (step.kind === 'setMemberRoles')
        return { kind: 'setMemberRoles', actor, organizationId, userId: target, roleIds: given };
      return {
        kind: 'removeMember',
        actor,
        organizationId,
        userId: step.flag && step.picks.length === 0 ? actor : target,
      };
    }
  }
  return null;
}

/** A failure of the service against the model or an invariant, with the history that led to it. */
export class ModelFailure extends Error {
  constructor(real: Real, what: string) {
    super(
      `${what}\nhistory (${real.log.length} HTTP calls):\n${real.log.map((line, i) => `  ${i + 1}. ${line}`).join('\n')}`,
    );
    this.name = 'ModelFailure';
  }
}

const accepted = (res: Response) => res.status >= 200 && res.status < 300;

function mismatch(prediction: Prediction, res: Response): string | null {
  const { status, code, message } = prediction.expected;
  const error = res.body?.error ?? {};
  if (res.status !== status) return `expected ${status}${code ? ` ${code}` : ''}${message ? ` "${message}"` : ''}`;
  if (code && error.code !== code) return `expected ${status} ${code}`;
  if (message && error.message !== message) return `expected ${status} ${code} "${message}"`;
  return null;
}

const answer = (res: Response) =>
  `${res.status}${res.body?.error ? ` ${res.body.error.code} "${res.body.error.message}"` : ''}`;

/** After an accepted action: keep a sign-in's token, forget those of sessions that ended. */
function followSessions(real: Real, state: ModelState, action: Action, res: Response): void {
  if (action.kind === 'signIn' && accepted(res)) real.tokens.set(action.userId, res.body.data.access_token);
  for (const [userId] of real.tokens) {
    const user = state.users.find((row) => row.id === userId);
    if (!user?.session) real.tokens.delete(userId);
  }
}

async function checkState(
  real: Real,
  state: ModelState,
  after: Snapshot,
  changed: boolean,
  organizations?: OrganizationSnapshot,
): Promise<void> {
  const label = (id: string) => real.labels.get(id) ?? id;
  const differs = difference(label, toSnapshot(state), after);
  if (differs) throw new ModelFailure(real, `the database differs from the model:\n${differs}`);
  real.last = after;
  const organizationsAfter = organizations ?? (await readOrganizations(real.db));
  const organizationsDiffer = organizationDifference(label, toOrganizationSnapshot(state), organizationsAfter);
  if (organizationsDiffer) throw new ModelFailure(real, `the database differs from the model:\n${organizationsDiffer}`);
  real.lastOrganizations = organizationsAfter;
  if (changed) await checkOrganizationTokens(real, state, organizationsAfter);
  // (6) every live session's /auth/me holds the union over the account's roles in the database,
  // asked after every accepted write (a refused one changed nothing, as the comparison shows).
  if (!changed) return;
  const violations: Violation[] = [];
  await Promise.all(
    state.users
      .filter((user) => user.session)
      .map(async (user) => {
        const res = await send(real, { method: 'GET', path: '/api/auth/me', actor: user.id });
        if (res.status !== 200) {
          violations.push({ invariant: 'live session', detail: `/auth/me of ${user.label} answered ${answer(res)}` });
          return;
        }
        violations.push(...apiAgrees(after, user.id, '/auth/me', res.body.data.permissions));
      }),
  );
  fail(real, violations);
}

/**
 * (O5) Every organization token the test holds answers `/auth/me` with exactly that
 * organization's permissions of the member, as the database holds them now; once its session
 * ended, its membership or its organization is gone, it answers 401 (and is forgotten).
 */
async function checkOrganizationTokens(real: Real, state: ModelState, snapshot: OrganizationSnapshot): Promise<void> {
  const violations: Violation[] = [];
  const kept: string[] = [];
  await Promise.all(
    state.organizationTokens.map(async (key) => {
      const [userId, organizationId] = key.split(' ');
      const token = real.organizationTokens?.get(key);
      if (!token) return;
      const user = state.users.find((row) => row.id === userId);
      const live =
        !!user?.session &&
        !!state.organizations.find((row) => row.id === organizationId)?.members.some((m) => m.userId === userId);
      const { default: request } = await import('supertest');
      const res = await request(real.app.getHttpServer()).get('/api/auth/me').set('authorization', `Bearer ${token}`);
      const who = `the organization token of ${real.labels.get(userId) ?? userId} for ${real.labels.get(organizationId) ?? organizationId}`;
      if (!live) {
        real.organizationTokens?.delete(key);
        if (res.status !== 401)
          violations.push({
            invariant: 'an ended organization token answers nothing',
            detail: `${who}: /auth/me answered ${answer(res)}, expected 401`,
          });
        return;
      }
      kept.push(key);
      if (res.status !== 200 || res.body.data.organization?.id !== organizationId) {
        violations.push({ invariant: 'live organization token', detail: `${who}: /auth/me answered ${answer(res)}` });
        return;
      }
      violations.push(
        ...organizationTokenAgrees(snapshot, organizationId, userId, '/auth/me', res.body.data.permissions),
      );
    }),
  );
  state.organizationTokens = state.organizationTokens.filter((key) => kept.includes(key));
  fail(real, violations);
}

function fail(real: Real, violations: Violation[]): void {
  if (violations.length === 0) return;
  const label = (text: string) =>
    text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => real.labels.get(id) ?? id);
  throw new ModelFailure(
    real,
    `invariant broken:\n${violations.map((v) => `  ${v.invariant}: ${label(v.detail)}`).join('\n')}`,
  );
}

/** How often each step ran and with which answer, printed at the end (what the search reached). */
function tally(real: Real, action: Action, res: Response): void {
  const key = `${action.kind} ${res.status}`;
  real.tally?.set(key, (real.tally.get(key) ?? 0) + 1);
}

/** After an accepted organization step: the invitation's token from its mail, an organization token kept. */
async function followOrganizationStep(real: Real, state: ModelState, action: Action, res: Response): Promise<void> {
  if (action.kind === 'inviteMember' && real.mails) {
    const invitation = state.invitations.find((row) => row.id === String(res.body.data.id))!;
    const seen = (real.mailsSeen?.get(invitation.email) ?? 0) + 1;
    real.mailsSeen?.set(invitation.email, seen);
    const links = () =>
      real
        .mails!.mailsTo(invitation.email)
        .flatMap((mail) => /\/accept-invitation\?token=([A-Za-z0-9_-]+)/.exec(mail.text)?.[1] ?? []);
    // Other mails may go to the same address (notices); the invitations are those with the link.
    for (let waited = 0; links().length < seen; waited += 10) {
      if (waited > 15_000) throw new ModelFailure(real, `no invitation mail #${seen} to ${invitation.email}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    invitation.token = links()[seen - 1];
  }
  if (action.kind === 'organizationToken')
    real.organizationTokens?.set(`${action.actor} ${action.organizationId}`, String(res.body.data.access_token));
}

class StepCommand implements fc.AsyncCommand<ModelState, Real> {
  private shown = '';
  constructor(readonly step: Step) {}
  check(): boolean {
    return true;
  }
  async run(state: ModelState, real: Real): Promise<void> {
    const action = resolve(this.step, state, real.serial);
    if (!action) return;
    const call = httpCall(action, state);
    relabel(real, state);
    this.shown = describeCall(real, call);
    real.log.push(this.shown);
    const before = real.last ?? (await readSnapshot(real.db));
    const organizationsBefore = real.lastOrganizations ?? (await readOrganizations(real.db));
    const prediction = predict(state, action);
    const res = await send(real, call);
    const wrong = mismatch(prediction, res);
    if (wrong) throw new ModelFailure(real, `the last call answered ${answer(res)}; the model ${wrong}`);
    tally(real, action, res);
    if (accepted(res)) prediction.apply?.(state, res.body.data ?? {});
    followSessions(real, state, action, res);
    if (accepted(res)) await followOrganizationStep(real, state, action, res);
    relabel(real, state);
    const after = await readSnapshot(real.db);
    const organizationsAfter = await readOrganizations(real.db);
    if (accepted(res) && prediction.facts) fail(real, stepInvariants(real.start, before, after, prediction.facts));
    if (accepted(res) && prediction.organizationFacts)
      fail(real, organizationStepInvariants(organizationsBefore, organizationsAfter, prediction.organizationFacts));
    // (O4) whatever the write, every organization keeps an owner; an account's deletion takes its
    // memberships with it, and the contract says nothing of a sole owner's (left out here).
    if (action.kind !== 'deleteUser')
      fail(
        real,
        organizationsBefore.organizations.flatMap((row) =>
          lastOwnerKept(organizationsBefore, organizationsAfter, row.id),
        ),
      );
    await checkState(real, state, after, accepted(res), organizationsAfter);
  }
  toString(): string {
    return this.shown || this.step.kind;
  }
}

/**
 * Both orders of a pair may leave the same rows (a sign-in beside a change that ends the account's
 * sessions: the new session ended or not). Which one ran shows in whether the disputed sessions
 * still answer; the model follows that order, and the invariants hold it to it.
 */
async function whichOrderRan<T extends { model: ModelState }>(
  real: Real,
  pair: [Action, Action],
  responses: Response[],
  fitting: T[],
): Promise<T> {
  const sessionOf = (candidate: T, userId: string) => candidate.model.users.find((user) => user.id === userId)?.session;
  const disputed = fitting[0].model.users
    .map((user) => user.id)
    .filter((id) => fitting.some((candidate) => sessionOf(candidate, id) !== sessionOf(fitting[0], id)));
  if (disputed.length === 0) return fitting[0];
  for (const [index, action] of pair.entries()) {
    if (action.kind === 'signIn' && accepted(responses[index]))
      real.tokens.set(action.userId, responses[index].body.data.access_token);
  }
  const live = new Map<string, boolean>();
  for (const id of disputed) {
    if (!real.tokens.has(id)) continue;
    const res = await send(real, { method: 'GET', path: '/api/auth/me', actor: id });
    live.set(id, res.status === 200);
  }
  return (
    fitting.find((candidate) => [...live].every(([id, isLive]) => sessionOf(candidate, id) === isLive)) ?? fitting[0]
  );
}

/** Two actions sent at once; the outcome must be that of one order or the other. */
class PairCommand implements fc.AsyncCommand<ModelState, Real> {
  private shown = '';
  constructor(readonly steps: [Step, Step]) {}
  check(): boolean {
    return true;
  }
  async run(state: ModelState, real: Real): Promise<void> {
    const actions = this.steps.map((step) => resolve(step, state, real.serial));
    if (!actions[0] || !actions[1]) return;
    const pair = actions as [Action, Action];
    const calls = pair.map((action) => httpCall(action, state));
    relabel(real, state);
    this.shown = `at once: ${calls.map((call) => describeCall(real, call)).join(' | ')}`;
    real.log.push(this.shown);
    const before = real.last ?? (await readSnapshot(real.db));
    const responses = await Promise.all(calls.map((call) => send(real, call)));
    const after = await readSnapshot(real.db);
    const tried: string[] = [];
    const fitting: { model: ModelState; steps: { before: Snapshot; after: Snapshot; prediction: Prediction }[] }[] = [];
    for (const order of [
      [0, 1],
      [1, 0],
    ]) {
      const model = cloneState(state);
      const steps: { before: Snapshot; after: Snapshot; prediction: Prediction }[] = [];
      let fits = true;
      for (const index of order) {
        const res = responses[index];
        // The caller's own permissions may be judged as they were when the request arrived (the
        // caller is loaded before the other request commits) or as they are after the other one;
        // either is a fit. A refusal may be a 403 or a 409 depending on which check saw the other
        // request first; it must still be a refusal.
        const fit = (prediction: Prediction) =>
          res.status < 500 &&
          accepted(res) === prediction.expected.status < 300 &&
          (!accepted(res) || res.status === prediction.expected.status);
        const candidates = [predict(model, pair[index]), predict(model, pair[index], state)];
        const prediction = candidates.find(fit);
        if (!prediction) {
          fits = false;
          tried.push(
            `order ${order.join('→')}: call ${index + 1} answered ${answer(res)}, the model expected ${candidates.map((c) => c.expected.status).join(' or ')}`,
          );
          break;
        }
        const was = toSnapshot(model);
        if (accepted(res)) prediction.apply?.(model, res.body.data ?? {});
        steps.push({ before: was, after: toSnapshot(model), prediction });
      }
      if (!fits) continue;
      const differs = difference((id) => real.labels.get(id) ?? id, toSnapshot(model), after);
      if (differs) {
        tried.push(`order ${order.join('→')}: the database differs:\n${differs}`);
        continue;
      }
      fitting.push({ model, steps });
    }
    if (fitting.length > 0) {
      const { model, steps } = await whichOrderRan(real, pair, responses, fitting);
      // A sign-in beside a change that ends the account's sessions leaves it unsure whether the
      // account's organization tokens (of the session before) still answer: they are forgotten.
      const signedIn = pair.flatMap((action) => (action.kind === 'signIn' ? [action.userId] : []));
      model.organizationTokens = model.organizationTokens.filter((key) => !signedIn.includes(key.split(' ')[0]));
      Object.assign(state, model);
      for (const [index, action] of pair.entries()) followSessions(real, state, action, responses[index]);
      relabel(real, state);
      const acceptedActors = steps.flatMap((step) => (step.prediction.facts ? [step.prediction.facts.actorId] : []));
      fail(real, noEscalation(before, after, acceptedActors));
      for (const step of steps) {
        const facts = step.prediction.facts;
        if (facts) fail(real, noActionAbove(step.before, facts, effectivePermissionIds(before, facts.actorId)));
      }
      fail(real, stateInvariants(real.start, after));
      await checkState(real, state, after, responses.some(accepted));
      return;
    }
    throw new ModelFailure(
      real,
      `the pair's outcome (${responses.map(answer).join(', ')}) is that of neither order:\n${tried.join('\n')}`,
    );
  }
  toString(): string {
    return this.shown || `pair ${this.steps[0].kind} ${this.steps[1].kind}`;
  }
}

export const commandsArb = fc.commands(
  [stepArb.map((step) => new StepCommand(step)), pairArb.map((steps) => new PairCommand(steps))],
  { maxCommands: 14 },
);

export interface ModelRunOptions {
  runs: number;
  seed: number;
  /** Where progress and the result go (the seed is always printed). */
  print: (line: string) => void;
  /** The SMTP sink the invitation mails arrive at; without it no invitation is accepted. */
  mails?: Real['mails'];
}

export interface ModelRunResult {
  failed: boolean;
  seed: number;
  runs: number;
  millis: number;
  report: string;
}

/** Runs `runs` histories from `seed` on the service and database given. */
export async function runModel(
  app: NestFastifyApplication,
  db: DataSource,
  options: ModelRunOptions,
): Promise<ModelRunResult> {
  const fixed: Fixed = await readFixed(app, db);
  options.print(`privilege model: ${options.runs} histories, seed ${options.seed}`);
  const real: Real = {
    app,
    db,
    tokens: new Map(),
    start: { permissions: [], roles: [], users: [] },
    log: [],
    labels: new Map(),
    serial: { next: 0 },
    mails: options.mails,
    mailsSeen: new Map(),
    tally: new Map(),
  };
  let history = 0;
  const property = fc.asyncProperty(worldArb, commandsArb, async (world, commands) => {
    real.log = [];
    const state = await buildWorld(real, fixed, world, history++);
    real.log.push(`(world) ${describeWorld(real, state)}`);
    await fc.asyncModelRun(() => ({ model: state, real }), commands);
    // At the end: introspection agrees with the database too.
    await checkIntrospection(real, state);
  });
  const started = Date.now();
  const details = await fc.check(property, { numRuns: options.runs, seed: options.seed, endOnFailure: false });
  const millis = Date.now() - started;
  const organizationKinds = ORGANIZATION_KINDS as readonly string[];
  options.print(
    `organization steps (kind status ×count): ${[...real.tally!]
      .filter(([key]) => organizationKinds.includes(key.split(' ')[0]))
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, count]) => `${key}×${count}`)
      .join(', ')}`,
  );
  if (!details.failed) {
    return { failed: false, seed: options.seed, runs: details.numRuns, millis, report: '' };
  }
  const error = details.errorInstance;
  const report = [
    `privilege model FAILED after ${details.numRuns} histories (seed ${options.seed}, path "${details.counterexamplePath}", shrunk ${details.numShrinks} times)`,
    error instanceof Error ? error.message : String(error),
    `replay: npm run test:model -- --runs ${options.runs} --seed ${options.seed}`,
  ].join('\n');
  return { failed: true, seed: options.seed, runs: details.numRuns, millis, report };
}

function describeWorld(real: Real, state: ModelState): string {
  const label = (id: string) => real.labels.get(id) ?? id;
  const roles = state.roles
    .filter((role) => role.name !== 'admin')
    .map(
      (role) =>
        `${role.name}=[${role.permissionIds
          .map((id) => label(id).replace('perm:', ''))
          .sort()
          .join(',')}]`,
    );
  const users = state.users.map(
    (user) =>
      `${user.label}${user.enabled ? '' : '(disabled)'}=[${user.roleIds.map((id) => label(id).replace('role:', '')).join(',')}]`,
  );
  const organizationRoles = state.organizationRoles
    .filter((role) => !role.isSystem)
    .map(
      (role) =>
        `${role.name}=[${role.permissionIds
          .map((id) => label(id).replace('org-perm:', ''))
          .sort()
          .join(',')}]`,
    );
  const organizations = state.organizations.map(
    (row) =>
      `${row.label}{${row.members
        .map(
          (member) =>
            `${label(member.userId)}=[${member.roleIds.map((id) => label(id).replace('org-role:', '')).join(',')}]`,
        )
        .join(' ')}}`,
  );
  return `roles ${roles.join(' ')}; users ${users.join(' ')}; organization roles ${organizationRoles.join(' ')}; organizations ${organizations.join(' ')}`;
}

export const INTROSPECTION_CLIENT = { id: 'model-checker', secret: 'Vq8-model-checker-Rk2x-Lp9w-Tz4n-Hs6c-Jd3f' };

async function checkIntrospection(real: Real, state: ModelState): Promise<void> {
  const after = await readSnapshot(real.db);
  const violations: Violation[] = [];
  const basic = Buffer.from(`${INTROSPECTION_CLIENT.id}:${INTROSPECTION_CLIENT.secret}`).toString('base64');
  const { default: request } = await import('supertest');
  for (const user of state.users.filter((row) => row.session)) {
    const res = await request(real.app.getHttpServer())
      .post('/api/auth/introspect')
      .set('authorization', `Basic ${basic}`)
      .send({ token: real.tokens.get(user.id) });
    if (res.status !== 200 || res.body.active !== true) {
      violations.push({
        invariant: 'live session',
        detail: `introspection of ${user.label} answered ${res.status} ${JSON.stringify(res.body)}`,
      });
      continue;
    }
    violations.push(...apiAgrees(after, user.id, 'introspection', res.body.permissions));
  }
  real.log.push('(end) introspection of every live session');
  fail(real, violations);
}
