import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

/** A row of `organizations`, every column aliased to its camelCase name. */
export interface OrganizationRow {
  id: string;
  slug: string;
  name: string;
  createdAt: Date;
  updatedAt: Date;
}

const COLUMNS = `id, slug, name, created_at AS "createdAt", updated_at AS "updatedAt"`;

/** The only writer of `organizations`. A taken slug surfaces as the unique violation of `UQ_organizations_slug`. */
@Injectable()
export class OrganizationsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(manager: EntityManager, organization: { slug: string; name: string }): Promise<OrganizationRow> {
    const [row]: OrganizationRow[] = await manager.query(
      `INSERT INTO organizations (slug, name) VALUES ($1, $2) RETURNING ${COLUMNS}`,
      [organization.slug, organization.name],
    );
    return row;
  }

  async findById(id: string, manager: EntityManager = this.dataSource.manager): Promise<OrganizationRow | null> {
    const [row]: OrganizationRow[] = await manager.query(`SELECT ${COLUMNS} FROM organizations WHERE id = $1`, [id]);
    return row ?? null;
  }

  async findBySlug(slug: string): Promise<OrganizationRow | null> {
    const [row]: OrganizationRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM organizations WHERE slug = $1`,
      [slug],
    );
    return row ?? null;
  }

  /**
   * Locks the organization's row: every change of its memberships takes this lock first, so two
   * changes at once (two administrators, two accepts) are judged one after the other.
   */
  async lock(manager: EntityManager, id: string): Promise<OrganizationRow | null> {
    const [row]: OrganizationRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM organizations WHERE id = $1 FOR UPDATE`,
      [id],
    );
    return row ?? null;
  }

  async update(
    manager: EntityManager,
    id: string,
    changes: { slug?: string; name?: string },
  ): Promise<OrganizationRow> {
    const [rows]: [OrganizationRow[], number] = await manager.query(
      `UPDATE organizations SET slug = COALESCE($2, slug), name = COALESCE($3, name), updated_at = now()
        WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, changes.slug ?? null, changes.name ?? null],
    );
    return rows[0];
  }

  async delete(manager: EntityManager, id: string): Promise<void> {
    await manager.query(`DELETE FROM organizations WHERE id = $1`, [id]);
  }

  /** Every organization (or those whose slug or name holds `search`), newest first: the console's list. */
  findPage(offset: number, limit: number, search?: string): Promise<OrganizationRow[]> {
    const { where, params } = searchCondition(search);
    return this.dataSource.query(
      `SELECT ${COLUMNS} FROM organizations ${where}
        ORDER BY created_at DESC, id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, limit, offset],
    );
  }

  async count(search?: string): Promise<number> {
    const { where, params } = searchCondition(search);
    const [{ total }]: { total: number }[] = await this.dataSource.query(
      `SELECT count(*)::int AS total FROM organizations ${where}`,
      params,
    );
    return total;
  }
}

/** A fragment of the slug or the name, case-insensitively; LIKE's wildcards in it are matched literally. */
function searchCondition(search: string | undefined): { where: string; params: unknown[] } {
  if (!search) return { where: '', params: [] };
  const pattern = `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return { where: `WHERE slug ILIKE $1 OR name ILIKE $1`, params: [pattern] };
}
