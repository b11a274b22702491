import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { ContentResponse } from './contents.dto.js';

/** Rows come back in the response's own shape (snake_case columns), so nothing maps them. */
const COLUMNS = 'id, title, body, author_id, created_at, updated_at';

export interface NewContent {
  title: string;
  body: string;
  authorId: string | null;
}

export interface ContentChanges {
  title?: string;
  body?: string;
}

@Injectable()
export class ContentsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Newest first; the id breaks ties between rows created in one transaction. */
  findPage(offset: number, limit: number): Promise<ContentResponse[]> {
    return this.dataSource.query(
      `SELECT ${COLUMNS} FROM contents ORDER BY created_at DESC, id DESC LIMIT $1 OFFSET $2`,
      [limit, offset],
    );
  }

  async count(): Promise<number> {
    const [{ total }] = await this.dataSource.query(`SELECT count(*)::int AS total FROM contents`);
    return total;
  }

  async findById(id: string): Promise<ContentResponse | null> {
    const rows: ContentResponse[] = await this.dataSource.query(`SELECT ${COLUMNS} FROM contents WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  async insert(content: NewContent): Promise<ContentResponse> {
    const [row] = await this.dataSource.query(
      `INSERT INTO contents (title, body, author_id) VALUES ($1, $2, $3) RETURNING ${COLUMNS}`,
      [content.title, content.body, content.authorId],
    );
    return row;
  }

  /** Null when no such row. A field left undefined keeps its value. */
  async update(id: string, changes: ContentChanges): Promise<ContentResponse | null> {
    // TypeORM answers an UPDATE with [rows, affected count].
    const [rows]: [ContentResponse[], number] = await this.dataSource.query(
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
