import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/**
 * A row of `settings`, the one shape the table's statements answer in: every column aliased to its
 * camelCase name (`updated_at AS "updatedAt"`).
 */
export interface SettingRow {
  key: string;
  /** JSON: the service writes and accepts only the type each key is declared with. */
  value: unknown;
  updatedAt: Date;
}

/** A setting as it is read and written: its key and value (`updated_at` is the database's to set). */
export type SettingValue = Pick<SettingRow, 'key' | 'value'>;

@Injectable()
export class SettingsRepository {
  constructor(private readonly dataSource: DataSource) {}

  findByKeys(keys: readonly string[]): Promise<SettingValue[]> {
    return this.dataSource.query(`SELECT key, value FROM settings WHERE key = ANY($1)`, [keys]);
  }

  /** Rows that exist are left alone: a value changed through the API outlives the configuration. */
  async insertMissing(rows: readonly SettingValue[]): Promise<void> {
    if (rows.length === 0) return;
    await this.dataSource.query(
      `INSERT INTO settings (key, value) VALUES ${placeholders(rows.length)} ON CONFLICT (key) DO NOTHING`,
      parameters(rows),
    );
  }

  /** One statement, so a change of several settings lands at once or not at all. */
  async upsert(rows: readonly SettingValue[]): Promise<void> {
    if (rows.length === 0) return;
    await this.dataSource.query(
      `INSERT INTO settings (key, value) VALUES ${placeholders(rows.length)}
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
      parameters(rows),
    );
  }
}

function placeholders(count: number): string {
  return Array.from({ length: count }, (_, i) => `($${2 * i + 1}, $${2 * i + 2}::jsonb)`).join(', ');
}

function parameters(rows: readonly SettingValue[]): unknown[] {
  return rows.flatMap((row) => [row.key, JSON.stringify(row.value)]);
}
