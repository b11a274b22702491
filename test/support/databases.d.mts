export interface TestDatabase {
  url: string;
  kind: 'server' | 'embedded';
  drop(): Promise<void>;
}
export function createTestDatabase(serverUrl: string | undefined, prefix?: string): Promise<TestDatabase>;
