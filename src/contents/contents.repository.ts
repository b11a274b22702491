import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/**
 * A row of `contents`, the one shape the table's statements answer in: every column aliased to its
 * camelCase name (`author_id AS "authorId"`).
 */
export interface ContentRow {
  id: string;
  title: string;
  body: string;
  /** Null once the author's account is deleted, or when a service client wrote it. */
  authorId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

const COLUMNS = `id, title, body, author_id AS "authorId", created_at AS "createdAt", updated_at AS "updatedAt"`;

export type NewContent = Pick<ContentRow, 'title' | 'body' | 'authorId'>;

export type ContentChanges = Partial<Pick<ContentRow, 'title' | 'body'>>;

@Injectable()
export class ContentsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Newest first; the id breaks ties between rows created in one transaction. */
  findPage(offset: number, limit: number): Promise<ContentRow[]> {
    return this.dataSource.query(
      `SELECT ${COLUMNS} FROM contents ORDER BY created_at DESC, id DESC LIMIT $1 OFFSET $2`,
      [limit, offset],
    );
  }

  async count(): Promise<number> {
    const [{ total }]: { total: number }[] = await this.dataSource.query(`SELECT count(*)::int AS total FROM contents`);
    return total;
  }

  async findById(id: string): Promise<ContentRow | null> {
    const rows: ContentRow[] = await this.dataSource.query(`SELECT ${COLUMNS} FROM contents WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  async insert(content: NewContent): Promise<ContentRow> {
    const [row]: ContentRow[] = await this.dataSource.query(
      `INSERT INTO contents (title, body, author_id) VALUES ($1, $2, $3) RETURNING ${COLUMNS}`,
      [content.title, content.body, content.authorId],
    );
    return row;
  }

  /** Null when no such row. A field left undefined keeps its value. */
  async update(id: string, changes: ContentChanges): Promise<ContentRow | null> {
    // TypeORM answers an UPDATE with [rows, affected count].
    const [rows]: [ContentRow[], number] = await this.dataSource.query(
      `UPDATE contents SET title = COALESCE($2, title), body = COALESCE($3, body), updated_at = now()
        WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, changes.title ?? null, changes.body ?? null],
    );
    return rows[0] ?? null;
  }

  /** Whether a row was deleted. */
  async delete(id: string): Promise<boolean> {
    const [, affected]: [unknown[], number] = await this.dataSource.query(`DELETE FROM contents WHERE id = $1`, [id]);
    return affected > 0;
  }
}
