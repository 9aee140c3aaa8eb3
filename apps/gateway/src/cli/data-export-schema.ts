/**
 * Writes docs/schemas/data-export.schema.json from the export's declaration (application/data-export.ts), so the
 * schema kept in the repository is the one the API documents; a test fails while the file differs.
 * Usage, from the repository's root: npx tsx apps/gateway/src/cli/data-export-schema.ts
 */
import { writeFileSync } from 'node:fs';
import { dataExportJsonSchema, DATA_EXPORT_SCHEMA_FILE } from '../application/data-export';

writeFileSync(DATA_EXPORT_SCHEMA_FILE, `${JSON.stringify(dataExportJsonSchema(), null, 2)}\n`);
