import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/**
 * One service-wide setting. The value is JSON so that a later setting that is not a flag needs
 * no migration; the service writes and accepts only the type each key is declared with.
 */
@Entity({ name: 'settings' })
export class Setting {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  key!: string;

  @Column({ type: 'jsonb' })
  value!: unknown;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
