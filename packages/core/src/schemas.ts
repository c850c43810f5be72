/**
 * `@eval/core/schemas`: the zod schemas of the run record (`run.json`: {@link runManifestSchema}; `items.jsonl`:
 * {@link runItemSchema}), for code that validates runs itself. A separate entry so that `@eval/core` loads without
 * zod; its readers and writer load these on first use.
 */
export * from './runs/schema';
