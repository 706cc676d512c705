import type { BuildOptions } from 'esbuild';

export declare const packagedBundle: BuildOptions & { define: Record<string, string> };
