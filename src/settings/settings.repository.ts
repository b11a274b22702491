import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export interface SettingRow {
  key: string;
  value: unknown;
}

@Injectable()
export class SettingsRepository {
  constructor(private readonly dataSource: DataSource) {}

  findByKeys(keys: readonly string[]): Promise<SettingRow[]> {
    return this.dataSource.query(`SELECT key, value FROM settings WHERE key = ANY($1)`, [keys]);
  }

  /** Rows that exist are left alone: a value changed through the API outlives the configuration. */
  async insertMissing(rows: readonly SettingRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.dataSource.query(
      `INSERT INTO settings (key, value) VALUES ${placeholders(rows.length)} ON CONFLICT (key) DO NOTHING`,
      parameters(rows),
    );
  }

  /** One statement, so a change of several settings lands at once or not at all. */
  async upsert(rows: readonly SettingRow[]): Promise<void> {
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

function parameters(rows: readonly SettingRow[]): unknown[] {
  return rows.flatMap((row) => [row.key, JSON.stringify(row.value)]);
}
