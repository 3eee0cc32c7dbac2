/** The part of madge that test/daemon/import-cycles.test.ts uses (madge ships no types). */
declare module 'madge' {
  export interface MadgeConfig {
    fileExtensions?: string[];
    tsConfig?: string;
    /** `{ ts: { skipTypeImports: false } }`: count `import type` edges too. */
    detectiveOptions?: Record<string, Record<string, unknown>>;
  }
  export interface MadgeResult {
    /** Each cycle as the files on it, relative to the folder walked. */
    circular(): string[][];
    obj(): Record<string, string[]>;
  }
  export default function madge(path: string, config?: MadgeConfig): Promise<MadgeResult>;
}
