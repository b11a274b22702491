/**
 * Organizations (contract, "Organizations: roles per customer"):
 *
 * - Organization tokens issued per second (`POST /api/auth/organization-token`, the member's
 *   access token), against `GET /api/auth/me` with the same token, as the median of interleaved
 *   rounds with its spread.
 * - A guarded consumer route (`GET /reports`, `contents.view`) under an organization token against
 *   the same route under an ordinary token (goal ≥ 0.95). The organization holds an organization
 *   permission named `contents.view` (the two kinds of permission are kept apart, so the name may
 *   be the same): under the organization token the guard judges only the organization's
 *   permissions, under the ordinary token only the instance's; the route and its check are the same.
 */
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { installConsumer, startConsumer } from '../test/consumer/consumer-support.js';
import { medianOf, ROUNDS, round, signIn, sleep, type RoundedRatio } from './support.js';

export interface OrganizationFigures {
  organization_token_requests_per_second: number;
  organization_token_vs_me_median: number;
  organization_token_vs_me_spread: [number, number];
  consumer_organization_vs_ordinary_median: number;
  consumer_organization_vs_ordinary_spread: [number, number];
  consumer_organization_requests_per_second: number;
}

interface Setup {
  base: string;
  env: Record<string, string>;
  adminEmail: string;
}

type Answer = { status: number; data: Record<string, unknown> };

async function call(base: string, method: string, route: string, token: string, body?: unknown): Promise<Answer> {
  const res = await fetch(base + route, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json().catch(() => null)) as { data?: Record<string, unknown> } | null;
  return { status: res.status, data: json?.data ?? {} };
}

function expectStatus(answer: Answer, status: number, what: string): Answer {
  if (answer.status !== status) throw new Error(`${what} answered ${answer.status}: ${JSON.stringify(answer.data)}`);
  return answer;
}

/** A and B interleaved, ROUNDS times: B's requests per second over A's, with A's and B's per round. */
async function interleaved(
  a: autocannon.Options,
  b: autocannon.Options,
  label: [string, string],
): Promise<{ ratio: RoundedRatio; bRps: number }> {
  await autocannon({ ...a, connections: 10, duration: 2 });
  await autocannon({ ...b, connections: 10, duration: 2 });
  const ratios: number[] = [];
  const bRates: number[] = [];
  for (let roundNo = 0; roundNo < ROUNDS; roundNo++) {
    const first = await autocannon({ ...a, connections: 10, duration: 5 });
    const second = await autocannon({ ...b, connections: 10, duration: 5 });
    if (first.non2xx || second.non2xx) throw new Error(`non-2xx answers: ${first.non2xx} and ${second.non2xx}`);
    ratios.push(second.requests.average / first.requests.average);
    bRates.push(second.requests.average);
    console.log(
      `  round ${roundNo + 1}: ${label[0]} ${round(first.requests.average)} req/s, ${label[1]} ${round(second.requests.average)} req/s`,
    );
  }
  return { ratio: medianOf(ratios), bRps: medianOf(bRates, 1).median };
}

export async function measureOrganizations({ base, env, adminEmail }: Setup): Promise<OrganizationFigures> {
  const admin = (await signIn(base, adminEmail, env.SEED_ADMIN_PASSWORD)).access_token;
  // The administrator creates the organization and so is its owner: a member.
  const organization = expectStatus(
    await call(base, 'POST', '/api/organizations', admin, {
      slug: `bench-${randomUUID().slice(0, 8)}`,
      name: 'Bench Organization',
    }),
    201,
    'creating the organization',
  );
  const organizationId = String(organization.data.id);

  console.log('  organization token / GET /api/auth/me (same access token):');
  const tokenRequest = {
    url: `${base}/api/auth/organization-token`,
    method: 'POST' as const,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
    body: JSON.stringify({ organization_id: organizationId }),
  };
  const me = { url: `${base}/api/auth/me`, headers: { authorization: `Bearer ${admin}` } };
  const tokens = await interleaved(me, tokenRequest, ['/auth/me', 'organization-token']);

  // An organization permission named as the instance one /reports needs; `owner` gets it at once.
  const permission = await call(base, 'POST', '/api/admin/organization-permissions', admin, {
    name: 'contents.view',
  });
  if (permission.status !== 201 && permission.status !== 409)
    throw new Error(`creating the organization permission answered ${permission.status}`);
  const organizationToken = String(
    expectStatus(
      await call(base, 'POST', '/api/auth/organization-token', admin, { organization_id: organizationId }),
      200,
      'the organization token',
    ).data.access_token,
  );

  const folder = await installConsumer(12);
  const [clientId, clientSecret] = env.SERVICE_CLIENTS.split(':');
  const consumer = await startConsumer(folder, {
    AUTH_URL: base,
    AUTH_CLIENT_ID: clientId,
    AUTH_CLIENT_SECRET: clientSecret,
    AUTH_JWT_SECRET: env.JWT_SECRET,
  });
  try {
    while (
      !((await (await fetch(`${consumer.baseUrl}/health/auth`)).json()) as { data: { fresh: boolean } }).data.fresh
    )
      await sleep(50);
    const reports = (token: string) => ({
      url: `${consumer.baseUrl}/reports`,
      headers: { authorization: `Bearer ${token}` },
    });
    for (const [token, what] of [
      [admin, 'ordinary'],
      [organizationToken, 'organization'],
    ] as const) {
      const res = await fetch(reports(token).url, { headers: reports(token).headers });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`/reports under the ${what} token answered ${res.status}`);
    }
    console.log('  consumer /reports, organization token / ordinary token:');
    const guarded = await interleaved(reports(admin), reports(organizationToken), ['ordinary', 'organization']);
    return {
      organization_token_requests_per_second: tokens.bRps,
      organization_token_vs_me_median: tokens.ratio.median,
      organization_token_vs_me_spread: tokens.ratio.spread,
      consumer_organization_vs_ordinary_median: guarded.ratio.median,
      consumer_organization_vs_ordinary_spread: guarded.ratio.spread,
      consumer_organization_requests_per_second: guarded.bRps,
    };
  } finally {
    await consumer.stop();
  }
}
