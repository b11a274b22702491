/**
 * The admin users list over a large table (300,000 users on PostgreSQL), against GET /health
 * measured in the same run. Each list is measured at 4 connections, within
 * ADMIN_LIST_CONCURRENCY's default, so the lists are measured, not the cap's 429s.
 */
import type autocannon from 'autocannon';
import { measure, round, sleep, type Load } from './support.js';

interface Scenario {
  name: string;
  path: string;
  admin: boolean;
}

export function adminListScenarios(users: number): Scenario[] {
  const deep = Math.max(1, Math.floor(users / 60));
  return [
    { name: 'baseline: GET /health', path: '/health', admin: false },
    { name: 'users, first page', path: '/api/admin/users?page=1&limit=20', admin: true },
    { name: `users, page ${deep}`, path: `/api/admin/users?page=${deep}&limit=20`, admin: true },
    { name: 'users, 100 a page', path: '/api/admin/users?page=42&limit=100', admin: true },
    {
      name: 'users, search by email',
      path: `/api/admin/users?search=bench-${Math.floor(users * 0.41)}%40`,
      admin: true,
    },
    {
      name: 'users, search by name',
      path: `/api/admin/users?search=${encodeURIComponent(`bench ${Math.floor(users / 10) - 1}`)}`,
      admin: true,
    },
  ];
}

export interface AdminListFigures {
  scenario: string;
  path: string;
  requests_per_second: number;
  p50_ms: number;
  p99_ms: number;
  mean_ms: number;
  non_2xx: number;
  errors: number;
  rps_ratio_to_baseline: number;
  mean_latency_ratio_to_baseline: number;
}

/** Requests still in flight when autocannon stops would hold the cap's slots into the next run. */
const DRAIN_MS = 1_000;

export async function measureAdminLists(
  base: string,
  adminToken: string,
  users: number,
  load: Load,
): Promise<AdminListFigures[]> {
  const results: { scenario: Scenario; result: autocannon.Result }[] = [];
  for (const scenario of adminListScenarios(users)) {
    const headers = scenario.admin ? { authorization: `Bearer ${adminToken}` } : undefined;
    results.push({ scenario, result: await measure({ url: base + scenario.path, headers }, load) });
    await sleep(DRAIN_MS);
  }
  const baseline = results[0].result;
  return results.map(({ scenario, result }) => ({
    scenario: scenario.name,
    path: scenario.path,
    requests_per_second: round(result.requests.average),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    mean_ms: round(result.latency.mean, 2),
    non_2xx: result.non2xx,
    errors: result.errors,
    rps_ratio_to_baseline: round(result.requests.average / baseline.requests.average, 3),
    // The mean, not p50: autocannon reports whole milliseconds, and /health's p50 is often 0.
    mean_latency_ratio_to_baseline: round(result.latency.mean / Math.max(baseline.latency.mean, 0.01), 1),
  }));
}
