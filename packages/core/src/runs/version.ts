/**
 * The run record's `schemaVersion`, bumped on any incompatible change; readers refuse a
 * version they do not know. Kept apart from the zod schemas (`@eval/core/schemas`) so that `@eval/core` loads
 * without zod.
 */
export const RUN_SCHEMA_VERSION = 1 as const;
