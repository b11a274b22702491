import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/** This instance's connection pool, as the metrics report it. */
@Injectable()
export class DatabasePool {
  constructor(private readonly dataSource: DataSource) {}

  /** The pg pool's counts, or undefined when the driver has no pool (yet). */
  counts(): Partial<PoolCounts> | undefined {
    return (this.dataSource.driver as unknown as { master?: Partial<PoolCounts> }).master;
  }
}
