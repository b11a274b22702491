import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

/** What a flow towards an upstream is for: a sign-in on the provider's pages, or a link from the account. */
export type UpstreamFlowPurpose = 'sign_in' | 'link';

/** A row of `upstream_flows`: one `state` sent to an upstream, kept as a hash until its answer. */
export interface UpstreamFlowRow {
  stateHash: string;
  /** The SHA-256 of the browser's binding cookie: the answer counts only in the browser that asked. */
  bindingHash: string;
  providerId: string;
  purpose: UpstreamFlowPurpose;
  /** The account a link is for; null for a sign-in. */
  userId: string | null;
  /** The authorization request of the client that asked (a sign-in), to go on with after it. */
  parameters: Record<string, string>;
  expiresAt: Date;
}

/** A row of `upstream_link_proofs`: "this browser may link (provider, sub) to this account once it signs in to it". */
export interface LinkProofRow {
  tokenHash: string;
  userId: string;
  providerId: string;
  subject: string;
  email: string | null;
  expiresAt: Date;
}

const FLOW_COLUMNS = `state_hash AS "stateHash", binding_hash AS "bindingHash", provider_id AS "providerId", purpose,
  user_id AS "userId", parameters, expires_at AS "expiresAt"`;
const PROOF_COLUMNS = `token_hash AS "tokenHash", user_id AS "userId", provider_id AS "providerId", subject, email,
  expires_at AS "expiresAt"`;

/** The statements of `upstream_flows` and `upstream_link_proofs`: both single use, both with an end. */
@Injectable()
export class UpstreamFlowsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insertFlow(flow: UpstreamFlowRow): Promise<void> {
    // Expired flows of anyone go with each new one: the table holds only what may still be answered.
    await this.dataSource.query(`DELETE FROM upstream_flows WHERE expires_at < now()`);
    await this.dataSource.query(
      `INSERT INTO upstream_flows (state_hash, binding_hash, provider_id, purpose, user_id, parameters, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        flow.stateHash,
        flow.bindingHash,
        flow.providerId,
        flow.purpose,
        flow.userId,
        JSON.stringify(flow.parameters),
        flow.expiresAt,
      ],
    );
  }

  /**
   * Takes the flow of this `state`: the row goes in the same statement, so a replayed or parallel
   * answer with the same `state` finds nothing. Null when unknown, used or expired.
   */
  async takeFlow(stateHash: string): Promise<UpstreamFlowRow | null> {
    // In a WITH: TypeORM answers a bare DELETE ... RETURNING as [rows, count].
    const rows: UpstreamFlowRow[] = await this.dataSource.query(
      `WITH taken AS (DELETE FROM upstream_flows WHERE state_hash = $1 RETURNING ${FLOW_COLUMNS}) SELECT * FROM taken`,
      [stateHash],
    );
    const row = rows[0];
    return row && new Date(row.expiresAt).getTime() > Date.now() ? row : null;
  }

  async insertLinkProof(proof: LinkProofRow): Promise<void> {
    await this.dataSource.query(`DELETE FROM upstream_link_proofs WHERE expires_at < now()`);
    await this.dataSource.query(
      `INSERT INTO upstream_link_proofs (token_hash, user_id, provider_id, subject, email, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [proof.tokenHash, proof.userId, proof.providerId, proof.subject, proof.email, proof.expiresAt],
    );
  }

  /** Takes the proof, in the caller's transaction: of parallel uses, one finds it. */
  async takeLinkProof(manager: EntityManager, tokenHash: string): Promise<LinkProofRow | null> {
    const rows: LinkProofRow[] = await manager.query(
      `WITH taken AS (DELETE FROM upstream_link_proofs WHERE token_hash = $1 RETURNING ${PROOF_COLUMNS})
       SELECT * FROM taken`,
      [tokenHash],
    );
    const row = rows[0];
    return row && new Date(row.expiresAt).getTime() > Date.now() ? row : null;
  }
}
