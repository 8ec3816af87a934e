// The layer map of .dependency-cruiser.mjs, as scripts/architecture-graph.ts reads it.
export declare const layers: { name: string; summary: string; folders?: string[]; files?: string[] }[];
declare const configuration: object;
export default configuration;
